//! A minimal Chrome DevTools Protocol client over the browser's websocket: typed commands
//! ([`super::protocol::Command`]), responses matched by id, events routed by session id, and a
//! timeout on every call.
//!
//! An answer is kept as the text the browser sent ([`Answer`]) and decoded once, straight into
//! the command's typed result: a capture's accessibility tree is most of a megabyte of JSON,
//! and building a generic `Value` of it, copying its `result` out and converting that into the
//! typed nodes cost more than the rest of the capture's own work. Routing reads only the
//! envelope (`id`, `method`, `sessionId`, `error`); an event's small `params` become a `Value`.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use serde::de::DeserializeOwned;
use serde::Deserialize;
use serde_json::{json, Value};
use tokio::sync::{mpsc, oneshot};
use tokio::task::JoinHandle;
use tokio_tungstenite::tungstenite::Message;

use super::protocol::Command;

/// How long one call may take unless the caller says otherwise.
pub const CALL_TIMEOUT: Duration = Duration::from_secs(15);

/// A call that did not succeed.
#[derive(Debug, Clone, PartialEq)]
pub enum CallError {
    /// The browser answered with an error (`No node with given id found`, …).
    Protocol { code: i64, message: String },
    /// No answer in time.
    Timeout { method: String },
    /// The connection is gone (the browser exited).
    Closed,
    /// The answer did not have the expected shape.
    Decode { method: String, message: String },
}

impl std::fmt::Display for CallError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CallError::Protocol { message, code } => write!(f, "{message} ({code})"),
            CallError::Timeout { method } => write!(f, "{method} got no answer in time"),
            CallError::Closed => write!(f, "the browser connection closed"),
            CallError::Decode { method, message } => {
                write!(f, "{method} answered in an unexpected shape: {message}")
            }
        }
    }
}

/// A protocol event.
#[derive(Debug, Clone)]
pub struct Event {
    pub method: String,
    pub params: Value,
}

/// A call's answer: the browser's whole message, its `result` decoded on demand.
#[derive(Debug)]
pub struct Answer(tokio_tungstenite::tungstenite::Utf8Bytes);

/// The `result` of an answer, the rest of the message skipped.
#[derive(Deserialize)]
struct ResultOf<T> {
    result: Option<T>,
}

impl Answer {
    /// The `result` decoded into `T` (an answer without one reads as `{}`).
    pub fn decode<T: DeserializeOwned>(&self) -> serde_json::Result<T> {
        match serde_json::from_str::<ResultOf<T>>(self.0.as_str())?.result {
            Some(r) => Ok(r),
            None => serde_json::from_str("{}"),
        }
    }

    /// The `result` as a generic value.
    pub fn value(&self) -> Value {
        self.decode::<Value>().unwrap_or(Value::Null)
    }
}

type Reply = Result<Answer, CallError>;

/// What routing reads of a message: which call it answers (or which event it is), for which
/// session, and its error. `result` and `params` are skipped without being built.
#[derive(Deserialize)]
struct Envelope<'a> {
    #[serde(default)]
    id: Option<u64>,
    #[serde(default, borrow)]
    method: Option<std::borrow::Cow<'a, str>>,
    #[serde(default, borrow, rename = "sessionId")]
    session_id: Option<std::borrow::Cow<'a, str>>,
    #[serde(default)]
    error: Option<ProtocolError>,
}

#[derive(Deserialize)]
struct ProtocolError {
    #[serde(default)]
    code: i64,
    #[serde(default)]
    message: Option<String>,
}

/// An event's parameters.
#[derive(Deserialize)]
struct Params {
    #[serde(default)]
    params: Value,
}

#[derive(Default)]
struct Router {
    pending: HashMap<u64, oneshot::Sender<Reply>>,
    /// Events per session id (`""`: the browser's own).
    sessions: HashMap<String, mpsc::UnboundedSender<Event>>,
    closed: bool,
}

/// One websocket connection to the browser.
pub struct Cdp {
    next_id: AtomicU64,
    out: mpsc::UnboundedSender<Message>,
    router: Arc<Mutex<Router>>,
    tasks: Vec<JoinHandle<()>>,
}

impl Cdp {
    /// Connects to `ws://127.0.0.1:<port>/devtools/browser/<id>`.
    pub async fn connect(ws_url: &str) -> Result<Cdp, String> {
        let (socket, _) =
            tokio::time::timeout(CALL_TIMEOUT, tokio_tungstenite::connect_async(ws_url))
                .await
                .map_err(|_| format!("connecting to {ws_url} timed out"))?
                .map_err(|e| format!("cannot connect to {ws_url}: {e}"))?;
        let (mut sink, mut stream) = socket.split();
        let (out, mut rx) = mpsc::unbounded_channel::<Message>();
        let router = Arc::new(Mutex::new(Router::default()));
        let writer = tokio::spawn(async move {
            while let Some(m) = rx.recv().await {
                if sink.send(m).await.is_err() {
                    break;
                }
            }
        });
        let r = router.clone();
        let reader = tokio::spawn(async move {
            while let Some(Ok(msg)) = stream.next().await {
                let text = match msg {
                    Message::Text(t) => t,
                    Message::Close(_) => break,
                    _ => continue,
                };
                route(&r, text);
            }
            let mut router = r.lock().expect("router lock");
            router.closed = true;
            for (_, tx) in router.pending.drain() {
                let _ = tx.send(Err(CallError::Closed));
            }
            router.sessions.clear();
        });
        Ok(Cdp {
            next_id: AtomicU64::new(1),
            out,
            router,
            tasks: vec![writer, reader],
        })
    }

    /// The events of one session (`""` for the browser's own) from now on.
    pub fn subscribe(&self, session: &str) -> mpsc::UnboundedReceiver<Event> {
        let (tx, rx) = mpsc::unbounded_channel();
        self.router
            .lock()
            .expect("router lock")
            .sessions
            .insert(session.to_string(), tx);
        rx
    }

    /// Sends a call and returns where its answer will arrive, without waiting for it (a click
    /// that opens a dialog is answered only once the dialog is closed).
    pub fn send_raw(
        &self,
        session: Option<&str>,
        method: &str,
        params: Value,
    ) -> oneshot::Receiver<Reply> {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let (tx, rx) = oneshot::channel();
        {
            let mut router = self.router.lock().expect("router lock");
            if router.closed {
                let _ = tx.send(Err(CallError::Closed));
                return rx;
            }
            router.pending.insert(id, tx);
        }
        let mut msg = json!({"id": id, "method": method, "params": params});
        if let Some(s) = session {
            msg["sessionId"] = Value::String(s.to_string());
        }
        if self.out.send(Message::text(msg.to_string())).is_err() {
            if let Some(tx) = self.router.lock().expect("router lock").pending.remove(&id) {
                let _ = tx.send(Err(CallError::Closed));
            }
        }
        rx
    }

    /// Calls `method` and waits (at most `timeout`) for its result.
    pub async fn call_raw(
        &self,
        session: Option<&str>,
        method: &str,
        params: Value,
        timeout: Duration,
    ) -> Result<Value, CallError> {
        self.answer(session, method, params, timeout)
            .await
            .map(|a| a.value())
    }

    /// Calls `method` and waits (at most `timeout`) for its answer.
    async fn answer(
        &self,
        session: Option<&str>,
        method: &str,
        params: Value,
        timeout: Duration,
    ) -> Reply {
        let rx = self.send_raw(session, method, params);
        match tokio::time::timeout(timeout, rx).await {
            Ok(Ok(reply)) => reply,
            Ok(Err(_)) => Err(CallError::Closed),
            Err(_) => Err(CallError::Timeout {
                method: method.to_string(),
            }),
        }
    }

    /// A typed call with the default timeout.
    pub async fn call<C: Command>(
        &self,
        session: Option<&str>,
        command: &C,
    ) -> Result<C::Response, CallError> {
        self.call_within(session, command, CALL_TIMEOUT).await
    }

    /// A typed call with its own timeout.
    pub async fn call_within<C: Command>(
        &self,
        session: Option<&str>,
        command: &C,
        timeout: Duration,
    ) -> Result<C::Response, CallError> {
        let params = serde_json::to_value(command).unwrap_or(Value::Null);
        let answer = self.answer(session, C::METHOD, params, timeout).await?;
        answer.decode().map_err(|e| CallError::Decode {
            method: C::METHOD.to_string(),
            message: e.to_string(),
        })
    }
}

impl Drop for Cdp {
    fn drop(&mut self) {
        for t in &self.tasks {
            t.abort();
        }
    }
}

fn route(router: &Mutex<Router>, text: tokio_tungstenite::tungstenite::Utf8Bytes) {
    let Ok(envelope) = serde_json::from_str::<Envelope>(text.as_str()) else {
        return;
    };
    if let Some(id) = envelope.id {
        let mut router = router.lock().expect("router lock");
        if let Some(tx) = router.pending.remove(&id) {
            let reply = match envelope.error {
                Some(e) => Err(CallError::Protocol {
                    code: e.code,
                    message: e.message.unwrap_or_else(|| "error".into()),
                }),
                None => Ok(Answer(text.clone())),
            };
            let _ = tx.send(reply);
        }
        return;
    }
    let Some(method) = envelope.method else {
        return;
    };
    let session = envelope.session_id.as_deref().unwrap_or("");
    let router = router.lock().expect("router lock");
    if let Some(tx) = router.sessions.get(session) {
        let params = serde_json::from_str::<Params>(text.as_str())
            .map(|p| p.params)
            .unwrap_or(Value::Null);
        let _ = tx.send(Event {
            method: method.into_owned(),
            params,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A fake browser: answers `Echo.ok` calls, never answers `Echo.silent`, and sends one event
    /// for session `S1` and one for `S2` after the first call.
    async fn fake_browser() -> String {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        tokio::spawn(async move {
            let (tcp, _) = listener.accept().await.unwrap();
            let mut ws = tokio_tungstenite::accept_async(tcp).await.unwrap();
            while let Some(Ok(Message::Text(t))) = ws.next().await {
                let v: Value = serde_json::from_str(t.as_str()).unwrap();
                if v["method"] == "Echo.ok" {
                    for (session, n) in [("S2", 2), ("S1", 1)] {
                        let ev =
                            json!({"method": "Tick", "params": {"n": n}, "sessionId": session});
                        ws.send(Message::text(ev.to_string())).await.unwrap();
                    }
                    let reply = json!({"id": v["id"], "result": {"echo": v["params"]}});
                    ws.send(Message::text(reply.to_string())).await.unwrap();
                } else if v["method"] == "Echo.fail" {
                    let reply = json!({"id": v["id"], "error": {"code": -32000, "message": "No node with given id found"}});
                    ws.send(Message::text(reply.to_string())).await.unwrap();
                }
            }
        });
        format!("ws://{addr}/devtools/browser/test")
    }

    #[test]
    fn replies_by_id_events_by_session_and_a_timeout_on_every_call() {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        rt.block_on(async {
            let cdp = Cdp::connect(&fake_browser().await).await.unwrap();
            let mut s1 = cdp.subscribe("S1");
            let ok = cdp
                .call_raw(Some("S1"), "Echo.ok", json!({"x": 1}), CALL_TIMEOUT)
                .await
                .unwrap();
            assert_eq!(ok["echo"]["x"], 1);
            let ev = s1.recv().await.unwrap();
            assert_eq!(
                (ev.method.as_str(), ev.params["n"].as_i64()),
                ("Tick", Some(1))
            );
            assert!(s1.try_recv().is_err(), "S2's event is not S1's");
            let failed = cdp
                .call_raw(None, "Echo.fail", json!({}), CALL_TIMEOUT)
                .await
                .unwrap_err();
            assert!(
                matches!(failed, CallError::Protocol { code: -32000, .. }),
                "{failed:?}"
            );
            let silent = cdp
                .call_raw(None, "Echo.silent", json!({}), Duration::from_millis(50))
                .await
                .unwrap_err();
            assert_eq!(
                silent,
                CallError::Timeout {
                    method: "Echo.silent".into()
                }
            );
        });
    }
}
