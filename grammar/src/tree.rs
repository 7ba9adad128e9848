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
    /// Every action line's tokens, one after another ([`SourceFile::action`] reads a line's):
    /// one list for the file, where a list per line cost a heap block and two words each. Two
    /// lists when the parser read the text in two parts at once (the second part's in `[1]`).
    pub(crate) tokens: [Vec<Token>; 2],
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

/// An action line as the tree stores it: where its tokens are in the file's list. Read it with
/// [`SourceFile::action`] (or [`SourceFile::actions`]), which gives an [`Action`].
#[derive(Debug, Clone)]
pub struct ActionLine {
    /// The index of its first token in the file's list. 32 bits, like spans: a token takes at
    /// least one byte of a source capped at [`Span::MAX_SOURCE`] bytes.
    first: u32,
    len: u32,
    /// Which of the file's token lists holds them.
    part: u8,
    /// Bound to the annotation on the line before: an annotation binds to the very next line
    /// only ([`Action::annotation`]).
    annotated: bool,
}

impl ActionLine {
    pub(crate) fn new(part: u8, first: usize, len: usize, annotated: bool) -> ActionLine {
        ActionLine {
            first: first as u32,
            len: len as u32,
            part,
            annotated,
        }
    }
}

/// An action line as read from its file: its tokens and the annotation bound to it.
#[derive(Debug, Clone, Copy)]
pub struct Action<'f> {
    /// Token 0 is the command word.
    pub tokens: &'f [Token],
    /// The annotation line (0-based index) bound to this action.
    pub annotation: Option<u32>,
}

impl<'f> Action<'f> {
    pub fn command(&self) -> &'f Token {
        &self.tokens[0]
    }
    pub fn args(&self) -> &'f [Token] {
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
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Token {
    start: u32,
    /// The length in the high bits, the [`TokenKind`] in the low [`Token::KIND_BITS`]: eight
    /// bytes where a span and three flags took twelve (a script holds millions of tokens).
    len_kind: u32,
}

/// How a token is quoted, and whether it is well formed, as one small number.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum TokenKind {
    Bare = 0,
    /// A JSON string literal without a backslash escape.
    Plain = 1,
    /// A JSON string literal with an escape: its value differs from the text between its quotes.
    Escaped = 2,
    Unterminated = 3,
    InvalidJson = 4,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum TokenError {
    /// No closing quote on the line.
    Unterminated,
    /// Not a JSON string literal (bad escape, raw control character).
    InvalidJson,
}

impl Token {
    const KIND_BITS: u32 = 3;
    /// The longest token a tree holds (512 MiB - 1): the parser refuses a source with a longer
    /// line ([`crate::parse_owned`]). agent-device's V8 cannot hold a string that long anyway.
    pub const MAX_LEN: usize = (u32::MAX >> Token::KIND_BITS) as usize;

    fn new(span: Span, kind: TokenKind) -> Token {
        debug_assert!(
            span.len() <= Token::MAX_LEN,
            "the parser refuses longer lines"
        );
        Token {
            start: span.start() as u32,
            len_kind: ((span.len() as u32) << Token::KIND_BITS) | kind as u32,
        }
    }
    pub(crate) fn bare(span: Span) -> Token {
        Token::new(span, TokenKind::Bare)
    }
    /// A JSON string literal; `escaped` when it holds a backslash escape.
    pub(crate) fn json(span: Span, escaped: bool) -> Token {
        Token::new(
            span,
            if escaped {
                TokenKind::Escaped
            } else {
                TokenKind::Plain
            },
        )
    }
    /// A malformed JSON token (the reader rejects the whole line).
    pub(crate) fn malformed(span: Span, error: TokenError) -> Token {
        Token::new(
            span,
            match error {
                TokenError::Unterminated => TokenKind::Unterminated,
                TokenError::InvalidJson => TokenKind::InvalidJson,
            },
        )
    }
    fn kind(&self) -> TokenKind {
        match self.len_kind & ((1 << Token::KIND_BITS) - 1) {
            0 => TokenKind::Bare,
            1 => TokenKind::Plain,
            2 => TokenKind::Escaped,
            3 => TokenKind::Unterminated,
            _ => TokenKind::InvalidJson,
        }
    }
    pub fn span(&self) -> Span {
        let start = self.start as usize;
        Span::new(start, start + (self.len_kind >> Token::KIND_BITS) as usize)
    }
    pub fn quoting(&self) -> Quoting {
        if self.kind() == TokenKind::Bare {
            Quoting::Bare
        } else {
            Quoting::Json
        }
    }
    /// A JSON token with a backslash escape: its value differs from the text between its quotes.
    pub fn escaped(&self) -> bool {
        self.kind() == TokenKind::Escaped
    }
    /// Set when the token is malformed (the reader rejects the whole line).
    pub fn error(&self) -> Option<TokenError> {
        match self.kind() {
            TokenKind::Unterminated => Some(TokenError::Unterminated),
            TokenKind::InvalidJson => Some(TokenError::InvalidJson),
            _ => None,
        }
    }
    /// The value the reader sees: literal text for bare tokens, the decoded string for JSON ones
    /// (the raw text when it could not be decoded). Borrowed unless the token has an escape.
    pub fn value<'a>(&self, text: &'a str) -> Cow<'a, str> {
        let raw = self.raw(text);
        match self.kind() {
            TokenKind::Escaped => decode_string_literal_cow(raw)
                .map(|d| d.value)
                .unwrap_or(Cow::Borrowed(raw)),
            TokenKind::Plain => Cow::Borrowed(&raw[1..raw.len() - 1]),
            _ => Cow::Borrowed(raw),
        }
    }
    pub fn raw<'a>(&self, text: &'a str) -> &'a str {
        &text[self.span().range()]
    }
}

impl SourceFile {
    pub fn line_text(&self, line: &Line) -> &str {
        &self.text[line.content.range()]
    }
    /// Action lines, in order (the replay plan's steps).
    pub fn actions(&self) -> impl Iterator<Item = (&Line, Action<'_>)> {
        self.lines
            .iter()
            .filter_map(|l| self.action(l).map(|a| (l, a)))
    }
    /// The action on `line` (a line of this file), None for any other kind of line.
    pub fn action(&self, line: &Line) -> Option<Action<'_>> {
        match &line.kind {
            LineKind::Action(a) => Some(self.read_action(line, a)),
            _ => None,
        }
    }
    /// The action `stored` on `line` (a line of this file) as read.
    pub fn read_action(&self, line: &Line, stored: &ActionLine) -> Action<'_> {
        Action {
            tokens: &self.tokens[usize::from(stored.part)][stored.first as usize..]
                [..stored.len as usize],
            annotation: stored.annotated.then(|| line.index - 1),
        }
    }
    /// The tokens of the action on `line` (0-based; token 0 is the command word), empty for any
    /// other line: where a step's spans are read from.
    pub fn action_tokens(&self, line: usize) -> &[Token] {
        self.lines
            .get(line)
            .and_then(|l| self.action(l))
            .map_or(&[], |a| a.tokens)
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

/// A tree value with the file it belongs to (its text, and the token list of its actions).
struct WithText<'a, T: ?Sized>(&'a T, &'a SourceFile);

impl Serialize for SourceFile {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut st = s.serialize_struct("SourceFile", 1)?;
        st.serialize_field("lines", &WithText(&self.lines[..], self))?;
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
        st.serialize_field("kind", &WithText(line, self.1).kind())?;
        st.end()
    }
}

/// A line's kind, with what its JSON needs.
struct KindJson<'a>(&'a LineKind, Option<Action<'a>>, &'a SourceFile);

impl<'a> WithText<'a, Line> {
    fn kind(&self) -> KindJson<'a> {
        KindJson(&self.0.kind, self.1.action(self.0), self.1)
    }
}

impl Serialize for KindJson<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match (self.0, self.1) {
            (LineKind::Action(_), Some(a)) => {
                s.serialize_newtype_variant("LineKind", 5, "Action", &WithText(&a, self.2))
            }
            (LineKind::Blank, _) => s.serialize_unit_variant("LineKind", 0, "Blank"),
            (LineKind::Comment(c), _) => s.serialize_newtype_variant("LineKind", 1, "Comment", c),
            (LineKind::Annotation(a), _) => {
                s.serialize_newtype_variant("LineKind", 2, "Annotation", &**a)
            }
            (LineKind::Env(e), _) => s.serialize_newtype_variant("LineKind", 3, "Env", &**e),
            (LineKind::Context(c), _) => {
                s.serialize_newtype_variant("LineKind", 4, "Context", &WithText(&**c, self.2))
            }
            (LineKind::Action(_), None) => unreachable!("an action line reads as an action"),
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

impl Serialize for WithText<'_, Action<'_>> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut st = s.serialize_struct("ActionLine", 2)?;
        st.serialize_field("tokens", &WithText(self.0.tokens, self.1))?;
        st.serialize_field("annotation", &self.0.annotation)?;
        st.end()
    }
}

impl Serialize for WithText<'_, Token> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let t = self.0;
        let decoded = t.escaped().then(|| t.value(&self.1.text));
        let fields = 2 + usize::from(decoded.is_some()) + usize::from(t.error().is_some());
        let mut st = s.serialize_struct("Token", fields)?;
        st.serialize_field("span", &t.span())?;
        st.serialize_field("quoting", &t.quoting())?;
        if let Some(d) = &decoded {
            st.serialize_field("decoded", d)?;
        }
        if let Some(e) = &t.error() {
            st.serialize_field("error", e)?;
        }
        st.end()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[cfg(target_pointer_width = "64")]
    fn a_line_is_five_words_and_a_token_one() {
        // A script of short steps holds a line and a few tokens per ~40 bytes of text: these
        // sizes are most of `ad check`'s memory on a large script.
        assert_eq!(std::mem::size_of::<Line>(), 40);
        assert_eq!(std::mem::size_of::<Token>(), 8);
    }

    #[test]
    fn a_token_keeps_its_span_and_kind() {
        let longest = Span::new(7, 7 + Token::MAX_LEN);
        for (token, quoting, escaped, error) in [
            (Token::bare(longest), Quoting::Bare, false, None),
            (Token::json(longest, false), Quoting::Json, false, None),
            (Token::json(longest, true), Quoting::Json, true, None),
            (
                Token::malformed(longest, TokenError::Unterminated),
                Quoting::Json,
                false,
                Some(TokenError::Unterminated),
            ),
            (
                Token::malformed(Span::new(0, 0), TokenError::InvalidJson),
                Quoting::Json,
                false,
                Some(TokenError::InvalidJson),
            ),
        ] {
            assert_eq!(token.quoting(), quoting);
            assert_eq!(token.escaped(), escaped);
            assert_eq!(token.error(), error);
            if error != Some(TokenError::InvalidJson) {
                assert_eq!(token.span(), longest);
            }
        }
        let last = Span::new(Span::MAX_SOURCE - 3, Span::MAX_SOURCE);
        assert_eq!(Token::bare(last).span(), last);
    }
}
