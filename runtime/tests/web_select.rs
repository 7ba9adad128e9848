//! Native `<select>` controls and `fill` on the web backend (issue 30, items 4 and 6), on the
//! fixture pages `tests/web/select.html` and `tests/web/todo-enter.html` in headless Chromium.
//! Needs Chromium (the tests fail, never skip, with what to install).

use ad_runtime::backends::web::{LaunchConfig, Web};
use ad_runtime::core::interp::{run, Plan, Quiet, RunOptions, RunResult};
use ad_runtime::Journal;
use ad_tests::web_fixture::{fixture_dir, require_chromium, FixtureServer};
use serde_json::Value;

struct Ran {
    result: RunResult,
    rows: Vec<Value>,
}

impl Ran {
    fn statuses(&self) -> Vec<String> {
        self.rows
            .iter()
            .filter(|r| r["event"] == "step_end")
            .map(|r| r["status"].as_str().unwrap_or("").to_string())
            .collect()
    }
}

fn run_page(page: &str, script: &str) -> Ran {
    require_chromium();
    let server = FixtureServer::start(&fixture_dir());
    let mut web = Web::new(LaunchConfig {
        offline: true,
        ..LaunchConfig::default()
    });
    let text = format!("open \"{}\"\n{script}", server.url(page));
    let analysis = ad_compiler::analyze(&text);
    let plan = Plan {
        steps: analysis.steps(),
        metadata: analysis.metadata(),
    };
    let mut journal = Journal::memory("web-select");
    let opts = RunOptions {
        script_path: "web.ad".into(),
        session: "web-select".into(),
        resume_command: "ad run web.ad".into(),
        ..RunOptions::default()
    };
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let result = rt.block_on(run(&plan, &mut web, &mut journal, &mut Quiet, &opts));
    let rows = journal
        .rows()
        .iter()
        .map(|r| serde_json::from_str(r).expect("every journal row is JSON"))
        .collect();
    drop(web);
    Ran { result, rows }
}

fn ok(ran: &Ran) {
    assert!(
        ran.result.error.is_none(),
        "{:#?}\n{:?}",
        ran.result.error,
        ran.statuses()
    );
}

#[test]
fn fill_chooses_the_option_a_select_names_by_label_or_value_and_fires_input_and_change() {
    let ran = run_page(
        "select.html",
        "fill \"role=combobox label=\\\"Color\\\"\" \"Green\"\n\
         is text \"id=\\\"color-choice\\\"\" \"Color: Green\"\n\
         is selected \"role=option label=\\\"Green\\\"\"\n\
         is text \"id=\\\"events\\\"\" \"Events: input:g change:g\"\n\
         fill \"id=\\\"color\\\"\" \"b\"\n\
         is text \"id=\\\"color-choice\\\"\" \"Color: Blue\"\n\
         fill \"role=listbox label=\\\"Size\\\"\" \"Large\"\n\
         is text \"id=\\\"size-choice\\\"\" \"Size: Large\"\n\
         is text \"id=\\\"events\\\"\" \"Events: input:g change:g input:b change:b input:l change:l\"\n",
    );
    ok(&ran);
}

#[test]
fn click_on_an_option_selects_it_in_a_drop_down_and_in_a_list_box() {
    let ran = run_page(
        "select.html",
        "click \"role=option label=\\\"Red\\\"\"\n\
         is text \"id=\\\"color-choice\\\"\" \"Color: Red\"\n\
         click \"role=option label=\\\"Medium\\\"\"\n\
         is text \"id=\\\"size-choice\\\"\" \"Size: Medium\"\n\
         is text \"id=\\\"events\\\"\" \"Events: input:r change:r input:m change:m\"\n\
         click \"id=\\\"done\\\"\"\n\
         is text \"id=\\\"events\\\"\" \"Events: input:r change:r input:m change:m done\"\n",
    );
    ok(&ran);
}

#[test]
fn a_fill_no_option_matches_fails_listing_the_options() {
    let ran = run_page("select.html", "fill \"id=\\\"color\\\"\" \"Purple\"\n");
    assert_eq!(ran.statuses(), ["ok", "failed"]);
    let e = ran.result.error.as_ref().expect("the fill fails");
    let text = format!("{e:?}");
    assert!(
        text.contains(r#"its options: \"Pick one\", \"Red\", \"Green\", \"Blue\""#),
        "{text}"
    );
}

#[test]
fn fill_fires_no_change_and_a_form_that_adds_on_enter_adds_only_on_enter() {
    // A fill alone adds nothing and the field hears no `change` until it loses focus; Enter
    // (`keyboard enter`, as agent-device scripts press it) adds the to-do.
    let ran = run_page(
        "todo-enter.html",
        "fill \"id=\\\"new-todo\\\"\" \"Buy milk\"\n\
         is text \"id=\\\"count\\\"\" \"0 items\"\n\
         is text \"id=\\\"log\\\"\" \"Log:\"\n\
         keyboard enter\n\
         is text \"id=\\\"count\\\"\" \"1 items\"\n\
         is visible \"label=\\\"Buy milk\\\"\"\n\
         fill \"id=\\\"new-todo\\\"\" \"Walk dog\"\n\
         click \"id=\\\"other\\\"\"\n\
         is text \"id=\\\"log\\\"\" \"Log: change:Walk dog\"\n\
         is text \"id=\\\"count\\\"\" \"1 items\"\n",
    );
    ok(&ran);
}
