//! The session daemon: one per user, started by `ad` on first use, holding every live session
//! and its backend. It listens on `<state>/daemon.sock` (folder 0700, socket 0600), reads one JSON
//! [`Request`] per line and answers one JSON [`Response`] per line, handling requests one at a
//! time, and exits once it has had no session and no request for its idle time.
//!
//! Its log (`<state>/daemon.log`) says when it started and stopped, never what a request held.

use std::io::{BufRead, BufReader, Write};
use std::os::unix::fs::PermissionsExt;
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::{Deserialize, Serialize};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt};

use super::{Request, Response, Sessions};

/// How long an idle daemon without sessions stays up (`AD_SESSION_IDLE_MS` overrides).
pub const IDLE: Duration = Duration::from_secs(300);

/// One line on the socket: a session command, or the hand-over of a run's live session.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum Message {
    Command(Request),
    /// A close-less `ad run` hands its live sim session over (the state file is removed).
    #[serde(rename_all = "camelCase")]
    Adopt {
        session: String,
        state_file: PathBuf,
        script: PathBuf,
        app_model: Option<PathBuf>,
        /// The run's `--record-fixture` folder: the session's log there is continued.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        record_fixture: Option<PathBuf>,
    },
}

/// The socket of the daemon for `state_dir`.
pub fn socket_path(state_dir: &Path) -> PathBuf {
    state_dir.join("daemon.sock")
}

/// Creates `dir` (and its parents) readable by the user only.
pub fn private_dir(dir: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700))
}

fn log(state_dir: &Path, line: &str) {
    let path = state_dir.join("daemon.log");
    if let Ok(mut f) = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&path)
    {
        let _ = std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600));
        let _ = writeln!(f, "{} {line}", std::process::id());
    }
}

/// Runs the daemon for `state_dir` until it is idle (blocking; the caller is the daemon
/// process). Returns an error when another daemon already answers on the socket.
pub fn serve(state_dir: &Path, idle: Duration) -> std::io::Result<()> {
    private_dir(state_dir)?;
    let sock = socket_path(state_dir);
    if UnixStream::connect(&sock).is_ok() {
        return Err(std::io::Error::new(
            std::io::ErrorKind::AddrInUse,
            "a session daemon is already running",
        ));
    }
    let _ = std::fs::remove_file(&sock);
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    rt.block_on(async {
        let listener = tokio::net::UnixListener::bind(&sock)?;
        std::fs::set_permissions(&sock, std::fs::Permissions::from_mode(0o600))?;
        log(state_dir, "started");
        let mut sessions = Sessions::new(state_dir.to_path_buf());
        let reap = reap_from_env().max(idle);
        let mut last = std::time::Instant::now();
        loop {
            let accepted = tokio::time::timeout(idle, listener.accept()).await;
            let stream = match accepted {
                Err(_) if sessions.is_empty() || last.elapsed() >= reap => break,
                Err(_) => continue,
                Ok(Err(_)) => continue,
                Ok(Ok((stream, _))) => stream,
            };
            last = std::time::Instant::now();
            let (read, mut write) = stream.into_split();
            let mut lines = tokio::io::BufReader::new(read).lines();
            // A client that connects and says nothing does not hold the daemon up.
            while let Ok(Ok(Some(line))) =
                tokio::time::timeout(CLIENT_SILENCE, lines.next_line()).await
            {
                let response = match serde_json::from_str::<Message>(&line) {
                    Ok(Message::Command(req)) => sessions.handle(req).await,
                    Ok(Message::Adopt {
                        session,
                        state_file,
                        script,
                        app_model,
                        record_fixture,
                    }) => {
                        let r = sessions.adopt_sim(
                            &session,
                            &state_file,
                            &script,
                            app_model,
                            record_fixture.as_deref(),
                        );
                        Response {
                            ok: r.is_ok(),
                            session_active: r.is_ok(),
                            message: r.err(),
                            command: "adopt".into(),
                            session,
                            ..Response::default()
                        }
                    }
                    Err(e) => Response {
                        ok: false,
                        code: Some("INVALID_REQUEST".into()),
                        // The position only: the line may hold a literal.
                        message: Some(format!(
                            "not a session request (line {}, column {})",
                            e.line(),
                            e.column()
                        )),
                        ..Response::default()
                    },
                };
                let mut out = serde_json::to_vec(&response).unwrap_or_default();
                out.push(b'\n');
                if write.write_all(&out).await.is_err() {
                    break;
                }
            }
        }
        sessions.shutdown().await;
        let _ = std::fs::remove_file(&sock);
        log(state_dir, "idle: stopped");
        Ok(())
    })
}

/// How long the daemon waits for the next line of a connected client.
const CLIENT_SILENCE: Duration = Duration::from_secs(30);

/// How long live sessions nobody uses are kept (`AD_SESSION_REAP_MS` overrides): an
/// unattended handoff is bounded by this reap, as agent-device's idle-reap bounds it.
pub const REAP: Duration = Duration::from_secs(3600);

fn reap_from_env() -> Duration {
    std::env::var("AD_SESSION_REAP_MS")
        .ok()
        .and_then(|v| v.parse().ok())
        .map(Duration::from_millis)
        .unwrap_or(REAP)
}

/// The daemon's idle time: `AD_SESSION_IDLE_MS`, else [`IDLE`].
pub fn idle_from_env() -> Duration {
    std::env::var("AD_SESSION_IDLE_MS")
        .ok()
        .and_then(|v| v.parse().ok())
        .map(Duration::from_millis)
        .unwrap_or(IDLE)
}

/// A connection to the daemon of `state_dir`, starting it with `start` (which spawns the
/// daemon process) when none answers.
pub struct Client {
    stream: BufReader<UnixStream>,
}

impl Client {
    pub fn connect(
        state_dir: &Path,
        start: impl FnOnce() -> std::io::Result<()>,
    ) -> std::io::Result<Client> {
        let sock = socket_path(state_dir);
        if let Ok(s) = UnixStream::connect(&sock) {
            return Ok(Client {
                stream: BufReader::new(s),
            });
        }
        private_dir(state_dir)?;
        start()?;
        let deadline = std::time::Instant::now() + Duration::from_secs(10);
        loop {
            match UnixStream::connect(&sock) {
                Ok(s) => {
                    return Ok(Client {
                        stream: BufReader::new(s),
                    })
                }
                Err(e) if std::time::Instant::now() >= deadline => return Err(e),
                Err(_) => std::thread::sleep(Duration::from_millis(20)),
            }
        }
    }

    /// Sends one message and reads its answer.
    pub fn send(&mut self, message: &Message) -> std::io::Result<Response> {
        let mut line = serde_json::to_vec(message)?;
        line.push(b'\n');
        self.stream.get_mut().write_all(&line)?;
        let mut answer = String::new();
        self.stream.read_line(&mut answer)?;
        serde_json::from_str(&answer).map_err(|e| {
            std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                format!("the session daemon answered something else: {e}"),
            )
        })
    }
}
