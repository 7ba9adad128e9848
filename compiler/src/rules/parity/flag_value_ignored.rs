//! AD127: a flag whose value the reader will not take: a counted flag with no number after it
//! (both become positional text), or an enum flag with a value it reads and drops.

use ad_grammar::Diagnostic;

use super::super::Context;
use super::tok;
use crate::codes;
use crate::lower::Step;

/// `--depth` and friends with no number ≥ 0 after them.
pub(super) fn not_consumed(step: &Step, token: usize, cx: &Context, out: &mut Vec<Diagnostic>) {
    let text = cx.text();
    let tok = |i: usize| tok(cx, step, i);
    let (raw, span) = tok(token);
    let value = step
        .token_spans(cx.file())
        .get(token + 1)
        .map(|s| &text[s.range()])
        .unwrap_or("(nothing)");
    out.push(
        Diagnostic::new(
            codes::FLAG_VALUE_IGNORED,
            format!("`{raw}` needs a number ≥ 0; got `{value}`"),
            span,
        )
        .with_label("not read as a flag: the flag and its value become positional text")
        .with_help(format!(
            "write e.g. `{raw} 2`; with an invalid value the reader keeps both tokens as arguments"
        )),
    );
}

/// An enum flag with a value outside its words.
pub(super) fn ignored(
    step: &Step,
    token: usize,
    value: usize,
    cx: &Context,
    out: &mut Vec<Diagnostic>,
) {
    let tok = |i: usize| tok(cx, step, i);
    let (raw, _) = tok(token);
    let (v, vspan) = tok(value);
    let allowed = step
        .spec()
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
