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

/// `str.trim()` as ECMAScript defines it.
pub fn js_trim(s: &str) -> &str {
    s.trim_matches(is_js_whitespace)
}

/// The byte range of `s.trim()` inside `s`.
pub fn js_trim_range(s: &str) -> (usize, usize) {
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
    let bytes = text.as_bytes();
    let mut lines = Vec::with_capacity(bytes.len() / 24 + 1);
    let mut start = 0;
    let mut i = 0;
    while let Some(off) = memchr_newline(&bytes[i..]) {
        let nl = i + off;
        let (end, terminator) = if nl > start && bytes[nl - 1] == b'\r' {
            (nl - 1, 2)
        } else {
            (nl, 1)
        };
        lines.push(RawLine {
            start,
            end,
            terminator,
        });
        start = nl + 1;
        i = start;
    }
    lines.push(RawLine {
        start,
        end: bytes.len(),
        terminator: 0,
    });
    lines
}

fn memchr_newline(bytes: &[u8]) -> Option<usize> {
    bytes.iter().position(|&b| b == b'\n')
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
    unsigned
        .parse::<f64>()
        .map(|v| sign * v)
        .unwrap_or(f64::NAN)
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
    !s.is_empty() && !js_number(s).is_nan()
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
        let l = split_lines("a\r\nb\rc\nd");
        assert_eq!(l.len(), 3);
        assert_eq!((l[0].start, l[0].end, l[0].terminator), (0, 1, 2));
        assert_eq!((l[1].start, l[1].end), (3, 6));
        assert_eq!((l[2].start, l[2].end, l[2].terminator), (7, 8, 0));
    }

    #[test]
    fn trim_uses_the_ecmascript_set() {
        assert_eq!(js_trim("\u{FEFF} a \u{3000}"), "a");
        assert_eq!(js_trim("\u{85}a"), "\u{85}a");
    }
}
