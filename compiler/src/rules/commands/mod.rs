//! Command words: unknown (with did-you-mean), retired (with the migration), CLI aliases that do
//! not work in scripts, client-only commands, and `replay` lines that are skipped.
//!
//! Each rule is its own file; this runs them at each step in a fixed order.

use ad_grammar::Diagnostic;

use super::{At, Context};

mod availability;
mod replay_skipped;
mod unknown;

pub(super) fn check(cx: &Context, at: &At, out: &mut Vec<Diagnostic>) {
    let step = at.step;
    let Some(spec) = step.spec() else {
        unknown::check(cx, step, out);
        return;
    };
    availability::check(cx, step, spec, out);
    replay_skipped::check(cx, step, spec, out);
}
