//! `ad check` over whole data sets, snapshotted: a review of what the validator finds in scripts
//! people actually wrote and recorded. A change here is a change in what users see; read the
//! diff line by line.
//!
//! * `corpus-check`: the public scripts of the optional ../shared/corpus (skipped, with a one-line
//!   note, when that folder is absent; required under `AD_REQUIRE_SHARED=1`).
//! * `conformance-check`: the repository's own tests/conformance scripts.

use std::path::PathBuf;

use ad_grammar::{Diagnostic, Severity};
use ad_tests::{conformance, corpus, read_script};

/// Why an error of `ad check` means agent-device fails on the script: its reader rejects the
/// file, its daemon refuses the step when the replay dispatches it, or its `save-script` refuses
/// to publish the recorded artifact. An error code missing here fails the test: `ad check` must
/// not raise an error agent-device would not fail on (issue: no false alarms on real scripts).
fn why_agent_device_fails(d: &Diagnostic) -> Option<&'static str> {
    if d.is_parity_error() {
        return Some("agent-device's reader rejects the file");
    }
    Some(match d.code.id() {
        "AD101" => "refused at dispatch: the daemon has no such command",
        "AD107" => "refused at dispatch: the command's input cannot come from a script line",
        "AD122" | "AD123" | "AD124" | "AD125" => {
            "refused at dispatch: the daemon validates these arguments and flags"
        }
        "AD102" => "refused at dispatch: the command was removed from agent-device",
        "AD103" => "refused at dispatch: a CLI alias is an unknown command in a replay",
        "AD104" => "refused at dispatch: a client-only command has no daemon route",
        "AD106" => "refused at dispatch: an internal request is not a script command",
        "AD110" | "AD111" | "AD112" | "AD117" | "AD118" | "AD119" => {
            "refused at dispatch: the daemon validates this argument"
        }
        "AD201" | "AD202" | "AD203" => "refused at dispatch: the target does not parse",
        "AD302" => "fails at the step: the variable can never be set (Unresolved variable)",
        "AD701" | "AD702" | "AD703" | "AD704" | "AD705" | "AD706" | "AD707" => {
            "save-script refuses to publish this recorded artifact (ADR 0016)"
        }
        "AD710" | "AD711" | "AD713" => {
            "refused at dispatch: the ref frame does not authorize this ref (ADR 0014)"
        }
        _ => return None,
    })
}

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
            let (line, col) = index.line_col(&text, d.primary_span().start());
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
            if d.severity == Severity::Error {
                let why = why_agent_device_fails(d).unwrap_or_else(|| {
                    panic!(
                        "{name}:{line}:{col}: {} is an error, but no reason agent-device would fail on it is known",
                        d.code
                    )
                });
                report.push_str(&format!("      why: {why}\n"));
            }
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
