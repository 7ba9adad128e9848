//! The handoff artifact contract (agent-device ADR 0016 with the #1349 identity-level guard):
//! exactly one `open`, first; no `close`; a verified selector wait on a landmark after the last
//! mutating step; no session-local `@ref`; no mutating `find`; target evidence on every
//! identity-verified element step. Each refusal names its recovery, as agent-device's
//! publication refusals do.
//!
//! One file per rule; this runs them in a fixed order (whole-script rules, then per step).

use ad_grammar::Diagnostic;

use super::Context;
use crate::profile::{Profile, ProfileDecision};

mod destination_guard;
mod missing_evidence;
mod mutating_find;
mod open_close;
mod session_ref;

/// Adds to a finding's help why the script is held to the handoff contract.
type Note<'a> = &'a dyn Fn(Diagnostic) -> Diagnostic;

pub(super) fn check(cx: &Context, decision: &ProfileDecision, out: &mut Vec<Diagnostic>) {
    if decision.profile != Profile::Handoff || cx.steps.is_empty() {
        return;
    }
    let why = decision.describe();
    let required = if decision.forced() {
        format!("\nrequired by the {why}")
    } else {
        format!("\nrequired by the {why}; if this is a test flow, end it with `close` or pass `--profile flow` (or map its folder in ad.toml's [profiles])")
    };
    let note = |mut d: Diagnostic| {
        let mut help = d.help.take().map(|h| h.into_owned()).unwrap_or_default();
        help.push_str(&required);
        d.with_help(help)
    };
    let note: Note = &note;
    open_close::check(cx, note, out);
    destination_guard::check(cx, note, out);
    // No session-local refs, no mutating find, evidence on identity-verified element steps.
    for step in cx.steps {
        let Some(spec) = step.spec else { continue };
        session_ref::check(cx, step, note, out);
        mutating_find::check(cx, step, spec, note, out);
        missing_evidence::check(cx, step, spec, note, out);
    }
}
