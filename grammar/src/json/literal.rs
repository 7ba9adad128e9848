//! Decoding one JSON string literal (a quoted token, an env value) with `JSON.parse` semantics,
//! lone UTF-16 surrogates included.

use std::borrow::Cow;

use crate::text::find_string_stop;

/// Why a quoted token is not a JSON string literal.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StringLiteralError {
    /// Byte offset inside the literal (including its opening quote).
    pub offset: usize,
    pub len: usize,
    pub kind: StringLiteralErrorKind,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StringLiteralErrorKind {
    /// `\x` where x is not one of `" \ / b f n r t u`.
    InvalidEscape,
    /// `\u` not followed by four hex digits.
    InvalidUnicodeEscape,
    /// A raw character U+0000–U+001F (tab and CR included) inside the quotes.
    ControlCharacter,
    /// Text after the closing quote (env values must be one literal).
    TrailingText,
    /// No closing quote.
    Unterminated,
}

/// Lone UTF-16 surrogates (`\uD800`, which JavaScript strings can hold) are kept as the
/// private-use code points U+10F000–U+10F7FF; [`write_string`] turns them back into `\udXXX`
/// escapes, so output and plan digests match agent-device's. (A script that contains those
/// private-use characters literally would print them as escapes: no real script does.)
pub const LONE_SURROGATE_BASE: u32 = 0x10F000;

/// The stand-in character for a lone surrogate code unit.
pub fn lone_surrogate_char(unit: u32) -> char {
    char::from_u32(LONE_SURROGATE_BASE + (unit - 0xD800)).unwrap_or('\u{FFFD}')
}

/// The surrogate code unit a stand-in character represents.
pub fn as_lone_surrogate(c: char) -> Option<u32> {
    let c = c as u32;
    (LONE_SURROGATE_BASE..LONE_SURROGATE_BASE + 0x800)
        .contains(&c)
        .then(|| c - LONE_SURROGATE_BASE + 0xD800)
}

/// Decodes a JSON string literal (`raw` includes both quotes), with `JSON.parse` semantics.
/// `lone_surrogate` reports that a lone surrogate was kept as its stand-in character.
pub fn decode_string_literal(raw: &str) -> Result<Decoded, StringLiteralError> {
    decode_string_literal_cow(raw).map(|d| Decoded {
        value: d.value.into_owned(),
        lone_surrogate: d.lone_surrogate,
    })
}

/// [`decode_string_literal`] without copying when the literal has no escape: the value then
/// borrows the text between the quotes.
pub fn decode_string_literal_cow(raw: &str) -> Result<DecodedCow<'_>, StringLiteralError> {
    debug_assert!(raw.starts_with('"'));
    let b = raw.as_bytes();
    let err = |offset, len, kind| Err(StringLiteralError { offset, len, kind });
    // The stop bytes are ASCII, so the scan never stops inside a multi-byte character.
    let i = find_string_stop(b, 1);
    match b.get(i) {
        None => err(0, raw.len(), StringLiteralErrorKind::Unterminated),
        Some(b'"') => {
            let end = i + 1;
            if end != raw.len() {
                return err(end, raw.len() - end, StringLiteralErrorKind::TrailingText);
            }
            Ok(DecodedCow {
                value: Cow::Borrowed(&raw[1..i]),
                lone_surrogate: false,
            })
        }
        Some(b'\\') => {
            let mut out = String::with_capacity(raw.len());
            let lone_surrogate = decode_escaped(raw, i, &mut out)?;
            Ok(DecodedCow {
                value: Cow::Owned(out),
                lone_surrogate,
            })
        }
        Some(_) => err(i, 1, StringLiteralErrorKind::ControlCharacter),
    }
}

/// Whether `raw` is a string literal `JSON.parse` accepts (the error of
/// [`decode_string_literal`] when not), without building its value.
pub fn validate_string_literal(raw: &str) -> Result<(), StringLiteralError> {
    let i = find_string_stop(raw.as_bytes(), 1);
    match raw.as_bytes().get(i) {
        Some(b'\\') => decode_escaped(raw, i, &mut Discard).map(|_| ()),
        _ => decode_string_literal_cow(raw).map(|_| ()),
    }
}

/// Where [`decode_escaped`] writes the value: a `String`, or nowhere when only validity is asked.
trait Sink {
    fn push_str(&mut self, s: &str);
    fn push(&mut self, c: char);
}

impl Sink for String {
    fn push_str(&mut self, s: &str) {
        String::push_str(self, s);
    }
    fn push(&mut self, c: char) {
        String::push(self, c);
    }
}

struct Discard;

impl Sink for Discard {
    fn push_str(&mut self, _: &str) {}
    fn push(&mut self, _: char) {}
}

/// The rest of a literal from its first backslash at `i` (the text before it is plain).
fn decode_escaped(
    raw: &str,
    mut i: usize,
    out: &mut impl Sink,
) -> Result<bool, StringLiteralError> {
    let b = raw.as_bytes();
    let err = |offset, len, kind| Err(StringLiteralError { offset, len, kind });
    let stop = |i: usize| find_string_stop(b, i);
    out.push_str(&raw[1..i]);
    let mut lone_surrogate = false;
    // Invariant: `i` is at a backslash; each round decodes one escape, then copies the
    // unescaped run after it.
    loop {
        let Some(&e) = b.get(i + 1) else {
            return err(i, 1, StringLiteralErrorKind::Unterminated);
        };
        // Where the literal run after the escape starts, and where its scan starts.
        let (mut run, mut next) = (i + 2, i + 2);
        match e {
            // The escaped character is itself: it starts the run (one copy instead of two).
            b'"' | b'\\' | b'/' => run = i + 1,
            b'b' => out.push('\u{08}'),
            b'f' => out.push('\u{0C}'),
            b'n' => out.push('\n'),
            b'r' => out.push('\r'),
            b't' => out.push('\t'),
            b'u' => {
                let unit = read_hex4(raw, i + 2).ok_or(StringLiteralError {
                    offset: i,
                    len: 2,
                    kind: StringLiteralErrorKind::InvalidUnicodeEscape,
                })?;
                (run, next) = (i + 6, i + 6);
                if (0xD800..0xDC00).contains(&unit) {
                    // A high surrogate pairs only with an immediately following \uDC00-\uDFFF.
                    let low = (raw.get(i + 6..i + 8) == Some("\\u"))
                        .then(|| read_hex4(raw, i + 8))
                        .flatten()
                        .filter(|l| (0xDC00..0xE000).contains(l));
                    if let Some(low) = low {
                        (run, next) = (i + 12, i + 12);
                        let cp = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00);
                        out.push(char::from_u32(cp).unwrap_or('\u{FFFD}'));
                    } else {
                        lone_surrogate = true;
                        out.push(lone_surrogate_char(unit));
                    }
                } else if (0xDC00..0xE000).contains(&unit) {
                    lone_surrogate = true;
                    out.push(lone_surrogate_char(unit));
                } else {
                    out.push(char::from_u32(unit).unwrap_or('\u{FFFD}'));
                }
            }
            _ => {
                let other = raw[i + 1..].chars().next().map_or(1, char::len_utf8);
                return err(i, 1 + other, StringLiteralErrorKind::InvalidEscape);
            }
        }
        i = stop(next);
        out.push_str(&raw[run..i]);
        match b.get(i) {
            None => return err(0, raw.len(), StringLiteralErrorKind::Unterminated),
            Some(b'"') => {
                let end = i + 1;
                if end != raw.len() {
                    return err(end, raw.len() - end, StringLiteralErrorKind::TrailingText);
                }
                return Ok(lone_surrogate);
            }
            Some(b'\\') => {}
            Some(_) => return err(i, 1, StringLiteralErrorKind::ControlCharacter),
        }
    }
}

/// A decoded literal that borrows from the source when it had no escape.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DecodedCow<'a> {
    pub value: std::borrow::Cow<'a, str>,
    pub lone_surrogate: bool,
}

pub(super) fn read_hex4(raw: &str, at: usize) -> Option<u32> {
    let s = raw.get(at..at + 4)?;
    if s.bytes().all(|b| b.is_ascii_hexdigit()) {
        u32::from_str_radix(s, 16).ok()
    } else {
        None
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Decoded {
    pub value: String,
    pub lone_surrogate: bool,
}
