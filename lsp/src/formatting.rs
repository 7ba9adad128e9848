//! Document and range formatting through `ad fmt`'s printer. The printer keeps one output line
//! per input line, so edits are computed line by line and a range request only returns the
//! edits of the lines it touches.

use ad_grammar::Span;
use lsp_types::TextEdit;

use crate::document::{Document, MAX_ANALYZED_BYTES};

/// Edits turning the document into `ad fmt`'s output; `range` limits them to those lines.
pub fn format(doc: &Document, range: Option<Span>) -> Option<Vec<TextEdit>> {
    // A Maestro flow or other YAML is not `ad fmt`'s to format.
    if doc.text.len() > MAX_ANALYZED_BYTES || doc.kind != crate::document::Kind::Script {
        return None;
    }
    let formatted = ad_compiler::format::format(&doc.text);
    if !formatted.changed {
        return Some(Vec::new());
    }
    Some(line_edits(doc, &formatted.output, range))
}

/// Line-by-line difference (lines as agent-device splits them, terminators included).
pub fn line_edits(doc: &Document, output: &str, range: Option<Span>) -> Vec<TextEdit> {
    let input = doc.text.as_str();
    let before: Vec<(usize, &str)> = pieces(input);
    let after: Vec<(usize, &str)> = pieces(output);
    if before.len() != after.len() {
        // Not line-for-line (a fix that adds a line): one minimal edit, whole-document only.
        if range.is_some() {
            return Vec::new();
        }
        return minimal_edit(doc, output).into_iter().collect();
    }
    let mut edits = Vec::new();
    for ((start, old), (_, new)) in before.iter().zip(&after) {
        if old == new {
            continue;
        }
        let span = Span::new(*start, start + old.len());
        if let Some(r) = range {
            // The line must overlap the range (a cursor on a line counts).
            let content_end = start + old.trim_end_matches(['\r', '\n']).len();
            if content_end < r.start() || *start > r.end() {
                continue;
            }
        }
        // Keep edits small: the common prefix and suffix stay.
        let (prefix, suffix) = bounds(old, new);
        let edit = Span::new(span.start() + prefix, span.end() - suffix);
        edits.push(TextEdit::new(
            doc.lines.range(input, edit),
            new[prefix..new.len() - suffix].to_string(),
        ));
    }
    edits
}

/// One edit replacing only what differs between the document and `output`.
pub fn minimal_edit(doc: &Document, output: &str) -> Option<TextEdit> {
    let input = doc.text.as_str();
    if input == output {
        return None;
    }
    let (prefix, suffix) = bounds(input, output);
    Some(TextEdit::new(
        doc.lines
            .range(input, Span::new(prefix, input.len() - suffix)),
        output[prefix..output.len() - suffix].to_string(),
    ))
}

/// `(start, line with its terminator)` for every line.
fn pieces(s: &str) -> Vec<(usize, &str)> {
    let mut out = Vec::new();
    let mut at = 0;
    for piece in s.split_inclusive('\n') {
        out.push((at, piece));
        at += piece.len();
    }
    out
}

/// Common prefix and suffix lengths of `old` and `new`, never splitting a `\r\n` of `old`
/// (a position between `\r` and `\n` does not exist in the protocol).
fn bounds(old: &str, new: &str) -> (usize, usize) {
    let mut prefix = common_prefix(old, new);
    let mut suffix = common_suffix(&old[prefix..], &new[prefix..]);
    let b = old.as_bytes();
    if prefix > 0 && b[prefix - 1] == b'\r' && b.get(prefix) == Some(&b'\n') {
        prefix -= 1;
        suffix = common_suffix(&old[prefix..], &new[prefix..]);
    }
    let end = old.len() - suffix;
    if end > prefix && b[end - 1] == b'\r' && b.get(end) == Some(&b'\n') {
        suffix -= 1;
    }
    (prefix, suffix)
}

fn common_prefix(a: &str, b: &str) -> usize {
    let mut n = 0;
    for ((i, x), y) in a.char_indices().zip(b.chars()) {
        if x != y {
            return i;
        }
        n = i + x.len_utf8();
    }
    n
}

fn common_suffix(a: &str, b: &str) -> usize {
    let mut n = 0;
    for (x, y) in a.chars().rev().zip(b.chars().rev()) {
        if x != y {
            break;
        }
        n += x.len_utf8();
    }
    n
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lines::Encoding;
    use std::sync::Arc;

    fn apply(text: &str, edits: &[TextEdit]) -> String {
        let map = crate::lines::LineMap::new(text, Encoding::Utf16);
        let mut spans: Vec<(Span, &str)> = edits
            .iter()
            .map(|e| (map.span(text, e.range), e.new_text.as_str()))
            .collect();
        spans.sort_by_key(|(s, _)| std::cmp::Reverse(s.start()));
        let mut out = text.to_string();
        for (s, t) in spans {
            out.replace_range(s.range(), t);
        }
        out
    }

    #[test]
    fn edits_reproduce_the_printer_and_respect_ranges() {
        let text = "click   id=\"a\"  --count 2\r\nscroll   down\nwait 500";
        let doc = Document::new(
            "file:///t.ad".parse().unwrap(),
            1,
            text.into(),
            Encoding::Utf16,
            Arc::new(Default::default()),
            None,
        );
        let all = format(&doc, None).unwrap();
        assert_eq!(apply(text, &all), ad_compiler::format::format(text).output);
        let second = text.find("scroll").unwrap();
        let only = format(&doc, Some(Span::new(second, second))).unwrap();
        assert_eq!(
            apply(text, &only),
            "click   id=\"a\"  --count 2\r\nscroll \"down\"\nwait 500"
        );
    }
}
