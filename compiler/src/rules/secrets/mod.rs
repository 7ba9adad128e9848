//! Parameterized recorded inputs (agent-device ADR 0017, with the #1398 echo protection):
//! `--record-as` is CLI-only; secure-field fills should not commit the secret; placeholders that
//! a re-recording would expand; placeholders inside verified evidence.

use ad_grammar::annotation::{TargetEvidence, VerificationState};
use ad_grammar::placeholder::has_dollar_brace;
use ad_grammar::placeholder::{placeholders, whole_token_variable};
use ad_grammar::{Diagnostic, Edit, Span};

use super::Context;
use crate::codes;
use crate::lower::Step;
use crate::registry::{Action, ReaderRule, Targeting};

pub(super) fn check(cx: &Context, out: &mut Vec<Diagnostic>) {
    let text = cx.text();
    for step in cx.steps {
        let Some(spec) = step.spec else { continue };
        record_as(cx, step, out);
        if spec.reader == ReaderRule::Fill {
            if let Some(value_arg) = fill_text(step) {
                let value = value_arg.value.as_str();
                let whole = whole_token_variable(value).is_some();
                let secure = step.target_evidence.as_deref().is_some_and(is_secure_field);
                if secure && !whole && !value.is_empty() {
                    let name = variable_name(step.target_evidence.as_ref().unwrap());
                    let span = step.arg_span(value_arg);
                    out.push(
                        Diagnostic::new(codes::SECRET_IN_CLEAR, "a secure field is filled with a literal: the secret is committed in clear", span)
                            .with_label(format!("replace it with `\"${{{name}}}\"`"))
                            .with_help(format!("supply the value at run time with `-e {name}=…` or by exporting `AD_VAR_{name}`; record it with `fill … --record-as {name}` next time"))
                            .with_fix(format!("Replace the literal with `${{{name}}}`"), vec![Edit { span, replacement: format!("\"${{{name}}}\"") }]),
                    );
                }
                let only_placeholder = {
                    let mut all = placeholders(value);
                    matches!((all.next(), all.next()), (Some(p), None) if p.span == (0..value.len()))
                };
                if !whole && !only_placeholder && placeholders(value).next().is_some() {
                    out.push(expanded_info(
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
                        step,
                        &arg.tokens,
                        &format!("`{}` text", step.command),
                        text,
                    ));
                }
            }
        }
        evidence_placeholders(cx, step, out);
    }
}

fn expanded_info(step: &Step, tokens: &[usize], what: &str, _text: &str) -> Diagnostic {
    let span = tokens
        .iter()
        .map(|t| step.token_spans[*t])
        .reduce(Span::cover)
        .unwrap_or(step.line_span());
    Diagnostic::new(codes::EXPANDED_ON_RERECORD, format!("a re-recording or repair will write the expanded value of {what}"), span)
        .with_help("only a complete `\"${NAME}\"` fill text keeps its placeholder when agent-device records or repairs this script")
}

/// The text argument of a fill (after `x y`, `@ref [label]` or the selector).
fn fill_text(step: &Step) -> Option<&crate::lower::Arg> {
    match step.positionals.len() {
        0 | 1 => None,
        n => step.positionals.get(n - 1),
    }
}

fn find_types_text(step: &Step) -> bool {
    step.positionals
        .iter()
        .any(|p| matches!(p.value.as_str(), "fill" | "type"))
}

/// A secure text field by role (iOS `securetextfield`, web/desktop password roles), or a field
/// whose recorded id or label names a password (Android records plain `edittext`).
fn is_secure_field(e: &TargetEvidence) -> bool {
    // Lowercasing can only turn a non-ASCII character into ASCII `k` or `i`, which none of
    // these words contain: an ASCII case-insensitive search is the same test, with no copies.
    let named = |s: &Option<String>| {
        s.as_deref().is_some_and(|s| {
            ["password", "passcode", "passwd", "secret"]
                .iter()
                .any(|w| contains_ignore_ascii_case(s, w))
        })
    };
    contains_ignore_ascii_case(&e.role, "secure")
        || contains_ignore_ascii_case(&e.role, "password")
        || named(&e.id)
        || named(&e.label)
}

fn contains_ignore_ascii_case(haystack: &str, needle: &str) -> bool {
    haystack
        .as_bytes()
        .windows(needle.len())
        .any(|w| w.eq_ignore_ascii_case(needle.as_bytes()))
}

/// A variable name from the field's id or label: `login.password` → `PASSWORD`.
fn variable_name(e: &TargetEvidence) -> String {
    let source = e.label.as_deref().or(e.id.as_deref()).unwrap_or("password");
    let last = source.rsplit(['.', '/', ':']).next().unwrap_or(source);
    let mut name: String = last
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_uppercase()
            } else {
                '_'
            }
        })
        .collect();
    name = name.trim_matches('_').to_string();
    if name.is_empty() || name.starts_with(|c: char| c.is_ascii_digit()) || name.starts_with("AD_")
    {
        name = format!("SECRET_{name}").trim_end_matches('_').to_string();
    }
    name
}

fn record_as(cx: &Context, step: &Step, out: &mut Vec<Diagnostic>) {
    let text = cx.text();
    let Some(i) = step
        .token_spans
        .iter()
        .position(|s| s.len() == "--record-as".len() && &text[s.range()] == "--record-as")
    else {
        return;
    };
    let flag = step.token_spans[i];
    let name = step
        .token_spans
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
        let text_start = step.token_spans[2].start;
        let end = step.token_spans[i + 1].end;
        let span = Span::new(text_start, end.max(step.line_span().end));
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

/// Evidence labels that carry a placeholder: action steps must be `unverifiable`, waits carry none.
fn evidence_placeholders(cx: &Context, step: &Step, out: &mut Vec<Diagnostic>) {
    let Some(e) = &step.target_evidence else {
        return;
    };
    let labels = e
        .label
        .iter()
        .chain(e.ancestry.iter().filter_map(|a| a.label.as_ref()))
        .chain(e.scroll_region.iter().filter_map(|r| r.label.as_ref()));
    if !labels.into_iter().any(|l| has_dollar_brace(l)) {
        return;
    }
    let Some(line) = step.annotation_line else {
        return;
    };
    let span = cx.parse.file.lines[line].content;
    let is_wait = step
        .spec
        .is_some_and(|s| s.targeting == Targeting::WaitTarget);
    if is_wait {
        out.push(
            Diagnostic::new(codes::PLACEHOLDER_IN_EVIDENCE, "a wait's landmark evidence echoes a `${VAR}` value", span)
                .with_label("agent-device records no annotation for a landmark whose identity is a parameterized value")
                .with_help("remove this annotation, and guard the destination with a stable, non-value-bearing landmark"),
        );
    } else if e.verification == VerificationState::Verified {
        out.push(
            Diagnostic::new(codes::PLACEHOLDER_IN_EVIDENCE, "verified evidence with a `${VAR}` label can never verify", span)
                .with_label("replay compares labels with the live screen, which shows the real value")
                .with_help("evidence whose label echoes a parameterized value must be \"verification\":\"unverifiable\" (agent-device downgrades it when recording)"),
        );
    }
}
