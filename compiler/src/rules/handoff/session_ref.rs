//! AD705: a session-local `@ref` in a handoff script never resolves in the next session.

use ad_grammar::Diagnostic;

use super::Note;
use crate::codes;
use crate::lower::Step;
use crate::rules::Context;

pub(super) fn check(cx: &Context, step: &Step, note: Note, out: &mut Vec<Diagnostic>) {
    for arg in &step.positionals {
        if arg.value.starts_with('@') && !arg.value.starts_with("@{") {
            out.push(note(
                Diagnostic::new(
                    codes::HANDOFF_SESSION_REF,
                    format!("`{}` is a session-local ref", arg.value),
                    step.arg_span(cx.file(), arg),
                )
                .with_label("refs belong to the recording session and never resolve in a new one")
                .with_help(
                    "target the element with a selector (id=…, or role=… label=…) instead of a ref",
                ),
            ));
        }
    }
}
