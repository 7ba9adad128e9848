//! ECMAScript text semantics the `.ad` reader depends on: its whitespace set, `trim()`,
//! line splitting on `\r?\n`, and `Number(string)`.

/// ECMAScript `WhiteSpace` + `LineTerminator`: the set `/\s/` and `String.prototype.trim` use.
/// Differs from Rust's `char::is_whitespace` (no U+0085 NEL, adds U+FEFF BOM).
pub fn is_js_whitespace(c: char) -> bool {
    matches!(
        c,
        '\t' | '\n' | '\u{0B}' | '\u{0C}' | '\r' | ' ' | '\u{A0}' | '\u{1680}' | '\u{2000}'
            ..='\u{200A}'
                | '\u{2028}'
                | '\u{2029}'
                | '\u{202F}'
                | '\u{205F}'
                | '\u{3000}'
                | '\u{FEFF}'
    )
}

/// Byte classes: plain (never starts whitespace), ASCII whitespace, or the lead byte of a
/// character that may be whitespace (U+00A0, U+1680, U+2000–U+205F, U+3000, U+FEFF).
pub(crate) const PLAIN: u8 = 0;
pub(crate) const ASCII_SPACE: u8 = 1;
pub(crate) const MAYBE_SPACE: u8 = 2;
pub(crate) static CLASS: [u8; 256] = {
    let mut t = [PLAIN; 256];
    let mut i = 0;
    while i < 256 {
        t[i] = match i as u8 {
            b'\t' | b'\n' | 0x0B | 0x0C | b'\r' | b' ' => ASCII_SPACE,
            0xC2 | 0xE1 | 0xE2 | 0xE3 | 0xEF => MAYBE_SPACE,
            _ => PLAIN,
        };
        i += 1;
    }
    t
};

/// The length of the ECMAScript whitespace character starting at `i`, or 0.
#[inline]
pub(crate) fn whitespace_len(line: &str, i: usize) -> usize {
    match CLASS[usize::from(line.as_bytes()[i])] {
        PLAIN => 0,
        ASCII_SPACE => 1,
        _ => match line[i..].chars().next() {
            Some(c) if is_js_whitespace(c) => c.len_utf8(),
            _ => 0,
        },
    }
}

/// `str.trim()` as ECMAScript defines it.
#[inline]
pub fn js_trim(s: &str) -> &str {
    let (start, end) = js_trim_range(s);
    &s[start..end]
}

/// `str.trimStart()` as ECMAScript defines it, with a shortcut for ASCII.
pub fn js_trim_start(s: &str) -> &str {
    let n = s
        .bytes()
        .take_while(|b| matches!(b, b'\t' | b'\n' | 0x0B | 0x0C | b'\r' | b' '))
        .count();
    match s.as_bytes().get(n) {
        Some(b) if *b >= 0x80 => s[n..].trim_start_matches(is_js_whitespace),
        _ => &s[n..],
    }
}

/// The byte range of `s.trim()` inside `s`.
#[inline]
pub fn js_trim_range(s: &str) -> (usize, usize) {
    // Most lines start and end with printable ASCII: nothing to trim.
    let printable = |b: &u8| (0x21..0x7F).contains(b);
    if s.as_bytes().first().is_some_and(printable) && s.as_bytes().last().is_some_and(printable) {
        return (0, s.len());
    }
    let start = s.len() - s.trim_start_matches(is_js_whitespace).len();
    let end = s.trim_end_matches(is_js_whitespace).len();
    if start >= end {
        (start, start)
    } else {
        (start, end)
    }
}

/// One physical line: `start..end` excludes the terminator; `terminator` is 0, 1 (`\n`) or 2 (`\r\n`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RawLine {
    pub start: usize,
    pub end: usize,
    pub terminator: u8,
}

/// Splits like `text.split(/\r?\n/)`: a lone `\r` stays inside its line.
pub fn split_lines(text: &str) -> Vec<RawLine> {
    raw_lines(text).map(|(line, _)| line).collect()
}

/// The lines of [`split_lines`] one by one, each with whether it holds a lone `\r` (one that is
/// not part of its terminator).
pub fn raw_lines(text: &str) -> RawLines<'_> {
    raw_lines_from(text, 0)
}

/// [`raw_lines`] from byte `start` on, which must be the start of a line (0, or just after a
/// line feed).
pub fn raw_lines_from(text: &str, start: usize) -> RawLines<'_> {
    RawLines {
        bytes: text.as_bytes(),
        start,
        done: false,
    }
}

/// Iterator returned by [`raw_lines`].
pub struct RawLines<'a> {
    bytes: &'a [u8],
    start: usize,
    done: bool,
}

impl Iterator for RawLines<'_> {
    type Item = (RawLine, bool);

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        let b = self.bytes;
        let start = self.start;
        let mut lone_cr = false;
        let mut i = start;
        loop {
            i = find_line_break(b, i);
            let (end, terminator, next) = match b.get(i) {
                None => {
                    self.done = true;
                    (i, 0, i)
                }
                Some(b'\n') => (i, 1, i + 1),
                _ if b.get(i + 1) == Some(&b'\n') => (i, 2, i + 2),
                _ => {
                    lone_cr = true;
                    i += 1;
                    continue;
                }
            };
            self.start = next;
            let line = RawLine {
                start,
                end,
                terminator,
            };
            return Some((line, lone_cr));
        }
    }
}

const ONES: u64 = u64::from_le_bytes([0x01; 8]);
const HIGHS: u64 = u64::from_le_bytes([0x80; 8]);

/// The high bit of each byte of `word` that equals `byte` (the classic "has zero byte" test on
/// `word ^ pattern`). The lowest flagged byte is always a true match; false positives only sit
/// above one, which is all a search for the first match needs.
fn bytes_equal(word: u64, byte: u8) -> u64 {
    let x = word ^ (ONES * u64::from(byte));
    x.wrapping_sub(ONES) & !x & HIGHS
}

/// Index of the first byte at or after `i` that `is_stop` accepts, or `b.len()`. Eight bytes at a
/// time, with `flags` (made of [`bytes_equal`] masks) marking the candidate bytes of a word: the
/// texts searched (lines, string literals, argument values) are long enough for this to beat a
/// byte loop, and short enough that a call to a general `memchr` does not pay.
fn find_first(
    b: &[u8],
    mut i: usize,
    flags: impl Fn(u64) -> u64,
    is_stop: impl Fn(u8) -> bool,
) -> usize {
    while let Some(chunk) = b.get(i..i + 8) {
        let found = flags(u64::from_le_bytes(chunk.try_into().expect("8 bytes")));
        if found != 0 {
            return i + (found.trailing_zeros() / 8) as usize;
        }
        i += 8;
    }
    while i < b.len() && !is_stop(b[i]) {
        i += 1;
    }
    i
}

/// Index of the first `\n` or `\r` in `b` at or after `i` (at most `b.len()`), or `b.len()`.
/// `memchr2`, not [`find_first`]: a whole line is long enough (a recorded annotation is ~200 bytes)
/// for its wide loads to pay for the call (−3.8% of a 2 MB check's instructions); the shorter
/// runs the other scanners read are not.
fn find_line_break(b: &[u8], i: usize) -> usize {
    memchr::memchr2(b'\n', b'\r', &b[i..]).map_or(b.len(), |k| i + k)
}

/// The high bit of each byte of `word` below `limit` (at most 0x80); like [`bytes_equal`], the
/// lowest flagged byte is exact (`w - limit…` borrows out of the bytes below it).
fn bytes_below(word: u64, limit: u8) -> u64 {
    word.wrapping_sub(ONES * u64::from(limit)) & !word & HIGHS
}

/// The bytes that end a run of plain JSON string content: `"`, `\\` and control characters.
fn string_stops(word: u64) -> u64 {
    bytes_equal(word, b'"') | bytes_equal(word, b'\\') | bytes_below(word, 0x20)
}

fn is_string_stop(c: u8) -> bool {
    matches!(c, b'"' | b'\\' | 0..0x20)
}

/// Index of the first byte at or after `i` that ends a run of plain JSON string content: `"`, `\\`
/// or a control character (below 0x20, which includes `\n`); `b.len()` when there is none. All
/// three are ASCII, so the scan may start on any byte of a character.
pub(crate) fn find_string_stop(b: &[u8], i: usize) -> usize {
    find_first(b, i, string_stops, is_string_stop)
}

/// [`find_string_stop`] that also stops at any byte of a non-ASCII character: the end of a run of
/// string content that is its own value, already NFC.
pub(crate) fn find_ascii_string_stop(b: &[u8], i: usize) -> usize {
    find_first(
        b,
        i,
        |w| string_stops(w) | (w & HIGHS),
        |c| is_string_stop(c) || c >= 0x80,
    )
}

/// Index of the first byte at or after `i` that may end a run of selector term characters in
/// ASCII text: a byte up to the space (whitespace, or another control character the caller
/// looks at), a quote, a backslash or `|`; `b.len()` when there is none.
pub(crate) fn find_term_stop(b: &[u8], i: usize) -> usize {
    find_first(
        b,
        i,
        |w| {
            bytes_equal(w, b'"')
                | bytes_equal(w, b'\'')
                | bytes_equal(w, b'\\')
                | bytes_equal(w, b'|')
                | bytes_below(w, 0x21)
        },
        |c| matches!(c, 0..=0x20 | b'"' | b'\'' | b'\\' | b'|'),
    )
}

/// Index of the first `quote` or backslash at or after `i`, or `b.len()`.
pub(crate) fn find_quote_or_escape(b: &[u8], i: usize, quote: u8) -> usize {
    find_first(
        b,
        i,
        |w| bytes_equal(w, quote) | bytes_equal(w, b'\\'),
        |c| c == quote || c == b'\\',
    )
}

/// Index of the first `byte` (ASCII) in `b` at or after `i`, or `b.len()`.
pub(crate) fn find_byte(b: &[u8], i: usize, byte: u8) -> usize {
    find_first(b, i, |w| bytes_equal(w, byte), |c| c == byte)
}

/// ECMAScript `Number(string)`: trims JS whitespace; empty → 0; decimal with optional sign,
/// fraction and exponent; `Infinity` with optional sign; unsigned `0x`/`0o`/`0b` integers.
/// Anything else is NaN.
pub fn js_number(s: &str) -> f64 {
    let t = js_trim(s);
    if t.is_empty() {
        return 0.0;
    }
    let b = t.as_bytes();
    if b.len() > 2 && b[0] == b'0' {
        let radix = match b[1] {
            b'x' | b'X' => 16,
            b'o' | b'O' => 8,
            b'b' | b'B' => 2,
            _ => 0,
        };
        if radix != 0 {
            let digits = &t[2..];
            if digits.chars().all(|c| c.is_digit(radix)) {
                // Large values lose precision exactly as a double would.
                return digits.chars().fold(0.0, |acc, c| {
                    acc * radix as f64 + c.to_digit(radix).unwrap() as f64
                });
            }
            return f64::NAN;
        }
    }
    let (sign, unsigned) = match b[0] {
        b'+' => (1.0, &t[1..]),
        b'-' => (-1.0, &t[1..]),
        _ => (1.0, t),
    };
    if unsigned == "Infinity" {
        return sign * f64::INFINITY;
    }
    if !is_decimal_literal(unsigned) {
        return f64::NAN;
    }
    sign * parse_decimal(unsigned)
}

/// `s.parse::<f64>()` for text already known to be a decimal literal, with a shortcut for the
/// usual short run of digits (up to 15 digits is exact in a double, so the result is the same).
pub(crate) fn parse_decimal(s: &str) -> f64 {
    let b = s.as_bytes();
    if !b.is_empty() && b.len() <= 15 && b.iter().all(u8::is_ascii_digit) {
        return b.iter().fold(0u64, |n, &d| n * 10 + u64::from(d - b'0')) as f64;
    }
    s.parse::<f64>().unwrap_or(f64::NAN)
}

/// StrUnsignedDecimalLiteral: digits [. digits] [e[+-]digits] | . digits [exp]; at least one digit.
fn is_decimal_literal(s: &str) -> bool {
    let b = s.as_bytes();
    let mut i = 0;
    let int_start = i;
    while i < b.len() && b[i].is_ascii_digit() {
        i += 1;
    }
    let int_digits = i - int_start;
    let mut frac_digits = 0;
    if i < b.len() && b[i] == b'.' {
        i += 1;
        let f = i;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        frac_digits = i - f;
    }
    if int_digits + frac_digits == 0 {
        return false;
    }
    if i < b.len() && (b[i] == b'e' || b[i] == b'E') {
        i += 1;
        if i < b.len() && (b[i] == b'+' || b[i] == b'-') {
            i += 1;
        }
        let e = i;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        if i == e {
            return false;
        }
    }
    i == b.len()
}

/// The reader's `isNumeric`: non-empty and `Number(t)` is not NaN.
pub fn is_numeric(s: &str) -> bool {
    if s.is_empty() {
        return false;
    }
    let t = js_trim(s);
    let b = t.as_bytes();
    if b.len() > 2 && b[0] == b'0' && matches!(b[1], b'x' | b'X' | b'o' | b'O' | b'b' | b'B') {
        return !js_number(t).is_nan();
    }
    // A decimal literal always parses, so the answer needs no float conversion.
    let unsigned = t.strip_prefix(['+', '-']).unwrap_or(t);
    t.is_empty() || unsigned == "Infinity" || is_decimal_literal(unsigned)
}

/// The reader's flag-integer rule `J(v)`: non-empty, finite, ≥ 0, floored.
pub fn js_flag_integer(s: &str) -> Option<f64> {
    if s.is_empty() {
        return None;
    }
    let n = js_number(s);
    if !n.is_finite() || n < 0.0 {
        None
    } else {
        Some(n.floor())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn is_numeric_matches_number_not_nan() {
        for s in [
            "",
            " ",
            "0",
            "-1.5",
            "+.5",
            "1e3",
            "1e",
            "0x1F",
            "0xG",
            "0b102",
            "Infinity",
            "-Infinity",
            "infinity",
            "1 2",
            "12px",
            ".",
            "+",
            "-",
            "\u{a0}7\u{a0}",
            "0o17",
            "00",
        ] {
            assert_eq!(
                is_numeric(s),
                !s.is_empty() && !js_number(s).is_nan(),
                "{s:?}"
            );
        }
    }

    #[test]
    fn number_matches_ecmascript() {
        assert_eq!(js_number(" 12 "), 12.0);
        assert_eq!(js_number(""), 0.0);
        assert_eq!(js_number(" "), 0.0);
        assert_eq!(js_number("0x10"), 16.0);
        assert_eq!(js_number("1e2"), 100.0);
        assert_eq!(js_number(".5"), 0.5);
        assert_eq!(js_number("5."), 5.0);
        assert_eq!(js_number("-Infinity"), f64::NEG_INFINITY);
        assert!(js_number("-0x10").is_nan());
        assert!(js_number("1_000").is_nan());
        assert!(js_number("abc").is_nan());
        assert!(js_number("infinity").is_nan());
        assert!(js_number("1e").is_nan());
        assert!(js_number(".").is_nan());
    }

    #[test]
    fn lines_split_only_on_lf_and_crlf() {
        let cr: Vec<bool> = raw_lines("a\r\nb\rc\nd\r\r\n\r")
            .map(|(_, cr)| cr)
            .collect();
        assert_eq!(cr, [false, true, true, true]);
        let long = format!(
            "{}\r{}\n{}\r\n",
            "x".repeat(13),
            "y".repeat(9),
            "z".repeat(8)
        );
        let l = split_lines(&long);
        assert_eq!((l[0].start, l[0].end, l[0].terminator), (0, 23, 1));
        assert_eq!((l[1].start, l[1].end, l[1].terminator), (24, 32, 2));
        assert_eq!((l[2].start, l[2].end, l[2].terminator), (34, 34, 0));
        let l = split_lines("a\r\nb\rc\nd");
        assert_eq!(l.len(), 3);
        assert_eq!((l[0].start, l[0].end, l[0].terminator), (0, 1, 2));
        assert_eq!((l[1].start, l[1].end), (3, 6));
        assert_eq!((l[2].start, l[2].end, l[2].terminator), (7, 8, 0));
    }

    #[test]
    fn string_stops_are_found_in_and_after_whole_words() {
        let naive = |b: &[u8], i: usize| {
            (i..b.len())
                .find(|&j| matches!(b[j], b'"' | b'\\' | 0..0x20))
                .unwrap_or(b.len().max(i))
        };
        let mut text = "abcdefgh\u{e9}\u{3000}xyz".repeat(3).into_bytes();
        for stop in [b'"', b'\\', b'\n', 0x1F, 0x00] {
            for at in 0..text.len() {
                let saved = text[at];
                text[at] = stop;
                for from in 0..=text.len() {
                    assert_eq!(find_string_stop(&text, from), naive(&text, from));
                }
                text[at] = saved;
            }
        }
        assert_eq!(find_string_stop(b"ab", 3), 3);
    }

    /// Every scanner against a byte-by-byte search, from every start, over texts made of its
    /// stop bytes, the bytes one above them (which a match just below can flag falsely) and
    /// plain text, at every length around the eight-byte steps.
    #[test]
    fn scanners_agree_with_a_byte_search() {
        let naive = |b: &[u8], i: usize, stop: &dyn Fn(u8) -> bool| {
            (i..b.len()).find(|&j| stop(b[j])).unwrap_or(b.len().max(i))
        };
        let alphabet: &[u8] = b"\"#\\]'(|}$% \x00\x01\x1f!a\xc3\xa9";
        let mut rng = ad_tests::gen::Rng::new(0x9e37_79b9_7f4a_7c15);
        for _ in 0..3_000 {
            let len = rng.below(27);
            let text: Vec<u8> = (0..len).map(|_| *rng.pick(alphabet)).collect();
            let b = &text[..];
            for from in 0..=len + 1 {
                assert_eq!(
                    find_string_stop(b, from),
                    naive(b, from, &|c| matches!(c, b'"' | b'\\' | 0..0x20)),
                    "{text:?} from {from}"
                );
                assert_eq!(
                    find_ascii_string_stop(b, from),
                    naive(b, from, &|c| matches!(c, b'"' | b'\\' | 0..0x20 | 0x80..)),
                    "{text:?} from {from}"
                );
                assert_eq!(
                    find_term_stop(b, from),
                    naive(b, from, &|c| matches!(
                        c,
                        0..=0x20 | b'"' | b'\'' | b'\\' | b'|'
                    )),
                    "{text:?} from {from}"
                );
                for quote in [b'"', b'\''] {
                    assert_eq!(
                        find_quote_or_escape(b, from, quote),
                        naive(b, from, &|c| c == quote || c == b'\\'),
                        "{text:?} from {from}"
                    );
                }
                assert_eq!(
                    find_byte(b, from, b'$'),
                    naive(b, from, &|c| c == b'$'),
                    "{text:?} from {from}"
                );
            }
        }
    }

    #[test]
    fn decimal_shortcut_agrees_with_the_float_parser() {
        for s in [
            "0",
            "7",
            "00012",
            "123456789012345",
            "999999999999999",
            "1234567890123456",
            "9007199254740993",
            "1.5",
            "-3",
            "1e3",
            "311.66666666666663",
            "1e999",
        ] {
            assert_eq!(
                parse_decimal(s).to_bits(),
                s.parse::<f64>().unwrap().to_bits(),
                "{s}"
            );
        }
    }

    #[test]
    fn trim_uses_the_ecmascript_set() {
        assert_eq!(js_trim_start(" \t\u{3000}\u{A0}a "), "a ");
        assert_eq!(js_trim_start("  \u{85}a"), "\u{85}a");
        assert_eq!(js_trim("\u{FEFF} a \u{3000}"), "a");
        assert_eq!(js_trim("\u{85}a"), "\u{85}a");
    }
}
