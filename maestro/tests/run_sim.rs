//! The Maestro engine on the simulated device: each supported command against the Shop demo
//! app (examples/apps/shop.json), passing and failing, with the failure at the flow's line.

use std::path::{Path, PathBuf};

use ad_maestro::run::program::Program;
use ad_maestro::run::{self, Options, Outcome};
use ad_runtime::backends::sim::{ModelResolver, Sim};
use ad_runtime::core::interp::Quiet;
use ad_runtime::core::journal::Journal;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Runs `yaml` (written as `name` in a scratch folder, beside `extra` files) on a fresh sim.
fn run_flow(
    name: &str,
    yaml: &str,
    extra: &[(&str, &str)],
    env: &[(&str, &str)],
) -> (Outcome, Journal) {
    let (o, j, _) = run_on_sim(name, yaml, extra, env);
    (o, j)
}

/// [`run_flow`], with the sim it ran on.
fn run_on_sim(
    name: &str,
    yaml: &str,
    extra: &[(&str, &str)],
    env: &[(&str, &str)],
) -> (Outcome, Journal, Sim) {
    let dir = tempfile::tempdir().unwrap();
    for (file, text) in extra {
        std::fs::write(dir.path().join(file), text).unwrap();
    }
    let flow = dir.path().join(name);
    std::fs::write(&flow, yaml).unwrap();
    let read = |p: &Path| std::fs::read_to_string(p).ok();
    let program = Program::load(&flow, name, &read).unwrap_or_else(|r| {
        panic!(
            "refused: {:?}",
            r.diagnostics
                .iter()
                .map(|d| d.message.to_string())
                .collect::<Vec<_>>()
        )
    });
    let model = root().join("examples/apps/shop.json");
    let mut sim = Sim::new(ModelResolver {
        explicit: Some(model),
        search_dirs: Vec::new(),
    });
    let mut journal = Journal::memory("default");
    let options = Options {
        cli_env: env
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect(),
        screenshots: Some(dir.path().join("shots")),
        ..Options::default()
    };
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let outcome = rt.block_on(run::run(
        &mut sim,
        &program,
        &options,
        &mut journal,
        &mut Quiet,
    ));
    // Keep the folder until the outcome is read (screenshots).
    std::mem::forget(dir);
    (outcome, journal, sim)
}

fn passes(name: &str, yaml: &str) -> Outcome {
    let (o, _) = run_flow(name, yaml, &[], &[("PASSWORD", "hunter2")]);
    assert!(o.failure.is_none(), "{name}: {:#?}", o.failure);
    o
}

fn fails(name: &str, yaml: &str) -> run::Failure {
    let (o, _) = run_flow(name, yaml, &[], &[("PASSWORD", "hunter2")]);
    o.failure.unwrap_or_else(|| panic!("{name} passed"))
}

const SIGN_IN: &str = "appId: com.example.shop
---
- launchApp
- tapOn:
    id: login.email
- inputText: demo@example.com
- tapOn:
    id: login.password
- inputText: ${PASSWORD}
- tapOn:
    id: login.submit
";

#[test]
fn signs_in_with_taps_text_and_assertions() {
    let o = passes(
        "login.yaml",
        &format!(
            "{SIGN_IN}- assertVisible: Welcome, Demo\n- assertNotVisible:\n    id: login.submit\n"
        ),
    );
    assert_eq!(o.steps, 8);
}

#[test]
fn a_missing_target_fails_at_its_line_and_column() {
    let f = fails(
        "missing.yaml",
        "appId: com.example.shop\n---\n- launchApp\n-   tapOn: Nowhere\n",
    );
    assert_eq!((f.line, f.column, f.step), (4, 5, 2));
    assert_eq!(
        f.message,
        "Maestro target did not resolve to a visible element."
    );
    assert!(f.report.is_some(), "a step failure has a divergence report");
}

#[test]
fn an_optional_target_that_is_missing_passes_with_a_warning() {
    let (o, _) = run_flow(
        "optional.yaml",
        "appId: com.example.shop\n---\n- launchApp\n- tapOn:\n    text: Nowhere\n    optional: true\n- assertVisible:\n    id: login.email\n",
        &[],
        &[],
    );
    assert!(o.failure.is_none(), "{:?}", o.failure);
    assert_eq!(o.warnings.len(), 1, "{:?}", o.warnings);
}

#[test]
fn a_failed_assertion_names_the_selector() {
    let f = fails(
        "assert.yaml",
        "appId: com.example.shop\n---\n- launchApp\n- assertVisible: Welcome, Demo\n",
    );
    assert_eq!(f.line, 4);
    assert_eq!(f.message, "Maestro visible condition did not match.");
    assert!(
        f.hint.as_deref().unwrap_or("").contains("Welcome, Demo"),
        "{:?}",
        f.hint
    );
}

#[test]
fn injected_values_never_reach_messages_or_the_journal() {
    let yaml = "appId: com.example.shop\n---\n- launchApp\n- assertVisible: ${SECRET}\n";
    let (o, journal) = run_flow("secret.yaml", yaml, &[], &[("SECRET", "s3cr3t-value")]);
    let f = o.failure.expect("fails");
    assert!(!f.message.contains("s3cr3t-value"), "{}", f.message);
    let all = journal.rows().join("\n")
        + &journal
            .memory_files()
            .iter()
            .map(|(_, t)| t.clone())
            .collect::<String>();
    assert!(
        !all.contains("s3cr3t-value"),
        "journal holds the injected value"
    );
}

#[test]
fn launch_arguments_are_journaled_in_order_and_redacted() {
    let yaml = "appId: com.example.shop\n---\n- launchApp:\n    arguments:\n      mode: test\n      token: ${TOKEN}\n    launchArguments:\n      - 2\n      - true\n";
    let (o, journal) = run_flow("args.yaml", yaml, &[], &[("TOKEN", "t0ps3cr3t")]);
    assert!(o.failure.is_none(), "{:#?}", o.failure);
    let rows = journal.rows().join("\n");
    assert!(!rows.contains("t0ps3cr3t"), "{rows}");
    assert!(
        rows.contains(r#""args":["mode","test","token","<var:TOKEN>","2","true"]"#),
        "{rows}"
    );
}

#[test]
fn run_flow_when_repeat_and_retry() {
    let yaml = format!(
        "{SIGN_IN}- runFlow:\n    when:\n      visible: Welcome, Demo\n    commands:\n      - assertVisible: Welcome, Demo\n- runFlow:\n    when:\n      notVisible: Welcome, Demo\n    commands:\n      - tapOn: Nowhere at all\n- repeat:\n    times: 2\n    commands:\n      - assertVisible: Welcome, Demo\n- retry:\n    maxRetries: 2\n    commands:\n      - assertVisible: Welcome, Demo\n"
    );
    let o = passes("control.yaml", &yaml);
    // 6 sign-in steps, then the conditional runFlow, the skipped one, the repeat and the retry
    // are a step each (agent-device's plan steps).
    assert_eq!(o.steps, 10);
}

#[test]
fn retry_gives_up_after_max_retries() {
    let f = fails(
        "retry.yaml",
        "appId: com.example.shop\n---\n- launchApp\n- retry:\n    maxRetries: 2\n    commands:\n      - assertVisible: Nowhere\n",
    );
    // The failure is the assertion's; the retry is one step (agent-device's plan step).
    assert_eq!(f.line, 7);
    assert_eq!(f.step, 2);
}

#[test]
fn scripts_set_outputs_that_later_steps_read() {
    let (o, _) = run_flow(
        "script.yaml",
        "appId: com.example.shop\n---\n- launchApp\n- runScript: make.js\n- evalScript: ${output.greeting = 'Welcome, ' + output.name}\n- assertTrue: ${output.name}\n- assertVisible:\n    id: login.email\n",
        &[("make.js", "output.name = 'Demo';")],
        &[],
    );
    assert!(o.failure.is_none(), "{:?}", o.failure);
}

#[test]
fn assert_true_fails_on_a_falsy_value() {
    let f = fails(
        "true.yaml",
        "appId: com.example.shop\nenv:\n  FLAG: 'false'\n---\n- launchApp\n- assertTrue: ${FLAG}\n",
    );
    assert_eq!(f.line, 6);
}

#[test]
fn erase_text_deletes_typed_characters() {
    let (o, _, sim) = run_on_sim(
        "erase.yaml",
        "appId: com.example.shop\n---\n- launchApp\n- tapOn:\n    id: login.email\n- inputText: demo@example.comXYZ\n- eraseText: 3\n",
        &[],
        &[],
    );
    assert!(o.failure.is_none(), "{:?}", o.failure);
    let app = &sim.state().apps["com.example.shop"];
    assert_eq!(
        app.values.get("login.email").map(String::as_str),
        Some("demo@example.com")
    );
}

#[test]
fn screenshots_are_written_inside_the_chosen_folder() {
    let o = passes(
        "shot.yaml",
        "appId: com.example.shop\n---\n- launchApp\n- takeScreenshot: ../../escape\n",
    );
    assert_eq!(o.artifacts.len(), 1);
    let shot = &o.artifacts[0];
    assert!(
        shot.parent().unwrap().ends_with("shots"),
        "{}",
        shot.display()
    );
    assert!(std::fs::metadata(shot).unwrap().len() > 0);
}

#[test]
fn an_included_flow_fails_at_its_own_file_and_line() {
    let (o, _) = run_flow(
        "main.yaml",
        "appId: com.example.shop\n---\n- launchApp\n- runFlow: sub.yaml\n",
        &[("sub.yaml", "appId: com.example.shop\n---\n- assertVisible:\n    id: login.email\n- tapOn: Nowhere\n")],
        &[],
    );
    let f = o.failure.expect("fails");
    assert_eq!((f.file.as_str(), f.line), ("sub.yaml", 5));
}

#[test]
fn scroll_until_visible_scrolls_to_the_element() {
    let yaml = format!(
        "{SIGN_IN}- tapOn:\n    id: tab.catalog\n- scrollUntilVisible:\n    element: Blue Kettle\n- tapOn: Blue Kettle\n- assertVisible:\n    id: product.title\n"
    );
    passes("scroll.yaml", &yaml);
}

#[test]
fn back_press_key_hide_keyboard_and_waits_run() {
    let yaml = "appId: com.example.shop\n---\n- launchApp\n- tapOn:\n    id: login.email\n- hideKeyboard\n- tapOn:\n    id: login.password\n- pressKey: return\n- waitForAnimationToEnd\n- extendedWaitUntil:\n    visible:\n      id: login.email\n    timeout: 1000\n- extendedWaitUntil:\n    notVisible: Welcome, Demo\n- back\n";
    let o = passes("keys.yaml", yaml);
    assert_eq!(o.steps, 9);
}

#[test]
fn relations_and_index_pick_the_element() {
    let yaml = "appId: com.example.shop\n---\n- launchApp\n- assertVisible:\n    text: Sign in\n    index: 1\n- assertVisible:\n    id: login.password\n    below:\n      id: login.email\n- assertNotVisible:\n    id: login.email\n    below:\n      id: login.password\n- assertVisible:\n    text: Members save 10%\n    childOf:\n      id: promo.banner\n";
    passes("relations.yaml", yaml);
}

#[test]
fn gestures_links_and_app_lifecycle_run() {
    let yaml = format!(
        "{SIGN_IN}- openLink: shop://catalog\n- assertVisible:\n    id: catalog.title\n- scroll\n- swipe:\n    start: 50%, 80%\n    end: 50%, 20%\n- swipe:\n    direction: DOWN\n- doubleTapOn:\n    id: tab.catalog\n- longPressOn:\n    id: tab.catalog\n- stopApp\n- clearState\n- launchApp:\n    clearState: true\n- assertVisible:\n    id: login.email\n"
    );
    let o = passes("lifecycle.yaml", &yaml);
    assert_eq!(o.steps, 17);
}

#[test]
fn a_point_tap_hits_what_is_there() {
    // login.submit's centre, found by the selector first, then tapped as a point.
    let yaml = "appId: com.example.shop\n---\n- launchApp\n- tapOn:\n    point: 50%, 50%\n- assertVisible:\n    id: login.email\n";
    passes("point.yaml", yaml);
}
