//! AD114: positionals the daemon does not read (the step still runs).

use ad_grammar::{Diagnostic, Span};

use super::forms::{fit_form, FormFit};
use super::sym::Tri;
use super::unread_flags::flag_in;
use crate::codes;
use crate::lower::Step;
use crate::registry::{Case, Dispatch, Extra, Reader};
use crate::rules::Context;

/// AD114: positionals the daemon does not read (the step still runs).
pub(super) fn check(cx: &Context, step: &Step, out: &mut Vec<Diagnostic>) {
    let Some(spec) = step.spec() else { return };
    if !spec.is_usable_in_scripts() || step.positionals.is_empty() {
        return;
    }
    let p = &step.positionals;
    let (from, why) = match spec.dispatch {
        Dispatch::Unread if spec.reader != crate::registry::ReaderRule::Snapshot => {
            (0, "extra argument: the daemon does not read it")
        }
        Dispatch::Forms {
            extra: Extra::Ignored,
            ..
        }
        | Dispatch::Reader(Reader::Record | Reader::Screenshot) => {
            // `record` and `screenshot` read their positionals as their forms say, and ignore
            // the rest.
            let words = match spec.dispatch {
                Dispatch::Forms { words, .. } => words,
                _ => Case::Insensitive,
            };
            let fits: Vec<FormFit> = spec.forms.iter().map(|f| fit_form(f, p, words)).collect();
            match fits.iter().find(|f| f.fit != Tri::No) {
                Some(f) => match f.extra_from {
                    Some(i) => (i, "extra argument"),
                    None => return,
                },
                None => return,
            }
        }
        Dispatch::Lenient => {
            let fits: Vec<FormFit> = spec
                .forms
                .iter()
                .map(|f| fit_form(f, p, Case::Exact))
                .collect();
            match fits.iter().find(|f| f.fit != Tri::No) {
                Some(f) => match f.extra_from {
                    Some(i) => (i, "extra argument: the daemon does not read it"),
                    None => return,
                },
                None => (
                    fits.iter()
                        .max_by_key(|f| f.matched)
                        .and_then(|f| f.mismatch)
                        .unwrap_or(0),
                    "not one of its forms: the daemon ignores it and uses its default",
                ),
            }
        }
        Dispatch::Reader(Reader::Scroll) if p.len() > 2 => (
            2,
            "extra argument: the daemon reads only a direction and an amount",
        ),
        _ => return,
    };
    let extra = &p[from..];
    // A CLI flag the reader kept is explained once, by AD113.
    if flag_in(cx, step, extra).is_some() {
        return;
    }
    let span = extra
        .iter()
        .map(|a| step.arg_span(cx.file(), a))
        .reduce(Span::cover)
        .unwrap_or_else(|| step.line_span(cx.file()));
    let usage = if spec.signature.is_empty() {
        format!("usage: {} (no arguments)", step.command())
    } else {
        format!("usage: {} {}", step.command(), spec.signature)
    };
    let signature = if spec.signature.is_empty() {
        "no arguments"
    } else {
        spec.signature
    };
    let message = if spec.dispatch_is_lenient() {
        let words: Vec<&str> = extra.iter().map(|a| a.value.as_str()).collect();
        format!("`{}` ignores `{}`", step.command(), words.join(" "))
    } else {
        format!(
            "`{}` takes {signature}: unexpected extra argument",
            step.command()
        )
    };
    out.push(
        Diagnostic::new(codes::DROPPED_ARGUMENT, message, span)
            .with_label(why)
            .with_help(usage),
    );
}
