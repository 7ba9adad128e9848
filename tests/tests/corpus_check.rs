//! `ad check` over whole data sets, snapshotted: a review of what the validator finds in scripts
//! people actually wrote and recorded. A change here is a change in what users see; read the
//! diff line by line.
//!
//! * `corpus-check`: the public scripts of the optional ../shared/corpus (skipped, with a one-line
//!   note, when that folder is absent; required under `AD_REQUIRE_SHARED=1`).
//! * `conformance-check`: the repository's own tests/conformance scripts.

use std::path::PathBuf;

use ad_tests::{conformance, corpus, read_script};

/// One block per file: its name, then `line:col CODE severity message` per diagnostic.
fn findings(files: &[PathBuf]) -> String {
    let mut report = String::new();
    for path in files {
        let text = read_script(path);
        let analysis = ad_compiler::analyze(&text);
        let index = ad_grammar::LineIndex::new(&text);
        let name = path.file_name().unwrap().to_string_lossy();
        report.push_str(&format!("{name}\n"));
        for d in &analysis.diagnostics {
            let (line, col) = index.line_col(&text, d.primary_span().start);
            let parity = if d.is_parity_error() {
                " [agent-device rejects]"
            } else {
                ""
            };
            report.push_str(&format!(
                "  {line}:{col} {} {} {}{parity}\n",
                d.code,
                d.severity.as_str(),
                d.message
            ));
        }
    }
    report
}

#[test]
fn corpus_findings() {
    let Some(corpus) = corpus() else { return };
    let report = findings(&corpus.scripts());
    insta::assert_snapshot!("corpus-check", report);
}

#[test]
fn conformance_findings() {
    let report = findings(&conformance().scripts());
    insta::assert_snapshot!("conformance-check", report);
}
