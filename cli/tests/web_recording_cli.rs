//! What an armed `ad session` on the web backend writes for an acted element, checked against
//! the replay (issue 30, items 1 and 2): a selector that resolves, under the replay's own rules,
//! to the element the author acted on; a nameless element (a to-do row's checkbox) recorded by
//! the selector it has and the evidence of its row; and, when no selector can, a warning in the
//! session's answer and a comment in the script. Each published script passes `ad check`, `ad
//! fmt --check` and agent-device 0.21.5's parser, and replays with `ad run --backend web`.
//! Needs Chromium (fails, never skips, saying to install it).

use std::path::{Path, PathBuf};
use std::process::Output;

use ad_tests::web_fixture::{assert_no_browser_left, fixture_dir, require_chromium, FixtureServer};
use serde_json::Value;

mod common;

use common::{assert_publishable, isolated_ad as ad, output_text as text};

fn scratch(name: &str) -> PathBuf {
    common::session_scratch(&format!("webrec-{name}"))
}

fn session(dir: &Path, words: &[&str]) -> Value {
    let o = ad(dir)
        .args(["session", "--session", "rec"])
        .args(words)
        .arg("--json")
        .output()
        .unwrap();
    serde_json::from_slice(&o.stdout).unwrap_or_else(|_| panic!("{words:?}: {}", text(&o)))
}

fn ok(dir: &Path, words: &[&str]) -> Value {
    let v = session(dir, words);
    assert_eq!(v["ok"], true, "{words:?}: {v:#}");
    v
}

/// The ref of the `nth` (0-based) node of the session's snapshot that has `role` and `label`.
fn nth_ref(dir: &Path, role: &str, label: Option<&str>, nth: usize) -> String {
    let snap = ok(dir, &["snapshot"]);
    let nodes = snap["nodes"].as_array().expect("snapshot nodes");
    let found: Vec<&Value> = nodes
        .iter()
        .filter(|n| n["type"] == role && n["label"].as_str() == label)
        .collect();
    let n = found
        .get(nth)
        .unwrap_or_else(|| panic!("no {role} #{nth} labelled {label:?}: {snap:#}"));
    format!("@{}", n["ref"].as_str().unwrap())
}

/// `ad run --backend web` of `script` (close-less: the run hands its page over to session
/// `replay`, which is then closed); its output.
fn replay(dir: &Path, script: &Path) -> Output {
    let o = ad(dir)
        .arg("run")
        .arg(script)
        .args(["--backend", "web", "--offline", "--session", "replay"])
        .args(["--artifacts-dir", "runs"])
        .output()
        .unwrap();
    let _ = ad(dir)
        .args(["session", "--session", "replay", "close"])
        .output();
    o
}

fn finish(dir: &Path) {
    let _ = ad(dir)
        .args(["session", "--session", "rec", "close"])
        .output();
    assert_no_browser_left(dir);
}

#[test]
fn a_click_on_the_second_of_three_links_with_one_label_replays_on_the_unchanged_page() {
    require_chromium();
    let dir = scratch("facets");
    let server = FixtureServer::start(&fixture_dir());
    let url = server.url("recorder_facets.html");
    ok(
        &dir,
        &["open", &url, "--save-script=facets.ad", "--offline"],
    );
    let second = nth_ref(&dir, "link", Some("status"), 1);
    let v = ok(&dir, &["click", &second]);
    assert!(
        v.get("warnings").is_none(),
        "the selector resolves to it: {v:#}"
    );
    // The guard is the page's own word on which facet was chosen.
    ok(&dir, &["wait", "label=\"chosen tickets-status\""]);
    ok(&dir, &["save-script"]);
    ok(&dir, &["close"]);
    let script = dir.join("facets.ad");
    let published = std::fs::read_to_string(&script).unwrap();
    assert!(!published.contains("# ad: "), "{published}");
    assert_publishable(&dir, &script);
    // The selector matches three equal links; the recorded identity (the link's section) picks
    // the one that was clicked, as it did on the screen it was recorded on.
    let o = replay(&dir, &script);
    assert!(o.status.success(), "{published}\n{}", text(&o));
    finish(&dir);
}

#[test]
fn a_link_no_selector_can_single_out_is_reported_at_record_time_and_in_the_script() {
    require_chromium();
    let dir = scratch("facets-small");
    let server = FixtureServer::start(&fixture_dir());
    // The third link is smaller: the tiebreak settles every `status` selector on it.
    let url = server.url("recorder_facets.html?small=1");
    ok(
        &dir,
        &["open", &url, "--save-script=facets.ad", "--offline"],
    );
    let second = nth_ref(&dir, "link", Some("status"), 1);
    let v = ok(&dir, &["click", &second]);
    let warnings = v["warnings"].to_string();
    assert!(
        warnings.contains("resolves to another element")
            && warnings.contains("label=\\\"status\\\""),
        "{v:#}"
    );
    ok(&dir, &["wait", "label=\"chosen tickets-status\""]);
    ok(&dir, &["save-script"]);
    ok(&dir, &["close"]);
    let script = dir.join("facets.ad");
    let published = std::fs::read_to_string(&script).unwrap();
    // The comment sits above the step's annotation, which stays right above its action.
    let lines: Vec<&str> = published.lines().collect();
    let at = lines
        .iter()
        .position(|l| l.starts_with("# ad: ") && l.contains("resolves to another element"))
        .unwrap_or_else(|| panic!("no record-time comment: {published}"));
    assert!(
        lines[at + 1].starts_with("# agent-device:target-v1 "),
        "{published}"
    );
    assert!(lines[at + 2].starts_with("click "), "{published}");
    assert_publishable(&dir, &script);
    finish(&dir);
}

#[test]
fn a_nameless_checkbox_is_recorded_by_role_and_row_and_replays_with_a_row_added_above() {
    require_chromium();
    let dir = scratch("todo");
    let server = FixtureServer::start(&fixture_dir());
    let url = server.url("recorder_todo.html");
    ok(&dir, &["open", &url, "--save-script=todo.ad", "--offline"]);
    // The checkbox of the second row ("Bread"): no label, no id.
    let second = nth_ref(&dir, "checkbox", None, 1);
    let v = ok(&dir, &["click", &second]);
    assert!(v.get("warnings").is_none(), "{v:#}");
    ok(&dir, &["wait", "label=\"done Bread\""]);
    let v = ok(&dir, &["save-script"]);
    assert!(v.get("code").is_none(), "{v:#}");
    ok(&dir, &["close"]);
    let script = dir.join("todo.ad");
    let published = std::fs::read_to_string(&script).unwrap();
    assert!(
        published.contains("click \"role=\\\"checkbox\\\"\"")
            && published.contains("{\"role\":\"listitem\",\"label\":\"Bread\"}"),
        "{published}"
    );
    assert_publishable(&dir, &script);

    // The unchanged page, then one where a to-do was added above: the guard (`done Bread`)
    // says the Bread row's checkbox was the one clicked.
    let o = replay(&dir, &script);
    assert!(o.status.success(), "{published}\n{}", text(&o));
    let moved = dir.join("todo-moved.ad");
    std::fs::write(
        &moved,
        published.replace("recorder_todo.html", "recorder_todo.html?extra=1"),
    )
    .unwrap();
    let o = replay(&dir, &moved);
    assert!(o.status.success(), "{}", text(&o));
    finish(&dir);
}

#[test]
fn a_replayed_selector_holding_a_placeholder_is_recorded_as_typed() {
    require_chromium();
    let dir = scratch("placeholder");
    let server = FixtureServer::start(&fixture_dir());
    let url = server.url("recorder_facets.html");
    ok(
        &dir,
        &["open", &url, "--save-script=facets.ad", "--offline"],
    );
    // Replayed into the armed recording with an injected value: on the screen the selector's
    // recorded form (`${NAME}`) matches nothing, and the element's own terms spell the value.
    std::fs::write(
        dir.join("steps.ad"),
        "click \"label=\\\"${NAME}\\\"\"\nwait \"label=\\\"${NAME}\\\"\"\n",
    )
    .unwrap();
    ok(&dir, &["replay", "steps.ad", "-e", "NAME=Tickets"]);
    ok(&dir, &["save-script"]);
    ok(&dir, &["close"]);
    let published = std::fs::read_to_string(dir.join("facets.ad")).unwrap();
    assert!(
        published
            .lines()
            .any(|l| l == "click \"label=\\\"${NAME}\\\"\""),
        "{published}"
    );
    assert!(
        !published
            .lines()
            .any(|l| l.starts_with("click ") && l.contains("Tickets")),
        "{published}"
    );
    finish(&dir);
}
