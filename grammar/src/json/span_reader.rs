//! A validating JSON reader that leaves values as spans of the source ([`SpanReader`]), for readers
//! that need only a few fields: no value tree is built.

use std::borrow::Cow;

use super::decode_string_literal_cow;
use crate::text::find_string_stop;

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
