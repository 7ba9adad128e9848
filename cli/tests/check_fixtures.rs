//! `ad check` on every fixture in `tests/fixtures/check/`:
//!
//! * `ADxxx-<slug>.ad` must report `ADxxx` (and may report more); `clean-<slug>.ad` must report
//!   nothing at all, even with `--deny-warnings`. A fixture is checked with the extra arguments
//!   of `<name>.args` beside it, when there is one (e.g. a lower `--max-file-size` for AD006).
//! * The human output of each fixture is an insta snapshot (`snapshots/check_fixtures__<name>.snap`);
//!   it is the product's UI, so review every change to it.
//! * Every code in `ad_compiler::all_codes()` needs a fixture and a `### ADxxx` entry in
//!   `docs/diagnostics.md`, and every example in that document must do what it says: the example
//!   reports its code (with the documented "rejected by agent-device" verdict) and the fixed
//!   example reports neither the code nor any error or warning.

mod common;

use std::collections::BTreeSet;

use common::*;
use serde_json::Value;

/// `AD101-unknown-command.ad` → `Some("AD101")`.
fn code_of(name: &str) -> Option<&str> {
    let code = name.split('-').next()?;
    (code.len() == 5 && code.starts_with("AD") && code[2..].bytes().all(|b| b.is_ascii_digit()))
        .then_some(code)
}

fn known_codes() -> BTreeSet<&'static str> {
    ad_compiler::all_codes().iter().map(|(c, _)| *c).collect()
}

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
    ad_compiler::codes::get(code).is_some_and(|c| c.run_gate())
}

/// `ad run FILE` in `dir` with a scratch artifacts folder: (exit code, stderr).
fn run_gate(dir: &std::path::Path, file: &str) -> (i32, String) {
    let art = scratch_dir("gate-artifacts");
    let art = art.to_string_lossy().into_owned();
    let out = run_in(dir, &["run", "-q", file, "--artifacts-dir", &art], None);
    (exit_code(&out), stderr(&out))
}

/// The extra `ad check` arguments of a fixture (`<stem>.args`, whitespace-separated).
fn fixture_args(name: &str) -> Vec<String> {
    let path = fixtures_dir().join(format!("{}.args", name.trim_end_matches(".ad")));
    std::fs::read_to_string(path)
        .map(|s| s.split_whitespace().map(str::to_string).collect())
        .unwrap_or_default()
}

/// `ad check <args of the fixture> <more…> name` from the fixtures folder.
fn check_fixture(name: &str, more: &[&str]) -> std::process::Output {
    let extra = fixture_args(name);
    let mut args = vec!["check"];
    args.extend(extra.iter().map(String::as_str));
    args.extend_from_slice(more);
    args.push(name);
    run_fixtures(&args)
}

fn codes_in(diagnostics: &[Value]) -> Vec<String> {
    diagnostics
        .iter()
        .map(|d| d["code"].as_str().unwrap_or("?").to_string())
        .collect()
}

#[test]
fn fixtures_report_their_code_and_clean_fixtures_report_nothing() {
    let known = known_codes();
    let names = fixture_names();
    assert!(
        names.len() > known.len(),
        "expected at least one fixture per code"
    );
    let mut problems = Vec::new();
    for name in &names {
        if let Some(code) = code_of(name).filter(|c| is_run_gate_code(c)) {
            let (exit, err) = run_gate(&fixtures_dir(), name);
            if exit != 2 || !err.contains(&format!("[{code}]")) {
                problems.push(format!(
                    "{name}: `ad run` should refuse with {code} (exit {exit}):\n{err}"
                ));
            }
            continue;
        }
        let out = check_fixture(name, &["--format", "json"]);
        let diagnostics = json_diagnostics(&out);
        let codes = codes_in(&diagnostics);
        let has_error = diagnostics.iter().any(|d| d["severity"] == "error");
        if exit_code(&out) != i32::from(has_error) {
            problems.push(format!(
                "{name}: exit code {} but errors present = {has_error}",
                exit_code(&out)
            ));
        }
        if let Some(code) = code_of(name) {
            if !known.contains(code) {
                problems.push(format!(
                    "{name}: {code} is not a code in ad_compiler::all_codes()"
                ));
            } else if !codes.iter().any(|c| c == code) {
                problems.push(format!("{name}: expected {code}, got {codes:?}"));
            }
        } else if name.starts_with("clean-") {
            if !codes.is_empty() {
                problems.push(format!("{name}: expected no diagnostics, got {codes:?}"));
            }
            let strict = check_fixture(name, &["--deny-warnings"]);
            if exit_code(&strict) != 0 {
                problems.push(format!(
                    "{name}: --deny-warnings exits {}",
                    exit_code(&strict)
                ));
            }
        } else {
            problems.push(format!(
                "{name}: fixture names start with a code (AD101-…) or `clean-`"
            ));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn human_output_of_every_fixture() {
    for name in fixture_names() {
        if let Some(code) = code_of(&name).filter(|c| is_run_gate_code(c)) {
            let (exit, err) = run_gate(&fixtures_dir(), &name);
            assert!(err.contains(&format!("[{code}]")), "{name}:\n{err}");
            let snapshot = format!("$ ad run {name}\nexit code: {exit}\n\n{}", visible(&err));
            insta::assert_snapshot!(name.trim_end_matches(".ad"), snapshot);
            continue;
        }
        let out = check_fixture(&name, &[]);
        let text = stdout(&out);
        if let Some(code) = code_of(&name) {
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
        assert!(
            !text.contains('\u{1b}'),
            "{name}: colour codes with NO_COLOR set and no terminal"
        );
        let args: String = fixture_args(&name)
            .iter()
            .map(|a| a.clone() + " ")
            .collect();
        let snapshot = format!(
            "$ ad check {args}{name}\nexit code: {}\n\n{}",
            exit_code(&out),
            visible(&text)
        );
        let stem = name.trim_end_matches(".ad");
        insta::assert_snapshot!(stem, snapshot);
    }
}

#[test]
fn every_code_has_a_fixture_and_a_docs_entry() {
    let names = fixture_names();
    let docs_path = repo_root().join("docs/diagnostics.md");
    let docs = std::fs::read_to_string(&docs_path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", docs_path.display()));
    let headings: BTreeSet<&str> = docs
        .lines()
        .filter_map(|l| l.strip_prefix("### "))
        .filter_map(|h| h.split_whitespace().next())
        .collect();
    let mut missing = Vec::new();
    for (code, title) in ad_compiler::all_codes() {
        if !names.iter().any(|n| code_of(n) == Some(code)) {
            missing.push(format!(
                "{code} ({title}): no fixture tests/fixtures/check/{code}-<slug>.ad"
            ));
        }
        if !headings.contains(code) {
            missing.push(format!(
                "{code} ({title}): no `### {code} — {title}` entry in docs/diagnostics.md"
            ));
        }
    }
    let known = known_codes();
    for h in &headings {
        if h.starts_with("AD") && !known.contains(h) {
            missing.push(format!(
                "docs/diagnostics.md documents {h}, which no rule reports any more"
            ));
        }
    }
    assert!(missing.is_empty(), "{}", missing.join("\n"));
}

/// One `### ADxxx` section of docs/diagnostics.md.
struct DocEntry {
    code: String,
    /// The heading's title, after `### ADxxx — `.
    title: String,
    /// The `**Severity:**` line, without its label.
    severity: Option<String>,
    /// `yes`, `no` or `depends`, from the `**Rejected by agent-device 0.21.5:**` line.
    rejected: Option<String>,
    /// The ```ad blocks, in order: the example, then the fix.
    blocks: Vec<String>,
    /// Extra `ad check` arguments, from a `<!-- check-args: … -->` line in the section.
    args: Vec<String>,
}

fn doc_entries(docs: &str) -> Vec<DocEntry> {
    let mut entries: Vec<DocEntry> = Vec::new();
    let mut block: Option<String> = None;
    for line in docs.lines() {
        if let Some(b) = block.as_mut() {
            if line.trim_start() == "```" {
                let text = block.take().unwrap_or_default();
                if let Some(e) = entries.last_mut() {
                    e.blocks.push(text);
                }
            } else {
                b.push_str(line);
                b.push('\n');
            }
            continue;
        }
        if let Some(h) = line.strip_prefix("### AD") {
            let (code, title) = h.split_once(" — ").unwrap_or((h, ""));
            entries.push(DocEntry {
                code: format!("AD{code}"),
                title: title.to_string(),
                severity: None,
                rejected: None,
                blocks: Vec::new(),
                args: Vec::new(),
            });
        } else if line.starts_with("## ") {
            // A new chapter ends the current code's section.
            entries.push(DocEntry {
                code: String::new(),
                title: String::new(),
                severity: None,
                rejected: None,
                blocks: Vec::new(),
                args: Vec::new(),
            });
        } else if let Some(rest) = line.strip_prefix("**Severity:**") {
            if let Some(e) = entries.last_mut() {
                e.severity = Some(rest.trim().to_string());
            }
        } else if let Some(rest) = line.strip_prefix("**Rejected by agent-device 0.21.5:**") {
            if let Some(e) = entries.last_mut() {
                e.rejected = rest.split_whitespace().next().map(str::to_string);
            }
        } else if let Some(rest) = line
            .strip_prefix("<!-- check-args:")
            .and_then(|r| r.strip_suffix("-->"))
        {
            if let Some(e) = entries.last_mut() {
                e.args = rest.split_whitespace().map(str::to_string).collect();
            }
        } else if line.trim_start() == "```ad" {
            block = Some(String::new());
        }
    }
    entries.retain(|e| !e.code.is_empty());
    entries
}

/// Each docs entry states what the code table declares: the title, the default severity, whether
/// agent-device rejects it and whether `--fix` corrects it.
#[test]
fn docs_entries_match_the_code_table() {
    use ad_compiler::codes::{Rejected, TABLE};
    let docs = std::fs::read_to_string(repo_root().join("docs/diagnostics.md"))
        .expect("docs/diagnostics.md exists");
    let entries = doc_entries(&docs);
    let mut problems = Vec::new();
    for c in TABLE {
        let Some(e) = entries.iter().find(|e| e.code == c.id) else {
            problems.push(format!("{}: no docs entry", c.id));
            continue;
        };
        if e.title != c.title {
            problems.push(format!(
                "{}: docs title {:?}, table {:?}",
                c.id, e.title, c.title
            ));
        }
        let severity = e.severity.as_deref().unwrap_or("");
        let first = severity.split(|ch: char| !ch.is_ascii_alphabetic()).next();
        if first != Some(c.severity.as_str()) {
            problems.push(format!(
                "{}: docs **Severity:** {severity:?}, table {}",
                c.id,
                c.severity.as_str()
            ));
        }
        if severity.contains("--fix") != c.has_fix() {
            problems.push(format!(
                "{}: docs **Severity:** line and table disagree on `--fix` (table: {})",
                c.id,
                c.has_fix()
            ));
        }
        let rejected = match c.rejected {
            Rejected::Always => "yes",
            Rejected::Never => "no",
            Rejected::Sometimes => "depends",
        };
        if e.rejected.as_deref() != Some(rejected) {
            problems.push(format!(
                "{}: docs say rejected {:?}, table {rejected}",
                c.id, e.rejected
            ));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// The table's "has a fix" is what the fixtures show: a code without it never offers a fix, and a
/// code with it offers one on at least one fixture.
#[test]
fn fixes_match_the_code_table() {
    let dir = repo_root().join("tests/fixtures/check");
    let got = json_diagnostics(&run_in(&dir, &["check", "--format", "json", "."], None));
    let fixed: BTreeSet<&str> = got
        .iter()
        .filter(|d| d.get("fix").is_some())
        .filter_map(|d| d["code"].as_str())
        .collect();
    let mut problems = Vec::new();
    for c in ad_compiler::codes::TABLE.iter().filter(|c| !c.run_gate()) {
        if c.has_fix() != fixed.contains(c.id) {
            problems.push(format!(
                "{}: the table says fix={}, the fixtures {} one",
                c.id,
                c.has_fix(),
                if fixed.contains(c.id) {
                    "offer"
                } else {
                    "never offer"
                }
            ));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// The table's "rejected by agent-device" is what the fixtures show: an `Always` code is always a
/// parity error, a `Never` code never is.
#[test]
fn parity_matches_the_code_table() {
    use ad_compiler::codes::{get, Rejected};
    let dir = repo_root().join("tests/fixtures/check");
    let got = json_diagnostics(&run_in(&dir, &["check", "--format", "json", "."], None));
    assert!(!got.is_empty(), "the fixtures report nothing");
    let mut problems = Vec::new();
    for d in &got {
        let code = d["code"].as_str().unwrap_or("?");
        let rejects = d["agent_device_rejects"] == true;
        let ok = match get(code).map(|c| c.rejected) {
            Some(Rejected::Always) => rejects,
            Some(Rejected::Never) => !rejects,
            Some(Rejected::Sometimes) => true,
            None => false,
        };
        if !ok {
            problems.push(format!(
                "{code} in {}: agent_device_rejects={rejects}",
                d["path"]
            ));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// Docs show a NUL as ␀, a lone carriage return as ␍ and a byte that is not UTF-8 as `⟨e9⟩`;
/// the scripts contain the real bytes.
fn script_from_docs(block: &str) -> Vec<u8> {
    let text = block.replace('␀', "\0").replace('␍', "\r");
    let mut bytes = Vec::with_capacity(text.len());
    let mut rest = text.as_str();
    while let Some(at) = rest.find('⟨') {
        bytes.extend_from_slice(&rest.as_bytes()[..at]);
        let after = &rest[at + '⟨'.len_utf8()..];
        let byte = after
            .split_once('⟩')
            .and_then(|(hex, _)| u8::from_str_radix(hex, 16).ok());
        match byte {
            Some(b) => {
                bytes.push(b);
                rest = &after[after.find('⟩').unwrap_or(0) + '⟩'.len_utf8()..];
            }
            None => {
                bytes.extend_from_slice("⟨".as_bytes());
                rest = after;
            }
        }
    }
    bytes.extend_from_slice(rest.as_bytes());
    bytes
}

#[test]
fn docs_examples_report_their_code_and_their_fixes_are_clean() {
    let docs = std::fs::read_to_string(repo_root().join("docs/diagnostics.md"))
        .expect("docs/diagnostics.md exists");
    let entries = doc_entries(&docs);
    let dir = scratch_dir("docs");
    let mut problems = Vec::new();
    let codes = ad_compiler::all_codes();
    if entries.len() != codes.len() {
        problems.push(format!(
            "{} docs entries for {} codes (see every_code_has_a_fixture_and_a_docs_entry)",
            entries.len(),
            codes.len()
        ));
    }
    for e in &entries {
        let code = e.code.as_str();
        let [example, fix] = e.blocks.as_slice() else {
            problems.push(format!(
                "{code}: expected two ```ad blocks (example, fix), found {}",
                e.blocks.len()
            ));
            continue;
        };
        let path = dir.join(format!("{code}-example.ad"));
        std::fs::write(&path, script_from_docs(example)).expect("scratch file");
        if is_run_gate_code(code) {
            let (_, err) = run_gate(&dir, &format!("{code}-example.ad"));
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
            continue;
        }
        let check = |file: String| {
            let mut args = vec!["check".to_string(), "--format".into(), "json".into()];
            args.extend(e.args.iter().cloned());
            args.push(file);
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            json_diagnostics(&run_in(&dir, &args, None))
        };
        let got = check(format!("{code}-example.ad"));
        let ours: Vec<&Value> = got.iter().filter(|d| d["code"] == code).collect();
        if ours.is_empty() {
            problems.push(format!(
                "{code}: the example does not report {code} (got {:?})",
                codes_in(&got)
            ));
        }
        match e.rejected.as_deref() {
            Some(verdict @ ("yes" | "no")) => {
                let want = verdict == "yes";
                if ours.iter().any(|d| d["agent_device_rejects"] != want) {
                    problems.push(format!(
                        "{code}: docs say rejected = {verdict}, ad check says otherwise"
                    ));
                }
            }
            Some("depends") => {}
            other => problems.push(format!(
                "{code}: missing `**Rejected by agent-device 0.21.5:** yes|no|depends` (got {other:?})"
            )),
        }
        let path = dir.join(format!("{code}-fix.ad"));
        std::fs::write(&path, script_from_docs(fix)).expect("scratch file");
        let got = check(format!("{code}-fix.ad"));
        // Infos may remain (e.g. a variable that must be passed with -e); nothing else may.
        let left: Vec<&Value> = got
            .iter()
            .filter(|d| d["code"] == code || d["severity"] != "info")
            .collect();
        if !left.is_empty() {
            problems.push(format!(
                "{code}: the fixed example still reports {:?}",
                left.iter()
                    .map(|d| d["code"].as_str().unwrap_or("?"))
                    .collect::<Vec<_>>()
            ));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
