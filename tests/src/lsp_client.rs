//! An in-process LSP test client over `lsp-server`'s memory connection: the language server
//! runs on a thread, requests are answered or the test fails with what arrived instead.

use std::collections::VecDeque;
use std::time::Duration;

use lsp_server::{Connection, Message, Notification, Request, RequestId};
use serde_json::{json, Value};

pub struct Client {
    conn: Connection,
    next_id: i32,
    /// Notifications received while waiting for something else.
    pending: VecDeque<Notification>,
    server: Option<std::thread::JoinHandle<i32>>,
}

pub const TIMEOUT: Duration = Duration::from_secs(30);

impl Default for Client {
    fn default() -> Self {
        Client::new()
    }
}

impl Client {
    /// Starts a server and initializes it with a typical editor's capabilities.
    pub fn new() -> Client {
        Client::with_capabilities(json!({
            "textDocument": {
                "completion": { "completionItem": { "snippetSupport": true } },
                "hover": { "contentFormat": ["markdown", "plaintext"] },
                "documentSymbol": { "hierarchicalDocumentSymbolSupport": true },
                "foldingRange": { "lineFoldingOnly": true, "foldingRange": { "collapsedText": true } },
                "publishDiagnostics": { "relatedInformation": true }
            }
        }))
    }

    pub fn with_capabilities(capabilities: Value) -> Client {
        Client::initialized(capabilities).0
    }

    /// Starts a server, initializes it, and returns it with its `initialize` result.
    pub fn initialized(capabilities: Value) -> (Client, Value) {
        let (server, client) = Connection::memory();
        let handle = std::thread::spawn(move || ad_lsp::run(server));
        let mut c = Client {
            conn: client,
            next_id: 0,
            pending: VecDeque::new(),
            server: Some(handle),
        };
        let init = c.request("initialize", json!({ "capabilities": capabilities }));
        assert!(init.get("capabilities").is_some(), "{init}");
        c.notify("initialized", json!({}));
        (c, init)
    }

    pub fn notify(&self, method: &str, params: Value) {
        self.conn
            .sender
            .send(Message::Notification(Notification::new(
                method.into(),
                params,
            )))
            .unwrap();
    }

    /// Sends a request and returns its `result` (panics on an error response).
    pub fn request(&mut self, method: &str, params: Value) -> Value {
        match self.request_raw(method, params) {
            Ok(v) => v,
            Err(e) => panic!("{method} failed: {e}"),
        }
    }

    /// Sends a request; `Err` holds the error object.
    pub fn request_raw(&mut self, method: &str, params: Value) -> Result<Value, Value> {
        self.next_id += 1;
        let id = RequestId::from(self.next_id);
        self.conn
            .sender
            .send(Message::Request(Request::new(
                id.clone(),
                method.into(),
                params,
            )))
            .unwrap();
        loop {
            match self
                .conn
                .receiver
                .recv_timeout(TIMEOUT)
                .expect("no answer from the server")
            {
                Message::Response(r) if r.id == id => {
                    return match r.error {
                        Some(e) => Err(serde_json::to_value(e).unwrap()),
                        None => Ok(r.result.unwrap_or(Value::Null)),
                    }
                }
                Message::Response(_) => {}
                Message::Notification(n) => self.pending.push_back(n),
                Message::Request(_) => {}
            }
        }
    }

    pub fn open(&mut self, uri: &str, text: &str) -> Vec<Value> {
        self.notify(
            "textDocument/didOpen",
            json!({ "textDocument": { "uri": uri, "languageId": "ad", "version": 1, "text": text } }),
        );
        self.diagnostics(uri)
    }

    pub fn change(&mut self, uri: &str, version: i32, changes: Value) -> Vec<Value> {
        self.notify(
            "textDocument/didChange",
            json!({ "textDocument": { "uri": uri, "version": version }, "contentChanges": changes }),
        );
        self.diagnostics(uri)
    }

    /// The next diagnostics published for `uri`.
    pub fn diagnostics(&mut self, uri: &str) -> Vec<Value> {
        let n = self.published(uri);
        n["diagnostics"].as_array().cloned().unwrap_or_default()
    }

    /// The next `publishDiagnostics` parameters for `uri` (uri, version, diagnostics).
    pub fn published(&mut self, uri: &str) -> Value {
        self.wait_notification("textDocument/publishDiagnostics", |p| p["uri"] == uri)
    }

    pub fn wait_notification(&mut self, method: &str, pred: impl Fn(&Value) -> bool) -> Value {
        if let Some(i) = self
            .pending
            .iter()
            .position(|n| n.method == method && pred(&n.params))
        {
            return self.pending.remove(i).unwrap().params;
        }
        loop {
            match self
                .conn
                .receiver
                .recv_timeout(TIMEOUT)
                .expect("no notification")
            {
                Message::Notification(n) if n.method == method && pred(&n.params) => {
                    return n.params
                }
                Message::Notification(n) => self.pending.push_back(n),
                _ => {}
            }
        }
    }

    /// `shutdown` + `exit`; returns the server's exit code.
    pub fn shutdown(mut self) -> i32 {
        self.request("shutdown", Value::Null);
        self.notify("exit", Value::Null);
        self.server.take().unwrap().join().unwrap()
    }
}

pub fn pos(uri: &str, line: u32, character: u32) -> Value {
    json!({ "textDocument": { "uri": uri }, "position": { "line": line, "character": character } })
}

/// The (line, character) of the first occurrence of `needle` in `text`, in UTF-16 units,
/// plus `delta` characters.
pub fn find(text: &str, needle: &str, delta: usize) -> (u32, u32) {
    let at = text
        .find(needle)
        .unwrap_or_else(|| panic!("{needle:?} not in text"));
    let before = &text[..at];
    let line = before.matches('\n').count();
    let start = before.rfind('\n').map(|i| i + 1).unwrap_or(0);
    let col: usize = text[start..at].encode_utf16().count() + delta;
    (line as u32, col as u32)
}

pub fn labels(completion: &Value) -> Vec<String> {
    completion["items"]
        .as_array()
        .map(|a| {
            a.iter()
                .map(|i| i["label"].as_str().unwrap_or("").to_string())
                .collect()
        })
        .unwrap_or_default()
}

/// Completion items reduced to what a person sees: label, kind, detail, the edit and its format.
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
