//! AD706: a mutating `find` carries no identity evidence, so a handoff script cannot use it.

use ad_grammar::Diagnostic;

use super::Note;
use crate::codes;
use crate::lower::Step;
use crate::profile::mutates;
use crate::registry::{CommandSpec, Effect};
use crate::rules::Context;

pub(super) fn check(
    cx: &Context,
    step: &Step,
    spec: &CommandSpec,
    note: Note,
    out: &mut Vec<Diagnostic>,
) {
    if spec.effect == Effect::FindAction && mutates(step) {
        out.push(note(
            Diagnostic::new(codes::HANDOFF_MUTATING_FIND, "a handoff script cannot use a mutating `find`", step.line_span(cx.file()))
                .with_help("`find … click|fill|type` carries no identity evidence; use `click`/`fill` with a selector instead"),
        ));
    }
}
