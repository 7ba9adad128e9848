//! Maestro flows (YAML) as agent-device 0.21.5 reads them: a typed tree with spans
//! ([`tree::Flow`]) and, as the workspace's one [`Diagnostic`] type, every refusal of its Maestro
//! reader (`agent-device replay FLOW.yaml --maestro`), where that reader stops at the first.
//! Findings agent-device meets only when it plans or runs the flow (a `runFlow` or `runScript`
//! file that is missing, a `${VAR}` nobody supplies, a `${…}` it cannot resolve) have their own
//! codes, not flagged as rejections. docs/maestro.md says what is read and checked.

pub mod import;
pub mod reader;
pub mod run;
pub mod run_checks;
pub mod script;
pub mod tree;
pub mod when_true;
pub mod yaml;

use std::path::Path;

use ad_grammar::{Diagnostic, LineIndex};

pub use tree::Flow;

/// What a check of one flow found.
#[derive(Debug)]
pub struct Checked {
    /// The flow, when agent-device's reader gets as far as the command list (parts it refuses
    /// are left out).
    pub flow: Option<Flow>,
    /// Sorted by position; the reader's own first refusal has the smallest rejection order.
    pub diagnostics: Vec<Diagnostic>,
}

/// Reads and checks `text`, the flow at `path` (its folder is where `runFlow` and `runScript`
/// paths start; `read` gives the text of a file they name, `None` when there is no such file).
pub fn check(text: &str, path: Option<&Path>, read: run_checks::Read) -> Checked {
    let mut active: run_checks::Active = path.map(run_checks::normalize).into_iter().collect();
    check_within(text, path, read, &mut active)
}

/// [`check`] of a flow included from the flows in `active`.
fn check_within(
    text: &str,
    path: Option<&Path>,
    read: run_checks::Read,
    active: &mut run_checks::Active,
) -> Checked {
    let index = LineIndex::new(text);
    let mut reader = reader::Reader::new(text, &index);
    let (docs, yaml_errors) = yaml::parse(text);
    for e in &yaml_errors {
        reader.yaml_error(e.span, &e.message);
    }
    let broken = yaml_errors.iter().any(|e| e.message != yaml::DUPLICATE_KEY);
    let flow = if broken { None } else { reader.flow(&docs) };
    let mut diagnostics = std::mem::take(&mut reader.diagnostics);
    if let Some(flow) = &flow {
        run_checks::check(flow, &reader.strings, path, read, active, &mut diagnostics);
    }
    diagnostics.sort_by_key(|d| (d.primary_span().start(), d.primary_span().end()));
    Checked { flow, diagnostics }
}

/// agent-device's first refusal: the one its reader reports.
pub fn first_rejection(diagnostics: &[Diagnostic]) -> Option<&Diagnostic> {
    diagnostics
        .iter()
        .filter_map(|d| d.rejection.as_ref().map(|r| (r.order, d)))
        .min_by_key(|(order, _)| *order)
        .map(|(_, d)| d)
}
