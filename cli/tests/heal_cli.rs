//! `ad heal` on the sim (docs/repair.md, "Heal proposals"): a script recorded against the Shop
//! app, whose sign-in button is then relabelled or whose password field is removed, is healed
//! by a proposal proven by a fresh run of the whole changed script, or reported as needing a
//! human with the repair-armed command; nothing is written without `--write`, and an injected
//! value is never shown nor written.

mod common;

use std::path::PathBuf;

use common::exit_code as code;
use common::shop::{ad, ok, recorded_login};
use common::{changed_lines, isolated_ad, output_text, session_scratch};

/// A scratch project with the Shop model and `login.ad` recorded on it (with evidence) through
/// an authoring session; then the model's element `id` is relabelled (or removed: `None`).
fn project(name: &str, id: &str, label: Option<&str>) -> (PathBuf, PathBuf) {
    recorded_login(name, &[], &[(id, label)])
}

#[test]
fn a_relabelled_button_gets_a_proposal_proven_by_a_run_and_nothing_is_written() {
    let (dir, script) = project("heal-relabel", "login.submit", Some("Log in"));
    let original = std::fs::read_to_string(&script).unwrap();
    let o = ad(&dir, &["heal", "login.ad"]);
    let out = output_text(&o);
    assert_eq!(code(&o), 0, "{out}");
    assert!(out.contains("proposal 1: step 4 (line "), "{out}");
    assert!(out.contains("selector-miss"), "{out}");
    assert!(
        out.contains(r#"evidence changed: label: "Sign in" → "Log in""#),
        "{out}"
    );
    assert!(
        out.contains("evidence matched: id, role, ancestry"),
        "{out}"
    );
    assert!(
        out.contains("proven by: a fresh run of the whole changed script on sim: passed, 6 of 6 step(s) replayed"),
        "{out}"
    );
    // Only the click's selector and its annotation change.
    let changed = changed_lines(&out);
    assert_eq!(changed.len(), 4, "{out}");
    for l in &changed {
        assert!(
            l[1..].starts_with("# agent-device:target-v1 ") || l[1..].starts_with("click "),
            "{l}\n{out}"
        );
    }
    assert!(
        changed
            .iter()
            .any(|l| l.starts_with("+#") && l.contains(r#""label":"Log in""#)),
        "{out}"
    );
    assert!(out.contains("nothing written: pass --write"), "{out}");
    assert!(!dir.join("login.healed.ad").exists());
    assert_eq!(std::fs::read_to_string(&script).unwrap(), original);
}

#[test]
fn write_commits_a_healed_script_that_checks_formats_reads_and_replays() {
    let (dir, script) = project("heal-write", "login.submit", Some("Log in"));
    let original = std::fs::read_to_string(&script).unwrap();
    // Never over the script itself.
    let o = ad(&dir, &["heal", "login.ad", "--write", "-o", "login.ad"]);
    assert_eq!(code(&o), 2, "{}", output_text(&o));
    assert!(
        output_text(&o).contains("cannot replace the script it heals"),
        "{}",
        output_text(&o)
    );
    let o = ok(&dir, &["heal", "login.ad", "--write"]);
    let healed = dir.join("login.healed.ad");
    assert!(
        output_text(&o).contains("wrote login.healed.ad"),
        "{}",
        output_text(&o)
    );
    assert_eq!(std::fs::read_to_string(&script).unwrap(), original);
    let text = std::fs::read_to_string(&healed).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        lines.last(),
        Some(&"# agent-device:heal-complete"),
        "{text}"
    );
    assert_eq!(lines[lines.len() - 2], "close", "{text}");
    assert_eq!(lines.len(), original.lines().count() + 1, "{text}");
    assert!(!text.contains(r#"label=\"Sign in\"""#), "{text}");
    let s = healed.to_str().unwrap();
    ok(&dir, &["check", s]);
    ok(&dir, &["fmt", "--check", s]);
    let oracle = ad_tests::run_oracle_one(&healed);
    assert_eq!(oracle["ok"], true, "agent-device rejects it: {oracle}");
    let o = ok(&dir, &["run", "login.healed.ad"]);
    assert!(
        output_text(&o).contains("ok: login.healed.ad"),
        "{}",
        output_text(&o)
    );
    // An existing healed script is refused before anything runs, unless --overwrite.
    let o = ad(&dir, &["heal", "login.ad", "--write"]);
    assert_eq!(code(&o), 2, "{}", output_text(&o));
    assert!(
        output_text(&o).contains("--overwrite"),
        "{}",
        output_text(&o)
    );
    ok(&dir, &["heal", "login.ad", "--write", "--overwrite"]);
    assert_eq!(std::fs::read_to_string(&healed).unwrap(), text);
}

#[test]
fn a_removed_field_needs_a_human_with_the_repair_armed_command() {
    let (dir, _) = project("heal-removed", "login.password", None);
    let o = ad(&dir, &["heal", "login.ad", "--write"]);
    let out = output_text(&o);
    assert_eq!(code(&o), 1, "{out}");
    assert!(
        out.contains("needs a human: record-and-heal — step 3 (line "),
        "{out}"
    );
    assert!(out.contains("    ad run login.ad --save-script\n"), "{out}");
    assert!(!out.contains("proposal 1"), "{out}");
    assert!(!dir.join("login.healed.ad").exists());
}

#[test]
fn an_injected_value_is_never_shown_nor_written() {
    let (dir, script) = project("heal-secret", "login.submit", Some("Log in"));
    let text = std::fs::read_to_string(&script).unwrap();
    assert!(text.contains(" \"hunter2\"\n"), "{text}");
    std::fs::write(
        &script,
        text.replace(" \"hunter2\"\n", " \"${PASSWORD}\"\n"),
    )
    .unwrap();
    let o = ad(
        &dir,
        &["heal", "login.ad", "-e", "PASSWORD=hunter2", "--write"],
    );
    let out = output_text(&o);
    assert_eq!(code(&o), 0, "{out}");
    assert!(!out.contains("hunter2"), "{out}");
    // The diff's context keeps the placeholder as written.
    assert!(
        out.contains(r#" fill "id=\"login.password\"" "${PASSWORD}""#),
        "{out}"
    );
    let healed = std::fs::read_to_string(dir.join("login.healed.ad")).unwrap();
    assert!(!healed.contains("hunter2"), "{healed}");
    assert!(healed.contains("${PASSWORD}"), "{healed}");
    // The same from the environment.
    let o = isolated_ad(&dir)
        .env("AD_VAR_PASSWORD", "hunter2")
        .args(["heal", "login.ad"])
        .output()
        .unwrap();
    assert_eq!(code(&o), 0, "{}", output_text(&o));
    assert!(!output_text(&o).contains("hunter2"), "{}", output_text(&o));
}

#[test]
fn two_divergences_are_healed_in_turn_and_the_chain_is_proven_by_a_passing_run() {
    let (dir, script) = recorded_login(
        "heal-chain",
        &[
            &["click", r#"role="button" label="Catalog""#],
            &["wait", r#"id="catalog.title""#],
        ],
        &[
            ("login.submit", Some("Log in")),
            ("tab.catalog", Some("Browse")),
        ],
    );
    let original = std::fs::read_to_string(&script).unwrap();
    let o = ad(&dir, &["heal", "login.ad", "--write"]);
    let out = output_text(&o);
    assert_eq!(code(&o), 0, "{out}");
    assert!(out.contains("proposal 1: step 4 "), "{out}");
    assert!(
        out.contains("got past it and diverged at step 6 (healed next)"),
        "{out}"
    );
    assert!(out.contains("proposal 2: step 6 "), "{out}");
    assert!(
        out.contains(r#"evidence changed: label: "Catalog" → "Browse""#),
        "{out}"
    );
    assert!(out.contains("healed: 2 proven proposal(s)"), "{out}");
    assert_eq!(changed_lines(&out).len(), 8, "{out}");
    assert_eq!(std::fs::read_to_string(&script).unwrap(), original);
    let healed = dir.join("login.healed.ad");
    let o = ok(&dir, &["run", "login.healed.ad"]);
    assert!(
        output_text(&o).contains("ok: login.healed.ad"),
        "{}",
        output_text(&o)
    );
    let oracle = ad_tests::run_oracle_one(&healed);
    assert_eq!(oracle["ok"], true, "agent-device rejects it: {oracle}");
}

#[test]
fn a_passing_script_has_nothing_to_heal_and_usage_or_static_errors_exit_2() {
    let dir = session_scratch("heal-usage");
    ad_tests::copy_example_models(&dir);
    std::fs::write(
        dir.join("ok.ad"),
        "context platform=ios\nopen com.example.shop --relaunch\nwait \"id=\\\"login.email\\\"\"\nclose\n",
    )
    .unwrap();
    let o = ok(&dir, &["heal", "ok.ad", "--write"]);
    assert!(
        output_text(&o).contains("ok: ok.ad passed on sim: nothing to heal"),
        "{}",
        output_text(&o)
    );
    assert!(!dir.join("ok.healed.ad").exists());
    // A static error: nothing runs.
    std::fs::write(dir.join("bad.ad"), "open com.example.shop\nscrol down\n").unwrap();
    let o = ad(&dir, &["heal", "bad.ad"]);
    assert_eq!(code(&o), 2, "{}", output_text(&o));
    // -o without --write.
    let o = ad(&dir, &["heal", "ok.ad", "-o", "x.ad"]);
    assert_eq!(code(&o), 2, "{}", output_text(&o));
    assert!(!dir.join("x.ad").exists());
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
fn a_relabelled_web_button_is_healed_on_the_web_backend() {
    ad_tests::web_fixture::require_chromium();
    let dir = session_scratch("heal-web");
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
    let o = ad(
        &dir,
        &[
            "heal",
            "page.ad",
            "--backend",
            "web",
            "--offline",
            "--write",
        ],
    );
    let out = output_text(&o);
    assert_eq!(code(&o), 0, "{out}");
    assert!(out.contains("proposal 1: step 2 "), "{out}");
    assert!(
        out.contains("proven by: a fresh run of the whole changed script on web: passed"),
        "{out}"
    );
    assert!(
        out.contains(r#"evidence changed: label: "Sign in" → "Log in""#),
        "{out}"
    );
    let healed = dir.join("page.healed.ad");
    let text = std::fs::read_to_string(&healed).unwrap();
    assert!(
        text.ends_with("close\n# agent-device:heal-complete\n"),
        "{text}"
    );
    let s = healed.to_str().unwrap();
    ok(&dir, &["check", s]);
    ok(&dir, &["fmt", "--check", s]);
    let o = ok(
        &dir,
        &["run", "page.healed.ad", "--backend", "web", "--offline"],
    );
    assert!(
        output_text(&o).contains("ok: page.healed.ad"),
        "{}",
        output_text(&o)
    );
}

#[test]
fn a_changed_id_refreshes_the_annotation_and_no_impostor_is_proposed() {
    // The button keeps its label and place; only its id changed: the click's selector still finds
    // it, identity verification refuses it (IDENTITY_MISMATCH), and the report's first
    // suggestion is the promo banner's "Sign in" link, which must not be proposed.
    let (dir, script) = project("heal-id", "login.submit", Some("id:login.go"));
    let original = std::fs::read_to_string(&script).unwrap();
    let o = ad(&dir, &["heal", "login.ad"]);
    let out = output_text(&o);
    assert_eq!(code(&o), 0, "{out}");
    assert!(
        out.contains(r#"(identity-mismatch, IDENTITY_MISMATCH): role="button" label="Sign in" kept, its annotation refreshed"#),
        "{out}"
    );
    assert!(
        out.contains(r#"evidence changed: id: "login.submit" → "login.go""#),
        "{out}"
    );
    assert!(
        out.contains(r#"not kept: id="promo.signin": it acts on another kind of element"#),
        "{out}"
    );
    assert!(!out.contains("+click"), "{out}");
    let changed = changed_lines(&out);
    assert_eq!(changed.len(), 2, "{out}");
    assert!(changed[1].contains(r#""id":"login.go""#), "{out}");
    assert_eq!(std::fs::read_to_string(&script).unwrap(), original);
}

#[test]
fn ad_test_writes_one_proven_proposal_per_failed_script_with_heal_proposals() {
    let (dir, script) = project("heal-suite", "login.submit", Some("Log in"));
    std::fs::create_dir_all(dir.join("flows")).unwrap();
    std::fs::rename(&script, dir.join("flows/login.ad")).unwrap();
    let o = ad(
        &dir,
        &[
            "test",
            "flows",
            "--heal-proposals",
            "proposals",
            "--report-junit",
            "junit.xml",
        ],
    );
    let out = output_text(&o);
    // The suite's verdict is unchanged: it failed.
    assert_eq!(code(&o), 1, "{out}");
    let diff = dir.join("proposals/flows/login.ad.diff");
    assert!(
        out.contains(
            "heal proposal: proposals/flows/login.ad.diff (1 proven change(s) for flows/login.ad)"
        ),
        "{out}"
    );
    let text = std::fs::read_to_string(&diff).unwrap();
    assert!(text.starts_with("--- flows/login.ad\n"), "{text}");
    assert!(
        text.contains("\n+click \"id=\\\"login.submit\\\"\"\n"),
        "{text}"
    );
    assert_eq!(changed_lines(&text).len(), 4, "{text}");
    assert!(!dir.join("flows/login.healed.ad").exists());
    // The JUnit report names it on the failed testcase.
    let junit = std::fs::read_to_string(dir.join("junit.xml")).unwrap();
    assert!(
        junit.contains(r#"<property name="healProposal" value="proposals/flows/login.ad.diff"/>"#),
        "{junit}"
    );
}
