//! A script the static gate refused (its diagnostics as `ad check` renders them), and a backend
//! that could not start (what is missing, as `ad doctor` says): the refusals every command that
//! runs scripts prints the same way.

use std::io::{IsTerminal, Write};

use ad_runtime::core::gate::Refusal;

use super::{human, CheckedFile};

/// Prints why the gate refused a script: its diagnostics as `ad check` renders them (ariadne),
/// then the one-line summary. Returns exit code 2 (nothing was run).
pub fn print_refusal(name: &str, text: &str, refusal: &Refusal) -> i32 {
    let colour = std::io::stderr().is_terminal();
    let mut buf = Vec::new();
    render_refusal(name, text, refusal, colour, &mut buf);
    let _ = std::io::stderr().write_all(&buf);
    crate::usage_error(&refusal.summary)
}

/// The refusal's diagnostics, rendered as `ad check` renders them.
pub fn render_refusal(name: &str, text: &str, refusal: &Refusal, colour: bool, out: &mut Vec<u8>) {
    let file = CheckedFile::new(
        name.to_string(),
        text.to_string(),
        refusal.diagnostics.clone(),
    );
    for d in &file.diagnostics {
        human::render(&file, d, colour, out);
    }
}

/// A backend that could not start: what is missing and how to fix it (`ad doctor`'s words), and
/// the step that needed it when one did; no divergence, no resume (nothing diverged).
pub fn render_setup(problem: &ad_runtime::core::records::SetupProblem, at: Option<&str>) -> String {
    let mut out = format!(
        "error[{}]: the {} backend cannot start: {}\n",
        ad_runtime::core::records::SetupProblem::CODE,
        problem.backend,
        problem.problem
    );
    if let Some(at) = at {
        out.push_str(&format!("  --> {at}\n"));
    }
    if let Some(fix) = &problem.fix {
        out.push_str(&format!("  help: {fix}\n"));
    }
    out.push_str("  note: the environment lacks what the backend needs (the script did not fail); `ad doctor` checks every backend\n");
    out
}
