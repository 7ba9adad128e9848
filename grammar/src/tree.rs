//! The lossless syntax tree: one node per physical line, byte spans everywhere, the original text
//! kept alongside so a formatter or editor can work from the tree alone.

use crate::annotation::Evidence;
use crate::diagnostic::Span;
use serde::Serialize;

/// A parsed `.ad` file. Owns its text; every span indexes into it.
#[derive(Debug, Clone, Serialize)]
pub struct SourceFile {
    #[serde(skip)]
    pub text: String,
    pub lines: Vec<Line>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Line {
    /// 0-based; agent-device reports `index + 1`.
    pub index: usize,
    /// The line without its terminator.
    pub span: Span,
    /// The line after ECMAScript `trim()`: what the reader classifies.
    pub content: Span,
    pub terminator: LineTerminator,
    pub kind: LineKind,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum LineTerminator {
    None,
    Lf,
    CrLf,
}

/// The rarer, larger kinds are boxed: a script is mostly actions, and every line is stored (and
/// moved into the tree) at the size of its largest kind.
#[derive(Debug, Clone, Serialize)]
pub enum LineKind {
    Blank,
    Comment(Comment),
    Annotation(Box<Annotation>),
    Env(Box<EnvDirective>),
    Context(Box<ContextLine>),
    Action(ActionLine),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum CommentKind {
    Plain,
    /// `# agent-device:heal-complete`: the last line of a healed script.
    HealComplete,
    /// `# agent-device:target-vN` with N ≠ 1: a future annotation 0.21.5 reads as a comment.
    FutureAnnotation,
    /// `# agent-device:fragment-ref-v1 {…}`: the pin of an `include` in a composition
    /// ([`crate::fragment_ref`]); 0.21.5 reads it as a comment.
    FragmentRef,
}

#[derive(Debug, Clone, Serialize)]
pub struct Comment {
    pub kind: CommentKind,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum AnnotationKind {
    /// `# agent-device:target-v1 {…}`: one target.
    Target,
    /// `# agent-device:targets-v1 {"source":…,"destination":…}`: drag endpoints.
    Targets,
}

impl AnnotationKind {
    pub fn marker(&self) -> &'static str {
        match self {
            AnnotationKind::Target => "target-v1",
            AnnotationKind::Targets => "targets-v1",
        }
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct Annotation {
    pub kind: AnnotationKind,
    /// `agent-device:target-v1` (the marker word with its version).
    pub marker: Span,
    /// The JSON payload after the marker, trimmed.
    pub payload: Option<Span>,
    /// Typed evidence when the payload passed every field rule.
    pub evidence: Option<Evidence>,
    /// The action line (0-based index) it is bound to, when the next line is one.
    pub binds_to: Option<usize>,
}

#[derive(Debug, Clone, Serialize)]
pub struct EnvDirective {
    /// The `env` keyword.
    pub keyword: Span,
    /// Text before the first `=` (empty span when missing).
    pub key: Span,
    /// Span of the raw value after `=` (None when there is no `=`).
    pub value: Option<Span>,
    /// The decoded value, when the directive is well formed.
    pub decoded: Option<String>,
    pub quoted: bool,
    /// Read by the metadata reader (inside the leading header).
    pub in_header: bool,
}

#[derive(Debug, Clone, Serialize)]
pub struct ContextLine {
    pub tokens: Vec<Token>,
    /// `key=value` words after `context`, for editors and the formatter.
    pub entries: Vec<ContextEntry>,
    /// Read by the metadata reader: part of the leading header and spelled `context ` (space).
    pub in_header: bool,
}

#[derive(Debug, Clone, Serialize)]
pub struct ContextEntry {
    pub key: Span,
    /// None for a word without `=`.
    pub value: Option<Span>,
}

#[derive(Debug, Clone, Serialize)]
pub struct ActionLine {
    /// Token 0 is the command word.
    pub tokens: Vec<Token>,
    /// The annotation line (0-based index) bound to this action.
    pub annotation: Option<usize>,
}

impl ActionLine {
    pub fn command(&self) -> &Token {
        &self.tokens[0]
    }
    pub fn args(&self) -> &[Token] {
        &self.tokens[1..]
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Quoting {
    /// A run of non-whitespace taken literally.
    Bare,
    /// A JSON string literal.
    Json,
}

#[derive(Debug, Clone, Serialize)]
pub struct Token {
    pub span: Span,
    pub quoting: Quoting,
    /// Decoded value of a JSON token with escapes (None: the value is the text between quotes).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub decoded: Option<Box<str>>,
    /// Set when the token is malformed (the reader rejects the whole line).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<TokenError>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum TokenError {
    /// No closing quote on the line.
    Unterminated,
    /// Not a JSON string literal (bad escape, raw control character).
    InvalidJson,
}

impl Token {
    /// The value the reader sees: literal text for bare tokens, the decoded string for JSON ones
    /// (the raw text when it could not be decoded).
    pub fn value<'a>(&'a self, text: &'a str) -> &'a str {
        if let Some(d) = &self.decoded {
            return d;
        }
        let raw = &text[self.span.range()];
        match (self.quoting, self.error) {
            (Quoting::Json, None) => &raw[1..raw.len() - 1],
            _ => raw,
        }
    }
    pub fn raw<'a>(&self, text: &'a str) -> &'a str {
        &text[self.span.range()]
    }
}

impl SourceFile {
    pub fn line_text(&self, line: &Line) -> &str {
        &self.text[line.content.range()]
    }
    /// Action lines with their line index, in order (the replay plan's steps).
    pub fn actions(&self) -> impl Iterator<Item = (&Line, &ActionLine)> {
        self.lines.iter().filter_map(|l| match &l.kind {
            LineKind::Action(a) => Some((l, a)),
            _ => None,
        })
    }
    /// The tokens of the action on `line` (0-based; token 0 is the command word), empty for any
    /// other line: where a step's spans are read from.
    pub fn action_tokens(&self, line: usize) -> &[Token] {
        match self.lines.get(line).map(|l| &l.kind) {
            Some(LineKind::Action(a)) => &a.tokens,
            _ => &[],
        }
    }
    pub fn annotation(&self, line: usize) -> Option<&Annotation> {
        match &self.lines.get(line)?.kind {
            LineKind::Annotation(a) => Some(a),
            _ => None,
        }
    }
}
