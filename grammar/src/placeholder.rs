//! `${NAME}`, `${NAME:-fallback}` and `\${` inside token values, scanned exactly as agent-device's
//! interpolator scans them, with ranges for editors and rules.

use serde::Serialize;
use std::ops::Range;

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub enum Piece {
    /// Text copied as is.
    Literal(Range<usize>),
    /// `\${`: a literal `${` (the backslash is consumed).
    Escaped(Range<usize>),
    /// A placeholder.
    Var(Placeholder),
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Placeholder {
    /// The whole `${…}`.
    pub span: Range<usize>,
    pub name: Range<usize>,
    /// The fallback's decoded text and its raw range, for `${NAME:-fallback}`.
    pub fallback: Option<(String, Range<usize>)>,
}

impl Placeholder {
    pub fn name<'a>(&self, s: &'a str) -> &'a str {
        &s[self.name.clone()]
    }
}

fn name_start(c: u8) -> bool {
    c.is_ascii_alphabetic() || c == b'_'
}
fn name_char(c: u8) -> bool {
    name_start(c) || c.is_ascii_digit() || c == b'.'
}

enum Scanned {
    Var(Placeholder),
    /// Text up to this offset is copied literally (an aborted fallback).
    Abort(usize),
}

/// At `s[at..]` == `${`.
fn scan_placeholder(s: &str, at: usize) -> Option<Scanned> {
    let b = s.as_bytes();
    let mut n = at + 2;
    if n >= b.len() || !name_start(b[n]) {
        return None;
    }
    n += 1;
    while n < b.len() && name_char(b[n]) {
        n += 1;
    }
    let name = at + 2..n;
    if b.get(n) == Some(&b'}') {
        return Some(Scanned::Var(Placeholder {
            span: at..n + 1,
            name,
            fallback: None,
        }));
    }
    if b.get(n) != Some(&b':') || b.get(n + 1) != Some(&b'-') {
        return None;
    }
    n += 2;
    let fstart = n;
    let mut fallback = String::new();
    let mut chars = s[n..]
        .char_indices()
        .map(|(i, c)| (i + fstart, c))
        .peekable();
    while let Some((i, c)) = chars.next() {
        match c {
            '}' => {
                return Some(Scanned::Var(Placeholder {
                    span: at..i + 1,
                    name,
                    fallback: Some((fallback, fstart..i)),
                }));
            }
            '\\' => match chars.next() {
                None => return Some(Scanned::Abort(s.len())),
                Some((j, e)) if matches!(e, '\n' | '\r' | '\u{2028}' | '\u{2029}') => {
                    return Some(Scanned::Abort(j + e.len_utf8()))
                }
                Some((_, e)) => fallback.push(e),
            },
            c => fallback.push(c),
        }
    }
    Some(Scanned::Abort(s.len()))
}

/// Splits a value into literal text, escapes and placeholders.
pub fn scan(s: &str) -> Vec<Piece> {
    let mut pieces = Vec::new();
    if !has_dollar_brace(s) {
        if !s.is_empty() {
            pieces.push(Piece::Literal(0..s.len()));
        }
        return pieces;
    }
    let b = s.as_bytes();
    let mut lit_start = 0;
    let mut i = 0;
    let flush = |pieces: &mut Vec<Piece>, from: usize, to: usize| {
        if to > from {
            pieces.push(Piece::Literal(from..to));
        }
    };
    while i < b.len() {
        if b[i] == b'\\' && s[i + 1..].starts_with("${") {
            flush(&mut pieces, lit_start, i);
            pieces.push(Piece::Escaped(i..i + 3));
            i += 3;
            lit_start = i;
            continue;
        }
        if b[i] == b'$' && b.get(i + 1) == Some(&b'{') {
            match scan_placeholder(s, i) {
                Some(Scanned::Abort(end)) => {
                    i = end;
                    continue;
                }
                Some(Scanned::Var(p)) => {
                    flush(&mut pieces, lit_start, i);
                    i = p.span.end;
                    lit_start = i;
                    pieces.push(Piece::Var(p));
                    continue;
                }
                None => {}
            }
        }
        i += 1;
    }
    flush(&mut pieces, lit_start, b.len());
    pieces
}

/// Whether `s` contains `${` at all (placeholder or not): the cheap first question asked of
/// every value.
pub fn has_dollar_brace(s: &str) -> bool {
    let b = s.as_bytes();
    let mut i = 0;
    loop {
        i = crate::text::find_byte(b, i, b'$');
        match b.get(i + 1) {
            _ if i >= b.len() => return false,
            Some(b'{') => return true,
            _ => i += 1,
        }
    }
}

/// The placeholders of a value.
pub fn placeholders(s: &str) -> impl Iterator<Item = Placeholder> {
    // Most values have none: skip building the literal piece for them.
    let pieces = if has_dollar_brace(s) {
        scan(s)
    } else {
        Vec::new()
    };
    pieces.into_iter().filter_map(|p| match p {
        Piece::Var(v) => Some(v),
        _ => None,
    })
}

/// A variable without a value and without a fallback.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unresolved {
    pub name: String,
}

/// Expands a value. `lookup` returns a variable's value; expanded values are never re-scanned.
pub fn interpolate<'a>(
    s: &str,
    mut lookup: impl FnMut(&str) -> Option<&'a str>,
) -> Result<String, Unresolved> {
    let mut out = String::with_capacity(s.len());
    for piece in scan(s) {
        match piece {
            Piece::Literal(r) => out.push_str(&s[r]),
            Piece::Escaped(_) => out.push_str("${"),
            Piece::Var(p) => {
                let name = p.name(s);
                match (lookup(name), p.fallback) {
                    (Some(v), _) => out.push_str(v),
                    (None, Some((f, _))) => out.push_str(&f),
                    (None, None) => {
                        return Err(Unresolved {
                            name: name.to_string(),
                        })
                    }
                }
            }
        }
    }
    Ok(out)
}

/// `^\$\{([A-Z_][A-Z0-9_]*)\}$` and not `AD_*`: a fill text that keeps its placeholder on re-record.
pub fn whole_token_variable(s: &str) -> Option<&str> {
    let name = s.strip_prefix("${")?.strip_suffix('}')?;
    (crate::metadata::is_var_name(name) && !name.starts_with("AD_")).then_some(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dollar_brace_is_found_anywhere() {
        assert!(has_dollar_brace("${A}") && has_dollar_brace("a $ ${") && has_dollar_brace("é${"));
        assert!(!has_dollar_brace("") && !has_dollar_brace("$") && !has_dollar_brace("$ {a}"));
        assert!(!has_dollar_brace("{$}") && !has_dollar_brace("a$"));
        // Across the eight-byte steps of the scan.
        for at in 0..20 {
            let mut s = "x".repeat(at);
            s.push_str("${");
            assert!(has_dollar_brace(&s), "{at}");
            s.push_str(&"y".repeat(at));
            assert!(has_dollar_brace(&s), "{at}");
            let only_dollar = format!("{}${}", "x".repeat(at), "z".repeat(20));
            assert!(!has_dollar_brace(&only_dollar), "{at}");
        }
    }

    fn expand(s: &str) -> Result<String, Unresolved> {
        interpolate(s, |n| match n {
            "A" => Some("1"),
            "B" => Some("${A}"),
            _ => None,
        })
    }

    #[test]
    fn interpolation_matches_reference() {
        assert_eq!(expand("x${A}y").unwrap(), "x1y");
        assert_eq!(expand("\\${A}").unwrap(), "${A}");
        assert_eq!(expand("\\\\${A}").unwrap(), "\\${A}");
        assert_eq!(expand("$${A}").unwrap(), "$1");
        assert_eq!(expand("${B}").unwrap(), "${A}");
        assert_eq!(expand("${C:-d\\}e}").unwrap(), "d}e");
        assert_eq!(expand("${C:-x${A}}").unwrap(), "x${A}");
        assert_eq!(expand("${ A} ${1} ${A }").unwrap(), "${ A} ${1} ${A }");
        assert_eq!(expand("${C:-}").unwrap(), "");
        assert_eq!(expand("${C:-abc").unwrap(), "${C:-abc");
        assert_eq!(expand("${C}").unwrap_err().name, "C");
        assert_eq!(expand("${a.b:-z}").unwrap(), "z");
    }
}
