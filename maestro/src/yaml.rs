//! YAML text → documents of [`Node`]s with byte spans, scalars typed as agent-device's YAML
//! library (`yaml` 2.x, YAML 1.2 core schema, unique keys) types them. The events come from
//! saphyr-parser; this module only builds the tree and resolves plain scalars.

use ad_grammar::Span;
use saphyr_parser::{Event, Parser, ScalarStyle};

/// One YAML node: where it is and what it holds.
#[derive(Debug, Clone, PartialEq)]
pub struct Node {
    pub span: Span,
    pub kind: NodeKind,
}

#[derive(Debug, Clone, PartialEq)]
pub enum NodeKind {
    Scalar(Scalar),
    Seq(Vec<Node>),
    Map(Vec<Pair>),
    /// `*name`: agent-device's reader sees an alias node, which is neither a scalar nor a
    /// collection, so every typed read of it is refused.
    Alias,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Pair {
    pub key: Node,
    pub value: Node,
}

/// A scalar's value under the core schema.
#[derive(Debug, Clone, PartialEq)]
pub enum Scalar {
    Null,
    /// A scalar that is neither null, a boolean, a number nor a string (`!!binary`).
    Other,
    Bool(bool),
    Number(f64),
    Str(String),
}

impl Scalar {
    /// `String(value)` in JavaScript, for keys.
    pub fn js_string(&self) -> String {
        match self {
            Scalar::Null => "null".into(),
            Scalar::Other => "[object]".into(),
            Scalar::Bool(b) => b.to_string(),
            Scalar::Number(n) => js_number(*n),
            Scalar::Str(s) => s.clone(),
        }
    }
}

/// `String(n)` for the numbers a flow holds (integers print without a fraction).
pub fn js_number(n: f64) -> String {
    if n.is_nan() {
        "NaN".into()
    } else if n.is_infinite() {
        if n > 0.0 { "Infinity" } else { "-Infinity" }.into()
    } else if n == n.trunc() && n.abs() < 1e21 {
        format!("{}", n as i128)
    } else {
        format!("{n}")
    }
}

impl Node {
    pub fn scalar(&self) -> Option<&Scalar> {
        match &self.kind {
            NodeKind::Scalar(s) => Some(s),
            _ => None,
        }
    }
    pub fn is_null(&self) -> bool {
        matches!(self.kind, NodeKind::Scalar(Scalar::Null))
    }
}

/// What a document holds: `None` when it has no content at all (the text is empty or only
/// comments), which agent-device drops; an empty `---` document holds a null scalar.
#[derive(Debug, Clone, PartialEq)]
pub struct Document {
    pub contents: Option<Node>,
}

/// The message of a repeated key (the tree is still built).
pub const DUPLICATE_KEY: &str = "Map keys must be unique";

/// A YAML error: agent-device's YAML library refuses the whole file with it.
#[derive(Debug, Clone, PartialEq)]
pub struct YamlError {
    pub span: Span,
    pub message: String,
}

/// Every document of `text`; a syntax error stops the reading (the documents read so far are
/// dropped: agent-device reads nothing of a file its YAML library refuses). Duplicate keys are
/// errors too, but the tree is kept, so the reader can report more.
pub fn parse(text: &str) -> (Vec<Document>, Vec<YamlError>) {
    let offsets = CharOffsets::new(text);
    let mut parser = Parser::new_from_str(text);
    let mut docs = Vec::new();
    let mut errors = Vec::new();
    // Open collections: (start, anchor-less kind, items).
    let mut stack: Vec<Open> = Vec::new();
    let mut current: Option<Option<Node>> = None;
    loop {
        let (event, span) = match parser.next_event() {
            None => break,
            Some(Ok(e)) => e,
            Some(Err(e)) => {
                let at = where_yaml_says(text, offsets.byte(e.marker().index()), e.info());
                errors.push(YamlError {
                    span: Span::new(at, at),
                    message: e.info().to_string(),
                });
                return (Vec::new(), errors);
            }
        };
        let start = offsets.byte(span.start.index());
        let end = offsets.byte(span.end.index()).max(start);
        let node = match event {
            Event::StreamStart | Event::Nothing => continue,
            Event::StreamEnd => break,
            Event::DocumentStart(_) => {
                current = Some(None);
                continue;
            }
            Event::DocumentEnd => {
                if let Some(contents) = current.take() {
                    docs.push(Document { contents });
                }
                continue;
            }
            Event::Alias(_) => Node {
                span: Span::new(start, end),
                kind: NodeKind::Alias,
            },
            Event::Scalar(value, style, _, tag) => Node {
                span: Span::new(start, end),
                kind: NodeKind::Scalar(resolve(
                    &value,
                    style,
                    tag.as_deref()
                        .map(|t| (t.handle.as_str(), t.suffix.as_str())),
                )),
            },
            Event::SequenceStart(..) => {
                stack.push(Open::Seq(start, Vec::new()));
                continue;
            }
            Event::MappingStart(..) => {
                stack.push(Open::Map(start, Vec::new(), None));
                continue;
            }
            Event::SequenceEnd => match stack.pop() {
                Some(Open::Seq(s, items)) => Node {
                    span: Span::new(s, end.max(s)),
                    kind: NodeKind::Seq(items),
                },
                _ => continue,
            },
            Event::MappingEnd => match stack.pop() {
                Some(Open::Map(s, pairs, _)) => {
                    duplicate_keys(&pairs, &mut errors);
                    Node {
                        span: Span::new(s, end.max(s)),
                        kind: NodeKind::Map(pairs),
                    }
                }
                _ => continue,
            },
        };
        match stack.last_mut() {
            Some(Open::Seq(_, items)) => items.push(node),
            Some(Open::Map(_, pairs, key)) => match key.take() {
                None => *key = Some(node),
                Some(k) => {
                    let value = empty_value_on_key_line(text, &k, node);
                    pairs.push(Pair { key: k, value });
                }
            },
            None => {
                if let Some(slot) = current.as_mut() {
                    *slot = Some(node);
                }
            }
        }
    }
    if let Some(contents) = current.take() {
        docs.push(Document { contents });
    }
    // A text of only comments or blanks has one implicit document with nothing in it.
    docs.retain(|d| d.contents.is_some() || !is_blank(text));
    (docs, errors)
}

/// Where agent-device's YAML library places the errors saphyr places elsewhere: an unclosed
/// quoted scalar at the end of the text, an unclosed flow collection at the first later line
/// that is not indented more than the line it opened on (not "sufficiently indented").
fn where_yaml_says(text: &str, at: usize, message: &str) -> usize {
    if message.contains("quoted scalar")
        && (message.contains("end of stream") || message.contains("indentation"))
    {
        return text.len();
    }
    if message.contains("flow sequence") || message.contains("flow mapping") {
        let mut open_indent = None;
        let mut offset = 0;
        for line in text.split_inclusive('\n') {
            let start = offset;
            offset += line.len();
            if start > at {
                break;
            }
            let indent = line.len() - line.trim_start_matches(' ').len();
            let content = line.trim();
            if let Some(open) = open_indent {
                if !content.is_empty() && !content.starts_with('#') && indent <= open {
                    return start;
                }
            } else if content.contains(['[', '{'])
                && content.matches(['[', '{']).count() > content.matches([']', '}']).count()
            {
                open_indent = Some(indent);
            }
        }
    }
    at
}

enum Open {
    Seq(usize, Vec<Node>),
    Map(usize, Vec<Pair>, Option<Node>),
}

fn is_blank(text: &str) -> bool {
    text.lines()
        .all(|l| l.trim().is_empty() || l.trim_start().starts_with('#'))
}

/// `key:` with nothing after it: agent-device's YAML library places the empty value right
/// after the colon, on the key's line (the event's position may be the next token's).
fn empty_value_on_key_line(text: &str, key: &Node, value: Node) -> Node {
    let empty = matches!(&value.kind, NodeKind::Scalar(Scalar::Null)) && value.span.is_empty();
    if !empty {
        return value;
    }
    let after = key.span.end();
    let colon = text[after..]
        .find(':')
        .map_or(after, |i| after + i + 1)
        .min(text.len());
    Node {
        span: Span::new(colon, colon),
        ..value
    }
}

/// agent-device's YAML library refuses a map whose keys repeat (`uniqueKeys`: scalar keys of the
/// same type and value), naming the second.
fn duplicate_keys(pairs: &[Pair], errors: &mut Vec<YamlError>) {
    for (i, pair) in pairs.iter().enumerate() {
        let Some(key) = pair.key.scalar() else {
            continue;
        };
        if pairs[..i].iter().any(|p| p.key.scalar() == Some(key)) {
            errors.push(YamlError {
                span: pair.key.span,
                message: DUPLICATE_KEY.into(),
            });
        }
    }
}

/// The core schema's reading of a scalar: only a plain scalar without a tag is resolved; quoted
/// and block scalars are strings, and so is anything tagged other than `!!null`/`!!bool`/…
fn resolve(value: &str, style: ScalarStyle, tag: Option<(&str, &str)>) -> Scalar {
    if let Some((handle, suffix)) = tag {
        if handle == "tag:yaml.org,2002:" || handle == "!!" {
            return match suffix {
                "null" => Scalar::Null,
                // A byte array and a date: values agent-device's reader does not take.
                "binary" | "timestamp" => Scalar::Other,
                "bool" => plain(value),
                "int" | "float" => match plain(value) {
                    n @ Scalar::Number(_) => n,
                    _ => Scalar::Str(value.into()),
                },
                _ => Scalar::Str(value.into()),
            };
        }
        return Scalar::Str(value.into());
    }
    if style != ScalarStyle::Plain {
        return Scalar::Str(value.into());
    }
    plain(value)
}

fn plain(v: &str) -> Scalar {
    match v {
        "" | "~" | "null" | "Null" | "NULL" => return Scalar::Null,
        "true" | "True" | "TRUE" => return Scalar::Bool(true),
        "false" | "False" | "FALSE" => return Scalar::Bool(false),
        ".inf" | ".Inf" | ".INF" | "+.inf" | "+.Inf" | "+.INF" => {
            return Scalar::Number(f64::INFINITY)
        }
        "-.inf" | "-.Inf" | "-.INF" => return Scalar::Number(f64::NEG_INFINITY),
        ".nan" | ".NaN" | ".NAN" => return Scalar::Number(f64::NAN),
        _ => {}
    }
    if let Some(n) = core_number(v) {
        return Scalar::Number(n);
    }
    Scalar::Str(v.into())
}

/// `[-+]?[0-9]+`, `0o[0-7]+`, `0x[0-9a-fA-F]+` and
/// `[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?`.
fn core_number(v: &str) -> Option<f64> {
    if let Some(oct) = v.strip_prefix("0o") {
        return (!oct.is_empty() && oct.bytes().all(|b| (b'0'..=b'7').contains(&b)))
            .then(|| u128::from_str_radix(oct, 8).map_or(f64::INFINITY, |n| n as f64));
    }
    if let Some(hex) = v.strip_prefix("0x") {
        return (!hex.is_empty() && hex.bytes().all(|b| b.is_ascii_hexdigit()))
            .then(|| u128::from_str_radix(hex, 16).map_or(f64::INFINITY, |n| n as f64));
    }
    let body = v.strip_prefix(['-', '+']).unwrap_or(v);
    let (mantissa, exponent) = match body.find(['e', 'E']) {
        Some(i) => (&body[..i], Some(&body[i + 1..])),
        None => (body, None),
    };
    let digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    let mantissa_ok = match mantissa.split_once('.') {
        None => !mantissa.is_empty() && digits(mantissa),
        Some((int, frac)) => digits(int) && digits(frac) && !(int.is_empty() && frac.is_empty()),
    };
    let exponent_ok = exponent.is_none_or(|e| {
        let e = e.strip_prefix(['-', '+']).unwrap_or(e);
        !e.is_empty() && digits(e)
    });
    if !(mantissa_ok && exponent_ok) {
        return None;
    }
    v.parse::<f64>().ok().or_else(|| {
        // Rust does not read `5.` with an exponent the same way; trim the dot.
        v.replace(".e", "e").replace(".E", "E").parse().ok()
    })
}

/// saphyr counts positions in characters; spans are in bytes.
struct CharOffsets {
    /// The byte offset of each character, when the text is not ASCII.
    bytes: Option<Vec<usize>>,
    len: usize,
}

impl CharOffsets {
    fn new(text: &str) -> Self {
        CharOffsets {
            bytes: (!text.is_ascii()).then(|| text.char_indices().map(|(i, _)| i).collect()),
            len: text.len(),
        }
    }
    fn byte(&self, char_index: usize) -> usize {
        match &self.bytes {
            None => char_index.min(self.len),
            Some(b) => b.get(char_index).copied().unwrap_or(self.len),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_scalars_resolve_as_the_core_schema_does() {
        assert_eq!(plain("yes"), Scalar::Str("yes".into()));
        assert_eq!(plain("True"), Scalar::Bool(true));
        assert_eq!(plain("0x10"), Scalar::Number(16.0));
        assert_eq!(plain("1e3"), Scalar::Number(1000.0));
        assert_eq!(plain("5."), Scalar::Number(5.0));
        assert_eq!(plain(".5"), Scalar::Number(0.5));
        assert_eq!(plain("."), Scalar::Str(".".into()));
        assert_eq!(plain("1_000"), Scalar::Str("1_000".into()));
        assert_eq!(plain("~"), Scalar::Null);
    }

    #[test]
    fn documents_and_spans() {
        let text = "appId: é\n---\n- tapOn:\n- back\n";
        let (docs, errors) = parse(text);
        assert!(errors.is_empty(), "{errors:?}");
        assert_eq!(docs.len(), 2);
        let NodeKind::Seq(items) = &docs[1].contents.as_ref().unwrap().kind else {
            panic!()
        };
        let NodeKind::Map(pairs) = &items[0].kind else {
            panic!()
        };
        assert_eq!(&text[pairs[0].key.span.range()], "tapOn");
        assert!(pairs[0].value.is_null());
        assert_eq!(
            pairs[0].value.span.start(),
            text.find("tapOn:").unwrap() + 6
        );
        assert_eq!(parse("# only\n").0.len(), 0);
        assert_eq!(parse("").0.len(), 0);
        assert_eq!(
            parse("a: 1\na: 2\n").1[0].message,
            "Map keys must be unique"
        );
    }
}
