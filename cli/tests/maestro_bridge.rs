//! `ad run --maestro` through the agent-device bridge (issue 33): a Maestro flow drives the GTK3
//! test app (tests/apps/gtk_login) with agent-device 0.21.5's Linux platform on a virtual
//! display — taps by text, typing, assertions, `stopApp` — passes with the injected value kept
//! out of the journal, and a flow asserting what the app never shows fails at its YAML line with
//! a divergence report; the daemon and app `ad` started are gone after both.
//!
//! Needs xvfb, dbus, AT-SPI, python3-gi and agent-device; a missing one fails the test with what
//! to install (scripts/test-all.sh installs them).

mod agent_device_support;

use std::path::Path;
use std::time::Duration;

use agent_device_support::{gone_within, Desktop};

const LOGIN: &str = "appId: ad-gtk-login
---
- launchApp
- tapOn: Username
- inputText: alice
- tapOn: Password
- inputText: ${PASSWORD}
- tapOn: Sign In
- assertVisible: Welcome, alice
- tapOn: Bananas
- assertVisible: \"Chosen: Bananas\"
- stopApp
";

fn stderr(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn walk(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else if p.is_file() {
            out.push(p);
        }
    }
    out
}

fn run(d: &Desktop, flow: &str) -> std::process::Output {
    d.ad(&[
        "run",
        "--maestro",
        flow,
        "--backend",
        "agent-device",
        "--platform",
        "linux",
        "-e",
        "PASSWORD=hunter2",
    ])
}

/// The run folder `ad run` names on its last line (`… journal DIR`).
fn journal(d: &Desktop, err: &str) -> std::path::PathBuf {
    d.dir
        .join(err.trim_end().rsplit("journal ").next().unwrap().trim())
}

#[test]
fn a_flow_drives_the_gtk_app_through_the_bridge_and_leaves_nothing_running() {
    let d = Desktop::start("maestro-login");
    d.script("login.yaml", LOGIN);
    let out = run(&d, "login.yaml");
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert!(err.contains("ok: login.yaml — 10 step(s) run"), "{err}");
    let run_dir = journal(&d, &err);
    let events = std::fs::read_to_string(run_dir.join("events.jsonl")).unwrap();
    assert_eq!(events.matches("\"event\":\"step_end\"").count(), 10);
    for f in walk(&run_dir) {
        let bytes = std::fs::read(&f).unwrap();
        assert!(
            !String::from_utf8_lossy(&bytes).contains("hunter2"),
            "{} holds the injected value",
            f.display()
        );
    }
    let app = d.app_pid(Duration::ZERO).expect("the app ran");
    assert!(
        gone_within(app, Duration::from_secs(5)),
        "the app outlived ad"
    );
}

#[test]
fn a_flow_the_app_disagrees_with_fails_at_its_line_through_the_bridge() {
    let d = Desktop::start("maestro-wrong");
    d.script(
        "wrong.yaml",
        &LOGIN.replace("Welcome, alice", "Welcome, somebody else"),
    );
    let out = run(&d, "wrong.yaml");
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("--> wrong.yaml:9"), "{err}");
    assert!(err.contains("Welcome, somebody else"), "{err}");
    let app = d.app_pid(Duration::ZERO).expect("the app ran");
    assert!(
        gone_within(app, Duration::from_secs(5)),
        "the app outlived ad"
    );
}
