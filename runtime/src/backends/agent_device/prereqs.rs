//! What agent-device 0.21.5's Linux platform needs from the desktop its daemon runs in, checked
//! before a run's first step (and by `ad doctor`) instead of failing at a capture:
//!
//! - a display: `DISPLAY` or `WAYLAND_DISPLAY` (a local `:N` display has its X socket);
//! - the input tool it synthesizes clicks and keys with: `xdotool` on X11, `ydotool` on Wayland
//!   (`WAYLAND_DISPLAY` set or `XDG_SESSION_TYPE=wayland`), looked up on `PATH`;
//! - the first `python3` on `PATH` (agent-device runs `python3` by name, no variable chooses
//!   another) able to `import gi`, `gi.require_version("Atspi", "2.0")` (its `atspi-dump.py`);
//! - the AT-SPI accessibility bus, reached by that python as `atspi-dump.py` reaches it
//!   (`Atspi.get_desktop(0)`; libatspi aborts the process when there is none).
//!
//! Everything is read from the environment the daemon runs in. The python check is one short
//! subprocess; a passing environment is remembered for the rest of the process.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::Mutex;
use std::time::Duration;

use serde::Serialize;

use crate::core::environment::Environment;
use crate::core::records::SetupProblem;

/// One missing piece and how to install or fix it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Missing {
    pub problem: String,
    pub fix: String,
}

impl Missing {
    fn new(problem: impl Into<String>, fix: impl Into<String>) -> Missing {
        Missing {
            problem: problem.into(),
            fix: fix.into(),
        }
    }

    /// `problem; fix` (`ad doctor`'s `missing:` rows).
    pub fn line(&self) -> String {
        format!("{}; {}", self.problem, self.fix)
    }
}

/// The set-up error a run reports for what is missing (`None`: nothing is).
pub fn setup_problem(missing: &[Missing]) -> Option<SetupProblem> {
    let first = missing.first()?;
    if missing.len() == 1 {
        return Some(SetupProblem::new(
            "agent-device",
            first.problem.clone(),
            Some(&first.fix),
        ));
    }
    let problems: Vec<&str> = missing.iter().map(|m| m.problem.as_str()).collect();
    let fixes: Vec<&str> = missing.iter().map(|m| m.fix.as_str()).collect();
    Some(SetupProblem::new(
        "agent-device",
        format!("the Linux platform lacks: {}", problems.join("; ")),
        Some(&fixes.join("; ")),
    ))
}

/// The python probe: what `atspi-dump.py` imports, then the bus it connects to.
const PROBE: &str = r#"import sys
print(sys.executable, flush=True)
try:
    import gi
except ImportError as e:
    print("no-gi", e, flush=True)
    sys.exit(3)
try:
    gi.require_version("Atspi", "2.0")
    from gi.repository import Atspi
except (ImportError, ValueError) as e:
    print("no-atspi", e, flush=True)
    sys.exit(4)
print("bindings", flush=True)
Atspi.get_desktop(0).get_child_count()
print("bus", flush=True)
"#;

const VIRTUAL_DESKTOP: &str =
    "run inside the desktop session, or a virtual one: `xvfb-run -a dbus-run-session -- ad run …`";

/// Environments that passed, by a hash of their variables.
static PASSED: Mutex<Vec<u64>> = Mutex::new(Vec::new());

fn fingerprint(env: &Environment) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    for k in [
        "PATH",
        "DISPLAY",
        "WAYLAND_DISPLAY",
        "XDG_SESSION_TYPE",
        "XAUTHORITY",
        "DBUS_SESSION_BUS_ADDRESS",
        "AT_SPI_BUS_ADDRESS",
        "PYTHONPATH",
        "PYTHONHOME",
        "PYENV_VERSION",
        "VIRTUAL_ENV",
    ] {
        (k, env.var_os(k)).hash(&mut h);
    }
    h.finish()
}

/// The executable called `name` in a folder of `PATH`, as agent-device's `whichCommand` finds it.
fn which(env: &Environment, name: &str) -> Option<PathBuf> {
    let path = env.var_os("PATH")?;
    std::env::split_paths(&path)
        .filter(|d| !d.as_os_str().is_empty())
        .map(|d| d.join(name))
        .find(|p| {
            std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        })
}

/// What agent-device's Linux platform lacks in `env` (empty: nothing).
pub async fn linux(env: &Environment) -> Vec<Missing> {
    let key = fingerprint(env);
    if PASSED.lock().is_ok_and(|p| p.contains(&key)) {
        return Vec::new();
    }
    let mut missing = Vec::new();
    let set = |k: &str| env.var(k).filter(|v| !v.is_empty());
    let wayland =
        set("WAYLAND_DISPLAY").is_some() || set("XDG_SESSION_TYPE").as_deref() == Some("wayland");
    match (set("DISPLAY"), set("WAYLAND_DISPLAY")) {
        (None, None) => missing.push(Missing::new(
            "no display: DISPLAY and WAYLAND_DISPLAY are unset, and the Linux platform drives a desktop session",
            VIRTUAL_DESKTOP,
        )),
        (Some(display), None) => {
            if let Some(socket) = local_x_socket(&display).filter(|s| !s.exists()) {
                missing.push(Missing::new(
                    format!("no X server at DISPLAY={display} (no {})", socket.display()),
                    VIRTUAL_DESKTOP,
                ));
            }
        }
        _ => {}
    }
    let (tool, package) = if wayland {
        ("ydotool", "apt-get install ydotool (and run ydotoold)")
    } else {
        ("xdotool", "apt-get install xdotool")
    };
    if which(env, tool).is_none() {
        missing.push(Missing::new(
            format!(
                "{tool} is not on PATH: agent-device synthesizes clicks and keys with it on {}",
                if wayland { "Wayland" } else { "X11" }
            ),
            format!("install it ({package})"),
        ));
    }
    match which(env, "python3") {
        None => missing.push(Missing::new(
            "python3 is not on PATH: agent-device captures the Linux accessibility tree with it",
            "install python3 with the AT-SPI bindings (`apt-get install python3 python3-gi gir1.2-atspi-2.0`)",
        )),
        Some(python) => missing.extend(python_probe(env, &python).await),
    }
    if missing.is_empty() {
        if let Ok(mut p) = PASSED.lock() {
            p.push(key);
        }
    }
    missing
}

/// `/tmp/.X11-unix/XN` for a local display `:N[.S]`; `None` for a remote or unusual one.
fn local_x_socket(display: &str) -> Option<PathBuf> {
    let rest = display
        .strip_prefix(':')
        .or_else(|| display.strip_prefix("unix:"))?;
    let n = rest.split('.').next()?;
    (!n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
        .then(|| PathBuf::from(format!("/tmp/.X11-unix/X{n}")))
}

/// Runs [`PROBE`] with `python` in `env`: what it cannot import, or the bus it cannot reach.
async fn python_probe(env: &Environment, python: &Path) -> Option<Missing> {
    let out = run_python(env, python, PROBE).await;
    let out = match out {
        Ok(out) => out,
        Err(why) => {
            return Some(Missing::new(
                format!(
                    "python3 ({}) could not be run to check the AT-SPI bindings: {why}",
                    python.display()
                ),
                "put a working python3 with python3-gi and gir1.2-atspi-2.0 first on PATH",
            ))
        }
    };
    let stdout = String::from_utf8_lossy(&out.stdout);
    let mut lines = stdout.lines();
    let exe = lines.next().filter(|l| !l.is_empty());
    let named = match exe {
        Some(exe) if Path::new(exe) != python => format!("{} → {exe}", python.display()),
        _ => python.display().to_string(),
    };
    let said = |prefix: &str| stdout.lines().find_map(|l| l.strip_prefix(prefix));
    let reached = |w: &str| stdout.lines().any(|l| l == w);
    if let Some(why) = said("no-gi ") {
        return Some(Missing::new(
            format!("the first python3 on PATH ({named}) cannot import gi ({why}), and agent-device runs it for every Linux snapshot"),
            bindings_fix(env, python).await,
        ));
    }
    if let Some(why) = said("no-atspi ") {
        return Some(Missing::new(
            format!("the first python3 on PATH ({named}) has gi but not AT-SPI 2.0 ({why})"),
            "install the AT-SPI typelib (`apt-get install gir1.2-atspi-2.0`)",
        ));
    }
    if !reached("bindings") {
        let err = String::from_utf8_lossy(&out.stderr);
        return Some(Missing::new(
            format!(
                "the first python3 on PATH ({named}) failed before importing the AT-SPI bindings: {}",
                last_line(&err)
            ),
            "put a working python3 with python3-gi and gir1.2-atspi-2.0 first on PATH",
        ));
    }
    if !reached("bus") {
        let err = String::from_utf8_lossy(&out.stderr);
        let why = err
            .lines()
            .find(|l| l.contains("accessibility bus"))
            .map(|l| l.rsplit("AT-SPI: ").next().unwrap_or(l).trim().to_string())
            .unwrap_or_else(|| last_line(&err));
        return Some(Missing::new(
            format!("the AT-SPI accessibility bus does not answer ({why})"),
            "run in the desktop's D-Bus session with at-spi2-core installed (`apt-get install at-spi2-core`), or a virtual one: `xvfb-run -a dbus-run-session -- ad run …`",
        ));
    }
    None
}

/// How to get the bindings for `python`: install them, or put a python3 that has them first
/// (Debian's `/usr/bin/python3`, when it has them and `python` is another, e.g. pyenv's).
async fn bindings_fix(env: &Environment, python: &Path) -> String {
    let install = "install gi and AT-SPI 2.0 for it (Debian/Ubuntu: `apt-get install python3-gi gir1.2-atspi-2.0`; in a pyenv or venv python: `pip install PyGObject`)";
    let system = Path::new("/usr/bin/python3");
    let other = system.is_file()
        && std::fs::canonicalize(python).ok() != std::fs::canonicalize(system).ok();
    if other {
        let probe =
            "import gi; gi.require_version('Atspi', '2.0'); from gi.repository import Atspi";
        if run_python(env, system, probe)
            .await
            .is_ok_and(|o| o.status.success())
        {
            return format!("{install}, or put /usr/bin/python3 (which has them) first on PATH, e.g. `PATH=/usr/bin:$PATH`");
        }
    }
    format!("{install}, or put a python3 that has them first on PATH")
}

fn last_line(text: &str) -> String {
    let line = text
        .lines()
        .rev()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("");
    let line = line.trim();
    if line.is_empty() {
        "no output".into()
    } else {
        line.chars().take(300).collect()
    }
}

/// `python -c code` in `env`, given 10 s.
async fn run_python(
    env: &Environment,
    python: &Path,
    code: &str,
) -> Result<std::process::Output, String> {
    let mut cmd = std::process::Command::new(python);
    env.apply(&mut cmd);
    cmd.args(["-c", code])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut cmd = tokio::process::Command::from(cmd);
    cmd.kill_on_drop(true);
    let child = cmd.spawn().map_err(|e| e.to_string())?;
    match tokio::time::timeout(Duration::from_secs(10), child.wait_with_output()).await {
        Ok(out) => out.map_err(|e| e.to_string()),
        Err(_) => Err("it did not finish within 10 s".into()),
    }
}

/// The environment of the local daemon whose `daemon.json` is in `state_dir` (its
/// `/proc/PID/environ`): what the daemon's `python3` and tools are found in. `None` when it
/// cannot be read (no pid, another user's daemon).
pub fn attached_daemon_env(state_dir: &Path) -> Option<Environment> {
    let info = super::daemon::DaemonInfo::read(state_dir)?;
    if info.pid == 0 {
        return None;
    }
    let raw = std::fs::read(format!("/proc/{}/environ", info.pid)).ok()?;
    use std::os::unix::ffi::OsStrExt;
    let vars = raw.split(|b| *b == 0).filter_map(|kv| {
        let eq = kv.iter().position(|b| *b == b'=')?;
        Some((
            std::ffi::OsStr::from_bytes(&kv[..eq]).to_os_string(),
            std::ffi::OsStr::from_bytes(&kv[eq + 1..]).to_os_string(),
        ))
    });
    Some(Environment::from_vars(vars, 0o022))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn block<F: std::future::Future>(f: F) -> F::Output {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap()
            .block_on(f)
    }

    /// A folder holding an executable `python3` with `body` and an `xdotool`.
    fn tools(body: &str) -> PathBuf {
        let dir = ad_tests::scratch_dir("ad-prereqs");
        for (name, text) in [("python3", body), ("xdotool", "#!/bin/sh\n")] {
            let p = dir.join(name);
            std::fs::write(&p, text).unwrap();
            std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
        }
        dir
    }

    fn env(vars: &[(&str, &str)]) -> Environment {
        Environment::from_vars(vars.iter().map(|(k, v)| (k.into(), v.into())), 0o022)
    }

    #[test]
    fn each_missing_piece_is_named_with_what_to_install() {
        let empty = ad_tests::scratch_dir("ad-prereqs-empty");
        let missing = block(linux(&env(&[("PATH", empty.to_str().unwrap())])));
        let problems: Vec<&str> = missing.iter().map(|m| m.problem.as_str()).collect();
        assert_eq!(problems.len(), 3, "{problems:?}");
        assert!(problems[0].starts_with("no display: DISPLAY and WAYLAND_DISPLAY are unset"));
        assert!(problems[1].starts_with("xdotool is not on PATH"));
        assert!(problems[2].starts_with("python3 is not on PATH"));
        assert!(missing[1].fix.contains("apt-get install xdotool"));
        // Wayland's input tool is ydotool.
        let wayland = block(linux(&env(&[
            ("PATH", empty.to_str().unwrap()),
            ("WAYLAND_DISPLAY", "wayland-0"),
        ])));
        assert!(
            wayland[0].problem.starts_with("ydotool is not on PATH"),
            "{wayland:?}"
        );
        // A run says them all at once.
        let p = setup_problem(&missing).unwrap();
        assert!(
            p.problem
                .starts_with("the Linux platform lacks: no display"),
            "{p:?}"
        );
        assert!(p.fix.unwrap().contains("apt-get install xdotool"));
        assert_eq!(setup_problem(&[]), None);
    }

    #[test]
    fn the_python_probe_tells_a_missing_gi_from_missing_atspi_and_a_missing_bus() {
        let cases = [
            ("#!/bin/sh\necho /opt/py/bin/python3\necho \"no-gi No module named 'gi'\"\nexit 3\n",
             "cannot import gi (No module named 'gi')"),
            ("#!/bin/sh\necho /opt/py/bin/python3\necho 'no-atspi Namespace Atspi not available'\nexit 4\n",
             "has gi but not AT-SPI 2.0 (Namespace Atspi not available)"),
            ("#!/bin/sh\necho /opt/py/bin/python3\necho bindings\necho '(process:1): dbind-ERROR **: AT-SPI: Couldn'\"'\"'t connect to accessibility bus. Is at-spi-bus-launcher running?' >&2\nkill -TRAP $$\n",
             "the AT-SPI accessibility bus does not answer (Couldn't connect to accessibility bus. Is at-spi-bus-launcher running?)"),
            ("#!/bin/sh\necho 'boom' >&2\nexit 1\n", "failed before importing the AT-SPI bindings: boom"),
        ];
        for (body, said) in cases {
            let dir = tools(body);
            let missing = block(linux(&env(&[
                ("PATH", dir.to_str().unwrap()),
                ("DISPLAY", "remote-host:0"),
            ])));
            assert_eq!(missing.len(), 1, "{missing:?}");
            assert!(missing[0].problem.contains(said), "{missing:?}");
            if said.contains("gi (") {
                let python = dir.join("python3");
                assert!(missing[0]
                    .problem
                    .contains(&format!("({} → /opt/py/bin/python3)", python.display())));
            }
        }
        // Bindings and bus there: nothing missing.
        let dir = tools("#!/bin/sh\necho /usr/bin/python3\necho bindings\necho bus\n");
        let fine = env(&[
            ("PATH", dir.to_str().unwrap()),
            ("DISPLAY", "remote-host:0"),
        ]);
        assert_eq!(block(linux(&fine)), Vec::new());
    }

    #[test]
    fn a_local_display_is_its_x_socket() {
        assert_eq!(
            local_x_socket(":0"),
            Some(PathBuf::from("/tmp/.X11-unix/X0"))
        );
        assert_eq!(
            local_x_socket(":99.0"),
            Some(PathBuf::from("/tmp/.X11-unix/X99"))
        );
        assert_eq!(
            local_x_socket("unix:3"),
            Some(PathBuf::from("/tmp/.X11-unix/X3"))
        );
        assert_eq!(local_x_socket("localhost:10.0"), None);
        assert_eq!(local_x_socket(":"), None);
    }
}
