//! JSON-RPC over stdio with `Content-Length` framing, tolerant of bad input.
//!
//! `lsp-server`'s own stdio transport stops reading at the first malformed message, which ends
//! the session. This one answers a frame that is not JSON with a `ParseError` and one that is
//! not a JSON-RPC message with `InvalidRequest` (id `null` when none can be read), skips
//! oversized frames, and goes on reading.

use std::io::{self, BufRead, BufReader, Read, Write};
use std::thread;
use std::time::Duration;

use crossbeam_channel::{select, Receiver, Sender};
use lsp_server::{Connection, ErrorCode, Message};
use serde_json::Value;

/// Frames larger than this are read and discarded with an error (a 2 MiB script is about
/// 2.2 MB of JSON; this leaves room for anything an editor sends).
pub const MAX_FRAME: usize = 64 * 1024 * 1024;

pub struct IoThreads {
    writer: thread::JoinHandle<()>,
}

impl IoThreads {
    /// Waits (at most `timeout`) until every message sent so far has been written.
    pub fn finish(self, timeout: Duration) {
        let (done_tx, done_rx) = crossbeam_channel::bounded::<()>(1);
        let writer = self.writer;
        let _ = thread::Builder::new().spawn(move || {
            let _ = writer.join();
            let _ = done_tx.send(());
        });
        let _ = done_rx.recv_timeout(timeout);
    }
}

/// A connection over this process's stdin and stdout.
pub fn stdio() -> (Connection, IoThreads) {
    let (in_tx, in_rx) = crossbeam_channel::unbounded::<Message>();
    let (out_tx, out_rx) = crossbeam_channel::unbounded::<Message>();
    let (raw_tx, raw_rx) = crossbeam_channel::unbounded::<String>();
    let writer = thread::Builder::new()
        .name("ad-lsp-writer".into())
        .spawn(move || write_loop(io::stdout().lock(), out_rx, raw_rx))
        .expect("spawning the writer thread");
    let _ = thread::Builder::new()
        .name("ad-lsp-reader".into())
        .spawn(move || {
            let stdin = io::stdin();
            read_loop(BufReader::new(stdin.lock()), in_tx, raw_tx)
        });
    (
        Connection {
            sender: out_tx,
            receiver: in_rx,
        },
        IoThreads { writer },
    )
}

fn write_frame(out: &mut impl Write, body: &str) -> io::Result<()> {
    write!(out, "Content-Length: {}\r\n\r\n", body.len())?;
    out.write_all(body.as_bytes())?;
    out.flush()
}

/// Writes messages from the server and error frames from the reader until the server side
/// closes.
pub fn write_loop(mut out: impl Write, messages: Receiver<Message>, raw: Receiver<String>) {
    loop {
        select! {
            recv(messages) -> m => match m {
                Ok(m) => {
                    if m.write(&mut out).is_err() {
                        return;
                    }
                }
                Err(_) => break,
            },
            recv(raw) -> r => {
                if let Ok(body) = r {
                    if write_frame(&mut out, &body).is_err() {
                        return;
                    }
                }
            }
        }
    }
    // Error frames the reader produced just before the end.
    for body in raw.try_iter() {
        let _ = write_frame(&mut out, &body);
    }
}

fn error_frame(id: Value, code: ErrorCode, message: &str) -> String {
    serde_json::json!({
        "jsonrpc": "2.0",
        "id": id,
        "error": { "code": code as i32, "message": message },
    })
    .to_string()
}

enum Frame {
    Body(Vec<u8>),
    /// A frame that could not be read; the message explains why.
    Bad(String),
    Eof,
}

fn read_frame(input: &mut impl BufRead) -> io::Result<Frame> {
    let mut length: Option<usize> = None;
    let mut bad_header: Option<String> = None;
    let mut line = Vec::new();
    let mut saw_header = false;
    loop {
        line.clear();
        // Header lines are short; a runaway line is cut off and reported.
        let n = input.by_ref().take(8 * 1024).read_until(b'\n', &mut line)?;
        if n == 0 {
            return Ok(Frame::Eof);
        }
        let text = String::from_utf8_lossy(&line);
        let text = text.trim_end_matches(['\r', '\n']);
        if text.is_empty() {
            if saw_header {
                break;
            }
            continue; // stray blank lines between frames
        }
        saw_header = true;
        match text.split_once(':') {
            Some((name, value)) if name.trim().eq_ignore_ascii_case("content-length") => {
                match value.trim().parse::<usize>() {
                    Ok(n) => length = Some(n),
                    Err(_) => {
                        bad_header = Some(format!("invalid Content-Length: {:?}", value.trim()))
                    }
                }
            }
            Some(_) => {} // Content-Type and friends
            None => bad_header = Some(format!("malformed header line: {text:?}")),
        }
    }
    let Some(length) = length else {
        return Ok(Frame::Bad(
            bad_header.unwrap_or_else(|| "missing Content-Length header".into()),
        ));
    };
    if length > MAX_FRAME {
        io::copy(&mut input.by_ref().take(length as u64), &mut io::sink())?;
        return Ok(Frame::Bad(format!(
            "message of {length} bytes exceeds the {MAX_FRAME}-byte limit"
        )));
    }
    let mut body = vec![0; length];
    if input.read_exact(&mut body).is_err() {
        return Ok(Frame::Eof);
    }
    Ok(Frame::Body(body))
}

/// Reads frames until end of input, handing messages to the server and errors to the writer.
pub fn read_loop(mut input: impl BufRead, messages: Sender<Message>, errors: Sender<String>) {
    loop {
        let frame = match read_frame(&mut input) {
            Ok(f) => f,
            Err(_) => return,
        };
        let body = match frame {
            Frame::Eof => return,
            Frame::Bad(why) => {
                let _ = errors.send(error_frame(Value::Null, ErrorCode::ParseError, &why));
                continue;
            }
            Frame::Body(b) => b,
        };
        let value: Value = match serde_json::from_slice(&body) {
            Ok(v) => v,
            Err(e) => {
                let _ = errors.send(error_frame(
                    Value::Null,
                    ErrorCode::ParseError,
                    &format!("message is not valid JSON: {e}"),
                ));
                continue;
            }
        };
        let id = match value.get("id") {
            Some(v @ (Value::Number(_) | Value::String(_))) => v.clone(),
            _ => Value::Null,
        };
        // serde would read an array as a struct and skip a bad `method`: check the shape first.
        let shape_ok = match &value {
            Value::Object(o) => match o.get("method") {
                Some(Value::String(_)) => true,
                Some(_) => false,
                None => {
                    o.contains_key("id") && (o.contains_key("result") || o.contains_key("error"))
                }
            },
            _ => false,
        };
        if !shape_ok {
            let _ = errors.send(error_frame(
                id,
                ErrorCode::InvalidRequest,
                "not a JSON-RPC request, notification or response",
            ));
            continue;
        }
        match serde_json::from_value::<Message>(value) {
            Ok(m) => {
                if messages.send(m).is_err() {
                    return;
                }
            }
            Err(e) => {
                let _ = errors.send(error_frame(
                    id,
                    ErrorCode::InvalidRequest,
                    &format!("not a JSON-RPC request, notification or response: {e}"),
                ));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frames(input: &[u8]) -> (Vec<Message>, Vec<String>) {
        let (tx, rx) = crossbeam_channel::unbounded();
        let (etx, erx) = crossbeam_channel::unbounded();
        read_loop(BufReader::new(input), tx, etx);
        (rx.try_iter().collect(), erx.try_iter().collect())
    }

    fn frame(body: &str) -> String {
        format!("Content-Length: {}\r\n\r\n{body}", body.len())
    }

    #[test]
    fn bad_frames_get_errors_and_reading_goes_on() {
        let mut input = String::new();
        input += &frame("{not json");
        input += &frame("[1,2]");
        input += &frame(r#"{"jsonrpc":"2.0","id":7,"method":5}"#);
        input += "X-Nonsense\r\n\r\n";
        input += &frame(r#"{"jsonrpc":"2.0","id":1,"method":"shutdown"}"#);
        let (messages, errors) = frames(input.as_bytes());
        assert_eq!(messages.len(), 1);
        assert_eq!(errors.len(), 4, "{errors:?}");
        assert!(errors[0].contains("-32700"));
        assert!(errors[1].contains("-32600") && errors[1].contains("\"id\":null"));
        assert!(errors[2].contains("\"id\":7"));
        assert!(errors[3].contains("malformed header"));
    }

    #[test]
    fn binary_garbage_and_truncation_end_cleanly() {
        let mut input = b"Content-Length: 4\r\n\r\n\xff\xfe\x00\x01".to_vec();
        input.extend_from_slice(b"Content-Length: 100\r\n\r\n{\"short\"");
        let (messages, errors) = frames(&input);
        assert!(messages.is_empty());
        assert_eq!(errors.len(), 1);
    }
}
