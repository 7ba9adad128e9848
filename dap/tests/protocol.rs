//! The adapter's protocol in process: every request it supports answers, unknown and malformed
//! ones get error responses, and the adapter goes on. The host here refuses every launch (a
//! real run is tested through the binary: cli/tests/dap_cli.rs).

use std::io::{BufReader, Read, Write};
use std::sync::mpsc::{channel, Receiver, Sender};
use std::sync::Arc;
use std::time::Duration;

use ad_dap::transport::{read_frame, Frame};
use ad_dap::{Host, LaunchArguments, Prepared, Refused};
use serde_json::{json, Value};

/// Refuses every launch as the gate refuses a script with a static error.
struct RefusingHost;

impl Host for RefusingHost {
    fn prepare(&self, launch: &LaunchArguments) -> Result<Prepared, Refused> {
        Err(Refused {
            summary: format!(
                "{}: 1 static error: nothing was run",
                launch.program.as_deref().unwrap_or("")
            ),
            rendered: "error[AD101]: unknown command `frobnicate`\n  --> flow.ad:3:1\n".into(),
        })
    }
}

/// The client's end: bytes to the adapter, frames from it.
struct Client {
    to_adapter: Option<Sender<Vec<u8>>>,
    from_adapter: Receiver<Value>,
    seq: i64,
    done: std::thread::JoinHandle<i32>,
}

struct ChannelReader {
    rx: Receiver<Vec<u8>>,
    buf: Vec<u8>,
}

impl Read for ChannelReader {
    fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        if self.buf.is_empty() {
            match self.rx.recv() {
                Ok(b) => self.buf = b,
                Err(_) => return Ok(0),
            }
        }
        let n = out.len().min(self.buf.len());
        out[..n].copy_from_slice(&self.buf[..n]);
        self.buf.drain(..n);
        Ok(n)
    }
}

struct ChannelWriter {
    tx: Sender<Value>,
    buf: Vec<u8>,
}

impl Write for ChannelWriter {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        self.buf.extend_from_slice(b);
        Ok(b.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        let mut input = BufReader::new(&self.buf[..]);
        while let Some(frame) = read_frame(&mut input) {
            match frame {
                Frame::Message(v) => {
                    let _ = self.tx.send(v);
                }
                Frame::Malformed(why) => panic!("the adapter wrote a bad frame: {why}"),
            }
        }
        self.buf.clear();
        Ok(())
    }
}

impl Client {
    fn start() -> Client {
        let (to_adapter, rx) = channel();
        let (tx, from_adapter) = channel();
        let done = std::thread::spawn(move || {
            let input = BufReader::new(ChannelReader {
                rx,
                buf: Vec::new(),
            });
            let output = ChannelWriter {
                tx,
                buf: Vec::new(),
            };
            ad_dap::serve(input, output, Arc::new(RefusingHost))
        });
        Client {
            to_adapter: Some(to_adapter),
            from_adapter,
            seq: 0,
            done,
        }
    }

    fn raw(&mut self, bytes: &[u8]) {
        self.to_adapter
            .as_ref()
            .unwrap()
            .send(bytes.to_vec())
            .unwrap();
    }

    fn send(&mut self, command: &str, arguments: Value) -> i64 {
        self.seq += 1;
        let body =
            json!({"seq": self.seq, "type": "request", "command": command, "arguments": arguments})
                .to_string();
        self.raw(format!("Content-Length: {}\r\n\r\n{body}", body.len()).as_bytes());
        self.seq
    }

    /// The next message (a hang guard, not a measurement).
    fn next(&mut self) -> Value {
        self.from_adapter
            .recv_timeout(Duration::from_secs(60))
            .expect("the adapter answers")
    }

    /// Sends a request; its response and the events written before it.
    fn request(&mut self, command: &str, arguments: Value) -> (Value, Vec<Value>) {
        let seq = self.send(command, arguments);
        let mut events = Vec::new();
        loop {
            let m = self.next();
            if m["type"] == "response" {
                assert_eq!(m["request_seq"], seq, "responses come in order: {m}");
                assert_eq!(m["command"], command);
                return (m, events);
            }
            events.push(m);
        }
    }
}

#[test]
fn every_supported_request_answers_and_refusals_say_why() {
    let mut c = Client::start();
    let (init, _) = c.request("initialize", json!({"adapterID": "ad"}));
    assert_eq!(init["success"], true);
    let filters: Vec<&str> = init["body"]["exceptionBreakpointFilters"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["filter"].as_str().unwrap())
        .collect();
    assert_eq!(filters, ["divergence", "failed"]);

    // Before a launch a breakpoint is kept, not yet verified; the old `lines` form works too.
    let (set, _) = c.request(
        "setBreakpoints",
        json!({"source": {"path": "/nowhere/flow.ad"}, "lines": [3, 4]}),
    );
    let bps = set["body"]["breakpoints"].as_array().unwrap();
    assert_eq!(bps.len(), 2);
    assert_eq!(bps[0]["verified"], false);
    assert!(bps[0]["message"]
        .as_str()
        .unwrap()
        .contains("not resolved yet"));
    assert_ne!(bps[0]["id"], bps[1]["id"]);
    let (ex, _) = c.request("setExceptionBreakpoints", json!({"filters": ["failed"]}));
    assert_eq!(ex["success"], true);
    let (threads, _) = c.request("threads", json!({}));
    assert_eq!(threads["body"]["threads"][0]["id"], 1);

    // Nothing runs: inspection and stepping say so.
    for (command, args) in [
        ("stackTrace", json!({"threadId": 1})),
        ("scopes", json!({"frameId": 1})),
        ("variables", json!({"variablesReference": 1})),
        ("next", json!({"threadId": 1})),
        ("stepIn", json!({"threadId": 1})),
        ("stepOut", json!({"threadId": 1})),
        ("continue", json!({"threadId": 1})),
        ("pause", json!({"threadId": 1})),
        (
            "evaluate",
            json!({"expression": "snapshot", "context": "repl"}),
        ),
        ("exceptionInfo", json!({"threadId": 1})),
        ("attach", json!({"session": "default"})),
        ("restart", json!({})),
        ("loadedSources", json!({})),
    ] {
        let (r, _) = c.request(command, args);
        assert_eq!(r["success"], false, "{command}: {r}");
        assert!(r["message"].as_str().is_some_and(|m| !m.is_empty()), "{r}");
    }

    // A refused launch: the diagnostics as an output event, an error response, terminated.
    let (launch, events) = c.request("launch", json!({"program": "flow.ad"}));
    assert_eq!(launch["success"], false);
    assert!(launch["message"]
        .as_str()
        .unwrap()
        .contains("nothing was run"));
    let output = events
        .iter()
        .find(|e| e["event"] == "output")
        .expect("the diagnostics as output");
    assert_eq!(output["body"]["category"], "stderr");
    assert!(output["body"]["output"].as_str().unwrap().contains("AD101"));
    let terminated = c.next();
    assert_eq!(terminated["event"], "terminated");

    let (bye, _) = c.request("disconnect", json!({}));
    assert_eq!(bye["success"], true);
    assert_eq!(c.done.join().unwrap(), 0);
}

#[test]
fn malformed_frames_and_requests_get_error_responses() {
    let mut c = Client::start();
    c.raw(b"Content-Length: 5\r\n\r\n[1, ]");
    let r = c.next();
    assert_eq!(
        (r["type"].as_str(), r["success"].as_bool()),
        (Some("response"), Some(false))
    );
    assert!(r["message"].as_str().unwrap().contains("not JSON"));
    c.raw(b"hello\r\n");
    assert!(c.next()["message"]
        .as_str()
        .unwrap()
        .contains("Content-Length"));
    c.raw(b"Content-Length: 27\r\n\r\n{\"seq\": 8, \"type\": \"event\"}");
    let r = c.next();
    assert_eq!(r["request_seq"], 8);
    assert_eq!(r["success"], false);
    // Arguments of the wrong shape.
    let (r, _) = c.request("setBreakpoints", json!({"source": {"path": 3}}));
    assert_eq!(r["success"], false);
    assert!(
        r["message"].as_str().unwrap().contains("invalid arguments"),
        "{r}"
    );
    let (r, _) = c.request("launch", json!({"program": "x.ad", "env": 5}));
    assert_eq!(r["success"], false);
    // Sequence numbers of what the adapter writes increase by one.
    let (a, _) = c.request("threads", json!({}));
    let (b, _) = c.request("threads", json!({}));
    assert_eq!(b["seq"].as_i64().unwrap(), a["seq"].as_i64().unwrap() + 1);
    // The stream closing ends the adapter.
    c.to_adapter.take();
    assert_eq!(c.done.join().unwrap(), 0);
}
