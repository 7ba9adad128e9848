//! Parameterized recorded inputs (agent-device ADR 0017, with the #1398 echo protection):
//! `--record-as` is CLI-only; secure-field fills should not commit the secret; placeholders that
//! a re-recording would expand; placeholders inside verified evidence.
//!
//! One file per rule; this runs them at each step in a fixed order.

use ad_grammar::Diagnostic;

use super::{At, Context};
use crate::lower::Step;

mod evidence_placeholders;
mod expanded_on_rerecord;
mod record_as;
mod secret_in_clear;

pub(super) fn check(cx: &Context, at: &At, out: &mut Vec<Diagnostic>) {
    let step = at.step;
    let Some(spec) = step.spec() else { return };
    record_as::check(cx, step, out);
    secret_in_clear::check(cx, step, spec, out);
    expanded_on_rerecord::check(cx, step, spec, cx.text(), out);
    evidence_placeholders::check(cx, step, out);
}

/// The text argument of a fill (after `x y`, `@ref [label]` or the selector).
fn fill_text<'s>(step: &'s Step<'s>) -> Option<&'s crate::lower::Arg<'s>> {
    match step.positionals.len() {
        0 | 1 => None,
        n => step.positionals.get(n - 1),
    }
}
