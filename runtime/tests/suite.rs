//! `ad test` semantics: static check first, platform filter, retries and flaky reporting,
//! fail-fast, shards, deterministic order under parallel jobs, and the suite report.

mod common;

use std::path::Path;

use ad_runtime::core::records::DivergenceKind;
use ad_runtime::session::suite::{report, run_suite, Case, Status, SuiteOptions, Summary};
use ad_runtime::session::SessionConfig;
use common::*;

fn case(dir: &Path, name: &str, text: &str) -> Case {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    Case {
        path,
        display: name.to_string(),
        text: text.to_string(),
        ..Case::default()
    }
}

fn options(dir: &Path) -> SuiteOptions {
    SuiteOptions {
        session: SessionConfig {
            app_model: Some(shop_path()),
            artifacts_root: dir.join("artifacts"),
            persist_session: false,
            state_dir: dir.join("state"),
            no_journal: false,
            ..SessionConfig::default()
        },
        jobs: 1,
        ..SuiteOptions::default()
    }
}

fn suite(dir: &Path) -> Vec<Case> {
    vec![
        case(dir, "a-login.ad", &example("login.ad")),
        case(dir, "b-reshuffled.ad", &example("divergent/reshuffled-login.ad")),
        case(dir, "c-invalid.ad", "context platform=ios\nopen \"com.example.shop\"\nclick \"label=Sign in\"\n"),
        case(dir, "d-android.ad", "context platform=android\nopen \"com.example.shop\"\nclose\n"),
        case(dir, "e-no-platform.ad", "open \"com.example.shop\"\nclose\n"),
        // AD_SESSION differs per attempt: the first attempt misses, the retry finds the element.
        case(
            dir,
            "f-flaky.ad",
            "context platform=ios retries=1\nopen \"com.example.shop\"\nwait \"id=\\\"${AD_SESSION}\\\"\" 300\nclose\n",
        ),
    ]
}

fn statuses(s: &Summary) -> Vec<(String, Status)> {
    s.results
        .iter()
        .map(|r| (r.display.clone(), r.status))
        .collect()
}

fn flaky_model_dir(dir: &Path) -> std::path::PathBuf {
    // The shop, plus an element whose id is the second attempt's session name.
    let mut model: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(shop_path()).unwrap()).unwrap();
    model["screens"]["login"]["elements"]
        .as_array_mut()
        .unwrap()
        .push(serde_json::json!({"type": "statictext", "id": "test-6-f-flaky-2", "label": "retry marker"}));
    let p = dir.join("shop-flaky.json");
    std::fs::write(&p, serde_json::to_string(&model).unwrap()).unwrap();
    p
}

#[test]
fn a_suite_reports_every_kind_of_outcome() {
    let dir = tempfile::tempdir().unwrap();
    let cases = suite(dir.path());
    let mut opts = options(dir.path());
    opts.session.app_model = Some(flaky_model_dir(dir.path()));
    opts.platform = Some("ios".into());
    opts.cli_env = vec![("PASSWORD".into(), "hunter2".into())];
    let mut seen = Vec::new();
    let summary = run_suite(&cases, &opts, &mut |r| seen.push(r.display.clone()));
    assert_eq!(
        statuses(&summary),
        vec![
            ("a-login.ad".into(), Status::Passed),
            ("b-reshuffled.ad".into(), Status::Failed),
            ("c-invalid.ad".into(), Status::Invalid),
            ("e-no-platform.ad".into(), Status::Skipped),
            ("f-flaky.ad".into(), Status::Flaky),
        ]
    );
    assert_eq!(summary.filtered, 1, "the android script is left out");
    assert_eq!(seen.len(), 5);
    let invalid = &summary.results[2];
    assert!(
        invalid.attempts.is_empty(),
        "a script with static errors never runs"
    );
    assert_eq!(invalid.refusal.as_ref().unwrap().positions[0].0, 3);
    let flaky = &summary.results[4];
    assert_eq!(flaky.attempts.len(), 2);
    assert!(!flaky.attempts[0].ok && flaky.attempts[1].ok);
    assert_eq!(
        summary.results[3].skip_reason.as_deref(),
        Some("missing platform metadata for --platform ios")
    );
    let failed = &summary.results[1].attempts[0];
    assert_eq!(failed.kind, Some(DivergenceKind::IdentityMismatch));
    assert_eq!(failed.line, Some(12));
    assert!(!summary.ok());

    // The suite report (what --report-json writes and JUnit is rendered from).
    let report = report(&summary);
    assert_eq!(report.summary.total, 5);
    assert_eq!(report.summary.flaky, 1);
    assert_eq!(report.summary.filtered, 1);
    assert!(!report.summary.ok);
    let failed = &report.scripts[1];
    assert_eq!(
        failed.attempts[0].code.as_deref(),
        Some("REPLAY_DIVERGENCE")
    );
    assert!(failed.attempts[0]
        .message
        .as_deref()
        .is_some_and(|m| m.contains("step 4")));
    let invalid = &report.scripts[2];
    assert_eq!(invalid.static_errors[0].line, 3);
    assert_eq!(invalid.static_errors[0].code, "AD201");
    assert_eq!(report.scripts[4].attempts.len(), 2);
    fits(
        &schema("suite-report"),
        &serde_json::to_value(&report).unwrap(),
        "the suite report",
    );
    // Every attempt's journal, on disk.
    let dirs: Vec<&str> = report
        .scripts
        .iter()
        .flat_map(|s| &s.attempts)
        .filter_map(|a| a.run_dir.as_deref())
        .collect();
    assert_eq!(
        dirs.len(),
        4,
        "login, reshuffled and the two flaky attempts"
    );
    for d in dirs {
        assert!(check_run_dir(Path::new(d)) > 3, "{d}");
    }
}

#[test]
fn parallel_jobs_keep_discovery_order() {
    let dir = tempfile::tempdir().unwrap();
    let names = [
        "navigation.ad",
        "checkout-form.ad",
        "scroll-to-find.ad",
        "alerts.ad",
        "handoff-profile.ad",
    ];
    let cases: Vec<Case> = names
        .iter()
        .enumerate()
        .map(|(i, n)| case(dir.path(), &format!("{i}-{n}"), &example(n)))
        .collect();
    let mut opts = options(dir.path());
    opts.jobs = 3;
    let mut order = Vec::new();
    let summary = run_suite(&cases, &opts, &mut |r| order.push(r.display.clone()));
    let expected: Vec<String> = cases.iter().map(|c| c.display.clone()).collect();
    assert_eq!(order, expected);
    assert!(summary.ok(), "{:?}", statuses(&summary));
}

#[test]
fn fail_fast_stops_starting_scripts() {
    let dir = tempfile::tempdir().unwrap();
    let cases = vec![
        case(
            dir.path(),
            "1.ad",
            &example("divergent/reshuffled-login.ad"),
        ),
        case(dir.path(), "2.ad", &example("navigation.ad")),
    ];
    let mut opts = options(dir.path());
    opts.fail_fast = true;
    let summary = run_suite(&cases, &opts, &mut |_| {});
    assert_eq!(summary.results[0].status, Status::Failed);
    assert_eq!(summary.results[1].status, Status::Skipped);
    assert!(summary.results[1]
        .skip_reason
        .as_deref()
        .unwrap()
        .contains("fail-fast"));
}

#[test]
fn shards_partition_the_suite() {
    let dir = tempfile::tempdir().unwrap();
    let cases: Vec<Case> = (0..5)
        .map(|i| case(dir.path(), &format!("{i}.ad"), &example("navigation.ad")))
        .collect();
    let mut all = Vec::new();
    for shard in 1..=2 {
        let mut opts = options(dir.path());
        opts.shard = Some((shard, 2));
        let s = run_suite(&cases, &opts, &mut |_| {});
        assert_eq!(s.results.len() + s.other_shards, 5);
        all.extend(s.results.iter().map(|r| r.display.clone()));
    }
    all.sort();
    assert_eq!(all, vec!["0.ad", "1.ad", "2.ad", "3.ad", "4.ad"]);
}

#[test]
fn retries_override_and_timeout() {
    let dir = tempfile::tempdir().unwrap();
    let cases = vec![case(
        dir.path(),
        "slow.ad",
        "context platform=ios timeout=60000 retries=3\nopen \"com.example.shop\"\nwait 3000\nclose\n",
    )];
    let mut opts = options(dir.path());
    opts.retries = Some(0);
    opts.timeout_ms = Some(1000);
    let s = run_suite(&cases, &opts, &mut |_| {});
    let r = &s.results[0];
    assert_eq!(r.status, Status::Failed);
    assert_eq!(r.attempts.len(), 1, "--retries 0 overrides retries=3");
    assert_eq!(r.timeout_ms, Some(1000));
    assert_eq!(r.attempts[0].code.as_deref(), Some("REPLAY_DIVERGENCE"));
}
