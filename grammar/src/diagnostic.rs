//! The one diagnostic model of the workspace. Every layer reports through it; the CLI renders it
//! with ariadne, the language server maps it, JSON/SARIF/GitHub are further renderers.

use crate::codes::Code;
use serde::Serialize;
use std::borrow::Cow;

/// Diagnostic text: most messages, labels and help lines are fixed strings, and a check that
/// reports thousands of findings should not allocate for each of them.
pub type Text = Cow<'static, str>;

/// A byte range in the source text.
///
/// Offsets are stored as `u32`: a script holds several spans per token, line and step, and half
/// the width is a large share of `ad check`'s memory on big inputs. Sources are therefore capped
/// at [`Span::MAX_SOURCE`] bytes (the readers refuse larger ones; see `input`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, PartialOrd, Ord)]
pub struct Span {
    start: u32,
    end: u32,
}

impl Span {
    /// The largest source a span can address.
    pub const MAX_SOURCE: usize = u32::MAX as usize;

    /// Offsets past [`Span::MAX_SOURCE`] are clamped (only a caller that skipped the size check
    /// can produce them).
    pub const fn new(start: usize, end: usize) -> Self {
        Span {
            start: clamp(start),
            end: clamp(end),
        }
    }
    pub const fn start(&self) -> usize {
        self.start as usize
    }
    pub const fn end(&self) -> usize {
        self.end as usize
    }
    pub fn len(&self) -> usize {
        (self.end - self.start) as usize
    }
    pub fn is_empty(&self) -> bool {
        self.start == self.end
    }
    pub fn cover(self, other: Span) -> Span {
        Span {
            start: self.start.min(other.start),
            end: self.end.max(other.end),
        }
    }
    pub fn range(&self) -> std::ops::Range<usize> {
        self.start()..self.end()
    }
    /// The same span moved `by` bytes to the right.
    pub fn shifted(self, by: usize) -> Span {
        Span::new(self.start() + by, self.end() + by)
    }
}

const fn clamp(offset: usize) -> u32 {
    if offset > Span::MAX_SOURCE {
        u32::MAX
    } else {
        offset as u32
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Info,
    Warning,
    Error,
}

impl Severity {
    pub fn as_str(&self) -> &'static str {
        match self {
            Severity::Info => "info",
            Severity::Warning => "warning",
            Severity::Error => "error",
        }
    }
}

/// Which agent-device reader rejects a script for this diagnostic (a *parity* error). A
/// diagnostic without a rejection is `ad` being stricter than agent-device.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Reader {
    /// The script parser (`parseReplayScriptDetailed`): reported as `parseError`.
    Parser,
    /// The context/env metadata reader (`readReplayScriptMetadata`): `metadataError`.
    Metadata,
    /// The daemon's preflight before either reader (JSON payloads).
    Daemon,
    /// The agent-device CLI, which reads the file and caps its size before sending it.
    Client,
    /// The Maestro flow reader (`replay FLOW.yaml --maestro`), before the first step.
    Maestro,
}

/// agent-device's own error for a parity diagnostic, with the order in which its reader would
/// meet it (it stops at the first).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Rejection {
    pub reader: Reader,
    /// agent-device's message, verbatim.
    pub message: String,
    /// agent-device's `details.hint`, when it sets one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hint: Option<String>,
    /// (0-based line index being processed, phase within that line).
    #[serde(skip)]
    pub order: (usize, u8),
}

/// Phases of the reference parser's work on one line, in the order it performs them.
pub mod phase {
    pub const ANNOTATION_PAYLOAD: u8 = 0;
    pub const TOKENIZE: u8 = 1;
    pub const COMMAND_RULE: u8 = 2;
    pub const BINDING: u8 = 3;
    pub const ARITY: u8 = 4;
    pub const ENV_ORDER: u8 = 5;
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Label {
    pub span: Span,
    pub message: Text,
    /// The primary label is where the problem is; secondary ones give context.
    pub primary: bool,
}

/// A machine-applicable edit.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Edit {
    pub span: Span,
    pub replacement: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Fix {
    /// What applying it does, e.g. `Replace "tap" with "click"`.
    pub title: String,
    pub edits: Vec<Edit>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Diagnostic {
    /// Stable code, e.g. `AD101` (serialized as its id). Never reused for another meaning.
    pub code: Code,
    pub severity: Severity,
    pub message: Text,
    pub labels: Vec<Label>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub help: Option<Text>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fix: Option<Fix>,
    /// Set when agent-device 0.21.5 itself rejects the script for this.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rejection: Option<Rejection>,
}

impl Diagnostic {
    /// A diagnostic of `code` at its default severity from `codes::TABLE`.
    pub fn new(code: Code, message: impl Into<Text>, span: Span) -> Self {
        Diagnostic {
            code,
            severity: code.severity(),
            message: message.into(),
            labels: vec![Label {
                span,
                message: Text::Borrowed(""),
                primary: true,
            }],
            help: None,
            fix: None,
            rejection: None,
        }
    }
    /// Text for the primary label.
    pub fn with_label(mut self, message: impl Into<Text>) -> Self {
        self.labels[0].message = message.into();
        self
    }
    pub fn with_secondary(mut self, span: Span, message: impl Into<Text>) -> Self {
        self.labels.push(Label {
            span,
            message: message.into(),
            primary: false,
        });
        self
    }
    pub fn with_help(mut self, help: impl Into<Text>) -> Self {
        self.help = Some(help.into());
        self
    }
    pub fn with_fix(mut self, title: impl Into<String>, edits: Vec<Edit>) -> Self {
        self.fix = Some(Fix {
            title: title.into(),
            edits,
        });
        self
    }
    /// Marks this as a parity error: agent-device rejects the script with `message`.
    pub fn rejected_by(
        mut self,
        reader: Reader,
        message: impl Into<String>,
        order: (usize, u8),
    ) -> Self {
        self.rejection = Some(Rejection {
            reader,
            message: message.into(),
            hint: None,
            order,
        });
        self
    }
    pub fn with_rejection_hint(mut self, hint: impl Into<String>) -> Self {
        if let Some(r) = self.rejection.as_mut() {
            r.hint = Some(hint.into());
        }
        self
    }
    pub fn primary_span(&self) -> Span {
        self.labels
            .iter()
            .find(|l| l.primary)
            .map(|l| l.span)
            .unwrap_or_default()
    }
    pub fn is_parity_error(&self) -> bool {
        self.rejection.is_some()
    }
}

/// Text safe to show in a one-line message: control characters become escapes (`\t`, `\u{0}`).
pub fn printable(s: &str) -> std::borrow::Cow<'_, str> {
    if !s.chars().any(char::is_control) {
        return std::borrow::Cow::Borrowed(s);
    }
    std::borrow::Cow::Owned(
        s.chars()
            .map(|c| {
                if c.is_control() {
                    c.escape_debug().to_string()
                } else {
                    c.to_string()
                }
            })
            .collect(),
    )
}

/// Maps byte offsets to 1-based line/column (columns in Unicode scalar values) and to UTF-16
/// columns for editors.
///
/// Every lookup costs O(log lines) plus at most one block of bytes, however long the line: a
/// report of thousands of findings on one megabyte-long line must not count the line's
/// characters from its start for each of them.
#[derive(Debug, Clone)]
pub struct LineIndex {
    /// Byte offset where each line starts (after `\n`; a lone `\r` does not start a line, as in
    /// agent-device).
    /// 32 bits, like spans: a source is at most [`Span::MAX_SOURCE`] bytes (the index of a whole
    /// large script is built to render even one finding, so its size counts).
    starts: Vec<u32>,
    /// For each `BLOCK`-byte block of a text that is not all ASCII: the characters and the
    /// UTF-16 units before the block. Empty for ASCII, where columns are byte distances.
    blocks: Vec<(usize, usize)>,
}

const BLOCK: usize = 4096;

/// Characters and UTF-16 units in `bytes` (a slice of UTF-8 that may start or end inside a
/// character: a character is counted where its first byte is).
fn units(bytes: &[u8]) -> (usize, usize) {
    let chars = bytes.iter().filter(|&&b| (b & 0xC0) != 0x80).count();
    // A four-byte character is a surrogate pair: one more UTF-16 unit.
    let astral = bytes.iter().filter(|&&b| b >= 0xF0).count();
    (chars, chars + astral)
}

impl LineIndex {
    pub fn new(text: &str) -> Self {
        let bytes = text.as_bytes();
        let mut starts = Vec::with_capacity(memchr::memchr_iter(b'\n', bytes).count() + 1);
        starts.push(0);
        // Offsets past `Span::MAX_SOURCE` (never a span's) saturate rather than wrap.
        starts.extend(
            memchr::memchr_iter(b'\n', bytes).map(|i| u32::try_from(i + 1).unwrap_or(u32::MAX)),
        );
        let mut blocks = Vec::new();
        if !text.is_ascii() {
            let (mut chars, mut utf16) = (0, 0);
            for block in text.as_bytes().chunks(BLOCK) {
                blocks.push((chars, utf16));
                let (c, u) = units(block);
                chars += c;
                utf16 += u;
            }
        }
        LineIndex { starts, blocks }
    }
    /// (characters, UTF-16 units) in `text[..offset]`; `offset` is a char boundary.
    fn before(&self, text: &str, offset: usize) -> (usize, usize) {
        if self.blocks.is_empty() {
            return (offset, offset);
        }
        // The end of a text whose length is a multiple of BLOCK is in no block: use the last.
        let block = (offset / BLOCK).min(self.blocks.len() - 1);
        let (chars, utf16) = self.blocks[block];
        let (c, u) = units(&text.as_bytes()[block * BLOCK..offset]);
        (chars + c, utf16 + u)
    }
    /// Characters in `text[..offset]` (an offset inside a character counts as its start).
    pub fn char_offset(&self, text: &str, offset: usize) -> usize {
        self.before(text, floor_char_boundary(text, offset.min(text.len())))
            .0
    }
    /// 0-based line containing `offset`.
    pub fn line_of(&self, offset: usize) -> usize {
        let offset = u32::try_from(offset).unwrap_or(u32::MAX);
        match self.starts.binary_search(&offset) {
            Ok(i) => i,
            Err(i) => i - 1,
        }
    }
    pub fn line_start(&self, line: usize) -> usize {
        self.starts[line.min(self.starts.len() - 1)] as usize
    }
    pub fn line_count(&self) -> usize {
        self.starts.len()
    }
    /// 1-based (line, column), column counted in chars.
    pub fn line_col(&self, text: &str, offset: usize) -> (usize, usize) {
        let offset = floor_char_boundary(text, offset.min(text.len()));
        let line = self.line_of(offset);
        let col = self.before(text, offset).0 - self.before(text, self.line_start(line)).0;
        (line + 1, col + 1)
    }
    /// 0-based (line, UTF-16 column), as LSP positions count.
    pub fn line_col_utf16(&self, text: &str, offset: usize) -> (usize, usize) {
        let offset = floor_char_boundary(text, offset.min(text.len()));
        let line = self.line_of(offset);
        let col = self.before(text, offset).1 - self.before(text, self.line_start(line)).1;
        (line, col)
    }
    /// Byte offset of a 0-based (line, UTF-16 column); clamps to the line's end.
    pub fn offset_utf16(&self, text: &str, line: usize, col16: usize) -> usize {
        if line >= self.starts.len() {
            return text.len();
        }
        let start = self.line_start(line);
        let end = self
            .starts
            .get(line + 1)
            .map(|&s| s as usize - 1)
            .unwrap_or(text.len());
        let mut units = 0;
        for (i, c) in text[start..end].char_indices() {
            if units >= col16 {
                return start + i;
            }
            units += c.len_utf16();
        }
        end
    }
}

fn floor_char_boundary(text: &str, mut offset: usize) -> usize {
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    offset
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_count_chars_and_utf16_units_across_blocks() {
        // Long lines of mixed widths, so lookups cross block boundaries at every alignment.
        let line = "aé€😀".repeat(700);
        let text = format!("x\n{line}\n{line}é\n");
        let index = LineIndex::new(&text);
        for (offset, _) in text.char_indices().step_by(7).chain([(text.len(), ' ')]) {
            let line_start = text[..offset].rfind('\n').map_or(0, |i| i + 1);
            let line_no = text[..offset].matches('\n').count();
            let before = &text[line_start..offset];
            assert_eq!(
                index.line_col(&text, offset),
                (line_no + 1, before.chars().count() + 1),
                "{offset}"
            );
            assert_eq!(
                index.line_col_utf16(&text, offset),
                (line_no, before.encode_utf16().count()),
                "{offset}"
            );
        }
        // An offset inside a character counts as that character's start.
        assert_eq!(index.line_col(&text, 4), index.line_col(&text, 3));
        // The very end of a text that fills its last block exactly.
        let exact = format!("é{}", "a".repeat(2 * BLOCK - 2));
        assert_eq!(exact.len(), 2 * BLOCK);
        let index = LineIndex::new(&exact);
        assert_eq!(index.line_col(&exact, exact.len()), (1, 2 * BLOCK));
    }
}
