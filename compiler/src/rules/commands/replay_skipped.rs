//! AD105: `replay` lines: the step loop skips them (replay does not nest).

use ad_grammar::Diagnostic;

use crate::codes;
use crate::lower::Step;
use crate::registry::{CommandSpec, Effect};
use crate::rules::Context;

pub(super) fn check(cx: &Context, step: &Step, spec: &CommandSpec, out: &mut Vec<Diagnostic>) {
    let word = step.command();
    if spec.effect == Effect::Skipped {
        out.push(
            Diagnostic::new(codes::REPLAY_SKIPPED, format!("`{word}` lines are skipped when the script runs"), step.line_span(cx.file()))
                .with_help("replay does not nest: the step loop skips this line; inline the other script's steps instead"),
        );
    }
}
