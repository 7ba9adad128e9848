//! A repair-armed run through the agent-device bridge (docs/repair.md, issue 32) on the GTK test
//! app (tests/apps/gtk_login) in a virtual desktop: a script recorded against the app with `ad
//! session … --backend agent-device`, then the sign-in button relabelled (AD_GTK_SIGN_IN_LABEL);
//! `ad run FILE --backend agent-device --platform linux --save-script` diverges and holds the
//! session (the agent-device daemon `ad` started and the app stay live in ad's session daemon);
//! `ad session click …` performs the step; the printed `--from N --plan-digest D` resume
//! continues; `ad session close` commits `<basename>.healed.ad` ending in
//! `# agent-device:heal-complete`, which passes `ad check`, `ad fmt --check` and agent-device's
//! reader and replays to the end on the changed app; nothing is left running.
//!
//! Needs xvfb, dbus, AT-SPI, python3-gi and agent-device; a missing one fails the test with what
//! to install (scripts/test-all.sh installs them).

mod agent_device_support;
mod common;

use std::time::Duration;

use agent_device_support::{
    alive, assert_valid_script, gone_within, listed, no_daemon_left, ok, record_login,
    session_daemon_stops, text, Desktop, LINUX,
};
use serde_json::Value;

/// The app, every agent-device daemon `ad` started for the desktop and ad's session daemon are
/// all gone.
fn nothing_left(d: &Desktop, app: i32, after: &str) {
    assert!(
        gone_within(app, Duration::from_secs(10)),
        "the app outlived {after}"
    );
    assert!(
        no_daemon_left(d, Duration::from_secs(10)),
        "the agent-device daemon outlived {after}"
    );
    assert!(
        session_daemon_stops(d, Duration::from_secs(20)),
        "ad's session daemon outlived {after}"
    );
}

#[test]
fn a_relabelled_gtk_button_is_repaired_through_the_bridge_and_the_healed_script_replays() {
    let mut d = Desktop::start("repair");
    d.set_env("AD_SESSION_IDLE_MS", "2000");

    // Recorded against the app as it was, with evidence.
    let app = record_login(&d, "login.ad", &[r#"label="Sign In""#], true);
    ok(&d, &["session", "close", "--session", "rec"]);
    nothing_left(&d, app, "the recording session");
    let _ = std::fs::remove_file(d.dir.join("app.pid"));
    let script = d.dir.join("login.ad");
    let original = std::fs::read_to_string(&script).unwrap();
    assert!(
        original.contains(r#"click "label=\"Sign In\"""#) && original.ends_with("close\n"),
        "{original}"
    );

    // The app changed under the script.
    d.set_env("AD_GTK_SIGN_IN_LABEL", "Log In");

    // Arm: the run diverges at the click (step 4) and holds the session for the repair.
    let mut arm = vec!["run", "login.ad"];
    arm.extend(LINUX);
    arm.extend(["--session", "fix", "--save-script"]);
    let first = d.ad(&arm);
    let out = text(&first);
    assert_eq!(first.status.code(), Some(1), "{out}");
    assert!(out.contains("Divergence at step 4"), "{out}");
    assert!(out.contains("Repair hint: record-and-heal"), "{out}");
    assert!(out.contains("is held live in ad's session daemon"), "{out}");
    let command = out
        .split('`')
        .skip(1)
        .step_by(2)
        .find(|s| s.starts_with("ad run ") && s.contains("--from 5 --plan-digest "))
        .unwrap_or_else(|| panic!("no resume command at step 5:\n{out}"))
        .to_string();
    // The run folder's records say the session is held, as the reply does.
    let journal = out
        .lines()
        .find_map(|l| l.split("; journal ").nth(1))
        .expect("the journal line");
    let run_dir = d.dir.join(journal.trim());
    let run: Value =
        serde_json::from_str(&std::fs::read_to_string(run_dir.join("run.json")).unwrap()).unwrap();
    let resume = &run["error"]["divergence"]["resume"];
    assert_eq!(resume["allowed"], true, "{run:#}");
    assert_eq!(resume["repairSessionHeld"], true, "{run:#}");
    assert_eq!(run["error"]["resume_command"], command.as_str(), "{run:#}");
    let events = std::fs::read_to_string(run_dir.join("events.jsonl")).unwrap();
    let divergence: Value = events
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .find(|e| e["event"] == "divergence")
        .expect("the journal's divergence event");
    assert_eq!(
        divergence["report"]["resume"]["repairSessionHeld"], true,
        "{divergence:#}"
    );
    // What the repair needs is still there: the agent-device daemon `ad` started, and the app.
    let app = d
        .app_pid(Duration::from_secs(5))
        .expect("the run opened the app");
    let daemon = d
        .owned_daemon()
        .expect("the run started an agent-device daemon");
    assert!(alive(app) && alive(daemon), "the held session ended");
    let line = listed(&d, "fix");
    assert!(
        line.contains("repair-armed") && line.contains("3 recorded action(s)"),
        "{line}"
    );

    // A fresh run is refused while the repair is held; the corrective click is recorded.
    let mut fresh = vec!["run", "login.ad"];
    fresh.extend(LINUX);
    fresh.extend(["--session", "fix"]);
    let o = d.ad(&fresh);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(
        text(&o).contains("active --save-script repair run"),
        "{}",
        text(&o)
    );
    ok(
        &d,
        &["session", "click", r#"label="Log In""#, "--session", "fix"],
    );
    assert!(listed(&d, "fix").contains("4 recorded action(s)"));

    // The printed resume, run verbatim, continues the transaction to the end of the script.
    let argv = common::command_words(&command);
    let resumed = d.ad(&argv.iter().map(String::as_str).collect::<Vec<_>>());
    let out = text(&resumed);
    assert_eq!(resumed.status.code(), Some(0), "{out}");
    assert!(out.contains("ok: login.ad"), "{out}");
    assert!(
        listed(&d, "fix").contains("repair-complete"),
        "the run reached the end"
    );
    assert!(
        alive(app),
        "the terminal close is skipped while repair-armed"
    );

    // Commit: the healed script beside the original, and the session ends with everything it
    // held.
    let closed = ok(&d, &["session", "close", "--session", "fix"]);
    let healed = d.dir.join("login.healed.ad");
    assert!(
        text(&closed).contains(&healed.display().to_string()),
        "{}",
        text(&closed)
    );
    nothing_left(&d, app, "the commit");
    assert!(!alive(daemon));
    let _ = std::fs::remove_file(d.dir.join("app.pid"));
    assert_eq!(std::fs::read_to_string(&script).unwrap(), original);
    let healed_text = std::fs::read_to_string(&healed).unwrap();
    assert!(
        healed_text.starts_with("context platform=linux")
            && healed_text.ends_with("close\n# agent-device:heal-complete\n"),
        "{healed_text}"
    );
    let lines: Vec<&str> = healed_text.lines().collect();
    let click = lines
        .iter()
        .position(|l| l.starts_with("click "))
        .expect("the corrective click");
    assert_eq!(lines[click], r#"click "label=\"Log In\"""#, "{healed_text}");
    assert!(
        lines[click - 1].starts_with("# agent-device:target-v1 ")
            && lines[click - 1].contains(r#""label":"Log In""#),
        "{healed_text}"
    );
    assert!(!healed_text.contains("Sign In"), "{healed_text}");
    assert!(
        healed_text.contains(r#"wait "label=\"Welcome, alice\"""#),
        "{healed_text}"
    );
    assert_eq!(healed_text.matches("\nopen ").count(), 1, "{healed_text}");
    assert_valid_script(&d, &healed);

    // The healed script replays to the end on the changed app, and its close ends everything.
    let mut replay = vec!["run", "login.healed.ad"];
    replay.extend(LINUX);
    let o = d.ad(&replay);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert!(text(&o).contains("ok: login.healed.ad"), "{}", text(&o));
    let app = d
        .app_pid(Duration::ZERO)
        .expect("the replay opened the app");
    nothing_left(&d, app, "the healed script's replay");
}
