//! The composite GitHub Action (`action.yml`) run step by step here, as a runner would
//! (cli/tests/support/run_action.py), with `cargo install` replaced by a stand-in that installs
//! this build's `ad` (a release build per test would take minutes). It proves what the action's
//! own scripts do: the install step's arguments, the SARIF log written, `ad test --report-junit`,
//! and a job that fails on an error or a failed test only after both reports are written.
//!
//! Needs Python 3 with PyYAML (Debian: `apt-get install python3-yaml`; scripts/test-all.sh
//! installs it); `$AD_PYTHON` names another interpreter.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use common::*;

fn python() -> PathBuf {
    let program = std::env::var_os("AD_PYTHON")
        .map(PathBuf::from)
        .or_else(|| Some(PathBuf::from("/usr/bin/python3")).filter(|p| p.exists()))
        .unwrap_or_else(|| PathBuf::from("python3"));
    match Command::new(&program).args(["-c", "import yaml"]).output() {
        Ok(out) if out.status.success() => program,
        _ => panic!(
            "`{}` cannot run the action test: it needs Python 3 with PyYAML. Install it with \
             `apt-get install python3-yaml` (Debian) or `pip install pyyaml`, or point AD_PYTHON \
             at one (scripts/test-all.sh installs it)",
            program.display()
        ),
    }
}

/// A stand-in `cargo` that records its arguments and installs this build's `ad` into `--root`.
fn stub_cargo(scratch: &Path) -> PathBuf {
    let bin = scratch.join("stub-bin");
    std::fs::create_dir_all(&bin).unwrap();
    let script = format!(
        "#!/bin/sh\nprintf '%s\\n' \"$*\" >> '{log}'\nroot=\nwhile [ $# -gt 0 ]; do [ \"$1\" = --root ] && root=$2; shift; done\nmkdir -p \"$root/bin\" && cp '{ad}' \"$root/bin/ad\"\n",
        log = scratch.join("cargo-calls").display(),
        ad = env!("CARGO_BIN_EXE_ad"),
    );
    let cargo = bin.join("cargo");
    std::fs::write(&cargo, script).unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&cargo, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    bin
}

/// Runs the action in `workspace` with these inputs.
fn run_action(scratch: &Path, workspace: &Path, inputs: serde_json::Value) -> Output {
    let path = std::env::join_paths(std::iter::once(stub_cargo(scratch)).chain(
        std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()),
    ))
    .unwrap();
    Command::new(python())
        .arg(repo_root().join("cli/tests/support/run_action.py"))
        .arg(repo_root())
        .arg(workspace)
        .arg(inputs.to_string())
        .env("PATH", path)
        .env("TMPDIR", scratch)
        .env("NO_COLOR", "1")
        .env("AD_STATE_DIR", scratch.join("ad-state"))
        .output()
        .expect("python runs")
}

fn report(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

fn sarif_results(file: &Path) -> Vec<serde_json::Value> {
    let log: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(file).expect("the SARIF log is written"))
            .expect("the SARIF log is JSON");
    log["runs"][0]["results"].as_array().unwrap().clone()
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &to.join(entry.file_name()));
        } else {
            std::fs::copy(entry.path(), to.join(entry.file_name())).unwrap();
        }
    }
}

#[test]
fn an_error_fails_the_job_after_the_sarif_log_is_written() {
    let scratch = scratch_dir("action-error");
    let workspace = scratch.join("workspace");
    copy_dir(&repo_root().join("cli/tests/fixtures/ci"), &workspace);
    let out = run_action(
        &scratch,
        &workspace,
        serde_json::json!({ "paths": "flows/" }),
    );
    let text = report(&out);
    assert_eq!(out.status.code(), Some(1), "the job fails:\n{text}");
    assert!(
        text.contains("::error title=ad check::"),
        "the failure says why:\n{text}"
    );
    let results = sarif_results(&workspace.join("ad-check.sarif"));
    let codes: Vec<&str> = results
        .iter()
        .map(|r| r["ruleId"].as_str().unwrap())
        .collect();
    assert_eq!(codes, ["AD730", "AD201"], "{text}");
    assert!(text.contains("run_action: skipped ad test"), "{text}");
    // Installed from the action's own checkout, with its lock file.
    let calls = std::fs::read_to_string(scratch.join("cargo-calls")).unwrap();
    let expected = format!("--path {}/cli", repo_root().display());
    assert!(
        calls.starts_with("install --locked") && calls.contains(&expected),
        "{calls}"
    );
    let _ = std::fs::remove_dir_all(&scratch);
}

#[test]
fn a_clean_project_passes_with_both_reports() {
    let scratch = scratch_dir("action-clean");
    let workspace = scratch.join("workspace");
    let init = run_in(&scratch, &["init", "workspace"], None);
    assert_eq!(exit_code(&init), 0, "{}", stderr(&init));
    let out = run_action(
        &scratch,
        &workspace,
        serde_json::json!({
            "paths": ".",
            "test": "flows/",
            "sarif-file": "reports/check.sarif",
            "junit-file": "reports/junit.xml",
        }),
    );
    let text = report(&out);
    assert_eq!(out.status.code(), Some(0), "the job passes:\n{text}");
    assert!(sarif_results(&workspace.join("reports/check.sarif")).is_empty());
    let junit =
        std::fs::read_to_string(workspace.join("reports/junit.xml")).expect("JUnit written");
    assert!(
        junit.contains("add-todo.ad") && !junit.contains("<failure"),
        "{junit}"
    );
    let _ = std::fs::remove_dir_all(&scratch);
}

#[test]
fn a_failed_test_fails_the_job_with_its_junit_report() {
    let scratch = scratch_dir("action-test-fails");
    let workspace = scratch.join("workspace");
    assert_eq!(
        exit_code(&run_in(&scratch, &["init", "workspace"], None)),
        0
    );
    // An empty title: the app shows its "Nothing to add" alert, so `wait "id=\"saved\""` fails.
    let out = run_action(
        &scratch,
        &workspace,
        serde_json::json!({ "test": "flows/", "test-args": "-e TITLE=" }),
    );
    let text = report(&out);
    assert_eq!(out.status.code(), Some(1), "the job fails:\n{text}");
    assert!(text.contains("::error title=ad test::"), "{text}");
    assert!(
        text.contains("FAILED"),
        "ad test reports the failed script:\n{text}"
    );
    assert!(sarif_results(&workspace.join("ad-check.sarif")).is_empty());
    let junit = std::fs::read_to_string(workspace.join("ad-junit.xml")).expect("JUnit written");
    assert!(junit.contains("<failure"), "{junit}");
    let _ = std::fs::remove_dir_all(&scratch);
}
