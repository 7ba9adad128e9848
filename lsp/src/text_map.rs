//! Offsets inside a token's *value* (what the reader sees) ↔ offsets in the source text.
//!
//! A bare token's value is its text; a quoted token's value is the JSON string it spells, so
//! `"id=\"login\""` has the value `id="login"` and every offset after an escape shifts. Editors
//! need source positions for things found in values (selector keys, `${NAME}`), and values for
//! the text before the cursor (completion inside a quoted token that is still being typed).

use ad_compiler::lower::{Arg, Step};
use ad_grammar::{SourceFile, Span};

/// The value of one token with a map back to its source text.
#[derive(Debug, Clone)]
pub struct ValueMap {
    /// Source offset of the token's first byte.
    base: usize,
    pub value: String,
    /// `(value offset, offset in the token)` at every decoded character start where the two
    /// diverge, plus the end. Empty for bare tokens and quoted tokens without escapes, where
    /// the offset in the token is `value offset + shift`.
    points: Vec<(usize, usize)>,
    shift: usize,
    /// Length of the token text the value was read from (up to and excluding the closing quote).
    raw_len: usize,
}

impl ValueMap {
    /// `raw` is the token's source text starting at source offset `base` (possibly cut at the
    /// cursor). A leading `"` makes it a JSON string, decoded leniently: an unterminated or
    /// invalid literal still yields the text a person meant so far.
    pub fn new(raw: &str, base: usize) -> ValueMap {
        if !raw.starts_with('"') {
            return ValueMap {
                base,
                value: raw.to_string(),
                points: Vec::new(),
                shift: 0,
                raw_len: raw.len(),
            };
        }
        let body = &raw[1..];
        let end = closing_quote(body).unwrap_or(body.len());
        let body = &body[..end];
        if !body.contains('\\') {
            return ValueMap {
                base,
                value: body.to_string(),
                points: Vec::new(),
                shift: 1,
                raw_len: 1 + body.len(),
            };
        }
        let mut value = String::with_capacity(body.len());
        let mut points = Vec::new();
        let b = body.as_bytes();
        let mut i = 0;
        while i < b.len() {
            points.push((value.len(), 1 + i));
            if b[i] != b'\\' {
                let c = body[i..].chars().next().unwrap_or('\u{FFFD}');
                value.push(c);
                i += c.len_utf8();
                continue;
            }
            let Some(&e) = b.get(i + 1) else {
                value.push('\\');
                i += 1;
                continue;
            };
            let simple = match e {
                b'"' => Some('"'),
                b'\\' => Some('\\'),
                b'/' => Some('/'),
                b'b' => Some('\u{8}'),
                b'f' => Some('\u{c}'),
                b'n' => Some('\n'),
                b'r' => Some('\r'),
                b't' => Some('\t'),
                _ => None,
            };
            if let Some(c) = simple {
                value.push(c);
                i += 2;
                continue;
            }
            if e == b'u' {
                if let Some(hi) = hex4(body, i + 2) {
                    // A surrogate pair spelled as two escapes is one character.
                    if (0xD800..0xDC00).contains(&hi) && body[i + 6..].starts_with("\\u") {
                        if let Some(lo) =
                            hex4(body, i + 8).filter(|lo| (0xDC00..0xE000).contains(lo))
                        {
                            let c = 0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00);
                            value.push(char::from_u32(c).unwrap_or('\u{FFFD}'));
                            i += 12;
                            continue;
                        }
                    }
                    value.push(char::from_u32(hi).unwrap_or('\u{FFFD}'));
                    i += 6;
                    continue;
                }
            }
            // Not an escape JSON knows: keep what was typed.
            value.push('\\');
            i += 1;
        }
        points.push((value.len(), 1 + b.len()));
        ValueMap {
            base,
            value,
            points,
            shift: 0,
            raw_len: 1 + body.len(),
        }
    }

    /// Source offset of a value offset.
    pub fn to_source(&self, v: usize) -> usize {
        if self.points.is_empty() {
            return self.base + (v + self.shift).min(self.raw_len);
        }
        let i = match self.points.binary_search_by_key(&v, |p| p.0) {
            Ok(i) => i,
            Err(i) => i.saturating_sub(1),
        };
        self.base + self.points[i].1
    }

    /// Source span of a value range.
    pub fn span(&self, range: std::ops::Range<usize>) -> Span {
        Span::new(self.to_source(range.start), self.to_source(range.end))
    }

    /// True when `range` of the value is spelled literally in the source (no escapes inside),
    /// so an edit of that source span replaces exactly that text.
    pub fn is_literal(&self, range: std::ops::Range<usize>) -> bool {
        let s = self.span(range.clone());
        s.len() == range.len()
    }
}

/// Index of the first `"` not escaped by a backslash.
fn closing_quote(body: &str) -> Option<usize> {
    let b = body.as_bytes();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'\\' => i += 2,
            b'"' => return Some(i),
            _ => i += 1,
        }
    }
    None
}

fn hex4(s: &str, at: usize) -> Option<u32> {
    let h = s.get(at..at + 4)?;
    if !h.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    u32::from_str_radix(h, 16).ok()
}

/// The value map of a token of the file.
pub fn token_map(file: &SourceFile, span: Span) -> ValueMap {
    ValueMap::new(&file.text[span.range()], span.start())
}

/// An argument of a step (one or several tokens joined with one space) mapped to the source.
#[derive(Debug, Clone)]
pub struct ArgMap {
    /// (value offset where the token starts, its map).
    parts: Vec<(usize, ValueMap)>,
}

impl ArgMap {
    pub fn new(file: &SourceFile, step: &Step, arg: &Arg) -> ArgMap {
        let mut parts = Vec::with_capacity(arg.tokens.len());
        let mut at = 0;
        for (k, t) in arg.tokens.iter().enumerate() {
            if k > 0 {
                at += 1;
            }
            let Some(span) = step.token_spans(file).get(*t) else {
                break;
            };
            let map = token_map(file, span);
            let len = map.value.len();
            parts.push((at, map));
            at += len;
        }
        ArgMap { parts }
    }

    fn part(&self, v: usize) -> Option<&(usize, ValueMap)> {
        self.parts
            .iter()
            .rev()
            .find(|(start, _)| *start <= v)
            .or(self.parts.first())
    }

    /// The source span of a value range, when it lies inside one token.
    pub fn span(&self, range: std::ops::Range<usize>) -> Option<Span> {
        let (start, map) = self.part(range.start)?;
        let local = range.start - start..range.end.saturating_sub(*start);
        if local.end > map.value.len() {
            return None;
        }
        Some(map.span(local))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn maps_escaped_json_tokens() {
        let raw = r#""id=\"login\" label=caf\u00e9 😀""#;
        let m = ValueMap::new(raw, 10);
        assert_eq!(m.value, "id=\"login\" label=café 😀");
        let l = m.value.find("login").unwrap();
        assert_eq!(m.to_source(l), 10 + raw.find("login").unwrap());
        let label = m.value.find("label").unwrap();
        assert_eq!(&raw[m.to_source(label) - 10..][..5], "label");
        let emoji = m.value.find('😀').unwrap();
        assert_eq!(m.to_source(emoji), 10 + raw.find('😀').unwrap());
        assert!(m.is_literal(l..l + 5));
        assert!(!m.is_literal(m.value.find('é').unwrap()..m.value.len()));
    }

    #[test]
    fn unterminated_and_plain_tokens() {
        let m = ValueMap::new(r#""label=\"Sig"#, 0);
        assert_eq!(m.value, "label=\"Sig");
        assert_eq!(m.to_source(m.value.len()), 12);
        let p = ValueMap::new("\"plain\"", 5);
        assert_eq!(p.value, "plain");
        assert_eq!(p.to_source(0), 6);
        assert_eq!(p.to_source(5), 11);
        let b = ValueMap::new("id=x", 3);
        assert_eq!(b.to_source(2), 5);
        let pair = ValueMap::new(r#""\ud83d\ude00x""#, 0);
        assert_eq!(pair.value, "😀x");
        assert_eq!(pair.to_source(4), 13);
    }
}
