//! `ad run --maestro FLOW.yaml` and `ad test --maestro PATHS` (issue 33): a flow on the sim
//! with the Shop demo app, its progress, the failure at the flow's line and column with a
//! divergence report, `--json`, the journal, a flow agent-device refuses (exit 2, nothing run),
//! options only `.ad` runs have, suites with JUnit, and injected values kept out of everything
//! written.

mod common;

use std::path::{Path, PathBuf};

use common::shop_flows::{shop, LOGIN};
use common::{exit_code, isolated_ad, repo_root, stderr, stdout};

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    if let Some(parent) = p.parent() {
        std::fs::create_dir_all(parent).unwrap();
    }
    std::fs::write(&p, text).unwrap();
    p
}

fn run(dir: &Path, args: &[&str]) -> std::process::Output {
    isolated_ad(dir)
        .args(args)
        .arg("--app")
        .arg(shop())
        .output()
        .unwrap()
}

/// Every file under `dir`, as text.
fn everything_written(dir: &Path) -> String {
    let mut out = String::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else {
                out.push_str(&String::from_utf8_lossy(&std::fs::read(&p).unwrap()));
            }
        }
    }
    out
}

#[test]
fn a_flow_runs_on_the_sim_with_progress_and_a_journal() {
    let dir = common::scratch_dir("maestro-run");
    write(&dir, "login.yaml", LOGIN);
    let out = run(
        &dir,
        &["run", "--maestro", "login.yaml", "-e", "PASSWORD=hunter2"],
    );
    let err = stderr(&out);
    assert_eq!(exit_code(&out), 0, "{err}");
    assert!(
        err.contains("ok   7/7  line 12   assertVisible \"Welcome, Demo\""),
        "{err}"
    );
    assert!(err.contains("ok: login.yaml — 7 step(s) run"), "{err}");
    let journal = err.rsplit("journal ").next().unwrap().trim();
    let events = std::fs::read_to_string(dir.join(journal).join("events.jsonl")).unwrap();
    assert_eq!(
        events.matches("\"event\":\"step_end\"").count(),
        7,
        "{events}"
    );
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join(journal).join("run.json")).unwrap())
            .unwrap();
    assert_eq!(summary["ok"], true);
}

#[test]
fn a_failing_step_is_reported_at_its_line_and_column_with_a_divergence_report() {
    let dir = common::scratch_dir("maestro-run");
    write(
        &dir,
        "bad.yaml",
        &LOGIN.replace("id: login.submit", "id: login.nope"),
    );
    let out = run(
        &dir,
        &["run", "--maestro", "bad.yaml", "-e", "PASSWORD=hunter2"],
    );
    let err = stderr(&out);
    assert_eq!(exit_code(&out), 1, "{err}");
    assert!(
        err.contains("error[COMMAND_FAILED]: Maestro target did not resolve to a visible element.\n  --> bad.yaml:10:3  (step 6: tapOn \"login.nope\")"),
        "{err}"
    );
    assert!(err.contains("Divergence at step 6 (bad.yaml:10)"), "{err}");
    assert!(err.contains("`ad run --maestro bad.yaml`"), "{err}");

    let out = run(
        &dir,
        &[
            "run",
            "--maestro",
            "bad.yaml",
            "-e",
            "PASSWORD=hunter2",
            "--json",
        ],
    );
    assert_eq!(exit_code(&out), 1);
    let v: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(v["ok"], false);
    assert_eq!(v["error"]["line"], 10);
    assert_eq!(v["error"]["column"], 3);
    assert_eq!(v["error"]["divergence"]["kind"], "selector-miss");
    assert_eq!(
        v["error"]["divergence"]["step"]["source"]["path"],
        "bad.yaml"
    );
}

/// A run refused before its first step (exit 2) with `code` at `place` (`FILE:LINE:COLUMN`).
fn assert_refused(out: &std::process::Output, code: &str, place: &str) {
    let err = stderr(out);
    assert_eq!(exit_code(out), 2, "{err}");
    assert!(err.contains(code), "{err}");
    assert!(err.contains(place), "{err}");
    assert!(err.contains("nothing was run"), "{err}");
}

#[test]
fn a_flow_agent_device_refuses_is_not_run() {
    let dir = common::scratch_dir("maestro-run");
    write(
        &dir,
        "refused.yaml",
        "appId: com.example.shop\n---\n- launchApp\n- travel: far\n",
    );
    let out = run(&dir, &["run", "--maestro", "refused.yaml"]);
    assert_refused(&out, "AD903", "refused.yaml:4:3");
    assert!(
        !dir.join("ad-artifacts").exists(),
        "a refused flow makes no run folder"
    );
}

/// agent-device plans a `runFlow` with `when.platform` only on that platform: a missing file
/// for Android does not stop a run on the iOS sim; one for iOS refuses it, nothing run.
#[test]
fn a_runflow_for_another_platform_is_not_loaded() {
    let dir = common::scratch_dir("maestro-run-platform");
    let flow = |platform: &str| {
        format!(
            "appId: com.example.shop\n---\n- launchApp\n- runFlow:\n    file: only-there.yaml\n    when:\n      platform: {platform}\n- assertVisible: Sign in\n"
        )
    };
    write(&dir, "android.yaml", &flow("Android"));
    write(&dir, "ios.yaml", &flow("iOS"));

    let out = run(&dir, &["run", "--maestro", "android.yaml"]);
    assert_eq!(exit_code(&out), 0, "{}{}", stdout(&out), stderr(&out));

    let out = run(&dir, &["run", "--maestro", "ios.yaml"]);
    assert_refused(&out, "AD920", "ios.yaml:5:11");
    // The refused run made no run folder of its own (the first one's is the only one).
    let runs = std::fs::read_dir(dir.join("ad-artifacts")).unwrap().count();
    assert_eq!(runs, 1, "a refused flow makes no run folder");
}

#[test]
fn options_only_ad_scripts_have_are_refused() {
    let dir = common::scratch_dir("maestro-run");
    write(&dir, "login.yaml", LOGIN);
    let out = run(&dir, &["run", "--maestro", "login.yaml", "--keep-session"]);
    assert_eq!(exit_code(&out), 2);
    assert!(
        stderr(&out).contains("Maestro YAML owns its lifecycle"),
        "{}",
        stderr(&out)
    );
    let out = isolated_ad(&dir)
        .args(["run", "login.yaml", "--allow-http"])
        .output()
        .unwrap();
    assert_eq!(exit_code(&out), 2, "--allow-http needs --maestro");
}

#[test]
fn injected_values_never_reach_output_or_files() {
    let dir = common::scratch_dir("maestro-run");
    // The secret is typed, then a failing assertion names it: neither the terminal, the JSON,
    // the journal nor the report may show it.
    write(
        &dir,
        "secret.yaml",
        &LOGIN.replace(
            "- assertVisible: Welcome, Demo\n",
            "- assertVisible: ${PASSWORD}\n",
        ),
    );
    for json in [false, true] {
        let mut args = vec![
            "run",
            "--maestro",
            "secret.yaml",
            "-e",
            "PASSWORD=s3cr3t-hunter",
        ];
        if json {
            args.push("--json");
        }
        let out = run(&dir, &args);
        assert_eq!(exit_code(&out), 1, "{}", stderr(&out));
        assert!(!stdout(&out).contains("s3cr3t-hunter"));
        assert!(!stderr(&out).contains("s3cr3t-hunter"));
    }
    assert!(!everything_written(&dir.join("ad-artifacts")).contains("s3cr3t-hunter"));
}

#[test]
fn a_suite_of_flows_reports_each_and_writes_junit() {
    let dir = common::scratch_dir("maestro-test");
    write(&dir, "flows/login.yaml", LOGIN);
    write(
        &dir,
        "flows/bad.yaml",
        &LOGIN.replace("id: login.submit", "id: login.nope"),
    );
    write(&dir, "flows/refused.yaml", "appId: x\n---\n- travel: far\n");
    write(&dir, "flows/notes.txt", "not a flow");
    let out = run(
        &dir,
        &[
            "test",
            "--maestro",
            "flows",
            "-e",
            "PASSWORD=hunter2",
            "--report-junit",
            "junit.xml",
        ],
    );
    let err = stderr(&out);
    assert_eq!(exit_code(&out), 1, "{err}");
    assert!(err.contains("passed   flows/login.yaml (7 steps)"), "{err}");
    assert!(
        err.contains("failed   flows/bad.yaml: flows/bad.yaml:10:3: COMMAND_FAILED"),
        "{err}"
    );
    assert!(
        err.contains("invalid  flows/refused.yaml: Maestro command \"travel\" is not supported."),
        "{err}"
    );
    assert!(
        err.contains("3 flow(s): 1 passed, 1 failed, 1 invalid, 0 error(s)"),
        "{err}"
    );
    let junit = std::fs::read_to_string(dir.join("junit.xml")).unwrap();
    assert!(
        junit.contains("tests=\"3\" failures=\"1\" errors=\"1\""),
        "{junit}"
    );
    assert!(
        junit.contains("<testcase name=\"flows/login.yaml\""),
        "{junit}"
    );
}

#[test]
fn the_example_flow_finds_its_app_model_and_passes() {
    let dir = common::scratch_dir("maestro-example");
    let flow = repo_root().join("examples/maestro/login.yaml");
    let out = isolated_ad(&dir)
        .args(["run", "--maestro"])
        .arg(&flow)
        .args(["-e", "PASSWORD=hunter2", "--artifacts-dir", "runs"])
        .output()
        .unwrap();
    assert_eq!(exit_code(&out), 0, "{}", stderr(&out));
    assert!(stderr(&out).contains("8 step(s) run"), "{}", stderr(&out));
    assert!(
        dir.join("runs").is_dir(),
        "the run folder is where --artifacts-dir says"
    );
}

#[test]
fn html_reports_show_each_flow_with_its_steps() {
    let dir = common::scratch_dir("maestro-html");
    write(&dir, "flows/login.yaml", LOGIN);
    write(
        &dir,
        "flows/bad.yaml",
        &LOGIN.replace("id: login.submit", "id: login.nope"),
    );
    let out = run(
        &dir,
        &[
            "test",
            "--maestro",
            "flows",
            "-e",
            "PASSWORD=hunter2",
            "--report-html",
            "html",
        ],
    );
    assert_eq!(exit_code(&out), 1, "{}", stderr(&out));
    let index = std::fs::read_to_string(dir.join("html/index.html")).unwrap();
    assert!(
        index.contains("flows/login.yaml") && index.contains("flows/bad.yaml"),
        "{index}"
    );
    let pages: Vec<String> = std::fs::read_dir(dir.join("html/scripts"))
        .unwrap()
        .flatten()
        .filter(|e| e.file_name() != "index.html")
        .filter_map(|e| std::fs::read_to_string(e.path()).ok())
        .collect();
    assert!(
        pages
            .iter()
            .any(|p| p.contains("login.nope") && p.contains("Maestro target did not resolve")),
        "no page shows the failing flow's step"
    );
    // And one run's report, with no injected value in it.
    let out = run(
        &dir,
        &[
            "run",
            "--maestro",
            "flows/login.yaml",
            "-e",
            "PASSWORD=hunter2",
            "--report-html",
            "one",
        ],
    );
    assert_eq!(exit_code(&out), 0, "{}", stderr(&out));
    assert!(!everything_written(&dir.join("one")).contains("hunter2"));
    assert!(dir.join("one/index.html").is_file());
}
