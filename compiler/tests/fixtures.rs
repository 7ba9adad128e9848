//! Every fixture in `tests/fixtures/check/`, checked in process as `ad check` checks a file:
//!
//! * `ADxxx-<slug>.ad` must report `ADxxx` (and may report more); `clean-<slug>.ad` must report
//!   no error or warning at all. A fixture is checked with the extra arguments of `<name>.args`
//!   beside it, when there is one (e.g. a lower `--max-file-size` for AD006).
//! * What each fixture reports (code, severity, position, labels, help, agent-device's verdict,
//!   fix) is an insta snapshot (`snapshots/fixtures__<name>.snap`); how the CLI renders it is
//!   `cli/tests/check_fixtures.rs`'s.
//! * Every code in `ad_compiler::all_codes()` needs a fixture and a `### ADxxx` entry in
//!   `docs/diagnostics.md` that states what the code table declares, and every example in that
//!   document does what it says: the example reports its code (with the documented "rejected by
//!   agent-device" verdict) and the fixed example reports neither the code nor any error or
//!   warning.
//!
//! Codes of the run gate (`ad run`, `ad test`: they depend on the run's variables) are never
//! reported here; the CLI's tests run their fixtures and examples through `ad run`.

use std::collections::BTreeSet;
use std::fmt::Write as _;

use ad_compiler::check_file;
use ad_compiler::codes::{Code, Rejected, TABLE};
use ad_compiler::config::Config;
use ad_compiler::{Diagnostic, Severity};
use ad_tests::diagnostics_docs::{doc_entries, read_docs, script_from_docs};
use ad_tests::{check_fixture_args, check_fixture_names, check_fixtures, fixture_code};

/// A file as `ad check` sees it: the text it read and what it reports.
struct Checked {
    text: String,
    diagnostics: Vec<Diagnostic>,
}

/// `--max-file-size N`, the only `ad check` argument fixtures and docs examples use.
fn limit_of(args: &[String]) -> Option<u64> {
    match args {
        [] => None,
        [flag, n] if flag == "--max-file-size" => Some(n.parse().expect("a byte count")),
        other => panic!("check arguments this test does not know: {other:?}"),
    }
}

/// What `ad check ARGS NAME` reports for a file of `bytes` under `config`, in the order it
/// reports them: the library entry `ad check` checks a file with (cap, decode, analyse, add the
/// read-time findings), without the terminal.
fn check_bytes(name: &str, bytes: Vec<u8>, args: &[String], config: &Config) -> Checked {
    let options = check_file::Options {
        max_file_size: limit_of(args),
        ..check_file::Options::default()
    };
    let mut check = check_file::check_bytes(None, name, bytes, config.clone(), &options);
    let diagnostics = check.take_diagnostics();
    let text = match check.checked {
        check_file::Checked::Plain(analysis) => analysis.into_parse().file.text,
        check_file::Checked::NotRead | check_file::Checked::Composed(_) => String::new(),
    };
    Checked { text, diagnostics }
}

/// A check fixture with its `.args` and the `ad.toml` that applies to it.
fn check_fixture(name: &str) -> Checked {
    let path = check_fixtures().dir.join(name);
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let config = Config::discover(&path).expect("the fixtures' ad.toml (if any) reads");
    check_bytes(name, bytes, &check_fixture_args(name), &config)
}

fn is_run_gate_code(code: &str) -> bool {
    Code::from_id(code).is_some_and(|c| c.run_gate())
}

/// Codes of compositions (several files): `compiler/tests/compose.rs` checks their fixtures
/// (`tests/fixtures/compose/`) and that each has a docs entry.
fn is_composition_code(code: &str) -> bool {
    Code::from_id(code).is_some_and(|c| c.composition())
}

/// Codes of Maestro flows (`ad check --maestro`): `maestro/tests/` checks their fixtures
/// (`tests/fixtures/maestro/`) and their docs examples.
fn is_maestro_code(code: &str) -> bool {
    Code::from_id(code).is_some_and(|c| c.maestro())
}

fn known_codes() -> BTreeSet<&'static str> {
    ad_compiler::all_codes().iter().map(|(c, _)| *c).collect()
}

fn codes_in(diagnostics: &[Diagnostic]) -> Vec<&'static str> {
    diagnostics.iter().map(|d| d.code.id()).collect()
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

/// The facts of each diagnostic, one block each, with 1-based `line:column` positions.
fn facts(checked: &Checked) -> String {
    let text = &checked.text;
    let index = ad_grammar::LineIndex::new(text);
    let at = |offset: usize| {
        let (l, c) = index.line_col(text, offset);
        format!("{l}:{c}")
    };
    let mut out = String::new();
    for d in &checked.diagnostics {
        let span = d.primary_span();
        let _ = writeln!(
            out,
            "{} {} {}-{}: {}",
            d.code,
            d.severity.as_str(),
            at(span.start()),
            at(span.end()),
            visible(&d.message)
        );
        for l in d.labels.iter().filter(|l| !l.message.is_empty()) {
            let kind = if l.primary { "label" } else { "secondary" };
            let _ = writeln!(
                out,
                "  {kind} {}-{}: {}",
                at(l.span.start()),
                at(l.span.end()),
                visible(&l.message)
            );
        }
        if let Some(h) = &d.help {
            let _ = writeln!(out, "  help: {}", visible(h));
        }
        if let Some(r) = &d.rejection {
            let _ = writeln!(out, "  agent-device rejects: {}", visible(&r.message));
        }
        if let Some(fix) = &d.fix {
            let _ = writeln!(out, "  fix: {}", visible(&fix.title));
            for e in &fix.edits {
                let _ = writeln!(
                    out,
                    "    {}-{} → {:?}",
                    at(e.span.start()),
                    at(e.span.end()),
                    e.replacement
                );
            }
        }
    }
    if out.is_empty() {
        out.push_str("(nothing reported)\n");
    }
    out
}

#[test]
fn fixtures_report_their_code_and_clean_fixtures_report_nothing() {
    let known = known_codes();
    let names = check_fixture_names();
    let maestro = known.iter().filter(|c| is_maestro_code(c)).count();
    assert!(
        names.len() > known.len() - maestro,
        "expected at least one fixture per code"
    );
    let mut problems = Vec::new();
    for name in &names {
        if fixture_code(name)
            .is_some_and(|c| is_run_gate_code(c) || is_composition_code(c) || is_maestro_code(c))
        {
            continue;
        }
        let got = codes_in(&check_fixture(name).diagnostics);
        if let Some(code) = fixture_code(name) {
            if !known.contains(code) {
                problems.push(format!(
                    "{name}: {code} is not a code in ad_compiler::all_codes()"
                ));
            } else if !got.contains(&code) {
                problems.push(format!("{name}: expected {code}, got {got:?}"));
            }
        } else if name.starts_with("clean-") {
            if !got.is_empty() {
                problems.push(format!("{name}: expected no diagnostics, got {got:?}"));
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
fn what_every_fixture_reports() {
    for name in check_fixture_names() {
        if fixture_code(&name).is_some_and(is_run_gate_code) {
            continue;
        }
        let args: String = check_fixture_args(&name)
            .iter()
            .map(|a| a.clone() + " ")
            .collect();
        let snapshot = format!(
            "$ ad check {args}{name}\n\n{}",
            facts(&check_fixture(&name))
        );
        insta::assert_snapshot!(name.trim_end_matches(".ad"), snapshot);
    }
}

#[test]
fn every_code_has_a_fixture_and_a_docs_entry() {
    let names = check_fixture_names();
    let docs = read_docs();
    let headings: BTreeSet<&str> = docs
        .lines()
        .filter_map(|l| l.strip_prefix("### "))
        .filter_map(|h| h.split_whitespace().next())
        .collect();
    let mut missing = Vec::new();
    for (code, title) in ad_compiler::all_codes() {
        // A composition code's fixture is a folder of tests/fixtures/compose (tests/compose.rs).
        if !is_composition_code(code)
            && !is_maestro_code(code)
            && !names.iter().any(|n| fixture_code(n) == Some(code))
        {
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

/// The table's "has a fix" is what the fixtures show: a code without it never offers a fix, and a
/// code with it offers one on at least one fixture.
#[test]
fn fixes_match_the_code_table() {
    let fixed: BTreeSet<Code> = check_fixture_names()
        .iter()
        .flat_map(|n| check_fixture(n).diagnostics)
        .filter(|d| d.fix.is_some())
        .map(|d| d.code)
        .collect();
    let mut problems = Vec::new();
    for c in TABLE.iter().filter(|c| !c.run_gate() && !c.composition()) {
        if c.has_fix() != fixed.contains(c) {
            problems.push(format!(
                "{c}: the table says fix={}, the fixtures {} one",
                c.has_fix(),
                if fixed.contains(c) {
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
    let mut seen = 0;
    let mut problems = Vec::new();
    for name in check_fixture_names() {
        for d in check_fixture(&name).diagnostics {
            seen += 1;
            let rejects = d.is_parity_error();
            let ok = match d.code.rejected() {
                Rejected::Always => rejects,
                Rejected::Never => !rejects,
                Rejected::Sometimes => true,
            };
            if !ok {
                problems.push(format!(
                    "{} in {name}: agent_device_rejects={rejects}",
                    d.code
                ));
            }
        }
    }
    assert!(seen > 0, "the fixtures report nothing");
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// Each docs entry states what the code table declares: the title, the default severity, whether
/// agent-device rejects it and whether `--fix` corrects it.
#[test]
fn docs_entries_match_the_code_table() {
    let entries = doc_entries();
    let mut problems = Vec::new();
    for c in TABLE {
        let Some(e) = entries.iter().find(|e| e.code == c.id()) else {
            problems.push(format!("{c}: no docs entry"));
            continue;
        };
        if e.title != c.title() {
            problems.push(format!(
                "{}: docs title {:?}, table {:?}",
                c.id(),
                e.title,
                c.title()
            ));
        }
        let severity = e.severity.as_deref().unwrap_or("");
        let first = severity.split(|ch: char| !ch.is_ascii_alphabetic()).next();
        if first != Some(c.severity().as_str()) {
            problems.push(format!(
                "{}: docs **Severity:** {severity:?}, table {}",
                c.id(),
                c.severity().as_str()
            ));
        }
        if severity.contains("--fix") != c.has_fix() {
            problems.push(format!(
                "{}: docs **Severity:** line and table disagree on `--fix` (table: {})",
                c.id(),
                c.has_fix()
            ));
        }
        let rejected = match c.rejected() {
            Rejected::Always => "yes",
            Rejected::Never => "no",
            Rejected::Sometimes => "depends",
        };
        if e.rejected.as_deref() != Some(rejected) {
            problems.push(format!(
                "{}: docs say rejected {:?}, table {rejected}",
                c.id(),
                e.rejected
            ));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn docs_examples_report_their_code_and_their_fixes_are_clean() {
    let entries = doc_entries();
    let codes = ad_compiler::all_codes();
    let mut problems = Vec::new();
    if entries.len() != codes.len() {
        problems.push(format!(
            "{} docs entries for {} codes (see every_code_has_a_fixture_and_a_docs_entry)",
            entries.len(),
            codes.len()
        ));
    }
    // Examples are checked as files of a folder without an ad.toml.
    let config = Config::default();
    for e in entries.iter().filter(|e| {
        !is_run_gate_code(&e.code) && !is_composition_code(&e.code) && !is_maestro_code(&e.code)
    }) {
        let code = e.code.as_str();
        let [example, fix] = e.blocks.as_slice() else {
            problems.push(format!(
                "{code}: expected two ```ad blocks (example, fix), found {}",
                e.blocks.len()
            ));
            continue;
        };
        let name = format!("{code}-example.ad");
        let got = check_bytes(&name, script_from_docs(example), &e.args, &config).diagnostics;
        let ours: Vec<&Diagnostic> = got.iter().filter(|d| d.code.id() == code).collect();
        if ours.is_empty() {
            problems.push(format!(
                "{code}: the example does not report {code} (got {:?})",
                codes_in(&got)
            ));
        }
        match e.rejected.as_deref() {
            Some(verdict @ ("yes" | "no")) => {
                let want = verdict == "yes";
                if ours.iter().any(|d| d.is_parity_error() != want) {
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
        let name = format!("{code}-fix.ad");
        let got = check_bytes(&name, script_from_docs(fix), &e.args, &config).diagnostics;
        // Infos may remain (e.g. a variable that must be passed with -e); nothing else may.
        let left: Vec<&str> = got
            .iter()
            .filter(|d| d.code.id() == code || d.severity != Severity::Info)
            .map(|d| d.code.id())
            .collect();
        if !left.is_empty() {
            problems.push(format!("{code}: the fixed example still reports {left:?}"));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
