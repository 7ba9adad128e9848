//! Script hygiene: unused `env` directives, `${…}` in env values, steps after an interior
//! `close`, wait timeouts outside the useful range, recording stutters.

use ad_grammar::placeholder::has_dollar_brace;
use ad_grammar::{Diagnostic, Edit, Span};

use super::Context;
use crate::codes;
use crate::lower::Step;
use crate::profile::terminal_close;
use crate::registry::{Action, Targeting};
use crate::shape::WaitForm;

/// agent-device's wait polling defaults.
pub const WAIT_POLL_INTERVAL_MS: f64 = 300.0;
pub const WAIT_DEFAULT_TIMEOUT_MS: f64 = 10_000.0;

pub(super) fn check(cx: &Context, out: &mut Vec<Diagnostic>) {
    env_directives(cx, out);
    after_close(cx, out);
    wait_timeouts(cx, out);
    stutters(cx, out);
}

fn env_directives(cx: &Context, out: &mut Vec<Diagnostic>) {
    if cx.parse.metadata.env.is_empty() {
        return;
    }
    let text = cx.text();
    // Which directives some `${NAME}` in the steps reads (positionals, flag and runtime values).
    // Scripts declare a handful of names, so a linear match beats hashing every use.
    let env = &cx.parse.metadata.env;
    let mut used = vec![false; env.len()];
    for step in cx.steps {
        let flag_strings = step
            .flags
            .values()
            .chain(step.runtime.iter().flat_map(|r| r.values()));
        let strings = step
            .positionals
            .iter()
            .filter(|a| a.has_dollar_brace())
            .map(|a| a.value.as_str())
            .chain(
                flag_strings
                    .filter_map(|v| v.as_str())
                    .filter(|v| has_dollar_brace(v)),
            );
        for value in strings {
            for p in ad_grammar::placeholder::placeholders(value) {
                let name = p.name(value);
                for (e, used) in env.iter().zip(used.iter_mut()) {
                    *used |= e.key == name;
                }
            }
        }
    }
    for (entry, used) in env.iter().zip(used) {
        let line = &cx.parse.file.lines[entry.line];
        if !used {
            let end = if line.span.end < text.len() {
                line.span.end + 1
            } else {
                line.span.end
            };
            out.push(
                Diagnostic::new(
                    codes::UNUSED_ENV,
                    format!("`{}` is never used", entry.key),
                    entry.key_span,
                )
                .with_label("no step reads `${…}` of this name")
                .with_help("delete the directive, or use the variable in a step")
                .with_fix(
                    format!("Remove `env {}`", entry.key),
                    vec![Edit {
                        span: Span::new(line.span.start, end),
                        replacement: String::new(),
                    }],
                ),
            );
        }
        if has_dollar_brace(&entry.value) {
            out.push(
                Diagnostic::new(codes::ENV_VALUE_PLACEHOLDER, format!("`${{…}}` in the value of `{}` is never expanded", entry.key), line.content)
                    .with_label("env values are taken literally")
                    .with_help("a placeholder in an env value stays literal text; supply the value with -e or AD_VAR_* instead"),
            );
        }
    }
}

fn after_close(cx: &Context, out: &mut Vec<Diagnostic>) {
    let terminal = terminal_close(cx.steps).map(|s| s.line);
    let mut closed_at: Option<&Step> = None;
    for step in cx.steps {
        match step.action() {
            Some(Action::Close) if Some(step.line) != terminal => closed_at = Some(step),
            Some(Action::Open | Action::Replay | Action::Context) => closed_at = None,
            _ => {
                if let Some(close) = closed_at.take() {
                    out.push(
                        Diagnostic::new(
                            codes::STEP_AFTER_CLOSE,
                            format!("`{}` runs after `close` ended the session", step.command),
                            step.line_span(),
                        )
                        .with_secondary(close.line_span(), "the session is closed here")
                        .with_help(
                            "add an `open` before this step, or move the `close` to the end",
                        ),
                    );
                }
            }
        }
    }
}

fn wait_timeouts(cx: &Context, out: &mut Vec<Diagnostic>) {
    let script_timeout = cx.parse.metadata.timeout_ms.as_ref().map(|t| t.value);
    for step in cx.steps {
        if step
            .spec
            .is_none_or(|s| s.targeting != Targeting::WaitTarget)
        {
            continue;
        }
        let timeout = match cx.wait_form(step) {
            Some(
                WaitForm::Text { timeout_ms, .. }
                | WaitForm::Absent { timeout_ms, .. }
                | WaitForm::Ref { timeout_ms, .. }
                | WaitForm::Selector { timeout_ms, .. }
                | WaitForm::Stable { timeout_ms, .. },
            ) => *timeout_ms,
            _ => None,
        };
        let Some(t) = timeout else { continue };
        let span = step
            .positionals
            .last()
            .map(|a| step.arg_span(a))
            .unwrap_or(step.line_span());
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
}

fn stutters(cx: &Context, out: &mut Vec<Diagnostic>) {
    for pair in cx.steps.windows(2) {
        let (a, b) = (&pair[0], &pair[1]);
        let targets_elements = b.spec.is_some_and(|s| {
            matches!(
                s.targeting,
                Targeting::Element | Targeting::ElementAfterSubcommand
            )
        });
        if !targets_elements
            || a.command != b.command
            || !a
                .positionals
                .iter()
                .map(|p| &p.value)
                .eq(b.positionals.iter().map(|p| &p.value))
            || a.flags != b.flags
        {
            continue;
        }
        out.push(
            Diagnostic::new(codes::DUPLICATE_STEP, format!("this `{}` repeats the previous step exactly", b.command), b.line_span())
                .with_secondary(a.line_span(), "the same step")
                .with_help("identical consecutive steps are often a recording stutter; delete one unless the repeat is intended (use --count for repeated taps)"),
        );
    }
}
