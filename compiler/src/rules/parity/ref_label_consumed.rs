//! AD120: `fill @e3 hello world` reads `hello` as the ref's label, not as text; the fix quotes
//! the whole text.

use ad_grammar::{Diagnostic, Edit, Span};

use crate::codes;
use crate::lower::Step;
use crate::registry::ReaderRule;
use crate::rules::Context;

pub(super) fn check(cx: &Context, step: &Step, text: &str, out: &mut Vec<Diagnostic>) {
    // `fill @e3 hello world`: "hello" becomes the ref label.
    if step.spec().is_some_and(|s| s.reader == ReaderRule::Fill)
        && step
            .positionals
            .first()
            .is_some_and(|p| p.value.starts_with('@'))
    {
        // The recorder writes `fill @e3 "Label" "text"` on purpose: only bare words are a slip.
        let bare = |a: &crate::lower::Arg| {
            a.tokens
                .iter()
                .all(|t| !text[step.token_spans(cx.file()).at(*t).range()].starts_with('"'))
        };
        if let Some(label) = step
            .ref_label()
            .as_ref()
            .filter(|l| bare(l) && step.positionals.get(1).is_some_and(bare))
        {
            let span = step.arg_span(cx.file(), label);
            let text_arg = step.positionals.get(1);
            let mut d = Diagnostic::new(codes::REF_LABEL_CONSUMED, format!("`{}` is read as the @ref's label, not as text", label.value), span)
                .with_label("fill @ref <label> <text>: the first word after the ref is its label")
                .with_help("quote the whole text to type all of it (the agent-device CLI would type every word)");
            if let Some(t) = text_arg {
                let whole = Span::new(span.start(), step.arg_span(cx.file(), t).end());
                let joined = format!("{} {}", label.value, t.value);
                d = d.with_fix(
                    "Quote the text",
                    vec![Edit {
                        span: whole,
                        replacement: ad_grammar::json::quote(&joined),
                    }],
                );
            }
            out.push(d);
        }
    }
}
