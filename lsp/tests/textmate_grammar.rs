//! The VS Code extension's TextMate grammar, run by VS Code's own engine (`vscode-textmate` +
//! `vscode-oniguruma` from npm) over every corpus script and the examples: every line
//! tokenizes; commands, selectors, variables and annotations get their scopes.
//!
//! Needs `node` and `npm ci` in editors/vscode/test (scripts/test-all.sh does both). Without
//! them the test fails with a message saying so.

use std::path::{Path, PathBuf};
use std::process::Command;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn corpus() -> PathBuf {
    match std::env::var_os("AD_SHARED_DIR") {
        Some(d) if !d.is_empty() => PathBuf::from(d).join("corpus"),
        _ => repo().join("../shared/corpus"),
    }
}

#[test]
fn textmate_grammar_tokenizes_the_corpus() {
    let test_dir = repo().join("editors/vscode/test");
    match Command::new("node").arg("--version").output() {
        Ok(o) if o.status.success() => {}
        _ => panic!(
            "this test needs node (apt-get install nodejs npm; scripts/test-all.sh checks for it)"
        ),
    }
    assert!(
        test_dir.join("node_modules/vscode-textmate").is_dir()
            && test_dir.join("node_modules/vscode-oniguruma").is_dir(),
        "the grammar test needs its npm packages: run `npm ci` in {} (scripts/test-all.sh does)",
        test_dir.display()
    );
    let corpus = corpus();
    assert!(
        corpus.is_dir(),
        "{} not found: set AD_SHARED_DIR to the shared/ folder",
        corpus.display()
    );
    let out = Command::new("node")
        .current_dir(&test_dir)
        .arg("grammar.test.mjs")
        .arg(&corpus)
        .arg(repo().join("examples"))
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
