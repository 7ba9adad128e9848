//! AD703 and AD704: a verified selector wait on a landmark after the last mutating step (the
//! #1349 identity-level guard), or why the waits there do not qualify; the fix repeats a
//! qualifying wait the script already has.

use ad_grammar::annotation::VerificationState;
use ad_grammar::placeholder::has_dollar_brace;
use ad_grammar::{Diagnostic, Edit, Span};

use super::Note;
use crate::codes;
use crate::lower::Step;
use crate::profile::mutates;
use crate::registry::Targeting;
use crate::rules::Context;
use crate::shape::WaitForm;

pub(super) fn check(cx: &Context, note: Note, out: &mut Vec<Diagnostic>) {
    // The destination guard after the last mutating step.
    let last_mutation = cx.steps.iter().rposition(mutates);
    let after = last_mutation
        .map(|i| &cx.steps[i + 1..])
        .unwrap_or(cx.steps);
    let mut qualifying = false;
    let mut near_misses = Vec::new();
    for step in after {
        if step
            .spec()
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
                Diagnostic::new(
                    codes::GUARD_NOT_QUALIFIED,
                    format!("this wait is not a destination guard: {problem}"),
                    step.line_span(cx.file()),
                )
                .with_help(GUARD_HELP),
            ));
        }
        let at = last_mutation
            .map(|i| cx.steps[i].line_span(cx.file()))
            .unwrap_or(cx.steps[0].line_span(cx.file()));
        let mut d = Diagnostic::new(
            codes::MISSING_DESTINATION_GUARD,
            "no destination guard after the last mutating step",
            at,
        )
        .with_label("after this step the script must prove it reached the destination")
        .with_help(GUARD_HELP);
        if let Some(fix) = guard_fix(cx, last_mutation) {
            d = d.with_fix(fix.0, fix.1);
        }
        out.push(note(d));
    }
}

/// The guard that qualifies, and why (ADR 0016's #1349 amendment, ADR 0017): its first line is
/// what a refused `ad session save-script` quotes.
const GUARD_HELP: &str = "after the last mutating step, record a selector wait on a labelled or id-bearing landmark of the destination screen (a heading, a titled window, a labelled button: `wait \"role=\\\"heading\\\" label=\\\"Home\\\"\"`), recorded `verified`: replay proves where the script ended by that id or label, which an unlabelled element (a display known only by its role) or a label echoing a `${VAR}` value cannot do (ADR 0016, ADR 0017)";

/// Why a `wait` does not qualify as a destination guard (None: it does).
fn guard_problem(cx: &Context, step: &Step) -> Option<&'static str> {
    match cx.wait_form(step).unwrap_or(WaitForm::Empty) {
        WaitForm::Selector { .. } => {}
        WaitForm::Sleep { .. } => return Some("a duration wait proves nothing about the screen"),
        WaitForm::Text { .. } => {
            return Some("`wait text` is not a portable selector (it matches any element showing the text, and a display's text is data)")
        }
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
        return Some("it has no target-v1 annotation to verify the landmark's identity (the recorder writes none for an element with neither id nor label, such as an unlabelled display, nor for a label echoing a `--record-as` value)");
    };
    if e.verification != VerificationState::Verified {
        return Some("its target-v1 annotation is \"unverifiable\"");
    }
    if e.id.is_none() && e.label.is_none() {
        return Some("its landmark has neither id nor label (an unlabelled element, such as a display, is known only by its role, which any element of that role matches)");
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
        s.spec()
            .is_some_and(|sp| sp.targeting == Targeting::WaitTarget)
            && guard_problem(cx, s).is_none()
    })?;
    let annotation = landmark
        .annotation_line()
        .map(|l| cx.parse.file.line_text(&cx.parse.file.lines[l]).to_string())?;
    let wait = cx
        .parse
        .file
        .line_text(&cx.parse.file.lines[landmark.line()])
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
            landmark.line() + 1
        ),
        vec![Edit {
            span: Span::new(end, end),
            replacement: format!("{sep}{annotation}\n{wait}\n"),
        }],
    ))
}
