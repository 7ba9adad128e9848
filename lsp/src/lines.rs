//! Byte offsets ↔ LSP positions.
//!
//! LSP counts lines the way the protocol specifies (`\n`, `\r\n` and a lone `\r` all end a
//! line) and columns in the negotiated encoding (UTF-16 code units unless the client offers
//! something else). `ad_grammar::LineIndex` splits lines only on `\n`, as agent-device does, so
//! it cannot serve the protocol on its own: a script with a lone `\r` (AD004) would put every
//! position after it on the wrong line in VS Code.

use ad_grammar::Span;
use lsp_types::{Position, Range};

/// How the client counts columns.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Encoding {
    Utf8,
    #[default]
    Utf16,
    Utf32,
}

impl Encoding {
    fn units(self, c: char) -> usize {
        match self {
            Encoding::Utf8 => c.len_utf8(),
            Encoding::Utf16 => c.len_utf16(),
            Encoding::Utf32 => 1,
        }
    }
    fn count(self, s: &str) -> usize {
        match self {
            Encoding::Utf8 => s.len(),
            // ASCII fast path: one unit per byte.
            _ if s.is_ascii() => s.len(),
            Encoding::Utf16 => s.chars().map(char::len_utf16).sum(),
            Encoding::Utf32 => s.chars().count(),
        }
    }
}

/// Line starts of one text, as the protocol counts lines.
#[derive(Debug, Clone)]
pub struct LineMap {
    starts: Vec<usize>,
    len: usize,
    encoding: Encoding,
    /// Columns (in `encoding`'s units) before each `BLOCK`-byte block, for a text that is not
    /// ASCII in an encoding other than UTF-8: a position costs at most one block, however long
    /// its line (hundreds of diagnostics on one long line must not each count it from its start).
    blocks: Vec<usize>,
}

const BLOCK: usize = 4096;

/// UTF-16 or UTF-32 units in a slice of UTF-8 (a character counts where its first byte is).
fn units_in(bytes: &[u8], encoding: Encoding) -> usize {
    let chars = bytes.iter().filter(|&&b| (b & 0xC0) != 0x80).count();
    match encoding {
        Encoding::Utf16 => chars + bytes.iter().filter(|&&b| b >= 0xF0).count(),
        Encoding::Utf32 => chars,
        Encoding::Utf8 => bytes.len(),
    }
}

impl LineMap {
    pub fn new(text: &str, encoding: Encoding) -> LineMap {
        let mut starts = Vec::with_capacity(text.len() / 32 + 1);
        starts.push(0);
        let b = text.as_bytes();
        // memchr-style scan for the two terminator bytes.
        let mut i = 0;
        while i < b.len() {
            match b[i] {
                b'\n' => starts.push(i + 1),
                b'\r' if b.get(i + 1) != Some(&b'\n') => starts.push(i + 1),
                _ => {}
            }
            i += 1;
        }
        let mut blocks = Vec::new();
        if encoding != Encoding::Utf8 && !text.is_ascii() {
            let mut before = 0;
            for block in text.as_bytes().chunks(BLOCK) {
                blocks.push(before);
                before += units_in(block, encoding);
            }
        }
        LineMap {
            starts,
            len: text.len(),
            encoding,
            blocks,
        }
    }

    /// Units of `text[..offset]` (`offset` on a char boundary), when the text has blocks.
    fn units_before(&self, text: &str, offset: usize) -> usize {
        let block = (offset / BLOCK).min(self.blocks.len() - 1);
        self.blocks[block] + units_in(&text.as_bytes()[block * BLOCK..offset], self.encoding)
    }

    pub fn encoding(&self) -> Encoding {
        self.encoding
    }

    pub fn line_count(&self) -> usize {
        self.starts.len()
    }

    /// 0-based protocol line containing `offset`.
    pub fn line_of(&self, offset: usize) -> usize {
        match self.starts.binary_search(&offset) {
            Ok(i) => i,
            Err(i) => i - 1,
        }
    }

    /// Byte range of protocol line `line`, without its terminator.
    pub fn line_range(&self, text: &str, line: usize) -> std::ops::Range<usize> {
        let start = self.starts[line.min(self.starts.len() - 1)];
        let mut end = self.starts.get(line + 1).copied().unwrap_or(self.len);
        let b = text.as_bytes();
        if end > start && b.get(end - 1) == Some(&b'\n') {
            end -= 1;
        }
        if end > start && b.get(end - 1) == Some(&b'\r') {
            end -= 1;
        }
        start..end
    }

    pub fn position(&self, text: &str, offset: usize) -> Position {
        let mut offset = offset.min(text.len());
        while !text.is_char_boundary(offset) {
            offset -= 1;
        }
        let line = self.line_of(offset);
        let start = self.starts[line];
        let col = if self.blocks.is_empty() {
            self.encoding.count(&text[start..offset])
        } else {
            self.units_before(text, offset) - self.units_before(text, start)
        };
        Position::new(line as u32, col as u32)
    }

    pub fn range(&self, text: &str, span: Span) -> Range {
        Range::new(
            self.position(text, span.start()),
            self.position(text, span.end()),
        )
    }

    /// Byte offset of a position; a column past the end of its line clamps to the line's end,
    /// a line past the end clamps to the end of the text (as the protocol asks).
    pub fn offset(&self, text: &str, position: Position) -> usize {
        let line = position.line as usize;
        if line >= self.starts.len() {
            return text.len();
        }
        let range = self.line_range(text, line);
        let want = position.character as usize;
        if self.encoding == Encoding::Utf8 {
            let mut o = (range.start + want).min(range.end);
            while !text.is_char_boundary(o) {
                o -= 1;
            }
            return o;
        }
        let mut units = 0;
        for (i, c) in text[range.clone()].char_indices() {
            if units >= want {
                return range.start + i;
            }
            units += self.encoding.units(c);
            // A position inside a surrogate pair rounds up to the end of the character.
        }
        range.end
    }

    pub fn span(&self, text: &str, range: Range) -> Span {
        let start = self.offset(text, range.start);
        let end = self.offset(text, range.end).max(start);
        Span::new(start, end)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utf16_columns_count_surrogate_pairs() {
        let text = "click \"label=Café 😀\"\nwait 1";
        let map = LineMap::new(text, Encoding::Utf16);
        let emoji = text.find('😀').unwrap();
        assert_eq!(map.position(text, emoji), Position::new(0, 18));
        assert_eq!(map.position(text, emoji + 4), Position::new(0, 20));
        assert_eq!(map.offset(text, Position::new(0, 20)), emoji + 4);
        assert_eq!(
            map.offset(text, Position::new(0, 99)),
            text.find('\n').unwrap()
        );
        assert_eq!(map.offset(text, Position::new(1, 4)), text.len() - 2);
        assert_eq!(map.offset(text, Position::new(7, 0)), text.len());
    }

    #[test]
    fn every_protocol_line_break_counts() {
        let text = "a\r\nb\rc\nd";
        let map = LineMap::new(text, Encoding::Utf16);
        assert_eq!(map.line_count(), 4);
        assert_eq!(
            map.position(text, text.find('c').unwrap()),
            Position::new(2, 0)
        );
        assert_eq!(map.line_range(text, 0), 0..1);
        assert_eq!(map.line_range(text, 1), 3..4);
    }

    #[test]
    fn positions_on_long_lines_cross_blocks_exactly() {
        let long = "aé€😀".repeat(900);
        let line = format!("{long}\r{long}");
        let text = format!("x\n{line}\n{line}");
        for encoding in [Encoding::Utf8, Encoding::Utf16, Encoding::Utf32] {
            let map = LineMap::new(&text, encoding);
            for (offset, _) in text.char_indices().step_by(5).chain([(text.len(), ' ')]) {
                let line = map.line_of(offset);
                let start = map.line_range(&text, line).start;
                let want = encoding.count(&text[start..offset]);
                assert_eq!(
                    map.position(&text, offset),
                    Position::new(line as u32, want as u32),
                    "{encoding:?} {offset}"
                );
            }
        }
    }

    #[test]
    fn utf8_and_utf32() {
        let text = "é😀x";
        let m8 = LineMap::new(text, Encoding::Utf8);
        let m32 = LineMap::new(text, Encoding::Utf32);
        let x = text.find('x').unwrap();
        assert_eq!(m8.position(text, x), Position::new(0, 6));
        assert_eq!(m32.position(text, x), Position::new(0, 2));
        assert_eq!(m32.offset(text, Position::new(0, 2)), x);
    }
}
