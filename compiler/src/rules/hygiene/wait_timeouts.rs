//! AD733: wait timeouts shorter than the polling interval or far past the default.

use ad_grammar::Diagnostic;

use super::{WAIT_DEFAULT_TIMEOUT_MS, WAIT_POLL_INTERVAL_MS};
use crate::codes;
use crate::lower::Step;
use crate::registry::Targeting;
use crate::rules::Context;
use crate::shape::{wait_timeout_bound, WaitForm};

pub(super) fn check(cx: &Context, step: &Step, out: &mut Vec<Diagnostic>) {
    if step
        .spec()
        .is_none_or(|s| s.targeting != Targeting::WaitTarget)
    {
        return;
    }
    let script_timeout = cx.parse.metadata.timeout_ms.as_ref().map(|t| t.value);
    let out_of_range = |t: f64| t < WAIT_POLL_INTERVAL_MS || script_timeout.is_some_and(|l| t > l);
    // Most waits have no timeout, or one in range: the form (a selector split) is read only
    // when the one value its timeout can have is out of range.
    if !wait_timeout_bound(&step.positionals).is_some_and(out_of_range) {
        return;
    }
    let timeout = match cx.wait_form(step) {
        Some(
            WaitForm::Text { timeout_ms, .. }
            | WaitForm::Absent { timeout_ms, .. }
            | WaitForm::Ref { timeout_ms, .. }
            | WaitForm::Selector { timeout_ms, .. }
            | WaitForm::Stable { timeout_ms, .. },
        ) => timeout_ms,
        _ => None,
    };
    let Some(t) = timeout else { return };
    let span = step
        .positionals
        .last()
        .map(|a| step.arg_span(cx.file(), a))
        .unwrap_or(step.line_span(cx.file()));
    if t < WAIT_POLL_INTERVAL_MS {
        out.push(
            Diagnostic::new(codes::WAIT_TIMEOUT_RANGE, format!("a {t} ms timeout is shorter than the {WAIT_POLL_INTERVAL_MS} ms polling interval"), span)
                .with_label("the target gets one look at most")
                .with_help(format!("use a timeout of at least {WAIT_POLL_INTERVAL_MS} ms (default {WAIT_DEFAULT_TIMEOUT_MS} ms), or drop it for the default")),
        );
    } else if let Some(limit) = script_timeout.filter(|l| t > *l) {
        out.push(
            Diagnostic::new(
                codes::WAIT_TIMEOUT_RANGE,
                format!(
                    "a {t} ms timeout is longer than the script's {limit} ms `context timeout`"
                ),
                span,
            )
            .with_label("`ad test` stops the script before this wait can time out")
            .with_help("lower the wait's timeout or raise `context timeout=`"),
        );
    }
}
