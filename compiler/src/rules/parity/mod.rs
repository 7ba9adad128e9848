//! Tokens the `.ad` reader treats differently from how they look: CLI flags it does not read
//! (they become positional text or get glued into a selector), arguments it drops, labels it
//! consumes, whitespace it collapses, and `#` that is not a comment.

use ad_grammar::{Diagnostic, Edit, Span};

use super::Context;
use crate::codes;
use crate::lower::{ReaderNote, Step};
use crate::registry::{ReaderRule, Targeting};

pub(super) fn check(cx: &Context, out: &mut Vec<Diagnostic>) {
    let text = cx.text();
    for (step, verdict) in cx.steps.iter().zip(&cx.dispatch) {
        // A flag that makes the daemon refuse the step is reported as that refusal (AD123).
        let refused_flag = super::dispatch::refused_flag(cx, step, verdict);
        let tok = |i: usize| -> (&str, Span) {
            (&text[step.token_spans[i].range()], step.token_spans[i])
        };
        let targets_elements = step.spec.is_some_and(|s| s.targeting == Targeting::Element);
        for note in &step.notes {
            match *note {
                ReaderNote::UnknownFlag { token } => {
                    let (raw, span) = tok(token);
                    if raw == "--record-as" || refused_flag == Some(token) {
                        continue; // AD720 explains it, with the right fix
                    }
                    let (label, help) = if targets_elements {
                        (
                            "the .ad reader does not read this flag: it becomes part of the step's text".to_string(),
                            format!("`{raw}` works on the agent-device command line only; in a script it is joined into the selector or text argument; remove it"),
                        )
                    } else {
                        (
                            "the .ad reader does not read this flag: it becomes positional text".to_string(),
                            format!("`{raw}` works on the agent-device command line only; remove it or use the script form of the option"),
                        )
                    };
                    out.push(
                        Diagnostic::new(
                            codes::FLAG_AS_POSITIONAL,
                            format!(
                                "`{raw}` is not a flag in `.ad` scripts for `{}`",
                                step.command
                            ),
                            span,
                        )
                        .with_label(label)
                        .with_help(help)
                        .with_fix(
                            format!("Remove `{raw}`"),
                            remove_token_edits(step, token, text, flag_takes_value(raw)),
                        ),
                    );
                }
                ReaderNote::FlagNotConsumed { token } => {
                    let (raw, span) = tok(token);
                    let value = step
                        .token_spans
                        .get(token + 1)
                        .map(|s| &text[s.range()])
                        .unwrap_or("(nothing)");
                    out.push(
                        Diagnostic::new(codes::FLAG_VALUE_IGNORED, format!("`{raw}` needs a number ≥ 0; got `{value}`"), span)
                            .with_label("not read as a flag: the flag and its value become positional text")
                            .with_help(format!("write e.g. `{raw} 2`; with an invalid value the reader keeps both tokens as arguments")),
                    );
                }
                ReaderNote::FlagValueIgnored { token, value } => {
                    let (raw, _) = tok(token);
                    let (v, vspan) = tok(value);
                    let allowed = step
                        .spec
                        .and_then(|s| s.flag(raw))
                        .map(|f| match f.value {
                            crate::registry::FlagValue::Enum(vals) => vals.join(", "),
                            _ => "a valid value".to_string(),
                        })
                        .unwrap_or_else(|| "a valid value".into());
                    out.push(
                        Diagnostic::new(
                            codes::FLAG_VALUE_IGNORED,
                            format!("`{raw} {v}` is read and ignored"),
                            vspan,
                        )
                        .with_label("invalid value: the reader drops the flag")
                        .with_help(format!("accepted values: {allowed}")),
                    );
                }
                ReaderNote::Dropped { token, why } => {
                    let (raw, span) = tok(token);
                    let is_snapshot = step.spec.is_some_and(|s| s.reader == ReaderRule::Snapshot);
                    let code = if is_snapshot {
                        codes::IGNORED_TOKEN
                    } else {
                        codes::DROPPED_ARGUMENT
                    };
                    // Words after an @ref's label: one report, and the fix quotes the whole label
                    // (`click @e12 Add to cart` meant the label "Add to cart").
                    if let Some(label) = step
                        .ref_label
                        .as_ref()
                        .filter(|l| l.tokens.first().is_some_and(|t| *t < token))
                    {
                        let first_dropped = step.notes.iter().find_map(|n| match n {
                            ReaderNote::Dropped { token, .. } if *token > label.tokens[0] => {
                                Some(*token)
                            }
                            _ => None,
                        });
                        if first_dropped != Some(token) {
                            continue;
                        }
                        let last = step
                            .notes
                            .iter()
                            .filter_map(|n| match n {
                                ReaderNote::Dropped { token, .. } => Some(*token),
                                _ => None,
                            })
                            .max()
                            .unwrap_or(token);
                        let whole = Span::new(
                            step.token_spans[label.tokens[0]].start,
                            step.token_spans[last].end,
                        );
                        let words: Vec<&str> = (label.tokens[0]..=last)
                            .map(|t| &text[step.token_spans[t].range()])
                            .collect();
                        out.push(
                            Diagnostic::new(
                                code,
                                format!(
                                    "only `{}` is read as the ref's label; the rest is dropped",
                                    label.value
                                ),
                                Span::new(span.start, step.token_spans[last].end),
                            )
                            .with_label(why)
                            .with_help("quote a label that has several words")
                            .with_fix(
                                "Quote the label",
                                vec![Edit {
                                    span: whole,
                                    replacement: ad_grammar::json::quote(&words.join(" ")),
                                }],
                            ),
                        );
                        continue;
                    }
                    let mut d = Diagnostic::new(
                        code,
                        format!("`{raw}` is ignored by the .ad reader"),
                        span,
                    )
                    .with_label(why);
                    d = match (is_snapshot, raw) {
                        (true, "--interactive") => {
                            d.with_help("the .ad reader spells it `-i`").with_fix(
                                "Use `-i`",
                                vec![Edit {
                                    span,
                                    replacement: "-i".into(),
                                }],
                            )
                        }
                        _ => d.with_fix(
                            format!("Remove `{raw}`"),
                            remove_token_edits(step, token, text, false),
                        ),
                    };
                    out.push(d);
                }
                ReaderNote::Joined { arg } => whitespace_collapse(cx, step, arg, out),
                ReaderNote::PinStripped { .. } => {}
            }
        }
        // `fill @e3 hello world`: "hello" becomes the ref label.
        if step.spec.is_some_and(|s| s.reader == ReaderRule::Fill)
            && step
                .positionals
                .first()
                .is_some_and(|p| p.value.starts_with('@'))
        {
            // The recorder writes `fill @e3 "Label" "text"` on purpose: only bare words are a slip.
            let bare = |a: &crate::lower::Arg| {
                a.tokens
                    .iter()
                    .all(|t| !text[step.token_spans[*t].range()].starts_with('"'))
            };
            if let Some(label) = step
                .ref_label
                .as_ref()
                .filter(|l| bare(l) && step.positionals.get(1).is_some_and(bare))
            {
                let span = step.arg_span(label);
                let text_arg = step.positionals.get(1);
                let mut d = Diagnostic::new(codes::REF_LABEL_CONSUMED, format!("`{}` is read as the @ref's label, not as text", label.value), span)
                    .with_label("fill @ref <label> <text>: the first word after the ref is its label")
                    .with_help("quote the whole text to type all of it (the agent-device CLI would type every word)");
                if let Some(t) = text_arg {
                    let whole = Span::new(span.start, step.arg_span(t).end);
                    let joined = format!("{} {}", label.value, t.value);
                    d = d.with_fix(
                        "Quote the text",
                        vec![Edit {
                            span: whole,
                            replacement: ad_grammar::json::quote(&joined),
                        }],
                    );
                }
                out.push(d);
            }
        }
        // A `#` word inside an action line is an argument, not a comment.
        for (i, span) in step.token_spans.iter().enumerate().skip(1) {
            let raw = &text[span.range()];
            if raw == "#" || (raw.starts_with('#') && raw.len() > 1 && !raw.starts_with("#agent")) {
                let tail = Span::new(span.start, step.line_span().end);
                let mut d = Diagnostic::new(
                    codes::TRAILING_HASH,
                    "`#` does not start a comment inside an action line",
                    *span,
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
                        .annotation_line
                        .map(|l| cx.parse.file.lines[l].span.start)
                        .unwrap_or(step.token_spans[0].start);
                    d = d.with_fix(
                        "Move the comment to its own line",
                        move_comment_edits(step, i, tail, above, text),
                    );
                }
                out.push(d);
                break;
            }
        }
    }
}

pub(super) fn flag_takes_value(flag: &str) -> bool {
    !matches!(
        flag,
        "--settle"
            | "--verify"
            | "--no-record"
            | "--record"
            | "--in-app"
            | "--shutdown"
            | "--first"
            | "--last"
            | "--save-script"
    )
}

pub(super) fn remove_token_edits(
    step: &Step,
    token: usize,
    text: &str,
    with_value: bool,
) -> Vec<Edit> {
    let start_span = step.token_spans[token];
    let mut end = start_span.end;
    if with_value {
        if let Some(next) = step.token_spans.get(token + 1) {
            if !text[next.range()].starts_with('-') {
                end = next.end;
            }
        }
    }
    // Remove the whitespace before the token too.
    let prev_end = step.token_spans[token - 1].end;
    vec![Edit {
        span: Span::new(prev_end, end),
        replacement: String::new(),
    }]
}

/// Moves the `# …` tail of the step's line to a new comment line at `above`: the step's first
/// token, or the start of its annotation line (a comment between an annotation and its action
/// makes agent-device reject the file).
fn move_comment_edits(
    step: &Step,
    token: usize,
    tail: Span,
    above: usize,
    text: &str,
) -> Vec<Edit> {
    let prev_end = step.token_spans[token - 1].end;
    let line_start = above;
    let indent_start = text[..line_start].rfind('\n').map(|i| i + 1).unwrap_or(0);
    let indent = &text[indent_start..line_start];
    vec![
        Edit {
            span: Span::new(line_start, line_start),
            replacement: format!("{}\n{indent}", &text[tail.range()]),
        },
        Edit {
            span: Span::new(prev_end, tail.end),
            replacement: String::new(),
        },
    ]
}

/// Bare tokens joined with one space lose any other whitespace between them.
fn whitespace_collapse(cx: &Context, step: &Step, arg: usize, out: &mut Vec<Diagnostic>) {
    let text = cx.text();
    let Some(a) = step.positionals.get(arg) else {
        return;
    };
    let spans: Vec<Span> = a.tokens.iter().map(|t| step.token_spans[*t]).collect();
    let lossy = spans
        .windows(2)
        .any(|w| w[0].end < w[1].start && &text[w[0].end..w[1].start] != " ");
    let contiguous = a.tokens.windows(2).all(|w| w[1] == w[0] + 1);
    if !lossy || !contiguous {
        return;
    }
    let all_bare = spans.iter().all(|s| !text[s.range()].starts_with('"'));
    let whole = Span::new(spans[0].start, spans[spans.len() - 1].end);
    let mut d = Diagnostic::new(codes::WHITESPACE_COLLAPSE, "whitespace inside this argument is collapsed to single spaces", whole)
        .with_label(format!("agent-device reads `{}`", a.value))
        .with_help("bare tokens are re-joined with one space; quote the argument as a JSON string to keep the exact text");
    if all_bare {
        d = d.with_fix(
            "Quote the argument",
            vec![Edit {
                span: whole,
                replacement: ad_grammar::json::quote(&text[whole.range()]),
            }],
        );
    }
    out.push(d);
}
