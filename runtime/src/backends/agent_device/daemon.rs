//! Finding or starting the agent-device daemon.
//!
//! - Attach: `daemon.json` in the state dir (`$AGENT_DEVICE_STATE_DIR`, default
//!   `~/.agent-device`) names its ports, transport and token; it is used when it answers.
//! - Remote: `AGENT_DEVICE_DAEMON_BASE_URL` (+ `AGENT_DEVICE_DAEMON_AUTH_TOKEN`), HTTP only.
//! - Start: otherwise `ad` starts one with a state dir of its own and stops it afterwards. The
//!   daemon runs under a small `sh` guard in a process group of its own; the guard gets SIGTERM
//!   when `ad` dies (`PR_SET_PDEATHSIG`, even on `kill -9`) and then kills the whole group, so
//!   neither the daemon nor an app it launched outlives `ad`.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use super::client::{Client, Endpoint, Secret};
use super::http::HttpUrl;
use super::install::Install;
use crate::core::environment::Environment;

/// What `daemon.json` says.
#[derive(Debug, Clone, PartialEq)]
pub struct DaemonInfo {
    pub port: Option<u16>,
    pub http_port: Option<u16>,
    pub transport: String,
    pub token: Secret,
    pub pid: u32,
    pub version: Option<String>,
}

impl DaemonInfo {
    pub fn read(state_dir: &Path) -> Option<DaemonInfo> {
        let text = std::fs::read_to_string(state_dir.join("daemon.json")).ok()?;
        let v: Value = serde_json::from_str(&text).ok()?;
        let port = |k: &str| {
            v.get(k)
                .and_then(Value::as_u64)
                .and_then(|p| u16::try_from(p).ok())
                .filter(|p| *p > 0)
        };
        let token = v
            .get("token")
            .and_then(Value::as_str)
            .filter(|t| !t.is_empty())?;
        let info = DaemonInfo {
            port: port("port"),
            http_port: port("httpPort"),
            transport: v
                .get("transport")
                .and_then(Value::as_str)
                .unwrap_or("socket")
                .to_string(),
            token: Secret::new(token),
            pid: v.get("pid").and_then(Value::as_u64).unwrap_or(0) as u32,
            version: v.get("version").and_then(Value::as_str).map(str::to_string),
        };
        (info.port.is_some() || info.http_port.is_some()).then_some(info)
    }

    /// The loopback endpoint to use: the socket when there is one (agent-device's own
    /// preference for `socket` and `dual` daemons), else HTTP.
    pub fn endpoint(&self, prefer_http: bool) -> Endpoint {
        match (self.port, self.http_port) {
            (_, Some(h)) if prefer_http || self.transport == "http" => {
                Endpoint::LocalHttp { port: h }
            }
            (Some(p), _) => Endpoint::Socket { port: p },
            (None, Some(h)) => Endpoint::LocalHttp { port: h },
            (None, None) => Endpoint::Socket { port: 0 },
        }
    }
}

/// `$AGENT_DEVICE_STATE_DIR`, else `~/.agent-device`, as `env` has them.
pub fn default_state_dir(env: &Environment) -> PathBuf {
    if let Some(d) = env
        .var_os("AGENT_DEVICE_STATE_DIR")
        .filter(|v| !v.is_empty())
    {
        return PathBuf::from(d);
    }
    env.var_os("HOME")
        .map(PathBuf::from)
        .unwrap_or_else(|| env.temp_dir())
        .join(".agent-device")
}

/// `AGENT_DEVICE_DAEMON_BASE_URL` and its token, when set. A non-loopback URL needs a token
/// (agent-device refuses it otherwise, and so do we).
pub fn remote_from_env() -> Result<Option<(Endpoint, Secret)>, String> {
    remote_from(
        std::env::var("AGENT_DEVICE_DAEMON_BASE_URL").ok(),
        std::env::var("AGENT_DEVICE_DAEMON_AUTH_TOKEN").ok(),
    )
}

/// [`remote_from_env`] on given values.
pub fn remote_from(
    url: Option<String>,
    token: Option<String>,
) -> Result<Option<(Endpoint, Secret)>, String> {
    let Some(url) = url.filter(|v| !v.trim().is_empty()) else {
        return Ok(None);
    };
    let parsed = HttpUrl::parse(url.trim())?;
    let token = Secret::new(token.unwrap_or_default());
    if token.is_empty() && !parsed.is_loopback() {
        return Err(format!(
            "AGENT_DEVICE_DAEMON_BASE_URL points at a non-loopback host ({}) but AGENT_DEVICE_DAEMON_AUTH_TOKEN is unset",
            parsed.host
        ));
    }
    Ok(Some((Endpoint::Remote { url: parsed }, token)))
}

/// A daemon `ad` started: stopped (with everything in its process group) when dropped.
#[derive(Debug)]
pub struct OwnedDaemon {
    guard: Child,
    /// The guard's process group (its pid).
    pgid: i32,
    pub state_dir: PathBuf,
}

/// The guard script: the daemon runs in the background so the shell can act on signals; on
/// TERM/INT/HUP (the parent-death signal included) it kills its whole process group.
const GUARD: &str = r#"trap 'trap - TERM; kill -KILL 0' TERM INT HUP; "$0" "$@" & wait $!"#;

impl OwnedDaemon {
    /// Starts a daemon with a fresh state dir, in `env` (the apps it opens get it too), and
    /// waits until it answers (15 s at most, as agent-device's own client does).
    pub async fn start(
        install: &Install,
        transport: &str,
        env: &Environment,
    ) -> Result<(OwnedDaemon, DaemonInfo), String> {
        let state_dir = fresh_state_dir(&env.temp_dir())?;
        let log = std::fs::File::create(state_dir.join("daemon.log"))
            .map_err(|e| format!("{}: {e}", state_dir.display()))?;
        let log2 = log.try_clone().map_err(|e| e.to_string())?;
        let mut cmd = Command::new("/bin/sh");
        env.apply(&mut cmd);
        cmd.arg("-c")
            .arg(GUARD)
            .arg(&install.node)
            .arg(install.daemon_entry())
            .env("AGENT_DEVICE_STATE_DIR", &state_dir)
            .env("AGENT_DEVICE_DAEMON_SERVER_MODE", transport)
            .stdin(Stdio::null())
            .stdout(log)
            .stderr(log2);
        guard_against_orphans(&mut cmd);
        let guard = cmd
            .spawn()
            .map_err(|e| format!("cannot start the agent-device daemon: {e}"))?;
        let pgid = guard.id() as i32;
        let mut owned = OwnedDaemon {
            guard,
            pgid,
            state_dir,
        };
        let deadline = Instant::now() + Duration::from_secs(15);
        loop {
            if let Ok(Some(status)) = owned.guard.try_wait() {
                let tail = owned.log_tail();
                return Err(format!(
                    "the agent-device daemon exited before it was ready ({status}){tail}"
                ));
            }
            if let Some(info) = DaemonInfo::read(&owned.state_dir) {
                let client = Client::new(info.endpoint(false), info.token.clone(), "probe");
                if client.reachable().await {
                    return Ok((owned, info));
                }
            }
            if Instant::now() > deadline {
                let tail = owned.log_tail();
                return Err(format!(
                    "the agent-device daemon did not become ready within 15 s{tail}"
                ));
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    fn log_tail(&self) -> String {
        let text = std::fs::read_to_string(self.state_dir.join("daemon.log")).unwrap_or_default();
        let lines: Vec<&str> = text.lines().rev().take(8).collect();
        if lines.is_empty() {
            String::new()
        } else {
            let mut l = lines;
            l.reverse();
            format!(": {}", l.join(" | "))
        }
    }

    /// The guard's pid (the process group of the daemon and what it launched).
    pub fn pgid(&self) -> i32 {
        self.pgid
    }

    /// Stops the daemon and everything it launched, then removes its state dir.
    pub fn stop(&mut self) {
        #[cfg(unix)]
        unsafe {
            // SAFETY: plain syscalls on a process group this process created.
            libc::kill(-self.pgid, libc::SIGTERM);
        }
        let deadline = Instant::now() + Duration::from_secs(3);
        while Instant::now() < deadline {
            if matches!(self.guard.try_wait(), Ok(Some(_))) && !group_alive(self.pgid) {
                break;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        #[cfg(unix)]
        unsafe {
            // SAFETY: as above; whatever ignored SIGTERM goes now.
            libc::kill(-self.pgid, libc::SIGKILL);
        }
        let _ = self.guard.wait();
        let _ = std::fs::remove_dir_all(&self.state_dir);
    }
}

impl Drop for OwnedDaemon {
    fn drop(&mut self) {
        self.stop();
    }
}

/// Does any process of the group still run? A zombie does not: the guard is reaped by `ad`, but
/// the daemon and the apps it launched are orphaned when the guard dies and wait for PID 1 to
/// reap them, which some inits do only every few seconds (`kill(-pgid, 0)` still finds them
/// then, and `ad` used to wait up to 3 s at every exit for a group that was already dead).
fn group_alive(pgid: i32) -> bool {
    #[cfg(unix)]
    // SAFETY: signal 0 only checks for existence.
    let exists = unsafe { libc::kill(-pgid, 0) } == 0;
    #[cfg(not(unix))]
    let exists = false;
    #[cfg(target_os = "linux")]
    if exists {
        if let Some(running) = group_runs_on_linux(pgid) {
            return running;
        }
    }
    exists
}

/// Whether a process of group `pgid` that is not a zombie is listed in `/proc`; `None` when
/// `/proc` cannot be read.
#[cfg(target_os = "linux")]
fn group_runs_on_linux(pgid: i32) -> Option<bool> {
    let entries = std::fs::read_dir("/proc").ok()?;
    Some(entries.flatten().any(|e| {
        e.file_name()
            .to_str()
            .is_some_and(|n| n.parse::<u32>().is_ok())
            && std::fs::read_to_string(e.path().join("stat"))
                .is_ok_and(|stat| running_member(&stat, pgid))
    }))
}

/// A `/proc/<pid>/stat` line of a process in group `pgid` that is not a zombie (nor dead).
fn running_member(stat: &str, pgid: i32) -> bool {
    // After the command name (which may hold spaces and parentheses): state, ppid, pgrp.
    let Some((_, rest)) = stat.rsplit_once(')') else {
        return false;
    };
    let mut fields = rest.split_whitespace();
    let state = fields.next().unwrap_or("Z");
    let pgrp = fields.nth(1).and_then(|g| g.parse::<i32>().ok());
    pgrp == Some(pgid) && !matches!(state, "Z" | "X" | "x")
}

/// The child gets a process group of its own and SIGTERM when `ad` dies.
fn guard_against_orphans(cmd: &mut Command) {
    #[cfg(target_os = "linux")]
    {
        use std::os::unix::process::CommandExt;
        let parent = std::process::id() as i32;
        unsafe {
            // SAFETY: only async-signal-safe calls between fork and exec.
            cmd.pre_exec(move || {
                libc::setpgid(0, 0);
                libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGTERM);
                // The parent may already have died between fork and prctl.
                if libc::getppid() != parent {
                    libc::_exit(1);
                }
                Ok(())
            });
        }
    }
    #[cfg(all(unix, not(target_os = "linux")))]
    {
        use std::os::unix::process::CommandExt;
        cmd.process_group(0);
    }
}

const STATE_PREFIX: &str = "ad-agent-device-";

/// Removes the state dirs of `ad` processes that no longer exist (a `kill -9` leaves its dir;
/// the guard already stopped the daemon in it).
fn remove_stale_state_dirs(base: &Path) {
    let Ok(entries) = std::fs::read_dir(base) else {
        return;
    };
    for e in entries.flatten() {
        let name = e.file_name();
        let Some(pid) = name
            .to_str()
            .and_then(|n| n.strip_prefix(STATE_PREFIX))
            .and_then(|rest| rest.split('-').next())
            .and_then(|p| p.parse::<i32>().ok())
        else {
            continue;
        };
        #[cfg(unix)]
        // SAFETY: signal 0 only checks whether the process exists.
        let dead = unsafe { libc::kill(pid, 0) } != 0
            && std::io::Error::last_os_error().raw_os_error() == Some(libc::ESRCH);
        #[cfg(not(unix))]
        let dead = false;
        if dead {
            let _ = std::fs::remove_dir_all(e.path());
        }
    }
}

/// A new owner-only folder under the temp dir `base` for a daemon `ad` owns.
fn fresh_state_dir(base: &Path) -> Result<PathBuf, String> {
    use std::sync::atomic::{AtomicU32, Ordering};
    static N: AtomicU32 = AtomicU32::new(0);
    remove_stale_state_dirs(base);
    for _ in 0..100 {
        let dir = base.join(format!(
            "{STATE_PREFIX}{}-{}",
            std::process::id(),
            N.fetch_add(1, Ordering::Relaxed)
        ));
        match std::fs::create_dir(&dir) {
            Ok(()) => {
                #[cfg(unix)]
                {
                    use std::os::unix::fs::PermissionsExt;
                    let _ = std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o700));
                }
                return Ok(dir);
            }
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(format!("{}: {e}", dir.display())),
        }
    }
    Err("cannot create a state dir for the agent-device daemon".into())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(dir: &Path, json: &str) {
        std::fs::create_dir_all(dir).unwrap();
        std::fs::write(dir.join("daemon.json"), json).unwrap();
    }

    #[test]
    fn daemon_json_picks_the_socket_unless_the_daemon_is_http_only() {
        let dir = std::env::temp_dir().join(format!("ad-daemon-json-{}", std::process::id()));
        write(
            &dir,
            r#"{"port": 4100, "httpPort": 4101, "transport": "dual", "token": "t", "pid": 7}"#,
        );
        let info = DaemonInfo::read(&dir).unwrap();
        assert_eq!(info.endpoint(false), Endpoint::Socket { port: 4100 });
        assert_eq!(info.endpoint(true), Endpoint::LocalHttp { port: 4101 });
        assert!(!format!("{info:?}").contains("\"t\""));
        write(
            &dir,
            r#"{"httpPort": 4101, "transport": "http", "token": "t"}"#,
        );
        assert_eq!(
            DaemonInfo::read(&dir).unwrap().endpoint(false),
            Endpoint::LocalHttp { port: 4101 }
        );
        // No token, or no port: not a daemon to talk to.
        write(&dir, r#"{"port": 4100}"#);
        assert!(DaemonInfo::read(&dir).is_none());
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_stat_line_is_a_running_member_of_its_group_unless_a_zombie() {
        let stat = |state: &str, pgrp: i32| {
            format!("4242 (node (daemon) x) {state} 1 {pgrp} {pgrp} 0 -1 4194560 0 0")
        };
        assert!(running_member(&stat("S", 77), 77));
        assert!(running_member(&stat("R", 77), 77));
        assert!(!running_member(&stat("S", 78), 77));
        assert!(!running_member(&stat("Z", 77), 77));
        assert!(!running_member(&stat("X", 77), 77));
        assert!(!running_member("garbage", 77));
    }

    /// A group whose processes were killed but not yet reaped (orphans waiting for PID 1) is
    /// stopped: `ad` does not wait for its init to reap them.
    #[cfg(target_os = "linux")]
    #[test]
    fn a_group_of_zombies_is_not_alive_and_a_running_one_is() {
        use std::os::unix::process::CommandExt;
        let mut child = Command::new("sleep")
            .arg("30")
            .process_group(0)
            .spawn()
            .unwrap();
        let pgid = child.id() as i32;
        assert!(group_alive(pgid));
        // SAFETY: a signal to the child this test spawned.
        unsafe {
            libc::kill(pgid, libc::SIGKILL);
        }
        // Not reaped yet: a zombie, which kill(-pgid, 0) still finds.
        let end = Instant::now() + Duration::from_secs(10);
        while group_alive(pgid) {
            assert!(Instant::now() < end, "a killed group stayed alive");
            std::thread::sleep(Duration::from_millis(10));
        }
        // SAFETY: signal 0 only checks for existence.
        assert_eq!(
            unsafe { libc::kill(-pgid, 0) },
            0,
            "the zombie is still there"
        );
        child.wait().unwrap();
        assert!(!group_alive(pgid));
    }

    #[test]
    fn a_remote_daemon_off_this_machine_needs_a_token() {
        assert!(remote_from(None, None).unwrap().is_none());
        let err = remote_from(Some("http://farm.example:9000".into()), None).unwrap_err();
        assert!(err.contains("AGENT_DEVICE_DAEMON_AUTH_TOKEN"), "{err}");
        let (endpoint, _) = remote_from(Some("http://127.0.0.1:9000".into()), None)
            .unwrap()
            .unwrap();
        assert_eq!(endpoint.describe(), "http 127.0.0.1:9000");
        assert!(
            remote_from(Some("http://farm.example:9000".into()), Some("tok".into()))
                .unwrap()
                .is_some()
        );
    }
}
