//! Tokens the `.ad` reader treats differently from how they look: CLI flags it does not read
//! (they become positional text or get glued into a selector), arguments it drops, labels it
//! consumes, whitespace it collapses, and `#` that is not a comment.
//!
//! One file per rule; this runs them at each step (and per reader note) in a fixed order.

use ad_grammar::{Diagnostic, Span};

use super::dispatch::Verdict;
use super::{At, Context};
use crate::lower::{ReaderNote, Step};
use crate::registry::Targeting;

mod dropped;
mod flag_as_positional;
mod flag_value_ignored;
mod ref_label_consumed;
mod trailing_hash;
mod whitespace_collapse;

pub(super) fn check(cx: &Context, at: &At, verdict: &Verdict, out: &mut Vec<Diagnostic>) {
    let step = at.step;
    let text = cx.text();
    let refused_flag = super::dispatch::refused_flag(cx, step, verdict);
    let targets_elements = step
        .spec()
        .is_some_and(|s| s.targeting == Targeting::Element);
    for note in step.notes() {
        match *note {
            ReaderNote::UnknownFlag { token } => {
                flag_as_positional::check(step, token, cx, refused_flag, targets_elements, out)
            }
            ReaderNote::FlagNotConsumed { token } => {
                flag_value_ignored::not_consumed(step, token, cx, out)
            }
            ReaderNote::FlagValueIgnored { token, value } => {
                flag_value_ignored::ignored(step, token, value, cx, out)
            }
            ReaderNote::Dropped { token, why } => dropped::check(step, token, why, cx, out),
            ReaderNote::Joined { arg } => whitespace_collapse::check(cx, step, arg, out),
            ReaderNote::PinStripped { .. } => {}
        }
    }
    ref_label_consumed::check(cx, step, text, out);
    trailing_hash::check(cx, step, text, out);
}

/// A token of the step as written, with its span.
fn tok<'t>(cx: &'t Context, step: &Step, i: usize) -> (&'t str, Span) {
    let span = step.token_span(cx.file(), i);
    (&cx.text()[span.range()], span)
}
