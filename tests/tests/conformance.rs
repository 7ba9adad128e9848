//! Conformance: every `shared/corpus/*.ad` against the oracle output checked in beside it
//! (`shared/corpus/expected/<name>.json`). No node needed. Must match exactly: `ok`, metadata or
//! metadataError, parse or parseError (messages and details included), planDigest.

use std::path::PathBuf;

use ad_tests::{compare_exact, corpus_dir, ours_catching};
use serde_json::Value;

const CORPUS_FILES: usize = 64;

#[test]
fn corpus_matches_agent_device_0_21_5() {
    let dir = corpus_dir();
    let expected_dir = dir.join("expected");
    assert!(
        expected_dir.is_dir(),
        "the oracle outputs are missing: expected {}",
        expected_dir.display()
    );
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("cannot list {}: {e}", dir.display()))
        .map(|e| e.expect("a directory entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "ad") && p.is_file())
        .collect();
    files.sort();

    let mut problems = Vec::new();
    for file in &files {
        let name = file
            .file_name()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned();
        let stem = file
            .file_stem()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned();
        let bytes = std::fs::read(file).unwrap_or_else(|e| panic!("cannot read {name}: {e}"));
        // The oracle reads files with Node's lossy UTF-8 decoding.
        let text = String::from_utf8_lossy(&bytes);
        let expected_path = expected_dir.join(format!("{stem}.json"));
        let expected: Value = match std::fs::read_to_string(&expected_path) {
            Ok(s) => match serde_json::from_str(&s) {
                Ok(v) => v,
                Err(e) => {
                    problems.push(format!("{name}: expected/{stem}.json is not JSON: {e}"));
                    continue;
                }
            },
            Err(e) => {
                problems.push(format!("{name}: cannot read expected/{stem}.json: {e}"));
                continue;
            }
        };
        let ours = match ours_catching(&text) {
            Ok(v) => v,
            Err(e) => {
                problems.push(format!("{name}: {e}"));
                continue;
            }
        };
        if let Err(diff) = compare_exact(&ours, &expected) {
            let diff = diff
                .lines()
                .map(|l| format!("    {l}"))
                .collect::<Vec<_>>()
                .join("\n");
            problems.push(format!("{name}:\n{diff}"));
        }
    }
    if files.len() != CORPUS_FILES {
        problems.push(format!(
            "expected {CORPUS_FILES} corpus files in {}, found {}",
            dir.display(),
            files.len()
        ));
    }
    println!(
        "conformance: {} corpus files, {} problem(s)",
        files.len(),
        problems.len()
    );
    assert!(
        problems.is_empty(),
        "{} corpus problem(s):\n{}",
        problems.len(),
        problems.join("\n")
    );
}
