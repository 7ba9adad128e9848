//! The divergence report's `screen.refs` are usable in the held repair session (docs/repair.md,
//! ADR 0014): right after the divergence, `ad session click @eN~sG` (the ref pinned to the
//! report's `refsGeneration`) acts on the element the report listed and is recorded as a
//! selector; a plain `@eN` (the report's frame is partial) and a pin of another generation are
//! refused before anything reaches the app, as agent-device refuses them. On the sim: the Shop
//! app whose sign-in button was relabelled "Log in" after the script was recorded.

mod common;

use std::path::{Path, PathBuf};

use common::output_text;
use common::shop::{ad, ok, recorded_login};
use serde_json::Value;

/// A scratch project with `login.ad` recorded on the Shop model, then its sign-in button
/// relabelled "Log in".
fn project(name: &str) -> PathBuf {
    recorded_login(name, &[], &[("login.submit", Some("Log in"))]).0
}

/// The session list's line for `default`.
fn listed(dir: &Path) -> String {
    let o = ok(dir, &["session", "list"]);
    String::from_utf8_lossy(&o.stdout)
        .lines()
        .find(|l| l.starts_with("default\t"))
        .unwrap_or_default()
        .to_string()
}

#[test]
fn a_pinned_ref_of_the_divergence_report_repairs_the_step_in_the_held_session() {
    let dir = project("repair-refs");
    let o = ad(&dir, &["run", "login.ad", "--save-script", "--json"]);
    assert_eq!(o.status.code(), Some(1), "{}", output_text(&o));
    let r: Value = serde_json::from_slice(&o.stdout).unwrap();
    let d = &r["error"]["details"]["divergence"];
    assert_eq!(d["repairHint"], "record-and-heal", "{r}");
    let screen = &d["screen"];
    assert_eq!(screen["state"], "available", "{r}");
    let generation = screen["refsGeneration"].as_u64().expect("refsGeneration");
    let button = screen["refs"]
        .as_array()
        .expect("refs")
        .iter()
        .find(|n| n["label"] == "Log in")
        .unwrap_or_else(|| panic!("no Log in among the report's refs: {screen}"));
    let body = format!("@{}", button["ref"].as_str().unwrap());
    let digest = d["resume"]["planDigest"].as_str().unwrap().to_string();
    assert!(listed(&dir).contains("3 recorded action(s)"));

    // The report's frame is partial: a plain ref and a pin of another generation are refused,
    // and nothing is recorded.
    let o = ad(&dir, &["session", "click", &body]);
    assert_eq!(o.status.code(), Some(1), "{}", output_text(&o));
    assert!(
        output_text(&o).contains("needs a complete snapshot"),
        "{}",
        output_text(&o)
    );
    let o = ad(
        &dir,
        &["session", "click", &format!("{body}~s{}", generation + 1)],
    );
    assert_eq!(o.status.code(), Some(1), "{}", output_text(&o));
    assert!(
        output_text(&o).contains(&format!("names generation {}", generation + 1)),
        "{}",
        output_text(&o)
    );
    assert!(listed(&dir).contains("3 recorded action(s)"));

    // The pinned ref acts on the element the report listed, recorded as a selector.
    ok(
        &dir,
        &["session", "click", &format!("{body}~s{generation}")],
    );
    assert!(listed(&dir).contains("4 recorded action(s)"));
    ok(
        &dir,
        &["run", "login.ad", "--from", "5", "--plan-digest", &digest],
    );
    ok(&dir, &["session", "close"]);
    let healed = dir.join("login.healed.ad");
    let text = std::fs::read_to_string(&healed).unwrap();
    let click = text
        .lines()
        .find(|l| l.starts_with("click "))
        .unwrap_or_else(|| panic!("{text}"));
    assert!(
        !click.contains('@') && click.contains("Log in"),
        "the ref is written as a selector: {text}"
    );
    assert!(
        text.ends_with("close\n# agent-device:heal-complete\n"),
        "{text}"
    );
    let s = healed.to_str().unwrap();
    ok(&dir, &["check", s]);
    ok(&dir, &["fmt", "--check", s]);
    let oracle = ad_tests::run_oracle_one(&healed);
    assert_eq!(oracle["ok"], true, "agent-device rejects it: {oracle}");
    ok(&dir, &["run", "login.healed.ad"]);
}
