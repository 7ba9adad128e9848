//! A virtual desktop for the agent-device bridge tests: Xvfb + a D-Bus session (so AT-SPI runs)
//! from `xvfb-run -a dbus-run-session`, the GTK3 test app (tests/apps/gtk_login) on PATH behind
//! Debian's /usr/bin/python3 (which has `gi`), agent-device 0.21.5 from oracle/node_modules and
//! an agent-device state dir per test. Everything it started is killed when it is dropped: the
//! app by its PID (agent-device's `close` does not quit it), daemons by PID, the display by
//! process group.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

use serde_json::Value;

pub fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

pub fn agent_device_dir() -> PathBuf {
    repo().join("oracle/node_modules/agent-device")
}

/// What the tests need, each with what to install; panics (never skips) when one is missing.
pub fn require_tools() {
    let mut missing = Vec::new();
    for (tool, package) in [
        ("/usr/bin/xvfb-run", "apt-get install xvfb"),
        (
            "/usr/bin/dbus-run-session",
            "apt-get install dbus-x11 (dbus)",
        ),
        ("/usr/bin/xdotool", "apt-get install xdotool"),
        ("/usr/bin/scrot", "apt-get install scrot"),
        ("/usr/bin/wmctrl", "apt-get install wmctrl"),
        (
            "/usr/libexec/at-spi-bus-launcher",
            "apt-get install at-spi2-core",
        ),
    ] {
        if !Path::new(tool).exists() {
            missing.push(format!("{tool}: {package}"));
        }
    }
    let gi = Command::new("/usr/bin/python3")
        .args([
            "-c",
            "import gi; gi.require_version('Gtk', '3.0'); gi.require_version('Atspi', '2.0'); from gi.repository import Gtk, Atspi",
        ])
        .stderr(Stdio::null())
        .status();
    if !gi.is_ok_and(|s| s.success()) {
        missing.push(
            "/usr/bin/python3 with gi, Gtk 3 and Atspi: apt-get install python3-gi gir1.2-gtk-3.0 gir1.2-atspi-2.0 libatk-adaptor".into(),
        );
    }
    if !agent_device_dir()
        .join("dist/src/internal/daemon.js")
        .is_file()
    {
        missing.push("agent-device 0.21.5: (cd oracle && npm ci)".into());
    }
    if Command::new("node").arg("--version").output().is_err() {
        missing.push("node: apt-get install nodejs".into());
    }
    assert!(
        missing.is_empty(),
        "the agent-device bridge tests need a virtual desktop and agent-device; missing:\n  {}\n(scripts/test-all.sh installs them all)",
        missing.join("\n  ")
    );
}

/// One desktop at a time: two cores, and AT-SPI is timing-sensitive under load.
pub fn serial() -> MutexGuard<'static, ()> {
    static LOCK: Mutex<()> = Mutex::new(());
    LOCK.lock().unwrap_or_else(|e| e.into_inner())
}

pub struct Desktop {
    pub dir: PathBuf,
    display: Child,
    env: Vec<(String, String)>,
    daemons: Vec<Child>,
    _serial: MutexGuard<'static, ()>,
}

fn pid_alive(pid: i32) -> bool {
    // A zombie counts as gone.
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .map(|s| {
            let state = s.rsplit(')').next().unwrap_or("").trim_start();
            !state.starts_with('Z')
        })
        .unwrap_or(false)
}

pub fn alive(pid: i32) -> bool {
    pid_alive(pid)
}

/// Waits until `pid` is gone (true) or `within` passes (false).
pub fn gone_within(pid: i32, within: Duration) -> bool {
    let end = Instant::now() + within;
    while Instant::now() < end {
        if !pid_alive(pid) {
            return true;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    !pid_alive(pid)
}

impl Desktop {
    pub fn start(name: &str) -> Desktop {
        require_tools();
        let serial = serial();
        let dir = ad_tests::scratch_dir(&format!("ad-bridge-{name}"));
        let env_file = dir.join("desktop.env");
        let mut cmd = Command::new("xvfb-run");
        cmd.args(["-a", "-s", "-screen 0 1024x768x24", "dbus-run-session", "--", "sh", "-c"])
            .arg(format!(
                "echo \"$DISPLAY\" > {0}.tmp; echo \"$DBUS_SESSION_BUS_ADDRESS\" >> {0}.tmp; echo \"$XAUTHORITY\" >> {0}.tmp; mv {0}.tmp {0}; exec sleep 100000",
                env_file.display()
            ))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        {
            use std::os::unix::process::CommandExt;
            cmd.process_group(0);
        }
        let display = cmd.spawn().expect("xvfb-run");
        let end = Instant::now() + Duration::from_secs(20);
        let text = loop {
            if let Ok(t) = std::fs::read_to_string(&env_file) {
                break t;
            }
            assert!(Instant::now() < end, "xvfb-run did not start a display");
            std::thread::sleep(Duration::from_millis(50));
        };
        let mut lines = text.lines();
        let display_name = lines.next().unwrap_or("").to_string();
        let bus = lines.next().unwrap_or("").to_string();
        let xauthority = lines.next().unwrap_or("").to_string();
        let path = format!(
            "/usr/bin:{}:{}",
            repo().join("tests/apps/gtk_login").display(),
            std::env::var("PATH").unwrap_or_default()
        );
        let state = dir.join("agent-device-state");
        let env = vec![
            ("DISPLAY".to_string(), display_name),
            ("DBUS_SESSION_BUS_ADDRESS".to_string(), bus),
            ("XAUTHORITY".to_string(), xauthority),
            ("PATH".to_string(), path),
            (
                "AGENT_DEVICE_STATE_DIR".to_string(),
                state.display().to_string(),
            ),
            // agent-device claims a device machine-wide (`~/.agent-device/device-claims`): a
            // folder per desktop keeps concurrent test runs on this machine from refusing each
            // other's "local" Linux device (DEVICE_IN_USE).
            (
                "AGENT_DEVICE_CLAIMS_DIR".to_string(),
                dir.join("device-claims").display().to_string(),
            ),
            (
                "AD_AGENT_DEVICE".to_string(),
                agent_device_dir().display().to_string(),
            ),
            (
                "AD_GTK_PIDFILE".to_string(),
                dir.join("app.pid").display().to_string(),
            ),
            (
                "AD_STATE_DIR".to_string(),
                dir.join("ad-state").display().to_string(),
            ),
            ("NO_COLOR".to_string(), "1".to_string()),
        ];
        Desktop {
            dir,
            display,
            env,
            daemons: Vec::new(),
            _serial: serial,
        }
    }

    pub fn set_env(&mut self, key: &str, value: &str) {
        self.env.retain(|(k, _)| k != key);
        self.env.push((key.into(), value.into()));
    }

    /// The desktop's environment, for a process a test starts itself (an `ad dap`).
    pub fn env(&self) -> &[(String, String)] {
        &self.env
    }

    pub fn state_dir(&self) -> PathBuf {
        self.dir.join("agent-device-state")
    }

    fn apply(&self, c: &mut Command) {
        c.current_dir(&self.dir)
            .env_remove("AGENT_DEVICE_DAEMON_BASE_URL")
            .env_remove("AGENT_DEVICE_DAEMON_AUTH_TOKEN")
            .stdin(Stdio::null());
        for (k, v) in &self.env {
            c.env(k, v);
        }
    }

    /// `ad args…` in the desktop.
    pub fn ad_command(&self, args: &[&str]) -> Command {
        let mut c = Command::new(env!("CARGO_BIN_EXE_ad"));
        c.args(args);
        self.apply(&mut c);
        c
    }

    pub fn ad(&self, args: &[&str]) -> Output {
        self.ad_command(args).output().unwrap()
    }

    /// The agent-device CLI in the desktop.
    pub fn agent_device(&self, args: &[&str]) -> Output {
        let mut c = Command::new("node");
        c.arg(agent_device_dir().join("bin/agent-device.mjs"))
            .args(args);
        self.apply(&mut c);
        c.output().unwrap()
    }

    /// Starts a daemon in this desktop's state dir (the one `ad` attaches to); killed on drop.
    pub fn start_daemon(&mut self) {
        let state = self.state_dir();
        std::fs::create_dir_all(&state).unwrap();
        let mut c = Command::new("node");
        c.arg(agent_device_dir().join("dist/src/internal/daemon.js"))
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        self.apply(&mut c);
        self.daemons.push(c.spawn().unwrap());
        let end = Instant::now() + Duration::from_secs(20);
        while !state.join("daemon.json").is_file() {
            assert!(
                Instant::now() < end,
                "the agent-device daemon did not start"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// The test app's PID once it has shown its window.
    pub fn app_pid(&self, within: Duration) -> Option<i32> {
        let end = Instant::now() + within;
        loop {
            if let Some(pid) = std::fs::read_to_string(self.dir.join("app.pid"))
                .ok()
                .and_then(|s| s.trim().parse().ok())
            {
                return Some(pid);
            }
            if Instant::now() > end {
                return None;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Kills the app (agent-device's `close` leaves it running) and forgets its PID.
    /// The agent-device daemon `ad` started for this desktop (its own state dir under the temp
    /// dir, found by this desktop's device-claims folder in its environment).
    pub fn owned_daemon(&self) -> Option<i32> {
        let claims = format!(
            "AGENT_DEVICE_CLAIMS_DIR={}",
            self.dir.join("device-claims").display()
        );
        std::fs::read_dir(std::env::temp_dir())
            .ok()?
            .flatten()
            .filter(|e| {
                e.file_name()
                    .to_string_lossy()
                    .starts_with("ad-agent-device-")
            })
            .find_map(|e| {
                let daemon = std::fs::read_to_string(e.path().join("daemon.json")).ok()?;
                let v: Value = serde_json::from_str(&daemon).ok()?;
                let pid = v["pid"].as_i64()? as i32;
                let environ = std::fs::read(format!("/proc/{pid}/environ")).ok()?;
                environ
                    .split(|b| *b == 0)
                    .any(|kv| kv == claims.as_bytes())
                    .then_some(pid)
            })
    }

    pub fn kill_app(&self) {
        if let Some(pid) = self.app_pid(Duration::ZERO) {
            // SAFETY: a plain kill of the test app's PID.
            unsafe {
                libc::kill(pid, libc::SIGKILL);
            }
            gone_within(pid, Duration::from_secs(5));
        }
        let _ = std::fs::remove_file(self.dir.join("app.pid"));
    }

    /// Writes a script into the desktop's folder.
    pub fn script(&self, name: &str, text: &str) -> PathBuf {
        let p = self.dir.join(name);
        std::fs::write(&p, text).unwrap();
        p
    }
}

impl Drop for Desktop {
    fn drop(&mut self) {
        self.kill_app();
        for d in &mut self.daemons {
            let _ = d.kill();
            let _ = d.wait();
        }
        // SAFETY: the display's process group, which this fixture created.
        unsafe {
            libc::kill(-(self.display.id() as i32), libc::SIGKILL);
        }
        let _ = self.display.wait();
    }
}

/// The JSON `ad run --json` printed.
pub fn json(out: &Output) -> Value {
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "not JSON ({e}); stdout:\n{}\nstderr:\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    })
}

/// The labels of the static texts on screen, from `agent-device snapshot --json`.
pub fn screen_texts(snapshot: &Value) -> Vec<String> {
    let mut v: Vec<String> = snapshot["data"]["nodes"]
        .as_array()
        .map(|nodes| {
            nodes
                .iter()
                .filter(|n| n["type"] == "StaticText")
                .filter_map(|n| n["label"].as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default();
    v.sort();
    v
}

/// The flags that put `ad` on the desktop's app: agent-device's Linux backend.
pub const LINUX: [&str; 4] = ["--backend", "agent-device", "--platform", "linux"];

/// A command's standard output, then its standard error, for messages.
pub fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

/// `ad args…` in the desktop; it must succeed.
pub fn ok(d: &Desktop, args: &[&str]) -> Output {
    let o = d.ad(args);
    assert!(o.status.success(), "ad {args:?}:\n{}", text(&o));
    o
}

/// The `ad session list` line of `session` ("" when there is none).
pub fn listed(d: &Desktop, session: &str) -> String {
    let o = ok(d, &["session", "list"]);
    String::from_utf8_lossy(&o.stdout)
        .lines()
        .find(|l| l.starts_with(&format!("{session}\t")))
        .unwrap_or_default()
        .to_string()
}

/// No agent-device daemon `ad` started for this desktop is left after `within`.
pub fn no_daemon_left(d: &Desktop, within: Duration) -> bool {
    let end = Instant::now() + within;
    while Instant::now() < end {
        if d.owned_daemon().is_none() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    d.owned_daemon().is_none()
}

/// Waits until ad's session daemon for this desktop has stopped (its socket is removed when it
/// ends); false if it is still there after `within`.
pub fn session_daemon_stops(d: &Desktop, within: Duration) -> bool {
    let sock = d.dir.join("ad-state").join("daemon.sock");
    let end = Instant::now() + within;
    while Instant::now() < end {
        if !sock.exists() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    !sock.exists()
}

/// The healed script passes `ad check`, `ad fmt --check` and agent-device 0.21.5's reader.
pub fn assert_valid_script(d: &Desktop, script: &Path) {
    let s = script.to_str().unwrap();
    ok(d, &["check", s]);
    ok(d, &["fmt", "--check", s]);
    let oracle = ad_tests::run_oracle_one(script);
    assert_eq!(oracle["ok"], true, "agent-device rejects it: {oracle}");
}

/// Records the app's sign-in into `save_as` (with evidence) through `ad session … --session rec`
/// on the Linux backend: open, username, password, a click on each of `clicks`, then with
/// `welcome` the wait for the welcome screen. The recording session is left open for the caller
/// to close (`ad session close --session rec`); the app's PID.
pub fn record_login(d: &Desktop, save_as: &str, clicks: &[&str], welcome: bool) -> i32 {
    let session = |words: &[&str]| {
        let mut args = vec!["session"];
        args.extend_from_slice(words);
        args.extend(["--session", "rec"]);
        ok(d, &args)
    };
    let save = format!("--save-script={save_as}");
    let mut open = vec!["open", "ad-gtk-login"];
    open.extend(LINUX);
    open.push(&save);
    session(&open);
    session(&["fill", "label=Username", "alice"]);
    session(&["fill", "label=Password", "secret"]);
    for c in clicks {
        session(&["click", c]);
    }
    if welcome {
        session(&["wait", r#"label="Welcome, alice""#, "8000"]);
    }
    d.app_pid(Duration::ZERO)
        .expect("the session opened the app")
}

/// Closes the [`record_login`] session and checks that it ended the app and the agent-device
/// daemon, then forgets the app's PID.
pub fn close_recording(d: &Desktop, app: i32) {
    ok(d, &["session", "close", "--session", "rec"]);
    assert!(gone_within(app, Duration::from_secs(10)));
    assert!(no_daemon_left(d, Duration::from_secs(10)));
    let _ = std::fs::remove_file(d.dir.join("app.pid"));
}
