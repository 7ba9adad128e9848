//! What agent-device 0.21.5's Linux platform needs from the desktop, checked before a run's
//! first step and by `ad doctor` (issue 31 item 3): the first `python3` on PATH with `gi` and
//! AT-SPI 2.0 (agent-device runs it by name for every snapshot), a display, the accessibility
//! bus; and a device another agent-device session holds. Each is a set-up error in `ad`'s words
//! (exit 2, no divergence report, no resume line), never a divergence at a later step.
//!
//! (A Linux run with no display at all is a_linux_run_without_a_display_is_a_set_up_error in
//! agent_device_e2e.rs; agent-device's own TOOL_MISSING at a step is
//! platform_tooling_agent_device_reports_missing_is_a_set_up_error there.)
//!
//! Needs xvfb, dbus, AT-SPI, python3-gi and agent-device; a missing one fails the test with what
//! to install (scripts/test-all.sh installs them).

mod agent_device_support;

use std::path::Path;
use std::process::Output;
use std::time::Duration;

use agent_device_support::{json, Desktop};

const SCRIPT: &str =
    "context platform=linux\nopen ad-gtk-login\nwait \"label=Username\" 5000\nclose\n";

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// A `python3` without `gi` (Debian's without its site packages, as a pyenv or venv python
/// is), in a folder of its own; the folder.
fn python_without_gi(d: &Desktop) -> std::path::PathBuf {
    let shim = d.dir.join("no-gi");
    std::fs::create_dir_all(&shim).unwrap();
    let python = shim.join("python3");
    std::fs::write(&python, "#!/bin/sh\nexec /usr/bin/python3 -S \"$@\"\n").unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&python, std::fs::Permissions::from_mode(0o755)).unwrap();
    shim
}

/// `ad doctor` exits 1 and its agent-device row says `missing: linux: {problem}`.
fn assert_doctor_names(d: &Desktop, problem: &str) -> String {
    let out = d.ad(&["doctor"]);
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(1), "{text}\n{}", stderr(&out));
    let row = text
        .lines()
        .skip_while(|l| !l.starts_with("agent-device"))
        .take_while(|l| l.starts_with("agent-device") || l.starts_with(' '))
        .collect::<Vec<_>>()
        .join("\n");
    assert!(row.starts_with("agent-device missing"), "{text}");
    assert!(row.contains("platforms: linux"), "{text}");
    assert!(
        row.contains(&format!("missing: linux: {problem}")),
        "{text}"
    );
    row
}

/// `ad run --backend agent-device --platform linux` stops before its first step with a set-up
/// error saying `problem`: exit 2, no step ran, no run folder, no app, no divergence or resume.
fn assert_run_stops_before_step_1(d: &Desktop, problem: &str) -> String {
    d.script("prereq.ad", SCRIPT);
    let args = [
        "run",
        "prereq.ad",
        "--backend",
        "agent-device",
        "--platform",
        "linux",
    ];
    let out = d.ad(&args);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains(&format!(
            "error[BACKEND_UNAVAILABLE]: the agent-device backend cannot start: {problem}"
        )),
        "{err}"
    );
    // Before step 1: no step is pointed at.
    assert!(!err.contains("  --> prereq.ad:"), "{err}");
    for divergence in [
        "REPLAY_DIVERGENCE",
        "Repair hint",
        "--plan-digest",
        "--from",
    ] {
        assert!(!err.contains(divergence), "{divergence}: {err}");
    }
    let mut json_args = args.to_vec();
    json_args.push("--json");
    let r = json(&d.ad(&json_args));
    assert_eq!(r["error"]["code"], "BACKEND_UNAVAILABLE", "{r:#}");
    assert_eq!(r["replayed"], 0, "{r:#}");
    assert!(r["error"]["step"].is_null(), "{r:#}");
    assert_eq!(r["runDir"].as_str().unwrap_or(""), "", "{r:#}");
    assert!(
        !d.dir.join(".ad").exists() || !walk_has_journal(&d.dir.join(".ad")),
        "a journal was written"
    );
    assert!(d.app_pid(Duration::ZERO).is_none(), "the app was opened");
    err
}

fn walk_has_journal(dir: &Path) -> bool {
    std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .any(|e| {
            let p = e.path();
            if p.is_dir() {
                walk_has_journal(&p)
            } else {
                p.file_name().is_some_and(|n| n == "events.jsonl")
            }
        })
}

#[test]
fn a_python3_without_gi_first_on_path_is_named_by_doctor_and_stops_the_run_before_step_1() {
    let mut d = Desktop::start("prereq-no-gi");
    let shim = python_without_gi(&d);
    let path = format!("{}:{}", shim.display(), desktop_path());
    d.set_env("PATH", &path);
    let python = shim.join("python3");
    let problem = format!(
        "the first python3 on PATH ({} → /usr/bin/python3) cannot import gi (No module named 'gi')",
        python.display()
    );
    let row = assert_doctor_names(&d, &problem);
    // What to install, and the python3 that has it.
    assert!(
        row.contains("apt-get install python3-gi gir1.2-atspi-2.0"),
        "{row}"
    );
    assert!(
        row.contains("put /usr/bin/python3 (which has them) first on PATH"),
        "{row}"
    );
    let err = assert_run_stops_before_step_1(&d, &problem);
    assert!(
        err.contains("help: install gi and AT-SPI 2.0 for it (Debian/Ubuntu: `apt-get install python3-gi gir1.2-atspi-2.0`"),
        "{err}"
    );
    // `ad test` counts the script as an error of the environment, with the same words.
    let out = d.ad(&["test", "prereq.ad", "--backend", "agent-device"]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{}\n{err}", stdout(&out));
    assert!(err.contains(&problem), "{err}");
    assert!(!err.contains("REPLAY_DIVERGENCE"), "{err}");
    assert!(d.app_pid(Duration::ZERO).is_none(), "the app was opened");
    // A live session's open says the same, and no session is left.
    let out = d.ad(&[
        "session",
        "open",
        "ad-gtk-login",
        "--backend",
        "agent-device",
        "--platform",
        "linux",
        "--json",
    ]);
    let v = json(&out);
    assert_eq!(v["ok"], false, "{v:#}");
    assert_eq!(v["code"], "BACKEND_UNAVAILABLE", "{v:#}");
    assert_eq!(v["sessionActive"], false, "{v:#}");
    assert!(
        v["message"].as_str().unwrap_or("").contains(&problem),
        "{v:#}"
    );
    assert!(d.app_pid(Duration::ZERO).is_none(), "the app was opened");
}

/// The PATH the desktop gives `ad` (Debian's python3 first, the GTK app on it).
fn desktop_path() -> String {
    format!(
        "/usr/bin:{}:{}",
        agent_device_support::repo()
            .join("tests/apps/gtk_login")
            .display(),
        std::env::var("PATH").unwrap_or_default()
    )
}

#[test]
fn no_accessibility_bus_is_named_by_doctor_and_stops_the_run_before_step_1() {
    let mut d = Desktop::start("prereq-no-bus");
    // A session bus address where nothing listens: libatspi cannot reach the accessibility bus.
    let nowhere = d.dir.join("no-bus");
    d.set_env(
        "DBUS_SESSION_BUS_ADDRESS",
        &format!("unix:path={}", nowhere.display()),
    );
    let problem = "the AT-SPI accessibility bus does not answer";
    let row = assert_doctor_names(&d, problem);
    assert!(row.contains("apt-get install at-spi2-core"), "{row}");
    assert_run_stops_before_step_1(&d, problem);
}

#[test]
fn a_display_nobody_serves_or_no_display_is_named_by_doctor_and_stops_the_run_before_step_1() {
    let mut d = Desktop::start("prereq-no-x");
    d.set_env("DISPLAY", ":4711");
    let problem = "no X server at DISPLAY=:4711 (no /tmp/.X11-unix/X4711)";
    let row = assert_doctor_names(&d, problem);
    assert!(
        row.contains("xvfb-run -a dbus-run-session -- ad run"),
        "{row}"
    );
    assert_run_stops_before_step_1(&d, problem);

    // No display at all: doctor says so too (the run is agent_device_e2e's test).
    d.set_env("DISPLAY", "");
    assert_doctor_names(
        &d,
        "no display: DISPLAY and WAYLAND_DISPLAY are unset, and the Linux platform drives a desktop session",
    );
}

#[test]
fn a_device_another_agent_device_session_holds_is_a_set_up_error_in_ads_terms() {
    let mut d = Desktop::start("prereq-held");
    d.start_daemon();
    // The agent-device CLI opens the app in a session of its own, on the daemon ad attaches to.
    let opened = d.agent_device(&[
        "open",
        "ad-gtk-login",
        "--platform",
        "linux",
        "--session",
        "holder",
        "--json",
    ]);
    assert!(opened.status.success(), "{}", stdout(&opened));
    d.script("held.ad", SCRIPT);
    let out = d.ad(&["run", "held.ad", "--backend", "agent-device"]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("error[BACKEND_UNAVAILABLE]: the agent-device backend cannot start: the device is held by another agent-device session, \"holder\""),
        "{err}"
    );
    assert!(
        err.contains("help: end that session first: `ad session close --session holder` when it is an ad session, `agent-device close --session holder` when the agent-device CLI opened it; or run on another device (`--device NAME`"),
        "{err}"
    );
    // Not agent-device's hint (its --session is not ad's), no divergence, no resume.
    for divergence in [
        "rerun the command with --session",
        "REPLAY_DIVERGENCE",
        "Repair hint",
        "--plan-digest",
        "--from",
    ] {
        assert!(!err.contains(divergence), "{divergence}: {err}");
    }
    // The holder's session is untouched: the agent-device CLI still drives it, then ends it.
    let snap = d.agent_device(&[
        "snapshot",
        "--platform",
        "linux",
        "--session",
        "holder",
        "--json",
    ]);
    assert!(snap.status.success(), "{}", stdout(&snap));
    let closed = d.agent_device(&["close", "--session", "holder", "--json"]);
    assert!(closed.status.success(), "{}", stdout(&closed));
}
