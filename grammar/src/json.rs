//! JSON the way agent-device's JavaScript sees it: `JSON.parse` of one string literal (quoted
//! tokens and env values), and `JSON.stringify` output (number and string formatting), which the
//! plan digest hashes byte for byte.

use serde_json::Value;
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

/// [`decode_string_literal`] into `out` (cleared first), so a caller can reuse one buffer;
/// returns whether a lone surrogate was kept.
pub fn decode_string_literal_into(raw: &str, out: &mut String) -> Result<bool, StringLiteralError> {
    out.clear();
    let i = find_string_stop(raw.as_bytes(), 1);
    match raw.as_bytes().get(i) {
        Some(b'\\') => decode_escaped(raw, i, out),
        _ => {
            let d = decode_string_literal_cow(raw)?;
            out.push_str(&d.value);
            Ok(d.lone_surrogate)
        }
    }
}

/// The rest of a literal from its first backslash at `i` (the text before it is plain).
fn decode_escaped(raw: &str, mut i: usize, out: &mut String) -> Result<bool, StringLiteralError> {
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
            c => match as_lone_surrogate(c) {
                Some(unit) => out.push_str(&format!("\\u{unit:04x}")),
                None => out.push(c),
            },
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
        s.push(if n > 0 { '+' } else { '-' });
        s.push_str(&(n - 1).abs().to_string());
    }
    s
}

/// A value as `JSON.parse` builds it: numbers are doubles (`1e999` is Infinity), objects keep
/// first-insertion order with the last duplicate's value, strings may hold lone surrogates.
#[derive(Debug, Clone, PartialEq)]
pub enum JsValue {
    Null,
    Bool(bool),
    Number(f64),
    String(String),
    Array(Vec<JsValue>),
    Object(Vec<(String, JsValue)>),
}

impl JsValue {
    pub fn get(&self, key: &str) -> Option<&JsValue> {
        match self {
            JsValue::Object(members) => members.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }
    /// `JSON.stringify(value)` (non-finite numbers print as `null`).
    pub fn stringify(&self) -> String {
        let mut out = String::new();
        self.write(&mut out);
        out
    }
    fn write(&self, out: &mut String) {
        match self {
            JsValue::Null => out.push_str("null"),
            JsValue::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
            JsValue::Number(n) => out.push_str(&js_number_to_string(*n)),
            JsValue::String(s) => write_string(out, s),
            JsValue::Array(items) => {
                out.push('[');
                for (i, v) in items.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    v.write(out);
                }
                out.push(']');
            }
            JsValue::Object(members) => {
                out.push('{');
                for (i, (k, v)) in members.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    write_string(out, k);
                    out.push(':');
                    v.write(out);
                }
                out.push('}');
            }
        }
    }
}

/// `JSON.parse(text)`. None when JavaScript would throw.
pub fn parse_js(text: &str) -> Option<JsValue> {
    let mut p = JsParser {
        s: text.as_bytes(),
        text,
        i: 0,
    };
    p.ws();
    let v = p.value()?;
    p.ws();
    (p.i == p.s.len()).then_some(v)
}

struct JsParser<'a> {
    s: &'a [u8],
    text: &'a str,
    i: usize,
}

impl JsParser<'_> {
    fn ws(&mut self) {
        while self.i < self.s.len() && matches!(self.s[self.i], b' ' | b'\t' | b'\n' | b'\r') {
            self.i += 1;
        }
    }
    fn eat(&mut self, lit: &str) -> Option<()> {
        self.text[self.i..]
            .starts_with(lit)
            .then(|| self.i += lit.len())
    }
    fn value(&mut self) -> Option<JsValue> {
        match *self.s.get(self.i)? {
            b'{' => {
                self.i += 1;
                let mut members: Vec<(String, JsValue)> = Vec::new();
                self.ws();
                if self.eat("}").is_some() {
                    return Some(JsValue::Object(members));
                }
                loop {
                    self.ws();
                    let key = self.string()?;
                    self.ws();
                    self.eat(":")?;
                    self.ws();
                    let v = self.value()?;
                    match members.iter_mut().find(|(k, _)| *k == key) {
                        Some(slot) => slot.1 = v,
                        None => members.push((key, v)),
                    }
                    self.ws();
                    if self.eat(",").is_some() {
                        continue;
                    }
                    self.eat("}")?;
                    return Some(JsValue::Object(members));
                }
            }
            b'[' => {
                self.i += 1;
                let mut items = Vec::new();
                self.ws();
                if self.eat("]").is_some() {
                    return Some(JsValue::Array(items));
                }
                loop {
                    self.ws();
                    items.push(self.value()?);
                    self.ws();
                    if self.eat(",").is_some() {
                        continue;
                    }
                    self.eat("]")?;
                    return Some(JsValue::Array(items));
                }
            }
            b'"' => self.string().map(JsValue::String),
            b't' => self.eat("true").map(|_| JsValue::Bool(true)),
            b'f' => self.eat("false").map(|_| JsValue::Bool(false)),
            b'n' => self.eat("null").map(|_| JsValue::Null),
            _ => self.number(),
        }
    }
    fn string(&mut self) -> Option<String> {
        if self.s.get(self.i) != Some(&b'"') {
            return None;
        }
        let start = self.i;
        let mut j = self.i + 1;
        while j < self.s.len() {
            match self.s[j] {
                b'\\' => j += 2,
                b'"' => break,
                _ => j += 1,
            }
        }
        if j >= self.s.len() {
            return None;
        }
        self.i = j + 1;
        decode_string_literal(&self.text[start..=j])
            .ok()
            .map(|d| d.value)
    }
    fn number(&mut self) -> Option<JsValue> {
        let start = self.i;
        let digits = |p: &mut Self| {
            let d = p.i;
            while p.i < p.s.len() && p.s[p.i].is_ascii_digit() {
                p.i += 1;
            }
            p.i - d
        };
        if self.s.get(self.i) == Some(&b'-') {
            self.i += 1;
        }
        match self.s.get(self.i) {
            Some(b'0') => self.i += 1,
            Some(b'1'..=b'9') => {
                digits(self);
            }
            _ => return None,
        }
        if self.s.get(self.i) == Some(&b'.') {
            self.i += 1;
            if digits(self) == 0 {
                return None;
            }
        }
        if matches!(self.s.get(self.i), Some(b'e' | b'E')) {
            self.i += 1;
            if matches!(self.s.get(self.i), Some(b'+' | b'-')) {
                self.i += 1;
            }
            if digits(self) == 0 {
                return None;
            }
        }
        self.text[start..self.i]
            .parse::<f64>()
            .ok()
            .map(JsValue::Number)
    }
}

/// What kind of value a [`RawValue`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum RawKind {
    Null,
    Bool,
    Number,
    String,
    Array,
    Object,
}

/// A value `JSON.parse` accepts, left as its span in the source text: readers that need only a
/// few fields validate the whole text once and decode just those, with no value tree.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct RawValue {
    pub kind: RawKind,
    pub start: usize,
    pub end: usize,
    /// A string without escapes: its value is the text between the quotes.
    pub plain: bool,
}

/// Maps an object member's (decoded) name to the slot its value is recorded in, if any; a
/// `match` on byte strings at the call site beats searching a list of names.
pub(crate) trait KeySlot: Fn(&[u8]) -> Option<usize> + Copy {}
impl<F: Fn(&[u8]) -> Option<usize> + Copy> KeySlot for F {}

/// A validating reader over JSON text with exactly [`parse_js`]'s acceptance.
pub(crate) struct SpanReader<'a> {
    text: &'a str,
    s: &'a [u8],
    i: usize,
    /// Whether the last string value stepped over had no escape.
    plain: bool,
}

impl<'a> SpanReader<'a> {
    pub(crate) fn new(text: &'a str) -> Self {
        SpanReader {
            text,
            s: text.as_bytes(),
            i: 0,
            plain: false,
        }
    }

    /// Validates `text` as one JSON value (surrounding whitespace allowed). For an object, the
    /// value of each member that `key` gives a slot number (the last one, like `JSON.parse`)
    /// lands in `slots`.
    pub(crate) fn document(
        text: &'a str,
        key: impl KeySlot,
        slots: &mut [Option<RawValue>],
    ) -> Option<RawKind> {
        let mut r = SpanReader::new(text);
        r.ws();
        let kind = if r.peek() == Some(b'{') {
            r.object(key, slots)?
        } else {
            r.skip_value()?
        };
        r.ws();
        (r.i == r.s.len()).then_some(kind)
    }

    /// The members of an object `v` that [`document`](Self::document) already validated.
    pub(crate) fn fields(
        text: &'a str,
        v: RawValue,
        key: impl KeySlot,
        slots: &mut [Option<RawValue>],
    ) {
        debug_assert_eq!(v.kind, RawKind::Object);
        let mut r = SpanReader {
            i: v.start,
            ..SpanReader::new(text)
        };
        let read = r.object(key, slots);
        debug_assert!(read.is_some());
    }

    /// The items of an array `v` that [`document`](Self::document) already validated; the
    /// members of object items that `key` names are read on the way (no second pass).
    pub(crate) fn items<K: KeySlot + 'a, const N: usize>(
        text: &'a str,
        v: RawValue,
        key: K,
    ) -> impl Iterator<Item = (RawValue, [Option<RawValue>; N])> + 'a {
        debug_assert_eq!(v.kind, RawKind::Array);
        let mut r = SpanReader {
            i: v.start + 1,
            ..SpanReader::new(text)
        };
        let mut first = true;
        std::iter::from_fn(move || {
            r.ws();
            if r.eat(b']') {
                return None;
            }
            if !first {
                r.eat(b',');
                r.ws();
            }
            first = false;
            let mut slots = [None; N];
            let item = if r.peek() == Some(b'{') {
                let start = r.i;
                r.object(key, &mut slots)?;
                RawValue {
                    kind: RawKind::Object,
                    start,
                    end: r.i,
                    plain: false,
                }
            } else {
                r.value()?
            };
            Some((item, slots))
        })
    }

    /// The decoded value of a string `v` that [`document`](Self::document) already validated.
    pub(crate) fn string(text: &'a str, v: RawValue) -> Cow<'a, str> {
        debug_assert_eq!(v.kind, RawKind::String);
        if v.plain {
            return Cow::Borrowed(&text[v.start + 1..v.end - 1]);
        }
        decode_string_literal_cow(&text[v.start..v.end])
            .map(|d| d.value)
            .unwrap_or_default()
    }

    /// The number `v` (validated JSON number syntax; `1e999` is Infinity, as in JavaScript).
    pub(crate) fn number(text: &str, v: RawValue) -> f64 {
        debug_assert_eq!(v.kind, RawKind::Number);
        crate::text::parse_decimal(&text[v.start..v.end])
    }

    fn peek(&self) -> Option<u8> {
        self.s.get(self.i).copied()
    }
    fn ws(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.i += 1;
        }
    }
    fn eat(&mut self, b: u8) -> bool {
        let hit = self.peek() == Some(b);
        self.i += usize::from(hit);
        hit
    }
    /// One value at `self.i`, as its span.
    fn value(&mut self) -> Option<RawValue> {
        let start = self.i;
        let kind = self.skip_value()?;
        Some(RawValue {
            kind,
            start,
            end: self.i,
            plain: self.plain,
        })
    }

    /// Steps over one value, returning only its kind (cheaper to hand back than a span);
    /// `self.plain` tells whether a string had no escape.
    fn skip_value(&mut self) -> Option<RawKind> {
        let literal = |r: &mut Self, lit: &[u8], kind| {
            r.s[r.i..].starts_with(lit).then(|| {
                r.i += lit.len();
                kind
            })
        };
        self.plain = false;
        match self.peek()? {
            b'{' => self.object(|_: &[u8]| None, &mut []),
            b'[' => {
                self.i += 1;
                self.ws();
                if self.eat(b']') {
                    return Some(RawKind::Array);
                }
                loop {
                    self.ws();
                    self.skip_value()?;
                    self.ws();
                    if self.eat(b',') {
                        continue;
                    }
                    return self.eat(b']').then_some(RawKind::Array);
                }
            }
            b'"' => {
                self.plain = self.string_span()?;
                Some(RawKind::String)
            }
            b't' => literal(self, b"true", RawKind::Bool),
            b'f' => literal(self, b"false", RawKind::Bool),
            b'n' => literal(self, b"null", RawKind::Null),
            _ => self.number_literal(),
        }
    }

    /// An object at `self.i`; members that `key` gives a slot are recorded in `slots`.
    fn object(&mut self, key: impl KeySlot, slots: &mut [Option<RawValue>]) -> Option<RawKind> {
        if !self.eat(b'{') {
            return None;
        }
        self.ws();
        if self.eat(b'}') {
            return Some(RawKind::Object);
        }
        loop {
            self.ws();
            let key_start = self.i;
            let plain = self.string_span()?;
            let slot = if plain {
                key(&self.s[key_start + 1..self.i - 1])
            } else {
                let name = decode_string_literal_cow(&self.text[key_start..self.i]).ok()?;
                key(name.value.as_bytes())
            };
            self.ws();
            if !self.eat(b':') {
                return None;
            }
            self.ws();
            match slot {
                Some(k) => slots[k] = Some(self.value()?),
                None => {
                    self.skip_value()?;
                }
            }
            self.ws();
            if self.eat(b',') {
                continue;
            }
            return self.eat(b'}').then_some(RawKind::Object);
        }
    }

    /// Steps over a string literal at `self.i`: `Some(plain)` when `JSON.parse` accepts it,
    /// `plain` meaning no escape (its value is the text between the quotes).
    #[inline]
    fn string_span(&mut self) -> Option<bool> {
        if self.peek() != Some(b'"') {
            return None;
        }
        let start = self.i;
        // The closing quote as `parse_js` finds it; the decoder then validates any escape or
        // control character.
        let mut j = self.i + 1;
        let mut plain = true;
        loop {
            j = find_string_stop(self.s, j);
            match self.s.get(j)? {
                b'"' => break,
                b'\\' => j += 2,
                _ => j += 1,
            }
            plain = false;
        }
        self.i = j + 1;
        if !plain && decode_string_literal_cow(&self.text[start..=j]).is_err() {
            return None;
        }
        Some(plain)
    }

    fn number_literal(&mut self) -> Option<RawKind> {
        let digits = |p: &mut Self| {
            let d = p.i;
            while p.peek().is_some_and(|b| b.is_ascii_digit()) {
                p.i += 1;
            }
            p.i - d
        };
        self.eat(b'-');
        match self.peek() {
            Some(b'0') => self.i += 1,
            Some(b'1'..=b'9') => {
                digits(self);
            }
            _ => return None,
        }
        if self.eat(b'.') && digits(self) == 0 {
            return None;
        }
        if matches!(self.peek(), Some(b'e' | b'E')) {
            self.i += 1;
            if matches!(self.peek(), Some(b'+' | b'-')) {
                self.i += 1;
            }
            if digits(self) == 0 {
                return None;
            }
        }
        Some(RawKind::Number)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn js_reader_matches_json_parse() {
        assert_eq!(
            parse_js("{\"a\":1e999}").unwrap().get("a"),
            Some(&JsValue::Number(f64::INFINITY))
        );
        assert_eq!(
            parse_js("{\"a\":1,\"b\":2,\"a\":3}").unwrap().stringify(),
            "{\"a\":3,\"b\":2}"
        );
        let deep = format!("{}{}", "[".repeat(500), "]".repeat(500));
        assert!(parse_js(&deep).is_some());
        assert!(parse_js("{\"a\":01}").is_none());
        assert!(parse_js("[1,]").is_none());
        assert!(parse_js(" {} ").is_some());
        assert_eq!(parse_js("\"\\ud800\"").unwrap().stringify(), "\"\\ud800\"");
    }

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

    /// The former decoder, char by char: the reference for the byte-run one.
    mod reference {
        use super::super::*;

        pub(super) fn decode_string_literal(raw: &str) -> Result<Decoded, StringLiteralError> {
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
                                        out.push(lone_surrogate_char(unit));
                                    }
                                } else if (0xDC00..0xE000).contains(&unit) {
                                    lone_surrogate = true;
                                    out.push(lone_surrogate_char(unit));
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
                    c if (c as u32) < 0x20 => {
                        return err(i, 1, StringLiteralErrorKind::ControlCharacter)
                    }
                    c => out.push(c),
                }
            }
            err(0, raw.len(), StringLiteralErrorKind::Unterminated)
        }
    }

    #[test]
    fn decoder_agrees_with_the_char_by_char_decoder() {
        let pieces = [
            "a",
            "é",
            "\\\"",
            "\\\\",
            "\\/",
            "\\n",
            "\\t",
            "\\u00e9",
            "\\ud83d",
            "\\ude00",
            "\\u12",
            "\\x",
            "\\é",
            "\t",
            "\"",
            "\\",
            "xyzxyzxyz",
            "\u{1F600}",
        ];
        let mut seed = 0x5eed_0fde_c0de_d00d_u64;
        for _ in 0..50_000 {
            let mut raw = String::from("\"");
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            for _ in 0..seed % 9 {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                raw.push_str(pieces[(seed % pieces.len() as u64) as usize]);
            }
            if seed & 8 == 0 {
                raw.push('"');
            }
            assert_eq!(
                decode_string_literal(&raw),
                reference::decode_string_literal(&raw),
                "{raw:?}"
            );
        }
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
