//! Flag tokens as written, shared by the parity rules (a flag the reader does not read) and the
//! dispatch rules (a flag the daemon refuses): whether one takes a value, and the fix that
//! removes it.

use ad_grammar::{Edit, Span};

use super::Context;
use crate::lower::Step;

/// Whether a flag token takes the next token as its value (for the edit that removes both).
pub(super) fn flag_takes_value(flag: &str) -> bool {
    !matches!(
        flag,
        "--settle"
            | "--verify"
            | "--no-record"
            | "--record"
            | "--in-app"
            | "--shutdown"
            | "--first"
            | "--last"
            | "--save-script"
    )
}

/// The edit that removes token `token` of `step` with the whitespace before it, and its value
/// when `with_value` and the next token is not a flag.
pub(super) fn remove_token_edits(
    step: &Step,
    token: usize,
    cx: &Context,
    with_value: bool,
) -> Vec<Edit> {
    let text = cx.text();
    let start_span = step.token_spans(cx.file()).at(token);
    let mut end = start_span.end();
    if with_value {
        if let Some(next) = step.token_spans(cx.file()).get(token + 1) {
            if !text[next.range()].starts_with('-') {
                end = next.end();
            }
        }
    }
    // Remove the whitespace before the token too.
    let prev_end = step.token_spans(cx.file()).at(token - 1).end();
    vec![Edit {
        span: Span::new(prev_end, end),
        replacement: String::new(),
    }]
}
