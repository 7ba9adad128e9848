//! `Content-Length` framed JSON, as the Debug Adapter Protocol carries it over stdio or a socket.
//!
//! The reader never gives up on bad input: a frame it cannot delimit (no or a bad
//! `Content-Length`, a body shorter than announced) is reported once and reading resumes at the
//! next header; a body that is not JSON is reported with its bytes skipped. Only the end of the
//! stream ends the session.

use std::io::{self, BufRead, Write};

use serde_json::Value;

/// Frames announcing more than this are refused (a client sends small requests; a launch with
/// a long `env` is a few kilobytes).
pub const MAX_FRAME: usize = 16 * 1024 * 1024;

/// Header lines are short: a longer run of bytes without a line break is junk.
const MAX_HEADER_LINE: usize = 8 * 1024;

/// One thing read from the client.
#[derive(Debug)]
pub enum Frame {
    /// A JSON body.
    Message(Value),
    /// Something that is not a message: why, for the error response.
    Malformed(String),
}

/// Reads the next frame; `None` at the end of the stream.
pub fn read_frame(input: &mut impl BufRead) -> Option<Frame> {
    let mut length: Option<Result<usize, String>> = None;
    let mut line = Vec::new();
    loop {
        line.clear();
        let n = read_line_capped(input, &mut line).ok()?;
        if n == 0 {
            // The stream ended: inside a header is as good as between frames.
            return None;
        }
        let text = String::from_utf8_lossy(&line);
        let text = text.trim_end_matches(['\r', '\n']);
        if text.is_empty() {
            if length.is_none() {
                // A blank line between frames (some clients send one): nothing to answer.
                continue;
            }
            break;
        }
        if let Some((name, value)) = text.split_once(':') {
            if name.trim().eq_ignore_ascii_case("content-length") {
                length = Some(
                    value
                        .trim()
                        .parse::<usize>()
                        .map_err(|_| format!("bad Content-Length header: {:?}", value.trim())),
                );
            }
            // Other headers (Content-Type) are allowed and ignored.
            continue;
        }
        // Not a header line: report it; the next header starts a new frame.
        return Some(Frame::Malformed(format!(
            "expected a `Content-Length` header, got {:?}",
            shorten(text)
        )));
    }
    let length = match length {
        Some(Ok(n)) if n <= MAX_FRAME => n,
        Some(Ok(n)) => {
            return Some(Frame::Malformed(format!(
                "frame of {n} bytes refused (at most {MAX_FRAME})"
            )))
        }
        Some(Err(e)) => return Some(Frame::Malformed(e)),
        None => unreachable!("the loop breaks only with a length"),
    };
    let mut body = vec![0; length];
    if input.read_exact(&mut body).is_err() {
        return None;
    }
    Some(match serde_json::from_slice::<Value>(&body) {
        Ok(v) => Frame::Message(v),
        Err(e) => Frame::Malformed(format!("the body is not JSON: {e}")),
    })
}

fn shorten(s: &str) -> String {
    s.chars().take(60).collect()
}

/// Reads one line (up to and including `\n`), keeping at most [`MAX_HEADER_LINE`] bytes of it.
fn read_line_capped(input: &mut impl BufRead, out: &mut Vec<u8>) -> io::Result<usize> {
    let mut total = 0;
    loop {
        let buf = input.fill_buf()?;
        if buf.is_empty() {
            return Ok(total);
        }
        let (used, done) = match buf.iter().position(|&b| b == b'\n') {
            Some(i) => (i + 1, true),
            None => (buf.len(), false),
        };
        let room = MAX_HEADER_LINE.saturating_sub(out.len());
        out.extend_from_slice(&buf[..used.min(room)]);
        input.consume(used);
        total += used;
        if done {
            return Ok(total);
        }
    }
}

/// Writes one message as a frame.
pub fn write_frame(out: &mut impl Write, message: &Value) -> io::Result<()> {
    let body = serde_json::to_string(message).map_err(io::Error::other)?;
    write!(out, "Content-Length: {}\r\n\r\n", body.len())?;
    out.write_all(body.as_bytes())?;
    out.flush()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frames(bytes: &[u8]) -> Vec<Frame> {
        let mut input = io::BufReader::new(bytes);
        std::iter::from_fn(|| read_frame(&mut input)).collect()
    }

    #[test]
    fn frames_are_read_back_to_back_and_bad_ones_do_not_stop_the_reader() {
        let mut stream = Vec::new();
        write_frame(&mut stream, &serde_json::json!({"seq": 1})).unwrap();
        stream.extend_from_slice(b"junk line\r\n");
        stream.extend_from_slice(b"Content-Length: x\r\n\r\n");
        stream.extend_from_slice(b"Content-Length: 3\r\n\r\n{x}");
        stream.extend_from_slice(b"Content-Type: application/json\r\n");
        write_frame(&mut stream, &serde_json::json!({"seq": 2})).unwrap();
        let got = frames(&stream);
        let shapes: Vec<String> = got
            .iter()
            .map(|f| match f {
                Frame::Message(v) => format!("message {}", v["seq"]),
                Frame::Malformed(why) => format!("malformed {}", why.split(':').next().unwrap()),
            })
            .collect();
        assert_eq!(
            shapes,
            [
                "message 1",
                "malformed expected a `Content-Length` header, got \"junk line\"",
                "malformed bad Content-Length header",
                "malformed the body is not JSON",
                "message 2"
            ]
        );
    }

    #[test]
    fn a_huge_announced_length_is_refused_without_reading_it() {
        let stream = format!("Content-Length: {}\r\n\r\n", MAX_FRAME + 1);
        let got = frames(stream.as_bytes());
        assert!(
            matches!(&got[..], [Frame::Malformed(why)] if why.contains("refused")),
            "{got:?}"
        );
    }

    #[test]
    fn a_body_cut_short_ends_the_stream() {
        assert!(frames(b"Content-Length: 10\r\n\r\n{}").is_empty());
    }
}
