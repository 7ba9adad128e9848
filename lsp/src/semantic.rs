//! Semantic tokens: command, flag, selector key, value, variable, ref, annotation, comment (and
//! numbers, enum words, keywords, operators).

use ad_compiler::registry::{ArgKind, Availability, FlagValue, Targeting};
use ad_compiler::shape::{element_targets, Target};
use ad_compiler::Analysis;
use ad_grammar::placeholder::placeholders;
use ad_grammar::selector::{self, parse_chain};
use ad_grammar::text::is_numeric;
use ad_grammar::{Line, LineKind, Span};
use lsp_types::{SemanticToken, SemanticTokens};

use crate::cursor::{positional_kinds, step_for_line};
use crate::document::Document;
use crate::text_map::{token_map, ArgMap};

// Indices into `caps::TOKEN_TYPES`.
const FUNCTION: u32 = 0;
const PARAMETER: u32 = 1;
const PROPERTY: u32 = 2;
const STRING: u32 = 3;
const VARIABLE: u32 = 4;
const REF: u32 = 5;
const DECORATOR: u32 = 6;
const COMMENT: u32 = 7;
const NUMBER: u32 = 8;
const KEYWORD: u32 = 9;
const OPERATOR: u32 = 10;
const ENUM_MEMBER: u32 = 11;
// Bits of `caps::TOKEN_MODIFIERS`.
const DECLARATION: u32 = 1;
const DEFAULT_LIBRARY: u32 = 2;
const DEPRECATED: u32 = 4;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Tok {
    span: Span,
    kind: u32,
    mods: u32,
}

fn tok(span: Span, kind: u32) -> Tok {
    Tok {
        span,
        kind,
        mods: 0,
    }
}

/// Tokens of the whole document, or of the lines overlapping `range`.
pub fn tokens(doc: &Document, range: Option<Span>) -> Option<SemanticTokens> {
    let analysis = doc.analysis().ok()?;
    let file = analysis.file();
    let mut all = Vec::new();
    for line in &file.lines {
        if let Some(r) = range {
            if line.span.end() < r.start() || line.span.start() > r.end() {
                continue;
            }
        }
        line_tokens(analysis, line, &mut all);
    }
    // The protocol needs tokens in order and disjoint.
    all.sort_by_key(|t| t.span.start());
    let mut end = 0;
    all.retain(|t| {
        let keep = t.span.start() >= end;
        if keep {
            end = t.span.end();
        }
        keep
    });
    Some(SemanticTokens {
        result_id: None,
        data: encode(doc, &all),
    })
}

fn line_tokens(analysis: &Analysis, line: &Line, out: &mut Vec<Tok>) {
    let file = analysis.file();
    let text = file.text.as_str();
    match &line.kind {
        LineKind::Blank => {}
        LineKind::Comment(_) => out.push(tok(line.content, COMMENT)),
        LineKind::Annotation(a) => {
            out.push(tok(
                Span::new(line.content.start(), a.marker.end()),
                DECORATOR,
            ));
            if let Some(p) = a.payload {
                json_tokens(text, p, out);
            }
        }
        LineKind::Env(e) => {
            out.push(tok(e.keyword, KEYWORD));
            if !e.key.is_empty() {
                out.push(Tok {
                    span: e.key,
                    kind: VARIABLE,
                    mods: DECLARATION,
                });
            }
            if let Some(v) = e.value.filter(|v| !v.is_empty()) {
                out.push(tok(v, STRING));
            }
        }
        LineKind::Context(c) => {
            if let Some(first) = c.tokens.first() {
                out.push(tok(first.span(), KEYWORD));
            }
            for e in &c.entries {
                out.push(tok(e.key, PROPERTY));
                if let Some(v) = e.value.filter(|v| !v.is_empty()) {
                    let kind = if is_numeric(&text[v.range()]) {
                        NUMBER
                    } else {
                        ENUM_MEMBER
                    };
                    out.push(tok(v, kind));
                }
            }
        }
        LineKind::Action(stored) => {
            let action = file.read_action(line, stored);
            let mut base: Vec<Tok> = Vec::with_capacity(action.tokens.len());
            let mut overlays: Vec<Tok> = Vec::new();
            let step = step_for_line(analysis, line.index());
            let spec = step.and_then(|s| s.spec());
            let deprecated = spec.is_some_and(|s| {
                matches!(
                    s.availability,
                    Availability::Retired { .. } | Availability::CliAlias { .. }
                )
            });
            base.push(Tok {
                span: action.tokens[0].span(),
                kind: FUNCTION,
                mods: if deprecated { DEPRECATED } else { 0 },
            });
            // Token kinds from what the reader made of each token.
            let n = action.tokens.len();
            let mut kinds: Vec<Option<u32>> = vec![None; n];
            let mut i = 1;
            while i < n {
                let v = action.tokens[i].value(text);
                if let Some(flag) = spec.and_then(|s| s.flag(&v)) {
                    kinds[i] = Some(PARAMETER);
                    if !matches!(flag.value, FlagValue::Switch(_)) && i + 1 < n {
                        let value = action.tokens[i + 1].value(text);
                        kinds[i + 1] = Some(match flag.value {
                            FlagValue::Enum(_) => ENUM_MEMBER,
                            _ if is_numeric(&value) => NUMBER,
                            _ => STRING,
                        });
                        i += 1;
                    }
                }
                i += 1;
            }
            if let Some(step) = step {
                let mut selector_args = Vec::new();
                if let Some(spec) = spec {
                    for (arg, target) in element_targets(step) {
                        if matches!(target, Target::Selector { .. }) {
                            selector_args.push(arg);
                        }
                    }
                    if spec.targeting == Targeting::Predicate {
                        for arg in step.positionals.iter().skip(1) {
                            if selector::looks_like_term(&arg.value)
                                && !selector_args.contains(&arg)
                            {
                                selector_args.push(arg);
                            }
                        }
                    }
                    // Enum words (directions, predicates, subcommands).
                    for (k, arg) in step.positionals.iter().enumerate() {
                        let before: Vec<String> = step.positionals[..k]
                            .iter()
                            .map(|a| a.value.to_string())
                            .collect();
                        let is_word = positional_kinds(spec, &before).iter().any(|(kind, _)| {
                            matches!(kind, ArgKind::Enum(words) if words.iter().any(|w| w.eq_ignore_ascii_case(&arg.value)))
                        });
                        if is_word && arg.tokens.len() == 1 {
                            kinds[arg.tokens[0]].get_or_insert(ENUM_MEMBER);
                        }
                    }
                }
                for arg in selector_args {
                    for t in &arg.tokens {
                        kinds[*t].get_or_insert(STRING);
                    }
                    let map = ArgMap::new(file, step, arg);
                    let (chain, _) = parse_chain(&arg.value);
                    for (k, seg) in chain.alternatives.iter().enumerate() {
                        if k > 0 {
                            // The `||` before this alternative.
                            let before =
                                arg.value[..seg.span.start().min(arg.value.len())].rfind("||");
                            if let Some(at) = before {
                                if let Some(s) = map.span(at..at + 2) {
                                    overlays.push(tok(s, OPERATOR));
                                }
                            }
                        }
                        for term in &seg.terms {
                            if let Some(s) = map.span(term.key.start()..term.key.end()) {
                                if selector::is_key(&term.key_name) {
                                    overlays.push(tok(s, PROPERTY));
                                }
                            }
                        }
                    }
                }
            }
            for (i, t) in action.tokens.iter().enumerate().skip(1) {
                let v = t.value(text);
                let kind = kinds[i].unwrap_or(if v.starts_with('@') {
                    REF
                } else if is_numeric(&v) {
                    NUMBER
                } else {
                    STRING
                });
                base.push(tok(t.span(), kind));
                if v.contains("${") {
                    let map = token_map(file, t.span());
                    for p in placeholders(&map.value) {
                        let name = &map.value[p.name.clone()];
                        overlays.push(Tok {
                            span: map.span(p.span.clone()),
                            kind: VARIABLE,
                            mods: if name.starts_with("AD_") {
                                DEFAULT_LIBRARY
                            } else {
                                0
                            },
                        });
                    }
                }
            }
            merge(base, overlays, out);
        }
    }
}

/// Base tokens with overlays cut into them (overlays win; overlapping overlays are dropped).
fn merge(base: Vec<Tok>, mut overlays: Vec<Tok>, out: &mut Vec<Tok>) {
    overlays.sort_by_key(|t| (t.span.start(), t.span.end()));
    let mut kept: Vec<Tok> = Vec::with_capacity(overlays.len());
    for o in overlays {
        if o.span.is_empty() || kept.last().is_some_and(|k| k.span.end() > o.span.start()) {
            continue;
        }
        kept.push(o);
    }
    for b in base {
        let mut at = b.span.start();
        for o in kept
            .iter()
            .filter(|o| o.span.start() >= b.span.start() && o.span.end() <= b.span.end())
        {
            if o.span.start() > at {
                out.push(Tok {
                    span: Span::new(at, o.span.start()),
                    ..b
                });
            }
            out.push(*o);
            at = o.span.end();
        }
        if at < b.span.end() {
            out.push(Tok {
                span: Span::new(at, b.span.end()),
                ..b
            });
        }
    }
}

/// JSON payload of an annotation: keys, strings, numbers, literals.
fn json_tokens(text: &str, payload: Span, out: &mut Vec<Tok>) {
    let s = &text[payload.range()];
    let b = s.as_bytes();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c == b'"' {
            let start = i;
            i += 1;
            while i < b.len() && b[i] != b'"' {
                i += if b[i] == b'\\' { 2 } else { 1 };
            }
            i = (i + 1).min(b.len());
            let rest = s[i..].trim_start();
            let kind = if rest.starts_with(':') {
                PROPERTY
            } else {
                STRING
            };
            out.push(tok(
                Span::new(payload.start() + start, payload.start() + i),
                kind,
            ));
        } else if c == b'-' || c.is_ascii_digit() {
            let start = i;
            while i < b.len() && matches!(b[i], b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9') {
                i += 1;
            }
            out.push(tok(
                Span::new(payload.start() + start, payload.start() + i),
                NUMBER,
            ));
        } else if c.is_ascii_alphabetic() {
            let start = i;
            while i < b.len() && b[i].is_ascii_alphabetic() {
                i += 1;
            }
            out.push(tok(
                Span::new(payload.start() + start, payload.start() + i),
                KEYWORD,
            ));
        } else {
            i += 1;
        }
    }
}

/// The protocol's relative encoding; a token crossing a protocol line break (a lone `\r`) is
/// split at it.
fn encode(doc: &Document, toks: &[Tok]) -> Vec<SemanticToken> {
    let text = doc.text.as_str();
    let mut data = Vec::with_capacity(toks.len());
    let (mut prev_line, mut prev_start) = (0u32, 0u32);
    for t in toks {
        if t.span.is_empty() {
            continue;
        }
        let start = doc.lines.position(text, t.span.start());
        let end = doc.lines.position(text, t.span.end());
        let mut pieces = Vec::new();
        if start.line == end.line {
            pieces.push((start.line, start.character, end.character - start.character));
        } else {
            // Rare: split per protocol line.
            let mut line = start.line;
            let mut col = start.character;
            while line < end.line {
                let r = doc.lines.line_range(text, line as usize);
                let line_end = doc.lines.position(text, r.end).character;
                if line_end > col {
                    pieces.push((line, col, line_end - col));
                }
                line += 1;
                col = 0;
            }
            if end.character > 0 {
                pieces.push((end.line, 0, end.character));
            }
        }
        for (line, col, len) in pieces {
            if len == 0 {
                continue;
            }
            let delta_line = line - prev_line;
            let delta_start = if delta_line == 0 {
                col - prev_start
            } else {
                col
            };
            data.push(SemanticToken {
                delta_line,
                delta_start,
                length: len,
                token_type: t.kind,
                token_modifiers_bitset: t.mods,
            });
            prev_line = line;
            prev_start = col;
        }
    }
    data
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lines::Encoding;
    use std::sync::Arc;

    fn decode(text: &str) -> Vec<(String, u32, u32)> {
        let doc = Document::new(
            "file:///t.ad".parse().unwrap(),
            1,
            text.into(),
            Encoding::Utf16,
            Arc::new(Default::default()),
            None,
        );
        let data = tokens(&doc, None).unwrap().data;
        let lines: Vec<Vec<u16>> = text
            .split('\n')
            .map(|l| l.encode_utf16().collect())
            .collect();
        let (mut line, mut col) = (0, 0);
        data.iter()
            .map(|t| {
                if t.delta_line > 0 {
                    line += t.delta_line;
                    col = t.delta_start;
                } else {
                    col += t.delta_start;
                }
                let s = String::from_utf16_lossy(
                    &lines[line as usize][col as usize..(col + t.length) as usize],
                );
                (s, t.token_type, t.token_modifiers_bitset)
            })
            .collect()
    }

    #[test]
    fn classifies_every_part_of_a_line() {
        let toks = decode("env NAME=Zoë\nclick \"label=\\\"Café 😀\\\" || id=${NAME}\" --count 2\nscroll down\n# note\n");
        let find = |s: &str| {
            toks.iter()
                .find(|t| t.0 == s)
                .unwrap_or_else(|| panic!("{s}: {toks:?}"))
                .1
        };
        assert_eq!(find("env"), KEYWORD);
        assert_eq!(find("NAME"), VARIABLE);
        assert_eq!(find("click"), FUNCTION);
        assert_eq!(find("label"), PROPERTY);
        assert_eq!(find("id"), PROPERTY);
        assert_eq!(find("||"), OPERATOR);
        assert_eq!(find("${NAME}"), VARIABLE);
        assert_eq!(find("--count"), PARAMETER);
        assert_eq!(find("2"), NUMBER);
        assert_eq!(find("down"), ENUM_MEMBER);
        assert_eq!(find("# note"), COMMENT);
        assert!(toks
            .iter()
            .any(|t| t.0.contains("Café 😀") && t.1 == STRING));
    }
}
