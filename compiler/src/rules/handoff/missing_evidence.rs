//! AD707: every identity-verified element step of a handoff script carries its `target-v1`
//! (`targets-v1` for drags) evidence.

use ad_grammar::Diagnostic;

use super::Note;
use crate::codes;
use crate::lower::Step;
use crate::registry::{CommandSpec, GestureKind, StepAction, Targeting, Verification};
use crate::rules::Context;
use crate::shape::{element_targets, Target};

pub(super) fn check(
    cx: &Context,
    step: &Step,
    spec: &CommandSpec,
    note: Note,
    out: &mut Vec<Diagnostic>,
) {
    let needs_evidence = match spec.verification {
        Verification::PreDispatch => element_targets(step)
            .first()
            .is_some_and(|(_, t)| !matches!(t, Target::Point { .. })),
        Verification::DragEndpoints => {
            step.step_action() == Some(StepAction::Gesture(GestureKind::Drag))
        }
        _ => false,
    };
    let has = if spec.verification == Verification::DragEndpoints {
        step.target_evidences().is_some()
    } else {
        step.target_evidence.is_some()
    };
    // `is exists` is intentionally never annotated.
    let exempt = spec.targeting == Targeting::Predicate
        && step
            .positionals
            .first()
            .is_some_and(|p| p.value.eq_ignore_ascii_case("exists"));
    if needs_evidence && !has && !exempt {
        let kind = if spec.verification == Verification::DragEndpoints {
            "targets-v1"
        } else {
            "target-v1"
        };
        out.push(note(
            Diagnostic::new(codes::HANDOFF_MISSING_EVIDENCE, format!("`{}` has no `{kind}` evidence", step.command()), step.line_span(cx.file()))
                .with_label("replay cannot verify it acts on the recorded element")
                .with_help(format!("re-record this step with agent-device so it writes `# agent-device:{kind} {{…}}` above it")),
        ));
    }
}
