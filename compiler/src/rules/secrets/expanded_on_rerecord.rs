//! AD722: a placeholder embedded in other text (a fill or `type` text) that a re-recording or
//! repair would write expanded.

use ad_grammar::placeholder::{placeholders, whole_token_variable};
use ad_grammar::{Diagnostic, Span};

use crate::codes;
use crate::lower::Step;
use crate::registry::{Action, CommandSpec, FindAction, ReaderRule, StepAction, Targeting};
use crate::rules::Context;

pub(super) fn check(
    cx: &Context,
    step: &Step,
    spec: &CommandSpec,
    text: &str,
    out: &mut Vec<Diagnostic>,
) {
    if spec.reader == ReaderRule::Fill {
        // Every placeholder starts with `${`: most fill texts have none, and need no parse.
        if let Some(value_arg) = super::fill_text(step).filter(|a| a.has_dollar_brace()) {
            let value = value_arg.value.as_str();
            let whole = whole_token_variable(value).is_some();
            let only_placeholder = {
                let mut all = placeholders(value);
                matches!((all.next(), all.next()), (Some(p), None) if p.span == (0..value.len()))
            };
            if !whole && !only_placeholder && placeholders(value).next().is_some() {
                out.push(expanded_info(
                    cx,
                    step,
                    &value_arg.tokens,
                    "a fill text that embeds a placeholder in other text",
                    text,
                ));
            }
        }
    }
    let embeds_in_type = spec.action == Action::Type
        || (spec.targeting == Targeting::Locator && find_types_text(step));
    if embeds_in_type {
        for arg in &step.positionals {
            if arg.has_dollar_brace() && placeholders(&arg.value).next().is_some() {
                out.push(expanded_info(
                    cx,
                    step,
                    &arg.tokens,
                    &format!("`{}` text", step.command()),
                    text,
                ));
            }
        }
    }
}

fn expanded_info(
    cx: &Context,
    step: &Step,
    tokens: &[usize],
    what: &str,
    _text: &str,
) -> Diagnostic {
    let span = tokens
        .iter()
        .map(|t| step.token_spans(cx.file()).at(*t))
        .reduce(Span::cover)
        .unwrap_or(step.line_span(cx.file()));
    Diagnostic::new(codes::EXPANDED_ON_RERECORD, format!("a re-recording or repair will write the expanded value of {what}"), span)
        .with_help("only a complete `\"${NAME}\"` fill text keeps its placeholder when agent-device records or repairs this script")
}

fn find_types_text(step: &Step) -> bool {
    matches!(
        step.step_action(),
        Some(StepAction::Find(FindAction::Fill | FindAction::Type))
    )
}
