//! Command words: unknown (with did-you-mean), retired (with the migration), CLI aliases that do
//! not work in scripts, client-only commands, and `replay` lines that are skipped.
//!
//! Each rule is its own file; this loop runs them per step in a fixed order.

use ad_grammar::Diagnostic;

use super::Context;

mod availability;
mod replay_skipped;
mod unknown;

pub(super) fn check(cx: &Context, out: &mut Vec<Diagnostic>) {
    for step in cx.steps {
        let Some(spec) = step.spec else {
            unknown::check(cx, step, out);
            continue;
        };
        availability::check(cx, step, spec, out);
        replay_skipped::check(cx, step, spec, out);
    }
}
