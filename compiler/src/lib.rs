//! `ad-compiler`: the command registry, validation rules and lowering of a syntax tree to a
//! typed plan. Knows nothing of devices, async or editors.
//!
//! ```text
//! text ──ad_grammar::parse──▶ tree + syntax diagnostics ──lower──▶ steps ──validate──▶ diagnostics
//! ```

pub mod agent_device;
pub mod builtins;
pub mod codes;
pub mod config;
pub mod digest;
pub mod flags;
pub mod format;
pub mod lower;
pub mod profile;
pub mod registry;
pub mod shape;
mod validate;

pub use ad_grammar::{Diagnostic, Severity, Span};
pub use flags::Flags;
pub use lower::{Arg, Step};

/// Everything known about one script.
#[derive(Debug, Clone)]
pub struct Analysis {
    /// The parse (its `diagnostics` are moved into [`Analysis::diagnostics`]).
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
        self.diagnostics
            .iter()
            .any(|d| d.severity == Severity::Error)
    }
}

/// Parses, lowers and validates one script with the default configuration.
pub fn analyze(text: &str) -> Analysis {
    analyze_with(text, &config::Config::default())
}

/// Parses, lowers and validates one script; `config` (an `ad.toml`, a forced profile) decides
/// which rules apply and at what severity.
pub fn analyze_with(text: &str, config: &config::Config) -> Analysis {
    let mut parse = ad_grammar::parse(text);
    let mut diagnostics = std::mem::take(&mut parse.diagnostics);
    let steps = lower::lower(&parse.file, &mut diagnostics);
    // A JSON payload, Maestro YAML or binary file is not a script: say so once instead of
    // reporting every line of it. (A text script with a stray NUL is a script: AD002 is then a
    // warning beside every other finding.)
    let not_a_script = parse.binary
        || diagnostics.iter().any(|d| {
            [
                ad_grammar::codes::JSON_PAYLOAD,
                ad_grammar::codes::MAESTRO_YAML,
            ]
            .contains(&d.code)
        });
    if not_a_script {
        diagnostics.retain(|d| d.is_parity_error() || d.code.starts_with("AD00"));
    } else {
        validate::validate(&parse, &steps, config, &mut diagnostics);
    }
    config.apply(&mut diagnostics);
    diagnostics.sort_by_key(|d| (d.primary_span().start, d.primary_span().end));
    Analysis {
        parse,
        steps,
        diagnostics,
    }
}

/// Every diagnostic code the workspace reports, with its title (docs, SARIF rules, `ad explain`).
pub fn all_codes() -> Vec<(&'static str, &'static str)> {
    let mut all: Vec<_> = ad_grammar::codes::ALL
        .iter()
        .chain(codes::ALL)
        .copied()
        .collect();
    all.sort();
    all
}

/// Applies the fixes of `diagnostics` to `text`, skipping edits that overlap an earlier one.
/// Returns the new text and how many fixes were applied.
pub fn apply_fixes(text: &str, diagnostics: &[Diagnostic]) -> (String, usize) {
    let mut fixes: Vec<&ad_grammar::Fix> =
        diagnostics.iter().filter_map(|d| d.fix.as_ref()).collect();
    fixes.sort_by_key(|f| f.edits.iter().map(|e| e.span.start).min().unwrap_or(0));
    let mut taken: Vec<&ad_grammar::Edit> = Vec::new();
    let mut applied = 0;
    for fix in fixes {
        let overlaps = fix.edits.iter().any(|e| {
            taken.iter().any(|t| {
                e.span.start < t.span.end.max(t.span.start + 1)
                    && t.span.start < e.span.end.max(e.span.start + 1)
            })
        });
        if !overlaps {
            taken.extend(fix.edits.iter());
            applied += 1;
        }
    }
    taken.sort_by_key(|e| std::cmp::Reverse((e.span.start, e.span.end)));
    let mut out = text.to_string();
    for e in taken {
        out.replace_range(e.span.range(), &e.replacement);
    }
    (out, applied)
}
