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
pub mod sarif;

use ad_grammar::{Diagnostic, LineIndex};

/// One checked file, ready to render.
pub struct CheckedFile {
    pub name: String,
    pub text: String,
    pub diagnostics: Vec<Diagnostic>,
    /// Built on first use: a clean file (the common case) is never indexed.
    index: std::cell::OnceCell<LineIndex>,
    /// The text as the human renderer shows it, built once for all of the file's reports (see
    /// `human::shown_source`).
    shown: std::cell::OnceCell<ariadne::Source<String>>,
    /// Lines of padding the human renderer's windows have cost so far (see `human::Shown`).
    padding_spent: std::cell::Cell<usize>,
}

impl CheckedFile {
    pub fn new(name: String, text: String, diagnostics: Vec<Diagnostic>) -> Self {
        CheckedFile {
            name,
            text,
            diagnostics,
            index: std::cell::OnceCell::new(),
            shown: std::cell::OnceCell::new(),
            padding_spent: std::cell::Cell::new(0),
        }
    }
    /// Line starts (and character counts) of the text, for positions and excerpts.
    pub fn index(&self) -> &LineIndex {
        self.index.get_or_init(|| LineIndex::new(&self.text))
    }
    /// 1-based (line, column, end_line, end_column) of the primary span.
    pub fn position(&self, d: &Diagnostic) -> (usize, usize, usize, usize) {
        let span = d.primary_span();
        let (l, c) = self.index().line_col(&self.text, span.start);
        let (el, ec) = self.index().line_col(&self.text, span.end);
        (l, c, el, ec)
    }
}
