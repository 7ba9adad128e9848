//! `ad fmt` never changes what a script does, and is idempotent.
//!
//! - The data sets' scripts (tests/conformance, tests/fixtures/check, and ../shared/corpus when
//!   present) and generated scripts: for every script agent-device accepts, our view of the
//!   formatted text (metadata, actions, action lines, plan digest) equals the original's;
//!   rejected scripts keep their rejected lines byte for byte; fmt(fmt(x)) == fmt(x).
//! - The same claim checked against agent-device 0.21.5 itself: the oracle's parse of the
//!   formatted data set scripts and of a sample of formatted generated scripts equals its parse
//!   of the originals.
//! - Before/after snapshots of the fixtures in tests/fixtures/fmt.

use std::path::PathBuf;

use ad_compiler::format::format;
use ad_tests::{compare_exact, data_sets, gen, normalize, ours, run_oracle};
use serde_json::Value;

/// Every script of every data set (the repository's own, plus the public corpus when present).
fn scripts() -> Vec<(String, String)> {
    data_sets().iter().flat_map(|set| set.texts()).collect()
}

fn generated(n: u64) -> Vec<(String, String)> {
    (0..n)
        .map(|i| (format!("generated-{i}"), gen::script(0xF0F0, i)))
        .collect()
}

/// The checks that need no oracle; returns the formatted text.
fn check_one(name: &str, text: &str, failures: &mut Vec<String>) -> String {
    let before = ours(text);
    let f = format(text);
    let after = ours(&f.output);
    let accepted = before["ok"] == Value::Bool(true);
    if accepted {
        if let Err(e) = compare_exact(&normalize(after.clone()), &normalize(before.clone())) {
            failures.push(format!(
                "{name}: meaning changed: {e}\n--- input\n{text}\n--- output\n{}",
                f.output
            ));
        }
    } else if after["ok"] == Value::Bool(true) {
        failures.push(format!(
            "{name}: a rejected script became accepted\n--- input\n{text}\n--- output\n{}",
            f.output
        ));
    }
    let twice = format(&f.output).output;
    if twice != f.output {
        failures.push(format!(
            "{name}: not idempotent\n--- once\n{}\n--- twice\n{twice}",
            f.output
        ));
    }
    let in_lines = text.split('\n').count() - usize::from(text.ends_with('\n'));
    let out_lines = f.output.split('\n').count() - 1;
    if f.output != text && in_lines.max(1) != out_lines {
        failures.push(format!(
            "{name}: line count changed {in_lines} → {out_lines}"
        ));
    }
    for &line in &f.kept_lines {
        // The original line without its terminator (`\r\n` becomes `\n`).
        let raw = text.split('\n').nth(line).unwrap_or("");
        let raw = if text.split('\n').count() > line + 1 {
            raw.strip_suffix('\r').unwrap_or(raw)
        } else {
            raw
        };
        let original = raw.trim_end_matches(ad_grammar::text::is_js_whitespace);
        let printed = f.output.split('\n').nth(line).unwrap_or("");
        if original != printed {
            failures.push(format!(
                "{name}: kept line {} was altered: {original:?} → {printed:?}",
                line + 1
            ));
        }
    }
    f.output
}

#[test]
fn fmt_preserves_meaning_on_data_sets_and_generated_scripts() {
    let cases: Vec<(String, String)> = scripts().into_iter().chain(generated(3000)).collect();
    let mut failures = Vec::new();
    let mut changed = 0;
    for (name, text) in &cases {
        let out = check_one(name, text, &mut failures);
        changed += usize::from(&out != text);
    }
    println!(
        "fmt: {} scripts, {changed} reformatted, {} failures",
        cases.len(),
        failures.len()
    );
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures
            .iter()
            .take(10)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n\n")
    );
}

#[test]
fn fmt_preserves_meaning_for_agent_device_itself() {
    let dir = std::env::temp_dir().join(format!("ad-fmt-oracle-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let cases: Vec<(String, String)> = scripts().into_iter().chain(generated(400)).collect();
    let mut originals = Vec::new();
    let mut formatted = Vec::new();
    for (i, (_, text)) in cases.iter().enumerate() {
        let a = dir.join(format!("{i}.ad"));
        let b = dir.join(format!("{i}.fmt.ad"));
        std::fs::write(&a, text).unwrap();
        std::fs::write(&b, format(text).output).unwrap();
        originals.push(a);
        formatted.push(b);
    }
    let before = run_oracle(&originals, 2);
    let after = run_oracle(&formatted, 2);
    let mut failures = Vec::new();
    let mut accepted = 0;
    for ((name, _), (b, a)) in cases.iter().zip(before.into_iter().zip(after)) {
        if b["ok"] != Value::Bool(true) {
            continue;
        }
        accepted += 1;
        if let Err(e) = compare_exact(&normalize(a), &normalize(b)) {
            failures.push(format!("{name}: {e}"));
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    println!(
        "fmt vs agent-device: {accepted} accepted scripts formatted, {} changed meaning",
        failures.len()
    );
    assert!(
        accepted > 100,
        "too few accepted scripts to prove anything: {accepted}"
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn fmt_fixture_snapshots() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/fmt");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .collect();
    files.sort();
    assert!(!files.is_empty());
    for path in files {
        let text = std::fs::read_to_string(&path).unwrap();
        let f = format(&text);
        let name = path.file_stem().unwrap().to_string_lossy().into_owned();
        let errors: Vec<String> = f
            .errors
            .iter()
            .map(|d| format!("{} {}", d.code, d.message))
            .collect();
        insta::assert_snapshot!(
            format!("fmt-{name}"),
            format!(
                "--- before\n{text}\n--- after\n{}\n--- parity errors\n{}",
                f.output,
                errors.join("\n")
            )
        );
    }
}
