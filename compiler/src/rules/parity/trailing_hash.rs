//! AD121: a `#` word inside an action line is an argument, not a comment; the fix moves it to
//! its own line unless it would become an `agent-device:` marker there.

use ad_grammar::{Diagnostic, Edit, Span};

use crate::codes;
use crate::lower::Step;
use crate::rules::Context;

pub(super) fn check(cx: &Context, step: &Step, text: &str, out: &mut Vec<Diagnostic>) {
    // A `#` word inside an action line is an argument, not a comment.
    for (i, span) in step.token_spans(cx.file()).iter().enumerate().skip(1) {
        let raw = &text[span.range()];
        if raw == "#" || (raw.starts_with('#') && raw.len() > 1 && !raw.starts_with("#agent")) {
            let tail = Span::new(span.start(), step.line_span(cx.file()).end());
            let mut d = Diagnostic::new(
                codes::TRAILING_HASH,
                "`#` does not start a comment inside an action line",
                span,
            )
            .with_label("this and everything after it are passed as arguments")
            .with_help("comments must be on their own line; move it above the step");
            // On its own line, `# agent-device:…` would become a marker the reader acts on
            // (an annotation binding to the next action): move such text only by hand.
            let becomes_marker = text[tail.range()]
                .trim_start_matches('#')
                .trim_start()
                .starts_with("agent-device:");
            if !becomes_marker {
                let above = step
                    .annotation_line()
                    .map(|l| cx.parse.file.lines[l].span.start())
                    .unwrap_or(step.token_spans(cx.file()).at(0).start());
                d = d.with_fix(
                    "Move the comment to its own line",
                    move_comment_edits(step, i, tail, above, cx),
                );
            }
            out.push(d);
            break;
        }
    }
}

/// Moves the `# …` tail of the step's line to a new comment line at `above`: the step's first
/// token, or the start of its annotation line (a comment between an annotation and its action
/// makes agent-device reject the file).
fn move_comment_edits(
    step: &Step,
    token: usize,
    tail: Span,
    above: usize,
    cx: &Context,
) -> Vec<Edit> {
    let text = cx.text();
    let prev_end = step.token_spans(cx.file()).at(token - 1).end();
    let line_start = above;
    let indent_start = text[..line_start].rfind('\n').map(|i| i + 1).unwrap_or(0);
    let indent = &text[indent_start..line_start];
    vec![
        Edit {
            span: Span::new(line_start, line_start),
            replacement: format!("{}\n{indent}", &text[tail.range()]),
        },
        Edit {
            span: Span::new(prev_end, tail.end()),
            replacement: String::new(),
        },
    ]
}
