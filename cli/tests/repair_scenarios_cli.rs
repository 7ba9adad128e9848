//! Repair scenarios on the sim beyond a relabelled button (docs/repair.md, issue 32): an added
//! screen before the form (a state-repair: the new screen's action is recorded with `ad session`,
//! the unchanged step re-runs with `--from N`, and `ad heal` says a human is needed), a moved
//! button (only its position changed: the script still passes, nothing to heal), arming at a
//! `--from` resume on a live handoff session, a `--plan-digest` mismatch refused before any step,
//! and a complete repair whose commit fails at the daemon's reap (`REPAIR_COMMIT_FAILED`).

mod common;

use std::path::Path;
use std::process::Output;

use common::exit_code as code;
use common::shop::{
    ad, ad_reaping, assert_valid_script, listed, ok, recorded_login, resume_and_commit,
};
use common::{appears, json_of, output_text};
use serde_json::{json, Value};

/// Rewrites the project's Shop model with `change`.
fn edit_model(dir: &Path, change: impl FnOnce(&mut Value)) {
    let path = dir.join("apps/shop.json");
    let mut m: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    change(&mut m);
    std::fs::write(&path, m.to_string()).unwrap();
}

/// The action lines of a script (no header, comments or annotations).
fn actions(text: &str) -> Vec<&str> {
    text.lines()
        .filter(|l| !l.is_empty() && !l.starts_with('#') && !l.starts_with("context "))
        .collect()
}

#[test]
fn an_added_screen_is_repaired_by_recording_its_step_and_re_running_the_unchanged_one() {
    let (dir, script) = recorded_login("scenario-added-screen", &[], &[]);
    let original = std::fs::read_to_string(&script).unwrap();
    // The app now opens on a consent screen; accepting it leads to the sign-in form.
    edit_model(&dir, |m| {
        m["screens"]["consent"] = json!({
            "title": "Welcome",
            "elements": [
                {"type": "statictext", "id": "consent.text", "label": "We use cookies to keep you signed in"},
                {"type": "button", "id": "consent.accept", "label": "Accept", "on": {"tap": {"reset": "login"}}}
            ]
        });
        m["start"] = json!("consent");
    });

    // `ad heal` cannot propose a selector for a step whose screen is not there yet: a human.
    let o = ad(&dir, &["heal", "login.ad", "--write"]);
    let out = output_text(&o);
    assert_eq!(code(&o), 1, "{out}");
    // The report's own hint: the step is right, the app is not where it expects.
    assert!(
        out.contains("needs a human: state-repair — step 2 (line "),
        "{out}"
    );
    assert!(out.contains("    ad run login.ad --save-script\n"), "{out}");
    assert!(!out.contains("proposal 1"), "{out}");
    assert!(!dir.join("login.healed.ad").exists(), "{out}");

    // Arm: the first fill misses, its form is not on screen: a state-repair at step 2 itself.
    let o = ad(&dir, &["run", "login.ad", "--save-script", "--json"]);
    assert_eq!(code(&o), 1, "{}", output_text(&o));
    let r = json_of(&o);
    let d = &r["error"]["details"]["divergence"];
    assert_eq!(d["kind"], "selector-miss", "{r}");
    assert_eq!(d["step"]["index"], 2, "{r}");
    assert_eq!(d["repairHint"], "state-repair", "{r}");
    assert_eq!(d["resume"]["from"], 2, "the unchanged step re-runs: {r}");
    assert_eq!(d["resume"]["repairSessionHeld"], true, "{r}");
    let digest = d["resume"]["planDigest"].as_str().unwrap().to_string();
    let refs = d["screen"]["refs"].to_string();
    assert!(
        refs.contains("Accept"),
        "the report shows the new screen: {r}"
    );
    assert!(listed(&dir)
        .unwrap()
        .contains("repair-armed\t1 recorded action(s)"));

    // The new screen's action, recorded; the session's reply says what it records into.
    let o = ok(
        &dir,
        &["session", "click", r#"role="button" label="Accept""#],
    );
    assert!(
        output_text(&o).contains("(session \"default\" live, recording repair-armed)"),
        "{}",
        output_text(&o)
    );
    assert!(listed(&dir).unwrap().contains("2 recorded action(s)"));

    // `--from 2`, as the report says: the fill runs again on the form, and the rest passes.
    let healed = resume_and_commit(&dir, "2", &digest);
    assert_eq!(std::fs::read_to_string(&script).unwrap(), original);
    let text = std::fs::read_to_string(&healed).unwrap();
    assert!(
        text.ends_with("close\n# agent-device:heal-complete\n"),
        "{text}"
    );
    // The original journey with the new step between the open and the first fill.
    let mut expected = actions(&original);
    expected.insert(1, r#"click "role=\"button\" label=\"Accept\"""#);
    assert_eq!(actions(&text), expected, "{text}");
    let lines: Vec<&str> = text.lines().collect();
    let click = lines
        .iter()
        .position(|l| l.contains(r#"label=\"Accept\"""#))
        .unwrap();
    assert!(
        lines[click - 1].starts_with("# agent-device:target-v1 ")
            && lines[click - 1].contains(r#""id":"consent.accept""#),
        "the new step carries its evidence: {text}"
    );
    assert_valid_script(&dir, &healed);
    let o = ok(&dir, &["run", "login.healed.ad"]);
    assert!(
        output_text(&o).contains("ok: login.healed.ad"),
        "{}",
        output_text(&o)
    );
}

#[test]
fn a_moved_button_still_passes_and_heal_has_nothing_to_propose() {
    let (dir, script) = recorded_login("scenario-moved", &[], &[]);
    let original = std::fs::read_to_string(&script).unwrap();
    assert!(original.contains(r#""id":"login.submit""#) && original.contains(r#""sibling":2"#));
    // The sign-in button moves to the top of its form: another sibling index and rect, the same
    // id, role, label and ancestry. Position only breaks ties between elements of the recorded
    // identity (spec §12: `rect` is never compared), so the step still verifies.
    edit_model(&dir, |m| {
        let form = m["screens"]["login"]["elements"]
            .as_array_mut()
            .unwrap()
            .iter_mut()
            .find(|e| e["id"] == "login.form")
            .unwrap();
        let children = form["children"].as_array_mut().unwrap();
        let at = children
            .iter()
            .position(|c| c["id"] == "login.submit")
            .unwrap();
        let button = children.remove(at);
        children.insert(0, button);
    });
    // The click acts on the moved button: the run reaches home through it.
    let o = ok(&dir, &["run", "login.ad", "--json"]);
    let r = json_of(&o);
    assert_eq!(r["ok"], true, "{r}");
    assert_eq!(r["replayed"], 6, "{r}");
    let o = ok(&dir, &["heal", "login.ad", "--write"]);
    let out = output_text(&o);
    assert!(
        out.contains("ok: login.ad passed on sim: nothing to heal"),
        "{out}"
    );
    assert!(!out.contains("proposal"), "{out}");
    assert!(!dir.join("login.healed.ad").exists(), "{out}");
    assert_eq!(std::fs::read_to_string(&script).unwrap(), original);
}

#[test]
fn a_repair_armed_at_a_from_resume_on_a_live_handoff_session_records_from_there() {
    // checkout.ad: sign in, then open the checkout; handoff.ad: its first five steps, no close.
    let (dir, script) = recorded_login(
        "scenario-handoff-arm",
        &[
            &["click", r#"role="button" label="Checkout""#],
            &["wait", r#"id="checkout.name""#],
        ],
        &[],
    );
    let text = std::fs::read_to_string(&script).unwrap();
    std::fs::write(dir.join("checkout.ad"), &text).unwrap();
    let cut = text
        .find("# agent-device:target-v1 {\"id\":\"home.checkout\"")
        .unwrap();
    std::fs::write(dir.join("handoff.ad"), &text[..cut]).unwrap();
    // The home screen's checkout button is relabelled.
    edit_model(&dir, |m| {
        let home = m["screens"]["home"]["elements"].as_array_mut().unwrap();
        let b = home
            .iter_mut()
            .find(|e| e["id"] == "home.checkout")
            .unwrap();
        b["label"] = json!("Pay");
    });

    // The handoff passes and leaves its session live in ad's session daemon (on home).
    let o = ok(&dir, &["run", "handoff.ad", "--json"]);
    let r = json_of(&o);
    assert_eq!(
        (r["ok"].clone(), r["sessionActive"].clone()),
        (json!(true), json!(true)),
        "{r}"
    );
    assert_eq!(
        listed(&dir).as_deref(),
        Some("default\tsim\trecording unarmed\t0 recorded action(s)")
    );
    let o = ok(&dir, &["parse", "--digest", "checkout.ad"]);
    let digest = json_of(&o)["planDigest"].as_str().unwrap().to_string();

    // A resume of checkout.ad at step 6 on that session arms the repair there: the transaction's
    // boundary is the session's action count (agent-device arms at the first step a run
    // performs), so the healed script holds what happens from the resume on.
    let o = ad(
        &dir,
        &[
            "run",
            "checkout.ad",
            "--from",
            "6",
            "--plan-digest",
            &digest,
            "--save-script",
            "--json",
        ],
    );
    assert_eq!(code(&o), 1, "{}", output_text(&o));
    let r = json_of(&o);
    let d = &r["error"]["details"]["divergence"];
    assert_eq!(d["step"]["index"], 6, "{r}");
    assert_eq!(d["repairHint"], "record-and-heal", "{r}");
    assert_eq!(d["resume"]["from"], 7, "{r}");
    assert_eq!(d["resume"]["repairSessionHeld"], true, "{r}");
    assert_eq!(r["replayed"], 0, "{r}");
    assert_eq!(
        listed(&dir).as_deref(),
        Some("default\tsim\trecording repair-armed\t0 recorded action(s)")
    );
    // The corrective-action watermark holds for this transaction too.
    let o = ad(
        &dir,
        &[
            "run",
            "checkout.ad",
            "--from",
            "7",
            "--plan-digest",
            &digest,
        ],
    );
    assert_eq!(code(&o), 2, "{}", output_text(&o));
    assert!(
        output_text(&o).contains("no corrective action was recorded"),
        "{}",
        output_text(&o)
    );
    ok(&dir, &["session", "click", r#"role="button" label="Pay""#]);
    let o = ok(
        &dir,
        &[
            "run",
            "checkout.ad",
            "--from",
            "7",
            "--plan-digest",
            &digest,
        ],
    );
    assert!(
        output_text(&o).contains("warning: the repair is complete"),
        "{}",
        output_text(&o)
    );
    ok(&dir, &["session", "close"]);
    assert_eq!(listed(&dir), None);
    let healed = dir.join("checkout.healed.ad");
    let healed_text = std::fs::read_to_string(&healed).unwrap();
    assert_eq!(
        actions(&healed_text),
        [
            r#"click "role=\"button\" label=\"Pay\"""#,
            r#"wait "id=\"checkout.name\"""#,
            "close"
        ],
        "{healed_text}"
    );
    assert!(
        healed_text.starts_with("context platform=ios device=")
            && healed_text.ends_with("close\n# agent-device:heal-complete\n"),
        "{healed_text}"
    );
    assert!(healed_text.contains(r#""label":"Pay""#), "{healed_text}");
    assert_eq!(
        std::fs::read_to_string(dir.join("checkout.ad")).unwrap(),
        text
    );
    assert_valid_script(&dir, &healed);
}

#[test]
fn a_plan_digest_mismatch_is_refused_before_any_step_and_the_repair_goes_on() {
    let (dir, script) = recorded_login("scenario-digest", &[], &[("login.submit", Some("Log in"))]);
    let o = ad(&dir, &["run", "login.ad", "--save-script", "--json"]);
    assert_eq!(code(&o), 1, "{}", output_text(&o));
    let digest = json_of(&o)["planDigest"].as_str().unwrap().to_string();
    ok(
        &dir,
        &["session", "click", r#"role="button" label="Log in""#],
    );
    let held = listed(&dir).unwrap();
    assert!(
        held.contains("repair-armed\t4 recorded action(s)"),
        "{held}"
    );

    let refused = |o: &Output| {
        assert_eq!(code(o), 2, "{}", output_text(o));
        let out = output_text(o);
        assert!(
            out.contains("--plan-digest does not match the current plan digest")
                && out.contains("Run a fresh full replay to get a new digest."),
            "{out}"
        );
        // Nothing ran: no step line, the transaction as it was.
        assert!(!out.contains("5/6"), "{out}");
        assert_eq!(listed(&dir).unwrap(), held);
    };
    // Another digest.
    let other = "0".repeat(64);
    refused(&ad(
        &dir,
        &["run", "login.ad", "--from", "5", "--plan-digest", &other],
    ));
    // The script edited since the divergence: its digest changed.
    let original = std::fs::read_to_string(&script).unwrap();
    std::fs::write(
        &script,
        original.replace(
            r#"wait "id=\"home.title\"""#,
            r#"wait "id=\"home.title\"" 5000"#,
        ),
    )
    .unwrap();
    refused(&ad(
        &dir,
        &["run", "login.ad", "--from", "5", "--plan-digest", &digest],
    ));
    std::fs::write(&script, &original).unwrap();

    // The right digest continues the same transaction.
    ok(
        &dir,
        &["run", "login.ad", "--from", "5", "--plan-digest", &digest],
    );
    assert!(listed(&dir).unwrap().contains("repair-complete"));
    ok(&dir, &["session", "close"]);
    assert!(dir.join("login.healed.ad").is_file());
}

#[test]
fn a_complete_repair_whose_commit_fails_at_the_reap_answers_repair_commit_failed() {
    let (dir, _) = recorded_login(
        "scenario-commit-failed",
        &[],
        &[("login.submit", Some("Log in"))],
    );
    // A state folder of its own, so the run starts a daemon that reaps after 5 s unused.
    let state = dir.join("reaping");
    let run = |args: &[&str]| ad_reaping(&dir, &state, "5000", args);
    let o = run(&["run", "login.ad", "--save-script=fixed.ad", "--json"]);
    assert_eq!(code(&o), 1, "{}", output_text(&o));
    let digest = json_of(&o)["planDigest"].as_str().unwrap().to_string();
    // Something takes the healed script's path after the arming run checked it (a resume
    // without --save-script does not check it again).
    let target = dir.join("fixed.ad");
    std::fs::create_dir(&target).unwrap();
    let o = run(&["session", "click", r#"role="button" label="Log in""#]);
    assert!(o.status.success(), "{}", output_text(&o));
    let o = run(&["run", "login.ad", "--from", "5", "--plan-digest", &digest]);
    assert!(o.status.success(), "{}", output_text(&o));
    let tombstone = state.join("repairs/default.tombstone.json");
    assert!(appears(&tombstone), "the failed commit wrote no tombstone");
    let t: Value = serde_json::from_str(&std::fs::read_to_string(&tombstone).unwrap()).unwrap();
    assert!(
        t["commitFailure"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("A file already exists at")),
        "{t}"
    );
    assert!(target.is_dir(), "nothing replaced what was there");

    let o = run(&["run", "login.ad", "--from", "5", "--plan-digest", &digest]);
    assert_eq!(code(&o), 2, "{}", output_text(&o));
    let out = output_text(&o);
    assert!(
        out.contains("REPAIR_COMMIT_FAILED")
            && out.contains("completed, but committing its healed script failed at teardown")
            && out.contains("re-run: ad run ")
            && out.contains("--save-script"),
        "{out}"
    );
    assert!(!out.contains("5/6"), "nothing ran: {out}");
    // A new repair-armed run clears the tombstone.
    std::fs::remove_dir(&target).unwrap();
    let o = run(&["run", "login.ad", "--save-script=fixed.ad"]);
    assert_eq!(code(&o), 1, "{}", output_text(&o));
    assert!(!tombstone.exists(), "a new --save-script run clears it");
}

#[test]
fn a_failed_write_at_close_keeps_the_repair_and_the_next_close_commits_it_without_closing_again() {
    let (dir, script) = recorded_login(
        "scenario-write-failed",
        &[],
        &[("login.submit", Some("Log in"))],
    );
    let original = std::fs::read_to_string(&script).unwrap();
    // The healed script goes into a folder that cannot be made: a file has its name (a missing
    // folder is made, as agent-device's writer makes it).
    std::fs::write(dir.join("out"), "not a folder\n").unwrap();
    let o = ad(
        &dir,
        &["run", "login.ad", "--save-script=out/fixed.ad", "--json"],
    );
    assert_eq!(code(&o), 1, "{}", output_text(&o));
    let digest = json_of(&o)["planDigest"].as_str().unwrap().to_string();
    ok(
        &dir,
        &["session", "click", r#"role="button" label="Log in""#],
    );
    ok(
        &dir,
        &["run", "login.ad", "--from", "5", "--plan-digest", &digest],
    );

    // The app's close ran, the write failed: the session stays, its close done.
    let o = ad(&dir, &["session", "close"]);
    assert_eq!(code(&o), 1, "{}", output_text(&o));
    let out = output_text(&o);
    let target = dir.join("out/fixed.ad");
    assert!(
        out.contains("COMMAND_FAILED")
            && out.contains(&format!(
                "Failed to write the healed script to {}: could not create its folder {}",
                target.display(),
                dir.join("out").display()
            ))
            && out.contains("the repair transaction completed but the healed .ad could not be published: check the target path and permissions, then retry `ad session close`"),
        "{out}"
    );
    // Not the authoring session's recovery: nothing here is an armed recording.
    assert!(!out.contains("the recording is still armed"), "{out}");
    assert!(
        listed(&dir).unwrap().contains("repair-close-succeeded"),
        "{:?}",
        listed(&dir)
    );

    // The file moved away, the next close only commits (its folder made).
    std::fs::remove_file(dir.join("out")).unwrap();
    let o = ok(&dir, &["session", "close"]);
    assert!(
        output_text(&o).contains(&target.display().to_string()),
        "{}",
        output_text(&o)
    );
    assert_eq!(listed(&dir), None);
    let text = std::fs::read_to_string(&target).unwrap();
    assert!(
        text.ends_with("close\n# agent-device:heal-complete\n"),
        "{text}"
    );
    assert_eq!(
        text.lines().filter(|l| *l == "close").count(),
        1,
        "one close: {text}"
    );
    assert_eq!(std::fs::read_to_string(&script).unwrap(), original);
    assert_valid_script(&dir, &target);
}
