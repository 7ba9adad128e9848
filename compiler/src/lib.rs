//! `ad-compiler`: the command registry, validation rules and lowering of a syntax tree to a
//! typed plan. Knows nothing of devices, async or editors.
//!
//! ```text
//! text ──ad_grammar::parse──▶ tree + syntax diagnostics ──lower──▶ steps ──validate──▶ diagnostics
//! ```

pub mod agent_device;
pub mod codes;
pub mod digest;
pub mod lower;
pub mod registry;
mod validate;

pub use ad_grammar::{Diagnostic, Severity, Span};
pub use lower::{Arg, Step};

/// Everything known about one script.
#[derive(Debug, Clone)]
pub struct Analysis {
    pub parse: ad_grammar::Parse,
    pub steps: Vec<Step>,
    /// Syntax, parity and validation diagnostics, sorted by position.
    pub diagnostics: Vec<Diagnostic>,
}

impl Analysis {
    pub fn text(&self) -> &str {
        &self.parse.file.text
    }
    pub fn metadata(&self) -> &ad_grammar::Metadata {
        &self.parse.metadata
    }
    /// True when agent-device 0.21.5 would accept the script (no parity errors).
    pub fn accepted_by_agent_device(&self) -> bool {
        !self.diagnostics.iter().any(Diagnostic::is_parity_error)
    }
    pub fn has_errors(&self) -> bool {
        self.diagnostics.iter().any(|d| d.severity == Severity::Error)
    }
}

/// Parses, lowers and validates one script.
pub fn analyze(text: &str) -> Analysis {
    let parse = ad_grammar::parse(text);
    let mut diagnostics = parse.diagnostics.clone();
    let steps = lower::lower(&parse.file, &mut diagnostics);
    validate::validate(&parse, &steps, &mut diagnostics);
    diagnostics.sort_by_key(|d| (d.primary_span().start, d.primary_span().end));
    Analysis { parse, steps, diagnostics }
}
