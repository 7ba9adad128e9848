//! Renderers: of the one diagnostic model (human via ariadne, JSON, SARIF 2.1.0, GitHub workflow
//! annotations; each takes the same checked files), and of the run records `ad_runtime` returns
//! (the divergence report as text, the suite report as JUnit XML, the HTML report of a suite or
//! run with its journals).

pub mod divergence;
pub mod github;
pub mod html;
pub mod human;
pub mod json;
pub mod junit;
pub mod progress;
pub mod refusal;
pub mod run;
pub mod sarif;

use std::borrow::Cow;

use ad_grammar::{Diagnostic, LineIndex, Span};

/// Whether `c` is written as an escape: a control character (C0, DEL, C1) other than the
/// newline and tab that text may legitimately hold.
fn is_escaped(c: char) -> bool {
    c.is_control() && c != '\n' && c != '\t'
}

/// Text that came from a script, a path, a device or a daemon, made safe to show on a terminal
/// or in a CI log: every control character but newline and tab is written as `\u{1b}`, so an
/// escape sequence (a terminal-title `ESC ] … BEL`, a colour, a NUL) in a file name or a
/// replayed line is shown instead of acted on. Every human and CI renderer passes such text
/// through this one function (JSON and SARIF escape them already: serde writes `\u001b`).
pub fn escape_controls(s: &str) -> Cow<'_, str> {
    if !s.chars().any(is_escaped) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        if is_escaped(c) {
            out.push_str(&format!("\\u{{{:x}}}", c as u32));
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// A diagnostic whose words (message, labels, help, fix title) are escaped for a terminal, or
/// `None` when none needs it (the common case costs no copy).
pub fn escaped_diagnostic(d: &Diagnostic) -> Option<Diagnostic> {
    let needs = |s: &str| s.chars().any(is_escaped);
    let any = needs(&d.message)
        || d.labels.iter().any(|l| needs(&l.message))
        || d.help.as_deref().is_some_and(needs)
        || d.fix.as_ref().is_some_and(|f| needs(&f.title));
    if !any {
        return None;
    }
    let text = |s: &str| -> ad_grammar::diagnostic::Text { escape_controls(s).into_owned().into() };
    let mut out = d.clone();
    out.message = text(&d.message);
    for l in &mut out.labels {
        l.message = text(&l.message);
    }
    out.help = d.help.as_deref().map(text);
    if let Some(f) = &mut out.fix {
        f.title = escape_controls(&f.title).into_owned();
    }
    Some(out)
}

/// A place in another file that a finding refers to: each include on the way from a composition
/// to the fragment the finding is in.
#[derive(Debug, Clone)]
pub struct Related {
    pub name: String,
    pub text: std::rc::Rc<str>,
    pub span: Span,
    pub message: String,
}

impl Related {
    /// 1-based (line, column, end_line, end_column) of the span.
    pub fn position(&self) -> (usize, usize, usize, usize) {
        let index = LineIndex::new(&self.text);
        let (l, c) = index.line_col(&self.text, self.span.start());
        let (el, ec) = index.line_col(&self.text, self.span.end());
        (l, c, el, ec)
    }
}

/// One checked file, ready to render.
pub struct CheckedFile {
    pub name: String,
    /// Owned, or borrowed from an analysis `ad check` leaves to the process exit.
    pub text: std::borrow::Cow<'static, str>,
    pub diagnostics: Vec<Diagnostic>,
    /// Per diagnostic (same order), its places in other files; empty for a plain script.
    related: Vec<Vec<Related>>,
    /// Built on first use: a clean file (the common case) is never indexed.
    index: std::cell::OnceCell<LineIndex>,
    /// The text as the human renderer shows it, built once for all of the file's reports (see
    /// `human::shown_source`).
    shown: std::cell::OnceCell<ariadne::Source<String>>,
    /// Lines of padding the human renderer's windows have cost so far (see `human::Shown`).
    padding_spent: std::cell::Cell<usize>,
}

impl CheckedFile {
    pub fn new(
        name: String,
        text: impl Into<std::borrow::Cow<'static, str>>,
        diagnostics: Vec<Diagnostic>,
    ) -> Self {
        CheckedFile {
            name,
            text: text.into(),
            diagnostics,
            related: Vec::new(),
            index: std::cell::OnceCell::new(),
            shown: std::cell::OnceCell::new(),
            padding_spent: std::cell::Cell::new(0),
        }
    }
    /// A file of a composition: `related[i]` are the places in other files of `diagnostics[i]`.
    pub fn with_related(
        name: String,
        text: String,
        diagnostics: Vec<Diagnostic>,
        related: Vec<Vec<Related>>,
    ) -> Self {
        debug_assert_eq!(diagnostics.len(), related.len());
        CheckedFile {
            related,
            ..CheckedFile::new(name, text, diagnostics)
        }
    }
    /// The places in other files of `d`, one of this file's diagnostics.
    pub fn related(&self, d: &Diagnostic) -> &[Related] {
        if self.related.is_empty() {
            return &[];
        }
        self.diagnostics
            .iter()
            .position(|x| std::ptr::eq(x, d))
            .and_then(|i| self.related.get(i))
            .map_or(&[], Vec::as_slice)
    }
    /// Line starts (and character counts) of the text, for positions and excerpts.
    pub fn index(&self) -> &LineIndex {
        self.index.get_or_init(|| LineIndex::new(&self.text))
    }
    /// 1-based (line, column, end_line, end_column) of the primary span.
    pub fn position(&self, d: &Diagnostic) -> (usize, usize, usize, usize) {
        let span = d.primary_span();
        let (l, c) = self.index().line_col(&self.text, span.start());
        let (el, ec) = self.index().line_col(&self.text, span.end());
        (l, c, el, ec)
    }
}
