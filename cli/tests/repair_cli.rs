//! Repair-armed runs on the sim (docs/repair.md): a script recorded against the Shop app, whose
//! sign-in button is then relabelled "Log in", is repaired with `ad run --save-script`, an `ad
//! session` action and a `--from` resume, and `ad session close` commits the healed script
//! beside it; every refusal is made before any write or step.

mod common;

use std::path::PathBuf;

use common::exit_code as code;
use common::shop::{
    ad, ad_reaping, assert_valid_script, listed, ok, recorded_login, resume_and_commit,
};
use common::{appears, json_of, output_text, session_scratch};
use serde_json::Value;

/// A scratch project with the Shop model and `login.ad` recorded on it (with evidence) through
/// an authoring session; then the model's sign-in button is relabelled "Log in".
fn project(name: &str) -> (PathBuf, PathBuf) {
    let (dir, script) = recorded_login(name, &[], &[("login.submit", Some("Log in"))]);
    let text = std::fs::read_to_string(&script).unwrap();
    assert!(
        text.contains(r#"click "role=\"button\" label=\"Sign in\"""#) && text.ends_with("close\n"),
        "{text}"
    );
    (dir, script)
}

#[test]
fn a_relabelled_button_is_repaired_from_the_failing_step_and_committed_beside_the_script() {
    let (dir, script) = project("repair-relabel");
    let original = std::fs::read_to_string(&script).unwrap();

    // Arm: the run diverges at the click, and the session is held for the repair.
    let o = ad(&dir, &["run", "login.ad", "--save-script", "--json"]);
    assert_eq!(code(&o), 1, "{}", output_text(&o));
    let r = json_of(&o);
    let d = &r["error"]["details"]["divergence"];
    assert_eq!(d["kind"], "selector-miss", "{r}");
    assert_eq!(d["step"]["index"], 4, "{r}");
    assert_eq!(d["repairHint"], "record-and-heal", "{r}");
    assert_eq!(d["resume"]["from"], 5, "{r}");
    assert_eq!(d["resume"]["repairSessionHeld"], true, "{r}");
    assert_eq!(r["sessionActive"], true, "{r}");
    let digest = d["resume"]["planDigest"].as_str().unwrap().to_string();
    let line = listed(&dir).expect("the session is held");
    assert!(
        line.contains("repair-armed") && line.contains("3 recorded action(s)"),
        "{line}"
    );

    // Refusals while it is held, each before any step or write.
    let o = ad(&dir, &["run", "login.ad"]);
    assert_eq!(code(&o), 2, "{}", output_text(&o));
    assert!(
        output_text(&o).contains("active --save-script repair run"),
        "{}",
        output_text(&o)
    );
    let o = ad(
        &dir,
        &["run", "login.ad", "--from", "5", "--plan-digest", &digest],
    );
    assert_eq!(code(&o), 2, "{}", output_text(&o));
    assert!(
        output_text(&o).contains("no corrective action was recorded"),
        "{}",
        output_text(&o)
    );
    let o = ad(&dir, &["session", "replay", "login.ad"]);
    assert_eq!(code(&o), 1, "{}", output_text(&o));
    assert!(
        output_text(&o).contains("active --save-script repair run"),
        "{}",
        output_text(&o)
    );
    let o = ad(&dir, &["session", "save-script"]);
    assert_eq!(code(&o), 1, "{}", output_text(&o));
    assert!(
        output_text(&o).contains("active .ad repair transaction"),
        "{}",
        output_text(&o)
    );
    // Inspection is not recorded; the corrective click is.
    ok(&dir, &["session", "snapshot", "-i"]);
    ok(&dir, &["session", "get", "text", r#"id="login.submit""#]);
    assert!(listed(&dir).unwrap().contains("3 recorded action(s)"));
    ok(
        &dir,
        &["session", "click", r#"role="button" label="Log in""#],
    );
    assert!(listed(&dir).unwrap().contains("4 recorded action(s)"));

    // Continue the same transaction: the rest of the script passes; the repair is complete,
    // and the passing run's text output says how to commit it. Then commit.
    let healed = resume_and_commit(&dir, "5", &digest);
    assert_eq!(listed(&dir), None, "the commit ends the session");
    assert_eq!(std::fs::read_to_string(&script).unwrap(), original);
    let text = std::fs::read_to_string(&healed).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        lines.last(),
        Some(&"# agent-device:heal-complete"),
        "{text}"
    );
    assert_eq!(lines[lines.len() - 2], "close", "{text}");
    assert!(text.starts_with("context platform=ios device="), "{text}");
    let click = lines
        .iter()
        .position(|l| l.starts_with("click "))
        .expect("the corrective click");
    assert_eq!(
        lines[click], r#"click "role=\"button\" label=\"Log in\"""#,
        "{text}"
    );
    assert!(
        lines[click - 1].starts_with("# agent-device:target-v1 ")
            && lines[click - 1].contains(r#""label":"Log in""#),
        "{text}"
    );
    assert!(!text.contains(r#"label=\"Sign in\"""#), "{text}");
    assert!(text.contains(r#"wait "id=\"home.title\"""#), "{text}");
    assert_eq!(text.matches("open ").count(), 1, "{text}");
    assert_valid_script(&dir, &healed);

    // The healed script replays to the end on the changed app.
    let o = ok(&dir, &["run", "login.healed.ad"]);
    assert!(
        output_text(&o).contains("ok: login.healed.ad"),
        "{}",
        output_text(&o)
    );
}

#[test]
fn the_empty_tail_resume_completes_a_repair_whose_last_step_diverged() {
    let (dir, script) = project("repair-tail");
    // The same journey, ending at the click (no destination wait, no close).
    let text = std::fs::read_to_string(&script).unwrap();
    let end = text.find("click ").unwrap();
    let end = end + text[end..].find('\n').unwrap() + 1;
    std::fs::write(dir.join("tail.ad"), &text[..end]).unwrap();
    // A close-less script with evidence is a handoff to `ad check`, which would want a
    // destination guard: this one is a test flow.
    std::fs::write(dir.join("ad.toml"), "[check]\nprofile = \"flow\"\n").unwrap();

    let o = ad(&dir, &["run", "tail.ad", "--save-script", "--json"]);
    assert_eq!(code(&o), 1, "{}", output_text(&o));
    let r = json_of(&o);
    let d = &r["error"]["details"]["divergence"];
    assert_eq!(d["step"]["index"], 4, "{r}");
    assert_eq!(d["repairHint"], "record-and-heal", "{r}");
    assert_eq!(d["resume"]["from"], 5, "the empty tail: actions + 1: {r}");
    let digest = d["resume"]["planDigest"].as_str().unwrap().to_string();

    // Only the watermark's N = actions + 1 is in range, and only after a corrective action.
    let o = ad(
        &dir,
        &["run", "tail.ad", "--from", "6", "--plan-digest", &digest],
    );
    assert_eq!(code(&o), 2, "{}", output_text(&o));
    assert!(
        output_text(&o).contains("--from 6 is out of range for a 4-step plan"),
        "{}",
        output_text(&o)
    );
    let o = ad(
        &dir,
        &["run", "tail.ad", "--from", "5", "--plan-digest", &digest],
    );
    assert_eq!(code(&o), 2, "{}", output_text(&o));
    assert!(
        output_text(&o).contains("no corrective action"),
        "{}",
        output_text(&o)
    );

    // The divergence's refs are a partial frame (pinned `@eN~sG`, which the line reader
    // strips): the corrective action takes a ref from a complete snapshot.
    let snap = json_of(&ok(&dir, &["session", "snapshot", "-i", "--json"]));
    let button = snap["nodes"]
        .as_array()
        .expect("nodes")
        .iter()
        .find(|n| n["label"] == "Log in")
        .unwrap_or_else(|| panic!("no Log in: {snap}"));
    let at = format!("@{}", button["ref"].as_str().unwrap());
    ok(&dir, &["session", "click", &at]);
    let o = ok(
        &dir,
        &[
            "run",
            "tail.ad",
            "--from",
            "5",
            "--plan-digest",
            &digest,
            "--json",
        ],
    );
    let r = json_of(&o);
    assert_eq!(
        (r["ok"].clone(), r["replayed"].clone()),
        (Value::Bool(true), 0.into()),
        "{r}"
    );
    ok(&dir, &["session", "close"]);
    let healed = dir.join("tail.healed.ad");
    let text = std::fs::read_to_string(&healed).unwrap();
    let actions: Vec<&str> = text
        .lines()
        .filter(|l| !l.starts_with('#') && !l.starts_with("context "))
        .map(|l| l.split(' ').next().unwrap())
        .collect();
    assert_eq!(
        actions,
        ["open", "fill", "fill", "click", "close"],
        "{text}"
    );
    assert!(
        text.ends_with("close\n# agent-device:heal-complete\n"),
        "{text}"
    );
    assert_valid_script(&dir, &healed);
    ok(&dir, &["run", "tail.healed.ad"]);
}

#[test]
fn targets_are_refused_before_any_step_and_an_incomplete_repair_is_aborted_by_close() {
    let (dir, script) = project("repair-refusals");
    let original = std::fs::read_to_string(&script).unwrap();

    // Never over the original, whatever --overwrite says.
    let o = ad(
        &dir,
        &["run", "login.ad", "--save-script=login.ad", "--overwrite"],
    );
    assert_eq!(code(&o), 2, "{}", output_text(&o));
    assert!(
        output_text(&o).contains("cannot replace the script it repairs"),
        "{}",
        output_text(&o)
    );
    assert_eq!(std::fs::read_to_string(&script).unwrap(), original);
    assert_eq!(listed(&dir), None, "nothing ran, nothing is held");

    // An existing target is refused unless --overwrite; its bytes stay.
    let healed = dir.join("login.healed.ad");
    std::fs::write(&healed, "keep me\n").unwrap();
    let o = ad(&dir, &["run", "login.ad", "--save-script"]);
    assert_eq!(code(&o), 2, "{}", output_text(&o));
    assert!(
        output_text(&o).contains("A file already exists at")
            && output_text(&o).contains("--overwrite"),
        "{}",
        output_text(&o)
    );
    assert_eq!(std::fs::read_to_string(&healed).unwrap(), "keep me\n");
    assert_eq!(listed(&dir), None);
    assert!(
        !dir.join("ad-artifacts").exists(),
        "no step ran: no run folder"
    );

    // Armed with --overwrite, the run diverges; closing before the repair is complete aborts
    // it: the session ends and nothing is written.
    let o = ad(&dir, &["run", "login.ad", "--save-script", "--overwrite"]);
    assert_eq!(code(&o), 1, "{}", output_text(&o));
    // The report says the session is held and what the heal leaves out.
    let report = output_text(&o);
    assert!(
        report.contains("Repair hint: record-and-heal")
            && report.contains("excluded from the healed script by default")
            && report.contains("is held live in ad's session daemon"),
        "{report}"
    );
    assert!(listed(&dir).is_some());
    let o = ad(&dir, &["session", "close", "--save-script"]);
    assert_eq!(code(&o), 1, "{}", output_text(&o));
    assert!(
        output_text(&o).contains("The repair was aborted and no script was written"),
        "{}",
        output_text(&o)
    );
    assert_eq!(listed(&dir), None);
    assert_eq!(std::fs::read_to_string(&healed).unwrap(), "keep me\n");
    assert_eq!(std::fs::read_to_string(&script).unwrap(), original);
}

#[test]
fn the_daemons_reap_leaves_a_tombstone_for_an_incomplete_repair_and_commits_a_complete_one() {
    let (dir, _) = project("repair-reap");
    // A state folder of its own, so the run starts a daemon that reaps after 4 s unused.
    let state = dir.join("reaping");
    let run = |args: &[&str]| ad_reaping(&dir, &state, "4000", args);
    let o = run(&["run", "login.ad", "--save-script", "--json"]);
    assert_eq!(code(&o), 1, "{}", output_text(&o));
    let r = json_of(&o);
    let digest = r["planDigest"].as_str().unwrap().to_string();
    let tombstone = state.join("repairs/default.tombstone.json");
    assert!(appears(&tombstone), "the reap wrote no tombstone");
    let o = run(&["run", "login.ad", "--from", "5", "--plan-digest", &digest]);
    assert_eq!(code(&o), 2, "{}", output_text(&o));
    let text = output_text(&o);
    assert!(
        text.contains("REPAIR_SESSION_EXPIRED")
            && text.contains("was reaped before it was finalized")
            && text.contains("--save-script"),
        "{text}"
    );
    assert!(!dir.join("login.healed.ad").exists());

    // Armed again (the tombstone is cleared), repaired and completed, then left unused: the
    // reap commits the healed script.
    let o = run(&["run", "login.ad", "--save-script"]);
    assert_eq!(code(&o), 1, "{}", output_text(&o));
    assert!(
        !tombstone.exists(),
        "a new --save-script run clears the tombstone"
    );
    let o = run(&["session", "click", r#"role="button" label="Log in""#]);
    assert!(o.status.success(), "{}", output_text(&o));
    let o = run(&["run", "login.ad", "--from", "5", "--plan-digest", &digest]);
    assert!(o.status.success(), "{}", output_text(&o));
    let healed = dir.join("login.healed.ad");
    assert!(appears(&healed), "the reap committed nothing");
    let text = std::fs::read_to_string(&healed).unwrap();
    assert!(
        text.ends_with("close\n# agent-device:heal-complete\n"),
        "{text}"
    );
    assert!(text.contains(r#"label=\"Log in\""#), "{text}");
    assert!(
        !tombstone.exists(),
        "a committed repair leaves no tombstone"
    );
    assert_valid_script(&dir, &healed);
}

#[test]
fn a_read_enters_the_heal_only_with_record_and_an_ordinary_recording_is_never_re_armed() {
    let (dir, _) = project("repair-record");
    // An armed authoring recording is not taken over by a repair.
    ok(
        &dir,
        &[
            "session",
            "open",
            "com.example.shop",
            "--save-script=other.ad",
        ],
    );
    let o = ad(&dir, &["run", "login.ad", "--save-script"]);
    assert_eq!(code(&o), 2, "{}", output_text(&o));
    assert!(
        output_text(&o)
            .contains("cannot re-arm an ordinary recording in terminal/active state armed"),
        "{}",
        output_text(&o)
    );
    assert!(listed(&dir).unwrap().contains("recording armed"));
    ok(&dir, &["session", "close"]);

    let o = ad(&dir, &["run", "login.ad", "--save-script", "--json"]);
    assert_eq!(code(&o), 1, "{}", output_text(&o));
    let digest = json_of(&o)["planDigest"].as_str().unwrap().to_string();
    let o = ad(
        &dir,
        &["session", "click", r#"id="login.submit""#, "--record"],
    );
    assert_eq!(code(&o), 1, "{}", output_text(&o));
    assert!(
        output_text(&o).contains("--record is supported only by"),
        "{}",
        output_text(&o)
    );
    let o = ad(
        &dir,
        &[
            "session",
            "is",
            "visible",
            r#"id="login.submit""#,
            "--record",
            "--no-record",
        ],
    );
    assert_eq!(code(&o), 1, "{}", output_text(&o));
    assert!(listed(&dir).unwrap().contains("3 recorded action(s)"));
    ok(&dir, &["session", "is", "visible", r#"id="login.submit""#]);
    assert!(listed(&dir).unwrap().contains("3 recorded action(s)"));
    ok(
        &dir,
        &[
            "session",
            "is",
            "visible",
            r#"id="login.submit""#,
            "--record",
        ],
    );
    ok(&dir, &["session", "click", r#"id="login.submit""#]);
    assert!(listed(&dir).unwrap().contains("5 recorded action(s)"));
    ok(
        &dir,
        &["run", "login.ad", "--from", "5", "--plan-digest", &digest],
    );
    ok(&dir, &["session", "close"]);
    let text = std::fs::read_to_string(dir.join("login.healed.ad")).unwrap();
    let actions: Vec<&str> = text
        .lines()
        .filter(|l| !l.starts_with('#') && !l.starts_with("context "))
        .collect();
    assert_eq!(
        actions[3..],
        [
            r#"is "visible" "id=\"login.submit\"""#,
            r#"click "id=\"login.submit\"""#,
            r#"wait "id=\"home.title\"""#,
            "close"
        ],
        "{text}"
    );
    assert_valid_script(&dir, &dir.join("login.healed.ad"));
}

#[test]
fn record_as_parameterizes_a_repair_fill_and_a_resume_without_a_live_session_is_refused() {
    let (dir, _) = project("repair-record-as");
    // Arming at a resume needs the session the resume continues.
    let o = ad(
        &dir,
        &[
            "run",
            "login.ad",
            "--from",
            "2",
            "--plan-digest",
            "x",
            "--save-script",
        ],
    );
    assert_eq!(code(&o), 2, "{}", output_text(&o));
    assert!(
        output_text(&o).contains("SESSION_NOT_FOUND")
            && output_text(&o).contains("no live session \"default\""),
        "{}",
        output_text(&o)
    );
    assert_eq!(listed(&dir), None);

    let o = ad(&dir, &["run", "login.ad", "--save-script", "--json"]);
    assert_eq!(code(&o), 1, "{}", output_text(&o));
    let digest = json_of(&o)["planDigest"].as_str().unwrap().to_string();
    let o = ok(
        &dir,
        &[
            "session",
            "fill",
            r#"id="login.password""#,
            "s3cret-Value",
            "--record-as",
            "PASSWORD",
        ],
    );
    assert!(
        !output_text(&o).contains("s3cret-Value"),
        "{}",
        output_text(&o)
    );
    ok(
        &dir,
        &["session", "fill", r#"id="login.password""#, "hunter2"],
    );
    ok(
        &dir,
        &["session", "click", r#"role="button" label="Log in""#],
    );
    ok(
        &dir,
        &["run", "login.ad", "--from", "5", "--plan-digest", &digest],
    );
    ok(&dir, &["session", "close"]);
    let text = std::fs::read_to_string(dir.join("login.healed.ad")).unwrap();
    assert!(
        text.contains(r#"fill "id=\"login.password\"" "${PASSWORD}""#),
        "{text}"
    );
    assert!(!text.contains("s3cret-Value"), "{text}");
    assert_valid_script(&dir, &dir.join("login.healed.ad"));
    ok(&dir, &["run", "login.healed.ad", "-e", "PASSWORD=anything"]);
}

const PAGE: &str = r#"<!doctype html>
<html><head><title>Shop</title></head>
<body><main>
<form aria-label="Sign in" onsubmit="return false">
<button id="go" type="button" onclick="document.getElementById('done').hidden = false">Sign in</button>
</form>
<h1 id="done" hidden>Welcome</h1>
</main></body></html>
"#;

#[test]
fn a_relabelled_web_button_is_repaired_on_the_page_the_daemon_holds() {
    ad_tests::web_fixture::require_chromium();
    let dir = session_scratch("repair-web");
    std::fs::write(dir.join("page.html"), PAGE).unwrap();
    let server = ad_tests::web_fixture::FixtureServer::start(&dir);
    let url = server.url("page.html");
    ok(
        &dir,
        &[
            "session",
            "open",
            &url,
            "--save-script=page.ad",
            "--offline",
        ],
    );
    ok(
        &dir,
        &["session", "click", r#"role="button" label="Sign in""#],
    );
    ok(
        &dir,
        &["session", "wait", r#"role="heading" label="Welcome""#],
    );
    ok(&dir, &["session", "close"]);
    std::fs::write(
        dir.join("page.html"),
        PAGE.replace(">Sign in</button>", ">Log in</button>"),
    )
    .unwrap();

    let web = ["--backend", "web", "--offline"];
    let run = |extra: &[&str]| {
        let mut args = vec!["run", "page.ad"];
        args.extend_from_slice(&web);
        args.extend_from_slice(extra);
        ad(&dir, &args)
    };
    let o = run(&["--save-script", "--json"]);
    assert_eq!(code(&o), 1, "{}", output_text(&o));
    let r = json_of(&o);
    let d = &r["error"]["details"]["divergence"];
    assert_eq!(d["repairHint"], "record-and-heal", "{r}");
    assert_eq!(d["resume"]["allowed"], true, "a held page resumes: {r}");
    assert_eq!(d["resume"]["repairSessionHeld"], true, "{r}");
    let from = d["resume"]["from"].to_string();
    let digest = d["resume"]["planDigest"].as_str().unwrap().to_string();
    ok(
        &dir,
        &["session", "click", r#"role="button" label="Log in""#],
    );
    let o = run(&["--from", &from, "--plan-digest", &digest]);
    assert!(o.status.success(), "{}", output_text(&o));
    ok(&dir, &["session", "close"]);
    let healed = dir.join("page.healed.ad");
    let text = std::fs::read_to_string(&healed).unwrap();
    assert!(
        text.contains(r#"label=\"Log in\""#)
            && text.ends_with("close\n# agent-device:heal-complete\n"),
        "{text}"
    );
    assert_valid_script(&dir, &healed);
    let mut args = vec!["run", "page.healed.ad"];
    args.extend_from_slice(&web);
    ok(&dir, &args);
    ad_tests::web_fixture::assert_no_browser_left(&dir);
}
