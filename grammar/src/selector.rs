//! Selector chains (`key=value` terms ANDed within a segment, `||` alternatives), parsed inside a
//! token with spans that point at the exact characters. The structure comes from a chumsky
//! grammar that accepts every input; a separate pass reports problems in the order agent-device's
//! selector parser would throw them, with its messages.

use chumsky::prelude::*;
use serde::Serialize;

use crate::diagnostic::Span;
use crate::text::{is_js_whitespace, js_trim};

/// String-valued keys.
pub const STRING_KEYS: &[&str] = &[
    "id",
    "role",
    "text",
    "label",
    "value",
    "appname",
    "windowtitle",
];
/// Boolean keys (bare means `=true`).
pub const BOOLEAN_KEYS: &[&str] = &[
    "visible", "hidden", "editable", "selected", "focused", "enabled", "hittable",
];
/// Roles agent-device recognises as common node types (completion, did-you-mean).
pub const COMMON_ROLES: &[&str] = &[
    "button",
    "imagebutton",
    "link",
    "cell",
    "statictext",
    "checkedtextview",
    "textfield",
    "textbox",
    "edittext",
    "textarea",
    "switch",
    "slider",
    "image",
    "imageview",
    "webview",
    "framelayout",
    "linearlayout",
    "relativelayout",
    "constraintlayout",
    "viewgroup",
    "view",
    "listview",
    "recyclerview",
    "collectionview",
    "list",
    "searchfield",
    "segmentedcontrol",
    "group",
    "window",
    "checkbox",
    "radio",
    "menuitem",
    "toolbar",
    "scrollarea",
    "scrollview",
    "nestedscrollview",
    "table",
    "application",
    "navigationbar",
    "tabbar",
    "tab",
    "alert",
    "dialog",
    "header",
];

pub fn is_key(k: &str) -> bool {
    STRING_KEYS.contains(&k) || BOOLEAN_KEYS.contains(&k)
}

/// Spans are byte ranges inside the selector text given to [`parse_chain`].
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SelectorChain {
    pub alternatives: Vec<Segment>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Segment {
    pub span: Span,
    pub terms: Vec<Term>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Term {
    pub span: Span,
    /// The key as written (before `=`), trimmed.
    pub key: Span,
    /// Lowercased key, as matched.
    pub key_name: String,
    /// Raw value text after `=` (None for a bare word).
    pub value: Option<Span>,
    /// The value after unquoting/unescaping (`true` for a bare boolean key).
    pub decoded: Option<String>,
}

impl Term {
    pub fn is_boolean(&self) -> bool {
        BOOLEAN_KEYS.contains(&self.key_name.as_str())
    }
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SelectorError {
    pub kind: SelectorErrorKind,
    pub span: Span,
    /// agent-device's message.
    pub message: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum SelectorErrorKind {
    Empty,
    EmptyAlternative,
    UnclosedQuote,
    InvalidTerm,
    UnknownKey,
    MissingValue,
    InvalidBoolean,
}

type Extra = extra::Default;

/// Raw structure: alternatives → term spans. Built from cheap, allocation-free pieces; whether a
/// quote was left open is decided afterwards from the term's text.
fn structure<'s>() -> impl Parser<'s, &'s str, Vec<(SimpleSpan, Vec<SimpleSpan>)>, Extra> {
    let ws = any()
        .filter(|c: &char| is_js_whitespace(*c))
        .repeated()
        .at_least(1);
    let quoted = |q: char| {
        just(q)
            .then(
                choice((
                    just('\\').then(any()).ignored(),
                    any()
                        .filter(move |c: &char| *c != q && *c != '\\')
                        .ignored(),
                ))
                .repeated(),
            )
            .then(just(q).or_not())
            .ignored()
    };
    let lone_pipe = just('|').then_ignore(just('|').not()).ignored();
    let plain = any()
        .filter(|c: &char| !is_js_whitespace(*c) && !matches!(c, '"' | '\'' | '\\' | '|'))
        .ignored();
    let piece = choice((
        plain,
        quoted('"'),
        quoted('\''),
        just('\\').then(any()).ignored(),
        just('\\').ignored(), // a trailing lone backslash
        lone_pipe,
    ));
    let term = piece.repeated().at_least(1).map_with(|_, e| e.span());
    let segment = term
        .separated_by(ws)
        .allow_leading()
        .allow_trailing()
        .collect::<Vec<_>>()
        .map_with(|terms, e| (e.span(), terms));
    segment
        .separated_by(just("||"))
        .collect::<Vec<_>>()
        .then_ignore(end())
}

/// Does a term's text leave a quote open (the reference toggles on unescaped `"`/`'`)?
fn leaves_quote_open(term: &str) -> bool {
    let mut open: Option<char> = None;
    let mut escaped = false;
    for c in term.chars() {
        if escaped {
            escaped = false;
            continue;
        }
        match c {
            '\\' => escaped = true,
            '"' | '\'' => match open {
                None => open = Some(c),
                Some(q) if q == c => open = None,
                Some(_) => {}
            },
            _ => {}
        }
    }
    open.is_some()
}

/// Parses a selector expression. Never fails: the chain holds every term that could be read, the
/// errors are in agent-device's order (the first is the one it reports).
pub fn parse_chain(text: &str) -> (SelectorChain, Vec<SelectorError>) {
    let raw = structure().parse(text).into_output().unwrap_or_default();
    let mut errors = Vec::new();
    let trimmed = js_trim(text);
    if trimmed.is_empty() {
        errors.push(SelectorError {
            kind: SelectorErrorKind::Empty,
            span: Span::new(0, text.len()),
            message: "Selector expression cannot be empty".into(),
        });
        return (
            SelectorChain {
                alternatives: Vec::new(),
            },
            errors,
        );
    }
    // Fallback split errors come first (the reference splits the whole chain before any segment).
    for (span, terms) in &raw {
        if terms.is_empty() {
            errors.push(SelectorError {
                kind: SelectorErrorKind::EmptyAlternative,
                span: Span::new(span.start, span.end),
                message: format!("Invalid selector fallback expression: {trimmed}"),
            });
            break;
        }
    }
    let mut alternatives = Vec::new();
    for (span, terms) in raw.iter().filter(|(_, t)| !t.is_empty()) {
        let seg_span = trim_span(text, Span::new(span.start, span.end));
        if terms
            .iter()
            .any(|t| leaves_quote_open(&text[t.start..t.end]))
        {
            errors.push(SelectorError {
                kind: SelectorErrorKind::UnclosedQuote,
                span: seg_span,
                message: format!("Unclosed quote in selector: {}", &text[seg_span.range()]),
            });
        }
        let mut out = Vec::new();
        for tspan in terms {
            let tspan = Span::new(tspan.start, tspan.end);
            out.push(term(text, tspan, &mut errors));
        }
        alternatives.push(Segment {
            span: seg_span,
            terms: out,
        });
    }
    (SelectorChain { alternatives }, errors)
}

fn trim_span(text: &str, span: Span) -> Span {
    let s = &text[span.range()];
    let (a, b) = crate::text::js_trim_range(s);
    Span::new(span.start() + a, span.start() + b)
}

fn term(text: &str, span: Span, errors: &mut Vec<SelectorError>) -> Term {
    let raw = &text[span.range()];
    let err = |errors: &mut Vec<SelectorError>, kind, at: Span, message: String| {
        errors.push(SelectorError {
            kind,
            span: at,
            message,
        });
    };
    match raw.find('=') {
        None => {
            let key_name = raw.to_lowercase();
            if !BOOLEAN_KEYS.contains(&key_name.as_str()) {
                err(
                    errors,
                    SelectorErrorKind::InvalidTerm,
                    span,
                    format!("Invalid selector term \"{raw}\", expected key=value"),
                );
            }
            Term {
                span,
                key: span,
                key_name,
                value: None,
                decoded: Some("true".into()),
            }
        }
        Some(eq) => {
            let key = trim_span(text, Span::new(span.start(), span.start() + eq));
            let key_name = text[key.range()].to_lowercase();
            let value = trim_span(text, Span::new(span.start() + eq + 1, span.end()));
            let value_text = &text[value.range()];
            let mut decoded = None;
            if !is_key(&key_name) {
                err(
                    errors,
                    SelectorErrorKind::UnknownKey,
                    key,
                    format!("Unknown selector key: {key_name}"),
                );
            } else if value_text.is_empty() {
                err(
                    errors,
                    SelectorErrorKind::MissingValue,
                    span,
                    format!("Missing selector value for key: {key_name}"),
                );
            } else if BOOLEAN_KEYS.contains(&key_name.as_str()) {
                let v = unquote(value_text).to_lowercase();
                if v != "true" && v != "false" {
                    err(
                        errors,
                        SelectorErrorKind::InvalidBoolean,
                        value,
                        format!("Invalid boolean value for {key_name}: {value_text}"),
                    );
                }
                decoded = Some(v);
            } else {
                decoded = Some(unquote(value_text));
            }
            Term {
                span,
                key,
                key_name,
                value: Some(value),
                decoded,
            }
        }
    }
}

/// A value wrapped in matching quotes is unquoted and unescaped; anything else is literal.
pub fn unquote(value: &str) -> String {
    let t = js_trim(value);
    let wrapped = t.len() >= 2
        && ((t.starts_with('"') && t.ends_with('"')) || (t.starts_with('\'') && t.ends_with('\'')));
    // A single `"` both starts and ends with a quote in the reference too (slice(1,-1) = "").
    if !(wrapped || t == "\"" || t == "'") {
        return t.to_string();
    }
    let inner = if t.len() >= 2 { &t[1..t.len() - 1] } else { "" };
    let mut out = String::with_capacity(inner.len());
    let mut chars = inner.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        let Some(&(_, n)) = chars.peek() else {
            out.push('\\');
            continue;
        };
        let mapped = match n {
            '"' => Some('"'),
            '\'' => Some('\''),
            '\\' => Some('\\'),
            '/' => Some('/'),
            'b' => Some('\u{08}'),
            'f' => Some('\u{0C}'),
            'n' => Some('\n'),
            'r' => Some('\r'),
            't' => Some('\t'),
            _ => None,
        };
        if let Some(m) = mapped {
            out.push(m);
            chars.next();
            continue;
        }
        if n == 'u' {
            let hex = inner
                .get(i + 2..i + 6)
                .filter(|h| h.bytes().all(|b| b.is_ascii_hexdigit()));
            if let Some(h) = hex {
                let unit = u32::from_str_radix(h, 16).unwrap_or(0xFFFD);
                out.push(char::from_u32(unit).unwrap_or('\u{FFFD}'));
                for _ in 0..5 {
                    chars.next();
                }
                continue;
            }
        }
        out.push('\\');
    }
    out
}

/// True when agent-device would accept `text` as a selector expression. A single-pass check
/// without building the tree (the hot path of `wait`/`is` prefix splitting); it must agree with
/// [`parse_chain`], which a test asserts over generated inputs.
pub fn is_valid(text: &str) -> bool {
    let t = js_trim(text);
    if t.is_empty() {
        return false;
    }
    if t.is_ascii() {
        return is_valid_ascii(t);
    }
    let b = t.as_bytes();
    // Ends the term that runs up to `end`: false when it is not a valid term.
    let close = |term_start: &mut Option<usize>, end: usize, has_term: &mut bool| {
        if let Some(s) = term_start.take() {
            if !valid_term(&t[s..end]) {
                return false;
            }
            *has_term = true;
        }
        true
    };
    let mut segment_has_term = false;
    let mut term_start: Option<usize> = None;
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if is_plain(c) {
            // The common case: a run of ordinary ASCII term characters.
            term_start.get_or_insert(i);
            i += 1;
            while i < b.len() && is_plain(b[i]) {
                i += 1;
            }
            continue;
        }
        match c {
            b'\\' => {
                // Escapes the next character, whatever it is.
                term_start.get_or_insert(i);
                i += 1;
                i += t[i..].chars().next().map_or(0, char::len_utf8);
            }
            b'"' | b'\'' => {
                // Inside quotes only the closing quote and backslashes matter. UTF-8
                // continuation bytes never match either.
                term_start.get_or_insert(i);
                i += 1;
                loop {
                    let Some(off) = b[i..].iter().position(|&x| x == c || x == b'\\') else {
                        return false; // unclosed
                    };
                    i += off + 1;
                    if b[i - 1] == c {
                        break;
                    }
                    i += t[i..].chars().next().map_or(0, char::len_utf8);
                }
            }
            b'|' if b.get(i + 1) == Some(&b'|') => {
                if !close(&mut term_start, i, &mut segment_has_term) || !segment_has_term {
                    return false;
                }
                segment_has_term = false;
                i += 2;
            }
            b'\t'..=b'\r' | b' ' => {
                if !close(&mut term_start, i, &mut segment_has_term) {
                    return false;
                }
                i += 1;
            }
            _ => {
                let ch = t[i..].chars().next().unwrap_or(' ');
                if is_js_whitespace(ch) {
                    if !close(&mut term_start, i, &mut segment_has_term) {
                        return false;
                    }
                } else {
                    term_start.get_or_insert(i);
                }
                i += ch.len_utf8();
            }
        }
    }
    close(&mut term_start, b.len(), &mut segment_has_term) && segment_has_term
}

/// An ASCII byte that is part of a term whatever surrounds it: not whitespace, a quote, a
/// backslash or `|`.
fn is_plain(c: u8) -> bool {
    const PLAIN: [bool; 256] = {
        let mut table = [false; 256];
        let mut c = 0;
        while c < 0x80 {
            table[c] = !matches!(c as u8, b'\t'..=b'\r' | b' ' | b'"' | b'\'' | b'\\' | b'|');
            c += 1;
        }
        table
    };
    PLAIN[usize::from(c)]
}

/// [`is_valid`] of a trimmed, non-empty ASCII text (the usual selector): the same walk, where the
/// only whitespace is ASCII, every character is one byte, and runs of term characters and of
/// quoted text are skipped eight bytes at a time.
fn is_valid_ascii(t: &str) -> bool {
    use crate::text::{find_quote_or_escape, find_term_stop};
    let b = t.as_bytes();
    let n = b.len();
    let is_space = |c: u8| matches!(c, b'\t'..=b'\r' | b' ');
    let is_or = |i: usize| b.get(i) == Some(&b'|') && b.get(i + 1) == Some(&b'|');
    let mut i = 0;
    let mut segment_has_term = false;
    loop {
        while i < n && is_space(b[i]) {
            i += 1;
        }
        if i >= n {
            return segment_has_term;
        }
        if is_or(i) {
            if !segment_has_term {
                return false;
            }
            segment_has_term = false;
            i += 2;
            continue;
        }
        // One term: up to whitespace or `||` outside quotes; a backslash escapes the next byte.
        let start = i;
        loop {
            i = find_term_stop(b, i);
            match b.get(i) {
                None => break,
                Some(&c) if is_space(c) => break,
                Some(b'|') if is_or(i) => break,
                Some(b'\\') => i += 2,
                Some(&q @ (b'"' | b'\'')) => {
                    i += 1;
                    loop {
                        i = find_quote_or_escape(b, i, q);
                        match b.get(i) {
                            None => return false, // unclosed
                            Some(&c) if c == q => break,
                            _ => i += 2,
                        }
                    }
                    i += 1;
                }
                // A lone `|` or another control character: part of the term.
                _ => i += 1,
            }
        }
        let end = i.min(n);
        if !valid_term(&t[start..end]) {
            return false;
        }
        segment_has_term = true;
        i = end;
    }
}

fn valid_term(raw: &str) -> bool {
    // Terms are short: a byte loop beats setting up a `memchr`.
    match raw.bytes().position(|b| b == b'=') {
        // A non-ASCII word never equals a boolean key here (the reference compares before
        // lowercasing), so the ASCII comparison is the whole rule.
        None => raw.is_ascii() && key_kind(raw) == Some(KeyKind::Boolean),
        Some(eq) => {
            let key = js_trim(&raw[..eq]);
            let value = js_trim(&raw[eq + 1..]);
            let kind = key_kind(key);
            if value.is_empty() || kind.is_none() {
                return false;
            }
            if kind == Some(KeyKind::Boolean) {
                // "true"/"false" have no letter that a non-ASCII character lowercases to.
                let v = unquote(value);
                return v.eq_ignore_ascii_case("true") || v.eq_ignore_ascii_case("false");
            }
            true
        }
    }
}

/// What kind of selector key `word` names once lowercased as JavaScript does. Keys are ASCII
/// letters, and no non-ASCII character lowercases to one of theirs (only U+212A becomes `k`,
/// which no key has; U+0130 becomes two characters), so a byte-wise ASCII case fold decides.
fn key_kind(word: &str) -> Option<KeyKind> {
    use KeyKind::{Boolean as B, String as S};
    /// Case-folded (`| 0x20` on every byte: it maps exactly the ASCII capitals onto the
    /// lowercase letters the keys are made of, and no other byte onto a letter).
    const FOLD: u64 = 0x2020_2020_2020_2020;
    /// A word of 2 to 16 bytes as its length and two overlapping loads, its first and its last
    /// `w` bytes (w = 2, 4 or 8 by length), folded: together they fix every byte.
    const fn key(k: &str, kind: KeyKind) -> (usize, u64, u64, KeyKind) {
        let b = k.as_bytes();
        let n = b.len();
        let w = if n >= 8 {
            8
        } else if n >= 4 {
            4
        } else {
            2
        };
        let (mut head, mut tail) = (0u64, 0u64);
        let mut i = 0;
        while i < w {
            head |= (b[i] as u64) << (8 * i);
            tail |= (b[n - w + i] as u64) << (8 * i);
            i += 1;
        }
        (n, head | FOLD, tail | FOLD, kind)
    }
    const KEYS: [(usize, u64, u64, KeyKind); 14] = [
        key("label", S),
        key("id", S),
        key("text", S),
        key("role", S),
        key("value", S),
        key("appname", S),
        key("windowtitle", S),
        key("visible", B),
        key("hidden", B),
        key("editable", B),
        key("selected", B),
        key("focused", B),
        key("enabled", B),
        key("hittable", B),
    ];
    let b = word.as_bytes();
    let n = b.len();
    // The same two loads at run time, each a fixed-size read (no copy into a buffer).
    let (head, tail) = match n {
        8..=11 => (
            u64::from_le_bytes(*b.first_chunk::<8>()?),
            u64::from_le_bytes(*b.last_chunk::<8>()?),
        ),
        4..=7 => (
            u64::from(u32::from_le_bytes(*b.first_chunk::<4>()?)),
            u64::from(u32::from_le_bytes(*b.last_chunk::<4>()?)),
        ),
        2..=3 => (
            u64::from(u16::from_le_bytes(*b.first_chunk::<2>()?)),
            u64::from(u16::from_le_bytes(*b.last_chunk::<2>()?)),
        ),
        _ => return None,
    };
    let (head, tail) = (head | FOLD, tail | FOLD);
    KEYS.iter()
        .find(|k| k.0 == n && k.1 == head && k.2 == tail)
        .map(|k| k.3)
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum KeyKind {
    String,
    Boolean,
}

/// Does this token look like a selector term (`key=…` with a known key, a boolean key, or `||`)?
/// agent-device's `wait`/`is` readers use this to decide where a selector ends.
pub fn looks_like_term(token: &str) -> bool {
    let t = js_trim(token);
    if t.is_empty() {
        return false;
    }
    if t == "||" {
        return true;
    }
    let key = match t.find('=') {
        Some(eq) => js_trim(&t[..eq]),
        None => t,
    };
    key_kind(key).is_some()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_kind_agrees_with_the_key_lists() {
        for k in STRING_KEYS {
            assert!(key_kind(k) == Some(KeyKind::String), "{k}");
            assert!(key_kind(&k.to_uppercase()) == Some(KeyKind::String), "{k}");
        }
        for k in BOOLEAN_KEYS {
            assert!(key_kind(k) == Some(KeyKind::Boolean), "{k}");
        }
        // U+212A KELVIN SIGN lowercases to an ASCII k; no key contains one, so no match.
        assert!(key_kind("\u{212A}").is_none());
        assert!(key_kind("ID").is_some() && key_kind("identity").is_none());
        assert!(key_kind("").is_none() && key_kind("windowtitles").is_none());
        // İ (U+0130) lowercases to "i̇": two code points, not "id".
        assert!(key_kind("\u{130}d").is_none());
        // One byte off anywhere (first, middle, last), or a byte that only folds onto a letter's
        // neighbour: no key.
        for k in STRING_KEYS.iter().chain(BOOLEAN_KEYS) {
            for at in [0, k.len() / 2, k.len() - 1] {
                for with in [b'_', b'@', b'^', b'0', b'~'] {
                    let mut w = k.as_bytes().to_vec();
                    w[at] = with;
                    let w = String::from_utf8(w).unwrap();
                    assert!(key_kind(&w).is_none(), "{w}");
                }
            }
        }
    }

    fn first_error(s: &str) -> Option<String> {
        parse_chain(s).1.first().map(|e| e.message.clone())
    }

    #[test]
    fn valid_chains() {
        let (chain, errors) = parse_chain(r#"label="Sign in" || id=login visible"#);
        assert!(errors.is_empty(), "{errors:?}");
        assert_eq!(chain.alternatives.len(), 2);
        assert_eq!(
            chain.alternatives[0].terms[0].decoded.as_deref(),
            Some("Sign in")
        );
        assert_eq!(chain.alternatives[1].terms[1].key_name, "visible");
        assert!(is_valid("appName=Calculator"));
        assert!(is_valid("label='it''s'"));
    }

    #[test]
    fn errors_match_reference_messages() {
        assert_eq!(
            first_error("|| a=1").unwrap(),
            "Invalid selector fallback expression: || a=1"
        );
        assert_eq!(
            first_error("role=push button").unwrap(),
            "Invalid selector term \"button\", expected key=value"
        );
        assert_eq!(
            first_error("'id=\"x\"'").unwrap(),
            "Unknown selector key: 'id"
        );
        assert_eq!(
            first_error("label=\"x").unwrap(),
            "Unclosed quote in selector: label=\"x"
        );
        assert_eq!(
            first_error("visible=maybe").unwrap(),
            "Invalid boolean value for visible: maybe"
        );
        assert_eq!(
            first_error("id=").unwrap(),
            "Missing selector value for key: id"
        );
        assert_eq!(
            first_error("  ").unwrap(),
            "Selector expression cannot be empty"
        );
    }

    #[test]
    fn fast_validity_agrees_with_the_parser() {
        let atoms = [
            "id=a",
            "label=\"b c\"",
            "visible",
            "hidden=false",
            "x=1",
            "||",
            " ",
            "  ",
            "role='it''s'",
            "\"",
            "'",
            "\\",
            "\\\"",
            "|",
            "a",
            "text=",
            "=v",
            "VISIBLE=TRUE",
            "enabled=maybe",
            "label=\"x||y\"",
            "\u{3000}",
            "\t",
            "value=a\\ b",
            "id=\"",
            "appName=Calc",
            "é",
            "label=\"é\\\"\"",
            "\u{212A}",
            "id=\\é",
            "selected=\"TRUE\"",
            "\u{a0}",
            "label='a\\'b'",
            "\u{1}",
            "\u{b}",
            "\r",
            "windowTitle=\"a title longer than one word\"",
            "id=abcdefghijklmnopq",
            "'x\\",
        ];
        let mut seed = 0x2545F4914F6CDD1Du64;
        let mut next = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for _ in 0..40000 {
            let n = (next() % 6) as usize;
            let s: String = (0..n)
                .map(|_| atoms[(next() % atoms.len() as u64) as usize])
                .collect::<Vec<_>>()
                .join(if next() % 2 == 0 { " " } else { "" });
            assert_eq!(
                is_valid(&s),
                parse_chain(&s).1.is_empty(),
                "disagreement on {s:?}"
            );
        }
    }

    #[test]
    fn spans_point_at_characters() {
        let s = r#"id=a   label="b c""#;
        let (chain, _) = parse_chain(s);
        let t = &chain.alternatives[0].terms[1];
        assert_eq!(&s[t.key.range()], "label");
        assert_eq!(&s[t.value.unwrap().range()], "\"b c\"");
    }
}
