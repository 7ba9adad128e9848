//! A minimal LSP client speaking JSON-RPC to a spawned `ad lsp` over stdio. Included by the
//! `lsp_*` tests with `#[path]`; compiled on its own it has no tests.
#![allow(dead_code)]

use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{channel, Receiver};
use std::time::Duration;

use serde_json::{json, Value};

pub const TIMEOUT: Duration = Duration::from_secs(60);

pub struct Client {
    child: Child,
    stdin: Option<ChildStdin>,
    messages: Receiver<Value>,
    next_id: i64,
    /// Messages received while waiting for something else.
    pending: VecDeque<Value>,
}

/// Reads `Content-Length` frames until the server closes stdout.
fn read_frames(stdout: impl Read + Send + 'static) -> Receiver<Value> {
    let (tx, rx) = channel();
    std::thread::spawn(move || {
        let mut r = BufReader::new(stdout);
        loop {
            let mut length = None;
            loop {
                let mut line = String::new();
                if r.read_line(&mut line).unwrap_or(0) == 0 {
                    return;
                }
                let line = line.trim_end();
                if line.is_empty() {
                    break;
                }
                if let Some(v) = line.strip_prefix("Content-Length: ") {
                    length = v.parse::<usize>().ok();
                }
            }
            let mut body = vec![0; length.expect("the server sends Content-Length")];
            if r.read_exact(&mut body).is_err() {
                return;
            }
            let value: Value = serde_json::from_slice(&body).expect("the server sends JSON");
            if tx.send(value).is_err() {
                return;
            }
        }
    });
    rx
}

impl Client {
    /// Spawns `ad lsp` (stderr inherited, so server logs show in test output).
    pub fn spawn() -> Client {
        let mut child = Command::new(env!("CARGO_BIN_EXE_ad"))
            .arg("lsp")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("spawning `ad lsp`");
        let stdin = child.stdin.take();
        let messages = read_frames(child.stdout.take().expect("stdout"));
        Client {
            child,
            stdin,
            messages,
            next_id: 0,
            pending: VecDeque::new(),
        }
    }

    /// Writes raw bytes to the server.
    pub fn send_raw(&mut self, bytes: &[u8]) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        stdin.write_all(bytes).expect("writing to the server");
        stdin.flush().expect("flushing");
    }

    pub fn send(&mut self, message: Value) {
        let body = message.to_string();
        let frame = format!("Content-Length: {}\r\n\r\n{body}", body.len());
        self.send_raw(frame.as_bytes());
    }

    pub fn notify(&mut self, method: &str, params: Value) {
        self.send(json!({ "jsonrpc": "2.0", "method": method, "params": params }));
    }

    fn next(&mut self) -> Value {
        self.messages
            .recv_timeout(TIMEOUT)
            .expect("the server answered in time")
    }

    /// The response to request `id` (the whole message: `result` or `error`).
    pub fn response(&mut self, id: &Value) -> Value {
        if let Some(i) = self
            .pending
            .iter()
            .position(|m| m.get("id") == Some(id) && m.get("method").is_none())
        {
            return self.pending.remove(i).unwrap();
        }
        loop {
            let m = self.next();
            if m.get("id") == Some(id) && m.get("method").is_none() {
                return m;
            }
            self.pending.push_back(m);
        }
    }

    /// Sends a request and returns the whole response message.
    pub fn request_message(&mut self, method: &str, params: Value) -> Value {
        self.next_id += 1;
        let id = json!(self.next_id);
        self.send(json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params }));
        self.response(&id)
    }

    /// Sends a request and returns its `result` (panics on an error).
    pub fn request(&mut self, method: &str, params: Value) -> Value {
        let m = self.request_message(method, params);
        if let Some(e) = m.get("error") {
            panic!("{method} failed: {e}");
        }
        m["result"].clone()
    }

    /// The next notification `method` whose params satisfy `pred`.
    pub fn notification(&mut self, method: &str, pred: impl Fn(&Value) -> bool) -> Value {
        let matches = |m: &Value| m["method"] == method && pred(&m["params"]);
        if let Some(i) = self.pending.iter().position(matches) {
            return self.pending.remove(i).unwrap()["params"].clone();
        }
        loop {
            let m = self.next();
            if matches(&m) {
                return m["params"].clone();
            }
            self.pending.push_back(m);
        }
    }

    /// The next diagnostics published for `uri`.
    pub fn diagnostics(&mut self, uri: &str) -> Value {
        self.notification("textDocument/publishDiagnostics", |p| p["uri"] == uri)
    }

    pub fn initialize(&mut self, capabilities: Value) -> Value {
        let r = self.request(
            "initialize",
            json!({ "processId": null, "rootUri": null, "capabilities": capabilities }),
        );
        self.notify("initialized", json!({}));
        r
    }

    pub fn open(&mut self, uri: &str, text: &str) -> Value {
        self.notify(
            "textDocument/didOpen",
            json!({ "textDocument": { "uri": uri, "languageId": "ad", "version": 1, "text": text } }),
        );
        self.diagnostics(uri)
    }

    /// Closes stdin and waits for the exit code.
    pub fn wait(mut self) -> Option<i32> {
        drop(self.stdin.take());
        let deadline = std::time::Instant::now() + TIMEOUT;
        loop {
            if let Ok(Some(status)) = self.child.try_wait() {
                return status.code();
            }
            if std::time::Instant::now() > deadline {
                let _ = self.child.kill();
                panic!("`ad lsp` did not exit");
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    }
}

impl Drop for Client {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// A text-document position.
pub fn at(uri: &str, (line, character): (u32, u32)) -> Value {
    json!({ "textDocument": { "uri": uri }, "position": { "line": line, "character": character } })
}

/// The (line, UTF-16 character) of the first `needle` in `text`, plus `delta` characters.
pub fn find(text: &str, needle: &str, delta: usize) -> (u32, u32) {
    let at = text
        .find(needle)
        .unwrap_or_else(|| panic!("{needle:?} not in the text"));
    let before = &text[..at];
    let line = before.matches('\n').count();
    let start = before.rfind('\n').map(|i| i + 1).unwrap_or(0);
    let col = text[start..at].encode_utf16().count() + delta;
    (line as u32, col as u32)
}

/// Completion items reduced to what a person sees: label, detail and the edit.
pub fn items(completion: &Value) -> Vec<Value> {
    completion["items"]
        .as_array()
        .cloned()
        .unwrap_or_default()
        .into_iter()
        .map(|i| {
            json!({
                "label": i["label"],
                "kind": i["kind"],
                "detail": i["detail"],
                "edit": i["textEdit"],
                "format": i["insertTextFormat"],
            })
        })
        .collect()
}
