//! `ad import FLOW.yaml [-o OUT.ad] [--flatten]` (issue 33): stdout or a file, every refusal
//! listed with its line, exit codes 0 / 1 / 2, and imported scripts that run on the simulated
//! device to the verdict their flow means (sign-in passes; a wrong password fails at the wait).
//! The comparison with agent-device running the flow itself waits for `ad run --maestro`.

mod common;

use std::path::{Path, PathBuf};

use common::{ad, exit_code, repo_root, stderr, stdout};

fn fixtures() -> PathBuf {
    repo_root().join("tests/fixtures/maestro-import")
}

fn import(dir: &Path, args: &[&str]) -> std::process::Output {
    ad(dir).arg("import").args(args).output().unwrap()
}

#[test]
fn imports_to_stdout_and_to_a_file_with_o() {
    let dir = common::scratch_dir("import-cli-o");
    let flow = fixtures().join("mapped-commands.yaml");
    let out = import(&dir, &[flow.to_str().unwrap()]);
    assert_eq!(exit_code(&out), 0, "{}", stderr(&out));
    let script = stdout(&out);
    assert!(script.starts_with("# Imported from the Maestro flow mapped-commands.yaml"));
    assert!(
        script.contains("\nclick \"id=\\\"login.email\\\"\"\n"),
        "{script}"
    );

    let target = dir.join("out/login.ad");
    let out = import(
        &dir,
        &[flow.to_str().unwrap(), "-o", target.to_str().unwrap()],
    );
    assert_eq!(exit_code(&out), 0, "{}", stderr(&out));
    assert_eq!(std::fs::read_to_string(&target).unwrap(), script);
    assert!(
        stdout(&out).trim_end().ends_with("out/login.ad"),
        "{}",
        stdout(&out)
    );
    // The written script passes `ad check` and `ad fmt --check`.
    for args in [&["check"][..], &["fmt", "--check"]] {
        let o = ad(&dir).args(args).arg(&target).output().unwrap();
        assert_eq!(
            exit_code(&o),
            0,
            "ad {args:?}: {}{}",
            stdout(&o),
            stderr(&o)
        );
    }
}

#[test]
fn refusals_are_all_listed_with_their_lines_and_exit_1() {
    let dir = common::scratch_dir("import-cli-refused");
    let target = dir.join("x.ad");
    let flow = fixtures().join("refused-control.yaml");
    let out = import(
        &dir,
        &[flow.to_str().unwrap(), "-o", target.to_str().unwrap()],
    );
    assert_eq!(exit_code(&out), 1);
    let err = stderr(&out);
    assert!(err.starts_with("error: "), "{err}");
    assert!(err.contains("13 part(s)"), "{err}");
    assert!(
        err.contains("refused-control.yaml:16:3: repeat: a loop whose count"),
        "{err}"
    );
    assert!(
        err.contains("refused-control.yaml:3:5: onFlowComplete"),
        "{err}"
    );
    assert!(!target.exists(), "nothing is written on a refusal");
}

#[test]
fn a_flow_ad_check_maestro_refuses_exits_1_with_its_diagnostics() {
    let dir = common::scratch_dir("import-cli-invalid");
    let flow = fixtures().join("invalid-flow.yaml");
    let out = import(&dir, &[flow.to_str().unwrap()]);
    assert_eq!(exit_code(&out), 1);
    let err = stderr(&out);
    assert!(err.contains("AD908") && err.contains("AD903"), "{err}");
    assert!(stdout(&out).is_empty());
}

#[test]
fn run_flow_files_need_flatten() {
    let dir = common::scratch_dir("import-cli-flatten");
    let flow = fixtures().join("runflow-file.yaml");
    let out = import(&dir, &[flow.to_str().unwrap()]);
    assert_eq!(exit_code(&out), 1);
    assert!(stderr(&out).contains("pass --flatten"), "{}", stderr(&out));
    let out = import(&dir, &[flow.to_str().unwrap(), "--flatten"]);
    assert_eq!(exit_code(&out), 0, "{}", stderr(&out));
    assert!(
        stdout(&out).contains("type \"ada@example.com\""),
        "{}",
        stdout(&out)
    );
}

#[test]
fn usage_and_io_errors_exit_2() {
    let dir = common::scratch_dir("import-cli-usage");
    assert_eq!(exit_code(&import(&dir, &[])), 2);
    assert_eq!(exit_code(&import(&dir, &["missing.yaml"])), 2);
    assert_eq!(exit_code(&import(&dir, &["a.yaml", "--no-such-flag"])), 2);
    // Never written over the flow itself.
    let flow = dir.join("f.yaml");
    std::fs::copy(fixtures().join("sim/shop-login.yaml"), &flow).unwrap();
    let out = import(&dir, &["f.yaml", "-o", "f.yaml"]);
    assert_eq!(exit_code(&out), 2, "{}", stderr(&out));
    assert!(std::fs::read_to_string(&flow)
        .unwrap()
        .starts_with("appId:"));
}

#[test]
fn help_teaches_the_mapping_and_exit_codes() {
    let out = ad(&repo_root())
        .args(["import", "--help"])
        .output()
        .unwrap();
    let help = stdout(&out);
    for s in [
        "Examples:",
        "--flatten",
        "assertVisible",
        "Refused",
        "Exit codes: 0 imported, 1",
    ] {
        assert!(help.contains(s), "{s}: {help}");
    }
}

/// Imports a sim fixture into a project with the Shop model and runs it on the sim.
fn import_and_run(name: &str) -> std::process::Output {
    let dir = common::scratch_dir(&format!("import-cli-sim-{name}"));
    std::fs::create_dir_all(dir.join("apps")).unwrap();
    std::fs::copy(
        repo_root().join("examples/apps/shop.json"),
        dir.join("apps/shop.json"),
    )
    .unwrap();
    let flow = fixtures().join(format!("sim/{name}.yaml"));
    let out = import(&dir, &[flow.to_str().unwrap(), "-o", "flow.ad"]);
    assert_eq!(exit_code(&out), 0, "{}", stderr(&out));
    ad(&dir)
        .args(["run", "flow.ad", "--artifacts-dir", "runs"])
        .output()
        .unwrap()
}

#[test]
fn an_imported_sign_in_passes_on_the_sim() {
    let out = import_and_run("shop-login");
    assert_eq!(exit_code(&out), 0, "{}{}", stdout(&out), stderr(&out));
}

#[test]
fn an_imported_flow_whose_wait_fails_fails_on_the_sim() {
    let out = import_and_run("shop-login-fails");
    assert_eq!(exit_code(&out), 1, "{}{}", stdout(&out), stderr(&out));
    // At the extendedWaitUntil (line 8 of the script), after the six steps before it.
    let text = format!("{}{}", stdout(&out), stderr(&out));
    assert!(text.contains("Divergence at step 7 (flow.ad:8)"), "{text}");
}
