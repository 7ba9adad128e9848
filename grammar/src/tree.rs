//! The lossless syntax tree: one node per physical line, byte spans everywhere, the original text
//! kept alongside so a formatter or editor can work from the tree alone.

use crate::annotation::Evidence;
use crate::diagnostic::Span;
use crate::json::decode_string_literal_cow;
use serde::ser::{SerializeSeq, SerializeStruct};
use serde::{Serialize, Serializer};
use std::borrow::Cow;

/// A parsed `.ad` file. Owns its text; every span indexes into it. Its JSON gives each escaped
/// token's decoded value (see "tree JSON" below).
#[derive(Debug, Clone)]
pub struct SourceFile {
    pub text: String,
    pub lines: Vec<Line>,
}

#[derive(Debug, Clone)]
pub struct Line {
    /// 0-based; agent-device reports `index + 1` ([`Line::index`]). 32 bits like spans: sources
    /// are capped at [`Span::MAX_SOURCE`] bytes, so a line index always fits.
    index: u32,
    /// The line without its terminator.
    pub span: Span,
    /// The line after ECMAScript `trim()`: what the reader classifies.
    pub content: Span,
    pub terminator: LineTerminator,
    pub kind: LineKind,
}

impl Line {
    pub(crate) fn new(
        index: usize,
        span: Span,
        content: Span,
        terminator: LineTerminator,
        kind: LineKind,
    ) -> Line {
        Line {
            index: index as u32,
            span,
            content,
            terminator,
            kind,
        }
    }
    /// 0-based line index.
    pub fn index(&self) -> usize {
        self.index as usize
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum LineTerminator {
    None,
    Lf,
    CrLf,
}

/// The rarer, larger kinds are boxed: a script is mostly actions, and every line is stored (and
/// moved into the tree) at the size of its largest kind.
#[derive(Debug, Clone)]
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
    /// The action line (0-based index) it is bound to, when the next line is one
    /// ([`Annotation::binds_to`]; 32 bits, like line indices).
    pub(crate) binds_to: Option<u32>,
}

impl Annotation {
    /// The action line (0-based index) the annotation is bound to, when the next line is one.
    pub fn binds_to(&self) -> Option<usize> {
        self.binds_to.map(|l| l as usize)
    }
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

#[derive(Debug, Clone)]
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

#[derive(Debug, Clone)]
pub struct ActionLine {
    /// Token 0 is the command word. A boxed slice at its exact length (no capacity word).
    pub tokens: Box<[Token]>,
    /// The annotation line (0-based index) bound to this action. `u32`, like line indices:
    /// sources are capped at [`Span::MAX_SOURCE`] bytes.
    pub annotation: Option<u32>,
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

/// One token of an action or `context` line: where it is and how it is quoted. Its value is
/// read from the text on demand ([`Token::value`]): a script holds hundreds of thousands of
/// tokens, and storing a decoded copy of each escaped one cost more than decoding it again for
/// the few readers that ask.
#[derive(Debug, Clone)]
pub struct Token {
    pub span: Span,
    pub quoting: Quoting,
    /// A JSON token with a backslash escape: its value differs from the text between its quotes.
    pub escaped: bool,
    /// Set when the token is malformed (the reader rejects the whole line).
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
    /// (the raw text when it could not be decoded). Borrowed unless the token has an escape.
    pub fn value<'a>(&self, text: &'a str) -> Cow<'a, str> {
        let raw = &text[self.span.range()];
        match (self.quoting, self.error) {
            (Quoting::Json, None) if self.escaped => decode_string_literal_cow(raw)
                .map(|d| d.value)
                .unwrap_or(Cow::Borrowed(raw)),
            (Quoting::Json, None) => Cow::Borrowed(&raw[1..raw.len() - 1]),
            _ => Cow::Borrowed(raw),
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

// ---- tree JSON -----------------------------------------------------------------------------
//
// The tree's JSON (`ad parse --format tree`, the grammar's snapshots) gives each escaped
// token its decoded value, which the tree does not store: these impls carry the text down to
// the tokens. The shape is what `#[derive(Serialize)]` gave the same types.

/// A tree value with the text its spans index.
struct WithText<'a, T: ?Sized>(&'a T, &'a str);

impl Serialize for SourceFile {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut st = s.serialize_struct("SourceFile", 1)?;
        st.serialize_field("lines", &WithText(&self.lines[..], &self.text))?;
        st.end()
    }
}

impl<T> Serialize for WithText<'_, [T]>
where
    for<'a> WithText<'a, T>: Serialize,
{
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut seq = s.serialize_seq(Some(self.0.len()))?;
        for item in self.0 {
            seq.serialize_element(&WithText(item, self.1))?;
        }
        seq.end()
    }
}

impl Serialize for WithText<'_, Line> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let line = self.0;
        let mut st = s.serialize_struct("Line", 5)?;
        st.serialize_field("index", &line.index)?;
        st.serialize_field("span", &line.span)?;
        st.serialize_field("content", &line.content)?;
        st.serialize_field("terminator", &line.terminator)?;
        st.serialize_field("kind", &WithText(&line.kind, self.1))?;
        st.end()
    }
}

impl Serialize for WithText<'_, LineKind> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self.0 {
            LineKind::Blank => s.serialize_unit_variant("LineKind", 0, "Blank"),
            LineKind::Comment(c) => s.serialize_newtype_variant("LineKind", 1, "Comment", c),
            LineKind::Annotation(a) => {
                s.serialize_newtype_variant("LineKind", 2, "Annotation", &**a)
            }
            LineKind::Env(e) => s.serialize_newtype_variant("LineKind", 3, "Env", &**e),
            LineKind::Context(c) => {
                s.serialize_newtype_variant("LineKind", 4, "Context", &WithText(&**c, self.1))
            }
            LineKind::Action(a) => {
                s.serialize_newtype_variant("LineKind", 5, "Action", &WithText(a, self.1))
            }
        }
    }
}

impl Serialize for WithText<'_, ContextLine> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut st = s.serialize_struct("ContextLine", 3)?;
        st.serialize_field("tokens", &WithText(&self.0.tokens[..], self.1))?;
        st.serialize_field("entries", &self.0.entries)?;
        st.serialize_field("in_header", &self.0.in_header)?;
        st.end()
    }
}

impl Serialize for WithText<'_, ActionLine> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut st = s.serialize_struct("ActionLine", 2)?;
        st.serialize_field("tokens", &WithText(&self.0.tokens[..], self.1))?;
        st.serialize_field("annotation", &self.0.annotation)?;
        st.end()
    }
}

impl Serialize for WithText<'_, Token> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let t = self.0;
        let decoded = (t.escaped && t.error.is_none()).then(|| t.value(self.1));
        let fields = 2 + usize::from(decoded.is_some()) + usize::from(t.error.is_some());
        let mut st = s.serialize_struct("Token", fields)?;
        st.serialize_field("span", &t.span)?;
        st.serialize_field("quoting", &t.quoting)?;
        if let Some(d) = &decoded {
            st.serialize_field("decoded", d)?;
        }
        if let Some(e) = &t.error {
            st.serialize_field("error", e)?;
        }
        st.end()
    }
}
