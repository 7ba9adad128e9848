//! `ad dap` launch `profile` and the screen at each stop (issue 35): a stop writes the device's
//! screen as a PNG in the run folder, names it in the Step scope and the debug console; a
//! launch's `profile` is the rule profile the static gate applies, as `ad check --profile`
//! (a `close` refused under `handoff`, accepted under `flow`), and a profile that is none is
//! refused with what it may be.

mod dap_support;

use std::path::{Path, PathBuf};

use dap_support::Dap;
use serde_json::{json, Value};

const FLOW: &str = "\
context platform=ios target=mobile
open \"com.example.shop\" --relaunch
fill \"id=\\\"login.email\\\"\" \"demo@example.com\"
close
";

fn project(name: &str) -> (PathBuf, PathBuf) {
    let dir = ad_tests::scratch_dir(&format!("ad-dap-stops-{name}"));
    ad_tests::copy_example_models(&dir);
    std::fs::write(dir.join("flow.ad"), FLOW).unwrap();
    let state = dir.join("state");
    (dir, state)
}

fn launch(dap: &mut Dap, dir: &Path, extra: Value) -> Value {
    dap.ok(
        "initialize",
        json!({"adapterID": "ad", "linesStartAt1": true}),
    );
    let mut args = json!({"program": "flow.ad", "artifactsDir": dir.join("runs")});
    for (k, v) in extra.as_object().unwrap() {
        args[k] = v.clone();
    }
    dap.request("launch", args)
}

#[test]
fn a_stop_writes_the_screen_as_a_png_the_client_can_open() {
    let (dir, state) = project("screen");
    let mut dap = Dap::spawn(&dir, &state);
    let r = launch(&mut dap, &dir, json!({}));
    assert_eq!(r["success"], true, "{r}");
    dap.event("initialized");
    dap.ok(
        "setBreakpoints",
        json!({"source": {"path": dir.join("flow.ad")}, "breakpoints": [{"line": 3}]}),
    );
    dap.ok("configurationDone", json!({}));
    let stopped = dap.event("stopped");
    assert_eq!(stopped["body"]["reason"], "breakpoint", "{stopped}");
    // The debug console names the file.
    let said = dap.wait_for(|v| {
        v["event"] == "output"
            && v["body"]["output"]
                .as_str()
                .is_some_and(|o| o.contains("the screen at this stop"))
    });
    let path = said["body"]["output"]
        .as_str()
        .unwrap()
        .rsplit(": ")
        .next()
        .unwrap()
        .trim()
        .to_string();
    let png = std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    assert!(png.starts_with(b"\x89PNG"), "{path} is a PNG");
    assert!(path.ends_with("stop-step-002.png"), "{path}");
    // The Step scope names the same file.
    let scopes = dap.scopes();
    let step = &scopes.iter().find(|(n, _)| n == "Step").unwrap().1;
    let vars = dap.variables(step);
    let shot = vars
        .iter()
        .find(|v| v["name"] == "screenshot")
        .unwrap_or_else(|| panic!("no screenshot in the Step scope: {vars:#?}"));
    assert!(
        shot["value"]
            .as_str()
            .unwrap()
            .contains("stop-step-002.png"),
        "{shot}"
    );
    dap.ok("continue", json!({"threadId": 1}));
    let exited = dap.event("exited");
    assert_eq!(exited["body"]["exitCode"], 0, "{exited}");
}

#[test]
fn the_launch_profile_is_the_gates_rule_profile() {
    // Under `handoff`, a script may not `close` (AD702): the launch is refused, nothing runs.
    let (dir, state) = project("handoff");
    let mut dap = Dap::spawn(&dir, &state);
    let r = launch(&mut dap, &dir, json!({"profile": "handoff"}));
    assert_eq!(r["success"], false, "{r}");
    dap.event("terminated");
    let output = dap.output();
    assert!(output.contains("AD702"), "{output}");
    assert!(!dir.join("runs").exists(), "nothing ran");
    dap.ok("disconnect", json!({}));

    // Under `flow` the same script launches and runs to its end.
    let (dir, state) = project("flow");
    let mut dap = Dap::spawn(&dir, &state);
    let r = launch(&mut dap, &dir, json!({"profile": "flow"}));
    assert_eq!(r["success"], true, "{r}");
    dap.event("initialized");
    dap.ok("configurationDone", json!({}));
    let exited = dap.event("exited");
    assert_eq!(exited["body"]["exitCode"], 0, "{exited}");

    // A profile that is none of them is refused, with what it may be.
    let (dir, state) = project("bogus");
    let mut dap = Dap::spawn(&dir, &state);
    let r = launch(&mut dap, &dir, json!({"profile": "strict"}));
    assert_eq!(r["success"], false, "{r}");
    let message = r["message"].as_str().unwrap_or_default().to_string() + &dap.output();
    assert!(message.contains("auto, flow, handoff"), "{r}\n{message}");
}
