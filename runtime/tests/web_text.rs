//! What text is on the web (issue 30, item 5; docs/web.md): the page's rendered, visible text.
//! The `<title>` and a field's typed value are not text on the page, text split across inline
//! elements is one element's text, and `get text` reads that text rather than the DOM id. Needs
//! Chromium (fails, never skips, with what to install).

use ad_runtime::backends::web::{LaunchConfig, Web};
use ad_runtime::core::interp::{run, Plan, Quiet, RunOptions};
use ad_runtime::Journal;
use ad_tests::web_fixture::{fixture_dir, require_chromium, FixtureServer};
use serde_json::Value;

/// Runs `body` after opening the fixture page; the step statuses and the journal rows.
fn run_page(body: &str) -> (Vec<String>, Vec<Value>) {
    require_chromium();
    let s = FixtureServer::start(&fixture_dir());
    let text = format!("open \"${{URL}}\"\nwait \"id=\\\"status\\\"\" 5000\n{body}");
    let analysis = ad_compiler::analyze(&text);
    let plan = Plan {
        steps: analysis.steps(),
        metadata: analysis.metadata(),
    };
    let mut journal = Journal::memory("web-text");
    let opts = RunOptions {
        script_path: "web.ad".into(),
        cli_env: [("URL".to_string(), s.url("rendered-text.html"))]
            .into_iter()
            .collect(),
        session: "web-text".into(),
        resume_command: "ad run web.ad".into(),
        ..RunOptions::default()
    };
    let mut w = Web::new(LaunchConfig {
        offline: true,
        ..LaunchConfig::default()
    });
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    rt.block_on(run(&plan, &mut w, &mut journal, &mut Quiet, &opts));
    let rows: Vec<Value> = journal
        .rows()
        .iter()
        .map(|r| serde_json::from_str(r).expect("every journal row is JSON"))
        .collect();
    let statuses = rows
        .iter()
        .filter(|r| r["event"] == "step_end")
        .map(|r| r["status"].as_str().unwrap_or("").to_string())
        .collect();
    (statuses, rows)
}

#[test]
fn the_invisible_title_is_not_text() {
    let (statuses, _) = run_page("wait \"text\" \"1,000 rows\" 600\n");
    assert_eq!(statuses, ["ok", "ok", "failed"]);
}

#[test]
fn a_value_just_typed_into_a_field_is_not_text() {
    let (statuses, _) = run_page(
        "fill \"id=\\\"place\\\"\" \"Office\"\nis \"text\" \"id=\\\"place\\\"\" \"Office\"\nwait \"text\" \"Office\" 600\n",
    );
    // The field holds the value (`is text` reads it), but it is not text on the page.
    assert_eq!(statuses, ["ok", "ok", "ok", "ok", "failed"]);
    let (statuses, _) =
        run_page("fill \"id=\\\"place\\\"\" \"Office\"\nfind \"text\" \"Office\" \"exists\"\n");
    assert_eq!(statuses, ["ok", "ok", "ok", "failed"]);
}

#[test]
fn hidden_text_is_not_text_and_shown_text_is() {
    let (statuses, _) =
        run_page("wait \"text\" \"Ready\" 600\nwait \"text\" \"Secret banner\" 600\n");
    assert_eq!(statuses, ["ok", "ok", "ok", "failed"]);
}

#[test]
fn text_split_across_inline_elements_matches_and_get_text_reads_it() {
    let (statuses, rows) = run_page(
        "wait \"text\" \"5 items left\" 2000\nget \"text\" \"id=\\\"todo-count\\\"\"\nis \"text\" \"id=\\\"todo-count\\\"\" \"5 items left\"\n",
    );
    assert_eq!(statuses, ["ok", "ok", "ok", "ok", "ok"]);
    let get = rows
        .iter()
        .find(|r| r["event"] == "step_end" && r["step"] == 4)
        .expect("the get's step_end");
    assert_eq!(get["result"]["text"], "5 items left", "{get}");
}
