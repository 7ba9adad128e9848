//! `heal::heal` on a recording of the failing run (docs/repair.md, "Offline, from a recorded
//! fixture"): the Shop app's sign-in button relabelled (or its home title re-identified), the
//! failing run recorded on the sim, then healed from the recording alone. Each proof's scope says
//! what the recording proved and where it ran out.

mod common;

use std::path::Path;

use ad_runtime::backends::BackendKind;
use ad_runtime::core::interp::{Plan, Quiet, RunOptions};
use ad_runtime::session::heal::{self, Outcome, Request, Scope};
use ad_runtime::session::{run_script, SessionConfig};
use common::*;
use serde_json::Value;

/// `login.ad` as an authoring session records it on the Shop app (with evidence), then `extra`
/// lines before its `close`.
fn login(extra: &str) -> String {
    format!(
        r#"context platform=ios device="sim" theme=unknown
open "com.example.shop" --relaunch
# agent-device:target-v1 {{"id":"login.email","role":"textfield","label":"Email","ancestry":[{{"role":"form","label":"Sign in"}},{{"role":"application","label":"Shop"}}],"sibling":0,"viewportOrder":0,"rect":{{"x":0,"y":135,"width":390,"height":44}},"verification":"verified"}}
fill "id=\"login.email\"" "demo@example.com"
# agent-device:target-v1 {{"id":"login.password","role":"securetextfield","label":"Password","ancestry":[{{"role":"form","label":"Sign in"}},{{"role":"application","label":"Shop"}}],"sibling":1,"viewportOrder":0,"rect":{{"x":0,"y":179,"width":390,"height":44}},"verification":"verified"}}
fill "id=\"login.password\"" "hunter2"
# agent-device:target-v1 {{"id":"login.submit","role":"button","label":"Sign in","ancestry":[{{"role":"form","label":"Sign in"}},{{"role":"application","label":"Shop"}}],"sibling":2,"viewportOrder":0,"rect":{{"x":0,"y":223,"width":390,"height":44}},"verification":"verified"}}
click "role=\"button\" label=\"Sign in\""
# agent-device:target-v1 {{"id":"home.title","role":"statictext","label":"Home","ancestry":[{{"role":"application","label":"Shop"}}],"sibling":1,"viewportOrder":0,"rect":{{"x":0,"y":91,"width":390,"height":44}},"verification":"verified"}}
wait "id=\"home.title\""
{extra}close
"#
    )
}

/// The Shop model with element `id`'s `field` set to `value`, written into `dir`.
fn edited_model(dir: &Path, id: &str, field: &str, value: &str) -> std::path::PathBuf {
    fn edit(v: &mut Value, id: &str, field: &str, value: &str) -> bool {
        match v {
            Value::Object(m) => {
                if m.get("id").and_then(Value::as_str) == Some(id) {
                    m.insert(field.into(), Value::String(value.into()));
                    return true;
                }
                m.values_mut().any(|v| edit(v, id, field, value))
            }
            Value::Array(a) => a.iter_mut().any(|v| edit(v, id, field, value)),
            _ => false,
        }
    }
    let mut model: Value =
        serde_json::from_str(&std::fs::read_to_string(shop_path()).unwrap()).unwrap();
    assert!(edit(&mut model, id, field, value), "{id}");
    let path = dir.join("shop.json");
    std::fs::write(&path, model.to_string()).unwrap();
    path
}

fn plan_of(text: &str) -> (ad_compiler::Analysis, RunOptions) {
    let options = RunOptions {
        script_path: "login.ad".into(),
        session: "heal-recorded".into(),
        level: "full".into(),
        ..RunOptions::default()
    };
    (ad_compiler::analyze(text), options)
}

/// Records the failing run of `text` on the sim with `model` into `dir/fx`, then heals `text`
/// from that recording alone.
fn heal_from_recording(dir: &Path, text: &str, model: &Path) -> Outcome {
    let script = dir.join("login.ad");
    std::fs::write(&script, text).unwrap();
    let (analysis, options) = plan_of(text);
    let plan = Plan {
        steps: analysis.steps(),
        metadata: analysis.metadata(),
    };
    let fixture = dir.join("fx");
    let record = SessionConfig {
        app_model: Some(model.to_path_buf()),
        artifacts_root: dir.join("recording"),
        state_dir: dir.join("state"),
        backend: Some(BackendKind::Sim),
        record_fixture: Some(fixture.clone()),
        ..SessionConfig::default()
    };
    let failing = run_script(&plan, &script, &options, &record, &mut Quiet).unwrap();
    assert!(!failing.result.ok, "the edited app fails the script");
    let replay = SessionConfig {
        artifacts_root: dir.join("proofs"),
        state_dir: dir.join("state"),
        backend: Some(BackendKind::Recorded),
        recorded: Some(fixture),
        ..SessionConfig::default()
    };
    let req = Request {
        script: &script,
        text: text.to_string(),
        options,
        config: replay,
    };
    heal::heal(&req, &mut Quiet).expect("the heal runs")
}

#[test]
fn a_relabelled_button_is_proven_on_the_recording_up_to_its_tap() {
    let tmp = tempfile::tempdir().unwrap();
    let model = edited_model(tmp.path(), "login.submit", "label", "Log in");
    let o = heal_from_recording(tmp.path(), &login(""), &model);
    assert!(o.human.is_none(), "{:?}", o.human);
    let rec = o.recording.as_ref().expect("an offline heal");
    assert_eq!(
        (rec.backend.as_str(), rec.platform.as_str()),
        ("sim", "ios")
    );
    assert_eq!(o.proposals.len(), 1);
    let p = &o.proposals[0];
    assert_eq!((p.step, p.line), (4, 8));
    assert_eq!(p.new_selector, r#"id="login.submit""#);
    assert_eq!(p.changed.len(), 1, "{:?}", p.changed);
    assert_eq!(p.changed[0].now, r#""Log in""#);
    match &p.proof.scope {
        Scope::Recording {
            replayed_to: 3,
            ends_at: Some(end),
        } => {
            assert_eq!((end.step, end.line), (4, 8));
            assert!(
                end.reason.contains(r#"holds no answer to {"kind":"tap""#),
                "{}",
                end.reason
            );
        }
        other => panic!("{other:?}"),
    }
    assert!(!o.proven_to_the_end());
    assert_eq!(
        o.recording_end().map(|(p, e)| (p.step, e.step)),
        Some((4, 4))
    );
    assert!(o.healed.contains("\nclick \"id=\\\"login.submit\\\"\"\n"));
}

#[test]
fn a_changed_wait_target_is_proven_with_the_reads_after_it() {
    let tmp = tempfile::tempdir().unwrap();
    let model = edited_model(tmp.path(), "home.title", "id", "home.heading");
    let text = login("is visible \"id=\\\"home.greeting\\\"\"\n");
    let o = heal_from_recording(tmp.path(), &text, &model);
    assert!(o.human.is_none(), "{:?}", o.human);
    let p = &o.proposals[0];
    assert_eq!(
        (p.step, p.new_selector.as_str()),
        (5, r#"id="home.heading""#)
    );
    // The wait and the read after it passed on the recorded screens; the close acts.
    match &p.proof.scope {
        Scope::Recording {
            replayed_to: 6,
            ends_at: Some(end),
        } => {
            assert_eq!(end.step, 7);
            assert!(end.reason.contains(r#"{"kind":"close"}"#), "{}", end.reason);
        }
        other => panic!("{other:?}"),
    }
    assert!(!o.proven_to_the_end());
}
