//! `ad-compiler`: the command registry, validation rules and lowering of a syntax tree to a
//! typed plan. Knows nothing of devices, async or editors.
//!
//! ```text
//! text ──ad_grammar::parse──▶ tree + syntax diagnostics ──lower──▶ steps ──rules──▶ diagnostics
//! ```

pub mod agent_device;
pub mod builtins;
pub mod check_file;
pub mod codes;
pub mod compose;
pub mod config;
pub mod digest;
pub mod export;
pub mod flags;
pub mod format;
pub mod input_file;
pub mod lower;
pub use ad_grammar::parallel;
pub mod paths;
pub mod profile;
pub mod registry;
mod rules;
pub mod shape;

pub use ad_grammar::{Diagnostic, Severity, Span};
pub use flags::Flags;
pub use lower::{Arg, Step};
pub use rules::dispatch::readers::fill_text_at;
pub use rules::dispatch::{refusal_when_filled, FilledRefusal};

/// Everything known about one script.
#[derive(Debug)]
pub struct Analysis {
    /// The parse and the steps lowered from it, which borrow from its text.
    lowered: Lowered,
    /// Syntax, parity and validation diagnostics, sorted by position.
    pub diagnostics: Vec<Diagnostic>,
}

/// The steps of a parse, borrowed from its text.
type Steps<'src> = Vec<Step<'src>>;

self_cell::self_cell!(
    /// A parse (its `diagnostics` moved out) and the steps lowered from it: each step's values
    /// are slices of the parse's text, so the pair is kept together.
    struct Lowered {
        owner: ad_grammar::Parse,
        #[covariant]
        dependent: Steps,
    }
    impl {Debug}
);

impl Lowered {
    /// Parses and lowers `text`; returns the pair with the reader's diagnostics.
    fn read(text: String) -> (Lowered, Vec<Diagnostic>) {
        let mut parse = ad_grammar::parse_owned(text);
        let mut diagnostics = std::mem::take(&mut parse.diagnostics);
        let lowered = Lowered::new(parse, |parse| lower::lower(&parse.file, &mut diagnostics));
        (lowered, diagnostics)
    }
}

impl Analysis {
    /// The parse (its `diagnostics` are moved into [`Analysis::diagnostics`]).
    pub fn parse(&self) -> &ad_grammar::Parse {
        self.lowered.borrow_owner()
    }
    /// The lowered steps, one per action line, borrowing from [`Analysis::text`].
    pub fn steps(&self) -> &[Step<'_>] {
        self.lowered.borrow_dependent()
    }
    pub fn file(&self) -> &ad_grammar::SourceFile {
        &self.parse().file
    }
    pub fn text(&self) -> &str {
        &self.file().text
    }
    pub fn metadata(&self) -> &ad_grammar::Metadata {
        &self.parse().metadata
    }
    /// The parse, the steps dropped (they borrow from its text).
    pub fn into_parse(self) -> ad_grammar::Parse {
        self.lowered.into_owner()
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
    analyze_owned(text.to_string(), config)
}

/// [`analyze_with`] on a text the analysis keeps without copying it
/// (`analysis.text()`).
pub fn analyze_owned(text: String, config: &config::Config) -> Analysis {
    let (lowered, mut diagnostics) = Lowered::read(text);
    // A JSON payload is refused before any step runs: say so once instead of reporting every
    // line. Maestro YAML and binary junk are replayed line by line, and each line the replay
    // dispatches is refused, so those lines are reported (AD003/AD002 say what the file is).
    let not_a_script = diagnostics
        .iter()
        .any(|d| d.code == ad_grammar::codes::JSON_PAYLOAD);
    if not_a_script {
        diagnostics.retain(|d| d.is_parity_error() || d.code.file_level());
    } else {
        rules::run(
            lowered.borrow_owner(),
            lowered.borrow_dependent(),
            config,
            &mut diagnostics,
        );
    }
    config.apply(&mut diagnostics);
    // What the file is (a JSON payload, Maestro YAML, a binary file, too large) comes first; any
    // other file-level finding (`Code::file_level`) before the findings on its own line.
    diagnostics.sort_by_key(|d| {
        use ad_grammar::codes::{BINARY_FILE, FILE_TOO_LARGE, JSON_PAYLOAD, MAESTRO_YAML};
        let what_the_file_is =
            [JSON_PAYLOAD, MAESTRO_YAML, BINARY_FILE, FILE_TOO_LARGE].contains(&d.code);
        let file_level = d.code.file_level();
        (
            !what_the_file_is,
            d.primary_span().start(),
            !file_level,
            d.primary_span().end(),
        )
    });
    Analysis {
        lowered,
        diagnostics,
    }
}

/// What agent-device's reader makes of a script: parse and lowering only, without the rules
/// (`ad parse`). Its diagnostics are the reader's: every rejection agent-device reports is among
/// them, since the rules never reject.
pub fn read(text: &str) -> Analysis {
    read_owned(text.to_string())
}

/// [`read`] on a text the analysis keeps without copying it.
pub fn read_owned(text: String) -> Analysis {
    let (lowered, diagnostics) = Lowered::read(text);
    Analysis {
        lowered,
        diagnostics,
    }
}

/// Every diagnostic code the workspace reports, with its title (docs, SARIF rules, `ad explain`).
pub fn all_codes() -> Vec<(&'static str, &'static str)> {
    codes::TABLE.iter().map(|c| (c.id(), c.title())).collect()
}

/// Applies the fixes of `diagnostics` (the analysis of `text`), skipping edits that overlap an
/// earlier one. A fix never makes agent-device reject a script it accepted, never unbinds a
/// target annotation, and never changes a step on a line it does not edit: when the fixes
/// together would, each is tried in order and only those that keep the script whole are
/// applied. Returns the new text and how many fixes were applied.
pub fn apply_fixes(text: &str, diagnostics: &[Diagnostic]) -> (String, usize) {
    let fixes: Vec<&ad_grammar::Fix> = diagnostics.iter().filter_map(|d| d.fix.as_ref()).collect();
    let (out, applied) = apply_unchecked(text, &fixes);
    if applied == 0 || diagnostics.iter().any(Diagnostic::is_parity_error) {
        // Nothing applied, or agent-device already rejects the script: nothing to keep.
        return (out, applied);
    }
    let original = analyze(text);
    if keeps_script_whole(&original, &fixes, &out) {
        return (out, applied);
    }
    // Greedy: keep each fix that, with the ones kept so far, leaves the script whole.
    let mut kept: Vec<&ad_grammar::Fix> = Vec::new();
    for fix in fixes {
        kept.push(fix);
        if !keeps_script_whole(&original, &kept, &apply_unchecked(text, &kept).0) {
            kept.pop();
        }
    }
    apply_unchecked(text, &kept)
}

/// Is this one fix safe to offer on its own (an editor's quick fix)? The same guarantee as
/// [`apply_fixes`].
pub fn fix_keeps_script_whole(analysis: &Analysis, fix: &ad_grammar::Fix) -> bool {
    if !analysis.accepted_by_agent_device() {
        return true;
    }
    let fixed = apply_unchecked(analysis.text(), &[fix]).0;
    keeps_script_whole(analysis, &[fix], &fixed)
}

/// `fixed` (the `original` with `fixes` applied) is still accepted by agent-device, keeps every
/// bound annotation, and reads every step on a line no fix edits exactly as before, in order.
fn keeps_script_whole(original: &Analysis, fixes: &[&ad_grammar::Fix], fixed: &str) -> bool {
    let after = analyze(fixed);
    if !after.accepted_by_agent_device() || bound_annotations(&after) < bound_annotations(original)
    {
        return false;
    }
    let text = original.text();
    let index = ad_grammar::LineIndex::new(text);
    let touched: Vec<(usize, usize)> = fixes
        .iter()
        .flat_map(|f| f.edits.iter())
        .map(|e| (index.line_of(e.span.start()), index.line_of(e.span.end())))
        .collect();
    let untouched = original
        .steps()
        .iter()
        .filter(|s| !touched.iter().any(|(a, b)| (*a..=*b).contains(&s.line())));
    let mut rest = after.steps().iter();
    untouched.into_iter().all(|s| {
        rest.by_ref().any(|t| {
            t.same_action(s)
                && t.target_evidence == s.target_evidence
                && t.target_evidences() == s.target_evidences()
        })
    })
}

/// Steps that carry target evidence.
fn bound_annotations(a: &Analysis) -> usize {
    a.steps()
        .iter()
        .filter(|s| s.target_evidence.is_some() || s.target_evidences().is_some())
        .count()
}

fn apply_unchecked(text: &str, fixes: &[&ad_grammar::Fix]) -> (String, usize) {
    let mut fixes: Vec<&ad_grammar::Fix> = fixes.to_vec();
    fixes.sort_by_key(|f| f.edits.iter().map(|e| e.span.start()).min().unwrap_or(0));
    let mut taken: Vec<&ad_grammar::Edit> = Vec::new();
    let mut applied = 0;
    for fix in fixes {
        let overlaps = fix.edits.iter().any(|e| {
            taken.iter().any(|t| {
                e.span.start() < t.span.end().max(t.span.start() + 1)
                    && t.span.start() < e.span.end().max(e.span.start() + 1)
            })
        });
        if !overlaps {
            taken.extend(fix.edits.iter());
            applied += 1;
        }
    }
    taken.sort_by_key(|e| std::cmp::Reverse((e.span.start(), e.span.end())));
    let mut out = text.to_string();
    for e in taken {
        out.replace_range(e.span.range(), &e.replacement);
    }
    (out, applied)
}
