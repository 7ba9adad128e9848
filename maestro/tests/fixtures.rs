//! The Maestro fixtures (`tests/fixtures/maestro/ADxxx-<slug>.yaml`): each reports its code and
//! only codes of its kind, every refusal of agent-device's reader is flagged as one (and no
//! run-time finding is), and the docs entries' examples report their code while their fixes are
//! clean. The snapshots show every diagnostic of each fixture.

use std::path::Path;

use ad_grammar::codes::{self, Rejected};
use ad_grammar::LineIndex;
use ad_tests::diagnostics_docs::doc_entries;
use ad_tests::maestro::{fixtures_dir, flows_under};

fn check(path: &Path) -> (String, ad_maestro::Checked) {
    let text = std::fs::read_to_string(path).unwrap();
    let checked = ad_maestro::check(&text, Some(path), &|p: &Path| {
        std::fs::read_to_string(p).ok()
    });
    (text, checked)
}

fn maestro_codes() -> Vec<codes::Code> {
    codes::TABLE
        .iter()
        .copied()
        .filter(|c| c.maestro())
        .collect()
}

#[test]
fn every_maestro_code_has_a_fixture_that_reports_it() {
    let files = flows_under(&fixtures_dir());
    for c in maestro_codes() {
        let fixture = files
            .iter()
            .find(|f| {
                f.file_name()
                    .unwrap()
                    .to_string_lossy()
                    .starts_with(&format!("{}-", c.id()))
            })
            .unwrap_or_else(|| {
                panic!(
                    "{}: no fixture tests/fixtures/maestro/{}-<slug>.yaml",
                    c.id(),
                    c.id()
                )
            });
        let (_, checked) = check(fixture);
        assert!(
            checked.diagnostics.iter().any(|d| d.code == c),
            "{} does not report {}: {:?}",
            fixture.display(),
            c.id(),
            checked.diagnostics
        );
    }
}

#[test]
fn rejections_are_exactly_the_readers_codes() {
    for file in flows_under(&fixtures_dir()) {
        let (_, checked) = check(&file);
        let name = file.file_name().unwrap().to_string_lossy().into_owned();
        if name.starts_with("ok-") {
            assert!(
                checked.diagnostics.is_empty(),
                "{name}: {:?}",
                checked.diagnostics
            );
        }
        for d in &checked.diagnostics {
            assert!(d.code.maestro(), "{name}: {} is not a Maestro code", d.code);
            assert_eq!(
                d.is_parity_error(),
                d.code.rejected() == Rejected::Always,
                "{name}: {} agent_device_rejects",
                d.code
            );
        }
    }
}

/// Each fixture's diagnostics as `line:col code [rejects] message` lines, then agent-device's
/// first message.
#[test]
fn fixture_diagnostics_snapshots() {
    for file in flows_under(&fixtures_dir()) {
        let (text, checked) = check(&file);
        let index = LineIndex::new(&text);
        let mut out = String::new();
        for d in &checked.diagnostics {
            let (l, c) = index.line_col(&text, d.primary_span().start());
            out.push_str(&format!(
                "{l}:{c} {} {}{}\n",
                d.code,
                if d.is_parity_error() {
                    "[agent-device rejects] "
                } else {
                    ""
                },
                d.message
            ));
        }
        if let Some(first) = ad_maestro::first_rejection(&checked.diagnostics) {
            out.push_str(&format!(
                "agent-device: {}\n",
                first.rejection.as_ref().unwrap().message
            ));
        }
        let name = file.file_stem().unwrap().to_string_lossy().into_owned();
        insta::assert_snapshot!(name, out);
    }
}

#[test]
fn docs_examples_report_their_code_and_their_fixes_are_clean() {
    let entries = doc_entries();
    let dir = ad_tests::scratch_dir("maestro-docs");
    // The AD920/AD922/AD924 fixes name files beside the flow (AD925's example is flow.yaml).
    std::fs::write(dir.join("login.yaml"), "- back\n").unwrap();
    std::fs::write(dir.join("seed.js"), "output.x = 1\n").unwrap();
    // AD924's example includes a flow agent-device refuses.
    std::fs::create_dir_all(dir.join("subflows")).unwrap();
    std::fs::write(dir.join("subflows/refused.yaml"), "- pressKey: Tab\n").unwrap();
    let mut problems = Vec::new();
    for c in maestro_codes() {
        let Some(e) = entries.iter().find(|e| e.code == c.id()) else {
            problems.push(format!("{}: no docs entry", c.id()));
            continue;
        };
        let [example, fix] = e.yaml.as_slice() else {
            problems.push(format!(
                "{}: expected two ```yaml blocks, found {}",
                c.id(),
                e.yaml.len()
            ));
            continue;
        };
        let path = dir.join("flow.yaml");
        let got = ad_maestro::check(example, Some(&path), &|p: &Path| {
            std::fs::read_to_string(p).ok()
        })
        .diagnostics;
        if !got.iter().any(|d| d.code == c) {
            problems.push(format!(
                "{}: the example reports {:?}",
                c.id(),
                got.iter().map(|d| d.code).collect::<Vec<_>>()
            ));
        }
        let got = ad_maestro::check(fix, Some(&path), &|p: &Path| {
            std::fs::read_to_string(p).ok()
        })
        .diagnostics;
        if !got.is_empty() {
            problems.push(format!(
                "{}: the fix reports {:?}",
                c.id(),
                got.iter()
                    .map(|d| (d.code, d.message.clone()))
                    .collect::<Vec<_>>()
            ));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
