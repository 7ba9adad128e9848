//! End-to-end replay semantics on the example app model: green runs, every divergence kind,
//! variables and redaction, ref frames, waits on the virtual clock, resume, the journal.

mod common;

use ad_runtime::backends::sim::AppModel;
use common::*;
use serde_json::{json, Value};

// ---- green runs ---------------------------------------------------------------------------------

#[test]
fn every_example_runs_green() {
    for (script, screen_after) in [
        ("login.ad", None),
        ("navigation.ad", None),
        ("checkout-form.ad", None),
        ("scroll-to-find.ad", None),
        ("alerts.ad", None),
        ("handoff-profile.ad", Some("profile")),
    ] {
        let ran = run_example(script, &[("PASSWORD", "hunter2")]);
        assert!(
            ran.result.ok,
            "{script}: {:?}",
            ran.result.error.as_ref().map(|e| &e.message)
        );
        assert_eq!(ran.result.replayed, ran.result.total, "{script}");
        match screen_after {
            Some(s) => {
                assert!(ran.result.session_active, "{script} is a handoff script");
                assert_eq!(ran.result.location["screen"], s);
            }
            None => assert!(!ran.result.session_active, "{script} ends with close"),
        }
    }
}

#[test]
fn handoff_guard_is_landmark_verified() {
    let ran = run_example("handoff-profile.ad", &[]);
    let last = ran.events("step_end").last().cloned().cloned().unwrap();
    assert_eq!(last["result"]["verification"], "landmark-verified");
    assert_eq!(last["result"]["target"]["id"], "profile.title");
}

#[test]
fn keep_session_skips_the_terminal_close() {
    let ran = run_with(
        "examples/login.ad",
        &example("login.ad"),
        Opts {
            env: &[("PASSWORD", "hunter2")],
            keep_session: true,
            ..Opts::default()
        },
    );
    assert!(ran.result.ok);
    assert!(ran.result.session_active);
    assert_eq!(ran.result.replayed, ran.result.total - 1);
    assert_eq!(ran.events("step_skipped").len(), 1);
    assert_eq!(ran.screen(), "home");
}

// ---- divergences --------------------------------------------------------------------------------

#[test]
fn reshuffled_login_refuses_the_impostor() {
    let ran = run_example("divergent/reshuffled-login.ad", &[]);
    let d = ran.divergence();
    assert_eq!(d["kind"], "identity-mismatch");
    assert_eq!(d["step"]["index"], 4);
    assert_eq!(d["step"]["source"]["line"], 12);
    assert_eq!(d["repairHint"], "caution");
    assert_eq!(d["targetBinding"]["observed"]["id"], "promo.signin");
    // Never dispatched: no attempt for the step, and the app did not leave the login screen.
    assert_eq!(ran.attempts_for(4), 0);
    assert_eq!(ran.screen(), "login");
    assert!(ran.result.session_active);
    // The real button is suggested, the impostor is not.
    let sugg = d["suggestions"].as_array().unwrap();
    assert_eq!(sugg[0]["selector"], "id=\"login.submit\"");
    assert!(sugg
        .iter()
        .all(|s| s["label"] != "Sign in" || s["role"] != "link"));
    insta::assert_json_snapshot!("reshuffled_divergence", d);
}

fn annotated(annotation: &str, step: &str) -> String {
    format!("{LOGIN}# agent-device:target-v1 {annotation}\n{step}\nclose\n")
}

#[test]
fn selector_miss_when_the_recorded_target_is_gone() {
    let text = annotated(
        r#"{"id":"home.banner","role":"button","label":"Offers","ancestry":[{"role":"application","label":"Shop"}],"sibling":0,"viewportOrder":0,"verification":"verified"}"#,
        "click \"id=\\\"home.banner\\\"\"",
    );
    let ran = run_text("miss.ad", &text, &[]);
    let d = ran.divergence();
    assert_eq!(d["kind"], "selector-miss");
    assert_eq!(d["cause"]["code"], "SELECTOR_MISS");
    assert_eq!(d["targetBinding"]["matchCount"], 0);
    // The recorded container (the application) is on screen: record-and-heal, resume after it.
    assert_eq!(d["repairHint"], "record-and-heal");
    assert_eq!(d["resume"]["from"], 7);
    assert_eq!(ran.attempts_for(6), 0);
}

#[test]
fn identity_unverifiable_when_recorded_so() {
    let text = annotated(
        r#"{"role":"button","label":"Checkout","verification":"unverifiable"}"#,
        "click \"label=\\\"Checkout\\\"\"",
    );
    let ran = run_text("unverifiable.ad", &text, &[]);
    let d = ran.divergence();
    assert_eq!(d["kind"], "identity-unverifiable");
    assert_eq!(d["repairHint"], "manual");
    assert!(d["targetBinding"].get("matchCount").is_none());
    assert_eq!(ran.attempts_for(6), 0);
    assert_eq!(ran.screen(), "home");
}

fn twins() -> AppModel {
    serde_json::from_value(json!({
        "app": "com.example.twins",
        "start": "list",
        "screens": {"list": {"elements": [
            {"type": "other", "label": "Rows", "children": [
                {"type": "button", "label": "Delete", "on": {"tap": {"fail": "deleted the wrong row"}}},
                {"type": "button", "label": "Delete", "on": {"tap": {"fail": "deleted the wrong row"}}}
            ]},
            {"type": "button", "id": "pay", "label": "Pay", "on": {"tap": {"fail": "Payment service unavailable"}}},
            {"type": "button", "id": "sync", "label": "Sync", "on": {"tap": {"transportError": "connection reset by peer"}}}
        ]}}
    }))
    .expect("model")
}

#[test]
fn identity_unverifiable_when_no_signal_isolates_one_member() {
    let text = "open \"com.example.twins\"\n# agent-device:target-v1 {\"role\":\"button\",\"label\":\"Delete\",\"ancestry\":[{\"role\":\"other\",\"label\":\"Rows\"}],\"sibling\":7,\"viewportOrder\":7,\"verification\":\"verified\"}\nclick \"label=\\\"Delete\\\"\"\n";
    let ran = run_with(
        "twins.ad",
        text,
        Opts {
            model: Some(twins()),
            ..Opts::default()
        },
    );
    let d = ran.divergence();
    assert_eq!(d["kind"], "identity-unverifiable");
    assert_eq!(
        d["targetBinding"]["candidates"].as_array().unwrap().len(),
        2
    );
    assert_eq!(ran.attempts_for(2), 0);
}

#[test]
fn action_failure_when_the_device_refuses() {
    let ran = run_with(
        "pay.ad",
        "open \"com.example.twins\"\nclick \"id=\\\"pay\\\"\"\n",
        Opts {
            model: Some(twins()),
            ..Opts::default()
        },
    );
    let d = ran.divergence();
    assert_eq!(d["kind"], "action-failure");
    assert_eq!(d["cause"]["message"], "Payment service unavailable");
    let results = ran.events("action_result");
    assert_eq!(results.last().unwrap()["result"], "rejected");
}

#[test]
fn transport_failures_are_unknown_and_not_retried() {
    let ran = run_with(
        "sync.ad",
        "open \"com.example.twins\"\nclick \"id=\\\"sync\\\"\"\n",
        Opts {
            model: Some(twins()),
            ..Opts::default()
        },
    );
    assert_eq!(ran.divergence()["kind"], "action-failure");
    assert_eq!(ran.attempts_for(2), 1, "never retried automatically");
    assert_eq!(
        ran.events("action_result").last().unwrap()["result"],
        "unknown"
    );
    let e = ran.result.error.as_ref().unwrap();
    assert_eq!(details(e)["reason"], "transport-failure");
}

#[test]
fn action_failure_when_an_unannotated_target_never_appears() {
    let text = format!("{LOGIN}click \"id=\\\"home.nothing\\\"\"\nclose\n");
    let ran = run_text("absent.ad", &text, &[]);
    let d = ran.divergence();
    assert_eq!(d["kind"], "action-failure");
    assert_eq!(d["cause"]["code"], "ELEMENT_NOT_FOUND");
    // The click waited exactly its appear window on the virtual clock.
    let end = ran.events("step_end").last().cloned().cloned().unwrap();
    assert_eq!(end["device_ms"], 2000);
    assert_eq!(ran.attempts_for(6), 0);
}

#[test]
fn annotated_wait_keeps_polling_then_reports_the_impostor() {
    let text = annotated(
        r#"{"id":"home.heading","role":"statictext","label":"Home","verification":"verified"}"#,
        "wait \"label=\\\"Home\\\"\" 1000",
    );
    let ran = run_text("landmark.ad", &text, &[]);
    let d = ran.divergence();
    assert_eq!(d["kind"], "identity-mismatch");
    let e = ran.result.error.as_ref().unwrap();
    assert_eq!(details(e)["reason"], "wait_landmark_identity_mismatch");
    let end = ran.events("step_end").last().cloned().cloned().unwrap();
    assert_eq!(end["device_ms"], 1000);
}

#[test]
fn disambiguation_is_disclosed() {
    let text = "open \"com.example.shop\"\nclick \"label=\\\"Sign in\\\"\"\n";
    let ran = run_text("ambiguous.ad", text, &[]);
    assert!(ran.result.ok);
    let end = ran.events("step_end")[1].clone();
    let res = &end["result"]["resolution"];
    assert_eq!(res["kind"], "disambiguated");
    assert_eq!(res["matchCount"], 3);
    assert_eq!(res["tiebreak"], "deepest");
    assert_eq!(res["alternatives"].as_array().unwrap().len(), 2);
    // Unannotated: the deepest "Sign in" (the promo link) was tapped — which is exactly why
    // recorded scripts carry target-v1 evidence.
    assert_eq!(ran.screen(), "promo");
}

// ---- variables ----------------------------------------------------------------------------------

#[test]
fn unresolved_variables_fail_before_dispatch_with_file_and_line() {
    let ran = run_example("login.ad", &[]);
    let e = ran.result.error.as_ref().unwrap();
    assert_eq!(e.code, "INVALID_ARGS");
    assert_eq!(
        e.message,
        "Unresolved variable ${PASSWORD} at examples/login.ad:9."
    );
    assert!(e.divergence().is_none());
    assert_eq!(ran.result.replayed, 3, "earlier steps ran");
    assert_eq!(ran.attempts_for(4), 0);
}

#[test]
fn variable_precedence_and_redaction() {
    let text = "env WHO=from-file\nopen \"com.example.shop\"\nfill \"id=\\\"login.email\\\"\" \"${WHO}\"\nfill \"id=\\\"login.password\\\"\" \"${SECRET:-fallback-pw}\"\nwait 10\n";
    let ran = run_with(
        "vars.ad",
        text,
        Opts {
            env: &[("WHO", "from-cli")],
            shell: &[("WHO", "from-shell")],
            ..Opts::default()
        },
    );
    assert!(ran.result.ok);
    assert_eq!(
        ran.sim.state().apps["com.example.shop"].values["login.email"],
        "from-cli"
    );
    assert_eq!(
        ran.sim.state().apps["com.example.shop"].values["login.password"],
        "fallback-pw"
    );
    let everything = format!(
        "{}{}",
        ran.rows.iter().map(|r| r.to_string()).collect::<String>(),
        ran.files.iter().map(|f| f.1.clone()).collect::<String>()
    );
    assert!(
        !everything.contains("from-cli"),
        "injected values never reach the journal"
    );
    assert!(everything.contains("<var:WHO>"));
    let attempt = ran.events("action_attempt")[1].clone();
    assert_eq!(attempt["args"]["text"], "<var:WHO>");
    assert_eq!(attempt["args"]["recordAs"], "WHO");
}

#[test]
fn secrets_are_redacted_in_divergence_reports() {
    let text = "open \"com.example.shop\"\nfill \"id=\\\"login.email\\\"\" \"${EMAIL}\"\nclick \"label=\\\"${EMAIL}\\\"\"\n";
    let ran = run_text("secret.ad", text, &[("EMAIL", "ada@example.com")]);
    let e = ran.result.error.as_ref().unwrap();
    let all = format!("{} {}", e.message, details(e));
    assert!(!all.contains("ada@example.com"), "{all}");
    assert!(all.contains("<var:EMAIL>"));
}

// ---- ref frames -----------------------------------------------------------------------------------

fn frame_failure(text: &str) -> (Value, usize) {
    let ran = run_text("frames.ad", text, &[]);
    let e = ran.result.error.clone().expect("the run fails");
    (details(&e), e.step.unwrap())
}

#[test]
fn a_mutation_expires_the_frame() {
    // e8 = Email, e9 = Password on the login screen.
    let (d, step) = frame_failure("open \"com.example.shop\"\nsnapshot\nclick @e8\nclick @e9\n");
    assert_eq!(d["reason"], "ref_frame_expired");
    assert_eq!(step, 4);
    assert_eq!(d["divergence"]["kind"], "action-failure");
}

#[test]
fn a_fresh_snapshot_re_admits_refs() {
    let ran = run_text(
        "frames.ad",
        "open \"com.example.shop\"\nsnapshot\nclick @e8\nsnapshot\nclick @e9\n",
        &[],
    );
    assert!(ran.result.ok, "{:?}", ran.result.error);
}

#[test]
fn refs_before_any_snapshot_were_never_issued() {
    let (d, _) = frame_failure("open \"com.example.shop\"\nclick @e3\n");
    assert_eq!(d["reason"], "ref_not_issued");
    let (d, _) = frame_failure("open \"com.example.shop\"\nsnapshot\nclick @e99\n");
    assert_eq!(d["reason"], "ref_not_issued");
}

#[test]
fn a_pin_from_another_generation_is_rejected() {
    let (d, _) = frame_failure("open \"com.example.shop\"\nsnapshot\ngesture drag @e8~s1 @e9~s1\n");
    assert_eq!(d["reason"], "ref_generation_mismatch");
    assert_eq!(d["mintedGeneration"], 1);
}

#[test]
fn a_partial_frame_needs_pinned_refs() {
    let (d, _) = frame_failure(
        "open \"com.example.shop\"\nsnapshot\nfind label \"Email\" exists\nclick @e8\n",
    );
    assert_eq!(d["reason"], "plain_ref_requires_complete_frame");
}

#[test]
fn reads_survive_expiry_with_a_warning() {
    let ran = run_text(
        "frames.ad",
        "open \"com.example.shop\"\nsnapshot\nclick @e8\nget text @e9\n",
        &[],
    );
    assert!(ran.result.ok, "{:?}", ran.result.error);
    assert_eq!(ran.result.warnings.len(), 1);
}

// ---- waits on the virtual clock ---------------------------------------------------------------------

#[test]
fn waits_are_exact_on_the_virtual_clock() {
    let text = format!(
        "{LOGIN}wait 1500\nwait stable 400 5000\nwait text \"Welcome, Demo\"\nclick \"id=\\\"cart.remove\\\"\"\nalert wait 1000\nalert accept\nwait absent \"id=\\\"cart.item\\\"\" 2000\nclose\n"
    );
    let ran = run_text("waits.ad", &text, &[]);
    assert!(ran.result.ok, "{:?}", ran.result.error);
    let device: Vec<u64> = ran
        .events("step_end")
        .iter()
        .map(|e| e["device_ms"].as_u64().unwrap())
        .collect();
    // login wait 600, sleep 1500, stable ≥ 400, removal after 500 → absent after 600 (2 polls).
    assert_eq!(device[4], 600);
    assert_eq!(device[5], 1500);
    assert!(device[6] >= 400);
    assert_eq!(device[11], 600);
}

#[test]
fn a_selector_wait_times_out_with_its_reason() {
    let text = format!("{LOGIN}wait \"id=\\\"never\\\"\" 1000\n");
    let ran = run_text("timeout.ad", &text, &[]);
    let e = ran.result.error.as_ref().unwrap();
    assert_eq!(details(e)["reason"], "wait_target_absent");
    assert_eq!(ran.events("step_end").last().unwrap()["device_ms"], 1000);
}

#[test]
fn failed_assertions_say_what_was_observed() {
    let text = format!("{LOGIN}is \"selected\" \"id=\\\"home.checkout\\\"\"\n");
    let ran = run_text("assert.ad", &text, &[]);
    let e = ran.result.error.as_ref().unwrap();
    assert_eq!(details(e)["reason"], "predicate_failed");
    assert!(e.message.contains("is selected failed"), "{}", e.message);
}

#[test]
fn the_script_timeout_uses_the_device_clock() {
    let ran = run_with(
        "slow.ad",
        &format!("{LOGIN}wait 5000\nwait 5000\nclose\n"),
        Opts {
            timeout_ms: Some(4000),
            ..Opts::default()
        },
    );
    let e = ran.result.error.as_ref().unwrap();
    assert_eq!(e.code, "TIMEOUT");
}

// ---- resume ---------------------------------------------------------------------------------------

#[test]
fn resume_checks_the_plan_digest() {
    let text = example("login.ad");
    let ran = run_with(
        "examples/login.ad",
        &text,
        Opts {
            from: Some((2, "0".repeat(64))),
            ..Opts::default()
        },
    );
    let e = ran.result.error.as_ref().unwrap();
    assert!(e.preflight);
    assert!(
        e.message.contains("--plan-digest does not match"),
        "{}",
        e.message
    );
    assert!(ran.events("action_attempt").is_empty(), "nothing ran");

    let a = ad_compiler::analyze(&text);
    let digest = ad_compiler::digest::plan_digest(
        a.steps(),
        a.metadata(),
        &ad_compiler::digest::DigestOptions::default(),
    );
    let ran = run_with(
        "examples/login.ad",
        &text,
        Opts {
            from: Some((99, digest.clone())),
            ..Opts::default()
        },
    );
    assert!(ran
        .result
        .error
        .as_ref()
        .unwrap()
        .message
        .contains("out of range"));
    // A matching digest runs from step N (here on a fresh device: the app is not open yet).
    let ran = run_with(
        "examples/login.ad",
        &text,
        Opts {
            env: &[("PASSWORD", "hunter2")],
            from: Some((1, digest)),
            ..Opts::default()
        },
    );
    assert!(ran.result.ok);
}

#[test]
fn resume_continues_the_live_session() {
    use ad_runtime::core::interp::{Plan, Quiet, RunOptions};
    use ad_runtime::session::{run_script, SessionConfig};
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("resume.ad");
    let text = "context platform=ios\nopen \"com.example.shop\" --relaunch\nfill \"id=\\\"login.email\\\"\" \"demo@example.com\"\nfill \"id=\\\"login.password\\\"\" \"hunter2\"\nclick \"id=\\\"login.${BUTTON}\\\"\"\nwait \"id=\\\"home.title\\\"\"\nclick \"id=\\\"tab.profile\\\"\"\nwait text \"Demo User\"\nclose\n";
    std::fs::write(&script, text).unwrap();
    let a = ad_compiler::analyze(text);
    let plan = Plan {
        steps: a.steps(),
        metadata: a.metadata(),
    };
    let config = SessionConfig {
        app_model: Some(shop_path()),
        artifacts_root: dir.path().join("artifacts"),
        persist_session: true,
        state_dir: dir.path().join("state"),
        no_journal: false,
        ..SessionConfig::default()
    };
    let opts = |button: &str, from: Option<(usize, String)>| RunOptions {
        script_path: "resume.ad".into(),
        cli_env: vec![("BUTTON".into(), button.into())],
        session: "resume".into(),
        from: from.as_ref().map(|f| f.0),
        plan_digest: from.map(|f| f.1),
        ..RunOptions::default()
    };
    let first = run_script(&plan, &script, &opts("wrong", None), &config, &mut Quiet).unwrap();
    let e = first.result.error.as_ref().unwrap();
    assert_eq!(e.step, Some(4));
    let session = first
        .session_file
        .clone()
        .expect("the failed run left its session live");
    assert!(session.is_file());
    // Variable values do not enter the digest: fix the value and resume at the failed step.
    let resume = &e.divergence().unwrap().resume;
    let from = resume.from;
    let digest = resume.plan_digest.clone();
    assert_eq!(from, 4);
    let second = run_script(
        &plan,
        &script,
        &opts("submit", Some((from, digest))),
        &config,
        &mut Quiet,
    )
    .unwrap();
    assert!(second.result.ok, "{:?}", second.result.error);
    assert_eq!(second.result.replayed, 5);
    assert!(!second.result.session_active);
    assert!(!session.exists(), "a closed session is forgotten");
    // Both runs left complete journals.
    for run in [first.run_dir.unwrap(), second.run_dir.unwrap()] {
        let events = ad_runtime::core::journal::read_events(&run.join("events.jsonl")).unwrap();
        assert_eq!(events.last().unwrap()["event"], "run_end");
        assert!(run.join("run.json").is_file());
    }
}

// ---- the journal ----------------------------------------------------------------------------------

#[test]
fn journal_links_attempts_to_the_next_observation() {
    let ran = run_example("login.ad", &[("PASSWORD", "hunter2")]);
    let mut pending: Option<String> = None;
    let mut seq = 0;
    for row in &ran.rows {
        seq += 1;
        assert_eq!(row["sequence"], seq);
        assert_eq!(row["schema_version"], 1);
        assert_eq!(row["session"], "test");
        match row["event"].as_str().unwrap() {
            "action_attempt" => pending = Some(row["attempt_id"].as_str().unwrap().into()),
            "observation" => {
                match pending.take() {
                    Some(a) => assert_eq!(row["after_attempt_id"], a.as_str()),
                    None => assert!(row.get("after_attempt_id").is_none()),
                }
                let path = row["path"].as_str().unwrap();
                let file = ran
                    .files
                    .iter()
                    .find(|f| f.0 == path)
                    .expect("observation file");
                assert_eq!(
                    row["sha256"],
                    ad_runtime::core::records::common::sha256_hex(file.1.as_bytes())
                );
            }
            _ => {}
        }
    }
    // The terminal close is the last attempt and nothing observed the screen after it; being
    // accepted, it awaits nothing (the app is gone), so the passing run lists no attempt.
    let last = pending.expect("the close's attempt");
    let close = ran
        .events("action_attempt")
        .into_iter()
        .find(|r| r["attempt_id"] == last.as_str())
        .cloned()
        .unwrap();
    assert_eq!(close["command"], "close");
    let end = ran.events("run_end")[0].clone();
    assert_eq!(end["awaiting_observation_after_attempt"], Value::Null);
    let summary: Value = serde_json::from_str(&ran.files.last().unwrap().1).unwrap();
    assert_eq!(
        summary["awaiting_observation_after_attempt"],
        end["awaiting_observation_after_attempt"]
    );
}

#[test]
fn journal_snapshot() {
    let ran = run_example("login.ad", &[("PASSWORD", "hunter2")]);
    let rows: Vec<Value> = ran.rows.iter().map(stable_row).collect();
    insta::assert_json_snapshot!("login_journal", rows);
    let mut summary: Value = serde_json::from_str(&ran.files.last().unwrap().1).unwrap();
    summary["wall_ms"] = "[wall]".into();
    insta::assert_json_snapshot!("login_run_summary", summary);
}

#[test]
fn observation_files_are_the_redacted_tree() {
    let ran = run_example("login.ad", &[("PASSWORD", "hunter2")]);
    let obs: Value = serde_json::from_str(&ran.files[2].1).unwrap();
    let email = obs["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|n| n["id"] == "login.email")
        .unwrap();
    assert_eq!(email["value"], "<var:EMAIL>");
    insta::assert_json_snapshot!("login_observation_3", obs);
}
