//! The empty-tail resume of a plain run's live session (docs/repair.md, issue 32), through the
//! agent-device bridge on the GTK test app (tests/apps/gtk_login) in a virtual desktop: a plain
//! `ad run` (not repair-armed) of a script whose LAST step is the sign-in click diverges there,
//! and ad's session daemon keeps its agent-device session live; the divergence's watermark
//! expects `--from N+1` (= actions + 1). As agent-device's `resolveEntryIndex` does, that resume
//! is refused until an action was performed on the session, then admitted: it runs no step, and
//! the session stays live as it was (the same app, the same agent-device daemon).
//!
//! Needs xvfb, dbus, AT-SPI, python3-gi and agent-device; a missing one fails the test with what
//! to install (scripts/test-all.sh installs them).

mod agent_device_support;

use std::time::Duration;

use agent_device_support::{
    alive, close_recording, gone_within, json, listed, no_daemon_left, ok, record_login, text,
    Desktop, LINUX,
};

#[test]
fn a_plain_resume_at_the_empty_tail_runs_no_step_once_the_last_step_was_performed() {
    let mut d = Desktop::start("repair-empty-tail");
    d.set_env("AD_SESSION_IDLE_MS", "2000");
    // A failed assertion leaves the held session (and the agent-device daemon it started) to
    // the session daemon's reap: a minute unused, not the default hour.
    d.set_env("AD_SESSION_REAP_MS", "60000");
    // Recorded against the app before its sign-in button was relabelled (with evidence); the
    // published flow's terminal close is dropped so that the click is the plan's last step (the
    // profile set to flow: a close-less script with evidence would be checked as a handoff).
    let app = record_login(&d, "recorded.ad", &[r#"label="Sign In""#], false);
    close_recording(&d, app);
    let recorded = std::fs::read_to_string(d.dir.join("recorded.ad")).unwrap();
    let script = recorded
        .strip_suffix("close\n")
        .unwrap_or_else(|| panic!("{recorded}"));
    d.script("login.ad", script);
    d.script("ad.toml", "[check]\nprofile = \"flow\"\n");
    ok(&d, &["check", "login.ad"]);
    d.set_env("AD_GTK_SIGN_IN_LABEL", "Log In");

    // A plain run diverges at its last step; its agent-device session is kept for the resume.
    let mut run = vec!["run", "login.ad"];
    run.extend(LINUX);
    run.extend(["--session", "fix", "--json"]);
    let o = d.ad(&run);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let r = json(&o);
    assert_eq!(r["total"], 4, "{r}");
    let dv = &r["error"]["details"]["divergence"];
    assert_eq!(dv["step"]["index"], 4, "{r}");
    assert_eq!(dv["repairHint"], "record-and-heal", "{r}");
    assert_eq!(
        (
            dv["resume"]["allowed"].clone(),
            dv["resume"]["from"].clone()
        ),
        (serde_json::json!(true), serde_json::json!(5)),
        "the empty tail, actions + 1: {r}"
    );
    let digest = dv["resume"]["planDigest"].as_str().unwrap().to_string();
    let app = d.app_pid(Duration::from_secs(5)).expect("the run's app");
    let daemon = d.owned_daemon().expect("the run's agent-device daemon");

    let mut resume = vec!["run", "login.ad"];
    resume.extend(LINUX);
    resume.extend([
        "--session",
        "fix",
        "--from",
        "5",
        "--plan-digest",
        &digest,
        "--json",
    ]);
    // Before the step was performed: refused, before any step, the session as it was.
    let o = d.ad(&resume);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(
        text(&o).contains("--from 5 continues a record-and-heal-shaped repair, but no corrective action was recorded"),
        "{}",
        text(&o)
    );
    assert!(alive(app) && alive(daemon), "a refused resume ends nothing");
    // Any resume of the live session is checked before anything ends it, with agent-device's
    // words: beyond the empty tail, and at an earlier step with another digest.
    let mut beyond = resume.clone();
    let at = beyond.iter().position(|a| *a == "5").unwrap();
    beyond[at] = "6";
    let o = d.ad(&beyond);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(
        text(&o).contains("--from 6 is out of range for a 4-step plan."),
        "{}",
        text(&o)
    );
    let other = "0".repeat(64);
    let mut earlier = resume.clone();
    earlier[at] = "4";
    let d_at = earlier.iter().position(|a| *a == digest.as_str()).unwrap();
    earlier[d_at] = &other;
    let o = d.ad(&earlier);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(
        text(&o).contains("--plan-digest does not match the current plan digest"),
        "{}",
        text(&o)
    );
    assert!(
        alive(app) && alive(daemon) && listed(&d, "fix").contains("recording unarmed"),
        "a refused resume ends nothing"
    );
    // Another digest is refused too (the watermark's N is in range, the digest is checked).
    let mut wrong = resume.clone();
    let at = wrong.iter().position(|a| *a == digest.as_str()).unwrap();
    wrong[at] = &other;
    ok(
        &d,
        &["session", "click", r#"label="Log In""#, "--session", "fix"],
    );
    let o = d.ad(&wrong);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(
        text(&o).contains("--plan-digest does not match the current plan digest"),
        "{}",
        text(&o)
    );
    assert!(alive(app) && alive(daemon), "a refused resume ends nothing");

    // The step performed by hand, the empty tail is admitted: no step runs, the session stays.
    let o = d.ad(&resume);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let r = json(&o);
    assert_eq!(
        (
            r["ok"].clone(),
            r["replayed"].clone(),
            r["sessionActive"].clone()
        ),
        (
            serde_json::json!(true),
            serde_json::json!(0),
            serde_json::json!(true)
        ),
        "{r}"
    );
    assert!(
        r["warnings"]
            .to_string()
            .contains("--from 5 is the empty tail of a 4-step plan"),
        "{r}"
    );
    assert!(alive(app) && alive(daemon), "the same session goes on: {r}");
    assert!(listed(&d, "fix").contains("recording unarmed"), "{r}");
    // The app is where the performed step left it.
    ok(
        &d,
        &[
            "session",
            "wait",
            r#"label="Welcome, alice""#,
            "8000",
            "--session",
            "fix",
        ],
    );

    ok(&d, &["session", "close", "--session", "fix"]);
    assert!(
        gone_within(app, Duration::from_secs(10)) || !alive(app),
        "the app outlived the close"
    );
    assert!(no_daemon_left(&d, Duration::from_secs(10)));
    let _ = std::fs::remove_file(d.dir.join("app.pid"));
}
