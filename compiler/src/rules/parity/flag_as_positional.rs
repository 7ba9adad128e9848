//! AD113: a CLI flag the `.ad` reader does not read becomes positional text (or is joined into
//! the selector); the fix removes it with its value.

use ad_grammar::Diagnostic;

use super::super::Context;
use super::tok;
use crate::codes;
use crate::lower::Step;
use crate::rules::flag_tokens::{flag_takes_value, remove_token_edits};

pub(super) fn check(
    step: &Step,
    token: usize,
    cx: &Context,
    refused_flag: Option<usize>,
    targets_elements: bool,
    out: &mut Vec<Diagnostic>,
) {
    let tok = |i: usize| tok(cx, step, i);
    let (raw, span) = tok(token);
    if raw == "--record-as" || refused_flag == Some(token) {
        return; // AD720 explains it, with the right fix
    }
    let (label, help) = if targets_elements {
        (
                "the .ad reader does not read this flag: it becomes part of the step's text".to_string(),
                format!("`{raw}` works on the agent-device command line only; in a script it is joined into the selector or text argument; remove it"),
            )
    } else {
        (
                "the .ad reader does not read this flag: it becomes positional text".to_string(),
                format!("`{raw}` works on the agent-device command line only; remove it or use the script form of the option"),
            )
    };
    out.push(
        Diagnostic::new(
            codes::FLAG_AS_POSITIONAL,
            format!(
                "`{raw}` is not a flag in `.ad` scripts for `{}`",
                step.command()
            ),
            span,
        )
        .with_label(label)
        .with_help(help)
        .with_fix(
            format!("Remove `{raw}`"),
            remove_token_edits(step, token, cx, flag_takes_value(raw)),
        ),
    );
}
