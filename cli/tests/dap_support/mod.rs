//! A Debug Adapter Protocol client for tests and the `next`→`stopped` benchmark: spawns
//! `ad dap`, writes `Content-Length` framed requests, and reads responses and events in order
//! (a reader thread parses frames; what a wait passes over is kept for later waits).
#![allow(dead_code)] // the tests and the benchmark use different parts

use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{channel, Receiver};
use std::time::Duration;

use serde_json::{json, Value};

/// How long a wait may last before the test fails with the transcript: a hang guard (an
/// adapter that never answers), not a measurement.
const HANG: Duration = Duration::from_secs(180);

pub struct Dap {
    child: Child,
    stdin: Option<ChildStdin>,
    incoming: Receiver<Value>,
    /// Read but not yet waited for.
    pending: VecDeque<Value>,
    /// Everything the adapter wrote, in order.
    pub transcript: Vec<Value>,
    seq: i64,
}

impl Dap {
    /// `ad dap` run in `dir`, with live sessions kept in `state`.
    pub fn spawn(dir: &Path, state: &Path) -> Dap {
        Dap::spawn_with(dir, state, &[])
    }

    pub fn spawn_with(dir: &Path, state: &Path, env: &[(&str, &str)]) -> Dap {
        let mut c = Command::new(env!("CARGO_BIN_EXE_ad"));
        c.arg("dap")
            .current_dir(dir)
            .env("NO_COLOR", "1")
            .env("AD_STATE_DIR", state)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit());
        for (k, v) in env {
            c.env(k, v);
        }
        let mut child = c.spawn().expect("spawning ad dap");
        let stdin = child.stdin.take();
        let stdout = child.stdout.take().expect("piped stdout");
        let (tx, incoming) = channel();
        std::thread::spawn(move || {
            let mut r = BufReader::new(stdout);
            loop {
                let mut length = None;
                loop {
                    let mut line = String::new();
                    if r.read_line(&mut line).unwrap_or(0) == 0 {
                        return;
                    }
                    let line = line.trim();
                    if line.is_empty() {
                        break;
                    }
                    if let Some(v) = line.strip_prefix("Content-Length:") {
                        length = v.trim().parse::<usize>().ok();
                    }
                }
                let mut body = vec![0; length.expect("a Content-Length header")];
                if r.read_exact(&mut body).is_err() {
                    return;
                }
                let v: Value = serde_json::from_slice(&body).expect("the adapter writes JSON");
                if tx.send(v).is_err() {
                    return;
                }
            }
        });
        Dap {
            child,
            stdin,
            incoming,
            pending: VecDeque::new(),
            transcript: Vec::new(),
            seq: 0,
        }
    }

    /// Writes bytes as they are (malformed frames).
    pub fn raw(&mut self, bytes: &[u8]) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        stdin.write_all(bytes).unwrap();
        stdin.flush().unwrap();
    }

    /// Writes one message as a frame.
    pub fn frame(&mut self, message: &Value) {
        let body = serde_json::to_vec(message).unwrap();
        let mut bytes = format!("Content-Length: {}\r\n\r\n", body.len()).into_bytes();
        bytes.extend(body);
        self.raw(&bytes);
    }

    /// Sends a request; returns its `seq`.
    pub fn send(&mut self, command: &str, arguments: Value) -> i64 {
        self.seq += 1;
        let seq = self.seq;
        self.frame(
            &json!({"seq": seq, "type": "request", "command": command, "arguments": arguments}),
        );
        seq
    }

    /// Sends a request and waits for its response.
    pub fn request(&mut self, command: &str, arguments: Value) -> Value {
        let seq = self.send(command, arguments);
        self.response(seq)
    }

    /// A request that must succeed: its body.
    pub fn ok(&mut self, command: &str, arguments: Value) -> Value {
        let r = self.request(command, arguments);
        assert_eq!(r["success"], true, "{command} failed: {r}");
        r["body"].clone()
    }

    fn next_message(&mut self) -> Value {
        match self.incoming.recv_timeout(HANG) {
            Ok(v) => {
                self.transcript.push(v.clone());
                v
            }
            Err(e) => panic!(
                "no message from the adapter ({e}); transcript:\n{}",
                self.transcript
                    .iter()
                    .map(|v| v.to_string())
                    .collect::<Vec<_>>()
                    .join("\n")
            ),
        }
    }

    /// The first message (already read, or read next) matching `pick`.
    pub fn wait_for(&mut self, pick: impl Fn(&Value) -> bool) -> Value {
        if let Some(i) = self.pending.iter().position(&pick) {
            return self.pending.remove(i).unwrap();
        }
        loop {
            let v = self.next_message();
            if pick(&v) {
                return v;
            }
            self.pending.push_back(v);
        }
    }

    pub fn response(&mut self, seq: i64) -> Value {
        self.wait_for(|v| v["type"] == "response" && v["request_seq"] == seq)
    }

    pub fn event(&mut self, name: &str) -> Value {
        self.wait_for(|v| v["type"] == "event" && v["event"] == name)
    }

    /// The variables under `reference`.
    pub fn variables(&mut self, reference: &Value) -> Vec<Value> {
        let body = self.ok("variables", json!({"variablesReference": reference}));
        body["variables"].as_array().cloned().unwrap_or_default()
    }

    /// The scopes of the top frame, by name → reference.
    pub fn scopes(&mut self) -> Vec<(String, Value)> {
        let body = self.ok("scopes", json!({"frameId": 1}));
        body["scopes"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| {
                (
                    s["name"].as_str().unwrap().to_string(),
                    s["variablesReference"].clone(),
                )
            })
            .collect()
    }

    /// The top frame's (file name, line).
    pub fn top_frame(&mut self) -> (String, i64) {
        let body = self.ok("stackTrace", json!({"threadId": 1}));
        let f = &body["stackFrames"][0];
        (
            f["source"]["name"].as_str().unwrap_or("").to_string(),
            f["line"].as_i64().unwrap_or(0),
        )
    }

    /// Closes stdin and waits for the adapter to exit; its exit code.
    pub fn finish(mut self) -> i32 {
        self.stdin.take();
        self.child.wait().unwrap().code().unwrap_or(-1)
    }

    /// Every output event's text so far (and whatever is pending).
    pub fn output(&self) -> String {
        self.transcript
            .iter()
            .filter(|v| v["event"] == "output")
            .map(|v| v["body"]["output"].as_str().unwrap_or(""))
            .collect()
    }
}

impl Drop for Dap {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
