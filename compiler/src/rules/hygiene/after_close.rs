//! AD732: a step after an interior `close` with no new `open` runs against no session.

use ad_grammar::Diagnostic;

use crate::codes;
use crate::lower::Step;
use crate::profile::terminal_close;
use crate::registry::Action;
use crate::rules::Context;

/// The walk's state: the interior `close` that ended the session, if one did.
pub(super) struct AfterClose<'s> {
    /// The line of the `close` that ends the script (steps after it are skipped ones).
    terminal: Option<usize>,
    closed_at: Option<&'s Step<'s>>,
}

impl<'s> AfterClose<'s> {
    pub(super) fn new(cx: &Context<'s>) -> AfterClose<'s> {
        AfterClose {
            terminal: terminal_close(cx.steps).map(|s| s.line()),
            closed_at: None,
        }
    }

    pub(super) fn step(&mut self, cx: &Context, step: &'s Step<'s>, out: &mut Vec<Diagnostic>) {
        let closed_at = &mut self.closed_at;
        match step.action() {
            Some(Action::Close) if Some(step.line()) != self.terminal => *closed_at = Some(step),
            Some(Action::Open | Action::Replay | Action::Context) => *closed_at = None,
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
