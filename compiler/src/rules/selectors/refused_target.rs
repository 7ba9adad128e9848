//! AD201, AD202, AD203: element targets the daemon refuses (the dispatch rules decide which):
//! invalid selectors (pointing at the exact characters), single-quoted selectors no layer
//! unwraps, plain words that are neither ref, selector nor point. One file because one decision
//! picks the code for a refused target.

use ad_grammar::selector::SelectorErrorKind;
use ad_grammar::{Diagnostic, Edit};

use crate::codes;
use crate::lower::{Arg, Step};
use crate::rules::Context;
use crate::shape::Target;

/// The diagnostic for an element target the daemon refuses because it does not parse as a
/// selector (the dispatch rule decides that it does not, whatever `${VAR}` values it holds).
pub(in crate::rules) fn selector_diagnostic(
    cx: &Context,
    step: &Step,
    arg: &Arg,
    text: &str,
) -> Option<Diagnostic> {
    // A flag or `#` glued into the selector is explained by AD127/AD113/AD121 on that token; the
    // selector error stays too, because the step really fails on the device.
    let target = Target::classify(text);
    let (chain, errors) = target.selector_tree()?;
    let errors = if errors.is_empty() {
        // Valid up to its first `${`: the error is in a complete term before it.
        let cut = text.find("${").unwrap_or(text.len());
        let (_, e) = ad_grammar::selector::parse_chain(js_trim_end_term(&text[..cut]));
        e
    } else {
        errors
    };
    let first = errors.first()?;
    let arg_span = step.arg_span(cx.file(), arg);
    // 'id="x"': single quotes are literal in .ad, and no layer unwraps them.
    let t = text.trim();
    if t.len() >= 2
        && t.starts_with('\'')
        && t.ends_with('\'')
        && ad_grammar::selector::is_valid(&t[1..t.len() - 1])
    {
        let inner = &t[1..t.len() - 1];
        return Some(
            Diagnostic::new(
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
    }
    // A plain word: neither ref, selector nor point.
    let plain = chain.alternatives.len() == 1
        && chain.alternatives[0].terms.len() == 1
        && first.kind == SelectorErrorKind::InvalidTerm
        && !text.contains('=');
    if plain && errors.len() == 1 && !text.contains("${") {
        let suggestion = format!("label={}", ad_grammar::json::quote(text));
        return Some(
            Diagnostic::new(
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
    }
    // The first error is what the daemon reports; the rest are usually consequences.
    {
        let e = first;
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
        let mut d = Diagnostic::new(
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
            if let Some(s) = crate::rules::did_you_mean(key, keys) {
                if !key.starts_with('\'') && !key.starts_with('"') {
                    d = d.with_help(format!("did you mean `{s}`?"));
                }
            }
        }
        Some(d)
    }
}

/// The prefix of a selector up to its last complete term (what precedes a `${` that may still
/// complete the term it starts in).
fn js_trim_end_term(prefix: &str) -> &str {
    match prefix.rfind(ad_grammar::text::is_js_whitespace) {
        Some(i) => &prefix[..i],
        None => prefix,
    }
}
