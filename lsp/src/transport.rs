//! JSON-RPC over stdio with `Content-Length` framing, tolerant of bad input.
//!
//! `lsp-server`'s own stdio transport stops reading at the first malformed message, which ends
//! the session. This one answers a frame that is not JSON with a `ParseError` and one that is
//! not a JSON-RPC message with `InvalidRequest` (id `null` when none can be read), and goes on
//! reading. A frame it cannot delimit (a bad, negative, huge or missing `Content-Length`, junk
//! bytes, a body shorter than announced) gets one `ParseError`, and reading resumes at the next
//! `Content-Length:` header in the stream: nothing after a bad frame is lost, and a huge
//! announced length is never read or skipped.

use std::io::{self, Read, Write};
use std::thread;
use std::time::Duration;

use crossbeam_channel::{select, Receiver, Sender};
use lsp_server::{Connection, ErrorCode, Message};
use serde_json::Value;

/// Frames announcing more than this are refused (a 2 MiB script is about 2.2 MB of JSON; this
/// leaves room for anything an editor sends).
pub const MAX_FRAME: usize = 64 * 1024 * 1024;

/// Header lines are short: a longer run of bytes without a line break is junk.
const MAX_HEADER_LINE: usize = 8 * 1024;

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
            read_loop(stdin.lock(), in_tx, raw_tx)
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
    /// A frame that could not be delimited; the message explains why.
    Bad(String),
    Eof,
}

const HEADER: &[u8] = b"content-length:";

/// Whether `Content-Length:` (any case) starts `bytes`, or could once more bytes arrive.
fn may_start_header(bytes: &[u8]) -> bool {
    let n = bytes.len().min(HEADER.len());
    bytes[..n].eq_ignore_ascii_case(&HEADER[..n])
}

/// Whether `bytes` starts with a whole `Content-Length: <digits>` line: `Some(true)` yes,
/// `Some(false)` no, `None` when the bytes so far cannot tell. A JSON body cannot hold such a
/// line (a raw line break is invalid inside a JSON string, and the words are invalid outside
/// one), so finding one inside a body means the body was shorter than announced.
fn header_line(bytes: &[u8]) -> Option<bool> {
    if !may_start_header(bytes) {
        return Some(false);
    }
    let blank = |b: &u8| *b == b' ' || *b == b'\t';
    let mut i = HEADER.len();
    while bytes.get(i).is_some_and(blank) {
        i += 1;
    }
    let digits = i;
    while bytes.get(i).is_some_and(u8::is_ascii_digit) {
        i += 1;
    }
    while bytes.get(i).is_some_and(blank) {
        i += 1;
    }
    match bytes.get(i) {
        None => None,
        Some(b'\r') => bytes.get(i + 1).map(|b| *b == b'\n' && i > digits),
        Some(b'\n') => Some(i > digits),
        Some(_) => Some(false),
    }
}

/// What [`Framer::line`] found.
enum HeaderLine {
    /// A line (without its line break) and where it starts.
    Line(usize, Vec<u8>),
    /// A run of bytes too long to be a header line, from this offset.
    Junk(usize),
    Eof,
}

/// A `Content-Length` framer over a byte stream that resynchronises after a bad frame.
struct Framer<R> {
    input: R,
    /// Bytes read and not yet consumed: `buf[pos..]`.
    buf: Vec<u8>,
    pos: usize,
    eof: bool,
    /// After a bad frame: skip to the next `Content-Length:` before reading a header.
    resyncing: bool,
}

impl<R: Read> Framer<R> {
    fn new(input: R) -> Self {
        Framer {
            input,
            buf: Vec::new(),
            pos: 0,
            eof: false,
            resyncing: false,
        }
    }

    /// Drops the consumed bytes. Only between frames: offsets into `buf` stay valid while one
    /// frame is read.
    fn compact(&mut self) {
        // Amortised: only once the consumed part is at least half of the buffer.
        if self.pos > 0 && self.pos * 2 >= self.buf.len() {
            self.buf.drain(..self.pos);
            self.pos = 0;
        }
    }

    /// Reads more input; false at end of input.
    fn fill(&mut self) -> io::Result<bool> {
        if self.eof {
            return Ok(false);
        }
        let mut chunk = [0u8; 64 * 1024];
        let n = loop {
            match self.input.read(&mut chunk) {
                Ok(n) => break n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            }
        };
        if n == 0 {
            self.eof = true;
            return Ok(false);
        }
        self.buf.extend_from_slice(&chunk[..n]);
        Ok(true)
    }

    /// A frame cannot be read: report `why`, and look for the next header from `resume` on.
    fn bad(&mut self, resume: usize, why: String) -> Frame {
        self.pos = resume;
        self.resyncing = true;
        Frame::Bad(why)
    }

    /// Skips to the next `Content-Length:`; false at end of input.
    fn resync(&mut self) -> io::Result<bool> {
        while self.resyncing {
            self.compact();
            let rest = &self.buf[self.pos..];
            match (0..rest.len()).find(|&i| may_start_header(&rest[i..])) {
                Some(i) if rest.len() - i >= HEADER.len() => {
                    self.pos += i;
                    self.resyncing = false;
                }
                // A header may start at the end of what was read: keep it, read on.
                Some(i) => {
                    self.pos += i;
                    if !self.fill()? {
                        return Ok(false);
                    }
                }
                None => {
                    self.pos = self.buf.len();
                    if !self.fill()? {
                        return Ok(false);
                    }
                }
            }
        }
        Ok(true)
    }

    /// The next header line at or after `pos`.
    fn line(&mut self) -> io::Result<HeaderLine> {
        loop {
            let rest = &self.buf[self.pos..];
            let newline = rest.iter().position(|b| *b == b'\n');
            if newline.unwrap_or(rest.len()) > MAX_HEADER_LINE {
                return Ok(HeaderLine::Junk(self.pos));
            }
            if let Some(n) = newline {
                let start = self.pos;
                let mut line = rest[..n].to_vec();
                if line.last() == Some(&b'\r') {
                    line.pop();
                }
                self.pos += n + 1;
                return Ok(HeaderLine::Line(start, line));
            }
            if !self.fill()? {
                return Ok(HeaderLine::Eof);
            }
        }
    }

    fn next(&mut self) -> io::Result<Frame> {
        if !self.resync()? {
            return Ok(Frame::Eof);
        }
        self.compact();
        let mut seen_header = false;
        let mut length: Option<usize> = None;
        let mut problem: Option<String> = None;
        loop {
            let (at, line) = match self.line()? {
                HeaderLine::Eof => return Ok(Frame::Eof),
                // A header may follow the junk: look for one after the junk's first byte.
                HeaderLine::Junk(at) => {
                    return Ok(self.bad(at + 1, "junk instead of a message header".into()));
                }
                HeaderLine::Line(at, line) => (at, line),
            };
            if line.is_empty() {
                if seen_header {
                    break;
                }
                continue; // stray blank lines between frames
            }
            seen_header = true;
            // Junk before a header on the same line (the tail of a body longer than announced,
            // binary noise): report it and read the header.
            if let Some(p) = (1..line.len())
                .find(|&i| line.len() - i >= HEADER.len() && may_start_header(&line[i..]))
            {
                return Ok(self.bad(at + p, "junk before a message header".into()));
            }
            let text = String::from_utf8_lossy(&line);
            let header = text.split_once(':').filter(|(name, _)| {
                !name.is_empty() && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
            });
            match header {
                Some((name, value)) if name.eq_ignore_ascii_case("content-length") => {
                    match value.trim().parse::<usize>() {
                        Ok(n) if n <= MAX_FRAME => length = Some(n),
                        Ok(n) => {
                            problem = Some(format!(
                                "message of {n} bytes exceeds the {MAX_FRAME}-byte limit"
                            ))
                        }
                        Err(_) => {
                            problem = Some(format!("invalid Content-Length: {:?}", value.trim()))
                        }
                    }
                }
                Some(_) => {} // Content-Type and friends
                None => {
                    let why = format!("malformed header line: {:?}", printable_prefix(&text));
                    return Ok(self.bad(at + 1, why));
                }
            }
        }
        // A header block that cannot be used: whatever body follows is junk until the next
        // header (a huge announced length is never read or skipped).
        if let Some(why) = problem {
            return Ok(self.bad(self.pos, why));
        }
        let Some(length) = length else {
            return Ok(self.bad(self.pos, "missing Content-Length header".into()));
        };
        self.body(length)
    }

    /// Reads a body of `length` bytes. A header line starting inside it means the body was
    /// shorter than announced: the frame is bad and the next one starts at that header (no
    /// waiting for bytes the client never sends).
    fn body(&mut self, length: usize) -> io::Result<Frame> {
        // Body offsets below `from` start no header line.
        let mut from = 0;
        loop {
            let rest = &self.buf[self.pos..];
            let have = rest.len().min(length);
            let mut undecided = false;
            while from < have {
                let Some(at) = (from..have).find(|&i| may_start_header(&rest[i..])) else {
                    from = have;
                    break;
                };
                match header_line(&rest[at..]) {
                    Some(true) => {
                        self.pos += at;
                        return Ok(Frame::Bad(format!(
                            "message shorter than its Content-Length of {length} bytes"
                        )));
                    }
                    Some(false) => from = at + 1,
                    None => {
                        from = at;
                        undecided = true;
                        break;
                    }
                }
            }
            if !undecided && rest.len() >= length {
                let body = rest[..length].to_vec();
                self.pos += length;
                return Ok(Frame::Body(body));
            }
            if !self.fill()? {
                return Ok(Frame::Eof);
            }
        }
    }
}

/// The start of a junk line, short enough for an error message.
fn printable_prefix(text: &str) -> String {
    text.chars().take(40).collect()
}

/// Reads frames until end of input, handing messages to the server and errors to the writer.
pub fn read_loop(input: impl Read, messages: Sender<Message>, errors: Sender<String>) {
    let mut framer = Framer::new(input);
    loop {
        let frame = match framer.next() {
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
        read_loop(input, tx, etx);
        (rx.try_iter().collect(), erx.try_iter().collect())
    }

    /// Hands out its bytes `step` at a time, as a pipe may.
    struct Trickle<'a> {
        bytes: &'a [u8],
        step: usize,
    }

    impl Read for Trickle<'_> {
        fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
            let n = self.step.min(out.len()).min(self.bytes.len());
            out[..n].copy_from_slice(&self.bytes[..n]);
            self.bytes = &self.bytes[n..];
            Ok(n)
        }
    }

    fn frame(body: &str) -> String {
        format!("Content-Length: {}\r\n\r\n{body}", body.len())
    }

    const INITIALIZE: &str =
        r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":{}}}"#;
    const SHUTDOWN: &str = r#"{"jsonrpc":"2.0","id":2,"method":"shutdown"}"#;
    const EXIT: &str = r#"{"jsonrpc":"2.0","method":"exit"}"#;

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

    /// Each malformed frame is answered once, and the session that follows is read whole:
    /// initialize, shutdown and exit all arrive.
    #[test]
    fn reading_resumes_at_the_next_header_after_any_malformed_frame() {
        let body = r#"{"jsonrpc":"2.0","id":9,"method":"initialize"}"#;
        let huge = format!("Content-Length: {}\r\n\r\n{body}", u64::MAX);
        let cases: Vec<(&str, Vec<u8>)> = vec![
            (
                "not a number",
                format!("Content-Length: abc\r\n\r\n{body}").into_bytes(),
            ),
            (
                "negative",
                format!("Content-Length: -5\r\n\r\n{body}").into_bytes(),
            ),
            (
                "over the limit",
                format!("Content-Length: {}\r\n\r\n{body}", MAX_FRAME + 1).into_bytes(),
            ),
            (
                "over usize",
                format!("Content-Length: 99999999999999999999999\r\n\r\n{body}").into_bytes(),
            ),
            ("u64::MAX", huge.into_bytes()),
            (
                "missing",
                format!("Content-Type: application/json\r\n\r\n{body}").into_bytes(),
            ),
            (
                "short body",
                format!("Content-Length: 500\r\n\r\n{}", &body[..20]).into_bytes(),
            ),
            ("binary junk", b"\xff\xfe\x00\x01\x02junk\x7f".to_vec()),
            ("junk line", b"hello world\r\n\r\n".to_vec()),
            ("a long run of junk", vec![b'x'; 3 * MAX_HEADER_LINE]),
            ("a header cut short", b"Content-Len".to_vec()),
        ];
        for (what, bad) in cases {
            let mut input = bad;
            for m in [INITIALIZE, SHUTDOWN, EXIT] {
                input.extend_from_slice(frame(m).as_bytes());
            }
            for step in [usize::MAX, 7, 1] {
                let (tx, rx) = crossbeam_channel::unbounded();
                let (etx, erx) = crossbeam_channel::unbounded();
                read_loop(
                    Trickle {
                        bytes: &input,
                        step,
                    },
                    tx,
                    etx,
                );
                let messages: Vec<Message> = rx.try_iter().collect();
                let errors: Vec<String> = erx.try_iter().collect();
                let methods: Vec<String> = messages
                    .iter()
                    .map(|m| match m {
                        Message::Request(r) => r.method.clone(),
                        Message::Notification(n) => n.method.clone(),
                        Message::Response(_) => "response".into(),
                    })
                    .collect();
                assert_eq!(
                    methods,
                    ["initialize", "shutdown", "exit"],
                    "{what} (read {step} at a time): {errors:?}"
                );
                assert!(
                    !errors.is_empty() && errors.iter().all(|e| e.contains("-32700")),
                    "{what} (read {step} at a time): {errors:?}"
                );
            }
        }
    }

    #[test]
    fn a_body_that_mentions_content_length_is_still_one_message() {
        // Inside a JSON string a header cannot appear: its line break would be escaped.
        let body =
            r#"{"jsonrpc":"2.0","method":"x","params":{"text":"Content-Length: 5\r\n\r\nhi"}}"#;
        let input = frame(body) + &frame(SHUTDOWN);
        for step in [usize::MAX, 3] {
            let (tx, rx) = crossbeam_channel::unbounded();
            let (etx, erx) = crossbeam_channel::unbounded();
            read_loop(
                Trickle {
                    bytes: input.as_bytes(),
                    step,
                },
                tx,
                etx,
            );
            assert_eq!(rx.try_iter().count(), 2);
            assert_eq!(erx.try_iter().count(), 0);
        }
    }
}
