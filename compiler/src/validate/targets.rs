//! Element targets: invalid selectors (pointing at the exact characters), single-quoted
//! selectors no layer unwraps, plain words that are neither ref, selector nor point, and
//! `wait`/`is` argument shapes the daemon rejects.

use ad_grammar::placeholder::has_dollar_brace;
use ad_grammar::selector::SelectorErrorKind;
use ad_grammar::{Diagnostic, Edit, Span};

use super::Context;
use crate::codes;
use crate::lower::{Arg, Step};
use crate::registry::Targeting;
use crate::shape::{element_targets, is_form, IsForm, Target, WaitForm};

pub(super) fn check(cx: &Context, out: &mut Vec<Diagnostic>) {
    for step in cx.steps {
        let Some(spec) = step.spec else { continue };
        match spec.targeting {
            Targeting::WaitTarget => {
                let Some(form) = cx.wait_form(step) else {
                    continue;
                };
                // The selector of a `wait` form is valid by construction (the reader only takes
                // a prefix that parses); what does not parse is a `WaitForm::Invalid`.
                if let WaitForm::Invalid { message, .. } = form {
                    out.push(
                        Diagnostic::error(codes::INVALID_SELECTOR, "`wait` arguments do not form a wait", args_span(step))
                            .with_label(message.clone())
                            .with_help("wait <ms> | text <text> [timeoutMs] | <selector> [timeoutMs] | absent <selector> [timeoutMs] | @ref [timeoutMs] | stable [quietMs] [timeoutMs]"),
                    );
                }
            }
            Targeting::Predicate => {
                if let IsForm::Invalid { message } = is_form(&step.positionals) {
                    if !step.positionals.iter().any(Arg::has_dollar_brace) {
                        out.push(
                            Diagnostic::error(codes::INVALID_SELECTOR, format!("`is`: {message}"), args_span(step))
                                .with_help("is <predicate> <selector> [value] | is <selector> <predicate>; predicates: visible hidden exists absent editable selected focused text"),
                        );
                    }
                }
            }
            _ => {}
        }
        if spec.targeting != Targeting::WaitTarget {
            for (arg, target) in element_targets(step) {
                check_target(cx, step, arg, &target, out);
            }
        }
        if let Some(crop) = step.flags.get("screenshotCropOn").and_then(|v| v.as_str()) {
            let target = Target::classify(crop);
            if let (false, Some((_, errors))) = (target.is_valid_selector(), target.selector_tree())
            {
                if let Some(e) = errors.first() {
                    out.push(Diagnostic::error(
                        codes::INVALID_SELECTOR,
                        format!("invalid `--crop-on` selector: {}", e.message),
                        step.line_span(),
                    ));
                }
            }
        }
    }
}

fn args_span(step: &Step) -> Span {
    step.positionals
        .iter()
        .map(|a| step.arg_span(a))
        .reduce(Span::cover)
        .unwrap_or(step.command_span())
}

fn check_target(cx: &Context, step: &Step, arg: &Arg, target: &Target, out: &mut Vec<Diagnostic>) {
    let Target::Selector { text } = target else {
        return;
    };
    if target.is_valid_selector() {
        return;
    }
    // A flag or `#` glued into the selector is explained by AD112/AD113/AD121 on that token; the
    // selector error stays too, because the step really fails on the device.
    let Some((chain, errors)) = target.selector_tree() else {
        return;
    };
    let Some(first) = errors.first() else { return };
    if has_dollar_brace(text) {
        return; // resolved at run time; checked once values are known
    }
    let arg_span = step.arg_span(arg);
    // 'id="x"': single quotes are literal in .ad, and no layer unwraps them.
    let t = text.trim();
    if t.len() >= 2
        && t.starts_with('\'')
        && t.ends_with('\'')
        && ad_grammar::selector::is_valid(&t[1..t.len() - 1])
    {
        let inner = &t[1..t.len() - 1];
        out.push(
            Diagnostic::error(
                codes::SINGLE_QUOTED_SELECTOR,
                "single quotes do not quote a selector in `.ad` scripts",
                arg_span,
            )
            .with_label(format!(
                "agent-device reads the apostrophes as part of the selector: {}",
                first.message
            ))
            .with_help("quote the selector as a JSON string (double quotes), or leave it bare")
            .with_fix(
                "Use a JSON-quoted selector",
                vec![Edit {
                    span: arg_span,
                    replacement: ad_grammar::json::quote(inner),
                }],
            ),
        );
        return;
    }
    // A plain word: neither ref, selector nor point.
    let plain = chain.alternatives.len() == 1
        && chain.alternatives[0].terms.len() == 1
        && first.kind == SelectorErrorKind::InvalidTerm
        && !text.contains('=');
    if plain && errors.len() == 1 {
        let suggestion = format!("label={}", ad_grammar::json::quote(text));
        out.push(
            Diagnostic::error(
                codes::NOT_A_TARGET,
                format!("target `{text}` is not a @ref, selector, or \"x y\" point"),
                arg_span,
            )
            .with_label("a bare word is not a selector")
            .with_help(format!(
                "to target by visible text write `{suggestion}` (or `text=…`, `id=…`)"
            ))
            .with_fix(
                format!("Use `{suggestion}`"),
                vec![Edit {
                    span: arg_span,
                    replacement: ad_grammar::json::quote(&suggestion),
                }],
            ),
        );
        return;
    }
    // The first error is what the daemon reports; the rest are usually consequences.
    if let Some(e) = errors.first() {
        let span = step.value_span(arg, e.span.range(), &cx.parse.file);
        let help = match e.kind {
            SelectorErrorKind::UnknownKey => format!(
                "selector keys: {}, {}",
                ad_grammar::selector::STRING_KEYS.join(", "),
                ad_grammar::selector::BOOLEAN_KEYS.join(", ")
            ),
            SelectorErrorKind::InvalidTerm => "every term is key=value (or a boolean key); quote values that contain spaces: role=\"push button\"".into(),
            SelectorErrorKind::UnclosedQuote => "close the quote inside the selector".into(),
            SelectorErrorKind::EmptyAlternative => "`||` needs a selector on both sides".into(),
            SelectorErrorKind::MissingValue => "give the key a value".into(),
            SelectorErrorKind::InvalidBoolean => "boolean keys take true or false".into(),
            SelectorErrorKind::Empty => "give the step a target".into(),
        };
        let mut d = Diagnostic::error(
            codes::INVALID_SELECTOR,
            format!("invalid selector: {}", e.message),
            span,
        )
        .with_label("the daemon rejects this target when the step runs")
        .with_help(help);
        if e.kind == SelectorErrorKind::UnknownKey {
            let key = &e.message["Unknown selector key: ".len().min(e.message.len())..];
            let keys = ad_grammar::selector::STRING_KEYS
                .iter()
                .chain(ad_grammar::selector::BOOLEAN_KEYS)
                .copied();
            if let Some(s) = super::did_you_mean(key, keys) {
                if !key.starts_with('\'') && !key.starts_with('"') {
                    d = d.with_help(format!("did you mean `{s}`?"));
                }
            }
        }
        out.push(d);
    }
}
