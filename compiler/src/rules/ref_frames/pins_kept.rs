//! AD714: a pinned `@ref~sN` the reader keeps: the pin names a generation of the recording session,
//! so it never matches a new one.

use ad_grammar::{Diagnostic, Edit};

use crate::codes;
use crate::lower::{strip_pin, Arg, Step};
use crate::rules::Context;

pub(super) fn check(cx: &Context, step: &Step, arg: &Arg, value: &str, out: &mut Vec<Diagnostic>) {
    let stripped = strip_pin(value);
    if stripped == value || !value.contains("~s") {
        return;
    }
    let span = step.arg_span(cx.file(), arg);
    out.push(
        Diagnostic::new(codes::PIN_KEPT, format!("the pin in `{value}` names a generation of the recording session"), span)
            .with_label(format!("`{}` keeps its pin: it never matches a new session", step.command()))
            .with_help("pins are session-scoped; drop the `~sN` suffix (the reader strips pins only for click, press, fill, get, wait, longpress and hover)")
            .with_fix(format!("Use `{stripped}`"), vec![Edit { span, replacement: stripped.to_string() }]),
    );
}
