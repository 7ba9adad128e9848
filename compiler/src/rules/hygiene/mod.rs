//! Script hygiene: unused `env` directives, `${…}` in env values, steps after an interior
//! `close`, wait timeouts outside the useful range, recording stutters.
//!
//! One file per rule; this runs them in a fixed order.

use ad_grammar::Diagnostic;

use super::Context;

mod after_close;
mod env_directives;
mod stutters;
mod wait_timeouts;

/// agent-device's wait polling defaults.
pub const WAIT_POLL_INTERVAL_MS: f64 = 300.0;
pub const WAIT_DEFAULT_TIMEOUT_MS: f64 = 10_000.0;

pub(super) fn check(cx: &Context, out: &mut Vec<Diagnostic>) {
    env_directives::check(cx, out);
    after_close::check(cx, out);
    wait_timeouts::check(cx, out);
    stutters::check(cx, out);
}
