//! AD720: `--record-as` in a script line: only the agent-device command line has the option.

use ad_grammar::{Diagnostic, Edit, Span};

use crate::codes;
use crate::lower::Step;
use crate::registry::Action;
use crate::rules::Context;

pub(super) fn check(cx: &Context, step: &Step, out: &mut Vec<Diagnostic>) {
    let text = cx.text();
    let Some(i) = step
        .token_spans(cx.file())
        .iter()
        .position(|s| s.len() == "--record-as".len() && &text[s.range()] == "--record-as")
    else {
        return;
    };
    let flag = step.token_spans(cx.file()).at(i);
    let name = step
        .token_spans(cx.file())
        .get(i + 1)
        .map(|s| &text[s.range()])
        .filter(|n| ad_grammar::metadata::is_var_name(n));
    let mut d = Diagnostic::new(
        codes::RECORD_AS_IN_SCRIPT,
        "`--record-as` is CLI-only: in a script it becomes part of the text",
        flag,
    )
    .with_label("the reader keeps `--record-as NAME` as fill text")
    .with_help("in a script, write the placeholder itself: fill <target> \"${NAME}\"");
    if let (Some(name), true) = (name, step.action() == Some(Action::Fill) && i >= 3) {
        // Replace from the text through the flag's value with the placeholder.
        let text_start = step.token_spans(cx.file()).at(2).start();
        let end = step.token_spans(cx.file()).at(i + 1).end();
        let span = Span::new(text_start, end.max(step.line_span(cx.file()).end()));
        d = d.with_fix(
            format!("Use `\"${{{name}}}\"`"),
            vec![Edit {
                span,
                replacement: format!("\"${{{name}}}\""),
            }],
        );
    }
    out.push(d);
}
