//! The one HTTP/1.1 exchange the JSON-RPC transport needs: a request with a JSON body, the whole
//! response read back (content-length, chunked, or until the server closes), over plain TCP or,
//! for `https://` daemons, TLS (rustls, the system's trust store: `SSL_CERT_FILE` and
//! `SSL_CERT_DIR` add to or replace it as for OpenSSL).

use std::sync::{Arc, OnceLock};
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio_rustls::rustls;

/// A parsed `http(s)://host:port/base` URL.
#[derive(Debug, Clone, PartialEq)]
pub struct HttpUrl {
    pub host: String,
    pub port: u16,
    /// The path prefix, without a trailing `/`.
    pub base_path: String,
    /// `https://`: TLS, the server's certificate checked against the trust store.
    pub tls: bool,
}

impl HttpUrl {
    /// A loopback `http://127.0.0.1:port` URL.
    pub fn loopback(port: u16) -> HttpUrl {
        HttpUrl {
            host: "127.0.0.1".into(),
            port,
            base_path: String::new(),
            tls: false,
        }
    }

    pub fn scheme(&self) -> &'static str {
        if self.tls {
            "https"
        } else {
            "http"
        }
    }

    pub fn parse(url: &str) -> Result<HttpUrl, String> {
        let (rest, tls) = if let Some(r) = url.strip_prefix("http://") {
            (r, false)
        } else if let Some(r) = url.strip_prefix("https://") {
            (r, true)
        } else {
            return Err(format!(
                "{url}: the daemon base URL must start with http:// or https://"
            ));
        };
        let (authority, path) = match rest.find('/') {
            Some(i) => (&rest[..i], &rest[i..]),
            None => (rest, ""),
        };
        let (host, port) = match authority.rsplit_once(':') {
            Some((h, p)) if !h.ends_with(']') || h.starts_with('[') => (
                h.trim_matches(|c| c == '[' || c == ']').to_string(),
                p.parse::<u16>()
                    .map_err(|_| format!("{url}: invalid port {p:?}"))?,
            ),
            _ => (authority.to_string(), if tls { 443 } else { 80 }),
        };
        if host.is_empty() {
            return Err(format!("{url}: no host"));
        }
        Ok(HttpUrl {
            host,
            port,
            base_path: path.trim_end_matches('/').to_string(),
            tls,
        })
    }

    /// Is the host this machine (a remote daemon there may run without a token)?
    pub fn is_loopback(&self) -> bool {
        self.host == "localhost" || self.host == "::1" || self.host.starts_with("127.")
    }
}

/// A response: status and body.
#[derive(Debug)]
pub struct Response {
    pub status: u16,
    pub body: Vec<u8>,
}

/// Sends `method path` with `headers` and `body`, reads the whole response.
pub async fn exchange(
    url: &HttpUrl,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &[u8],
    timeout: Duration,
) -> Result<Response, String> {
    tokio::time::timeout(timeout, async {
        let stream = TcpStream::connect((url.host.as_str(), url.port))
            .await
            .map_err(|e| format!("cannot connect to {}:{}: {e}", url.host, url.port))?;
        if !url.tls {
            return exchange_on(stream, url, method, path, headers, body).await;
        }
        let name = rustls::pki_types::ServerName::try_from(url.host.clone())
            .map_err(|e| format!("{}: not a TLS server name: {e}", url.host))?;
        let tls = tokio_rustls::TlsConnector::from(tls_config()?)
            .connect(name, stream)
            .await
            .map_err(|e| format!("TLS handshake with {}:{}: {e}", url.host, url.port))?;
        exchange_on(tls, url, method, path, headers, body).await
    })
    .await
    .map_err(|_| format!("no answer within {} ms", timeout.as_millis()))?
}

/// The client TLS configuration (ring, the system's roots), made once.
fn tls_config() -> Result<Arc<rustls::ClientConfig>, String> {
    static CONFIG: OnceLock<Result<Arc<rustls::ClientConfig>, String>> = OnceLock::new();
    CONFIG
        .get_or_init(|| {
            let mut roots = rustls::RootCertStore::empty();
            let found = rustls_native_certs::load_native_certs();
            let (added, _) = roots.add_parsable_certificates(found.certs);
            if added == 0 {
                return Err("no trusted root certificates for https:// daemons: install ca-certificates, or point SSL_CERT_FILE at the CA that signed the daemon's certificate".into());
            }
            let provider = Arc::new(rustls::crypto::ring::default_provider());
            let config = rustls::ClientConfig::builder_with_provider(provider)
                .with_safe_default_protocol_versions()
                .map_err(|e| format!("TLS setup: {e}"))?
                .with_root_certificates(roots)
                .with_no_client_auth();
            Ok(Arc::new(config))
        })
        .clone()
}

async fn exchange_on<S: AsyncRead + AsyncWrite + Unpin>(
    mut stream: S,
    url: &HttpUrl,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &[u8],
) -> Result<Response, String> {
    let mut head = format!(
        "{method} {}{path} HTTP/1.1\r\nHost: {}:{}\r\nConnection: close\r\nContent-Length: {}\r\n",
        url.base_path,
        url.host,
        url.port,
        body.len()
    );
    for (k, v) in headers {
        head.push_str(k);
        head.push_str(": ");
        head.push_str(v);
        head.push_str("\r\n");
    }
    head.push_str("\r\n");
    stream
        .write_all(head.as_bytes())
        .await
        .map_err(|e| format!("write: {e}"))?;
    stream
        .write_all(body)
        .await
        .map_err(|e| format!("write: {e}"))?;
    stream.flush().await.map_err(|e| format!("write: {e}"))?;
    let mut raw = Vec::new();
    match stream.read_to_end(&mut raw).await {
        Ok(_) => {}
        // A TLS server that closes without close_notify after a complete answer.
        Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof && !raw.is_empty() => {}
        Err(e) => return Err(format!("read: {e}")),
    }
    parse_response(&raw)
}

fn parse_response(raw: &[u8]) -> Result<Response, String> {
    let end = raw
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .ok_or("truncated HTTP response (no header end)")?;
    let head = String::from_utf8_lossy(&raw[..end]);
    let mut lines = head.split("\r\n");
    let status: u16 = lines
        .next()
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|s| s.parse().ok())
        .ok_or("malformed HTTP status line")?;
    let mut chunked = false;
    let mut length = None;
    for l in lines {
        let Some((k, v)) = l.split_once(':') else {
            continue;
        };
        let (k, v) = (k.trim().to_ascii_lowercase(), v.trim());
        if k == "transfer-encoding" && v.eq_ignore_ascii_case("chunked") {
            chunked = true;
        } else if k == "content-length" {
            length = v.parse::<usize>().ok();
        }
    }
    let rest = &raw[end + 4..];
    let body = if chunked {
        dechunk(rest)?
    } else if let Some(n) = length {
        rest.get(..n).ok_or("truncated HTTP body")?.to_vec()
    } else {
        rest.to_vec()
    };
    Ok(Response { status, body })
}

fn dechunk(mut rest: &[u8]) -> Result<Vec<u8>, String> {
    let mut out = Vec::new();
    loop {
        let eol = rest
            .windows(2)
            .position(|w| w == b"\r\n")
            .ok_or("truncated chunk")?;
        let size_text = String::from_utf8_lossy(&rest[..eol]);
        let size = usize::from_str_radix(size_text.split(';').next().unwrap_or("").trim(), 16)
            .map_err(|_| "malformed chunk size")?;
        rest = &rest[eol + 2..];
        if size == 0 {
            return Ok(out);
        }
        out.extend_from_slice(rest.get(..size).ok_or("truncated chunk")?);
        rest = rest.get(size + 2..).unwrap_or(&[]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_parse() {
        let u = HttpUrl::parse("http://farm.example:8080/agent-device/").unwrap();
        assert_eq!(
            (u.host.as_str(), u.port, u.base_path.as_str()),
            ("farm.example", 8080, "/agent-device")
        );
        assert!(HttpUrl::parse("http://127.0.0.1:9").unwrap().is_loopback());
        let s = HttpUrl::parse("https://farm.example/ad").unwrap();
        assert_eq!((s.port, s.tls, s.scheme()), (443, true, "https"));
        assert!(HttpUrl::parse("ftp://x").unwrap_err().contains("https://"));
    }

    #[test]
    fn chunked_and_sized_bodies() {
        let r = parse_response(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}").unwrap();
        assert_eq!((r.status, r.body.as_slice()), (200, &b"{}"[..]));
        let r = parse_response(
            b"HTTP/1.1 500 X\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n2\r\nde\r\n0\r\n\r\n",
        )
        .unwrap();
        assert_eq!((r.status, r.body.as_slice()), (500, &b"abcde"[..]));
    }
}
