//! The resume a failing `ad run --backend agent-device --platform linux` offers works (issue 31),
//! on the GTK test app (tests/apps/gtk_login) in a virtual desktop, with no agent-device daemon
//! running beforehand (so `ad` starts one): the report prints the command with the options that
//! chose the backend and device; ad's session daemon keeps the agent-device daemon, its session
//! and the app for it; the command, run verbatim once the cause is gone, resumes at the failed
//! step and passes; and whatever was kept ends: with the resumed run's `close`, with
//! `ad session close`, or when the kept session is reaped unused.
//!
//! Needs xvfb, dbus, AT-SPI, python3-gi and agent-device; a missing one fails the test with what
//! to install (scripts/test-all.sh installs them).

mod agent_device_support;
mod common;

use std::process::Output;
use std::time::Duration;

use agent_device_support::{alive, gone_within, json, Desktop};
use serde_json::Value;

/// The welcome screen takes 3 s (AD_GTK_WELCOME_MS): the 500 ms wait diverges; once the
/// screen is there, the wait passes.
const SLOW: &str = r#"context platform=linux
open ad-gtk-login
fill "label=Username" "alice"
fill "label=Password" "secret"
click "label=\"Sign In\""
wait "label=\"Welcome, alice\"" 500
click "label=Cherries"
wait "label=\"Chosen: Cherries\"" 5000
close
"#;

fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

/// The desktop with the slow welcome screen, the script, and a session daemon that stops soon
/// after its last session ends.
fn desktop(name: &str) -> Desktop {
    let mut d = Desktop::start(name);
    d.set_env("AD_GTK_WELCOME_MS", "3000");
    d.set_env("AD_SESSION_IDLE_MS", "3000");
    d.script("slow.ad", SLOW);
    d
}

/// Waits until ad's session daemon for this desktop has stopped (its socket is removed when
/// it ends); false if it is still there after `within`.
fn session_daemon_stops(d: &Desktop, within: Duration) -> bool {
    let sock = d.dir.join("ad-state").join("daemon.sock");
    let end = std::time::Instant::now() + within;
    while std::time::Instant::now() < end {
        if !sock.exists() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    !sock.exists()
}

/// The first run, as a user types it: it diverges at the wait (step 5) and prints the resume.
/// The command the terminal report offers, and the app's PID.
fn diverge(d: &Desktop, session: &str) -> (String, i32) {
    let first = d.ad(&[
        "run",
        "slow.ad",
        "--backend",
        "agent-device",
        "--platform",
        "linux",
        "--session",
        session,
    ]);
    let out = text(&first);
    assert_eq!(first.status.code(), Some(1), "{out}");
    assert!(out.contains("Divergence at step 5"), "{out}");
    let command = out
        .split('`')
        .skip(1)
        .step_by(2)
        .find(|s| s.starts_with("ad run ") && s.contains("--from 5"))
        .unwrap_or_else(|| panic!("no resume command at step 5:\n{out}"))
        .to_string();
    let argv = common::command_words(&command);
    for pair in [
        ["--backend", "agent-device"],
        ["--platform", "linux"],
        ["--session", session],
    ] {
        assert!(
            argv.windows(2).any(|w| w == pair),
            "{pair:?} missing from {command}"
        );
    }
    assert!(!out.contains("cannot currently be resumed"), "{out}");
    // The run folder's record says the same.
    let journal = out
        .lines()
        .find_map(|l| l.split("; journal ").nth(1))
        .expect("the journal line");
    let run: Value = serde_json::from_str(
        &std::fs::read_to_string(d.dir.join(journal.trim()).join("run.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(
        run["error"]["divergence"]["resume"]["allowed"], true,
        "{run:#}"
    );
    assert_eq!(run["error"]["resume_command"], command.as_str(), "{run:#}");
    let app = d
        .app_pid(Duration::from_secs(5))
        .expect("the run opened the app");
    (command, app)
}

#[test]
fn the_printed_resume_command_run_verbatim_resumes_and_passes_then_nothing_is_left() {
    let d = desktop("resume-verbatim");
    let (command, app) = diverge(&d, "calc");
    // What the resume needs is still there: the agent-device daemon `ad` started, and the app.
    let daemon = d
        .owned_daemon()
        .expect("the run started an agent-device daemon");
    assert!(
        alive(daemon),
        "the agent-device daemon ended with the failed run"
    );
    assert!(alive(app), "the app ended with the failed run");
    // The cause goes away: the welcome screen shows after its 3 s.
    std::thread::sleep(Duration::from_secs(3));
    let argv = common::command_words(&command);
    let resumed = d.ad(&argv.iter().map(String::as_str).collect::<Vec<_>>());
    let out = text(&resumed);
    assert_eq!(resumed.status.code(), Some(0), "{out}");
    assert!(out.contains("4 step(s) replayed"), "steps 5 to 8:\n{out}");
    // The same app window all along, and the script's `close` ended everything ad started.
    assert!(
        gone_within(daemon, Duration::from_secs(10)),
        "the agent-device daemon outlived the resumed run"
    );
    assert!(
        gone_within(app, Duration::from_secs(10)),
        "the app outlived the resumed run"
    );
    let list = d.ad(&["session", "list", "--json"]);
    assert!(!text(&list).contains("\"calc\""), "{}", text(&list));
}

#[test]
fn a_kept_session_ends_with_ad_session_close() {
    let d = desktop("resume-closed");
    let (_, app) = diverge(&d, "kept");
    let daemon = d
        .owned_daemon()
        .expect("the run started an agent-device daemon");
    let list = json(&d.ad(&["session", "list", "--json"]));
    assert!(list.to_string().contains("\"kept\""), "{list:#}");
    let closed = d.ad(&["session", "close", "--session", "kept", "--json"]);
    assert_eq!(json(&closed)["ok"], true, "{}", text(&closed));
    assert!(
        gone_within(daemon, Duration::from_secs(10)),
        "the agent-device daemon outlived `ad session close`"
    );
    assert!(
        gone_within(app, Duration::from_secs(10)),
        "the app outlived `ad session close`"
    );
    assert!(
        session_daemon_stops(&d, Duration::from_secs(20)),
        "ad's session daemon outlived its last session"
    );
}

#[test]
fn a_kept_session_nobody_resumes_is_reaped_with_everything_it_holds() {
    let mut d = desktop("resume-reaped");
    // Unattended: the session daemon reaps the kept session once it has been unused for its
    // reap time (here its idle time, 3 s), and then stops.
    d.set_env("AD_SESSION_REAP_MS", "1000");
    let (_, app) = diverge(&d, "unattended");
    let daemon = d
        .owned_daemon()
        .expect("the run started an agent-device daemon");
    assert!(
        gone_within(daemon, Duration::from_secs(30)),
        "the agent-device daemon outlived the reap"
    );
    assert!(
        gone_within(app, Duration::from_secs(10)),
        "the app outlived the reap"
    );
    assert!(
        session_daemon_stops(&d, Duration::from_secs(20)),
        "ad's session daemon outlived its reaped session"
    );
}
