//! A step the daemon refuses at dispatch: AD117 wrong type, AD118 out of range, AD119 missing,
//! AD122 extra, AD124 CLI-only form, AD125 conflicting flags, AD201 invalid selector or form,
//! AD107 no script input. One file because the refusal's [`Kind`] picks the code.

use ad_grammar::{selector, Diagnostic, Edit, Span};

use super::unread_flags::{flag_diagnostic, flag_in, flag_in_selector};
use super::*;
use crate::codes;
use crate::lower::Step;
use crate::registry::Dispatch;
use crate::rules::{did_you_mean, Context};

fn arg_span(cx: &Context, step: &Step, r: &Refusal) -> Span {
    r.arg
        .and_then(|i| step.positionals.get(i))
        .map(|a| step.arg_span(cx.file(), a))
        .unwrap_or_else(|| step.line_span(cx.file()))
}

pub(super) fn check(cx: &Context, step: &Step, r: &Refusal) -> Option<Diagnostic> {
    let arg = r.arg.and_then(|i| step.positionals.get(i));
    let label = "the daemon refuses this step when the replay reaches it";
    let d = match &r.kind {
        Kind::Selector { text } => {
            let arg = arg?;
            if let Some(t) = flag_in_selector(cx, step, arg) {
                return Some(flag_diagnostic(cx, step, t, r));
            }
            return crate::rules::selectors::selector_diagnostic(cx, step, arg, text);
        }
        Kind::WrongType {
            name,
            expected,
            words,
        } => {
            let arg = arg?;
            if let Some(t) = flag_in(cx, step, std::slice::from_ref(arg)) {
                return Some(flag_diagnostic(cx, step, t, r));
            }
            let span = step.arg_span(cx.file(), arg);
            let mut d = Diagnostic::new(
                codes::WRONG_TYPE,
                format!("`{}` is not a valid {name}", arg.value),
                span,
            )
            .with_label(format!("expected {expected}"))
            .with_help(answer(r));
            if let Some(s) = words.and_then(|w| did_you_mean(&arg.value, w.iter().copied())) {
                d = d.with_fix(
                    format!("Replace with `{s}`"),
                    vec![Edit {
                        span,
                        replacement: s.to_string(),
                    }],
                );
            }
            d
        }
        Kind::Missing { expected } => Diagnostic::new(
            codes::MISSING_ARGUMENT,
            format!("`{}` is missing an argument", step.command()),
            arg_span(cx, step, r),
        )
        .with_label(format!("expected {expected}"))
        .with_help(answer(r)),
        Kind::Extra => {
            let from = r.arg.unwrap_or(0);
            let extra = &step.positionals[from.min(step.positionals.len())..];
            if let Some(t) = flag_in(cx, step, extra) {
                return Some(flag_diagnostic(cx, step, t, r));
            }
            let span = extra
                .iter()
                .map(|a| step.arg_span(cx.file(), a))
                .reduce(Span::cover)
                .unwrap_or_else(|| step.line_span(cx.file()));
            Diagnostic::new(
                codes::EXTRA_ARGUMENT,
                format!("`{}` does not take this many arguments", step.command()),
                span,
            )
            .with_label("the daemon refuses extra arguments for this command")
            .with_help(answer(r))
        }
        Kind::OutOfRange { .. } => {
            Diagnostic::new(codes::OUT_OF_RANGE, r.daemon.clone(), arg_span(cx, step, r))
                .with_label(label)
        }
        Kind::Conflict { help } => Diagnostic::new(
            codes::CONFLICTING_FLAGS,
            r.daemon.clone(),
            step.line_span(cx.file()),
        )
        .with_label(label)
        .with_help(*help),
        Kind::CliOnly { why } => {
            let span = args_span(cx, step);
            let mut d = Diagnostic::new(
                codes::CLI_ONLY_FORM,
                format!(
                    "this form of `{}` exists only on the agent-device command line",
                    step.command()
                ),
                span,
            )
            .with_label(label)
            .with_help(*why);
            if let Some(drop) = cli_only_drop(step) {
                d = d.with_fix(
                    format!("Remove `{}`", drop.0),
                    crate::rules::flag_tokens::remove_token_edits(step, drop.1, cx, false),
                );
            }
            d
        }
        Kind::Form { command } => Diagnostic::new(
            codes::INVALID_SELECTOR,
            if *command == "wait" {
                "`wait` arguments do not form a wait".to_string()
            } else {
                format!("`is`: {}", r.daemon)
            },
            args_span(cx, step),
        )
        .with_label(r.daemon.clone())
        .with_help(if *command == "wait" {
            "wait <ms> | text <text> [timeoutMs] | <selector> [timeoutMs] | absent <selector> \
             [timeoutMs] | @ref [timeoutMs] | stable [quietMs] [timeoutMs]"
        } else {
            "is <predicate> <selector> [value] | is <selector> <predicate>; predicates: visible \
             hidden exists absent editable selected focused text"
        }),
        Kind::CropOn => {
            let crop = step
                .flags()
                .get("screenshotCropOn")
                .and_then(|v| v.as_str())
                .unwrap_or("");
            let (_, errors) = selector::parse_chain(crop);
            Diagnostic::new(
                codes::INVALID_SELECTOR,
                format!(
                    "invalid `--crop-on` selector: {}",
                    errors.first().map(|e| e.message.as_str()).unwrap_or("")
                ),
                step.line_span(cx.file()),
            )
        }
        Kind::NoScriptInput => Diagnostic::new(
            codes::NO_SCRIPT_INPUT,
            format!(
                "`{}` cannot carry its input in a script line",
                step.command()
            ),
            step.command_span(cx.file()),
        )
        .with_label(format!("agent-device answers: {}", r.daemon))
        .with_help(
            "batch takes its steps from --steps on the command line; in a script, write the \
             steps as lines",
        ),
    };
    Some(d)
}

fn args_span(cx: &Context, step: &Step) -> Span {
    step.positionals
        .iter()
        .map(|a| step.arg_span(cx.file(), a))
        .reduce(Span::cover)
        .unwrap_or(step.command_span(cx.file()))
}

/// The word a CLI-only form drops to become the script form (`tv-remote press down`), with its
/// token.
fn cli_only_drop(step: &Step) -> Option<(&'static str, usize)> {
    let Dispatch::Forms { cli_only, .. } = step.spec()?.dispatch else {
        return None;
    };
    let first = step.positionals.first()?;
    cli_only.iter().find_map(|f| {
        f.drop
            .iter()
            .find(|w| **w == &*first.value)
            .map(|w| (*w, first.tokens[0]))
    })
}
