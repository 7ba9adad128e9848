//! The handoff artifact contract (agent-device ADR 0016 with the #1349 identity-level guard):
//! exactly one `open`, first; no `close`; a verified selector wait on a landmark after the last
//! mutating step; no session-local `@ref`; no mutating `find`; target evidence on every
//! identity-verified element step. Each refusal names its recovery, as agent-device's
//! publication refusals do.

use ad_grammar::annotation::VerificationState;
use ad_grammar::placeholder::has_dollar_brace;
use ad_grammar::{Diagnostic, Edit, Span};

use super::Context;
use crate::codes;
use crate::lower::Step;
use crate::profile::{mutates, Profile, ProfileDecision};
use crate::registry::{Action, Effect, Targeting, Verification};
use crate::shape::{element_targets, Target, WaitForm};

pub(super) fn check(cx: &Context, decision: &ProfileDecision, out: &mut Vec<Diagnostic>) {
    if decision.profile != Profile::Handoff || cx.steps.is_empty() {
        return;
    }
    let why = decision.describe();
    let required = if decision.forced() {
        format!("\nrequired by the {why}")
    } else {
        format!("\nrequired by the {why}; if this is a test flow, end it with `close` or pass `--profile flow` (or map its folder in ad.toml's [profiles])")
    };
    let note = |mut d: Diagnostic| {
        let mut help = d.help.take().map(|h| h.into_owned()).unwrap_or_default();
        help.push_str(&required);
        d.with_help(help)
    };

    // Exactly one open, and it is the first action.
    let opens: Vec<&Step> = cx
        .steps
        .iter()
        .filter(|s| s.action() == Some(Action::Open))
        .collect();
    let first = &cx.steps[0];
    if opens.is_empty() {
        out.push(note(
            Diagnostic::new(codes::HANDOFF_OPEN, "a handoff script must start with `open`", first.line_span())
                .with_label("the first action is not `open`")
                .with_help("record the journey from a fresh session: `open <app> --save-script`, then the steps"),
        ));
    } else {
        if first.action() != Some(Action::Open) {
            out.push(note(
                Diagnostic::new(
                    codes::HANDOFF_OPEN,
                    "the `open` of a handoff script must be its first action",
                    opens[0].line_span(),
                )
                .with_secondary(first.line_span(), "this step runs before the app is opened")
                .with_help("move `open` to the top: the artifact must replay from a cold start"),
            ));
        }
        for extra in opens.iter().skip(1) {
            out.push(note(
                Diagnostic::new(codes::HANDOFF_OPEN, "a handoff script has exactly one `open`", extra.line_span())
                    .with_secondary(opens[0].line_span(), "the script's `open`")
                    .with_help("a second `open` aborts an authoring session; record the journey again from one `open`"),
            ));
        }
    }
    for close in cx
        .steps
        .iter()
        .filter(|s| s.action() == Some(Action::Close))
    {
        out.push(note(
            Diagnostic::new(codes::HANDOFF_CLOSE, "a handoff script must not `close` the session", close.line_span())
                .with_label("the session must stay live at the destination")
                .with_help("remove `close`: the agent that continues from the destination owns closing the session"),
        ));
    }

    // The destination guard after the last mutating step.
    let last_mutation = cx.steps.iter().rposition(mutates);
    let after = last_mutation
        .map(|i| &cx.steps[i + 1..])
        .unwrap_or(cx.steps);
    let mut qualifying = false;
    let mut near_misses = Vec::new();
    for step in after {
        if step
            .spec
            .is_none_or(|s| s.targeting != Targeting::WaitTarget)
        {
            continue;
        }
        match guard_problem(cx, step) {
            None => qualifying = true,
            Some(problem) => near_misses.push((step, problem)),
        }
    }
    if !qualifying {
        for (step, problem) in &near_misses {
            out.push(note(
                Diagnostic::new(codes::GUARD_NOT_QUALIFIED, format!("this wait is not a destination guard: {problem}"), step.line_span())
                    .with_help("record a selector wait on a labeled or id-bearing landmark after the last mutating step (its target-v1 annotation must be \"verified\")"),
            ));
        }
        let at = last_mutation
            .map(|i| cx.steps[i].line_span())
            .unwrap_or(first.line_span());
        let mut d = Diagnostic::new(codes::MISSING_DESTINATION_GUARD, "no destination guard after the last mutating step", at)
            .with_label("after this step the script must prove it reached the destination")
            .with_help("record a selector wait on a labeled or id-bearing landmark after the last mutating step: `wait \"id=\\\"…\\\"\"` with a verified target-v1 annotation");
        if let Some(fix) = guard_fix(cx, last_mutation) {
            d = d.with_fix(fix.0, fix.1);
        }
        out.push(note(d));
    }

    // No session-local refs, no mutating find, evidence on identity-verified element steps.
    for step in cx.steps {
        let Some(spec) = step.spec else { continue };
        for arg in &step.positionals {
            if arg.value.starts_with('@') && !arg.value.starts_with("@{") {
                out.push(note(
                    Diagnostic::new(codes::HANDOFF_SESSION_REF, format!("`{}` is a session-local ref", arg.value), step.arg_span(arg))
                        .with_label("refs belong to the recording session and never resolve in a new one")
                        .with_help("target the element with a selector (id=…, or role=… label=…) instead of a ref"),
                ));
            }
        }
        if spec.effect == Effect::FindAction && mutates(step) {
            out.push(note(
                Diagnostic::new(codes::HANDOFF_MUTATING_FIND, "a handoff script cannot use a mutating `find`", step.line_span())
                    .with_help("`find … click|fill|type` carries no identity evidence; use `click`/`fill` with a selector instead"),
            ));
        }
        let needs_evidence = match spec.verification {
            Verification::PreDispatch => element_targets(step)
                .first()
                .is_some_and(|(_, t)| !matches!(t, Target::Point { .. })),
            Verification::DragEndpoints => {
                step.positionals.first().is_some_and(|p| p.value == "drag")
            }
            _ => false,
        };
        let has = if spec.verification == Verification::DragEndpoints {
            step.target_evidences.is_some()
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
                Diagnostic::new(codes::HANDOFF_MISSING_EVIDENCE, format!("`{}` has no `{kind}` evidence", step.command), step.line_span())
                    .with_label("replay cannot verify it acts on the recorded element")
                    .with_help(format!("re-record this step with agent-device so it writes `# agent-device:{kind} {{…}}` above it")),
            ));
        }
    }
}

/// Why a `wait` does not qualify as a destination guard (None: it does).
fn guard_problem(cx: &Context, step: &Step) -> Option<&'static str> {
    match cx.wait_form(step).unwrap_or(&WaitForm::Empty) {
        WaitForm::Selector { .. } => {}
        WaitForm::Sleep { .. } => return Some("a duration wait proves nothing about the screen"),
        WaitForm::Text { .. } => return Some("`wait text` is not a portable selector"),
        WaitForm::Stable { .. } => {
            return Some("`wait stable` may follow the guard but is not one")
        }
        WaitForm::Absent { .. } => {
            return Some("`wait absent` proves something is gone, not where the script is")
        }
        WaitForm::Ref { .. } => return Some("`wait @ref` uses a session-local ref"),
        WaitForm::Invalid { .. } | WaitForm::Empty => {
            return Some("its arguments do not form a wait")
        }
    }
    let Some(e) = &step.target_evidence else {
        return Some("it has no target-v1 annotation to verify the landmark's identity");
    };
    if e.verification != VerificationState::Verified {
        return Some("its target-v1 annotation is \"unverifiable\"");
    }
    if e.id.is_none() && e.label.is_none() {
        return Some("its landmark has neither id nor label");
    }
    if e.label.as_deref().is_some_and(has_dollar_brace) {
        return Some("its landmark label echoes a `${VAR}` value");
    }
    None
}

/// "Add a destination guard": repeat the last qualifying landmark wait the script already has.
fn guard_fix(cx: &Context, last_mutation: Option<usize>) -> Option<(String, Vec<Edit>)> {
    let text = cx.text();
    let before = last_mutation.map(|i| &cx.steps[..i]).unwrap_or(&[]);
    let landmark = before.iter().rev().find(|s| {
        s.spec
            .is_some_and(|sp| sp.targeting == Targeting::WaitTarget)
            && guard_problem(cx, s).is_none()
    })?;
    let annotation = landmark
        .annotation_line
        .map(|l| cx.parse.file.line_text(&cx.parse.file.lines[l]).to_string())?;
    let wait = cx
        .parse
        .file
        .line_text(&cx.parse.file.lines[landmark.line])
        .to_string();
    let end = text.len();
    let sep = if text.ends_with('\n') || text.is_empty() {
        ""
    } else {
        "\n"
    };
    Some((
        format!(
            "Add a destination guard: repeat the landmark wait of line {}",
            landmark.line + 1
        ),
        vec![Edit {
            span: Span::new(end, end),
            replacement: format!("{sep}{annotation}\n{wait}\n"),
        }],
    ))
}
