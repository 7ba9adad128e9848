//! AD701 and AD702: a handoff script opens its session exactly once, first, and never closes it
//! (the agent that continues from the destination owns the session).

use ad_grammar::Diagnostic;

use super::Note;
use crate::codes;
use crate::lower::Step;
use crate::registry::Action;
use crate::rules::Context;

pub(super) fn check(cx: &Context, note: Note, out: &mut Vec<Diagnostic>) {
    // Exactly one open, and it is the first action.
    let opens: Vec<&Step> = cx
        .steps
        .iter()
        .filter(|s| s.action() == Some(Action::Open))
        .collect();
    let first = &cx.steps[0];
    if opens.is_empty() {
        out.push(note(
            Diagnostic::new(codes::HANDOFF_OPEN, "a handoff script must start with `open`", first.line_span(cx.file()))
                .with_label("the first action is not `open`")
                .with_help("record the journey from a fresh session: `open <app> --save-script`, then the steps"),
        ));
    } else {
        if first.action() != Some(Action::Open) {
            out.push(note(
                Diagnostic::new(
                    codes::HANDOFF_OPEN,
                    "the `open` of a handoff script must be its first action",
                    opens[0].line_span(cx.file()),
                )
                .with_secondary(
                    first.line_span(cx.file()),
                    "this step runs before the app is opened",
                )
                .with_help("move `open` to the top: the artifact must replay from a cold start"),
            ));
        }
        for extra in opens.iter().skip(1) {
            out.push(note(
                Diagnostic::new(codes::HANDOFF_OPEN, "a handoff script has exactly one `open`", extra.line_span(cx.file()))
                    .with_secondary(opens[0].line_span(cx.file()), "the script's `open`")
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
            Diagnostic::new(codes::HANDOFF_CLOSE, "a handoff script must not `close` the session", close.line_span(cx.file()))
                .with_label("the session must stay live at the destination")
                .with_help("remove `close`: the agent that continues from the destination owns closing the session"),
        ));
    }
}
