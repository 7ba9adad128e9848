//! `ad dap` through the agent-device bridge (issue 35): a debug session launches a script on
//! agent-device 0.21.5's Linux platform driving the GTK3 test app (tests/apps/gtk_login) on a
//! virtual display, stops at a breakpoint with the app's screen in the Screen scope and the
//! injected password shown as `<var:PASSWORD>`, steps, continues to a passing end, and leaves no
//! app running.
//!
//! Needs xvfb, dbus, AT-SPI, python3-gi and agent-device; a missing one fails the test with what
//! to install (scripts/test-all.sh installs them).

mod agent_device_support;
mod dap_support;

use std::time::Duration;

use agent_device_support::{gone_within, Desktop};
use dap_support::Dap;
use serde_json::{json, Value};

const LOGIN: &str = r#"context platform=linux
open ad-gtk-login
fill "label=Username" "alice"
fill "label=Password" "${PASSWORD}"
click "label=\"Sign In\""
wait "label=\"Welcome, alice\"" 8000
close
"#;

/// Every `name value` under `reference`, depth-first, at most `depth` levels down.
fn texts(dap: &mut Dap, reference: &Value, depth: usize, out: &mut Vec<String>) {
    if depth == 0 {
        return;
    }
    for v in dap.variables(reference) {
        out.push(format!(
            "{} {}",
            v["name"].as_str().unwrap_or(""),
            v["value"].as_str().unwrap_or("")
        ));
        if v["variablesReference"] != 0 {
            texts(dap, &v["variablesReference"], depth - 1, out);
        }
    }
}

#[test]
fn a_debug_session_on_the_gtk_app_stops_at_a_breakpoint_shows_the_screen_and_passes() {
    let d = Desktop::start("dap");
    let script = d.script("login.ad", LOGIN);
    let env: Vec<(&str, &str)> = d
        .env()
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .collect();
    let mut dap = Dap::spawn_with(&d.dir, &d.dir.join("ad-state"), &env);
    dap.ok(
        "initialize",
        json!({"adapterID": "ad", "linesStartAt1": true}),
    );
    dap.ok(
        "launch",
        json!({
            "program": "login.ad",
            "backend": "agent-device",
            "env": {"PASSWORD": "hunter2"},
            "artifactsDir": d.dir.join("runs"),
        }),
    );
    dap.event("initialized");
    let set = dap.ok(
        "setBreakpoints",
        json!({"source": {"path": script}, "breakpoints": [{"line": 5}]}),
    );
    assert_eq!(set["breakpoints"][0]["verified"], true, "{set}");
    dap.ok("configurationDone", json!({}));

    // Stopped before the click: the app is open and filled in.
    let stopped = dap.event("stopped");
    assert_eq!(stopped["body"]["reason"], "breakpoint", "{stopped}");
    assert_eq!(dap.top_frame(), ("login.ad".to_string(), 5));
    let scopes = dap.scopes();
    let reference = |name: &str| {
        scopes
            .iter()
            .find(|(n, _)| n == name)
            .unwrap_or_else(|| panic!("no {name} scope in {scopes:?}"))
            .1
            .clone()
    };
    let mut screen = Vec::new();
    texts(&mut dap, &reference("Screen"), 12, &mut screen);
    assert!(
        screen.iter().any(|t| t.contains("Sign In")),
        "the GTK app's button is on the screen: {screen:#?}"
    );
    let mut vars = Vec::new();
    texts(&mut dap, &reference("Variables"), 2, &mut vars);
    assert!(
        vars.iter()
            .any(|t| t.contains("PASSWORD") && t.contains("<var:PASSWORD>")),
        "{vars:#?}"
    );

    // One step: the click runs and the run stops before the wait.
    dap.ok("next", json!({"threadId": 1}));
    let stepped = dap.event("stopped");
    assert_eq!(stepped["body"]["reason"], "step", "{stepped}");
    assert_eq!(dap.top_frame(), ("login.ad".to_string(), 6));

    dap.ok("continue", json!({"threadId": 1}));
    let exited = dap.event("exited");
    assert_eq!(exited["body"]["exitCode"], 0, "{exited}");
    dap.event("terminated");
    let transcript = serde_json::to_string(&dap.transcript).unwrap();
    assert!(
        !transcript.contains("hunter2"),
        "the injected value reached the client"
    );
    let _ = dap.finish();
    let app = d.app_pid(Duration::ZERO).expect("the app ran");
    assert!(
        gone_within(app, Duration::from_secs(5)),
        "the app outlived the debug session"
    );
}
