//! The typed client: one request, one response, a timeout on each. Locally over the daemon's TCP
//! socket (one JSON line per connection; the daemon answers one line and leaves the socket open,
//! so the client closes it) or its HTTP JSON-RPC 2.0 endpoint (`POST /rpc`, method
//! `agent_device.command`); remote daemons over HTTP only, the token in the
//! `Authorization`/`x-agent-device-token` headers. The token is a [`Secret`]: it is never
//! formatted, printed or journaled.

use std::time::Duration;

use serde_json::{json, Map, Value};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpStream;

use super::http::{self, HttpUrl};
use crate::core::backend::BackendError;
use crate::core::records::error_codes;

/// A credential that formats as `<redacted>`. It reaches the session daemon only as part of a
/// run's [`crate::core::environment::Environment`], over its private socket; nothing writes it to a
/// file.
#[derive(Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(transparent)]
pub struct Secret(String);

impl Secret {
    pub fn new(s: impl Into<String>) -> Secret {
        Secret(s.into())
    }
    /// The value, for the one place that sends it (and the bridge's captured environment).
    pub(super) fn expose(&self) -> &str {
        &self.0
    }
    pub fn is_empty(&self) -> bool {
        self.0.trim().is_empty()
    }
}

impl std::fmt::Debug for Secret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("<redacted>")
    }
}

/// Where the daemon listens.
#[derive(Debug, Clone, PartialEq)]
pub enum Endpoint {
    /// Loopback TCP, one JSON request per line.
    Socket { port: u16 },
    /// Loopback HTTP JSON-RPC (the daemon's `httpPort`).
    LocalHttp { port: u16 },
    /// A remote daemon (`AGENT_DEVICE_DAEMON_BASE_URL`).
    Remote { url: HttpUrl },
}

impl Endpoint {
    /// For reports: never includes the token.
    pub fn describe(&self) -> String {
        match self {
            Endpoint::Socket { port } => format!("tcp 127.0.0.1:{port}"),
            Endpoint::LocalHttp { port } => format!("http 127.0.0.1:{port}"),
            Endpoint::Remote { url } => {
                format!(
                    "{} {}:{}{}",
                    url.scheme(),
                    url.host,
                    url.port,
                    url.base_path
                )
            }
        }
    }
}

/// A connection to one daemon, for one agent-device session.
#[derive(Debug, Clone)]
pub struct Client {
    pub endpoint: Endpoint,
    token: Secret,
    /// The agent-device session every request names.
    pub session: String,
    /// Flags sent with every request (platform, device selection).
    pub base_flags: Map<String, Value>,
    /// The default per-request timeout.
    pub timeout: Duration,
    /// `meta` sent with every request: a remote farm's tenant, run and lease scope.
    pub meta: Map<String, Value>,
}

/// A lease operation (`agent_device.lease.*`): a tenant-isolated daemon admits device commands
/// only under an active lease of the request's tenant and run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LeaseOp {
    Allocate,
    Heartbeat,
    Release,
}

impl LeaseOp {
    fn word(self) -> &'static str {
        match self {
            LeaseOp::Allocate => "allocate",
            LeaseOp::Heartbeat => "heartbeat",
            LeaseOp::Release => "release",
        }
    }
}

/// What a lease operation names.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LeaseRequest {
    pub tenant: String,
    pub run_id: String,
    pub lease_id: Option<String>,
    pub ttl_ms: Option<u64>,
    /// agent-device's lease backend (`ios-simulator`, …; the daemon's default when absent).
    pub backend: Option<String>,
}

/// The daemon's answer to a request that did not reach it or could not be read.
fn transport(command: &str, endpoint: &Endpoint, e: impl std::fmt::Display) -> BackendError {
    BackendError::Transport {
        message: format!(
            "agent-device daemon ({}) did not answer {command}: {e}",
            endpoint.describe()
        ),
    }
}

impl Client {
    pub fn new(endpoint: Endpoint, token: Secret, session: impl Into<String>) -> Client {
        Client {
            endpoint,
            token,
            session: session.into(),
            base_flags: Map::new(),
            timeout: Duration::from_secs(60),
            meta: Map::new(),
        }
    }

    /// The request object the daemon reads: `{token, session, command, positionals, flags}`.
    fn request_body(
        &self,
        command: &str,
        positionals: &[String],
        flags: &Map<String, Value>,
        with_token: bool,
    ) -> Value {
        let mut all = self.base_flags.clone();
        for (k, v) in flags {
            all.insert(k.clone(), v.clone());
        }
        let mut req = json!({
            "session": self.session,
            "command": command,
            "positionals": positionals,
            "flags": all,
        });
        if with_token {
            req["token"] = Value::String(self.token.expose().to_string());
        }
        if !self.meta.is_empty() {
            req["meta"] = Value::Object(self.meta.clone());
        }
        req
    }

    /// Sends one command; `Ok(data)` when the daemon reports `ok`, its error (code, message,
    /// hint kept) as `Rejected` otherwise, `Transport` when the answer never came.
    pub async fn send(
        &self,
        command: &str,
        positionals: &[String],
        flags: &Map<String, Value>,
        timeout: Option<Duration>,
    ) -> Result<Value, BackendError> {
        self.send_with(command, positionals, &Map::new(), flags, timeout)
            .await
    }

    /// Sends a command the daemon reads from a structured `input` object (`swipe`, `gesture`).
    pub async fn send_input(
        &self,
        command: &str,
        input: Value,
        flags: &Map<String, Value>,
        timeout: Option<Duration>,
    ) -> Result<Value, BackendError> {
        let mut extra = Map::new();
        extra.insert("input".into(), input);
        self.send_with(command, &[], &extra, flags, timeout).await
    }

    /// Sends a command with extra top-level request fields (`input`, `meta`).
    pub async fn send_with(
        &self,
        command: &str,
        positionals: &[String],
        extra: &Map<String, Value>,
        flags: &Map<String, Value>,
        timeout: Option<Duration>,
    ) -> Result<Value, BackendError> {
        let timeout = timeout.unwrap_or(self.timeout);
        let with_extra = |mut body: Value| {
            for (k, v) in extra {
                match (body.get_mut(k.as_str()), v) {
                    // `meta` adds to the connection's own.
                    (Some(Value::Object(have)), Value::Object(more)) => {
                        have.extend(more.clone());
                    }
                    _ => body[k.as_str()] = v.clone(),
                }
            }
            body
        };
        let response = match &self.endpoint {
            Endpoint::Socket { port } => {
                let body = with_extra(self.request_body(command, positionals, flags, true));
                socket_exchange(*port, &body, timeout)
                    .await
                    .map_err(|e| transport(command, &self.endpoint, e))?
            }
            Endpoint::LocalHttp { .. } | Endpoint::Remote { .. } => {
                let remote = matches!(self.endpoint, Endpoint::Remote { .. });
                let body = with_extra(self.request_body(command, positionals, flags, !remote));
                let url = self.http_url().expect("an HTTP endpoint");
                let auth = self.auth_headers();
                let headers: Vec<(&str, &str)> =
                    auth.iter().map(|(k, v)| (*k, v.as_str())).collect();
                self.rpc(
                    &url,
                    "agent_device.command",
                    body,
                    &headers,
                    timeout,
                    command,
                )
                .await?
            }
        };
        interpret(response)
    }

    /// A lease operation: over HTTP the daemon's `agent_device.lease.<op>` method, over the
    /// socket its `lease_<op>` command with the scope in `meta` (how agent-device's own client
    /// sends each). `Ok(data)` as for [`Client::send`].
    pub async fn lease(&self, op: LeaseOp, r: &LeaseRequest) -> Result<Value, BackendError> {
        let command = format!("lease_{}", op.word());
        let opt = |v: &Option<String>| v.as_ref().map(|s| json!(s));
        let response = match &self.endpoint {
            Endpoint::Socket { port } => {
                let mut meta = Map::new();
                for (k, v) in [
                    ("tenantId", Some(json!(r.tenant))),
                    ("runId", Some(json!(r.run_id))),
                    ("leaseId", opt(&r.lease_id)),
                    ("leaseTtlMs", r.ttl_ms.map(|t| json!(t))),
                    ("leaseBackend", opt(&r.backend)),
                ] {
                    if let Some(v) = v {
                        meta.insert(k.into(), v);
                    }
                }
                let mut body = self.request_body(&command, &[], &Map::new(), true);
                body["flags"] = json!({});
                body["meta"] = Value::Object(meta);
                socket_exchange(*port, &body, self.timeout)
                    .await
                    .map_err(|e| transport(&command, &self.endpoint, e))?
            }
            Endpoint::LocalHttp { .. } | Endpoint::Remote { .. } => {
                let remote = matches!(self.endpoint, Endpoint::Remote { .. });
                let mut params = Map::new();
                for (k, v) in [
                    ("session", Some(json!(self.session))),
                    ("tenantId", Some(json!(r.tenant))),
                    ("runId", Some(json!(r.run_id))),
                    ("leaseId", opt(&r.lease_id)),
                    ("ttlMs", r.ttl_ms.map(|t| json!(t))),
                    ("backend", opt(&r.backend)),
                ] {
                    if let Some(v) = v {
                        params.insert(k.into(), v);
                    }
                }
                if !remote {
                    params.insert("token".into(), json!(self.token.expose()));
                }
                let url = self.http_url().expect("an HTTP endpoint");
                let auth = self.auth_headers();
                let headers: Vec<(&str, &str)> =
                    auth.iter().map(|(k, v)| (*k, v.as_str())).collect();
                let method = format!("agent_device.lease.{}", op.word());
                self.rpc(
                    &url,
                    &method,
                    Value::Object(params),
                    &headers,
                    self.timeout,
                    &command,
                )
                .await?
            }
        };
        interpret(response)
    }

    /// The HTTP base URL of an HTTP endpoint.
    fn http_url(&self) -> Option<HttpUrl> {
        match &self.endpoint {
            Endpoint::Socket { .. } => None,
            Endpoint::LocalHttp { port } => Some(HttpUrl::loopback(*port)),
            Endpoint::Remote { url } => Some(url.clone()),
        }
    }

    /// A remote daemon's credentials, as agent-device's own client sends them (a local daemon
    /// reads the token from the request body).
    fn auth_headers(&self) -> Vec<(&'static str, String)> {
        if !matches!(self.endpoint, Endpoint::Remote { .. }) {
            return Vec::new();
        }
        self.token_headers()
    }

    /// The token headers, and the tenant a tenant-isolated daemon checks artifacts against.
    fn token_headers(&self) -> Vec<(&'static str, String)> {
        let mut headers = Vec::new();
        if let Some(tenant) = self.meta.get("tenantId").and_then(Value::as_str) {
            headers.push(("x-agent-device-tenant", tenant.to_string()));
        }
        if self.token.is_empty() {
            return headers;
        }
        headers.extend([
            ("Authorization", format!("Bearer {}", self.token.expose())),
            ("x-agent-device-token", self.token.expose().to_string()),
        ]);
        headers
    }

    /// Downloads an artifact the daemon registered for a response (`GET /artifacts/<id>`): how
    /// a screenshot taken on the daemon's machine reaches this one over HTTP.
    pub async fn download_artifact(&self, id: &str) -> Result<Vec<u8>, BackendError> {
        let command = "artifact download";
        let Some(url) = self.http_url() else {
            return Err(transport(
                command,
                &self.endpoint,
                "artifacts are served over HTTP only",
            ));
        };
        // No body on this route: the token goes in the headers, local daemon or remote.
        let auth = self.token_headers();
        let headers: Vec<(&str, &str)> = auth.iter().map(|(k, v)| (*k, v.as_str())).collect();
        let path = format!("/artifacts/{}", percent_encode(id));
        let r = http::exchange(&url, "GET", &path, &headers, &[], self.timeout)
            .await
            .map_err(|e| transport(command, &self.endpoint, e))?;
        if r.status != 200 {
            let text = String::from_utf8_lossy(&r.body);
            return Err(BackendError::Rejected {
                code: error_codes::COMMAND_FAILED.into(),
                message: format!(
                    "agent-device daemon ({}) refused the artifact download (HTTP {}): {}",
                    self.endpoint.describe(),
                    r.status,
                    text.chars().take(200).collect::<String>()
                ),
                hint: None,
            });
        }
        Ok(r.body)
    }

    async fn rpc(
        &self,
        url: &HttpUrl,
        method: &str,
        params: Value,
        headers: &[(&str, &str)],
        timeout: Duration,
        command: &str,
    ) -> Result<Value, BackendError> {
        let envelope = json!({
            "jsonrpc": "2.0",
            "id": format!("ad-{}", next_id()),
            "method": method,
            "params": params,
        });
        let body = serde_json::to_vec(&envelope).unwrap_or_default();
        let mut all = vec![("Content-Type", "application/json")];
        all.extend_from_slice(headers);
        let r = http::exchange(url, "POST", "/rpc", &all, &body, timeout)
            .await
            .map_err(|e| transport(command, &self.endpoint, e))?;
        let v: Value = serde_json::from_slice(&r.body).map_err(|e| {
            transport(
                command,
                &self.endpoint,
                format!("HTTP {}: not JSON ({e})", r.status),
            )
        })?;
        if let Some(result) = v.get("result") {
            return Ok(result.clone());
        }
        if let Some(err) = v.get("error") {
            // A JSON-RPC error carries agent-device's error in `data`.
            let data = err.get("data").cloned().unwrap_or(Value::Null);
            let code = data
                .get("code")
                .and_then(Value::as_str)
                .unwrap_or(error_codes::COMMAND_FAILED);
            let message = data
                .get("message")
                .or_else(|| err.get("message"))
                .and_then(Value::as_str)
                .unwrap_or("daemon RPC request failed");
            let mut error = json!({"code": code, "message": message});
            if let Some(h) = data.get("hint") {
                error["hint"] = h.clone();
            }
            return Ok(json!({"ok": false, "error": error}));
        }
        Err(transport(
            command,
            &self.endpoint,
            format!("HTTP {}: neither result nor error", r.status),
        ))
    }

    /// Is the daemon there? (A connection for the socket, `GET /health` for HTTP.)
    pub async fn reachable(&self) -> bool {
        self.check_health().await.is_ok()
    }

    /// [`Client::reachable`], with why not (a refused connection, a TLS certificate the trust
    /// store does not accept, an HTTP error).
    pub async fn check_health(&self) -> Result<(), String> {
        let t = Duration::from_millis(1500);
        match &self.endpoint {
            Endpoint::Socket { port } => {
                match tokio::time::timeout(t, TcpStream::connect(("127.0.0.1", *port))).await {
                    Ok(Ok(_)) => Ok(()),
                    Ok(Err(e)) => Err(e.to_string()),
                    Err(_) => Err("no connection within 1.5 s".into()),
                }
            }
            Endpoint::LocalHttp { port } => health(&HttpUrl::loopback(*port), &[], t).await,
            Endpoint::Remote { url } => {
                let auth = self.auth_headers();
                let headers: Vec<(&str, &str)> =
                    auth.iter().map(|(k, v)| (*k, v.as_str())).collect();
                health(url, &headers, Duration::from_secs(5)).await
            }
        }
    }
}

/// `GET /health`: answered below HTTP 500.
async fn health(url: &HttpUrl, headers: &[(&str, &str)], timeout: Duration) -> Result<(), String> {
    let r = http::exchange(url, "GET", "/health", headers, &[], timeout).await?;
    if r.status < 500 {
        Ok(())
    } else {
        Err(format!("HTTP {}", r.status))
    }
}

/// An artifact id as one URL path segment.
fn percent_encode(s: &str) -> String {
    s.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

fn next_id() -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static N: AtomicU64 = AtomicU64::new(1);
    N.fetch_add(1, Ordering::Relaxed)
}

/// One request line out, the first response line back (progress events skipped).
async fn socket_exchange(port: u16, body: &Value, timeout: Duration) -> Result<Value, String> {
    tokio::time::timeout(timeout, async {
        let stream = TcpStream::connect(("127.0.0.1", port))
            .await
            .map_err(|e| format!("cannot connect: {e}"))?;
        let (read, mut write) = stream.into_split();
        let mut line = serde_json::to_vec(body).map_err(|e| e.to_string())?;
        line.push(b'\n');
        write
            .write_all(&line)
            .await
            .map_err(|e| format!("write: {e}"))?;
        let mut lines = BufReader::new(read).lines();
        loop {
            let Some(l) = lines.next_line().await.map_err(|e| format!("read: {e}"))? else {
                return Err("the daemon closed the connection without an answer".into());
            };
            if l.trim().is_empty() {
                continue;
            }
            let v: Value = serde_json::from_str(&l).map_err(|e| format!("not JSON: {e}"))?;
            match v.get("type").and_then(Value::as_str) {
                Some("progress") => continue,
                Some("response") => return Ok(v.get("response").cloned().unwrap_or(Value::Null)),
                _ => return Ok(v),
            }
        }
    })
    .await
    .map_err(|_| format!("no answer within {} ms", timeout.as_millis()))?
}

/// `{ok: true, data}` → data; `{ok: false, error: {code, message, hint}}` → `Rejected`.
fn interpret(response: Value) -> Result<Value, BackendError> {
    match response.get("ok").and_then(Value::as_bool) {
        Some(true) => Ok(response.get("data").cloned().unwrap_or(Value::Null)),
        Some(false) => {
            let e = response.get("error").cloned().unwrap_or(Value::Null);
            let text = |k: &str| e.get(k).and_then(Value::as_str).map(str::to_string);
            Err(BackendError::Rejected {
                code: text("code").unwrap_or_else(|| error_codes::COMMAND_FAILED.into()),
                message: text("message")
                    .unwrap_or_else(|| "agent-device refused the request".into()),
                hint: text("hint"),
            })
        }
        None => Err(BackendError::Transport {
            message: "agent-device daemon answered without an ok field".into(),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_never_format() {
        let c = Client::new(Endpoint::Socket { port: 1 }, Secret::new("tok-123"), "s");
        assert!(!format!("{c:?}").contains("tok-123"));
    }

    #[test]
    fn errors_keep_code_message_and_hint() {
        let e = interpret(json!({"ok": false, "error": {"code": error_codes::UNSUPPORTED_OPERATION, "message": "alert is not supported on this device", "hint": "h"}}))
            .unwrap_err();
        assert_eq!(
            e,
            BackendError::Rejected {
                code: error_codes::UNSUPPORTED_OPERATION.into(),
                message: "alert is not supported on this device".into(),
                hint: Some("h".into())
            }
        );
        assert_eq!(interpret(json!({"ok": true, "data": 3})).unwrap(), json!(3));
    }

    #[test]
    fn remote_requests_carry_no_token_in_the_body() {
        let url = HttpUrl::parse("http://farm:1").unwrap();
        let c = Client::new(Endpoint::Remote { url }, Secret::new("tok-123"), "s");
        let body = c.request_body("snapshot", &[], &Map::new(), false);
        assert!(!body.to_string().contains("tok-123"));
    }
}
