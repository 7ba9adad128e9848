//! JSON the way agent-device's JavaScript sees it: `JSON.parse` of one string literal (quoted
//! tokens and env values), and `JSON.stringify` output (number and string formatting), which the
//! plan digest hashes byte for byte.

use serde_json::Value;

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

/// Decodes a JSON string literal (`raw` includes both quotes). Lone surrogates from `\uD800`,
/// which JavaScript accepts, decode to U+FFFD here; `lone_surrogate` reports that it happened.
pub fn decode_string_literal(raw: &str) -> Result<Decoded, StringLiteralError> {
    debug_assert!(raw.starts_with('"'));
    let mut out = String::with_capacity(raw.len());
    let mut lone_surrogate = false;
    let mut chars = raw[1..].char_indices().peekable();
    let err = |offset, len, kind| Err(StringLiteralError { offset, len, kind });
    while let Some((rel, c)) = chars.next() {
        let i = rel + 1;
        match c {
            '"' => {
                let end = i + 1;
                if end != raw.len() {
                    return err(end, raw.len() - end, StringLiteralErrorKind::TrailingText);
                }
                return Ok(Decoded {
                    value: out,
                    lone_surrogate,
                });
            }
            '\\' => {
                let Some((_, e)) = chars.next() else {
                    return err(i, 1, StringLiteralErrorKind::Unterminated);
                };
                match e {
                    '"' => out.push('"'),
                    '\\' => out.push('\\'),
                    '/' => out.push('/'),
                    'b' => out.push('\u{08}'),
                    'f' => out.push('\u{0C}'),
                    'n' => out.push('\n'),
                    'r' => out.push('\r'),
                    't' => out.push('\t'),
                    'u' => {
                        let unit = read_hex4(raw, i + 2).ok_or(StringLiteralError {
                            offset: i,
                            len: 2,
                            kind: StringLiteralErrorKind::InvalidUnicodeEscape,
                        })?;
                        for _ in 0..4 {
                            chars.next();
                        }
                        if (0xD800..0xDC00).contains(&unit) {
                            // A high surrogate pairs only with an immediately following \uDC00-\uDFFF.
                            let low = (raw.get(i + 6..i + 8) == Some("\\u"))
                                .then(|| read_hex4(raw, i + 8))
                                .flatten()
                                .filter(|l| (0xDC00..0xE000).contains(l));
                            if let Some(low) = low {
                                for _ in 0..6 {
                                    chars.next();
                                }
                                let cp = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00);
                                out.push(char::from_u32(cp).unwrap_or('\u{FFFD}'));
                            } else {
                                lone_surrogate = true;
                                out.push('\u{FFFD}');
                            }
                        } else if (0xDC00..0xE000).contains(&unit) {
                            lone_surrogate = true;
                            out.push('\u{FFFD}');
                        } else {
                            out.push(char::from_u32(unit).unwrap_or('\u{FFFD}'));
                        }
                    }
                    other => {
                        return err(
                            i,
                            1 + other.len_utf8(),
                            StringLiteralErrorKind::InvalidEscape,
                        )
                    }
                }
            }
            c if (c as u32) < 0x20 => return err(i, 1, StringLiteralErrorKind::ControlCharacter),
            c => out.push(c),
        }
    }
    err(0, raw.len(), StringLiteralErrorKind::Unterminated)
}

fn read_hex4(raw: &str, at: usize) -> Option<u32> {
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

/// JSON text with every lone-surrogate escape (`\uD800` not paired with a low surrogate, or a
/// lone `\uDC00`) replaced by `\uFFFD`: `JSON.parse` accepts them, serde_json does not.
/// Returns None when there was nothing to replace.
pub fn sanitize_lone_surrogates(json: &str) -> Option<String> {
    let b = json.as_bytes();
    let hex_at = |i: usize| -> Option<u32> { read_hex4(json, i) };
    let mut out: Option<String> = None;
    let mut last = 0;
    let mut i = 0;
    while i + 1 < b.len() {
        if b[i] != b'\\' {
            i += 1;
            continue;
        }
        if b[i + 1] != b'u' {
            i += 2; // any other escape, including `\\`
            continue;
        }
        let Some(unit) = hex_at(i + 2) else {
            i += 2;
            continue;
        };
        let paired = (0xD800..0xDC00).contains(&unit)
            && json.get(i + 6..i + 8) == Some("\\u")
            && hex_at(i + 8).is_some_and(|l| (0xDC00..0xE000).contains(&l));
        if paired {
            i += 12;
            continue;
        }
        if (0xD800..0xE000).contains(&unit) {
            let o = out.get_or_insert_with(String::new);
            o.push_str(&json[last..i]);
            o.push_str("\\ufffd");
            last = i + 6;
        }
        i += 6;
    }
    out.map(|mut o| {
        o.push_str(&json[last..]);
        o
    })
}

/// A JSON number value for an ECMAScript number (integers stay integers, as JS prints them).
pub fn js_number_value(n: f64) -> Value {
    if n.is_finite() && n.fract() == 0.0 && n.abs() < 9.007_199_254_740_992e15 {
        Value::from(n as i64)
    } else {
        serde_json::Number::from_f64(n)
            .map(Value::Number)
            .unwrap_or(Value::Null)
    }
}

/// `JSON.stringify(value)`, optionally with object keys sorted recursively (the digest's
/// canonical form).
pub fn stringify(value: &Value, sort_keys: bool) -> String {
    let mut out = String::new();
    write_value(&mut out, value, sort_keys);
    out
}

fn write_value(out: &mut String, value: &Value, sort_keys: bool) {
    match value {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => {
            if let Some(i) = n.as_i64() {
                out.push_str(&i.to_string());
            } else if let Some(u) = n.as_u64() {
                out.push_str(&u.to_string());
            } else {
                out.push_str(&js_number_to_string(n.as_f64().unwrap_or(f64::NAN)));
            }
        }
        Value::String(s) => write_string(out, s),
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_value(out, item, sort_keys);
            }
            out.push(']');
        }
        Value::Object(map) => {
            out.push('{');
            let mut keys: Vec<&String> = map.keys().collect();
            if sort_keys {
                // JS sorts by UTF-16 code units; for the BMP that equals byte order of UTF-8
                // except around surrogates, which keys here never contain.
                keys.sort();
            }
            for (i, key) in keys.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_string(out, key);
                out.push(':');
                write_value(out, &map[key], sort_keys);
            }
            out.push('}');
        }
    }
}

/// `JSON.stringify` of a string.
pub fn write_string(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\u{08}' => out.push_str("\\b"),
            '\u{0C}' => out.push_str("\\f"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
}

/// `JSON.stringify` of a string, as a new `String`.
pub fn quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    write_string(&mut out, s);
    out
}

/// ECMAScript `Number::toString(10)` (JSON prints non-finite numbers as `null`).
pub fn js_number_to_string(x: f64) -> String {
    if !x.is_finite() {
        return "null".into();
    }
    if x == 0.0 {
        return "0".into();
    }
    let sci = format!("{:e}", x.abs());
    let (mantissa, exp) = sci.split_once('e').expect("LowerExp has an exponent");
    let digits: String = mantissa.chars().filter(|c| *c != '.').collect();
    let k = digits.len() as i32;
    let n = exp.parse::<i32>().expect("exponent") + 1;
    let mut s = String::new();
    if x < 0.0 {
        s.push('-');
    }
    if k <= n && n <= 21 {
        s.push_str(&digits);
        s.extend(std::iter::repeat_n('0', (n - k) as usize));
    } else if 0 < n && n <= 21 {
        s.push_str(&digits[..n as usize]);
        s.push('.');
        s.push_str(&digits[n as usize..]);
    } else if -6 < n && n <= 0 {
        s.push_str("0.");
        s.extend(std::iter::repeat_n('0', (-n) as usize));
        s.push_str(&digits);
    } else {
        s.push_str(&digits[..1]);
        if k > 1 {
            s.push('.');
            s.push_str(&digits[1..]);
        }
        s.push('e');
        s.push(if n - 1 >= 0 { '+' } else { '-' });
        s.push_str(&(n - 1).abs().to_string());
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_print_like_javascript() {
        assert_eq!(js_number_to_string(1e21), "1e+21");
        assert_eq!(js_number_to_string(1e20), "100000000000000000000");
        assert_eq!(js_number_to_string(0.5), "0.5");
        assert_eq!(js_number_to_string(1e-7), "1e-7");
        assert_eq!(js_number_to_string(123.456), "123.456");
        assert_eq!(js_number_to_string(-0.000001), "-0.000001");
        assert_eq!(js_number_to_string(1.5e300), "1.5e+300");
    }

    #[test]
    fn string_literals_decode_like_json_parse() {
        let ok = |s: &str| decode_string_literal(s).unwrap().value;
        assert_eq!(ok(r#""a\"b""#), "a\"b");
        assert_eq!(ok(r#""\u00e9\ud83d\ude00""#), "é😀");
        assert!(decode_string_literal(r#""\uD800""#).unwrap().lone_surrogate);
        let bad = |s: &str| decode_string_literal(s).unwrap_err().kind;
        assert_eq!(bad(r#""\$""#), StringLiteralErrorKind::InvalidEscape);
        assert_eq!(bad("\"a\tb\""), StringLiteralErrorKind::ControlCharacter);
        assert_eq!(bad(r#""a" x"#), StringLiteralErrorKind::TrailingText);
        assert_eq!(
            bad(r#""\u12""#),
            StringLiteralErrorKind::InvalidUnicodeEscape
        );
    }
}
