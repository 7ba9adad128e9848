//! How `ad check` renders every fixture in `tests/fixtures/check/`: the human output of each is an
//! insta snapshot (`snapshots/check_fixtures__<name>.snap`); it is the product's UI, so review
//! every change to it. What each fixture reports (codes, spans, severities, fixes) and the docs
//! entries are the compiler's tests (`compiler/tests/fixtures.rs`); here the binary renders them.
//!
//! Codes of the run gate (`ad run`, `ad test`) are reported by `ad run` alone, so their fixtures
//! and docs examples are run through it here.

mod common;

use ad_tests::diagnostics_docs::{doc_entries, script_from_docs};
use ad_tests::{check_fixture_args, check_fixture_names, fixture_code};
use common::*;

/// Control characters (a NUL, a lone CR) made visible so snapshot files stay plain text.
fn visible(text: &str) -> String {
    text.chars()
        .map(|c| match c {
            '\n' | '\t' => c,
            c if (c as u32) < 0x20 => char::from_u32(0x2400 + c as u32).unwrap_or(c),
            '\u{7f}' => '\u{2421}',
            c => c,
        })
        .collect()
}

/// Codes the run gate reports: their fixtures and docs examples go through `ad run`.
fn is_run_gate_code(code: &str) -> bool {
    ad_compiler::codes::Code::from_id(code).is_some_and(|c| c.run_gate())
}

/// `ad run FILE` in `dir` with a scratch artifacts folder: (exit code, stderr).
fn run_gate(dir: &std::path::Path, file: &str) -> (i32, String) {
    let art = scratch_dir("gate-artifacts");
    let art = art.to_string_lossy().into_owned();
    let out = run_in(dir, &["run", "-q", file, "--artifacts-dir", &art], None);
    (exit_code(&out), stderr(&out))
}

#[test]
fn human_output_of_every_fixture() {
    for name in check_fixture_names() {
        if let Some(code) = fixture_code(&name).filter(|c| is_run_gate_code(c)) {
            let (exit, err) = run_gate(&fixtures_dir(), &name);
            assert!(
                exit == 2 && err.contains(&format!("[{code}]")),
                "{name}: `ad run` should refuse with {code} (exit {exit}):\n{err}"
            );
            let snapshot = format!("$ ad run {name}\nexit code: {exit}\n\n{}", visible(&err));
            insta::assert_snapshot!(name.trim_end_matches(".ad"), snapshot);
            continue;
        }
        let extra = check_fixture_args(&name);
        let mut args = vec!["check"];
        args.extend(extra.iter().map(String::as_str));
        args.push(&name);
        let out = run_fixtures(&args);
        let text = stdout(&out);
        if let Some(code) = fixture_code(&name) {
            assert!(
                text.contains(&format!("[{code}]")),
                "{name}: the human report does not show [{code}]:\n{text}"
            );
        } else {
            assert!(
                text.ends_with("all clear\n"),
                "{name}: a clean script should end with `all clear`:\n{text}"
            );
        }
        // The exit code says whether errors were shown.
        assert_eq!(
            exit_code(&out),
            i32::from(text.contains("] Error:")),
            "{name}:\n{text}"
        );
        assert!(
            !text.contains('\u{1b}'),
            "{name}: colour codes with NO_COLOR set and no terminal"
        );
        let args: String = extra.iter().map(|a| a.clone() + " ").collect();
        let snapshot = format!(
            "$ ad check {args}{name}\nexit code: {}\n\n{}",
            exit_code(&out),
            visible(&text)
        );
        insta::assert_snapshot!(name.trim_end_matches(".ad"), snapshot);
    }
}

/// A clean fixture passes `--deny-warnings` too: nothing at all is reported.
#[test]
fn clean_fixtures_pass_deny_warnings() {
    for name in check_fixture_names()
        .into_iter()
        .filter(|n| n.starts_with("clean-"))
    {
        let out = run_fixtures(&["check", "--deny-warnings", &name]);
        assert_eq!(exit_code(&out), 0, "{name}:\n{}", stdout(&out));
    }
}

/// The docs example of a run-gate code is refused by `ad run` with it; its fix is not refused.
#[test]
fn run_gate_docs_examples() {
    let dir = scratch_dir("docs");
    let mut problems = Vec::new();
    for e in doc_entries().iter().filter(|e| is_run_gate_code(&e.code)) {
        let code = e.code.as_str();
        let [example, fix] = e.blocks.as_slice() else {
            problems.push(format!(
                "{code}: expected two ```ad blocks (example, fix), found {}",
                e.blocks.len()
            ));
            continue;
        };
        let example_file = format!("{code}-example.ad");
        std::fs::write(dir.join(&example_file), script_from_docs(example)).expect("scratch file");
        let (_, err) = run_gate(&dir, &example_file);
        if !err.contains(&format!("[{code}]")) {
            problems.push(format!(
                "{code}: `ad run` of the example does not report it:\n{err}"
            ));
        }
        let fixed = format!("{code}-fix.ad");
        std::fs::write(dir.join(&fixed), script_from_docs(fix)).expect("scratch file");
        let (_, err) = run_gate(&dir, &fixed);
        if err.contains(&format!("[{code}]")) || err.contains("nothing was run") {
            problems.push(format!(
                "{code}: `ad run` of the fixed example is refused:\n{err}"
            ));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
