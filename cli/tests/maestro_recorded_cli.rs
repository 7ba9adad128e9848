//! Maestro flows on the recorded backend (issue 33): `ad run --maestro FLOW --record-fixture DIR`
//! records the flow's device calls as `.ad` runs do, and `--backend recorded:DIR` replays them
//! offline to the same verdict (a pass, or the same failure at the same line); a replay of a
//! different flow diverges; injected values are not in the fixture; recording a replay is
//! refused.

mod common;

use std::path::{Path, PathBuf};

use common::shop_flows::{shop, LOGIN, WRONG};
use common::{exit_code, isolated_ad, stderr};

fn ad(dir: &Path, args: &[&str]) -> std::process::Output {
    isolated_ad(dir).args(args).output().unwrap()
}

fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else {
                out.push(p);
            }
        }
    }
    out
}

fn record(dir: &Path, flow: &str, fixture: &str) -> std::process::Output {
    let shop = shop();
    ad(
        dir,
        &[
            "run",
            "--maestro",
            flow,
            "-e",
            "PASSWORD=hunter2",
            "--app",
            shop.to_str().unwrap(),
            "--record-fixture",
            fixture,
        ],
    )
}

fn replay(dir: &Path, flow: &str, fixture: &str) -> std::process::Output {
    ad(
        dir,
        &[
            "run",
            "--maestro",
            flow,
            "-e",
            "PASSWORD=hunter2",
            "--backend",
            &format!("recorded:{fixture}"),
        ],
    )
}

#[test]
fn a_recorded_flow_replays_offline_to_the_same_pass() {
    let dir = common::scratch_dir("maestro-recorded-pass");
    std::fs::write(dir.join("login.yaml"), LOGIN).unwrap();
    let out = record(&dir, "login.yaml", "fixture");
    assert_eq!(exit_code(&out), 0, "{}", stderr(&out));
    let manifest = std::fs::read_to_string(dir.join("fixture/manifest.json"))
        .expect("the recording writes its manifest");
    assert!(manifest.contains("\"sim\""), "{manifest}");
    // The injected password is in no file of the fixture.
    for f in files_under(&dir.join("fixture")) {
        let bytes = std::fs::read(&f).unwrap();
        assert!(
            !String::from_utf8_lossy(&bytes).contains("hunter2"),
            "{} holds the injected value",
            f.display()
        );
    }
    let out = replay(&dir, "login.yaml", "fixture");
    let err = stderr(&out);
    assert_eq!(exit_code(&out), 0, "{err}");
    assert!(err.contains("ok: login.yaml — 7 step(s) run"), "{err}");
}

#[test]
fn a_recorded_failure_replays_to_the_same_failure_at_the_same_line() {
    let dir = common::scratch_dir("maestro-recorded-fail");
    std::fs::write(dir.join("wrong.yaml"), WRONG).unwrap();
    let recorded = record(&dir, "wrong.yaml", "fixture");
    assert_eq!(exit_code(&recorded), 1, "{}", stderr(&recorded));
    let replayed = replay(&dir, "wrong.yaml", "fixture");
    assert_eq!(exit_code(&replayed), 1, "{}", stderr(&replayed));
    let at = |out: &std::process::Output| {
        stderr(out)
            .lines()
            .find(|l| l.trim_start().starts_with("--> "))
            .map(str::to_string)
    };
    assert_eq!(at(&recorded), at(&replayed));
    assert!(
        at(&replayed).is_some_and(|l| l.contains("wrong.yaml:12")),
        "{}",
        stderr(&replayed)
    );
}

#[test]
fn a_replay_of_another_flow_diverges_from_the_recording() {
    let dir = common::scratch_dir("maestro-recorded-other");
    std::fs::write(dir.join("login.yaml"), LOGIN).unwrap();
    let out = record(&dir, "login.yaml", "fixture");
    assert_eq!(exit_code(&out), 0, "{}", stderr(&out));
    // The same app, but the flow types into the fields in the other order.
    let swapped = LOGIN
        .replace("id: login.email", "id: TMP")
        .replace("id: login.password", "id: login.email")
        .replace("id: TMP", "id: login.password");
    std::fs::write(dir.join("swapped.yaml"), swapped).unwrap();
    let out = replay(&dir, "swapped.yaml", "fixture");
    let err = stderr(&out);
    assert_ne!(exit_code(&out), 0, "{err}");
    assert!(err.contains("REPLAY_DIVERGED"), "{err}");
}

#[test]
fn recording_a_replay_is_refused() {
    let dir = common::scratch_dir("maestro-recorded-refused");
    std::fs::write(dir.join("login.yaml"), LOGIN).unwrap();
    let out = record(&dir, "login.yaml", "fixture");
    assert_eq!(exit_code(&out), 0, "{}", stderr(&out));
    let out = ad(
        &dir,
        &[
            "run",
            "--maestro",
            "login.yaml",
            "-e",
            "PASSWORD=hunter2",
            "--backend",
            "recorded:fixture",
            "--record-fixture",
            "again",
        ],
    );
    let err = stderr(&out);
    assert_eq!(exit_code(&out), 2, "{err}");
    assert!(err.contains("a recorded run replays one"), "{err}");
    // Nothing was recorded (the folder may be prepared, as for `.ad` runs).
    assert!(!dir.join("again/manifest.json").exists());
}

#[test]
fn a_suite_of_flows_records_one_fixture_each_and_replays_to_the_same_verdicts() {
    let dir = common::scratch_dir("maestro-recorded-suite");
    std::fs::create_dir_all(dir.join("flows/nested")).unwrap();
    std::fs::write(dir.join("flows/login.yaml"), LOGIN).unwrap();
    std::fs::write(dir.join("flows/nested/wrong.yaml"), WRONG).unwrap();
    let shop = shop();
    let recorded = ad(
        &dir,
        &[
            "test",
            "--maestro",
            "flows",
            "-e",
            "PASSWORD=hunter2",
            "--app",
            shop.to_str().unwrap(),
            "--record-fixture",
            "fixtures",
        ],
    );
    let err = stderr(&recorded);
    assert_eq!(exit_code(&recorded), 1, "{err}");
    // One fixture per flow, under its path in the suite.
    assert!(
        dir.join("fixtures/login.yaml/manifest.json").is_file(),
        "{err}"
    );
    assert!(
        dir.join("fixtures/nested/wrong.yaml/manifest.json")
            .is_file(),
        "{err}"
    );
    let verdicts = |text: &str| -> Vec<String> {
        text.lines()
            .filter(|l| l.starts_with("passed") || l.starts_with("failed"))
            .map(|l| l.split(" (").next().unwrap().to_string())
            .collect()
    };
    let replayed = ad(
        &dir,
        &[
            "test",
            "--maestro",
            "flows",
            "-e",
            "PASSWORD=hunter2",
            "--backend",
            "recorded:fixtures",
        ],
    );
    let again = stderr(&replayed);
    assert_eq!(exit_code(&replayed), 1, "{again}");
    assert_eq!(verdicts(&err), verdicts(&again), "{err}\n---\n{again}");
    assert_eq!(verdicts(&again).len(), 2, "{again}");
}
