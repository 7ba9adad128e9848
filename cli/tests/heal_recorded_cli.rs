//! `ad heal FILE --backend recorded:DIR` (docs/repair.md, "Offline, from a recorded fixture"): a
//! script recorded on the Shop sim, the model then edited, and the failing run recorded with
//! `ad run --record-fixture DIR`. With the model gone (no sim could run it), the heal replays
//! that recording: a relabelled button gets a proposal proven as far as the recording goes (the
//! steps before it replay as recorded, the new selector resolves on the recorded screen and its
//! new evidence verifies there; the tap the recording never saw is where the proof ends), a
//! removed field needs a human, and a recording that is not of the script's failing run is
//! refused, naming the step that contradicts it. Nothing is written without `--write`.

mod common;

use common::exit_code as code;
use common::shop::{ad, failing_recording, record_fixture_run, recorded_login};
use common::{changed_lines, journal_of, output_text};

#[test]
fn a_relabelled_button_is_proposed_from_the_recording_of_the_failing_run() {
    let (dir, script) = failing_recording("heal-rec-relabel", "login.submit", Some("Log in"));
    let original = std::fs::read_to_string(&script).unwrap();
    let fixture: Vec<_> = std::fs::read_dir(dir.join("fx/observations"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    let o = ad(&dir, &["heal", "login.ad", "--backend", "recorded:fx"]);
    let out = output_text(&o);
    assert_eq!(code(&o), 0, "{out}");
    assert!(
        out.contains(r#"proposal 1: step 4 (line 8) diverged (selector-miss, SELECTOR_MISS): role="button" label="Sign in" → id="login.submit""#),
        "{out}"
    );
    assert!(
        out.contains(r#"evidence changed: label: "Sign in" → "Log in""#),
        "{out}"
    );
    // What was proven on the recording: steps 1-3 as recorded, then step 4's new selector
    // resolved on the recorded screen (the relabelled button) and its new evidence verified.
    assert!(
        out.contains("proven on the recording fx (recorded on sim): steps 1–3 replayed as recorded, and step 4's new selector resolves to one element of the recorded screen, its new evidence verified there; journal "),
        "{out}"
    );
    assert!(
        out.contains("  not replayed: the recording ends at step 4 (line 8): "),
        "{out}"
    );
    assert!(
        out.contains("  prove steps 4–6 on a device: ad heal login.ad --backend sim\n"),
        "{out}"
    );
    assert!(
        out.contains(
            "proposed: 1 proposal(s) for login.ad proven on the recording up to step 4 of 6 in "
        ),
        "{out}"
    );
    let events = journal_of(&dir, &out);
    let step4: Vec<_> = events.iter().filter(|e| e["step"] == 4).collect();
    let attempt = step4
        .iter()
        .find(|e| e["event"] == "action_attempt")
        .unwrap_or_else(|| panic!("step 4 resolved and tried its tap: {events:#?}"));
    assert_eq!(attempt["args"]["target"]["label"], "Log in", "{attempt}");
    assert_eq!(attempt["args"]["target"]["id"], "login.submit", "{attempt}");
    // What was not: the tap is one the recording never saw, so the proof ends there (the
    // recording ran out; it was not contradicted).
    let end = step4
        .iter()
        .find(|e| e["event"] == "step_end")
        .expect("step 4 ended");
    assert_eq!(end["code"], "REPLAY_EXHAUSTED", "{end}");
    let divergence = step4
        .iter()
        .find(|e| e["event"] == "divergence")
        .expect("the proof run's report");
    let cause = divergence["report"]["cause"]["message"].as_str().unwrap();
    assert!(
        cause.contains(r#"holds no answer to {"kind":"tap""#),
        "{divergence}"
    );
    assert!(!events.iter().any(|e| e["step"] == 5), "{events:#?}");
    // Only the click's selector and its annotation change.
    let changed = changed_lines(&out);
    assert_eq!(changed.len(), 4, "{out}");
    assert!(
        changed.contains(&r#"+click "id=\"login.submit\"""#),
        "{out}"
    );
    assert!(
        changed
            .iter()
            .any(|l| l.starts_with("+#") && l.contains(r#""label":"Log in""#)),
        "{out}"
    );
    // Nothing written: no healed script, the script and the recording as they were.
    assert!(
        out.contains("nothing written: prove the rest on a device, then commit it: ad heal login.ad --backend sim --write\n"),
        "{out}"
    );
    assert!(!dir.join("login.healed.ad").exists());
    assert_eq!(std::fs::read_to_string(&script).unwrap(), original);
    // --write commits only a proof that reached the end of the script.
    let o = ad(
        &dir,
        &["heal", "login.ad", "--backend", "recorded:fx", "--write"],
    );
    let out = output_text(&o);
    assert_eq!(code(&o), 0, "{out}");
    assert!(
        out.contains("nothing written: the proposal is proven on the recording up to step 4 only, and a healed script is committed only when its proof reaches the end; prove the rest on a device: ad heal login.ad --backend sim --write\n"),
        "{out}"
    );
    assert!(!dir.join("login.healed.ad").exists());
    assert_eq!(std::fs::read_to_string(&script).unwrap(), original);
    let after: Vec<_> = std::fs::read_dir(dir.join("fx/observations"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(after.len(), fixture.len());
}

#[test]
fn a_removed_field_still_needs_a_human_offline() {
    let (dir, _) = failing_recording("heal-rec-removed", "login.password", None);
    let o = ad(
        &dir,
        &["heal", "login.ad", "--backend", "recorded:fx", "--write"],
    );
    let out = output_text(&o);
    assert_eq!(code(&o), 1, "{out}");
    assert!(
        out.contains("needs a human: record-and-heal — step 3 (line 6)"),
        "{out}"
    );
    assert!(!out.contains("proposal 1"), "{out}");
    // The repair needs the device the recording was made on, not the recording.
    assert!(
        out.contains("    ad run login.ad --backend sim --save-script\n"),
        "{out}"
    );
    assert!(!dir.join("login.healed.ad").exists());
}

#[test]
fn a_recording_that_is_not_of_the_scripts_failing_run_is_refused() {
    let (dir, script) = failing_recording("heal-rec-foreign", "login.submit", Some("Log in"));
    let text = std::fs::read_to_string(&script).unwrap();
    // Its earlier steps differ: another e-mail address is typed at step 2.
    let other = text.replace("demo@example.com", "someone@example.com");
    assert_ne!(other, text);
    std::fs::write(dir.join("other.ad"), &other).unwrap();
    let o = ad(&dir, &["heal", "other.ad", "--backend", "recorded:fx"]);
    let out = output_text(&o);
    assert_eq!(code(&o), 2, "{out}");
    assert!(
        out.contains("the recording fx is not of other.ad's failing run: step 2 (line 4) contradicts it: expected recorded call 3"),
        "{out}"
    );
    assert!(out.contains("someone@example.com"), "{out}");
    assert!(
        out.contains("`ad run other.ad --backend sim --record-fixture fx`"),
        "{out}"
    );
    assert!(!out.contains("proposal 1"), "{out}");
    // Another script altogether: it opens the catalog where the recording typed an e-mail.
    std::fs::write(
        dir.join("catalog.ad"),
        "context platform=ios\nopen \"com.example.shop\" --relaunch\nclick \"id=\\\"tab.catalog\\\"\"\nclose\n",
    )
    .unwrap();
    let o = ad(
        &dir,
        &["heal", "catalog.ad", "--backend", "recorded:fx", "--write"],
    );
    let out = output_text(&o);
    assert_eq!(code(&o), 2, "{out}");
    assert!(
        out.contains(
            "the recording fx is not of catalog.ad's failing run: step 2 (line 3) contradicts it"
        ),
        "{out}"
    );
    assert!(
        out.contains("the recorded run acts again at call 3"),
        "{out}"
    );
    assert!(!dir.join("catalog.healed.ad").exists());
    assert!(!dir.join("other.healed.ad").exists());
}

#[test]
fn a_read_step_is_proven_on_the_screens_the_recording_holds() {
    // The home title's id changed: the wait after sign-in times out. The two `is` reads after it
    // look at the screen the recording holds; the closing `close` is where it ends.
    let (dir, script) = recorded_login(
        "heal-rec-read",
        &[],
        &[("home.title", Some("id:home.heading"))],
    );
    let text = std::fs::read_to_string(&script).unwrap().replace(
        "\nclose\n",
        "\nis visible \"id=\\\"home.greeting\\\"\"\nclose\n",
    );
    assert!(
        text.contains("\nis visible \"id=\\\"home.greeting\\\"\"\n"),
        "{text}"
    );
    std::fs::write(&script, &text).unwrap();
    let o = record_fixture_run(&dir);
    assert_eq!(code(&o), 1, "{}", output_text(&o));
    std::fs::remove_dir_all(dir.join("apps")).unwrap();
    let o = ad(&dir, &["heal", "login.ad", "--backend", "recorded:fx"]);
    assert_eq!(code(&o), 0, "{}", output_text(&o));
    let out = output_text(&o);
    assert!(
        out.contains(r#"proposal 1: step 5 (line 10) diverged (selector-miss, SELECTOR_MISS): id="home.title" → id="home.heading""#),
        "{out}"
    );
    // Steps 1-6 passed on the recording (the wait and the read after it on its screens).
    assert!(
        out.contains("proven on the recording fx (recorded on sim): steps 1–6 replayed (step 5 with the new selector, steps 6–6 on the screens the recording holds)"),
        "{out}"
    );
    assert!(
        out.contains("not replayed: the recording ends at step 7 (line 12)"),
        "{out}"
    );
    let events = journal_of(&dir, &out);
    let ended = |step: u64| {
        events
            .iter()
            .find(|e| e["event"] == "step_end" && e["step"] == step)
            .cloned()
            .unwrap_or_default()
    };
    assert_eq!(ended(6)["status"], "ok", "{events:#?}");
    assert_eq!(ended(7)["code"], "REPLAY_EXHAUSTED", "{events:#?}");
    // A read the recorded screen contradicts is a real failure there, not a recording's end.
    std::fs::write(
        &script,
        text.replace(
            "is visible \"id=\\\"home.greeting\\\"\"",
            "is visible \"id=\\\"home.nothing\\\"\"",
        ),
    )
    .unwrap();
    let o = ad(&dir, &["heal", "login.ad", "--backend", "recorded:fx"]);
    let out = output_text(&o);
    assert_eq!(code(&o), 1, "{out}");
    assert!(
        out.contains(r#"tried id="home.heading": it gets the run past the step, but step 6"#),
        "{out}"
    );
}

#[test]
fn ad_test_heals_each_failed_script_from_its_own_recording() {
    let (dir, _) = recorded_login("heal-rec-suite", &[], &[("login.submit", Some("Log in"))]);
    // The suite's recording: one subfolder per script under fxs/.
    let o = ad(&dir, &["test", "login.ad", "--record-fixture", "fxs"]);
    assert_eq!(code(&o), 1, "{}", output_text(&o));
    std::fs::remove_dir_all(dir.join("apps")).unwrap();
    let o = ad(
        &dir,
        &[
            "test",
            "login.ad",
            "--backend",
            "recorded:fxs",
            "--heal-proposals",
            "proposals",
        ],
    );
    let out = output_text(&o);
    // The suite's verdict is unchanged; the proposal names how far the recording proved it.
    assert_eq!(code(&o), 1, "{out}");
    assert!(
        out.contains("heal proposal: proposals/login.ad.diff (1 change(s) for login.ad, proven on the recording up to step 4 of 6; prove the rest on a device)"),
        "{out}"
    );
    let diff = std::fs::read_to_string(dir.join("proposals/login.ad.diff")).unwrap();
    assert!(
        changed_lines(&diff).contains(&r#"+click "id=\"login.submit\"""#),
        "{diff}"
    );
}
