//! AD732: a step after an interior `close` with no new `open` runs against no session.

use ad_grammar::Diagnostic;

use crate::codes;
use crate::lower::Step;
use crate::profile::terminal_close;
use crate::registry::Action;
use crate::rules::Context;

pub(super) fn check(cx: &Context, out: &mut Vec<Diagnostic>) {
    let terminal = terminal_close(cx.steps).map(|s| s.line());
    let mut closed_at: Option<&Step> = None;
    for step in cx.steps {
        match step.action() {
            Some(Action::Close) if Some(step.line()) != terminal => closed_at = Some(step),
            Some(Action::Open | Action::Replay | Action::Context) => closed_at = None,
            _ => {
                if let Some(close) = closed_at.take() {
                    out.push(
                        Diagnostic::new(
                            codes::STEP_AFTER_CLOSE,
                            format!("`{}` runs after `close` ended the session", step.command()),
                            step.line_span(cx.file()),
                        )
                        .with_secondary(close.line_span(cx.file()), "the session is closed here")
                        .with_help(
                            "add an `open` before this step, or move the `close` to the end",
                        ),
                    );
                }
            }
        }
    }
}
