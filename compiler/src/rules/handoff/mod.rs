//! The handoff artifact contract (agent-device ADR 0016 with the #1349 identity-level guard):
//! exactly one `open`, first; no `close`; a verified selector wait on a landmark after the last
//! mutating step; no session-local `@ref`; no mutating `find`; target evidence on every
//! identity-verified element step. Each refusal names its recovery, as agent-device's
//! publication refusals do.
//!
//! One file per rule; this runs them in a fixed order (whole-script rules, then per step).

use ad_grammar::Diagnostic;

use super::{At, Context, Family};
use crate::profile::{Profile, ProfileDecision};

mod destination_guard;
mod missing_evidence;
mod mutating_find;
mod open_close;
mod session_ref;

/// Adds to a finding's help why the script is held to the handoff contract.
type Note<'a> = &'a dyn Fn(Diagnostic) -> Diagnostic;

/// The family at work: only under the handoff profile.
pub(super) struct Handoff {
    /// Why the script is held to the contract, added to every finding's help.
    required: String,
    /// The per-step findings, reported after the whole-script ones.
    each_step: Vec<Diagnostic>,
}

impl Handoff {
    pub(super) fn new(cx: &Context, decision: &ProfileDecision) -> Option<Handoff> {
        if decision.profile != Profile::Handoff || cx.steps.is_empty() {
            return None;
        }
        let why = decision.describe();
        let required = if decision.forced() {
            format!("\nrequired by the {why}")
        } else {
            format!("\nrequired by the {why}; if this is a test flow, end it with `close` or pass `--profile flow` (or map its folder in ad.toml's [profiles])")
        };
        Some(Handoff {
            required,
            each_step: Vec::new(),
        })
    }
}

impl<'s> Family<'s> for Handoff {
    /// No session-local refs, no mutating find, evidence on identity-verified element steps.
    fn step(&mut self, cx: &Context<'s>, at: &At<'s>, _out: &mut Vec<Diagnostic>) {
        let step = at.step;
        let Some(spec) = step.spec() else { return };
        let required = &self.required;
        let note = |d| with_required(d, required);
        let note: Note = &note;
        let found = &mut self.each_step;
        session_ref::check(cx, step, note, found);
        mutating_find::check(cx, step, spec, note, found);
        missing_evidence::check(cx, step, spec, note, found);
    }

    fn finish(&mut self, cx: &Context<'s>, out: &mut Vec<Diagnostic>) {
        let required = &self.required;
        let note = |d| with_required(d, required);
        let note: Note = &note;
        open_close::check(cx, note, out);
        destination_guard::check(cx, note, out);
        out.append(&mut self.each_step);
    }
}

/// A finding's help, with why the script is held to the handoff contract.
fn with_required(mut d: Diagnostic, required: &str) -> Diagnostic {
    let mut help = d.help.take().map(|h| h.into_owned()).unwrap_or_default();
    help.push_str(required);
    d.with_help(help)
}
