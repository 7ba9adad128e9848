//! The session daemon: one per user, started by `ad` on first use, holding every live session
//! and its backend. It listens on `<state>/daemon.sock` (folder 0700, socket 0600), reads one JSON
//! [`Message`] per line and answers one JSON [`Response`] per line (a run streams its progress
//! first). Each client is served as a task of its own, so requests for different sessions proceed
//! concurrently while one session's requests keep their order ([`Sessions`]). It exits once it
//! has had no session and no client for its idle time.
//!
//! Its log (`<state>/daemon.log`) says when it started and stopped, never what a request held.

use std::cell::Cell;
use std::io::{BufRead, BufReader, Write};
use std::os::unix::fs::PermissionsExt;
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::sync::atomic::AtomicU8;
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt};

use super::handoff::{Forward, RunEvent, RunReply, RunRequest};
use super::{Request, Response, Sessions};

/// How long an idle daemon without sessions stays up (`AD_SESSION_IDLE_MS` overrides).
pub const IDLE: Duration = Duration::from_secs(300);

/// One line on the socket from a client.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum Message {
    Command(Request),
    /// A close-less `ad run`: runs in the daemon, which keeps its live session.
    Run(Box<RunRequest>),
    /// The running `ad run` was interrupted (Ctrl-C): stop at the next step boundary.
    Interrupt {
        signal: String,
    },
}

/// One line on the socket to a running `ad run`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum RunAnswer {
    Progress {
        event: RunEvent,
    },
    Done {
        reply: Box<Result<RunReply, String>>,
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
    // One thread: the web backend's browsers are tied to it (their parent-death signal).
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let local = tokio::task::LocalSet::new();
    local.block_on(&rt, async {
        let listener = tokio::net::UnixListener::bind(&sock)?;
        std::fs::set_permissions(&sock, std::fs::Permissions::from_mode(0o600))?;
        log(state_dir, "started");
        let sessions = Rc::new(Sessions::new(state_dir.to_path_buf()));
        let reap = reap_from_env().max(idle);
        let clients = Rc::new(Cell::new(0usize));
        let last = Rc::new(Cell::new(Instant::now()));
        // Idle sessions' leases are renewed on this tick; a renewal is sent only when due (a
        // third of the lease's life), so the tick costs nothing otherwise.
        let keeper = sessions.clone();
        tokio::task::spawn_local(async move {
            loop {
                tokio::time::sleep(KEEP_ALIVE_TICK).await;
                keeper.keep_alive().await;
            }
        });
        loop {
            let accepted = tokio::time::timeout(idle, listener.accept()).await;
            let stream = match accepted {
                Err(_) if clients.get() > 0 => continue,
                Err(_) if sessions.is_empty() || last.get().elapsed() >= reap => break,
                Err(_) => continue,
                Ok(Err(_)) => continue,
                Ok(Ok((stream, _))) => stream,
            };
            last.set(Instant::now());
            clients.set(clients.get() + 1);
            let (sessions, clients, last) = (sessions.clone(), clients.clone(), last.clone());
            tokio::task::spawn_local(async move {
                serve_client(stream, &sessions).await;
                last.set(Instant::now());
                clients.set(clients.get() - 1);
            });
        }
        sessions.shutdown().await;
        let _ = std::fs::remove_file(&sock);
        log(state_dir, "idle: stopped");
        Ok(())
    })
}

/// Answers one client's lines until it hangs up (or stays silent too long).
async fn serve_client(stream: tokio::net::UnixStream, sessions: &Sessions) {
    let (read, mut write) = stream.into_split();
    let mut lines = tokio::io::BufReader::new(read).lines();
    // A client that connects and says nothing does not hold the daemon up.
    while let Ok(Ok(Some(line))) = tokio::time::timeout(CLIENT_SILENCE, lines.next_line()).await {
        let response = match serde_json::from_str::<Message>(&line) {
            Ok(Message::Command(req)) => sessions.handle(req).await,
            Ok(Message::Run(req)) => {
                if serve_run(*req, sessions, &mut lines, &mut write)
                    .await
                    .is_err()
                {
                    break;
                }
                continue;
            }
            // Nothing of this client's is running any more.
            Ok(Message::Interrupt { .. }) => continue,
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
        if send_line(&mut write, &response).await.is_err() {
            break;
        }
    }
}

async fn send_line(
    write: &mut tokio::net::unix::OwnedWriteHalf,
    value: &impl Serialize,
) -> std::io::Result<()> {
    let mut out = serde_json::to_vec(value)?;
    out.push(b'\n');
    write.write_all(&out).await
}

/// Runs a client's `ad run`, streaming its progress; a forwarded Ctrl-C stops it at the next
/// step boundary, and a client that hangs up drops it (its backend with it). `Err`: the client
/// is gone.
async fn serve_run(
    req: RunRequest,
    sessions: &Sessions,
    lines: &mut tokio::io::Lines<tokio::io::BufReader<tokio::net::unix::OwnedReadHalf>>,
    write: &mut tokio::net::unix::OwnedWriteHalf,
) -> std::io::Result<()> {
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    let mut progress = Forward(tx);
    let stop = Arc::new(AtomicU8::new(0));
    let reply = {
        let run = crate::interrupt::scoped(stop.clone(), sessions.run(req, &mut progress));
        tokio::pin!(run);
        loop {
            tokio::select! {
                reply = &mut run => break reply,
                Some(event) = rx.recv() => send_line(write, &RunAnswer::Progress { event }).await?,
                line = lines.next_line() => match line {
                    Ok(Some(line)) => {
                        if let Ok(Message::Interrupt { signal }) = serde_json::from_str(&line) {
                            crate::interrupt::request_on(&stop, &signal);
                        }
                    }
                    _ => {
                        return Err(std::io::Error::new(
                            std::io::ErrorKind::ConnectionAborted,
                            "the client hung up",
                        ))
                    }
                },
            }
        }
    };
    while let Ok(event) = rx.try_recv() {
        send_line(write, &RunAnswer::Progress { event }).await?;
    }
    send_line(
        write,
        &RunAnswer::Done {
            reply: Box::new(reply),
        },
    )
    .await
}

/// How long the daemon waits for the next line of a connected client.
const CLIENT_SILENCE: Duration = Duration::from_secs(30);

/// How often idle sessions are offered a lease heartbeat: well inside a third of the shortest
/// lease life a farm daemon grants (seconds).
const KEEP_ALIVE_TICK: Duration = Duration::from_millis(500);

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

    /// Sends a run and reads its progress (handed to `on_event`) until its reply. While it
    /// waits, a stop this process was asked for ([`crate::interrupt::requested`]) is forwarded
    /// once, so the run still ends at a step boundary with its journal written.
    pub fn run(
        &mut self,
        req: RunRequest,
        mut on_event: impl FnMut(RunEvent),
    ) -> std::io::Result<Result<RunReply, String>> {
        let mut line = serde_json::to_vec(&Message::Run(Box::new(req)))?;
        line.push(b'\n');
        self.stream.get_mut().write_all(&line)?;
        self.stream
            .get_ref()
            .set_read_timeout(Some(Duration::from_millis(100)))?;
        let mut forwarded = false;
        let mut buf = Vec::new();
        loop {
            match self.stream.read_until(b'\n', &mut buf) {
                Ok(0) => {
                    return Err(std::io::Error::new(
                        std::io::ErrorKind::UnexpectedEof,
                        "the session daemon ended before the run did",
                    ))
                }
                Ok(_) if buf.ends_with(b"\n") => {
                    let answer: RunAnswer = serde_json::from_slice(&buf).map_err(|e| {
                        std::io::Error::new(
                            std::io::ErrorKind::InvalidData,
                            format!("the session daemon answered something else: {e}"),
                        )
                    })?;
                    buf.clear();
                    match answer {
                        RunAnswer::Progress { event } => on_event(event),
                        RunAnswer::Done { reply } => return Ok(*reply),
                    }
                }
                Ok(_) => {}
                Err(e)
                    if matches!(
                        e.kind(),
                        std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                    ) =>
                {
                    if let Some(signal) = crate::interrupt::requested().filter(|_| !forwarded) {
                        forwarded = true;
                        let mut line = serde_json::to_vec(&Message::Interrupt {
                            signal: signal.into(),
                        })?;
                        line.push(b'\n');
                        self.stream.get_mut().write_all(&line)?;
                    }
                }
                Err(e) => return Err(e),
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
