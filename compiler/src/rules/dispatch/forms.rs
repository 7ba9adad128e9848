//! The declared forms ([`Dispatch::Forms`]) as the daemon applies them, and how a step's
//! positionals fit a form: the verdict for commands with no reader of their own.

use super::sym::{self, Tri};
use super::*;
use crate::lower::{Arg, Step};
use crate::registry::{ArgKind, Case, Extra, Form, Positional};

/// Whether a value fits a positional kind as the daemon reads it.
fn fits(kind: ArgKind, v: &str, case: Case) -> Tri {
    match kind {
        // `Number()` that is not NaN (`focus`).
        ArgKind::Coordinate => sym::not_nan(v),
        ArgKind::Number | ArgKind::DurationMs => sym::finite(v),
        ArgKind::Integer { min, max } => sym::integer(v, min as f64, max as f64),
        ArgKind::Enum(words) => sym::word_in(v, words, case == Case::Insensitive),
        ArgKind::Ref => sym::starts_with(v, '@'),
        ArgKind::Selector | ArgKind::Target => sym::selector_valid(v),
        ArgKind::Text
        | ArgKind::App
        | ArgKind::Url
        | ArgKind::Path
        | ArgKind::ArtifactPath
        | ArgKind::Any => Tri::Yes,
    }
}

/// How one form fits the positionals.
pub(super) struct FormFit {
    pub(super) fit: Tri,
    /// Leading positionals that fit (to pick the closest form).
    pub(super) matched: usize,
    /// The first positional that does not fit.
    pub(super) mismatch: Option<usize>,
    pub(super) missing: bool,
    /// Index of the first positional past the form.
    pub(super) extra_from: Option<usize>,
}

/// A positional's text: forms are fitted to a step's values as written (`ad check`) or filled in
/// (`ad run`), without copying either.
pub(super) trait Value {
    fn text(&self) -> &str;
}
impl Value for Arg<'_> {
    fn text(&self) -> &str {
        self.value.as_str()
    }
}
impl Value for &str {
    fn text(&self) -> &str {
        self
    }
}

pub(super) fn fit_form(form: &Form, p: &[impl Value], case: Case) -> FormFit {
    let mut fit = Tri::Yes;
    let mut matched = 0;
    let mut i = 0;
    for pos in form.positionals {
        if pos.variadic {
            let rest = &p[i.min(p.len())..];
            if rest.is_empty() && !pos.optional {
                return missing(matched);
            }
            for (k, a) in rest.iter().enumerate() {
                match fits(pos.kind, a.text(), case) {
                    Tri::No => return mismatch(matched, i + k),
                    t => fit = fit.and(t),
                }
                matched += 1;
            }
            return FormFit {
                fit,
                matched,
                mismatch: None,
                missing: false,
                extra_from: None,
            };
        }
        match p.get(i) {
            None if pos.optional => break,
            None => return missing(matched),
            Some(a) => match fits(pos.kind, a.text(), case) {
                Tri::No => return mismatch(matched, i),
                t => {
                    fit = fit.and(t);
                    matched += 1;
                    i += 1;
                }
            },
        }
    }
    FormFit {
        fit,
        matched,
        mismatch: None,
        missing: false,
        extra_from: (p.len() > i).then_some(i),
    }
}

/// The first form the positionals fit completely (a `${VAR}` may fit).
pub(in crate::rules) fn matching_form<'f>(forms: &'f [Form], p: &[Arg]) -> Option<&'f Form> {
    forms.iter().find(|f| {
        let fit = fit_form(f, p, Case::Exact);
        fit.fit != Tri::No && fit.extra_from.is_none()
    })
}

fn missing(matched: usize) -> FormFit {
    FormFit {
        fit: Tri::No,
        matched,
        mismatch: None,
        missing: true,
        extra_from: None,
    }
}

fn mismatch(matched: usize, at: usize) -> FormFit {
    FormFit {
        fit: Tri::No,
        matched,
        mismatch: Some(at),
        missing: false,
        extra_from: None,
    }
}

/// The declared forms as the daemon applies them.
pub(super) fn forms(
    step: &Step,
    p: &[&str],
    forms: &[Form],
    extra: Extra,
    case: Case,
    cli_only: &'static [crate::registry::CliOnlyForm],
) -> Verdict {
    if forms.is_empty() {
        return Verdict::Pass;
    }
    let counted = |f: &FormFit| match (f.fit, f.extra_from, extra) {
        (t, Some(_), Extra::Refused) => t.and(Tri::No),
        (t, _, _) => t,
    };
    // Almost every step fits a form outright: no list of fits for those (this runs per step
    // in `ad check` and again in `ad run`).
    if forms
        .iter()
        .any(|f| counted(&fit_form(f, p, case)) == Tri::Yes)
    {
        return Verdict::Pass;
    }
    let fits: Vec<FormFit> = forms.iter().map(|f| fit_form(f, p, case)).collect();
    let verdicts: Vec<Tri> = fits.iter().map(counted).collect();
    if verdicts.contains(&Tri::Yes) {
        return Verdict::Pass;
    }
    if verdicts.contains(&Tri::Unknown) {
        return Verdict::Unknown;
    }
    // Every form refuses. A form only the command line accepts explains it best.
    for c in cli_only {
        let f = fit_form(&c.form, p, case);
        if f.fit == Tri::Yes && (f.extra_from.is_none() || extra == Extra::Ignored) {
            return Verdict::Refused(Box::new(refusal(
                Kind::CliOnly { why: c.why },
                Some(0),
                c.why,
            )));
        }
    }
    let (best, form) = fits
        .iter()
        .zip(forms)
        .max_by_key(|(f, _)| (f.matched, f.mismatch.is_none()))
        .expect("at least one form");
    let signature = || {
        form.positionals
            .iter()
            .map(describe_positional)
            .collect::<Vec<_>>()
            .join(" ")
    };
    let usage = if spec_signature(step).is_empty() {
        format!("usage: {} (no arguments)", step.command())
    } else {
        format!("usage: {} {}", step.command(), spec_signature(step))
    };
    let mut refusal = if let Some(i) = best.mismatch {
        let pos = &form.positionals[i.min(form.positionals.len() - 1)];
        let words = match pos.kind {
            ArgKind::Enum(w) => Some(w),
            _ => None,
        };
        refusal(
            Kind::WrongType {
                name: pos.name,
                expected: describe(pos.kind),
                words,
            },
            Some(i),
            "",
        )
    } else if best.missing {
        refusal(
            Kind::Missing {
                expected: signature(),
            },
            None,
            "",
        )
    } else {
        refusal(Kind::Extra, best.extra_from, "")
    };
    refusal.daemon = usage;
    refusal.own_words = false;
    Verdict::Refused(Box::new(refusal))
}

fn spec_signature(step: &Step) -> &'static str {
    step.spec().map_or("", |s| s.signature)
}

fn describe_positional(p: &Positional) -> String {
    let name = match p.kind {
        ArgKind::Enum(words) if words.len() <= 8 => words.join("|"),
        _ => p.name.to_string(),
    };
    match (p.optional, p.variadic) {
        (true, _) => format!("[{name}]"),
        (false, true) => format!("<{name}…>"),
        _ => format!("<{name}>"),
    }
}

/// The kind a positional expects, in words.
fn describe(kind: ArgKind) -> String {
    match kind {
        ArgKind::Coordinate => "a coordinate (number)".into(),
        ArgKind::Number => "a number".into(),
        ArgKind::DurationMs => "milliseconds (a number)".into(),
        ArgKind::Integer { min, max } if max == i64::MAX => format!("a whole number ≥ {min}"),
        ArgKind::Integer { min, max } => format!("a whole number from {min} to {max}"),
        ArgKind::Enum(words) => format!("one of {}", words.join(", ")),
        ArgKind::Ref => "an @ref".into(),
        _ => "a value".into(),
    }
}
