//! AD114 (AD115 for `snapshot`): words the reader drops, with the fix that removes them, or for
//! words after an @ref's label, one report whose fix quotes the whole label.

use ad_grammar::{Diagnostic, Edit, Span};

use super::super::Context;
use super::tok;
use crate::codes;
use crate::lower::{ReaderNote, Step};
use crate::registry::ReaderRule;
use crate::rules::flag_tokens::remove_token_edits;

pub(super) fn check(
    step: &Step,
    token: usize,
    why: &'static str,
    cx: &Context,
    out: &mut Vec<Diagnostic>,
) {
    let text = cx.text();
    let tok = |i: usize| tok(cx, step, i);
    let (raw, span) = tok(token);
    let is_snapshot = step
        .spec()
        .is_some_and(|s| s.reader == ReaderRule::Snapshot);
    let code = if is_snapshot {
        codes::IGNORED_TOKEN
    } else {
        codes::DROPPED_ARGUMENT
    };
    // Words after an @ref's label: one report, and the fix quotes the whole label
    // (`click @e12 Add to cart` meant the label "Add to cart").
    if let Some(label) = step
        .ref_label()
        .as_ref()
        .filter(|l| l.tokens.first().is_some_and(|t| *t < token))
    {
        let first_dropped = step.notes().iter().find_map(|n| match n {
            ReaderNote::Dropped { token, .. } if *token > label.tokens[0] => Some(*token),
            _ => None,
        });
        if first_dropped != Some(token) {
            return;
        }
        let last = step
            .notes()
            .iter()
            .filter_map(|n| match n {
                ReaderNote::Dropped { token, .. } => Some(*token),
                _ => None,
            })
            .max()
            .unwrap_or(token);
        let whole = Span::new(
            step.token_spans(cx.file()).at(label.tokens[0]).start(),
            step.token_spans(cx.file()).at(last).end(),
        );
        let words: Vec<&str> = (label.tokens[0]..=last)
            .map(|t| &text[step.token_spans(cx.file()).at(t).range()])
            .collect();
        out.push(
            Diagnostic::new(
                code,
                format!(
                    "only `{}` is read as the ref's label; the rest is dropped",
                    label.value
                ),
                Span::new(span.start(), step.token_spans(cx.file()).at(last).end()),
            )
            .with_label(why)
            .with_help("quote a label that has several words")
            .with_fix(
                "Quote the label",
                vec![Edit {
                    span: whole,
                    replacement: ad_grammar::json::quote(&words.join(" ")),
                }],
            ),
        );
        return;
    }
    let mut d = Diagnostic::new(code, format!("`{raw}` is ignored by the .ad reader"), span)
        .with_label(why);
    d = match (is_snapshot, raw) {
        (true, "--interactive") => d.with_help("the .ad reader spells it `-i`").with_fix(
            "Use `-i`",
            vec![Edit {
                span,
                replacement: "-i".into(),
            }],
        ),
        _ => d.with_fix(
            format!("Remove `{raw}`"),
            remove_token_edits(step, token, cx, false),
        ),
    };
    out.push(d);
}
