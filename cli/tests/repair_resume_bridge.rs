//! Arming a repair at a `--from` resume through the agent-device bridge (docs/repair.md, issue
//! 32) on the GTK test app (tests/apps/gtk_login) in a virtual desktop: a plain `ad run` (not
//! repair-armed) diverges at the relabelled sign-in button and ad's session daemon keeps its
//! agent-device session live for the resume; the author performs the step with `ad session
//! click`, then `ad run FILE --from N --plan-digest D --save-script` arms the repair at that
//! resume, as agent-device's `replay --from N --save-script` arms on the live session a diverged
//! replay left: the transaction's boundary is the session's action count, so the healed script
//! holds what the resume performed; `ad session close` commits it and ends everything.
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
fn a_repair_is_armed_at_the_resume_of_a_diverged_run_through_the_bridge() {
    let mut d = Desktop::start("repair-resume-arm");
    d.set_env("AD_SESSION_IDLE_MS", "2000");
    // The script, as recorded against the app before its sign-in button was relabelled (with
    // evidence), left as a plain script: a run of it is not repair-armed.
    let app = record_login(&d, "login.ad", &[r#"label="Sign In""#], true);
    close_recording(&d, app);
    let script = d.dir.join("login.ad");
    let original = std::fs::read_to_string(&script).unwrap();
    d.set_env("AD_GTK_SIGN_IN_LABEL", "Log In");

    // A plain run diverges at the click; its agent-device session is kept for the resume.
    let mut run = vec!["run", "login.ad"];
    run.extend(LINUX);
    run.extend(["--session", "fix", "--json"]);
    let o = d.ad(&run);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let r = json(&o);
    let dv = &r["error"]["details"]["divergence"];
    assert_eq!(dv["step"]["index"], 4, "{r}");
    assert_eq!(dv["repairHint"], "record-and-heal", "{r}");
    assert_eq!(dv["resume"]["from"], 5, "{r}");
    assert_eq!(
        dv["resume"].get("repairSessionHeld"),
        None,
        "not repair-armed: {r}"
    );
    let digest = dv["resume"]["planDigest"].as_str().unwrap().to_string();
    let app = d.app_pid(Duration::from_secs(5)).expect("the run's app");
    let daemon = d.owned_daemon().expect("the run's agent-device daemon");
    assert!(listed(&d, "fix").contains("recording unarmed"), "{r}");

    // Arming at the report's record-and-heal resume needs the step performed first: the
    // divergence stamped agent-device's corrective-action watermark on the live session
    // (an action with --no-record does not count).
    let mut resume = vec!["run", "login.ad"];
    resume.extend(LINUX);
    resume.extend([
        "--session",
        "fix",
        "--from",
        "5",
        "--plan-digest",
        &digest,
        "--save-script",
    ]);
    ok(
        &d,
        &["session", "snapshot", "--no-record", "--session", "fix"],
    );
    let uncorrected =
        "--from 5 continues a record-and-heal-shaped repair, but no corrective action was recorded";
    let o = d.ad(&resume);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(text(&o).contains(uncorrected), "{}", text(&o));
    // A plain resume is held to it too, before any step.
    let o = d.ad(&resume[..resume.len() - 1]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(text(&o).contains(uncorrected), "{}", text(&o));
    assert!(
        alive(app) && alive(daemon),
        "a refused resume leaves the session as it was"
    );
    assert!(
        listed(&d, "fix").contains("recording unarmed"),
        "nothing was armed"
    );
    assert!(!d.dir.join("login.healed.ad").exists());

    // The author performs the step on the live session, then arms the repair at the resume.
    ok(
        &d,
        &["session", "click", r#"label="Log In""#, "--session", "fix"],
    );
    let mut resume = vec!["run", "login.ad"];
    resume.extend(LINUX);
    resume.extend([
        "--session",
        "fix",
        "--from",
        "5",
        "--plan-digest",
        &digest,
        "--save-script",
    ]);
    let o = d.ad(&resume);
    let out = text(&o);
    assert_eq!(o.status.code(), Some(0), "{out}");
    assert!(out.contains("ok: login.ad"), "{out}");
    assert!(out.contains("warning: the repair is complete"), "{out}");
    let line = listed(&d, "fix");
    assert!(
        line.contains("repair-complete") && line.contains("1 recorded action(s)"),
        "the resume's wait, from the boundary on: {line}"
    );
    assert!(
        alive(app) && alive(daemon),
        "the same session went on: {out}"
    );

    // Commit: the healed script holds what the armed resume performed, then close.
    ok(&d, &["session", "close", "--session", "fix"]);
    assert!(
        gone_within(app, Duration::from_secs(10)),
        "the app outlived the commit"
    );
    assert!(no_daemon_left(&d, Duration::from_secs(10)));
    let _ = std::fs::remove_file(d.dir.join("app.pid"));
    assert_eq!(std::fs::read_to_string(&script).unwrap(), original);
    let healed = d.dir.join("login.healed.ad");
    let healed_text = std::fs::read_to_string(&healed).unwrap();
    let actions: Vec<&str> = healed_text
        .lines()
        .filter(|l| !l.starts_with('#') && !l.starts_with("context "))
        .collect();
    assert_eq!(
        actions,
        [r#"wait "label=\"Welcome, alice\"" 8000"#, "close"],
        "{healed_text}"
    );
    assert!(
        healed_text.starts_with("context platform=linux")
            && healed_text.ends_with("close\n# agent-device:heal-complete\n"),
        "{healed_text}"
    );
    let s = healed.to_str().unwrap();
    ok(&d, &["check", s]);
    ok(&d, &["fmt", "--check", s]);
    let oracle = ad_tests::run_oracle_one(&healed);
    assert_eq!(oracle["ok"], true, "agent-device rejects it: {oracle}");
}
