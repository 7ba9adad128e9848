//! Differential: the same `.ad` script run by `agent-device replay` and by
//! `ad run --backend agent-device`, on the same daemon and a fresh instance of the GTK3 test app
//! each time, reaches the same end state (the texts on screen afterwards) and the same verdict.
//!
//! Needs xvfb, dbus, AT-SPI, python3-gi and agent-device (see agent_device_support).

mod agent_device_support;

use agent_device_support::{json, screen_texts, Desktop};
use serde_json::Value;

/// (verdict, divergence kind, texts on screen after the run) for one runner.
fn outcome(d: &Desktop, runner: &str, script: &str) -> (bool, Value, Vec<String>) {
    let session = format!("diff-{runner}");
    let (ok, kind) = if runner == "replay" {
        let out = d.agent_device(&[
            "replay",
            script,
            "--session",
            &session,
            "--platform",
            "linux",
            "--json",
        ]);
        let v: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
            panic!(
                "agent-device replay printed no JSON ({e}): {}{}",
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            )
        });
        (
            v["success"] == true,
            v["error"]["details"]["divergence"]["kind"].clone(),
        )
    } else {
        let out = d.ad(&[
            "run",
            script,
            "--backend",
            "agent-device",
            "--session",
            &session,
            "--json",
            "-q",
        ]);
        let r = json(&out);
        if std::env::var_os("AD_DEBUG_DIFF").is_some() {
            eprintln!("{r:#}");
        }
        (
            r["ok"] == true,
            r["error"]["details"]["divergence"]["kind"].clone(),
        )
    };
    let snap = d.agent_device(&[
        "snapshot",
        "--session",
        &session,
        "--platform",
        "linux",
        "--json",
    ]);
    let texts = screen_texts(&serde_json::from_slice(&snap.stdout).unwrap_or(Value::Null));
    // One session per device: end this one (its close leaves the app running, so kill it too).
    // A close-less script's `ad run` hands its session to ad's session daemon, which ends it.
    if runner != "replay" {
        d.ad(&["session", "close", "--session", &session]);
    }
    d.agent_device(&["close", "--session", &session, "--platform", "linux"]);
    d.kill_app();
    (ok, kind, texts)
}

fn same_for_both(d: &Desktop, name: &str, text: &str, expect_ok: bool) -> Vec<String> {
    let path = d.script(name, text);
    let script = path.to_str().unwrap();
    let replay = outcome(d, "replay", script);
    let ad = outcome(d, "ad", script);
    assert_eq!(
        replay.0, expect_ok,
        "agent-device replay verdict for {name}"
    );
    assert_eq!(
        ad, replay,
        "ad vs agent-device replay on {name}: (verdict, divergence kind, end screen)"
    );
    ad.2
}

#[test]
fn replay_and_ad_reach_the_same_end_state_and_verdict() {
    let mut d = Desktop::start("differential");
    d.set_env("AD_SESSION_IDLE_MS", "5000");
    d.start_daemon();
    let texts = same_for_both(
        &d,
        "passes.ad",
        r#"context platform=linux
open ad-gtk-login
fill "label=Username" "alice"
fill "label=Password" "secret"
click "label=\"Sign In\""
wait "label=\"Welcome, alice\"" 8000
click "label=Dates"
wait "label=\"Chosen: Dates\"" 5000
"#,
        true,
    );
    assert!(texts.contains(&"Chosen: Dates".to_string()), "{texts:?}");
    // Missing credentials: the app says so and stays on the login screen; the wait for the
    // welcome screen fails in both.
    let texts = same_for_both(
        &d,
        "fails.ad",
        r#"context platform=linux
open ad-gtk-login
fill "label=Username" "alice"
click "label=\"Sign In\""
wait "label=\"Welcome, alice\"" 1500
"#,
        false,
    );
    assert!(
        texts.contains(&"Missing credentials".to_string()),
        "{texts:?}"
    );
}

/// The app with swapped roles ("Remember me" a toggle button, recorded as a check box): both
/// refuse the step whose recorded identity no longer matches, before acting.
#[test]
fn an_identity_mismatch_fails_both_before_the_tap() {
    let mut d = Desktop::start("differential-identity");
    d.set_env("AD_GTK_SWAP", "1");
    d.set_env("AD_SESSION_IDLE_MS", "5000");
    d.start_daemon();
    let texts = same_for_both(
        &d,
        "mismatch.ad",
        r#"context platform=linux
open ad-gtk-login
# agent-device:target-v1 {"role":"checkbox","label":"Remember me","ancestry":[],"sibling":3,"viewportOrder":3,"verification":"verified"}
click "label=\"Remember me\""
close
"#,
        false,
    );
    assert!(texts.contains(&"Signed out".to_string()), "{texts:?}");
}
