//! AD118: flag values must be in the ranges the registry declares (the daemon enforces them when
//! the step is dispatched, after earlier steps ran). Positionals are the dispatch rules'
//! (`dispatch/`).

use ad_grammar::Diagnostic;
use serde_json::Value;

use crate::codes;
use crate::lower::Step;
use crate::registry::{Dispatch, FlagValue, Reader};
use crate::rules::Context;

pub(super) fn check(cx: &Context, step: &Step, out: &mut Vec<Diagnostic>) {
    // `gesture` reads `--pointer-count` only for `pan`: its dispatch reader checks it.
    let gesture = step
        .spec()
        .is_some_and(|s| matches!(s.dispatch, Dispatch::Reader(Reader::Gesture)));
    if step.spec().is_some() && !gesture && !cx.is_rejected_line(step.line()) {
        flag_ranges(cx, step, out);
    }
}

fn flag_ranges(cx: &Context, step: &Step, out: &mut Vec<Diagnostic>) {
    let Some(spec) = step.spec() else { return };
    if step.flags().is_empty() && step.runtime().is_none() {
        return; // the common case: nothing to range-check
    }
    for flag in spec.flags {
        let Some(value) = step
            .flags()
            .get(flag.key)
            .or_else(|| step.runtime().and_then(|r| r.get(flag.key)))
        else {
            continue;
        };
        let (FlagValue::Integer { min, max }, Value::Number(n)) = (flag.value, value) else {
            continue;
        };
        let n = n.as_f64().unwrap_or(f64::NAN);
        if n < min as f64 || n > max as f64 {
            out.push(
                Diagnostic::new(
                    codes::OUT_OF_RANGE,
                    format!(
                        "`{}` must be from {min} to {max}; got {}",
                        flag.name,
                        ad_grammar::json::js_number_to_string(n)
                    ),
                    step.line_span(cx.file()),
                )
                .with_label("the daemon rejects this value when the step runs")
                .with_help(flag.doc),
            );
        }
    }
}
