//! The record schemas in docs/schemas/: generated from the record types (a checked-in schema
//! that differs from what the types generate fails; regenerate with
//! `UPDATE_SCHEMAS=1 cargo test -p ad-runtime --test schemas`), and every record real runs write
//! fits them.

mod common;

use ad_runtime::core::records::validate::validate;
use common::*;
use serde_json::{json, Value};

#[test]
fn checked_in_schemas_match_the_record_types() {
    let dir = repo().join("docs/schemas");
    let update = std::env::var_os("UPDATE_SCHEMAS").is_some();
    let mut stale = Vec::new();
    for (name, schema) in ad_runtime::core::records::schemas() {
        let path = dir.join(format!("{name}.schema.json"));
        let generated = serde_json::to_string_pretty(&schema).expect("a schema serializes") + "\n";
        if update {
            std::fs::create_dir_all(&dir).unwrap();
            std::fs::write(&path, &generated).unwrap();
            continue;
        }
        if std::fs::read_to_string(&path).ok().as_deref() != Some(generated.as_str()) {
            stale.push(path.display().to_string());
        }
    }
    assert!(
        stale.is_empty(),
        "these schemas differ from the record types: {stale:?}\nregenerate them with `UPDATE_SCHEMAS=1 cargo test -p ad-runtime --test schemas` and review the diff"
    );
}

// ---- every record the interpreter writes fits its schema ------------------------------------------

/// Every record of one in-process run: events, observation files, run.json, the `--json` result
/// and the divergence report. Returns the event kinds seen.
fn check_run(name: &str, ran: &Ran) -> Vec<String> {
    let (events, observation, summary, result, divergence) = (
        schema("journal-event"),
        schema("observation"),
        schema("run-summary"),
        schema("run-result"),
        schema("divergence-report"),
    );
    let mut kinds = Vec::new();
    for row in &ran.rows {
        fits(&events, row, &format!("{name}: event {}", row["sequence"]));
        kinds.push(row["event"].as_str().unwrap_or("?").to_string());
        if row["event"] == "step_end" {
            if let Some(r) = row.get("result") {
                kinds.push(format!(
                    "result:{}",
                    r.as_object()
                        .map(|m| m.keys().cloned().collect::<Vec<_>>().join(","))
                        .unwrap_or_default()
                ));
            }
        }
    }
    for (path, text) in &ran.files {
        let doc: Value = serde_json::from_str(text).expect("a JSON file");
        if path == "run.json" {
            fits(&summary, &doc, &format!("{name}: run.json"));
        } else {
            fits(&observation, &doc, &format!("{name}: {path}"));
        }
    }
    assert!(
        ran.files.iter().any(|f| f.0 == "run.json"),
        "{name}: no run.json"
    );
    let record = serde_json::to_value(ran.result.record()).unwrap();
    fits(&result, &record, &format!("{name}: --json result"));
    if let Some(d) = ran.result.error.as_ref().and_then(|e| e.divergence()) {
        fits(
            &divergence,
            &serde_json::to_value(d).unwrap(),
            &format!("{name}: divergence"),
        );
    }
    kinds
}

/// A model whose buttons refuse, fail in transport, or are twins.
fn failing_model() -> ad_runtime::backends::sim::AppModel {
    serde_json::from_value(json!({
        "app": "com.example.twins",
        "start": "list",
        "screens": {"list": {"elements": [
            {"type": "other", "label": "Rows", "children": [
                {"type": "button", "label": "Delete"},
                {"type": "button", "label": "Delete"}
            ]},
            {"type": "button", "id": "pay", "label": "Pay", "on": {"tap": {"fail": "Payment service unavailable"}}},
            {"type": "button", "id": "sync", "label": "Sync", "on": {"tap": {"transportError": "connection reset by peer"}}}
        ]}}
    }))
    .expect("model")
}

/// Commands of every kind, on the shop model, after logging in.
const EVERY_COMMAND: &str = "snapshot
get attrs \"id=\\\"home.title\\\"\"
get text \"id=\\\"home.title\\\"\"
is \"visible\" \"id=\\\"home.title\\\"\"
find label \"Checkout\" get text
find label \"Checkout\" list
find label \"Checkout\" exists
keyboard status
clipboard write \"hello\"
clipboard read
scroll down
scroll up 0.5
swipe 200 600 200 200
gesture pan 100 300 0 50
longpress \"id=\\\"home.title\\\"\" 900
hover \"id=\\\"home.title\\\"\"
focus 10 100
type \"abc\"
screenshot
wait stable 400 5000
wait 10
click 195 422
click \"id=\\\"tab.profile\\\"\"
wait text \"Demo User\"
back
home
close
";

#[test]
fn every_record_a_run_writes_fits_its_schema() {
    let mut kinds: Vec<String> = Vec::new();
    let pw = [("PASSWORD", "hunter2")];
    for example in [
        "login.ad",
        "navigation.ad",
        "checkout-form.ad",
        "scroll-to-find.ad",
        "alerts.ad",
        "handoff-profile.ad",
        "divergent/reshuffled-login.ad",
    ] {
        kinds.extend(check_run(example, &run_example(example, &pw)));
    }
    // Without the password: an unresolved variable (a step error, no divergence).
    kinds.extend(check_run(
        "login.ad (no password)",
        &run_example("login.ad", &[]),
    ));
    let every = format!("{LOGIN}{EVERY_COMMAND}");
    let ran = run_text("every.ad", &every, &[("WHO", "demo")]);
    assert!(
        ran.result.ok,
        "every.ad: {:?}",
        ran.result.error.as_ref().map(|e| &e.message)
    );
    kinds.extend(check_run("every.ad", &ran));
    for (name, text) in [
        ("rejected", "open \"com.example.twins\"\nclick \"id=\\\"pay\\\"\"\n"),
        ("transport", "open \"com.example.twins\"\nclick \"id=\\\"sync\\\"\"\n"),
        ("ambiguous", "open \"com.example.twins\"\nget text \"label=\\\"Delete\\\"\"\n"),
        ("unverifiable", "open \"com.example.twins\"\n# agent-device:target-v1 {\"role\":\"button\",\"label\":\"Delete\",\"ancestry\":[{\"role\":\"other\",\"label\":\"Rows\"}],\"sibling\":7,\"viewportOrder\":7,\"verification\":\"verified\"}\nclick \"label=\\\"Delete\\\"\"\n"),
    ] {
        let ran = run_with(
            name,
            text,
            Opts {
                model: Some(failing_model()),
                ..Opts::default()
            },
        );
        kinds.extend(check_run(name, &ran));
    }
    let ran = run_with(
        "timeout",
        &format!("{LOGIN}wait 5000\nwait 5000\nclose\n"),
        Opts {
            timeout_ms: Some(4000),
            ..Opts::default()
        },
    );
    kinds.extend(check_run("timeout", &ran));
    let ran = run_with(
        "keep-session",
        &example("login.ad"),
        Opts {
            env: &pw,
            keep_session: true,
            ..Opts::default()
        },
    );
    kinds.extend(check_run("keep-session", &ran));
    // Refused before any step: a digest that does not match.
    let ran = run_with(
        "preflight",
        &example("login.ad"),
        Opts {
            from: Some((2, "0".repeat(64))),
            ..Opts::default()
        },
    );
    assert!(ran.result.error.as_ref().unwrap().preflight);
    kinds.extend(check_run("preflight", &ran));
    // The runs above wrote every kind of event and most kinds of step result.
    for kind in [
        "run_start",
        "step_start",
        "observation",
        "action_attempt",
        "action_result",
        "step_end",
        "step_skipped",
        "step_error",
        "divergence",
        "run_end",
    ] {
        assert!(
            kinds.iter().any(|k| k == kind),
            "no {kind} event was checked"
        );
    }
    let results: Vec<&String> = kinds.iter().filter(|k| k.starts_with("result:")).collect();
    for keys in [
        "result:refsGeneration,refs,scope",
        "result:target,attrs",
        "result:target,text",
        "result:predicate,pass,matches,target",
        "result:target,matches,refsGeneration,text",
        "result:target,matches,refsGeneration,list",
        "result:matches",
        "result:keyboard",
        "result:text",
        "result:bytes",
        "result:waitedMs,captures",
        "result:waitedMs",
        "result:waitedMs,target",
        "result:waitedMs,verification,target",
        "result:target",
        "result:target,resolution,verification",
        "result:alert,waitedMs",
        "result:alert",
    ] {
        assert!(
            results.iter().any(|k| *k == keys),
            "no step result {keys} was checked: {results:?}"
        );
    }
}

#[test]
fn the_schemas_reject_what_the_records_never_hold() {
    let ran = run_example("login.ad", &[("PASSWORD", "hunter2")]);
    let events = schema("journal-event");
    let row = ran.rows[0].clone();
    fits(&events, &row, "run_start");
    let broken = |edit: &dyn Fn(&mut serde_json::Map<String, Value>)| {
        let mut r = row.clone();
        edit(r.as_object_mut().unwrap());
        r
    };
    for (what, doc) in [
        (
            "an unknown field",
            broken(&|m| {
                m.insert("extra".into(), 1.into());
            }),
        ),
        (
            "no sequence",
            broken(&|m| {
                m.remove("sequence");
            }),
        ),
        (
            "an unknown event",
            broken(&|m| {
                m.insert("event".into(), "bogus".into());
            }),
        ),
        (
            "a negative step count",
            broken(&|m| {
                m.insert("steps".into(), (-1).into());
            }),
        ),
        (
            "a missing platform",
            broken(&|m| {
                m.remove("platform");
            }),
        ),
    ] {
        assert!(
            validate(&events, &doc).is_err(),
            "{what} was accepted: {doc}"
        );
    }
    let mut summary: Value = serde_json::from_str(&ran.files.last().unwrap().1).unwrap();
    summary["exit_reason"] = "finished".into();
    assert!(validate(&schema("run-summary"), &summary).is_err());
}
