//! Dispatch-time refusals: what agent-device 0.21.5's daemon refuses when the replay dispatches a
//! step, after the earlier steps ran — argument counts and kinds, words, numbers, selectors,
//! refs, flag ranges and conflicts, forms only the command line accepts. The registry says which
//! daemon reader applies ([`Dispatch`]); this file is those readers.
//!
//! A step with `${VAR}`s is refused only when every value would be: each check answers yes, no
//! or "depends on the value" ([`Tri`]), and only a definite no refuses.

use ad_grammar::text::js_trim;
use ad_grammar::{selector, Diagnostic, Edit, Span};

use super::{did_you_mean, Context};
use crate::codes;
use crate::lower::{Arg, ReaderNote, Step};
use crate::registry::{ArgKind, Case, Dispatch, Extra, Form, Positional, Reader};
use sym::Tri;

mod readers;
mod sym;

/// What the daemon does with a step.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Verdict {
    Pass,
    /// Depends on `${VAR}` values.
    Unknown,
    Refused(Refusal),
}

/// Why the daemon refuses a step, and where.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Refusal {
    pub kind: Kind,
    /// The positional at fault (index into `step.positionals`), when there is one.
    pub arg: Option<usize>,
    /// agent-device's own words, or (for the declared forms, whose messages the registry does
    /// not carry) the command's usage.
    pub daemon: String,
    /// Whether `daemon` is agent-device's wording.
    pub own_words: bool,
    /// Further refusals of the same step the replay would meet once this one is fixed (both
    /// drag endpoints): reported too, so one run shows every problem.
    pub also: Vec<Refusal>,
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Kind {
    /// A positional of the wrong kind; `expected` describes the right one.
    WrongType {
        name: &'static str,
        expected: String,
        words: Option<&'static [&'static str]>,
    },
    /// A required positional is missing.
    Missing { expected: String },
    /// Positionals from `arg` on are more than the daemon accepts.
    Extra,
    /// A number out of its range (`flag` when it is a flag's value).
    OutOfRange { flag: Option<&'static str> },
    /// Flags the daemon does not take together (or not for this command); `help` says what to
    /// change.
    Conflict { help: &'static str },
    /// A form only the agent-device command line accepts.
    CliOnly { why: &'static str },
    /// An element target that does not parse as a selector.
    Selector { text: String },
    /// `wait` / `is` arguments that form no wait or predicate.
    Form { command: &'static str },
    /// A `--crop-on` value that is not a selector.
    CropOn,
    /// The command's input cannot be written in a script line.
    NoScriptInput,
}

fn refusal(kind: Kind, arg: Option<usize>, daemon: impl Into<String>) -> Refusal {
    Refusal {
        kind,
        arg,
        daemon: daemon.into(),
        own_words: true,
        also: Vec::new(),
    }
}

/// agent-device's words, quoted, or the usage the refusal carries instead.
fn answer(r: &Refusal) -> String {
    if r.own_words {
        format!("agent-device answers: {}", r.daemon)
    } else {
        r.daemon.clone()
    }
}

fn wrong(name: &'static str, expected: &str, arg: usize, daemon: impl Into<String>) -> Refusal {
    refusal(
        Kind::WrongType {
            name,
            expected: expected.into(),
            words: None,
        },
        Some(arg),
        daemon,
    )
}

/// The daemon's verdict on one step (commands that are not script commands are
/// `rules/commands/`'s concern and pass here).
pub(crate) fn verdict(step: &Step) -> Verdict {
    let Some(spec) = step.spec else {
        return Verdict::Pass;
    };
    if !spec.is_usable_in_scripts() || spec.effect == crate::registry::Effect::Skipped {
        return Verdict::Pass;
    }
    match spec.dispatch {
        Dispatch::Unrouted | Dispatch::Unread | Dispatch::Lenient => Verdict::Pass,
        Dispatch::NoScriptInput => Verdict::Refused(refusal(
            Kind::NoScriptInput,
            None,
            "batch requires a non-empty batchSteps array.",
        )),
        Dispatch::Forms {
            extra,
            words,
            cli_only,
        } => forms(step, spec.forms, extra, words, cli_only),
        Dispatch::Reader(reader) => readers::read(step, reader),
    }
}

fn selector_message(text: &str) -> String {
    let (_, errors) = selector::parse_chain(text);
    errors
        .first()
        .map(|e| e.message.clone())
        .unwrap_or_else(|| "invalid selector".into())
}

// ---- diagnostics -------------------------------------------------------------------------------

pub(super) fn check(cx: &Context, out: &mut Vec<Diagnostic>) {
    for (step, verdict) in cx.steps.iter().zip(&cx.dispatch) {
        if cx.is_rejected_line(step.line) {
            continue;
        }
        match verdict {
            Verdict::Refused(r) => {
                for r in std::iter::once(r).chain(&r.also) {
                    if let Some(d) = diagnostic(cx, step, r) {
                        out.push(d);
                    }
                }
            }
            Verdict::Pass => ignored_extras(cx, step, out),
            Verdict::Unknown => {}
        }
        if !matches!(verdict, Verdict::Refused(_)) {
            placeholder_point(cx, step, out);
        }
    }
}

/// AD126: `press "${X}" "${Y}"`. The reader reads two tokens as a point only when both are
/// numbers as written, so two placeholders become one selector (or a target and text) before any
/// value exists: with numbers for values the daemon refuses the step.
fn placeholder_point(cx: &Context, step: &Step, out: &mut Vec<Diagnostic>) {
    // Only the readers that decide "point or not" themselves (`longpress` and `hover` pass the
    // tokens on, and the daemon reads the values).
    use crate::registry::ReaderRule;
    if !step
        .spec
        .is_some_and(|s| matches!(s.reader, ReaderRule::ClickLike | ReaderRule::Fill))
    {
        return;
    }
    let action = match &cx.parse.file.lines[step.line].kind {
        ad_grammar::LineKind::Action(a) => a,
        _ => return,
    };
    let text = cx.text();
    let whole = |t: usize| {
        let v = action.tokens[t].value(text);
        v.starts_with("${") && v.ends_with('}') && v[2..v.len() - 1].find('}').is_none()
    };
    let tokens: Vec<usize> = step
        .positionals
        .iter()
        .flat_map(|a| a.tokens.iter().copied())
        .take(2)
        .collect();
    let [a, b] = tokens[..] else { return };
    if b != a + 1 || !whole(a) || !whole(b) {
        return;
    }
    let span = step.token_spans[a].cover(step.token_spans[b]);
    out.push(
        Diagnostic::new(
            codes::PLACEHOLDER_POINT,
            "two `${…}` tokens are never read as an `x y` point",
            span,
        )
        .with_label(
            "the reader decides before the values exist: only numbers written as numbers make a \
             point, so these become one selector (or a target and its text)",
        )
        .with_help(
            "write the point as numbers (`press 120 480`), or pass a whole selector in one \
             variable (`press \"${TARGET}\"`); with numbers for values the daemon refuses the step",
        ),
    );
}

/// The tokens (indices into the step's tokens) of CLI flags the reader kept as positionals, each
/// with the value token after it when the flag takes one.
fn unread_flag_tokens(cx: &Context, step: &Step) -> Vec<usize> {
    let text = cx.text();
    let mut out = Vec::new();
    for n in &step.notes {
        if let ReaderNote::UnknownFlag { token } = *n {
            out.push(token);
            let raw = &text[step.token_spans[token].range()];
            if super::parity::flag_takes_value(raw) {
                if let Some(next) = step.token_spans.get(token + 1) {
                    if !text[next.range()].starts_with('-') {
                        out.push(token + 1);
                    }
                }
            }
        }
    }
    out
}

/// The unread flag whose tokens make up the positionals `args` (all of them), if any.
fn flag_in(cx: &Context, step: &Step, args: &[Arg]) -> Option<usize> {
    let flags = unread_flag_tokens(cx, step);
    let tokens: Vec<usize> = args.iter().flat_map(|a| a.tokens.iter().copied()).collect();
    (!tokens.is_empty() && tokens.iter().all(|t| flags.contains(t)))
        .then(|| tokens.iter().copied().find(|t| is_flag_note(step, *t)))
        .flatten()
}

fn is_flag_note(step: &Step, token: usize) -> bool {
    step.notes
        .iter()
        .any(|n| matches!(n, ReaderNote::UnknownFlag { token: t } if *t == token))
}

/// A selector that is only invalid because unread flags were joined into it: the first flag.
fn flag_in_selector(cx: &Context, step: &Step, arg: &Arg) -> Option<usize> {
    let flags = unread_flag_tokens(cx, step);
    if !arg.tokens.iter().any(|t| flags.contains(t)) {
        return None;
    }
    let action = match &cx.parse.file.lines[step.line].kind {
        ad_grammar::LineKind::Action(a) => a,
        _ => return None,
    };
    let rest: Vec<&str> = arg
        .tokens
        .iter()
        .filter(|t| !flags.contains(t))
        .map(|t| action.tokens[*t].value(cx.text()))
        .collect();
    let rest = rest.join(" ");
    (!js_trim(&rest).is_empty() && selector::is_valid(&rest))
        .then(|| arg.tokens.iter().copied().find(|t| is_flag_note(step, *t)))
        .flatten()
}

/// AD123: the reader kept a CLI flag as an argument and the daemon refuses the slot it landed in.
fn flag_diagnostic(cx: &Context, step: &Step, token: usize, r: &Refusal) -> Diagnostic {
    let text = cx.text();
    let raw = &text[step.token_spans[token].range()];
    let takes_value = super::parity::flag_takes_value(raw);
    Diagnostic::new(
        codes::FLAG_IN_ARGUMENT,
        format!(
            "`{raw}` is not a flag in `.ad` scripts for `{}`: it lands in an argument the daemon checks",
            step.command
        ),
        step.token_spans[token],
    )
    .with_label(if r.own_words {
        format!(
            "the reader keeps it as an argument, and the daemon refuses the step: {}",
            r.daemon
        )
    } else {
        format!(
            "the reader keeps it as an argument, and the daemon refuses the step ({})",
            r.daemon
        )
    })
    .with_help(format!(
        "`{raw}` works on the agent-device command line only; remove it (a script has no \
         equivalent for every CLI flag)"
    ))
    .with_fix(
        format!("Remove `{raw}`"),
        super::parity::remove_token_edits(step, token, text, takes_value),
    )
}

fn arg_span(step: &Step, r: &Refusal) -> Span {
    r.arg
        .and_then(|i| step.positionals.get(i))
        .map(|a| step.arg_span(a))
        .unwrap_or_else(|| step.line_span())
}

/// The unread flag token a refusal is reported on (AD123), if it is one.
pub(super) fn refused_flag(cx: &Context, step: &Step, verdict: &Verdict) -> Option<usize> {
    let Verdict::Refused(r) = verdict else {
        return None;
    };
    if cx.is_rejected_line(step.line) {
        return None;
    }
    let arg = r.arg.and_then(|i| step.positionals.get(i));
    match &r.kind {
        Kind::Selector { .. } => flag_in_selector(cx, step, arg?),
        Kind::WrongType { .. } => flag_in(cx, step, std::slice::from_ref(arg?)),
        Kind::Extra => flag_in(
            cx,
            step,
            &step.positionals[r.arg.unwrap_or(0).min(step.positionals.len())..],
        ),
        _ => None,
    }
}

fn diagnostic(cx: &Context, step: &Step, r: &Refusal) -> Option<Diagnostic> {
    let arg = r.arg.and_then(|i| step.positionals.get(i));
    let label = "the daemon refuses this step when the replay reaches it";
    let d = match &r.kind {
        Kind::Selector { text } => {
            let arg = arg?;
            if let Some(t) = flag_in_selector(cx, step, arg) {
                return Some(flag_diagnostic(cx, step, t, r));
            }
            return super::selectors::selector_diagnostic(cx, step, arg, text);
        }
        Kind::WrongType {
            name,
            expected,
            words,
        } => {
            let arg = arg?;
            if let Some(t) = flag_in(cx, step, std::slice::from_ref(arg)) {
                return Some(flag_diagnostic(cx, step, t, r));
            }
            let span = step.arg_span(arg);
            let mut d = Diagnostic::new(
                codes::WRONG_TYPE,
                format!("`{}` is not a valid {name}", arg.value),
                span,
            )
            .with_label(format!("expected {expected}"))
            .with_help(answer(r));
            if let Some(s) = words.and_then(|w| did_you_mean(&arg.value, w.iter().copied())) {
                d = d.with_fix(
                    format!("Replace with `{s}`"),
                    vec![Edit {
                        span,
                        replacement: s.to_string(),
                    }],
                );
            }
            d
        }
        Kind::Missing { expected } => Diagnostic::new(
            codes::MISSING_ARGUMENT,
            format!("`{}` is missing an argument", step.command),
            arg_span(step, r),
        )
        .with_label(format!("expected {expected}"))
        .with_help(answer(r)),
        Kind::Extra => {
            let from = r.arg.unwrap_or(0);
            let extra = &step.positionals[from.min(step.positionals.len())..];
            if let Some(t) = flag_in(cx, step, extra) {
                return Some(flag_diagnostic(cx, step, t, r));
            }
            let span = extra
                .iter()
                .map(|a| step.arg_span(a))
                .reduce(Span::cover)
                .unwrap_or_else(|| step.line_span());
            Diagnostic::new(
                codes::EXTRA_ARGUMENT,
                format!("`{}` does not take this many arguments", step.command),
                span,
            )
            .with_label("the daemon refuses extra arguments for this command")
            .with_help(answer(r))
        }
        Kind::OutOfRange { .. } => {
            Diagnostic::new(codes::OUT_OF_RANGE, r.daemon.clone(), arg_span(step, r))
                .with_label(label)
        }
        Kind::Conflict { help } => {
            Diagnostic::new(codes::CONFLICTING_FLAGS, r.daemon.clone(), step.line_span())
                .with_label(label)
                .with_help(*help)
        }
        Kind::CliOnly { why } => {
            let span = args_span(step);
            let mut d = Diagnostic::new(
                codes::CLI_ONLY_FORM,
                format!(
                    "this form of `{}` exists only on the agent-device command line",
                    step.command
                ),
                span,
            )
            .with_label(label)
            .with_help(*why);
            if let Some(drop) = cli_only_drop(step) {
                d = d.with_fix(
                    format!("Remove `{}`", drop.0),
                    super::parity::remove_token_edits(step, drop.1, cx.text(), false),
                );
            }
            d
        }
        Kind::Form { command } => Diagnostic::new(
            codes::INVALID_SELECTOR,
            if *command == "wait" {
                "`wait` arguments do not form a wait".to_string()
            } else {
                format!("`is`: {}", r.daemon)
            },
            args_span(step),
        )
        .with_label(r.daemon.clone())
        .with_help(if *command == "wait" {
            "wait <ms> | text <text> [timeoutMs] | <selector> [timeoutMs] | absent <selector> \
             [timeoutMs] | @ref [timeoutMs] | stable [quietMs] [timeoutMs]"
        } else {
            "is <predicate> <selector> [value] | is <selector> <predicate>; predicates: visible \
             hidden exists absent editable selected focused text"
        }),
        Kind::CropOn => {
            let crop = step
                .flags
                .get("screenshotCropOn")
                .and_then(|v| v.as_str())
                .unwrap_or("");
            let (_, errors) = selector::parse_chain(crop);
            Diagnostic::new(
                codes::INVALID_SELECTOR,
                format!(
                    "invalid `--crop-on` selector: {}",
                    errors.first().map(|e| e.message.as_str()).unwrap_or("")
                ),
                step.line_span(),
            )
        }
        Kind::NoScriptInput => Diagnostic::new(
            codes::NO_SCRIPT_INPUT,
            format!("`{}` cannot carry its input in a script line", step.command),
            step.command_span(),
        )
        .with_label(format!("agent-device answers: {}", r.daemon))
        .with_help(
            "batch takes its steps from --steps on the command line; in a script, write the \
             steps as lines",
        ),
    };
    Some(d)
}

fn args_span(step: &Step) -> Span {
    step.positionals
        .iter()
        .map(|a| step.arg_span(a))
        .reduce(Span::cover)
        .unwrap_or(step.command_span())
}

/// The word a CLI-only form drops to become the script form (`tv-remote press down`), with its
/// token.
fn cli_only_drop(step: &Step) -> Option<(&'static str, usize)> {
    let Dispatch::Forms { cli_only, .. } = step.spec?.dispatch else {
        return None;
    };
    let first = step.positionals.first()?;
    cli_only.iter().find_map(|f| {
        f.drop
            .iter()
            .find(|w| **w == first.value)
            .map(|w| (*w, first.tokens[0]))
    })
}

/// AD114: positionals the daemon does not read (the step still runs).
fn ignored_extras(cx: &Context, step: &Step, out: &mut Vec<Diagnostic>) {
    let Some(spec) = step.spec else { return };
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
        .map(|a| step.arg_span(a))
        .reduce(Span::cover)
        .unwrap_or_else(|| step.line_span());
    let usage = if spec.signature.is_empty() {
        format!("usage: {} (no arguments)", step.command)
    } else {
        format!("usage: {} {}", step.command, spec.signature)
    };
    let signature = if spec.signature.is_empty() {
        "no arguments"
    } else {
        spec.signature
    };
    let message = if spec.dispatch_is_lenient() {
        let words: Vec<&str> = extra.iter().map(|a| a.value.as_str()).collect();
        format!("`{}` ignores `{}`", step.command, words.join(" "))
    } else {
        format!(
            "`{}` takes {signature}: unexpected extra argument",
            step.command
        )
    };
    out.push(
        Diagnostic::new(codes::DROPPED_ARGUMENT, message, span)
            .with_label(why)
            .with_help(usage),
    );
}

// ---- declared forms --------------------------------------------------------------------------

/// Whether a value fits a positional kind as the daemon reads it.
fn fits(kind: ArgKind, a: &Arg, case: Case) -> Tri {
    let v = a.value.as_str();
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
struct FormFit {
    fit: Tri,
    /// Leading positionals that fit (to pick the closest form).
    matched: usize,
    /// The first positional that does not fit.
    mismatch: Option<usize>,
    missing: bool,
    /// Index of the first positional past the form.
    extra_from: Option<usize>,
}

fn fit_form(form: &Form, p: &[Arg], case: Case) -> FormFit {
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
                match fits(pos.kind, a, case) {
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
            Some(a) => match fits(pos.kind, a, case) {
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
pub(super) fn matching_form<'f>(forms: &'f [Form], p: &[Arg]) -> Option<&'f Form> {
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
fn forms(
    step: &Step,
    forms: &[Form],
    extra: Extra,
    case: Case,
    cli_only: &'static [crate::registry::CliOnlyForm],
) -> Verdict {
    let p = &step.positionals;
    if forms.is_empty() {
        return Verdict::Pass;
    }
    let fits: Vec<FormFit> = forms.iter().map(|f| fit_form(f, p, case)).collect();
    let counted = |f: &FormFit| match (f.fit, f.extra_from, extra) {
        (t, Some(_), Extra::Refused) => t.and(Tri::No),
        (t, _, _) => t,
    };
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
            return Verdict::Refused(refusal(Kind::CliOnly { why: c.why }, Some(0), c.why));
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
        format!("usage: {} (no arguments)", step.command)
    } else {
        format!("usage: {} {}", step.command, spec_signature(step))
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
    Verdict::Refused(refusal)
}

fn spec_signature(step: &Step) -> &'static str {
    step.spec.map_or("", |s| s.signature)
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
pub(crate) fn describe(kind: ArgKind) -> String {
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
