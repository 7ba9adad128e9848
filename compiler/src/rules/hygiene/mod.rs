//! Script hygiene: unused `env` directives, `${…}` in env values, steps after an interior
//! `close`, wait timeouts outside the useful range, recording stutters.
//!
//! One file per rule; this runs them at each step, and reports them in a fixed order.

use ad_grammar::Diagnostic;

use super::{At, Context, Family};

mod after_close;
mod env_directives;
mod stutters;
mod wait_timeouts;

/// agent-device's wait polling defaults.
pub const WAIT_POLL_INTERVAL_MS: f64 = 300.0;
pub const WAIT_DEFAULT_TIMEOUT_MS: f64 = 10_000.0;

/// The family at work. Its rules report in a fixed order (rule by rule), so each keeps its own
/// list until the walk is over.
pub(super) struct Hygiene<'s> {
    env: Option<env_directives::EnvUse>,
    after_close: after_close::AfterClose<'s>,
    closed: Vec<Diagnostic>,
    waits: Vec<Diagnostic>,
    stutters: Vec<Diagnostic>,
}

impl<'s> Hygiene<'s> {
    pub(super) fn new(cx: &Context<'s>) -> Hygiene<'s> {
        Hygiene {
            env: env_directives::EnvUse::new(cx),
            after_close: after_close::AfterClose::new(cx),
            closed: Vec::new(),
            waits: Vec::new(),
            stutters: Vec::new(),
        }
    }
}

impl<'s> Family<'s> for Hygiene<'s> {
    fn step(&mut self, cx: &Context<'s>, at: &At<'s>, _out: &mut Vec<Diagnostic>) {
        if let Some(env) = &mut self.env {
            env.step(cx, at.step);
        }
        self.after_close.step(cx, at.step, &mut self.closed);
        wait_timeouts::check(cx, at.step, &mut self.waits);
        if let Some(previous) = at.previous {
            stutters::check(cx, previous, at.step, &mut self.stutters);
        }
    }

    fn finish(&mut self, cx: &Context<'s>, out: &mut Vec<Diagnostic>) {
        if let Some(env) = self.env.take() {
            env.finish(cx, out);
        }
        out.append(&mut self.closed);
        out.append(&mut self.waits);
        out.append(&mut self.stutters);
    }
}
