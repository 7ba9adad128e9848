//! `ad dap` end to end: a Debug Adapter Protocol client (dap_support) drives the binary over
//! stdio through launch → breakpoints → stops → inspection → stepping → a divergence stop →
//! the end of the run, on the simulated device (and on the web backend in headless Chromium);
//! refused launches, conditional breakpoints, compositions and disconnects.

mod dap_support;

use std::path::{Path, PathBuf};

use dap_support::Dap;
use serde_json::{json, Value};

/// A scratch project with the example app models, and its state folder.
fn project(name: &str) -> (PathBuf, PathBuf) {
    let dir = ad_tests::scratch_dir(&format!("ad-dap-{name}"));
    ad_tests::copy_example_models(&dir);
    let state = dir.join("state");
    (dir, state)
}

/// The divergent login of examples/divergent: "Sign in" is now a promo banner's label, so the
/// click at line 12 refuses the impostor (a divergence). Line 6 is blank.
const DIVERGENT: &str = "\
# Diverges on purpose at the click (identity mismatch).
context platform=ios target=mobile
env USER=alice

# a comment line
open \"com.example.shop\" --relaunch
fill \"id=\\\"login.email\\\"\" \"demo@example.com\"
fill \"id=\\\"login.password\\\"\" \"${PASSWORD}\"
# agent-device:target-v1 {\"id\":\"login.signin\",\"role\":\"button\",\"label\":\"Sign in\",\"ancestry\":[{\"role\":\"form\",\"label\":\"Sign in\"}],\"sibling\":2,\"viewportOrder\":2,\"verification\":\"verified\"}
click \"label=\\\"Sign in\\\"\"
wait \"id=\\\"home.title\\\"\" 3000
close
";

const SECRET: &str = "hunter2-very-secret";

fn launch_args(dir: &Path, script: &str) -> Value {
    json!({
        "program": script,
        "artifactsDir": dir.join("runs"),
        "env": {"PASSWORD": SECRET},
    })
}

/// Every element of the screen tree under `reference` as `name value` (depth-first).
fn elements(dap: &mut Dap, reference: &Value, out: &mut Vec<String>) {
    for v in dap.variables(reference) {
        let name = v["name"].as_str().unwrap_or("").to_string();
        if name.starts_with('@') {
            out.push(format!("{name} {}", v["value"].as_str().unwrap_or("")));
            elements(dap, &v["variablesReference"], out);
        }
    }
}

/// Every leaf under `reference` as `name value` (depth-first).
fn leaves(dap: &mut Dap, reference: &Value, out: &mut Vec<String>) {
    for v in dap.variables(reference) {
        if v["variablesReference"] == 0 {
            out.push(format!(
                "{} {}",
                v["name"].as_str().unwrap_or(""),
                v["value"].as_str().unwrap_or("")
            ));
        } else {
            leaves(dap, &v["variablesReference"], out);
        }
    }
}

fn scope(scopes: &[(String, Value)], name: &str) -> Value {
    scopes
        .iter()
        .find(|(n, _)| n == name)
        .unwrap_or_else(|| panic!("no {name} scope in {scopes:?}"))
        .1
        .clone()
}

fn names(scopes: &[(String, Value)]) -> Vec<&str> {
    scopes.iter().map(|(n, _)| n.as_str()).collect()
}

#[test]
fn a_session_on_the_sim_stops_inspects_steps_and_stops_on_the_divergence() {
    let (dir, state) = project("sim");
    std::fs::write(dir.join("login.ad"), DIVERGENT).unwrap();
    let script = dir.join("login.ad");
    let mut dap = Dap::spawn(&dir, &state);

    let caps = dap.ok(
        "initialize",
        json!({"adapterID": "ad", "linesStartAt1": true}),
    );
    assert_eq!(caps["supportsConditionalBreakpoints"], true);
    let filters = caps["exceptionBreakpointFilters"].as_array().unwrap();
    let divergence = filters
        .iter()
        .find(|f| f["filter"] == "divergence")
        .unwrap();
    assert_eq!(divergence["default"], true);

    dap.ok("launch", launch_args(&dir, "login.ad"));
    dap.event("initialized");
    // Line 5 is a comment: the breakpoint moves to the next step, line 6, and says so.
    let set = dap.ok(
        "setBreakpoints",
        json!({"source": {"path": script}, "breakpoints": [{"line": 5}, {"line": 8}]}),
    );
    let bps = set["breakpoints"].as_array().unwrap();
    assert_eq!(bps[0]["verified"], true);
    assert_eq!(bps[0]["line"], 6);
    let moved = bps[0]["message"].as_str().unwrap();
    assert!(
        moved.contains("line 5 is not a step") && moved.contains("line 6"),
        "{moved}"
    );
    assert_eq!(bps[1]["line"], 8);
    assert!(bps[1].get("message").is_none(), "{}", bps[1]);
    dap.ok(
        "setExceptionBreakpoints",
        json!({"filters": ["divergence"]}),
    );
    dap.ok("configurationDone", json!({}));

    // Stopped on the first breakpoint, before `open`.
    let stopped = dap.event("stopped");
    assert_eq!(stopped["body"]["reason"], "breakpoint", "{stopped}");
    assert_eq!(stopped["body"]["hitBreakpointIds"], json!([bps[0]["id"]]));
    let threads = dap.ok("threads", json!({}));
    assert_eq!(threads["threads"].as_array().unwrap().len(), 1);
    assert_eq!(dap.top_frame(), ("login.ad".to_string(), 6));
    let trace = dap.ok("stackTrace", json!({"threadId": 1}));
    let path = trace["stackFrames"][0]["source"]["path"].as_str().unwrap();
    assert_eq!(Path::new(path), std::fs::canonicalize(&script).unwrap());

    // Variables: the injected secret as <var:NAME>, the script's own env as written.
    let scopes = dap.scopes();
    let vars = dap.variables(&scope(&scopes, "Variables"));
    let value = |vars: &[Value], name: &str| {
        vars.iter()
            .find(|v| v["name"] == name)
            .map(|v| v["value"].as_str().unwrap().to_string())
    };
    assert_eq!(value(&vars, "PASSWORD").as_deref(), Some("<var:PASSWORD>"));
    assert_eq!(value(&vars, "USER").as_deref(), Some("alice"));
    // The step about to run, as written.
    let step = dap.variables(&scope(&scopes, "Step"));
    assert_eq!(value(&step, "command").as_deref(), Some("\"open\""));

    // next: one step, stopped before the next one.
    dap.ok("next", json!({"threadId": 1}));
    let stopped = dap.event("stopped");
    assert_eq!(stopped["body"]["reason"], "step", "{stopped}");
    assert_eq!(dap.top_frame().1, 7);

    // The debug console runs script commands on the live session.
    let snap = dap.ok(
        "evaluate",
        json!({"expression": "snapshot", "context": "repl"}),
    );
    assert!(snap["result"].as_str().unwrap().contains("refs"), "{snap}");
    let scopes = dap.scopes();
    let mut screen = Vec::new();
    elements(&mut dap, &scope(&scopes, "Screen"), &mut screen);
    assert!(
        screen
            .iter()
            .any(|e| e.contains("#login.email") || e.contains("\"Email\"")),
        "{screen:?}"
    );
    let text = dap.ok(
        "evaluate",
        json!({"expression": "get text \"id=\\\"login.email\\\"\"", "context": "repl"}),
    );
    assert_eq!(text["result"], "Email", "{text}");
    let hover = dap.ok(
        "evaluate",
        json!({"expression": "${PASSWORD}", "context": "hover"}),
    );
    assert_eq!(hover["result"], "<var:PASSWORD>");
    // A command that does not exist fails in the console; the stop goes on.
    let bad = dap.request(
        "evaluate",
        json!({"expression": "frobnicate now", "context": "repl"}),
    );
    assert_eq!(bad["success"], false, "{bad}");
    // The journal so far holds the console's commands.
    let scopes = dap.scopes();
    let journal = dap.variables(&scope(&scopes, "Journal"));
    assert!(journal
        .iter()
        .any(|e| e["name"].as_str().unwrap().ends_with("step_start")));

    // continue: to the breakpoint on line 8, then to the divergence at line 10.
    dap.ok("continue", json!({"threadId": 1}));
    let stopped = dap.event("stopped");
    assert_eq!(stopped["body"]["reason"], "breakpoint", "{stopped}");
    assert_eq!(dap.top_frame().1, 8);
    dap.ok("continue", json!({"threadId": 1}));
    let stopped = dap.event("stopped");
    assert_eq!(stopped["body"]["reason"], "exception", "{stopped}");
    let text = stopped["body"]["text"].as_str().unwrap();
    assert!(text.starts_with("REPLAY_DIVERGENCE"), "{text}");
    assert_eq!(dap.top_frame().1, 10);
    let info = dap.ok("exceptionInfo", json!({"threadId": 1}));
    assert_eq!(info["exceptionId"], "REPLAY_DIVERGENCE");
    let scopes = dap.scopes();
    assert!(names(&scopes).contains(&"Divergence"), "{scopes:?}");
    let report = dap.variables(&scope(&scopes, "Divergence"));
    assert!(report.iter().any(|v| v["name"] == "details"), "{report:?}");
    // The screenshot of the failure, as a file the client can open.
    let step = dap.variables(&scope(&scopes, "Step"));
    let shot = value(&step, "screenshot").expect("the failure's screenshot");
    let shot: String = serde_json::from_str(&shot).unwrap();
    let png = std::fs::read(&shot).unwrap();
    assert_eq!(&png[..4], b"\x89PNG", "{shot}");
    assert!(
        dap.output().contains(&shot),
        "said in the console: {}",
        dap.output()
    );

    // continue: the run ends as `ad run` ends a divergence (exit 1).
    dap.ok("continue", json!({"threadId": 1}));
    let exited = dap.event("exited");
    assert_eq!(exited["body"]["exitCode"], 1);
    dap.event("terminated");
    dap.ok("disconnect", json!({}));
    let transcript: String = dap.transcript.iter().map(|v| v.to_string()).collect();
    assert_eq!(dap.finish(), 0);

    // The injected value was never sent to the client nor journaled.
    assert!(
        !transcript.contains(SECRET),
        "the secret reached the client"
    );
    let runs: Vec<PathBuf> = std::fs::read_dir(dir.join("runs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(runs.len(), 1, "{runs:?}");
    let events = std::fs::read_to_string(runs[0].join("events.jsonl")).unwrap();
    assert!(!events.contains(SECRET));
    assert!(events.contains("\"event\":\"run_end\""), "{events}");
}

#[test]
fn a_refused_launch_shows_the_diagnostics_and_runs_nothing() {
    let (dir, state) = project("refused");
    // PASSWORD has no value: the gate refuses, as `ad run` does.
    std::fs::write(dir.join("login.ad"), DIVERGENT).unwrap();
    let mut dap = Dap::spawn(&dir, &state);
    dap.ok("initialize", json!({"adapterID": "ad"}));
    let r = dap.request(
        "launch",
        json!({"program": "login.ad", "artifactsDir": dir.join("runs")}),
    );
    assert_eq!(r["success"], false, "{r}");
    dap.event("terminated");
    let output = dap.output();
    assert!(output.contains("PASSWORD"), "{output}");
    assert!(
        output.contains("login.ad:8"),
        "the rendered diagnostic: {output}"
    );
    assert!(!dir.join("runs").exists(), "nothing ran");
    dap.ok("disconnect", json!({}));
    assert_eq!(dap.finish(), 0);
}

#[test]
fn malformed_and_unknown_requests_get_error_responses_and_the_adapter_goes_on() {
    let (dir, state) = project("malformed");
    let mut dap = Dap::spawn(&dir, &state);
    dap.raw(b"Content-Length: 7\r\n\r\n{nope!}");
    let e = dap.wait_for(|v| v["type"] == "response");
    assert_eq!(e["success"], false);
    assert!(e["message"].as_str().unwrap().contains("not JSON"), "{e}");
    dap.frame(&json!({"seq": 40, "type": "request"}));
    let e = dap.response(40);
    assert_eq!(e["success"], false);
    assert!(e["message"].as_str().unwrap().contains("command"), "{e}");
    for (command, args) in [
        ("frobnicate", json!({})),
        ("stackTrace", json!({"threadId": 1})),
        ("variables", json!({"variablesReference": "x"})),
        ("setBreakpoints", json!({"source": {}})),
        ("launch", json!({"artifactsDir": dir.join("runs")})),
        ("continue", json!({"threadId": 1})),
        ("setExceptionBreakpoints", json!({"filters": ["sometimes"]})),
    ] {
        let r = dap.request(command, args);
        assert_eq!(r["success"], false, "{command}: {r}");
        assert_eq!(r["command"], command);
        assert!(r["message"].as_str().is_some_and(|m| !m.is_empty()), "{r}");
    }
    // Still serving.
    let caps = dap.ok("initialize", json!({"adapterID": "ad"}));
    assert_eq!(caps["supportsConfigurationDoneRequest"], true);
    dap.ok("disconnect", json!({}));
    assert_eq!(dap.finish(), 0);
}

#[test]
fn conditional_breakpoints_stop_only_where_their_comparison_holds() {
    let (dir, state) = project("condition");
    std::fs::write(dir.join("login.ad"), DIVERGENT).unwrap();
    let script = dir.join("login.ad");
    let mut dap = Dap::spawn(&dir, &state);
    dap.ok("initialize", json!({"adapterID": "ad"}));
    dap.ok("launch", launch_args(&dir, "login.ad"));
    let set = dap.ok(
        "setBreakpoints",
        json!({"source": {"path": script}, "breakpoints": [
            {"line": 6, "condition": "${USER} == bob"},
            {"line": 7, "condition": "${USER} != bob"},
            {"line": 8, "condition": "a == b == c"},
        ]}),
    );
    let bps = set["breakpoints"].as_array().unwrap();
    assert_eq!(bps[2]["verified"], false);
    assert!(bps[2]["message"]
        .as_str()
        .unwrap()
        .contains("invalid condition"));
    // No divergence stop: the run ends on its own.
    dap.ok("setExceptionBreakpoints", json!({"filters": []}));
    dap.ok("configurationDone", json!({}));
    let stopped = dap.event("stopped");
    assert_eq!(stopped["body"]["hitBreakpointIds"], json!([bps[1]["id"]]));
    assert_eq!(dap.top_frame().1, 7);
    dap.ok("continue", json!({"threadId": 1}));
    let exited = dap.event("exited");
    assert_eq!(exited["body"]["exitCode"], 1);
    assert!(
        !dap.transcript
            .iter()
            .any(|v| v["event"] == "stopped" && v["body"]["reason"] == "exception"),
        "the divergence filter was off"
    );
    dap.ok("disconnect", json!({}));
    assert_eq!(dap.finish(), 0);
}

#[test]
fn disconnecting_while_stopped_ends_the_run_with_its_journal() {
    let (dir, state) = project("disconnect");
    std::fs::write(dir.join("login.ad"), DIVERGENT).unwrap();
    let mut dap = Dap::spawn(&dir, &state);
    dap.ok("initialize", json!({"adapterID": "ad"}));
    let mut args = launch_args(&dir, "login.ad");
    args["stopOnEntry"] = json!(true);
    dap.ok("launch", args);
    dap.ok("configurationDone", json!({}));
    let stopped = dap.event("stopped");
    assert_eq!(stopped["body"]["reason"], "entry");
    dap.ok("next", json!({"threadId": 1}));
    dap.event("stopped");
    dap.ok("disconnect", json!({"terminateDebuggee": true}));
    assert_eq!(dap.finish(), 0);
    let run = std::fs::read_dir(dir.join("runs"))
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    let events = std::fs::read_to_string(run.join("events.jsonl")).unwrap();
    let end: Value = serde_json::from_str(events.lines().last().unwrap()).unwrap();
    assert_eq!(end["event"], "run_end", "{events}");
    assert_eq!(end["exit_reason"], "interrupted", "{end}");
    let summary: Value =
        serde_json::from_str(&std::fs::read_to_string(run.join("run.json")).unwrap()).unwrap();
    assert_eq!(summary["steps"]["replayed"], 1, "{summary}");
}

#[test]
fn a_fragment_breakpoint_shows_the_include_chain_and_step_out_leaves_the_fragment() {
    let (dir, state) = project("compose");
    let examples = ad_tests::repo_dir().join("examples/composition");
    std::fs::create_dir_all(dir.join("fragments")).unwrap();
    for f in [
        "sign-in-and-tour.ad",
        "fragments/login.ad",
        "fragments/onboarding.ad",
    ] {
        std::fs::copy(examples.join(f), dir.join(f)).unwrap();
    }
    let fragment = dir.join("fragments/login.ad");
    // The adapter runs in the folder above: the launch's `cwd` names the project (and the run
    // names its files relative to the adapter's folder).
    let mut dap = Dap::spawn(dir.parent().unwrap(), &state);
    dap.ok("initialize", json!({"adapterID": "ad"}));
    dap.ok(
        "launch",
        json!({"program": "sign-in-and-tour.ad", "cwd": dir, "artifactsDir": dir.join("runs")}),
    );
    // fill "${PASSWORD}" is line 8 of the fragment.
    let set = dap.ok(
        "setBreakpoints",
        json!({"source": {"path": fragment}, "breakpoints": [{"line": 8}]}),
    );
    assert_eq!(set["breakpoints"][0]["verified"], true, "{set}");
    dap.ok("configurationDone", json!({}));
    let stopped = dap.event("stopped");
    assert_eq!(stopped["body"]["reason"], "breakpoint", "{stopped}");
    let trace = dap.ok("stackTrace", json!({"threadId": 1}));
    let frames: Vec<(String, i64)> = trace["stackFrames"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["source"]["name"].as_str().unwrap().to_string(),
                f["line"].as_i64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        frames,
        [
            ("login.ad".to_string(), 8),
            ("sign-in-and-tour.ad".to_string(), 11)
        ]
    );
    assert_eq!(trace["stackFrames"][1]["name"], "include login.ad");
    // stepOut: runs the rest of the fragment, stops at the parent's next step (the next
    // include's first step is inside it, so the first step back at depth 0 is line 14).
    dap.ok("stepOut", json!({"threadId": 1}));
    dap.event("stopped");
    assert_eq!(dap.top_frame(), ("sign-in-and-tour.ad".to_string(), 14));
    dap.ok("continue", json!({"threadId": 1}));
    let exited = dap.event("exited");
    assert_eq!(exited["body"]["exitCode"], 0, "{}", dap.output());
    dap.ok("disconnect", json!({}));
    assert_eq!(dap.finish(), 0);
}

#[test]
fn a_session_on_the_web_backend_stops_steps_and_ends_with_the_browser_reaped() {
    use ad_tests::web_fixture::{
        assert_no_browser_left, fixture_dir, require_chromium, FixtureServer,
    };
    require_chromium();
    let server = FixtureServer::start(&fixture_dir());
    let (dir, state) = project("web");
    let tmp = dir.join("tmp");
    std::fs::create_dir_all(&tmp).unwrap();
    std::fs::write(
        dir.join("login.ad"),
        "open \"${BASE}/login.html\"\nfill \"id=\\\"email\\\"\" \"demo@example.com\"\nfill \"id=\\\"password\\\"\" \"${PASSWORD}\"\nclick \"id=\\\"login-submit\\\"\"\nwait \"id=\\\"home-title\\\"\" 5000\nclose\n",
    )
    .unwrap();
    let base = server.url("").trim_end_matches('/').to_string();
    let tmp_text = tmp.display().to_string();
    let mut dap = Dap::spawn_with(&dir, &state, &[("TMPDIR", &tmp_text)]);
    dap.ok("initialize", json!({"adapterID": "ad"}));
    dap.ok(
        "launch",
        json!({"program": "login.ad", "backend": "web", "artifactsDir": dir.join("runs"),
               "env": {"BASE": base, "PASSWORD": "hunter2"}}),
    );
    dap.ok(
        "setBreakpoints",
        json!({"source": {"path": dir.join("login.ad")}, "breakpoints": [{"line": 2}]}),
    );
    dap.ok("configurationDone", json!({}));
    let stopped = dap.event("stopped");
    assert_eq!(stopped["body"]["reason"], "breakpoint", "{stopped}");
    // The console's snapshot is the stop's screen.
    dap.ok(
        "evaluate",
        json!({"expression": "snapshot", "context": "repl"}),
    );
    let scopes = dap.scopes();
    let mut screen = Vec::new();
    elements(&mut dap, &scope(&scopes, "Screen"), &mut screen);
    assert!(
        screen.iter().any(|e| e.contains("textbox \"Email\"")),
        "{screen:?}"
    );
    dap.ok("next", json!({"threadId": 1}));
    dap.event("stopped");
    assert_eq!(dap.top_frame().1, 3);
    dap.ok("continue", json!({"threadId": 1}));
    let exited = dap.event("exited");
    assert_eq!(exited["body"]["exitCode"], 0, "{}", dap.output());
    dap.ok("disconnect", json!({}));
    let transcript: String = dap.transcript.iter().map(|v| v.to_string()).collect();
    assert_eq!(dap.finish(), 0);
    assert!(!transcript.contains("hunter2") && !transcript.contains(&base));
    assert_no_browser_left(&dir);
}

/// A passing login (the divergent one's click by the button's own id).
fn passing() -> String {
    DIVERGENT
        .replace(
            "click \"label=\\\"Sign in\\\"\"",
            "click \"id=\\\"login.submit\\\"\"",
        )
        .lines()
        .filter(|l| !l.starts_with("# agent-device:target-v1"))
        .map(|l| format!("{l}\n"))
        .collect()
}

#[test]
fn a_recorded_fixture_replays_under_the_debugger() {
    let (dir, state) = project("recorded");
    std::fs::write(dir.join("login.ad"), passing()).unwrap();
    // Record the run on the sim, then debug its replay.
    let recorded = std::process::Command::new(env!("CARGO_BIN_EXE_ad"))
        .current_dir(&dir)
        .env("AD_STATE_DIR", &state)
        .args([
            "run",
            "-q",
            "login.ad",
            "--record-fixture",
            "fixture",
            "--artifacts-dir",
            "runs",
        ])
        .args(["-e", "PASSWORD=hunter2"])
        .output()
        .unwrap();
    assert_eq!(
        recorded.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&recorded.stderr)
    );
    let mut dap = Dap::spawn(&dir, &state);
    dap.ok("initialize", json!({"adapterID": "ad"}));
    let mut args = launch_args(&dir, "login.ad");
    // The shop model's password: these runs pass.
    args["env"]["PASSWORD"] = json!("hunter2");
    args["backend"] = json!("recorded:fixture");
    dap.ok("launch", args);
    dap.ok(
        "setBreakpoints",
        json!({"source": {"path": dir.join("login.ad")}, "breakpoints": [{"line": 10}]}),
    );
    dap.ok("configurationDone", json!({}));
    let stopped = dap.event("stopped");
    assert_eq!(stopped["body"]["reason"], "breakpoint", "{stopped}");
    assert_eq!(dap.top_frame().1, 10);
    let scopes = dap.scopes();
    let mut screen = Vec::new();
    elements(&mut dap, &scope(&scopes, "Screen"), &mut screen);
    assert!(
        screen.iter().any(|e| e.contains("\"Sign in\"")),
        "{screen:?}"
    );
    dap.ok("next", json!({"threadId": 1}));
    dap.event("stopped");
    assert_eq!(dap.top_frame().1, 11);
    dap.ok("continue", json!({"threadId": 1}));
    let exited = dap.event("exited");
    assert_eq!(exited["body"]["exitCode"], 0, "{}", dap.output());
    dap.ok("disconnect", json!({}));
    assert_eq!(dap.finish(), 0);
}

#[test]
fn restart_ends_the_run_and_launches_it_again() {
    let (dir, state) = project("restart");
    std::fs::write(dir.join("login.ad"), passing()).unwrap();
    let mut dap = Dap::spawn(&dir, &state);
    dap.ok("initialize", json!({"adapterID": "ad"}));
    let mut args = launch_args(&dir, "login.ad");
    // The shop model's password: these runs pass.
    args["env"]["PASSWORD"] = json!("hunter2");
    args["stopOnEntry"] = json!(true);
    dap.ok("launch", args);
    dap.ok("configurationDone", json!({}));
    assert_eq!(dap.event("stopped")["body"]["reason"], "entry");
    dap.ok("next", json!({"threadId": 1}));
    dap.event("stopped");
    dap.ok("restart", json!({}));
    let stopped = dap.event("stopped");
    assert_eq!(stopped["body"]["reason"], "entry", "{stopped}");
    assert_eq!(dap.top_frame().1, 6);
    assert!(
        !dap.transcript.iter().any(|v| v["event"] == "terminated"),
        "a restart is not the end of the session"
    );
    dap.ok("continue", json!({"threadId": 1}));
    assert_eq!(
        dap.event("exited")["body"]["exitCode"],
        0,
        "{}",
        dap.output()
    );
    dap.ok("disconnect", json!({}));
    assert_eq!(dap.finish(), 0);
    // Two runs: the first ended as interrupted after one step, the second passed.
    let mut reasons: Vec<String> = std::fs::read_dir(dir.join("runs"))
        .unwrap()
        .map(|e| {
            let run = e.unwrap().path().join("run.json");
            let v: Value = serde_json::from_str(&std::fs::read_to_string(run).unwrap()).unwrap();
            v["exit_reason"].as_str().unwrap().to_string()
        })
        .collect();
    reasons.sort();
    assert_eq!(reasons, ["completed", "interrupted"]);
}

#[test]
fn a_console_fill_with_record_as_is_journaled_as_its_variable() {
    let (dir, state) = project("record-as");
    std::fs::write(dir.join("login.ad"), passing()).unwrap();
    let mut dap = Dap::spawn(&dir, &state);
    dap.ok("initialize", json!({"adapterID": "ad"}));
    let mut args = launch_args(&dir, "login.ad");
    args["stopOnEntry"] = json!(true);
    dap.ok("launch", args);
    dap.ok("configurationDone", json!({}));
    dap.event("stopped");
    dap.ok("next", json!({"threadId": 1}));
    dap.event("stopped");
    let typed = "typed-literal-4711";
    dap.ok(
        "evaluate",
        json!({"expression": format!("fill \"id=\\\"login.email\\\"\" \"{typed}\" --record-as TYPED_EMAIL"), "context": "repl"}),
    );
    // What the field now shows is the variable, never the typed text.
    dap.ok(
        "evaluate",
        json!({"expression": "snapshot", "context": "repl"}),
    );
    let scopes = dap.scopes();
    let mut shown = Vec::new();
    leaves(&mut dap, &scope(&scopes, "Screen"), &mut shown);
    assert!(
        shown.contains(&"value \"${TYPED_EMAIL}\"".to_string()),
        "{shown:?}"
    );
    let refused = dap.request(
        "evaluate",
        json!({"expression": "click \"id=\\\"login.submit\\\"\" --record-as X", "context": "repl"}),
    );
    assert_eq!(refused["success"], false);
    assert!(
        refused["message"]
            .as_str()
            .unwrap()
            .contains("only by fill"),
        "{refused}"
    );
    dap.ok("disconnect", json!({}));
    let transcript: String = dap.transcript.iter().map(|v| v.to_string()).collect();
    assert_eq!(dap.finish(), 0);
    assert!(!transcript.contains(typed));
    let run = std::fs::read_dir(dir.join("runs"))
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    let events = std::fs::read_to_string(run.join("events.jsonl")).unwrap();
    assert!(!events.contains(typed), "{events}");
    assert!(events.contains("${TYPED_EMAIL}"), "{events}");
}

#[test]
fn port_serves_one_client_over_tcp_on_localhost() {
    use std::io::{BufRead, BufReader, Read, Write};
    let (dir, state) = project("tcp");
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_ad"))
        .args(["dap", "--port", "0"])
        .current_dir(&dir)
        .env("AD_STATE_DIR", &state)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut stderr = BufReader::new(child.stderr.take().unwrap());
    let mut line = String::new();
    stderr.read_line(&mut line).unwrap();
    let port: u16 = line
        .trim()
        .rsplit(':')
        .next()
        .and_then(|p| p.parse().ok())
        .unwrap_or_else(|| panic!("no port in {line:?}"));
    let mut stream = std::net::TcpStream::connect(("127.0.0.1", port)).unwrap();
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut exchange = |request: Value| -> Value {
        let body = request.to_string();
        write!(stream, "Content-Length: {}\r\n\r\n{body}", body.len()).unwrap();
        let mut length = 0;
        loop {
            let mut header = String::new();
            reader.read_line(&mut header).unwrap();
            if header.trim().is_empty() {
                break;
            }
            if let Some(n) = header.trim().strip_prefix("Content-Length:") {
                length = n.trim().parse().unwrap();
            }
        }
        let mut body = vec![0; length];
        reader.read_exact(&mut body).unwrap();
        serde_json::from_slice(&body).unwrap()
    };
    let init =
        exchange(json!({"seq": 1, "type": "request", "command": "initialize", "arguments": {}}));
    assert_eq!(init["success"], true, "{init}");
    let bye = exchange(json!({"seq": 2, "type": "request", "command": "disconnect"}));
    assert_eq!(bye["success"], true, "{bye}");
    assert_eq!(child.wait().unwrap().code(), Some(0));
}

#[test]
fn a_breakpoint_set_while_stopped_is_where_the_run_stops_next() {
    let (dir, state) = project("late-breakpoint");
    std::fs::write(dir.join("login.ad"), passing()).unwrap();
    let script = dir.join("login.ad");
    let mut dap = Dap::spawn(&dir, &state);
    dap.ok("initialize", json!({"adapterID": "ad"}));
    let mut args = launch_args(&dir, "login.ad");
    args["stopOnEntry"] = json!(true);
    args["env"]["PASSWORD"] = json!("hunter2");
    dap.ok("launch", args);
    dap.ok("configurationDone", json!({}));
    dap.event("stopped");
    let set = dap.ok(
        "setBreakpoints",
        json!({"source": {"path": script}, "breakpoints": [{"line": 9}]}),
    );
    assert_eq!(set["breakpoints"][0]["verified"], true);
    dap.ok("continue", json!({"threadId": 1}));
    let stopped = dap.event("stopped");
    assert_eq!(stopped["body"]["reason"], "breakpoint");
    assert_eq!(dap.top_frame().1, 9);
    // Cleared: the run goes to its end.
    dap.ok(
        "setBreakpoints",
        json!({"source": {"path": script}, "breakpoints": []}),
    );
    dap.ok("continue", json!({"threadId": 1}));
    assert_eq!(dap.event("exited")["body"]["exitCode"], 0);
    dap.ok("disconnect", json!({}));
    assert_eq!(dap.finish(), 0);
}

#[test]
fn restarting_a_frame_resumes_at_its_step_and_refuses_an_edited_script() {
    let (dir, state) = project("restart-frame");
    std::fs::write(dir.join("login.ad"), passing()).unwrap();
    let mut dap = Dap::spawn(&dir, &state);
    dap.ok("initialize", json!({"adapterID": "ad"}));
    let mut args = launch_args(&dir, "login.ad");
    args["stopOnEntry"] = json!(true);
    args["env"]["PASSWORD"] = json!("hunter2");
    dap.ok("launch", args);
    dap.ok("configurationDone", json!({}));
    dap.event("stopped");
    for _ in 0..2 {
        dap.ok("next", json!({"threadId": 1}));
        dap.event("stopped");
    }
    // Stopped before step 3 (line 8): run it again from the session the run leaves.
    assert_eq!(dap.top_frame().1, 8);
    dap.ok("restartFrame", json!({"frameId": 1}));
    let stopped = dap.event("stopped");
    assert_eq!(stopped["body"]["reason"], "restart", "{stopped}");
    assert_eq!(dap.top_frame().1, 8);
    // The resumed run goes on from there on the same screen (the email typed before is kept).
    dap.ok(
        "evaluate",
        json!({"expression": "snapshot", "context": "repl"}),
    );
    let scopes = dap.scopes();
    let mut shown = Vec::new();
    leaves(&mut dap, &scope(&scopes, "Screen"), &mut shown);
    assert!(
        shown.contains(&"value \"demo@example.com\"".to_string()),
        "{shown:?}"
    );
    // An edited script is refused: the digest of the launched one no longer matches.
    let text = std::fs::read_to_string(dir.join("login.ad")).unwrap();
    std::fs::write(
        dir.join("login.ad"),
        format!("# edited: every step moves down\n{text}"),
    )
    .unwrap();
    dap.ok("restartFrame", json!({"frameId": 1}));
    let exited = dap.event("exited");
    assert_eq!(exited["body"]["exitCode"], 2, "{}", dap.output());
    assert!(
        dap.output().contains("--plan-digest does not match"),
        "{}",
        dap.output()
    );
    dap.event("terminated");
    dap.ok("disconnect", json!({}));
    assert_eq!(dap.finish(), 0);
    // Runs: the first (interrupted at step 3), the resumed one from step 3, the refused one.
    let mut froms: Vec<(String, u64)> = std::fs::read_dir(dir.join("runs"))
        .unwrap()
        .filter_map(|e| {
            let run = e.unwrap().path().join("run.json");
            let v: Value = serde_json::from_str(&std::fs::read_to_string(run).ok()?).ok()?;
            Some((
                v["exit_reason"].as_str().unwrap().to_string(),
                v["steps"]["from"].as_u64().unwrap(),
            ))
        })
        .collect();
    froms.sort();
    assert!(froms.contains(&("interrupted".to_string(), 1)), "{froms:?}");
    assert!(froms.contains(&("interrupted".to_string(), 3)), "{froms:?}");
}

#[test]
fn restarting_a_frame_on_a_backend_that_keeps_no_session_is_refused() {
    // The recorded backend ends its session with the run.
    let (dir, state) = project("restart-frame-refused");
    std::fs::write(dir.join("login.ad"), passing()).unwrap();
    let recorded = std::process::Command::new(env!("CARGO_BIN_EXE_ad"))
        .current_dir(&dir)
        .env("AD_STATE_DIR", &state)
        .args(["run", "-q", "login.ad", "--record-fixture", "fixture"])
        .args(["--artifacts-dir", "runs", "-e", "PASSWORD=hunter2"])
        .output()
        .unwrap();
    assert_eq!(recorded.status.code(), Some(0));
    let mut dap = Dap::spawn(&dir, &state);
    dap.ok("initialize", json!({"adapterID": "ad"}));
    let mut args = launch_args(&dir, "login.ad");
    args["stopOnEntry"] = json!(true);
    args["backend"] = json!("recorded:fixture");
    args["env"]["PASSWORD"] = json!("hunter2");
    dap.ok("launch", args);
    dap.ok("configurationDone", json!({}));
    dap.event("stopped");
    let r = dap.request("restartFrame", json!({"frameId": 1}));
    assert_eq!(r["success"], false);
    assert!(
        r["message"].as_str().unwrap().contains("use restart"),
        "{r}"
    );
    // Still stopped: the run goes on.
    dap.ok("continue", json!({"threadId": 1}));
    assert_eq!(dap.event("exited")["body"]["exitCode"], 0);
    dap.ok("disconnect", json!({}));
    assert_eq!(dap.finish(), 0);
}

#[test]
fn attach_puts_the_console_on_a_live_session_and_detaching_leaves_it_live() {
    let (dir, state) = project("attach");
    let tmp = dir.join("tmp");
    std::fs::create_dir_all(&tmp).unwrap();
    let home = dir.display().to_string();
    let xdg = dir.join("xdg").display().to_string();
    let tmp_text = tmp.display().to_string();
    // Everything the session keeps stays in the project; an idle daemon exits soon.
    let isolated: [(&str, &str); 4] = [
        ("AD_SESSION_IDLE_MS", "1500"),
        ("HOME", &home),
        ("XDG_STATE_HOME", &xdg),
        ("TMPDIR", &tmp_text),
    ];
    let session = |words: &[&str]| -> Value {
        let mut c = std::process::Command::new(env!("CARGO_BIN_EXE_ad"));
        c.current_dir(&dir)
            .env("AD_STATE_DIR", &state)
            .arg("session");
        for (k, v) in isolated {
            c.env(k, v);
        }
        let o = c.args(words).arg("--json").output().unwrap();
        serde_json::from_slice(&o.stdout)
            .unwrap_or_else(|_| panic!("{words:?}: {}", String::from_utf8_lossy(&o.stderr)))
    };
    let opened = session(&[
        "--session",
        "dbg",
        "open",
        "com.example.shop",
        "--app",
        "apps/shop.json",
    ]);
    assert_eq!(opened["ok"], true, "{opened}");

    let mut dap = Dap::spawn_with(&dir, &state, &isolated);
    dap.ok("initialize", json!({"adapterID": "ad"}));
    let missing = dap.request("attach", json!({"session": "nope"}));
    assert_eq!(missing["success"], false);
    assert!(
        missing["message"]
            .as_str()
            .unwrap()
            .contains("no live session `nope`"),
        "{missing}"
    );
    dap.ok("attach", json!({"session": "dbg"}));
    dap.event("initialized");
    dap.ok("configurationDone", json!({}));
    let stopped = dap.event("stopped");
    assert_eq!(stopped["body"]["description"], "attached to session dbg");
    let trace = dap.ok("stackTrace", json!({"threadId": 1}));
    assert_eq!(trace["stackFrames"][0]["name"], "session dbg");
    let scopes = dap.scopes();
    let info = dap.variables(&scope(&scopes, "Session"));
    assert!(
        info.iter()
            .any(|v| v["name"] == "backend" && v["value"] == "\"sim\""),
        "{info:?}"
    );
    // The console's commands go to the session.
    dap.ok(
        "evaluate",
        json!({"expression": "snapshot", "context": "repl"}),
    );
    let scopes = dap.scopes();
    let mut screen = Vec::new();
    elements(&mut dap, &scope(&scopes, "Screen"), &mut screen);
    assert!(screen.iter().any(|e| e.contains("\"Email\"")), "{screen:?}");
    let text = dap.ok(
        "evaluate",
        json!({"expression": "get text \"id=\\\"login.email\\\"\"", "context": "repl"}),
    );
    assert_eq!(text["result"], "Email", "{text}");
    let bad = dap.request(
        "evaluate",
        json!({"expression": "frobnicate", "context": "repl"}),
    );
    assert_eq!(bad["success"], false, "{bad}");
    let next = dap.request("next", json!({"threadId": 1}));
    assert_eq!(next["success"], false);
    assert!(
        next["message"].as_str().unwrap().contains("no script runs"),
        "{next}"
    );
    dap.ok("disconnect", json!({}));
    assert!(dap.output().contains("still live"), "{}", dap.output());
    assert_eq!(dap.finish(), 0);

    // Detached, not closed: the session is still there for `ad session`.
    let listed = session(&["list"]);
    let names: Vec<&str> = listed["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap())
        .collect();
    assert!(names.contains(&"dbg"), "{listed}");
    assert_eq!(session(&["--session", "dbg", "close"])["ok"], true);
}
