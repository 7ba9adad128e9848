//! The web backend against the fixture web apps (`tests/web/`) in headless Chromium: every
//! behaviour the interpreter promises on the sim, on a real engine. Needs Chromium (the tests
//! fail, never skip, with what to install).

use ad_runtime::backend::Backend;
use ad_runtime::interp::{run, Plan, Quiet, RunOptions, RunResult};
use ad_runtime::web::{LaunchConfig, Web};
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
    fn divergence_kind(&self) -> Option<String> {
        let e = self.result.error.as_ref()?;
        let d = serde_json::to_value(e.divergence()?).ok()?;
        d["kind"].as_str().map(str::to_string)
    }
    fn error_code(&self) -> Option<String> {
        self.result.error.as_ref().map(|e| e.code.clone())
    }
}

fn web() -> Web {
    require_chromium();
    Web::new(LaunchConfig {
        offline: true,
        ..LaunchConfig::default()
    })
}

fn run_on(web: &mut Web, text: &str, env: &[(&str, &str)]) -> Ran {
    let analysis = ad_compiler::analyze(text);
    let plan = Plan {
        steps: &analysis.steps,
        metadata: analysis.metadata(),
    };
    let mut journal = Journal::memory("web-test");
    let opts = RunOptions {
        script_path: "web.ad".into(),
        cli_env: env.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect(),
        session: "web-test".into(),
        resume_command: "ad run web.ad".into(),
        ..RunOptions::default()
    };
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let result = rt.block_on(run(&plan, web, &mut journal, &mut Quiet, &opts));
    let rows = journal
        .rows()
        .iter()
        .map(|r| serde_json::from_str(r).expect("every journal row is JSON"))
        .collect();
    Ran { result, rows }
}

fn run_script(text: &str, env: &[(&str, &str)]) -> Ran {
    let mut w = web();
    let ran = run_on(&mut w, text, env);
    drop(w);
    ran
}

fn server() -> FixtureServer {
    FixtureServer::start(&fixture_dir())
}

#[test]
fn login_form_signs_in() {
    let s = server();
    let ran = run_script(
        "context platform=web\nopen \"${URL}\"\nwait \"id=\\\"email\\\"\" 5000\nfill \"id=\\\"email\\\"\" \"demo@example.com\"\nfill \"id=\\\"password\\\"\" \"hunter2\"\nclick \"role=\\\"button\\\" label=\\\"Sign in\\\"\"\nwait \"id=\\\"home-title\\\"\" 5000\nis \"visible\" \"label=\\\"Welcome, Demo\\\"\"\nis \"text\" \"id=\\\"welcome\\\"\" \"Welcome, Demo\"\nclose\n",
        &[("URL", &s.url("login.html"))],
    );
    assert!(ran.result.error.is_none(), "{:#?}", ran.result.error);
    assert_eq!(ran.statuses().len(), 9);
}

#[test]
fn a_wrong_password_diverges_where_the_home_screen_never_comes() {
    let s = server();
    let ran = run_script(
        "open \"${URL}\"\nfill \"id=\\\"email\\\"\" \"demo@example.com\"\nfill \"id=\\\"password\\\"\" \"nope\"\nclick \"id=\\\"login-submit\\\"\"\nwait \"text\" \"Wrong email or password\" 3000\nwait \"id=\\\"home-title\\\"\" 1000\n",
        &[("URL", &s.url("login.html"))],
    );
    assert_eq!(ran.statuses(), ["ok", "ok", "ok", "ok", "ok", "failed"]);
    assert_eq!(ran.divergence_kind().as_deref(), Some("action-failure"), "{:#?}", ran.result.error);
}
