//! The session daemon: one per user, started by `ad` on first use, holding every live session
//! and its backend. It listens on `<state>/daemon.sock` (folder 0700, socket 0600), reads one JSON
//! [`Message`] per line and answers one JSON [`Response`] per line (a run streams its progress
//! first). Each client is served as a task of its own, so requests for different sessions proceed
//! concurrently while one session's requests keep their order ([`Sessions`]). It exits once it
//! has had no session and no client for its idle time.
//!
//! Only this user talks to it, and it only to this user: the state folder and the socket must be
//! the user's and not writable by others ([`crate::session::check_private`]), and each end checks
//! the other's user id (`SO_PEERCRED`) before a byte of a request crosses. No one client can hold
//! it: a request line is read through [`MAX_REQUEST_BYTES`], a silent connection is dropped after
//! [`CLIENT_SILENCE`], at most [`MAX_CLIENTS`] connections are kept (the longest-idle one makes
//! room for a new one), a replayed script is read off the daemon's thread, and a long run yields
//! to the other clients between steps. While a request runs the daemon sends [`ALIVE`] lines, so a
//! client can tell a slow request from a stuck daemon ([`client_timeout`]).
//!
//! Its log (`<state>/daemon.log`) says when it started and stopped, never what a request held.

use std::cell::{Cell, RefCell};
use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Write};
use std::os::fd::{AsRawFd, FromRawFd};
use std::os::unix::fs::{FileTypeExt, PermissionsExt};
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::sync::atomic::AtomicU8;
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use tokio::sync::Notify;

use super::handoff::{Forward, RunEvent, RunReply, RunRequest};
use super::{Request, Response, Sessions};
use crate::core::records::error_codes;

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
    /// The daemon is still at work on the request ([`ALIVE`]).
    Alive,
}

/// The line the daemon sends every [`HEARTBEAT`] while a request runs (before a command's
/// answer, between a run's progress lines): the client's silence timeout restarts on it.
pub const ALIVE: &[u8] = b"{\"kind\":\"alive\"}\n";

/// How often a request at work is announced with [`ALIVE`].
const HEARTBEAT: Duration = Duration::from_secs(2);

/// The longest request line the daemon reads (a close-less run carries its script, which `ad
/// run` caps at 2 MiB by default, JSON-escaped); a longer one is refused without being held.
pub const MAX_REQUEST_BYTES: usize = 64 << 20;

/// How many connections the daemon keeps at once; a new one past it closes the longest-idle
/// connection (or, when every one is busy, is told to retry).
pub const MAX_CLIENTS: usize = 1024;

/// The socket of the daemon for `state_dir`.
pub fn socket_path(state_dir: &Path) -> PathBuf {
    state_dir.join("daemon.sock")
}

/// Makes `dir` a folder only this user can use: created 0700 when missing, an existing one
/// refused unless it is this user's and not writable by others (never changed).
pub fn private_dir(dir: &Path) -> std::io::Result<()> {
    crate::session::private_dir(dir)
}

/// The user id and process id at the other end of a Unix socket (`SO_PEERCRED`).
pub fn peer_cred(socket: &impl AsRawFd) -> std::io::Result<(u32, i32)> {
    let mut cred = libc::ucred {
        pid: 0,
        uid: 0,
        gid: 0,
    };
    let mut len = std::mem::size_of::<libc::ucred>() as libc::socklen_t;
    // SAFETY: `cred` and `len` are valid for writes of the sizes given.
    let rc = unsafe {
        libc::getsockopt(
            socket.as_raw_fd(),
            libc::SOL_SOCKET,
            libc::SO_PEERCRED,
            (&mut cred as *mut libc::ucred).cast(),
            &mut len,
        )
    };
    if rc != 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok((cred.uid, cred.pid))
}

/// Refuses a peer that is not user `uid`: `who` names it in the error.
pub fn check_peer(socket: &impl AsRawFd, uid: u32, who: &str) -> std::io::Result<i32> {
    let (peer, pid) = peer_cred(socket)?;
    if peer != uid {
        return Err(std::io::Error::new(
            std::io::ErrorKind::PermissionDenied,
            format!(
                "{who} (pid {pid}) runs as user {peer}, not as you (user {uid}): ad sends it nothing"
            ),
        ));
    }
    Ok(pid)
}

/// Is the socket at `sock` this user's, not writable by others, and a socket?
fn check_socket(sock: &Path) -> std::io::Result<()> {
    crate::session::check_private(sock, "socket", crate::session::current_uid())?;
    if !std::fs::metadata(sock)?.file_type().is_socket() {
        return Err(std::io::Error::new(
            std::io::ErrorKind::PermissionDenied,
            format!(
                "{}: not a socket; remove it (a session daemon makes its own)",
                sock.display()
            ),
        ));
    }
    Ok(())
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

/// The connections the daemon holds: how many, and the idle ones (waiting for a request line),
/// oldest first, each with the signal that closes it.
struct Clients {
    open: Cell<usize>,
    cap: usize,
    next: Cell<u64>,
    idle: RefCell<BTreeMap<u64, Rc<Notify>>>,
}

impl Clients {
    fn new(cap: usize) -> Clients {
        Clients {
            open: Cell::new(0),
            cap,
            next: Cell::new(0),
            idle: RefCell::new(BTreeMap::new()),
        }
    }

    /// Marks a connection idle until the guard drops; the guard's signal fires if it is closed
    /// to make room.
    fn idle(self: &Rc<Self>) -> IdleGuard {
        let id = self.next.get();
        self.next.set(id + 1);
        let notify = Rc::new(Notify::new());
        self.idle.borrow_mut().insert(id, notify.clone());
        IdleGuard {
            clients: self.clone(),
            id,
            notify,
        }
    }

    /// Closes the longest-idle connection; false when none is idle.
    fn evict(&self) -> bool {
        match self.idle.borrow_mut().pop_first() {
            Some((_, notify)) => {
                notify.notify_one();
                true
            }
            None => false,
        }
    }
}

struct IdleGuard {
    clients: Rc<Clients>,
    id: u64,
    notify: Rc<Notify>,
}

impl Drop for IdleGuard {
    fn drop(&mut self) {
        self.clients.idle.borrow_mut().remove(&self.id);
    }
}

/// Raises the open-file limit to what [`MAX_CLIENTS`] needs when the hard limit allows, and
/// returns the connection cap the limit leaves room for (a file descriptor per connection, and
/// some for the sessions' own files, browsers and sockets).
fn client_cap() -> usize {
    let want = (MAX_CLIENTS * 2 + 256) as libc::rlim_t;
    let mut lim = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: `lim` is valid for reads and writes.
    unsafe {
        if libc::getrlimit(libc::RLIMIT_NOFILE, &mut lim) != 0 {
            return 64;
        }
        if lim.rlim_cur < want {
            let raised = libc::rlimit {
                rlim_cur: want.min(lim.rlim_max),
                rlim_max: lim.rlim_max,
            };
            if libc::setrlimit(libc::RLIMIT_NOFILE, &raised) == 0 {
                lim = raised;
            }
        }
    }
    let room = (lim.rlim_cur as usize).saturating_sub(256) / 2;
    room.clamp(16, MAX_CLIENTS)
}

/// Runs the daemon for `state_dir` until it is idle (blocking; the caller is the daemon
/// process). Returns an error when another daemon already answers on the socket, or when the
/// state folder or a socket in it is not this user's alone.
pub fn serve(state_dir: &Path, idle: Duration) -> std::io::Result<()> {
    serve_with(state_dir, idle, client_cap(), || {})
}

/// [`serve`], with `release` giving the memory the process's allocator holds free back to the
/// system: called when a client that sent a large request (a megabyte or more) has gone, so
/// the daemon does not stay at that size.
pub fn serve_releasing(state_dir: &Path, idle: Duration, release: fn()) -> std::io::Result<()> {
    serve_with(state_dir, idle, client_cap(), release)
}

/// How large a client's request buffer must have grown for its end to release memory.
const RELEASE_AFTER: usize = 1 << 20;

/// [`serve`], keeping at most `cap` connections.
fn serve_with(state_dir: &Path, idle: Duration, cap: usize, release: fn()) -> std::io::Result<()> {
    private_dir(state_dir)?;
    let sock = socket_path(state_dir);
    if std::fs::symlink_metadata(&sock).is_ok() {
        check_socket(&sock)?;
        if UnixStream::connect(&sock).is_ok() {
            return Err(std::io::Error::new(
                std::io::ErrorKind::AddrInUse,
                "a session daemon is already running",
            ));
        }
        let _ = std::fs::remove_file(&sock);
    }
    let me = crate::session::current_uid();
    let clients = Rc::new(Clients::new(cap));
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
                Err(_) if clients.open.get() > 0 => continue,
                Err(_) if sessions.is_empty() || last.get().elapsed() >= reap => break,
                Err(_) => continue,
                Ok(Err(_)) => {
                    // Out of file descriptors (or the like): make room, and do not spin on an
                    // accept that fails at once.
                    clients.evict();
                    tokio::time::sleep(Duration::from_millis(20)).await;
                    continue;
                }
                Ok(Ok((stream, _))) => stream,
            };
            // Another user's process gets nothing, not even an answer.
            if check_peer(&stream, me, "the client").is_err() {
                continue;
            }
            if clients.open.get() >= clients.cap && !clients.evict() {
                let busy = Response {
                    ok: false,
                    code: Some(error_codes::DAEMON_BUSY.into()),
                    message: Some(format!(
                        "the session daemon is busy with {} requests; retry when one has ended",
                        clients.open.get()
                    )),
                    ..Response::default()
                };
                let mut line = serde_json::to_vec(&busy).unwrap_or_default();
                line.push(b'\n');
                let _ = stream.try_write(&line);
                continue;
            }
            last.set(Instant::now());
            clients.open.set(clients.open.get() + 1);
            // Idle (evictable) from now on, before its task first runs: a burst of connections
            // cannot fill the cap with connections nobody can close.
            let idle = clients.idle();
            let (sessions, clients, last) = (sessions.clone(), clients.clone(), last.clone());
            tokio::task::spawn_local(async move {
                if serve_client(stream, idle, &sessions, &clients).await >= RELEASE_AFTER {
                    release();
                }
                last.set(Instant::now());
                clients.open.set(clients.open.get() - 1);
            });
        }
        sessions.shutdown().await;
        let _ = std::fs::remove_file(&sock);
        log(state_dir, "idle: stopped");
        Ok(())
    })
}

/// A client's request lines, read through [`MAX_REQUEST_BYTES`]: no buffer is held while the
/// client is silent, and a longer line is refused once that much of it has arrived.
struct LineReader {
    read: tokio::net::unix::OwnedReadHalf,
    buf: Vec<u8>,
    /// `buf[..scanned]` holds no newline.
    scanned: usize,
    eof: bool,
    limit: usize,
    /// The largest capacity `buf` had.
    peak: usize,
}

/// What a request line that is too long answers.
fn too_long(limit: usize) -> std::io::Error {
    std::io::Error::new(
        std::io::ErrorKind::InvalidData,
        format!("the request is over the session daemon's {limit}-byte limit"),
    )
}

impl LineReader {
    fn new(read: tokio::net::unix::OwnedReadHalf, limit: usize) -> LineReader {
        LineReader {
            read,
            buf: Vec::new(),
            scanned: 0,
            eof: false,
            limit,
            peak: 0,
        }
    }

    /// The next line (without its newline); `None` at the end. Cancel-safe: what was read
    /// stays in the buffer.
    async fn next_line(&mut self) -> std::io::Result<Option<Vec<u8>>> {
        // The first read takes a small buffer (a thousand connections that each send a short
        // request hold little), doubled as a long line arrives.
        const FIRST: usize = 4 << 10;
        loop {
            if let Some(i) = self.buf[self.scanned..].iter().position(|&b| b == b'\n') {
                let rest = self.buf.split_off(self.scanned + i + 1);
                let mut line = std::mem::replace(&mut self.buf, rest);
                line.pop();
                self.scanned = 0;
                return Ok(Some(line));
            }
            self.scanned = self.buf.len();
            if self.buf.len() > self.limit {
                // Nothing of it is kept.
                self.buf = Vec::new();
                return Err(too_long(self.limit));
            }
            if self.eof {
                let last = std::mem::take(&mut self.buf);
                self.scanned = 0;
                return Ok((!last.is_empty()).then_some(last));
            }
            self.read.readable().await?;
            if self.buf.capacity() - self.buf.len() < FIRST / 4 {
                // Doubling, but never past the limit (and a little).
                let want = (self.buf.capacity() * 2)
                    .max(self.buf.len() + FIRST)
                    .min(self.limit + FIRST);
                self.buf.reserve_exact(want - self.buf.len());
                self.peak = self.peak.max(self.buf.capacity());
            }
            match self.read.try_read_buf(&mut self.buf) {
                Ok(0) => self.eof = true,
                Ok(_) => {}
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {}
                Err(e) => return Err(e),
            }
        }
    }
}

/// Answers one client's lines until it hangs up, stays silent too long, or is closed to make
/// room for another. Returns the largest its request buffer grew.
async fn serve_client(
    stream: tokio::net::UnixStream,
    idle: IdleGuard,
    sessions: &Sessions,
    clients: &Rc<Clients>,
) -> usize {
    let (read, write) = stream.into_split();
    let mut lines = LineReader::new(read, MAX_REQUEST_BYTES);
    answer_lines(&mut lines, write, idle, sessions, clients).await;
    lines.peak
}

async fn answer_lines(
    lines: &mut LineReader,
    mut write: tokio::net::unix::OwnedWriteHalf,
    first: IdleGuard,
    sessions: &Sessions,
    clients: &Rc<Clients>,
) {
    let mut first = Some(first);
    loop {
        let line = {
            let idle = first.take().unwrap_or_else(|| clients.idle());
            tokio::select! {
                // A client that connects and says nothing does not hold the daemon up.
                line = tokio::time::timeout(CLIENT_SILENCE, lines.next_line()) => line,
                _ = idle.notify.notified() => return,
            }
        };
        let line = match line {
            Ok(Ok(Some(line))) => line,
            Ok(Err(e)) if e.kind() == std::io::ErrorKind::InvalidData => {
                let _ = send_line(&mut write, &invalid(e.to_string())).await;
                return;
            }
            _ => return,
        };
        let response = match serde_json::from_slice::<Message>(&line) {
            Ok(Message::Command(req)) => {
                drop(line);
                beating(&mut write, sessions.handle(req)).await
            }
            Ok(Message::Run(req)) => {
                drop(line);
                if serve_run(*req, sessions, lines, &mut write).await.is_err() {
                    break;
                }
                continue;
            }
            // Nothing of this client's is running any more.
            Ok(Message::Interrupt { .. }) => continue,
            // The position only: the line may hold a literal.
            Err(e) => invalid(format!(
                "not a session request (line {}, column {})",
                e.line(),
                e.column()
            )),
        };
        if send_line(&mut write, &response).await.is_err() {
            break;
        }
    }
}

fn invalid(message: String) -> Response {
    Response {
        ok: false,
        code: Some(error_codes::INVALID_REQUEST.into()),
        message: Some(message),
        ..Response::default()
    }
}

/// Awaits `work`, sending [`ALIVE`] every [`HEARTBEAT`] meanwhile (until the client has gone:
/// the work still ends as it would have).
async fn beating<T>(
    write: &mut tokio::net::unix::OwnedWriteHalf,
    work: impl std::future::Future<Output = T>,
) -> T {
    use tokio::io::AsyncWriteExt;
    tokio::pin!(work);
    let mut beat = tokio::time::interval_at(tokio::time::Instant::now() + HEARTBEAT, HEARTBEAT);
    let mut gone = false;
    loop {
        tokio::select! {
            out = &mut work => return out,
            _ = beat.tick(), if !gone => gone = write.write_all(ALIVE).await.is_err(),
        }
    }
}

async fn send_line(
    write: &mut tokio::net::unix::OwnedWriteHalf,
    value: &impl Serialize,
) -> std::io::Result<()> {
    use tokio::io::AsyncWriteExt;
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
    lines: &mut LineReader,
    write: &mut tokio::net::unix::OwnedWriteHalf,
) -> std::io::Result<()> {
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    let mut progress = Forward(tx);
    let stop = Arc::new(AtomicU8::new(0));
    let mut beat = tokio::time::interval_at(tokio::time::Instant::now() + HEARTBEAT, HEARTBEAT);
    let reply = {
        let run = crate::core::interrupt::scoped(stop.clone(), sessions.run(req, &mut progress));
        tokio::pin!(run);
        loop {
            tokio::select! {
                reply = &mut run => break reply,
                Some(event) = rx.recv() => send_line(write, &RunAnswer::Progress { event }).await?,
                _ = beat.tick() => {
                    use tokio::io::AsyncWriteExt;
                    write.write_all(ALIVE).await?;
                }
                line = lines.next_line() => match line {
                    Ok(Some(line)) => {
                        if let Ok(Message::Interrupt { signal }) = serde_json::from_slice(&line) {
                            crate::core::interrupt::request_on(&stop, &signal);
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

/// How long a client waits on the daemon: for its socket to accept, and for the next line of
/// an answer (a request at work sends [`ALIVE`] every [`HEARTBEAT`], so only a stuck daemon is
/// silent this long). `AD_SESSION_TIMEOUT_MS`, else 30 s.
pub fn client_timeout() -> Duration {
    std::env::var("AD_SESSION_TIMEOUT_MS")
        .ok()
        .and_then(|v| v.parse().ok())
        .filter(|&ms| ms > 0)
        .map(Duration::from_millis)
        .unwrap_or(Duration::from_secs(30))
}

/// How long a client waits for a daemon it started to listen.
const START_TIMEOUT: Duration = Duration::from_secs(10);

/// Connects to the Unix socket at `path`, waiting at most `timeout` for the listener to take
/// the connection (a daemon that stopped accepting fills its queue; a plain connect would then
/// wait forever). The timeout stays on the socket's writes.
fn connect_within(path: &Path, timeout: Duration) -> std::io::Result<UnixStream> {
    use std::os::unix::ffi::OsStrExt;
    let bytes = path.as_os_str().as_bytes();
    // SAFETY: an all-zero sockaddr_un is a valid value.
    let mut addr: libc::sockaddr_un = unsafe { std::mem::zeroed() };
    if bytes.len() >= addr.sun_path.len() || bytes.contains(&0) {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            format!(
                "{}: the path is too long for a socket; set AD_STATE_DIR to a shorter one",
                path.display()
            ),
        ));
    }
    addr.sun_family = libc::AF_UNIX as libc::sa_family_t;
    for (d, s) in addr.sun_path.iter_mut().zip(bytes) {
        *d = *s as libc::c_char;
    }
    // SAFETY: plain socket creation; the descriptor is owned by the stream right away.
    let fd = unsafe { libc::socket(libc::AF_UNIX, libc::SOCK_STREAM | libc::SOCK_CLOEXEC, 0) };
    if fd < 0 {
        return Err(std::io::Error::last_os_error());
    }
    let stream = unsafe { UnixStream::from_raw_fd(fd) };
    // SO_SNDTIMEO also bounds how long Linux waits for room in the listener's queue.
    stream.set_write_timeout(Some(timeout))?;
    let len = std::mem::size_of::<libc::sa_family_t>() + bytes.len() + 1;
    // SAFETY: `addr` is a valid sockaddr_un of at least `len` bytes.
    let rc = unsafe {
        libc::connect(
            fd,
            (&addr as *const libc::sockaddr_un).cast(),
            len as libc::socklen_t,
        )
    };
    if rc != 0 {
        let e = std::io::Error::last_os_error();
        if e.raw_os_error() == Some(libc::EAGAIN) {
            return Err(std::io::Error::new(
                std::io::ErrorKind::TimedOut,
                format!(
                    "the session daemon on {} did not take the connection within {} s",
                    path.display(),
                    timeout.as_secs_f64()
                ),
            ));
        }
        return Err(e);
    }
    Ok(stream)
}

/// A connection to the daemon of `state_dir`, starting it with `start` (which spawns the
/// daemon process) when none answers.
pub struct Client {
    stream: BufReader<UnixStream>,
    sock: PathBuf,
    /// The daemon's process (its `SO_PEERCRED`), for the error that says how to stop it.
    pid: i32,
    timeout: Duration,
}

impl Client {
    /// Connects to this user's daemon for `state_dir`, starting one when none listens. Refused
    /// (`PermissionDenied`, naming the path and why) when the state folder or the socket is not
    /// this user's alone, or when the process listening runs as another user.
    pub fn connect(
        state_dir: &Path,
        start: impl FnOnce() -> std::io::Result<()>,
    ) -> std::io::Result<Client> {
        Client::connect_timeout(state_dir, start, client_timeout())
    }

    /// [`Client::connect`] with the given [`client_timeout`].
    fn connect_timeout(
        state_dir: &Path,
        start: impl FnOnce() -> std::io::Result<()>,
        timeout: Duration,
    ) -> std::io::Result<Client> {
        private_dir(state_dir)?;
        let sock = socket_path(state_dir);
        if let Some(c) = Client::attempt(&sock, timeout)? {
            return Ok(c);
        }
        start()?;
        let deadline = Instant::now() + START_TIMEOUT;
        loop {
            if let Some(c) = Client::attempt(&sock, timeout)? {
                return Ok(c);
            }
            if Instant::now() >= deadline {
                return Err(std::io::Error::new(
                    std::io::ErrorKind::TimedOut,
                    format!(
                        "the session daemon it started did not listen on {} within {} s; see {}",
                        sock.display(),
                        START_TIMEOUT.as_secs(),
                        state_dir.join("daemon.log").display()
                    ),
                ));
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// The daemon listening on `sock`, if one does (`None`: no socket, or a stale one).
    fn attempt(sock: &Path, timeout: Duration) -> std::io::Result<Option<Client>> {
        match std::fs::symlink_metadata(sock) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(e),
            Ok(_) => check_socket(sock)?,
        }
        let stream = match connect_within(sock, timeout) {
            Ok(s) => s,
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::ConnectionRefused | std::io::ErrorKind::NotFound
                ) =>
            {
                return Ok(None)
            }
            Err(e) => return Err(e),
        };
        let who = format!("the process listening on {}", sock.display());
        let pid = check_peer(&stream, crate::session::current_uid(), &who)?;
        // Short reads: a run polls for a Ctrl-C to forward between them.
        stream.set_read_timeout(Some(Duration::from_millis(100).min(timeout)))?;
        Ok(Some(Client {
            stream: BufReader::new(stream),
            sock: sock.to_path_buf(),
            pid,
            timeout,
        }))
    }

    /// The error for a daemon that has said nothing for the timeout.
    fn stalled(&self) -> std::io::Error {
        std::io::Error::new(
            std::io::ErrorKind::TimedOut,
            format!(
                "the session daemon (pid {pid}, {sock}) has not answered for {secs} s and may be stuck: stop it with `kill {pid}` and retry (the next `ad session` command or close-less `ad run` starts a new one), or give it longer with AD_SESSION_TIMEOUT_MS",
                pid = self.pid,
                sock = self.sock.display(),
                secs = self.timeout.as_secs_f64()
            ),
        )
    }

    fn write_line(&mut self, message: &Message) -> std::io::Result<()> {
        let mut line = serde_json::to_vec(message)?;
        line.push(b'\n');
        if line.len() > MAX_REQUEST_BYTES {
            return Err(std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                format!(
                    "the request is {} bytes, over the session daemon's {MAX_REQUEST_BYTES}-byte limit (a close-less run carries its script): end the script with `close` to run it outside the daemon",
                    line.len()
                ),
            ));
        }
        match self.stream.get_mut().write_all(&line) {
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                ) =>
            {
                Err(self.stalled())
            }
            other => other,
        }
    }

    /// The next line of the answer that is not a heartbeat. `idle` runs whenever the daemon has
    /// been silent for a poll (100 ms); silence for the whole timeout is an error.
    fn next_line(
        &mut self,
        idle: &mut dyn FnMut(&mut Client) -> std::io::Result<()>,
    ) -> std::io::Result<Vec<u8>> {
        let mut buf = Vec::new();
        let mut heard = Instant::now();
        loop {
            let before = buf.len();
            match self.stream.read_until(b'\n', &mut buf) {
                Ok(_) if buf.ends_with(b"\n") => {
                    if buf == ALIVE {
                        heard = Instant::now();
                        buf.clear();
                        continue;
                    }
                    return Ok(buf);
                }
                Ok(_) => {
                    return Err(std::io::Error::new(
                        std::io::ErrorKind::UnexpectedEof,
                        format!(
                            "the session daemon (pid {}) closed the connection before it answered",
                            self.pid
                        ),
                    ))
                }
                Err(e)
                    if matches!(
                        e.kind(),
                        std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                    ) =>
                {
                    if buf.len() > before {
                        heard = Instant::now();
                    } else if heard.elapsed() >= self.timeout {
                        return Err(self.stalled());
                    }
                    idle(self)?;
                }
                Err(e) => return Err(e),
            }
        }
    }

    /// Sends a run and reads its progress (handed to `on_event`) until its reply. While it
    /// waits, a stop this process was asked for ([`crate::core::interrupt::requested`]) is forwarded
    /// once, so the run still ends at a step boundary with its journal written.
    pub fn run(
        &mut self,
        req: RunRequest,
        mut on_event: impl FnMut(RunEvent),
    ) -> std::io::Result<Result<RunReply, String>> {
        self.write_line(&Message::Run(Box::new(req)))?;
        let mut forwarded = false;
        let mut forward = |c: &mut Client| {
            if let Some(signal) = crate::core::interrupt::requested().filter(|_| !forwarded) {
                forwarded = true;
                c.write_line(&Message::Interrupt {
                    signal: signal.into(),
                })?;
            }
            Ok(())
        };
        loop {
            let line = self.next_line(&mut forward)?;
            let answer: RunAnswer = serde_json::from_slice(&line).map_err(|e| {
                std::io::Error::new(
                    std::io::ErrorKind::InvalidData,
                    format!("the session daemon answered something else: {e}"),
                )
            })?;
            match answer {
                RunAnswer::Progress { event } => on_event(event),
                RunAnswer::Done { reply } => return Ok(*reply),
                RunAnswer::Alive => {}
            }
        }
    }

    /// Sends one message and reads its answer.
    pub fn send(&mut self, message: &Message) -> std::io::Result<Response> {
        self.write_line(message)?;
        let answer = self.next_line(&mut |_| Ok(()))?;
        serde_json::from_slice(&answer).map_err(|e| {
            std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                format!("the session daemon answered something else: {e}"),
            )
        })
    }
}

/// Reads the script of `ad session replay` through the reader `ad run` uses
/// ([`ad_compiler::input_file`]), at the cap that applies to it (`[input] max-file-size` of its
/// `ad.toml`, else agent-device's 2 MiB: AD006 beyond), decoded as agent-device decodes it, and
/// analyses it. A regular file only (a FIFO or a device is refused before it is opened): the
/// daemon reads it, not the client's shell. Both on the blocking pool ([`off_thread`]).
pub(crate) async fn read_script(path: PathBuf) -> Result<ad_compiler::Analysis, String> {
    off_thread(move || {
        read_script_now(&path)
            .map(|text| ad_compiler::analyze_owned(text, &ad_compiler::config::Config::default()))
    })
    .await
}

/// Runs `work` on the blocking pool: the daemon's one thread never waits on a client's file,
/// nor on the analysis of a large script, while other clients wait for their answers.
pub(crate) async fn off_thread<T: Send + 'static>(work: impl FnOnce() -> T + Send + 'static) -> T {
    match tokio::task::spawn_blocking(work).await {
        Ok(out) => out,
        Err(e) => std::panic::resume_unwind(e.into_panic()),
    }
}

fn read_script_now(path: &Path) -> Result<String, String> {
    use ad_compiler::input_file::{self, Accept, ReadError};
    let name = path.display().to_string();
    let limit = ad_compiler::config::Config::discover(path)
        .map_err(|e| e.0)?
        .max_file_size
        .unwrap_or(ad_grammar::input::AGENT_DEVICE_MAX_BYTES);
    match input_file::read(path, limit, Accept::RegularFile) {
        Ok(bytes) => Ok(ad_grammar::input::decode(bytes).text),
        Err(ReadError::TooLarge { size, limit }) => {
            let d = ad_grammar::input::refused_too_large(&name, size, limit);
            Err(format!("{name}: {} ({})", d.message, d.code))
        }
        Err(ReadError::NotRegular(kind)) => Err(format!(
            "{name}: {kind}, not read: `ad session replay` reads a script from a regular file"
        )),
        Err(e) => Err(format!("cannot read {name}: {e}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::session::{check_private, current_uid};
    use std::io::Read;
    use std::os::unix::net::UnixListener;

    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("ad-daemon-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    fn mode(p: &Path) -> u32 {
        std::fs::metadata(p).unwrap().permissions().mode() & 0o7777
    }

    fn chmod(p: &Path, mode: u32) {
        std::fs::set_permissions(p, std::fs::Permissions::from_mode(mode)).unwrap();
    }

    fn list() -> Message {
        Message::Command(Request {
            session: "default".into(),
            words: vec!["list".into()],
            ..Request::default()
        })
    }

    /// A daemon for `state` on a thread of its own, keeping at most `cap` connections; it exits
    /// once idle (no client, no session) for a second.
    fn daemon(state: &Path, cap: usize) -> std::thread::JoinHandle<std::io::Result<()>> {
        let st = state.to_path_buf();
        let server =
            std::thread::spawn(move || serve_with(&st, Duration::from_millis(1000), cap, || {}));
        let deadline = Instant::now() + Duration::from_secs(10);
        while UnixStream::connect(socket_path(state)).is_err() {
            assert!(Instant::now() < deadline, "the daemon did not listen");
            std::thread::sleep(Duration::from_millis(10));
        }
        server
    }

    /// Issue 29, item 7: an existing folder others can write (`AD_STATE_DIR=shared` on a 1777
    /// folder) is refused, by the client and by the daemon, and keeps its mode; a folder `ad`
    /// makes is 0700, and an existing private one is used as it is.
    #[test]
    fn an_existing_state_folder_others_can_write_is_refused_and_never_changed() {
        let root = scratch("shared");
        let shared = root.join("shared");
        std::fs::create_dir(&shared).unwrap();
        for (m, who) in [(0o1777, "others"), (0o770, "its group")] {
            chmod(&shared, m);
            let e = Client::connect(&shared, || panic!("no daemon is started there"))
                .err()
                .unwrap();
            assert_eq!(e.kind(), std::io::ErrorKind::PermissionDenied, "{e}");
            let msg = e.to_string();
            assert!(
                msg.contains(&shared.display().to_string())
                    && msg.contains(&format!("writable by {who}"))
                    && msg.contains("AD_STATE_DIR"),
                "{msg}"
            );
            let e = serve(&shared, Duration::from_millis(10)).unwrap_err();
            assert_eq!(e.kind(), std::io::ErrorKind::PermissionDenied, "{e}");
            assert_eq!(mode(&shared), m, "the folder's mode is left as it was");
            assert!(!socket_path(&shared).exists());
        }
        let new = root.join("a/b/state");
        private_dir(&new).unwrap();
        assert_eq!(mode(&new), 0o700);
        let mine = root.join("mine");
        std::fs::create_dir(&mine).unwrap();
        chmod(&mine, 0o755);
        private_dir(&mine).unwrap();
        assert_eq!(mode(&mine), 0o755, "an existing folder is never changed");
        let _ = std::fs::remove_dir_all(&root);
    }

    /// Issue 29, item 6: a state folder, socket or link owned by another user is refused (the
    /// rule, judged against another user id than this test's).
    #[test]
    fn a_folder_or_socket_of_another_user_is_refused() {
        let root = scratch("owner");
        let me = current_uid();
        let other = me.wrapping_add(1);
        let e = check_private(&root, "folder", other).unwrap_err();
        assert_eq!(e.kind(), std::io::ErrorKind::PermissionDenied);
        assert!(
            e.to_string().contains(&format!(
                "this folder is owned by user {me}, not by you (user {other})"
            )),
            "{e}"
        );
        let sock = socket_path(&root);
        let _listener = UnixListener::bind(&sock).unwrap();
        let e = check_private(&sock, "socket", other).unwrap_err();
        assert!(
            e.to_string().contains("this socket is owned by user"),
            "{e}"
        );
        check_private(&sock, "socket", me).unwrap();
        let link = root.join("link");
        std::os::unix::fs::symlink(&root, &link).unwrap();
        check_private(&link, "folder", me).unwrap();
        let _ = std::fs::remove_dir_all(&root);
    }

    /// Issue 29, item 6: a socket others can write is refused before anything connects to it.
    #[test]
    fn a_socket_others_can_write_is_refused_before_connecting() {
        let state = scratch("sockmode");
        chmod(&state, 0o700);
        let sock = socket_path(&state);
        let listener = UnixListener::bind(&sock).unwrap();
        chmod(&sock, 0o666);
        let e = Client::connect(&state, || panic!("no daemon is started"))
            .err()
            .unwrap();
        assert_eq!(e.kind(), std::io::ErrorKind::PermissionDenied, "{e}");
        assert!(
            e.to_string().contains("daemon.sock") && e.to_string().contains("writable by others"),
            "{e}"
        );
        listener.set_nonblocking(true).unwrap();
        assert_eq!(
            listener.accept().unwrap_err().kind(),
            std::io::ErrorKind::WouldBlock,
            "nothing connected"
        );
        let _ = std::fs::remove_dir_all(&state);
    }

    /// Issue 29, item 6: each end of the socket learns the other's user id (`SO_PEERCRED`) and
    /// refuses another user's process.
    #[test]
    fn each_end_checks_the_other_is_this_user() {
        let (a, b) = UnixStream::pair().unwrap();
        let me = current_uid();
        assert_eq!(
            check_peer(&a, me, "the client").unwrap(),
            std::process::id() as i32
        );
        let e = check_peer(&b, me.wrapping_add(1), "the process listening on S").unwrap_err();
        assert_eq!(e.kind(), std::io::ErrorKind::PermissionDenied);
        assert!(
            e.to_string().contains(&format!(
                "the process listening on S (pid {}) runs as user {me}, not as you (user {})",
                std::process::id(),
                me.wrapping_add(1)
            )),
            "{e}"
        );
    }

    /// Issue 29, item 13: a daemon that takes the connection but never answers is reported
    /// after the client's timeout, naming its process and how to stop it; heartbeats are
    /// skipped and the answer after them is read.
    #[test]
    fn a_silent_daemon_times_out_and_heartbeats_are_skipped() {
        let state = scratch("silent");
        chmod(&state, 0o700);
        let listener = UnixListener::bind(socket_path(&state)).unwrap();
        chmod(&socket_path(&state), 0o600);
        let (done, wait) = std::sync::mpsc::channel::<()>();
        let fake = std::thread::spawn(move || {
            let (silent, _) = listener.accept().unwrap();
            let (mut beating, _) = listener.accept().unwrap();
            let mut line = String::new();
            BufReader::new(beating.try_clone().unwrap())
                .read_line(&mut line)
                .unwrap();
            for _ in 0..3 {
                beating.write_all(ALIVE).unwrap();
            }
            beating
                .write_all(b"{\"ok\":true,\"session\":\"default\",\"command\":\"list\",\"sessionActive\":false,\"sessions\":[]}\n")
                .unwrap();
            let _ = wait.recv();
            drop(silent);
        });
        let timeout = Duration::from_millis(200);
        let mut c = Client::connect_timeout(&state, || Ok(()), timeout).unwrap();
        let e = c.send(&list()).unwrap_err();
        assert_eq!(e.kind(), std::io::ErrorKind::TimedOut);
        let msg = e.to_string();
        let pid = std::process::id();
        assert!(
            msg.contains(&format!("the session daemon (pid {pid}"))
                && msg.contains("has not answered for 0.2 s")
                && msg.contains(&format!("`kill {pid}`"))
                && msg.contains("AD_SESSION_TIMEOUT_MS"),
            "{msg}"
        );
        let mut c = Client::connect_timeout(&state, || Ok(()), Duration::from_secs(30)).unwrap();
        let r = c.send(&list()).unwrap();
        assert!(r.ok && r.sessions == Some(vec![]), "{r:?}");
        done.send(()).unwrap();
        fake.join().unwrap();
        let _ = std::fs::remove_dir_all(&state);
    }

    /// Issue 29, item 13: request lines are read through the limit; a longer one is refused
    /// without being kept.
    #[test]
    fn request_lines_are_read_through_the_limit() {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        rt.block_on(async {
            use tokio::io::AsyncWriteExt;
            let (a, mut b) = tokio::net::UnixStream::pair().unwrap();
            let (read, _write) = a.into_split();
            let mut lines = LineReader::new(read, 1000);
            b.write_all(b"one\ntwo\n").await.unwrap();
            assert_eq!(lines.next_line().await.unwrap().unwrap(), b"one");
            assert_eq!(lines.next_line().await.unwrap().unwrap(), b"two");
            b.write_all(&[b'x'; 3000]).await.unwrap();
            let e = lines.next_line().await.unwrap_err();
            assert_eq!(e.kind(), std::io::ErrorKind::InvalidData);
            assert!(e.to_string().contains("1000-byte limit"), "{e}");
            assert_eq!(lines.buf.capacity(), 0, "nothing of it is kept");
            let (a, mut b) = tokio::net::UnixStream::pair().unwrap();
            let mut lines = LineReader::new(a.into_split().0, 1000);
            b.write_all(b"last").await.unwrap();
            b.shutdown().await.unwrap();
            assert_eq!(lines.next_line().await.unwrap().unwrap(), b"last");
            assert!(lines.next_line().await.unwrap().is_none());
        });
    }

    /// Issue 29, item 13: a request line over [`MAX_REQUEST_BYTES`] is answered with a refusal
    /// and its connection closed, and the daemon goes on serving.
    #[test]
    fn an_over_long_request_is_refused_and_the_daemon_still_serves() {
        let state = scratch("long");
        let server = daemon(&state, MAX_CLIENTS);
        // A client that stays connected keeps the daemon from going idle meanwhile.
        let hold = UnixStream::connect(socket_path(&state)).unwrap();
        let raw = UnixStream::connect(socket_path(&state)).unwrap();
        let writer = raw.try_clone().unwrap();
        let sent = std::thread::spawn(move || {
            let chunk = vec![b'x'; 1 << 20];
            let mut w = writer;
            for _ in 0..(MAX_REQUEST_BYTES >> 20) + 2 {
                if w.write_all(&chunk).is_err() {
                    break;
                }
            }
        });
        // The answer line, then the connection is closed (reset: the rest was never read).
        let mut answer = String::new();
        BufReader::new(&raw).read_line(&mut answer).unwrap();
        sent.join().unwrap();
        assert!(
            answer.contains(error_codes::INVALID_REQUEST)
                && answer.contains(&format!("{MAX_REQUEST_BYTES}-byte limit")),
            "{answer}"
        );
        let mut c = Client::connect(&state, || Ok(())).unwrap();
        assert!(c.send(&list()).unwrap().ok);
        drop((c, raw, hold));
        server.join().unwrap().unwrap();
        let _ = std::fs::remove_dir_all(&state);
    }

    /// Issue 29, item 13: idle connections past the cap make room (the longest-idle closed),
    /// so `list` is still answered; at the size (20,000 connections against a cap of
    /// 1,024) the same rule holds, measured by hand.
    #[test]
    fn idle_connections_past_the_cap_make_room_for_a_request() {
        let state = scratch("idle");
        let cap = 32;
        let n = 400;
        let server = daemon(&state, cap);
        let idle: Vec<UnixStream> = (0..n)
            .map(|_| UnixStream::connect(socket_path(&state)).unwrap())
            .collect();
        let mut c = Client::connect(&state, || Ok(())).unwrap();
        assert!(c.send(&list()).unwrap().ok);
        // All but the newest `cap` of them are closed by the daemon.
        for s in &idle {
            s.set_nonblocking(true).unwrap();
        }
        let deadline = Instant::now() + Duration::from_secs(20);
        let closed = loop {
            let closed = idle
                .iter()
                .filter(|s| matches!((&**s).read(&mut [0u8; 1]), Ok(0)))
                .count();
            if closed >= n - cap || Instant::now() > deadline {
                break closed;
            }
            std::thread::sleep(Duration::from_millis(20));
        };
        assert!(closed >= n - cap, "{closed} of {n} idle connections closed");
        assert!(closed < n, "the newest idle connections are kept");
        drop((c, idle));
        server.join().unwrap().unwrap();
        let _ = std::fs::remove_dir_all(&state);
    }

    /// A script of `n` steps on the shop app whose steps the sim answers at once.
    fn long_script(n: usize) -> String {
        format!("open com.example.shop\n{}", "wait 1\n".repeat(n - 1))
    }

    fn shop() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/apps/shop.json")
    }

    /// Runs `a` and, beside it on the same thread, a task that looks at `progress` (how far
    /// `a` got, of `total`) each time it is polled: true when it saw `a` midway.
    fn seen_midway(
        a: impl std::future::Future<Output = ()> + 'static,
        progress: impl Fn() -> usize + 'static,
        total: usize,
    ) -> bool {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        let local = tokio::task::LocalSet::new();
        local.block_on(&rt, async move {
            let done = Rc::new(Cell::new(false));
            let d = done.clone();
            let run = tokio::task::spawn_local(async move {
                a.await;
                d.set(true);
            });
            let watch = tokio::task::spawn_local(async move {
                let mut midway = false;
                while !done.get() {
                    let n = progress();
                    midway |= n > 0 && n < total;
                    tokio::task::yield_now().await;
                }
                midway
            });
            run.await.unwrap();
            watch.await.unwrap()
        })
    }

    /// Issue 29, item 13: a long run on a backend that answers at once (the sim) yields
    /// between steps, so the daemon's other clients (`list`, another session's `snapshot`)
    /// are served while it runs. (The 200,000 steps held them about 5 s; measured by
    /// hand.)
    #[test]
    fn a_long_run_lets_the_daemons_other_tasks_run_between_its_steps() {
        let n = 2_000;
        let done = Rc::new(Cell::new(0usize));
        struct Count(Rc<Cell<usize>>);
        impl crate::core::interp::Progress for Count {
            fn step_end(
                &mut self,
                _: &crate::core::interp::StepInfo,
                _: &crate::core::interp::StepEnd,
            ) {
                self.0.set(self.0.get() + 1);
            }
        }
        let counted = done.clone();
        let run = async move {
            let text = long_script(n);
            let analysis = ad_compiler::analyze(&text);
            let plan = crate::core::interp::Plan {
                steps: analysis.steps(),
                metadata: analysis.metadata(),
            };
            let model = crate::backends::sim::AppModel::load(&shop()).unwrap();
            let mut sim = crate::backends::sim::Sim::with_model(model);
            let mut journal = crate::core::journal::Journal::memory("long");
            let opts = crate::core::interp::RunOptions {
                session: "long".into(),
                ..crate::core::interp::RunOptions::default()
            };
            let r =
                crate::core::interp::run(&plan, &mut sim, &mut journal, &mut Count(counted), &opts)
                    .await;
            assert!(r.error.is_none(), "{:?}", r.error);
            assert_eq!(r.replayed, n);
        };
        assert!(seen_midway(run, move || done.get(), n));
    }

    /// The same for `ad session replay`: its steps yield to the daemon's other clients.
    #[test]
    fn a_long_replay_lets_the_daemons_other_tasks_run_between_its_steps() {
        let dir = scratch("yield");
        std::fs::write(dir.join(".git"), "").unwrap();
        let n = 2_000;
        std::fs::write(dir.join("long.ad"), long_script(n)).unwrap();
        let state = dir.join("state");
        let sessions = Sessions::new(state.clone());
        let req = Request {
            session: "long".into(),
            words: ["replay", "long.ad", "--app", shop().to_str().unwrap()]
                .map(String::from)
                .to_vec(),
            cwd: dir.clone(),
            ..Request::default()
        };
        let replay = async move {
            let r = sessions.handle(req).await;
            assert!(r.ok, "{r:?}");
            assert_eq!(r.replayed, Some(n));
            sessions.shutdown().await;
        };
        // How far the replay got: the step ends its session's journal holds.
        let progress = move || {
            std::fs::read_dir(state.join("journals"))
                .into_iter()
                .flatten()
                .flatten()
                .map(|run| {
                    std::fs::read_to_string(run.path().join("events.jsonl"))
                        .unwrap_or_default()
                        .matches("\"step_end\"")
                        .count()
                })
                .sum()
        };
        assert!(seen_midway(replay, progress, n));
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// Issue 29, item 13: `ad session replay` reads a script as `ad run` does: a FIFO or a
    /// device is refused without blocking, a script over the cap with AD006, and the cap is
    /// the one its `ad.toml` sets.
    #[test]
    fn replay_reads_a_regular_file_through_the_cap() {
        let dir = scratch("replay-read");
        // The project's root: no ad.toml above it applies.
        std::fs::write(dir.join(".git"), "").unwrap();
        let fifo = dir.join("fifo.ad");
        let c = std::ffi::CString::new(fifo.as_os_str().as_encoded_bytes()).unwrap();
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        // No writer ever opens it: a blocking open would hang here.
        let e = read_script_now(&fifo).unwrap_err();
        assert!(e.contains("a FIFO, not read"), "{e}");
        let zero = dir.join("zero.ad");
        std::os::unix::fs::symlink("/dev/zero", &zero).unwrap();
        let e = read_script_now(&zero).unwrap_err();
        assert!(e.contains("a device, not read"), "{e}");
        let big = dir.join("big.ad");
        let text = "wait 1\n".repeat(450_000);
        std::fs::write(&big, &text).unwrap();
        let e = read_script_now(&big).unwrap_err();
        assert!(
            e.contains("2097152-byte limit") && e.contains("AD006"),
            "{e}"
        );
        std::fs::write(dir.join("ad.toml"), "[input]\nmax-file-size = 4194304\n").unwrap();
        assert_eq!(read_script_now(&big).unwrap(), text);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
