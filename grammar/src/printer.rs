//! The printer: canonical text for a parsed file, in agent-device's own writer spelling (spec §14).
//! It owns everything that is not a command's meaning — line structure, comments, annotations,
//! header lines, token quoting, whitespace and line endings. What an action line says comes from
//! an [`ActionPrinter`] (the compiler's writer rules), so the formatter, the recorder and the
//! language server share one printer.
//!
//! Guarantees: one output line per input line (so `actionLines` and the plan digest are kept),
//! `\n` line endings, no trailing whitespace, a final newline. Lines the printer must not touch
//! (a lone CR that agent-device reads as part of the line, lines agent-device rejects) are copied
//! byte for byte.

use std::borrow::Cow;

use crate::annotation::Evidence;
use crate::text::is_js_whitespace;
use crate::tree::{Action, Annotation, AnnotationKind, Line, LineKind, SourceFile};

/// `^[^\s"\\]+$`: safe to leave unquoted.
fn is_plain(s: &str) -> bool {
    !s.is_empty()
        && !s
            .chars()
            .any(|c| is_js_whitespace(c) || c == '"' || c == '\\')
}

/// `^-?\d+(\.\d+)?$`.
fn is_decimal(s: &str) -> bool {
    let s = s.strip_prefix('-').unwrap_or(s);
    let (int, frac) = match s.split_once('.') {
        Some((i, f)) => (i, Some(f)),
        None => (s, None),
    };
    !int.is_empty()
        && int.bytes().all(|b| b.is_ascii_digit())
        && frac.is_none_or(|f| !f.is_empty() && f.bytes().all(|b| b.is_ascii_digit()))
}

/// agent-device's `formatScriptArg`: bare only for `@refs` and plain numbers, JSON-quoted otherwise.
pub fn format_arg(value: &str) -> Cow<'_, str> {
    if is_plain(value) && (value.starts_with('@') || is_decimal(value)) {
        Cow::Borrowed(value)
    } else {
        Cow::Owned(crate::json::quote(value))
    }
}

/// agent-device's `formatScriptStringLiteral`: bare whenever it is a single plain word.
pub fn format_string_literal(value: &str) -> Cow<'_, str> {
    if is_plain(value) {
        Cow::Borrowed(value)
    } else {
        Cow::Owned(crate::json::quote(value))
    }
}

/// The canonical annotation line.
pub fn print_annotation(kind: AnnotationKind, evidence: &Evidence) -> String {
    let json = match evidence {
        Evidence::Single(e) => e.to_canonical_json(),
        Evidence::Dual(_) => crate::json::stringify(&evidence.to_value(), false),
    };
    format!("# agent-device:{} {json}", kind.marker())
}

/// Supplies the canonical text of an action line (without the line terminator), or `None` to
/// let the printer respell its tokens one by one.
pub trait ActionPrinter {
    fn print_action(
        &mut self,
        file: &SourceFile,
        line: &Line,
        action: Action<'_>,
    ) -> Option<String>;
}

/// Respells an action line token by token: the command word bare when that keeps it one token,
/// every other token through [`format_arg`], one space between.
pub fn respell_tokens(file: &SourceFile, action: Action<'_>) -> String {
    let text = file.text.as_str();
    let mut out = String::new();
    for (i, token) in action.tokens.iter().enumerate() {
        if i > 0 {
            out.push(' ');
        }
        let value = token.value(text);
        // The command word and flag-looking words stay bare when that keeps them one token.
        if i == 0 || (value.starts_with('-') && value.len() > 1) {
            out.push_str(&format_string_literal(&value));
        } else {
            out.push_str(&format_arg(&value));
        }
    }
    out
}

/// What the printer did with each line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LineOutcome {
    Unchanged,
    Rewritten,
    /// Copied byte for byte (lone CR, or a line agent-device rejects).
    Kept,
}

/// Prints `file`. `keep[i]` forces line `i` to be copied verbatim.
pub fn print(
    file: &SourceFile,
    keep: &[bool],
    actions: &mut dyn ActionPrinter,
) -> (String, Vec<LineOutcome>) {
    let text = file.text.as_str();
    let mut out = String::with_capacity(text.len() + 1);
    let mut outcomes = Vec::with_capacity(file.lines.len());
    let last = file.lines.len().saturating_sub(1);
    // Text ending in "\n" has an empty last line: it gets no terminator of its own.
    let ends_with_newline = file.lines.last().is_none_or(|l| l.span.is_empty());
    for line in &file.lines {
        let original = &text[line.span.range()];
        let content = &text[line.content.range()];
        let verbatim = keep.get(line.index()).copied().unwrap_or(false) || content.contains('\r');
        let printed: Cow<str> = if verbatim {
            // Trailing whitespace (a final `\r` included) is trimmed by the reader anyway; keeping
            // a final `\r` would turn the next `\n` into a CRLF on the next run.
            Cow::Borrowed(original.trim_end_matches(is_js_whitespace))
        } else {
            match &line.kind {
                LineKind::Blank => Cow::Borrowed(""),
                LineKind::Comment(_) => Cow::Owned(print_comment(content)),
                LineKind::Annotation(a) => Cow::Owned(print_annotation_line(content, a)),
                LineKind::Env(_) => Cow::Owned(print_env(content)),
                // `context<TAB>…` is not read as metadata: respacing it would change the header.
                LineKind::Context(c) if c.in_header => Cow::Owned(collapse_outside_quotes(content)),
                LineKind::Context(_) => Cow::Borrowed(content),
                LineKind::Action(stored) => {
                    let action = file.read_action(line, stored);
                    match actions.print_action(file, line, action) {
                        Some(s) => Cow::Owned(s),
                        None => Cow::Owned(respell_tokens(file, action)),
                    }
                }
            }
        };
        outcomes.push(if verbatim {
            LineOutcome::Kept
        } else if printed == original {
            LineOutcome::Unchanged
        } else {
            LineOutcome::Rewritten
        });
        out.push_str(&printed);
        // The last physical line has no terminator; a final newline is ensured below, but an
        // empty last line (text ending in "\n") must not add another one.
        if line.index() != last || !ends_with_newline {
            out.push('\n');
        }
    }
    (out, outcomes)
}

/// `#comment` stays as written; only surrounding whitespace goes.
fn print_comment(content: &str) -> String {
    content.to_string()
}

fn print_annotation_line(content: &str, a: &Annotation) -> String {
    match &a.evidence {
        Some(e) => print_annotation(a.kind, e),
        None => content.to_string(),
    }
}

/// `env KEY=value` with exactly one space after `env`; the value is kept as written.
fn print_env(content: &str) -> String {
    let rest = content[3..].trim_start_matches(is_js_whitespace);
    if rest.is_empty() {
        return content.to_string();
    }
    format!("env {rest}")
}

/// Collapses whitespace runs outside `"…"` to one space (context lines are read by regex; the
/// quoted `device="…"` value is kept exactly): the header's own word split, rejoined.
fn collapse_outside_quotes(content: &str) -> String {
    let words: Vec<&str> = crate::metadata::context_words(content)
        .into_iter()
        .map(|(a, b)| &content[a..b])
        .collect();
    words.join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoting_matches_the_writer() {
        assert_eq!(format_arg("@e12"), "@e12");
        assert_eq!(format_arg("-12.5"), "-12.5");
        assert_eq!(format_arg("1e3"), "\"1e3\"");
        assert_eq!(format_arg("down"), "\"down\"");
        assert_eq!(format_arg("id=\"a\""), "\"id=\\\"a\\\"\"");
        assert_eq!(format_string_literal("com.example.app"), "com.example.app");
        assert_eq!(format_string_literal("My App"), "\"My App\"");
        assert_eq!(format_arg(""), "\"\"");
    }

    #[test]
    fn context_whitespace_collapses_outside_quotes() {
        assert_eq!(
            collapse_outside_quotes("context  platform=ios\tdevice=\"iPhone  17\""),
            "context platform=ios device=\"iPhone  17\""
        );
    }
}
