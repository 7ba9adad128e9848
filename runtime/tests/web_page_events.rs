//! The web backend acts on the page's own events rather than on timeouts and fixed polls:
//! `back` to a page the browser keeps in its back/forward cache ends on the restore (which
//! never fires a load event), a `back` within one document on the same-document navigation,
//! and a `back` to a page that loads again on its load event; a wait's pause between two
//! captures ends when the page's DOM changes. Needs Chromium (fails, never skips, without it).

use ad_runtime::backends::web::{Arrival, LaunchConfig, Web};
use ad_runtime::core::backend::{Backend, LaunchOptions};
use ad_runtime::core::interp::{run, Plan, Quiet, RunOptions, RunResult};
use ad_runtime::Journal;
use ad_tests::web_fixture::{fixture_dir, require_chromium, FixtureServer};
use serde_json::Value;

/// Runs `text` on `web` with `BASE` set to the fixture server; the run's result and the
/// journal's step statuses.
fn run_on(web: &mut Web, text: &str, base: &str) -> (RunResult, Vec<String>) {
    let analysis = ad_compiler::analyze(text);
    let plan = Plan {
        steps: analysis.steps(),
        metadata: analysis.metadata(),
    };
    let mut journal = Journal::memory("web-navigation");
    let opts = RunOptions {
        script_path: "navigation.ad".into(),
        cli_env: [("BASE".to_string(), base.to_string())]
            .into_iter()
            .collect(),
        session: "web-navigation".into(),
        resume_command: "ad run navigation.ad".into(),
        ..RunOptions::default()
    };
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let result = rt.block_on(run(&plan, web, &mut journal, &mut Quiet, &opts));
    let statuses = journal
        .rows()
        .iter()
        .map(|r| serde_json::from_str::<Value>(r).expect("every journal row is JSON"))
        .filter(|r| r["event"] == "step_end")
        .map(|r| r["status"].as_str().unwrap_or("").to_string())
        .collect();
    (result, statuses)
}

fn web() -> Web {
    require_chromium();
    Web::new(LaunchConfig {
        offline: true,
        ..LaunchConfig::default()
    })
}

/// The fixture pages' base URL (without the trailing slash).
fn base(server: &FixtureServer) -> String {
    server.url("").trim_end_matches('/').to_string()
}

#[test]
fn back_to_a_page_in_the_back_forward_cache_ends_on_its_restore() {
    let server = FixtureServer::start(&fixture_dir());
    let mut w = web();
    // The shelf page says it was restored (its `pageshow` is `persisted`): the case where no
    // load event ever comes, so a wait for one could only end on its timeout.
    let (result, statuses) = run_on(
        &mut w,
        "open \"${BASE}/bfcache-a.html\"\nclick \"id=\\\"to-detail\\\"\"\nwait \"id=\\\"detail-title\\\"\" 5000\nback\nis \"text\" \"id=\\\"arrival\\\"\" \"Restored from the back/forward cache\"\nis visible \"id=\\\"to-detail\\\"\"\n",
        &base(&server),
    );
    assert!(result.error.is_none(), "{:#?}", result.error);
    assert_eq!(statuses, ["ok"; 6]);
    assert_eq!(w.last_arrival(), Some(Arrival::Restored));
}

#[test]
fn back_within_one_document_ends_on_the_same_document_navigation() {
    let server = FixtureServer::start(&fixture_dir());
    let mut w = web();
    let (result, statuses) = run_on(
        &mut w,
        "open \"${BASE}/bfcache-a.html\"\nclick \"id=\\\"to-notes\\\"\"\nback\nis visible \"id=\\\"to-detail\\\"\"\n",
        &base(&server),
    );
    assert!(result.error.is_none(), "{:#?}", result.error);
    assert_eq!(statuses, ["ok"; 4]);
    assert_eq!(w.last_arrival(), Some(Arrival::SameDocument));
}

#[test]
fn back_to_another_document_ends_on_its_load_or_its_restore() {
    let server = FixtureServer::start(&fixture_dir());
    let mut w = web();
    // The login page is served `no-store`, which Chromium may still restore from its cache (it
    // lets such pages in when no cookie changed): `back` ends on the load or on the restore,
    // never on a same-document navigation nor a timeout.
    let (result, statuses) = run_on(
        &mut w,
        "open \"${BASE}/login.html\"\nopen \"${BASE}/list.html\"\nwait \"id=\\\"catalog\\\"\"\nback\nis visible \"id=\\\"email\\\"\"\n",
        &base(&server),
    );
    assert!(result.error.is_none(), "{:#?}", result.error);
    assert_eq!(statuses, ["ok"; 5]);
    let arrival = w.last_arrival();
    assert!(
        matches!(arrival, Some(Arrival::Loaded | Arrival::Restored)),
        "{arrival:?}"
    );
}

#[test]
fn a_waits_pause_ends_when_the_page_changes_its_dom() {
    let server = FixtureServer::start(&fixture_dir());
    let mut w = web();
    let url = server.url("changes-clock.html");
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let woke = rt.block_on(async {
        w.launch(
            &url,
            &LaunchOptions {
                url: Some(url.clone()),
                ..LaunchOptions::default()
            },
        )
        .await
        .expect("the clock page opens");
        // A capture, as a wait takes before it pauses; then a pause far longer than the
        // page's next tick. Only a mutation reported by the page can end it early.
        w.capture().await.expect("the page is captured");
        w.poll_wait(60_000).await
    });
    assert!(
        woke,
        "the pause ran its whole length: the page's change was not heard"
    );
    drop(w);
    // A wait sees the change it was woken for (a fresh backend: the first one's connection
    // lives on the runtime above).
    let (result, statuses) = run_on(
        &mut web(),
        "open \"${BASE}/changes-clock.html\"\nwait text \"Tick 2\" 5000\n",
        &base(&server),
    );
    assert!(result.error.is_none(), "{:#?}", result.error);
    assert_eq!(statuses, ["ok"; 2]);
}
