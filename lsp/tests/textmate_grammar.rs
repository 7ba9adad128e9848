//! The VS Code extension's TextMate grammar, run by VS Code's own engine (`vscode-textmate` +
//! `vscode-oniguruma` from npm) over every script of the data sets (tests/conformance,
//! tests/fixtures/check, and ../shared/corpus when present) and the examples: every line
//! tokenizes; commands, selectors, variables and annotations get their scopes.
//!
//! Needs `node` and `npm ci` in editors/vscode/test (scripts/test-all.sh does both). Without
//! them the test fails with a message saying so.

use std::process::Command;

#[test]
fn textmate_grammar_tokenizes_every_data_set() {
    let repo = ad_tests::repo_dir();
    let test_dir = repo.join("editors/vscode/test");
    match Command::new("node").arg("--version").output() {
        Ok(o) if o.status.success() => {}
        _ => panic!(
            "this test needs node (apt-get install nodejs npm; scripts/test-all.sh installs it)"
        ),
    }
    assert!(
        test_dir.join("node_modules/vscode-textmate").is_dir()
            && test_dir.join("node_modules/vscode-oniguruma").is_dir(),
        "the grammar test needs its npm packages: run `npm ci` in {} (scripts/test-all.sh does)",
        test_dir.display()
    );
    let out = Command::new("node")
        .current_dir(&test_dir)
        .arg("grammar.test.mjs")
        .args(ad_tests::data_sets().iter().map(|set| &set.dir))
        .arg(repo.join("examples"))
        .output()
        .expect("running node");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    println!("{stdout}");
    assert!(
        out.status.success(),
        "grammar test failed:\n{stdout}\n{stderr}"
    );
    assert!(stdout.contains("grammar ok"), "{stdout}");
}
