//! The heal record (docs/repair.md, docs/run.md): `ad heal --json` prints it on stdout and every
//! `ad heal` keeps it in `<artifacts>/heal/<script>.json`; its line edits applied to the original
//! text give exactly the healed script; a step that needs a human carries the repair-armed
//! command; an injected value never appears; `ad test --heal-proposals DIR --report-html` lists
//! each failed script's proposal or its needs-human step. On the sim, with the Shop app.

mod common;

use std::path::Path;
use std::process::Output;

use ad_runtime::core::records::heal::{
    apply_line_edits, text_sha256, HealProofScope, HealRecord, HealVerdict,
};
use common::exit_code as code;
use common::shop::{ad, record_fixture_run, recorded_login};
use common::{output_text, repo_root, stderr, stdout};
use serde_json::Value;

/// The record `ad heal --json` printed: stdout holds that JSON document and nothing else, and it
/// fits the checked-in schema.
fn printed_record(o: &Output) -> HealRecord {
    let out = stdout(o);
    let value: Value = serde_json::from_str(&out)
        .unwrap_or_else(|e| panic!("stdout is one JSON document ({e}):\n{out}"));
    let schema: Value = serde_json::from_str(
        &std::fs::read_to_string(repo_root().join("docs/schemas/heal-record.schema.json")).unwrap(),
    )
    .unwrap();
    if let Err(errors) = ad_runtime::core::records::validate::validate(&schema, &value) {
        panic!("the record does not fit its schema: {errors:?}\n{out}");
    }
    serde_json::from_value(value).expect("a heal record")
}

fn kept_record(dir: &Path, script: &str) -> String {
    let path = dir.join("ad-artifacts/heal").join(format!("{script}.json"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn heal_json_prints_the_record_kept_in_the_artifacts_folder_and_its_edits_give_the_healed_script() {
    let (dir, script) =
        recorded_login("heal-record-json", &[], &[("login.submit", Some("Log in"))]);
    let original = std::fs::read_to_string(&script).unwrap();
    let o = ad(&dir, &["heal", "login.ad", "--json"]);
    assert_eq!(code(&o), 0, "{}", output_text(&o));
    let record = printed_record(&o);
    // The human report went to stderr.
    assert!(
        stderr(&o).contains("proposal 1: step 4 (line "),
        "{}",
        stderr(&o)
    );
    assert_eq!(kept_record(&dir, "login.ad"), stdout(&o));

    assert_eq!(record.schema_version, 1);
    assert_eq!(record.script, "login.ad");
    assert_eq!(record.script_sha256, text_sha256(&original));
    assert_eq!(record.verdict, HealVerdict::Proposed);
    assert!(record.human.is_none());
    assert_eq!(record.proposals.len(), 1, "{record:#?}");
    let p = &record.proposals[0];
    assert_eq!((p.step, p.divergence_kind.as_str()), (4, "selector-miss"));
    assert_eq!(
        original.lines().nth(p.line - 1),
        Some(r#"click "role=\"button\" label=\"Sign in\"""#)
    );
    assert_eq!(p.old_selector, r#"role="button" label="Sign in""#);
    assert_eq!(p.new_selector, r#"id="login.submit""#);
    assert_eq!(p.rank, 1);
    assert!(p.matched.iter().any(|m| m == "id"), "{p:#?}");
    let label = p
        .changed
        .iter()
        .find(|c| c.field == "label")
        .expect("label");
    assert_eq!(
        (label.was.as_str(), label.now.as_str()),
        ("\"Sign in\"", "\"Log in\"")
    );
    assert!(p.proof.passed, "{p:#?}");
    assert_eq!((p.proof.replayed, p.proof.total), (6, 6));
    let run_dir = p
        .proof
        .run_dir
        .as_deref()
        .expect("the proving run's folder");
    assert!(dir.join(run_dir).join("run.json").is_file(), "{run_dir}");
    assert!(record.diff.starts_with("--- login.ad\n"), "{}", record.diff);
    // The whole record, but for the proving run's folder and time.
    let mut shown = record.clone();
    shown.proposals[0].proof.run_dir = Some("<run folder>".into());
    shown.proposals[0].proof.wall_ms = 0.0;
    insta::assert_snapshot!(
        "relabelled_button_record",
        serde_json::to_string_pretty(&shown).unwrap()
    );

    // Only the step's selector and annotation lines change.
    let original_lines: Vec<&str> = original.lines().collect();
    assert!(!p.edits.is_empty());
    for e in &p.edits {
        let replaced = &original_lines[e.start - 1..e.end - 1];
        for l in replaced.iter().copied().chain(e.text.lines()) {
            assert!(
                l.starts_with("# agent-device:target-v1 ") || l.starts_with("click "),
                "{l}\n{e:?}"
            );
        }
        assert!(
            e.start <= p.line && p.line < e.end.max(e.start + 1),
            "{e:?}"
        );
    }

    // The edits applied to the original are the healed script `--write` commits, without its
    // heal-complete line.
    let applied = apply_line_edits(&original, &record.edits()).expect("edits of the text");
    let o = ad(&dir, &["heal", "login.ad", "--write"]);
    assert_eq!(code(&o), 0, "{}", output_text(&o));
    let healed = std::fs::read_to_string(dir.join("login.healed.ad")).unwrap();
    assert_eq!(
        healed.strip_suffix("# agent-device:heal-complete\n"),
        Some(applied.as_str())
    );
}

#[test]
fn a_step_that_needs_a_human_is_recorded_with_the_repair_armed_command() {
    let (dir, _) = recorded_login("heal-record-human", &[], &[("login.password", None)]);
    let o = ad(&dir, &["heal", "login.ad", "--json"]);
    assert_eq!(code(&o), 1, "{}", output_text(&o));
    let record = printed_record(&o);
    assert_eq!(record.verdict, HealVerdict::NeedsHuman);
    assert!(record.proposals.is_empty());
    assert_eq!(record.diff, "");
    let h = record.human.as_ref().expect("the human step");
    assert_eq!(h.step, 3);
    assert!(h.action.starts_with("fill "), "{h:#?}");
    assert_eq!(h.repair_hint, "record-and-heal");
    assert_eq!(h.repair_command, "ad run login.ad --save-script");
    assert!(!h.message.is_empty());
    assert_eq!(kept_record(&dir, "login.ad"), stdout(&o));
}

#[test]
fn an_injected_value_never_appears_in_the_record() {
    let (dir, script) = recorded_login(
        "heal-record-secret",
        &[],
        &[("login.submit", Some("Log in"))],
    );
    let text = std::fs::read_to_string(&script).unwrap();
    std::fs::write(
        &script,
        text.replace(" \"hunter2\"\n", " \"${PASSWORD}\"\n"),
    )
    .unwrap();
    let o = ad(
        &dir,
        &["heal", "login.ad", "--json", "-e", "PASSWORD=hunter2"],
    );
    assert_eq!(code(&o), 0, "{}", output_text(&o));
    let record = printed_record(&o);
    assert_eq!(record.verdict, HealVerdict::Proposed);
    assert!(!output_text(&o).contains("hunter2"), "{}", output_text(&o));
    let kept = kept_record(&dir, "login.ad");
    assert!(!kept.contains("hunter2"), "{kept}");
    // The placeholder stays as written in what the edits produce.
    let applied =
        apply_line_edits(&std::fs::read_to_string(&script).unwrap(), &record.edits()).unwrap();
    assert!(applied.contains("\"${PASSWORD}\""), "{applied}");
}

#[test]
fn the_html_report_lists_each_failed_scripts_proposal_or_its_needs_human_step() {
    let (dir, script) =
        recorded_login("heal-record-html", &[], &[("login.submit", Some("Log in"))]);
    std::fs::create_dir_all(dir.join("flows")).unwrap();
    std::fs::rename(&script, dir.join("flows/login.ad")).unwrap();
    // A second script whose step has no evidence and nothing to find: no candidate, a human.
    std::fs::write(
        dir.join("flows/gone.ad"),
        "context platform=ios\nopen com.example.shop --relaunch\nclick \"id=\\\"promo.gone\\\"\"\nclose\n",
    )
    .unwrap();
    let o = ad(
        &dir,
        &[
            "test",
            "flows",
            "--heal-proposals",
            "proposals",
            "--report-html",
            "report",
        ],
    );
    let out = output_text(&o);
    assert_eq!(code(&o), 1, "{out}");
    let index = std::fs::read_to_string(dir.join("report/index.html")).unwrap();
    let section = &index[index.find("<section id=\"heal\">").expect(&index)..];
    let section = &section[..section.find("</section>").unwrap()];
    // The proven change, with its .diff copied into the report.
    let login = &section[section
        .find("data-script=\"flows/login.ad\"")
        .expect(section)..];
    let login = &login[..login.find("</div>").unwrap()];
    assert!(
        login.contains("1 proven change: <a class=\"diff\" href=\"heal/"),
        "{login}"
    );
    assert!(
        login.contains("step 4 (line ") && login.contains("&quot;login.submit&quot;"),
        "{login}"
    );
    assert!(
        login.contains("label: &quot;Sign in&quot; → &quot;Log in&quot;"),
        "{login}"
    );
    assert!(
        login.contains("proven by a fresh run: passed, 6 of 6 steps"),
        "{login}"
    );
    let href = login.split("href=\"heal/").nth(1).unwrap();
    let href = &href[..href.find('"').unwrap()];
    assert_eq!(
        std::fs::read_to_string(dir.join("report/heal").join(href)).unwrap(),
        std::fs::read_to_string(dir.join("proposals/flows/login.ad.diff")).unwrap()
    );
    // The step that needs a human, with the repair-armed command.
    let gone = &section[section
        .find("data-script=\"flows/gone.ad\"")
        .expect(section)..];
    let gone = &gone[..gone.find("</div>").unwrap()];
    assert!(gone.contains("step 2 (line 3) needs a human"), "{gone}");
    assert!(
        gone.contains("<code class=\"resume\">ad run flows/gone.ad --save-script</code>"),
        "{gone}"
    );
    assert!(!gone.contains("class=\"diff\""), "{gone}");
    // Each is also kept where the editor reads it.
    assert!(dir.join("ad-artifacts/heal/flows/login.ad.json").is_file());
    assert!(dir.join("ad-artifacts/heal/flows/gone.ad.json").is_file());
}

#[test]
fn a_proof_on_a_recording_says_how_far_it_reached() {
    let (dir, _) = recorded_login(
        "heal-record-recording",
        &[],
        &[("login.submit", Some("Log in"))],
    );
    let o = record_fixture_run(&dir);
    assert_eq!(code(&o), 1, "the edited app fails: {}", output_text(&o));
    std::fs::remove_dir_all(dir.join("apps")).unwrap();
    let o = ad(
        &dir,
        &["heal", "login.ad", "--backend", "recorded:fx", "--json"],
    );
    let record = printed_record(&o);
    assert_eq!(record.verdict, HealVerdict::Proposed, "{}", stderr(&o));
    let p = &record.proposals[0];
    assert_eq!(p.new_selector, r#"id="login.submit""#);
    match &p.proof.scope {
        HealProofScope::Recording {
            replayed_to,
            ends_at: Some(end),
        } => {
            assert_eq!((*replayed_to, end.step, end.line), (3, 4, p.line));
            assert!(end.reason.contains("holds no answer"), "{}", end.reason);
        }
        other => panic!("a proof on the recording that ran out at step 4: {other:?}"),
    }
    // Not proven to the end: what --write and the editor's quick fix need.
    assert!(!record.proven_to_the_end());
}
