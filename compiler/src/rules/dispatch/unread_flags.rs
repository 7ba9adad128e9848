//! AD123: a CLI flag the reader kept as an argument, when the daemon refuses the slot it landed
//! in; the helpers find such flags for the other refusal reports (which defer to this one).

use ad_grammar::text::js_trim;
use ad_grammar::{selector, Diagnostic};

use super::*;
use crate::codes;
use crate::lower::{Arg, ReaderNote, Step};
use crate::rules::Context;

/// The tokens (indices into the step's tokens) of CLI flags the reader kept as positionals, each
/// with the value token after it when the flag takes one.
fn unread_flag_tokens(cx: &Context, step: &Step) -> Vec<usize> {
    let text = cx.text();
    let mut out = Vec::new();
    for n in step.notes() {
        if let ReaderNote::UnknownFlag { token } = *n {
            out.push(token);
            let raw = &text[step.token_spans(cx.file()).at(token).range()];
            if crate::rules::flag_tokens::flag_takes_value(raw) {
                if let Some(next) = step.token_spans(cx.file()).get(token + 1) {
                    if !text[next.range()].starts_with('-') {
                        out.push(token + 1);
                    }
                }
            }
        }
    }
    out
}

/// The unread flag whose tokens make up the positionals `args` (all of them), if any.
pub(super) fn flag_in(cx: &Context, step: &Step, args: &[Arg]) -> Option<usize> {
    let flags = unread_flag_tokens(cx, step);
    let tokens: Vec<usize> = args.iter().flat_map(|a| a.tokens.iter().copied()).collect();
    (!tokens.is_empty() && tokens.iter().all(|t| flags.contains(t)))
        .then(|| tokens.iter().copied().find(|t| is_flag_note(step, *t)))
        .flatten()
}

fn is_flag_note(step: &Step, token: usize) -> bool {
    step.notes()
        .iter()
        .any(|n| matches!(n, ReaderNote::UnknownFlag { token: t } if *t == token))
}

/// A selector that is only invalid because unread flags were joined into it: the first flag.
pub(super) fn flag_in_selector(cx: &Context, step: &Step, arg: &Arg) -> Option<usize> {
    let flags = unread_flag_tokens(cx, step);
    if !arg.tokens.iter().any(|t| flags.contains(t)) {
        return None;
    }
    let tokens = cx.file().action_tokens(step.line());
    let rest: Vec<_> = arg
        .tokens
        .iter()
        .filter(|t| !flags.contains(t))
        .map(|t| tokens[*t].value(cx.text()))
        .collect();
    let rest = rest.join(" ");
    (!js_trim(&rest).is_empty() && selector::is_valid(&rest))
        .then(|| arg.tokens.iter().copied().find(|t| is_flag_note(step, *t)))
        .flatten()
}

/// AD123: the reader kept a CLI flag as an argument and the daemon refuses the slot it landed in.
pub(super) fn flag_diagnostic(cx: &Context, step: &Step, token: usize, r: &Refusal) -> Diagnostic {
    let text = cx.text();
    let raw = &text[step.token_spans(cx.file()).at(token).range()];
    let takes_value = crate::rules::flag_tokens::flag_takes_value(raw);
    Diagnostic::new(
        codes::FLAG_IN_ARGUMENT,
        format!(
            "`{raw}` is not a flag in `.ad` scripts for `{}`: it lands in an argument the daemon checks",
            step.command()
        ),
        step.token_spans(cx.file()).at(token),
    )
    .with_label(if r.own_words {
        format!(
            "the reader keeps it as an argument, and the daemon refuses the step: {}",
            r.daemon
        )
    } else {
        format!(
            "the reader keeps it as an argument, and the daemon refuses the step ({})",
            r.daemon
        )
    })
    .with_help(format!(
        "`{raw}` works on the agent-device command line only; remove it (a script has no \
         equivalent for every CLI flag)"
    ))
    .with_fix(
        format!("Remove `{raw}`"),
        crate::rules::flag_tokens::remove_token_edits(step, token, cx, takes_value),
    )
}

/// The unread flag token a refusal is reported on (AD123), if it is one.
pub(in crate::rules) fn refused_flag(
    cx: &Context,
    step: &Step,
    verdict: &Verdict,
) -> Option<usize> {
    let Verdict::Refused(r) = verdict else {
        return None;
    };
    if cx.is_rejected_line(step.line()) {
        return None;
    }
    let arg = r.arg.and_then(|i| step.positionals.get(i));
    match &r.kind {
        Kind::Selector { .. } => flag_in_selector(cx, step, arg?),
        Kind::WrongType { .. } => flag_in(cx, step, std::slice::from_ref(arg?)),
        Kind::Extra => flag_in(
            cx,
            step,
            &step.positionals[r.arg.unwrap_or(0).min(step.positionals.len())..],
        ),
        _ => None,
    }
}
