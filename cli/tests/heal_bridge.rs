//! `ad heal` through the agent-device bridge (docs/repair.md, "Heal proposals", issue 32) on the
//! GTK test app (tests/apps/gtk_login) in a virtual desktop: a script recorded against the app
//! with `ad session … --backend agent-device`, then the app changed under it;
//! `ad heal FILE --backend agent-device --platform linux` runs its search on the app. The sign-in
//! button relabelled (AD_GTK_SIGN_IN_LABEL): the relabel is proposed and proven by a fresh run of
//! the whole changed script on the app, nothing written; `--write` commits a healed script that
//! passes `ad check`, `ad fmt --check` and agent-device's reader and replays to the end on the
//! changed app. A checkbox that became a toggle button (the same label under another role,
//! AD_GTK_SWAP) changed the step's intent: a human repairs it, with the repair-armed command.
//! After the heal's runs no app and no agent-device daemon is left.
//!
//! Needs xvfb, dbus, AT-SPI, python3-gi and agent-device; a missing one fails the test with what
//! to install (scripts/test-all.sh installs them).

mod agent_device_support;
mod common;

use std::time::{Duration, Instant};

use agent_device_support::{
    assert_valid_script, gone_within, ok, record_login, text, Desktop, LINUX,
};
use common::changed_lines;

/// The processes this desktop's runs left: the test app and agent-device (its daemon), found by
/// the desktop's own device-claims folder in their environment (every agent-device process `ad`
/// starts for this desktop, and the apps they launch, carry it), with their command lines.
fn leftovers(d: &Desktop) -> Vec<(i32, String)> {
    let claims = format!(
        "AGENT_DEVICE_CLAIMS_DIR={}",
        d.dir.join("device-claims").display()
    );
    let mut out = Vec::new();
    for e in std::fs::read_dir("/proc").unwrap().flatten() {
        let Some(pid) = e.file_name().to_str().and_then(|s| s.parse::<i32>().ok()) else {
            continue;
        };
        let Ok(environ) = std::fs::read(format!("/proc/{pid}/environ")) else {
            continue;
        };
        if !environ.split(|b| *b == 0).any(|kv| kv == claims.as_bytes()) {
            continue;
        }
        let cmdline = std::fs::read(format!("/proc/{pid}/cmdline"))
            .map(|c| String::from_utf8_lossy(&c).replace('\0', " "))
            .unwrap_or_default();
        if (cmdline.contains("ad-gtk-login") || cmdline.contains("agent-device"))
            && agent_device_support::alive(pid)
        {
            out.push((pid, cmdline));
        }
    }
    out
}

/// Nothing the runs started is left after `within` (the list of what is, otherwise).
fn nothing_left(d: &Desktop, within: Duration) -> Result<(), Vec<(i32, String)>> {
    let end = Instant::now() + within;
    loop {
        let left = leftovers(d);
        if left.is_empty() {
            return Ok(());
        }
        if Instant::now() > end {
            return Err(left);
        }
        std::thread::sleep(Duration::from_millis(200));
    }
}

/// Records `login.ad` against the app as it is (username, password, a click on each of
/// `clicks`, the welcome screen, close) with `ad session … --backend agent-device`, checks that
/// the session left nothing running, and returns the script.
fn record(d: &Desktop, clicks: &[&str]) -> String {
    let app = record_login(d, "login.ad", clicks, true);
    // What the leftover check looks for is there while a session holds it.
    let held = leftovers(d);
    assert!(
        held.iter().any(|(pid, _)| *pid == app) && held.len() >= 2,
        "the app and its agent-device daemon: {held:?}"
    );
    ok(d, &["session", "close", "--session", "rec"]);
    assert!(gone_within(app, Duration::from_secs(10)));
    if let Err(left) = nothing_left(d, Duration::from_secs(20)) {
        panic!("the recording session left {left:?}");
    }
    std::fs::read_to_string(d.dir.join("login.ad")).unwrap()
}

#[test]
fn a_checkbox_that_became_a_toggle_button_needs_a_human_through_the_bridge_and_nothing_is_left() {
    let mut d = Desktop::start("heal-intent");
    d.set_env("AD_SESSION_IDLE_MS", "2000");
    let original = record(&d, &[r#"label="Remember me""#, r#"label="Sign In""#]);
    assert!(
        original.contains(r#""role":"checkbox","label":"Remember me""#),
        "{original}"
    );
    // "Remember me" is now a toggle button: the same label under another role. Acting on it
    // would change what the step means, whatever a run says: no proposal, a human repairs it.
    d.set_env("AD_GTK_SWAP", "1");
    let mut heal = vec!["heal", "login.ad"];
    heal.extend(LINUX);
    heal.push("--write");
    let o = d.ad(&heal);
    let out = text(&o);
    assert_eq!(o.status.code(), Some(1), "{out}");
    assert!(out.contains("needs a human: "), "{out}");
    assert!(out.contains("step 4 (line "), "{out}");
    assert!(out.contains("IDENTITY_MISMATCH"), "{out}");
    assert!(
        out.contains("another kind of element (button where a checkbox was recorded)"),
        "{out}"
    );
    assert!(
        out.contains("    ad run login.ad --backend agent-device --platform linux --save-script\n"),
        "{out}"
    );
    assert!(!out.contains("proposal 1"), "{out}");
    assert!(!d.dir.join("login.healed.ad").exists(), "{out}");
    assert_eq!(
        std::fs::read_to_string(d.dir.join("login.ad")).unwrap(),
        original
    );
    if let Err(left) = nothing_left(&d, Duration::from_secs(20)) {
        panic!("the heal's runs left {left:?}:\n{out}");
    }
}

#[test]
fn a_relabelled_gtk_button_is_healed_through_the_bridge_and_nothing_is_left_running() {
    let mut d = Desktop::start("heal");
    // From here: the desktop is this test's (Desktop::start waits for any other one to end).
    let started = Instant::now();
    d.set_env("AD_SESSION_IDLE_MS", "2000");

    // Recorded against the app as it was, with evidence.
    let original = record(&d, &[r#"label="Sign In""#]);
    let script = d.dir.join("login.ad");
    assert!(
        original.contains(r#"click "label=\"Sign In\"""#) && original.ends_with("close\n"),
        "{original}"
    );

    // The app changed under the script.
    d.set_env("AD_GTK_SIGN_IN_LABEL", "Log In");

    // A proposal, proven by a fresh run of the whole changed script on the app; nothing written.
    let mut heal = vec!["heal", "login.ad"];
    heal.extend(LINUX);
    let t0 = Instant::now();
    let o = d.ad(&heal);
    let heal_wall = t0.elapsed();
    let out = text(&o);
    assert_eq!(o.status.code(), Some(0), "{out}");
    assert!(out.contains("proposal 1: step 4 (line "), "{out}");
    assert!(out.contains("selector-miss"), "{out}");
    assert!(
        out.contains(r#"evidence changed: label: "Sign In" → "Log In""#),
        "{out}"
    );
    assert!(
        out.contains(
            "proven by: a fresh run of the whole changed script on agent-device: passed, 6 of 6 step(s) replayed"
        ),
        "{out}"
    );
    let changed = changed_lines(&out);
    assert_eq!(
        changed.len(),
        4,
        "only the click and its annotation change: {out}"
    );
    assert!(
        changed.contains(&r#"+click "role=\"button\" label=\"Log In\"""#),
        "the click's new selector: {out}"
    );
    assert!(
        changed
            .iter()
            .any(|l| l.starts_with("+# agent-device:target-v1 ")
                && l.contains(r#""label":"Log In""#)),
        "{out}"
    );
    assert!(out.contains("nothing written: pass --write"), "{out}");
    assert!(!d.dir.join("login.healed.ad").exists());
    assert_eq!(std::fs::read_to_string(&script).unwrap(), original);
    // Every run of the heal ended what it started: each app it opened and each agent-device
    // daemon.
    if let Err(left) = nothing_left(&d, Duration::from_secs(20)) {
        panic!("the heal's runs left {left:?}:\n{out}");
    }

    // --write commits it beside the script.
    heal.push("--write");
    let o = d.ad(&heal);
    let out = text(&o);
    assert_eq!(o.status.code(), Some(0), "{out}");
    assert!(out.contains("wrote login.healed.ad"), "{out}");
    assert_eq!(std::fs::read_to_string(&script).unwrap(), original);
    let healed = d.dir.join("login.healed.ad");
    let healed_text = std::fs::read_to_string(&healed).unwrap();
    assert!(
        healed_text.ends_with("close\n# agent-device:heal-complete\n"),
        "{healed_text}"
    );
    assert!(
        healed_text.contains(r#"click "role=\"button\" label=\"Log In\"""#)
            && !healed_text.contains(r#"label=\"Sign In\"""#),
        "{healed_text}"
    );
    assert_eq!(
        healed_text.lines().count(),
        original.lines().count() + 1,
        "{healed_text}"
    );
    assert_valid_script(&d, &healed);
    if let Err(left) = nothing_left(&d, Duration::from_secs(20)) {
        panic!("the heal --write's runs left {left:?}");
    }

    // The healed script replays to the end on the changed app, and leaves nothing.
    let mut replay = vec!["run", "login.healed.ad"];
    replay.extend(LINUX);
    let o = d.ad(&replay);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert!(text(&o).contains("ok: login.healed.ad"), "{}", text(&o));
    if let Err(left) = nothing_left(&d, Duration::from_secs(20)) {
        panic!("the healed script's replay left {left:?}");
    }
    eprintln!(
        "heal_bridge: the heal took {:.1} s; the whole test {:.1} s",
        heal_wall.as_secs_f64(),
        started.elapsed().as_secs_f64()
    );
}
