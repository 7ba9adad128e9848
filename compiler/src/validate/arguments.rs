//! Argument types and ranges from the registry: each step's positionals must fit one of its
//! command's forms; flag values must be in their declared ranges (the daemon enforces them when
//! the step is dispatched, after earlier steps ran).

use ad_grammar::text::{is_numeric, js_number};
use ad_grammar::{Diagnostic, Edit};
use serde_json::Value;

use super::{did_you_mean, Context};
use crate::codes;
use crate::lower::{Arg, Step};
use crate::registry::{ArgKind, FlagValue, Form, ReaderRule, Targeting};

pub(super) fn check(cx: &Context, out: &mut Vec<Diagnostic>) {
    for step in cx.steps {
        let Some(spec) = step.spec else { continue };
        // A flag the reader keeps as text is reported once, as AD113, not as a type error too.
        let kept_flag = step
            .notes
            .iter()
            .any(|n| matches!(n, crate::lower::ReaderNote::UnknownFlag { .. }));
        if cx.is_rejected_line(step.line) || kept_flag {
            continue;
        }
        flag_ranges(step, out);
        let free_form = matches!(
            spec.targeting,
            Targeting::WaitTarget | Targeting::Predicate | Targeting::Locator
        ) || spec.reader == ReaderRule::Snapshot
            || spec.forms.is_empty()
            || !spec.is_usable_in_scripts();
        if free_form || step.positionals.iter().any(Arg::has_dollar_brace) {
            continue;
        }
        let values = &step.positionals;
        if spec.forms.iter().any(|f| match_form(f, values).ok) {
            continue;
        }
        let results: Vec<FormMatch> = spec.forms.iter().map(|f| match_form(f, values)).collect();
        let best = results
            .iter()
            .zip(spec.forms)
            .max_by_key(|(r, _)| (r.matched, std::cmp::Reverse(r.too_many)))
            .unwrap();
        let (m, form) = best;
        // "usage: back (no arguments)" / "usage: scroll <up|down|…> [amount]".
        let usage = if spec.signature.is_empty() {
            format!("usage: {} (no arguments)", step.command)
        } else {
            format!("usage: {} {}", step.command, spec.signature)
        };
        let signature = if spec.signature.is_empty() {
            "no arguments".to_string()
        } else {
            spec.signature.to_string()
        };
        if let Some(i) = m.mismatch {
            let arg = &step.positionals[i];
            let kind = form.positionals[i.min(form.positionals.len() - 1)].kind;
            let name = form.positionals[i.min(form.positionals.len() - 1)].name;
            let mut d = Diagnostic::error(
                codes::WRONG_TYPE,
                format!("`{}` is not a valid {name}", arg.value),
                step.arg_span(arg),
            )
            .with_label(format!("expected {}", describe(kind)))
            .with_help(usage.clone());
            if let ArgKind::Enum(words) = kind {
                if let Some(s) = did_you_mean(&arg.value, words.iter().copied()) {
                    d = d.with_fix(
                        format!("Replace with `{s}`"),
                        vec![Edit {
                            span: step.arg_span(arg),
                            replacement: s.to_string(),
                        }],
                    );
                }
            }
            out.push(d);
        } else if m.too_many {
            let extra = &step.positionals[form.positionals.len().min(step.positionals.len() - 1)..];
            let span = extra
                .iter()
                .map(|a| step.arg_span(a))
                .reduce(|a, b| a.cover(b))
                .unwrap();
            out.push(
                Diagnostic::warning(
                    codes::DROPPED_ARGUMENT,
                    format!(
                        "`{}` takes {signature}: unexpected extra argument",
                        step.command
                    ),
                    span,
                )
                .with_label("extra argument")
                .with_help(usage.clone()),
            );
        } else {
            out.push(
                Diagnostic::error(
                    codes::MISSING_ARGUMENT,
                    format!("`{}` is missing an argument", step.command),
                    step.line_span(),
                )
                .with_label(format!("expected {} {signature}", step.command))
                .with_help(spec.summary),
            );
        }
    }
}

pub(super) struct FormMatch {
    pub(super) ok: bool,
    /// Leading positionals that fit.
    matched: usize,
    mismatch: Option<usize>,
    too_many: bool,
}

pub(super) fn match_form(form: &Form, values: &[crate::lower::Arg]) -> FormMatch {
    let mut matched = 0;
    let mut i = 0;
    for p in form.positionals {
        if p.variadic {
            let rest = &values[i.min(values.len())..];
            if rest.is_empty() && !p.optional {
                return FormMatch {
                    ok: false,
                    matched,
                    mismatch: None,
                    too_many: false,
                };
            }
            for (k, v) in rest.iter().enumerate() {
                if !fits(p.kind, &v.value) {
                    return FormMatch {
                        ok: false,
                        matched,
                        mismatch: Some(i + k),
                        too_many: false,
                    };
                }
                matched += 1;
            }
            return FormMatch {
                ok: true,
                matched,
                mismatch: None,
                too_many: false,
            };
        }
        match values.get(i) {
            None if p.optional => break,
            None => {
                return FormMatch {
                    ok: false,
                    matched,
                    mismatch: None,
                    too_many: false,
                }
            }
            Some(v) if fits(p.kind, &v.value) => {
                matched += 1;
                i += 1;
            }
            Some(_) => {
                return FormMatch {
                    ok: false,
                    matched,
                    mismatch: Some(i),
                    too_many: false,
                }
            }
        }
    }
    let too_many = values.len() > i;
    FormMatch {
        ok: !too_many,
        matched,
        mismatch: None,
        too_many,
    }
}

fn fits(kind: ArgKind, v: &str) -> bool {
    match kind {
        ArgKind::Coordinate | ArgKind::Number => is_numeric(v),
        ArgKind::DurationMs => is_numeric(v) && js_number(v) >= 0.0,
        ArgKind::Integer { min, max } => {
            let n = js_number(v);
            is_numeric(v) && n.fract() == 0.0 && n >= min as f64 && n <= max as f64
        }
        ArgKind::Enum(words) => words.contains(&v),
        ArgKind::Ref => v.starts_with('@'),
        ArgKind::Selector
        | ArgKind::Target
        | ArgKind::Text
        | ArgKind::App
        | ArgKind::Url
        | ArgKind::Path
        | ArgKind::ArtifactPath
        | ArgKind::Any => true,
    }
}

fn describe(kind: ArgKind) -> String {
    match kind {
        ArgKind::Coordinate => "a coordinate (number)".into(),
        ArgKind::Number => "a number".into(),
        ArgKind::DurationMs => "milliseconds (a number ≥ 0)".into(),
        ArgKind::Integer { min, max } => format!("a whole number from {min} to {max}"),
        ArgKind::Enum(words) => format!("one of {}", words.join(", ")),
        ArgKind::Ref => "an @ref".into(),
        _ => "a value".into(),
    }
}

fn flag_ranges(step: &Step, out: &mut Vec<Diagnostic>) {
    let Some(spec) = step.spec else { return };
    if step.flags.is_empty() && step.runtime.is_none() {
        return; // the common case: nothing to range-check
    }
    for flag in spec.flags {
        let Some(value) = step
            .flags
            .get(flag.key)
            .or_else(|| step.runtime.as_ref().and_then(|r| r.get(flag.key)))
        else {
            continue;
        };
        let (FlagValue::Integer { min, max }, Value::Number(n)) = (flag.value, value) else {
            continue;
        };
        let n = n.as_f64().unwrap_or(f64::NAN);
        if n < min as f64 || n > max as f64 {
            out.push(
                Diagnostic::error(
                    codes::OUT_OF_RANGE,
                    format!(
                        "`{}` must be from {min} to {max}; got {}",
                        flag.name,
                        ad_grammar::json::js_number_to_string(n)
                    ),
                    step.line_span(),
                )
                .with_label("the daemon rejects this value when the step runs")
                .with_help(flag.doc),
            );
        }
    }
}
