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
    /// Checked without a platform: the plan findings (AD920, AD924, AD925) of `runFlow`s that
    /// agent-device loads on one platform only (`when.platform`), as errors; `diagnostics`
    /// holds them as warnings. [`check_on`] that platform makes them plain errors.
    pub gated: Vec<run_checks::Gated>,
}

/// Reads and checks `text`, the flow at `path` (its folder is where `runFlow` and `runScript`
/// paths start; `read` gives the text of a file they name, `None` when there is no such file).
pub fn check(text: &str, path: Option<&Path>, read: run_checks::Read) -> Checked {
    let mut active: run_checks::Active = path.map(run_checks::normalize).into_iter().collect();
    check_within(text, path, read, &mut active, None)
}

/// [`check`] as agent-device plans the flow on `platform` (`ios`, `android`, …): a `runFlow`
/// whose `when.platform` is another platform is not loaded, and one for this platform is
/// checked as any other.
pub fn check_on(
    text: &str,
    path: Option<&Path>,
    read: run_checks::Read,
    platform: &str,
) -> Checked {
    let mut active: run_checks::Active = path.map(run_checks::normalize).into_iter().collect();
    check_within(text, path, read, &mut active, Some(platform))
}

/// [`check`] of a flow included from the flows in `active`.
fn check_within(
    text: &str,
    path: Option<&Path>,
    read: run_checks::Read,
    active: &mut run_checks::Active,
    platform: Option<&str>,
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
    let mut gated = Vec::new();
    if let Some(flow) = &flow {
        let plan = run_checks::Plan {
            read,
            platform,
            gated: &mut gated,
        };
        run_checks::check(flow, &reader.strings, path, plan, active, &mut diagnostics);
    }
    diagnostics.sort_by_key(|d| (d.primary_span().start(), d.primary_span().end()));
    Checked {
        flow,
        diagnostics,
        gated,
    }
}

/// agent-device's first refusal: the one its reader reports.
pub fn first_rejection(diagnostics: &[Diagnostic]) -> Option<&Diagnostic> {
    diagnostics
        .iter()
        .filter_map(|d| d.rejection.as_ref().map(|r| (r.order, d)))
        .min_by_key(|(order, _)| *order)
        .map(|(_, d)| d)
}
