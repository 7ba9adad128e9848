//! AD401: annotations on steps that never read them, and the wrong annotation kind for a step.

use ad_grammar::{Diagnostic, Span};

use crate::codes;
use crate::lower::Step;
use crate::registry::{GestureKind, StepAction, Verification};
use crate::rules::Context;

pub(super) fn check(cx: &Context, step: &Step, out: &mut Vec<Diagnostic>) {
    let Some(line) = step.annotation_line() else {
        return;
    };
    let Some(spec) = step.spec() else { return };
    let is_drag = spec.verification == Verification::DragEndpoints
        && step.step_action() == Some(StepAction::Gesture(GestureKind::Drag));
    let single = step.target_evidence.is_some();
    let dual = step.target_evidences().is_some();
    // The annotation's line is read only for a finding: most steps have none.
    let misplaced = |msg: String, help: &str| {
        let span = cx.parse.file.lines[line].content;
        Diagnostic::new(codes::ANNOTATION_MISPLACED, msg, span).with_help(help.to_string())
    };
    match spec.verification {
        Verification::None if single || dual => out.push(
            misplaced(
                format!("`{}` does not verify target evidence; this annotation is never used", step.command()),
                "agent-device verifies target-v1 only on click, press, longpress, hover, fill, get, is, wait and gesture drag",
            )
            .with_secondary(step.command_span(cx.file()), "this step"),
        ),
        _ if is_drag && single => out.push(misplaced(
            "`gesture drag` is verified with `targets-v1` (source and destination), not `target-v1`".into(),
            "write # agent-device:targets-v1 {\"source\":{…},\"destination\":{…}}",
        )),
        _ if !is_drag && dual => out.push(misplaced(
            format!("`targets-v1` describes drag endpoints; `{}` reads `target-v1`", step.command()),
            "use # agent-device:target-v1 {…} for a single target",
        )),
        _ => {}
    }
    let _ = Span::default();
}
