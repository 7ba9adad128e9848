//! An imported script keeps its flow's verdict (issue 33): each flow below runs on the sim with
//! `ad run --maestro`, is imported with `ad import`, and the `.ad` script runs on the sim too;
//! both must pass, or both fail (at the same step's line when the flow has no control
//! commands). A flow the import refuses is not compared, and the test says how many were.

mod common;

use std::path::{Path, PathBuf};

use common::{exit_code, isolated_ad, repo_root, stderr};

const HEAD: &str = "appId: com.example.shop\n---\n- launchApp\n";
const SIGN_IN: &str = "- tapOn:\n    id: login.email\n- inputText: demo@example.com\n- tapOn:\n    id: login.password\n- inputText: hunter2\n- tapOn:\n    id: login.submit\n";

fn flows() -> Vec<(&'static str, String, bool)> {
    vec![
        ("sign-in", format!("{HEAD}{SIGN_IN}- assertVisible: Welcome, Demo\n"), true),
        (
            "missing-target",
            format!("{HEAD}- tapOn:\n    id: login.nope\n"),
            false,
        ),
        (
            "still-visible",
            format!("{HEAD}- assertNotVisible:\n    id: login.email\n"),
            false,
        ),
        (
            "wrong-screen",
            format!("{HEAD}- assertVisible: Welcome, Demo\n"),
            false,
        ),
        (
            "catalog",
            format!(
                "{HEAD}{SIGN_IN}- tapOn:\n    id: tab.catalog\n- assertVisible:\n    id: catalog.title\n- back\n"
            ),
            true,
        ),
        (
            "env-and-inline-flow",
            "appId: com.example.shop\nenv:\n  EMAIL: demo@example.com\n---\n- launchApp\n- runFlow:\n    commands:\n      - tapOn:\n          id: login.email\n      - inputText: ${EMAIL}\n      - tapOn:\n          id: login.password\n      - inputText: hunter2\n      - tapOn:\n          id: login.submit\n- assertVisible: Welcome, Demo\n".into(),
            true,
        ),
        (
            "erase",
            format!("{HEAD}- tapOn:\n    id: login.email\n- inputText: abcdef\n- eraseText: 3\n- hideKeyboard\n"),
            true,
        ),
    ]
}

fn shop() -> PathBuf {
    repo_root().join("examples/apps/shop.json")
}

fn run(dir: &Path, args: &[&str]) -> std::process::Output {
    isolated_ad(dir)
        .args(args)
        .arg("--app")
        .arg(shop())
        .args(["--artifacts-dir", "runs"])
        .output()
        .unwrap()
}

/// The line of the failing step in `ad run`'s progress (`FAIL 3/8  line 12 …`).
fn failed_step(err: &str) -> Option<String> {
    err.lines()
        .find(|l| l.trim_start().starts_with("FAIL"))
        .map(|l| l.split_whitespace().nth(1).unwrap_or("").to_string())
}

#[test]
fn imported_scripts_reach_their_flows_verdict_on_the_sim() {
    let dir = common::scratch_dir("import-verdict");
    let mut compared = 0;
    for (name, yaml, passes) in flows() {
        let flow = format!("{name}.yaml");
        std::fs::write(dir.join(&flow), &yaml).unwrap();
        let maestro = run(&dir, &["run", "--maestro", &flow]);
        let expected = if passes { 0 } else { 1 };
        assert_eq!(
            exit_code(&maestro),
            expected,
            "{name}: {}",
            stderr(&maestro)
        );

        let script = format!("{name}.ad");
        let import = isolated_ad(&dir)
            .args(["import", &flow, "-o", &script])
            .output()
            .unwrap();
        if exit_code(&import) != 0 {
            eprintln!("{name}: not imported: {}", stderr(&import));
            continue;
        }
        let ad = run(&dir, &["run", &script, "--session", name]);
        assert_eq!(
            exit_code(&ad),
            expected,
            "{name}: the flow {} and its import does not\n{}",
            if passes { "passes" } else { "fails" },
            stderr(&ad)
        );
        // The same step fails (the flows here have no control commands that merge steps).
        if !passes && name != "env-and-inline-flow" {
            assert_eq!(
                failed_step(&stderr(&maestro)),
                failed_step(&stderr(&ad)),
                "{name}: a different step fails\n{}\n{}",
                stderr(&maestro),
                stderr(&ad)
            );
        }
        compared += 1;
    }
    assert_eq!(compared, flows().len(), "every flow here is importable");
}
