//! AD116: the reader joins an argument's words with single spaces, so runs of whitespace
//! inside it collapse.

use ad_grammar::{Diagnostic, Edit, Span};

use crate::codes;
use crate::lower::Step;
use crate::rules::Context;

/// Bare tokens joined with one space lose any other whitespace between them.
pub(super) fn check(cx: &Context, step: &Step, arg: usize, out: &mut Vec<Diagnostic>) {
    let text = cx.text();
    let Some(a) = step.positionals.get(arg) else {
        return;
    };
    let spans: Vec<Span> = a
        .tokens
        .iter()
        .map(|t| step.token_spans(cx.file()).at(*t))
        .collect();
    let lossy = spans
        .windows(2)
        .any(|w| w[0].end() < w[1].start() && &text[w[0].end()..w[1].start()] != " ");
    let contiguous = a.tokens.windows(2).all(|w| w[1] == w[0] + 1);
    if !lossy || !contiguous {
        return;
    }
    let all_bare = spans.iter().all(|s| !text[s.range()].starts_with('"'));
    let whole = Span::new(spans[0].start(), spans[spans.len() - 1].end());
    let mut d = Diagnostic::new(codes::WHITESPACE_COLLAPSE, "whitespace inside this argument is collapsed to single spaces", whole)
        .with_label(format!("agent-device reads `{}`", a.value))
        .with_help("bare tokens are re-joined with one space; quote the argument as a JSON string to keep the exact text");
    if all_bare {
        d = d.with_fix(
            "Quote the argument",
            vec![Edit {
                span: whole,
                replacement: ad_grammar::json::quote(&text[whole.range()]),
            }],
        );
    }
    out.push(d);
}
