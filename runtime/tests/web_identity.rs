//! Identity on the web survives cosmetic change (issue 30, item 3): the page's `<title>` is in
//! no element's recorded ancestry, so evidence recorded under one title verifies under another,
//! while the same element moved to another container is still refused. Needs Chromium (fails,
//! never skips, with what to install).

use ad_grammar::annotation::ANCESTRY_CAP;
use ad_runtime::backends::web::{LaunchConfig, Web};
use ad_runtime::core::backend::Backend;
use ad_runtime::core::identity;
use ad_runtime::core::interp::{run, Plan, Quiet, RunOptions, RunResult};
use ad_runtime::core::tree::Snapshot;
use ad_runtime::Journal;
use ad_tests::web_fixture::{fixture_dir, require_chromium, FixtureServer};

fn web() -> Web {
    require_chromium();
    Web::new(LaunchConfig {
        offline: true,
        ..LaunchConfig::default()
    })
}

fn rt() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime")
}

/// The page at `url` as the web backend captures it.
fn capture(url: &str) -> Snapshot {
    let mut w = web();
    rt().block_on(async {
        w.launch(url, &Default::default()).await.expect("opens");
        let c = w.capture().await.expect("captures");
        w.close(None).await.expect("closes");
        Snapshot::flatten_owned(c.roots, c.viewport)
    })
}

/// The `target-v1` line the writer records for the element with DOM id `id` (identity, the
/// capped ancestry, sibling and viewport order, as `authoring::evidence` builds them).
fn evidence_for(snap: &Snapshot, id: &str) -> String {
    let n = snap
        .nodes
        .iter()
        .find(|n| n.id.as_deref() == Some(id))
        .unwrap_or_else(|| panic!("no #{id} in {:#?}", snap.nodes));
    let who = identity::identity(n);
    let (ancestry, broken) = identity::ancestry(snap, n, ANCESTRY_CAP);
    assert!(!broken);
    let order = identity::viewport_order(snap, n.index, &ancestry);
    let v = serde_json::json!({
        "id": who.id.as_deref(),
        "role": who.role.as_str(),
        "label": who.label.as_deref(),
        "ancestry": ancestry,
        "sibling": snap.sibling_index(n),
        "viewportOrder": order,
        "verification": "verified",
    });
    format!("# agent-device:target-v1 {v}")
}

fn replay(text: &str, url: &str) -> RunResult {
    let analysis = ad_compiler::analyze(text);
    let plan = Plan {
        steps: analysis.steps(),
        metadata: analysis.metadata(),
    };
    let mut journal = Journal::memory("web-identity");
    let opts = RunOptions {
        script_path: "web.ad".into(),
        cli_env: [("URL".to_string(), url.to_string())].into_iter().collect(),
        session: "web-identity".into(),
        resume_command: "ad run web.ad".into(),
        ..RunOptions::default()
    };
    let mut w = web();
    rt().block_on(run(&plan, &mut w, &mut journal, &mut Quiet, &opts))
}

fn divergence_kind(r: &RunResult) -> Option<String> {
    let d = serde_json::to_value(r.error.as_ref()?.divergence()?).ok()?;
    d["kind"].as_str().map(str::to_string)
}

#[test]
fn the_page_title_is_in_no_node_and_no_ancestry() {
    let s = FixtureServer::start(&fixture_dir());
    let snap = capture(&s.url("titled.html"));
    for n in &snap.nodes {
        for field in [&n.label, &n.value] {
            assert!(
                !field.as_deref().unwrap_or("").contains("1,000 rows"),
                "the <title> reached the tree: {n:#?}"
            );
        }
    }
    let line = evidence_for(&snap, "apply");
    assert!(line.contains(r#""label":"Filters""#), "{line}");
    assert!(!line.contains("rows"), "{line}");
}

#[test]
fn evidence_recorded_under_one_title_verifies_under_another_but_not_after_a_move() {
    let s = FixtureServer::start(&fixture_dir());
    let line = evidence_for(&capture(&s.url("titled.html")), "apply");
    let script = format!(
        "open \"${{URL}}\"\n{line}\nclick \"label=\\\"Apply\\\"\"\nwait \"text\" \"Applied\" 2000\n"
    );
    // Only the title differs: every step passes.
    let retitled = replay(&script, &s.url("titled-again.html"));
    assert!(retitled.error.is_none(), "{:#?}", retitled.error);
    // The button moved from the Filters to the Results section: refused, never clicked.
    let moved = replay(&script, &s.url("titled-moved.html"));
    assert_eq!(
        divergence_kind(&moved).as_deref(),
        Some("identity-mismatch"),
        "{:#?}",
        moved.error
    );
}
