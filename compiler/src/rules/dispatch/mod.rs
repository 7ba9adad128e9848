//! Dispatch-time refusals: what agent-device 0.21.5's daemon refuses when the replay dispatches a
//! step, after the earlier steps ran — argument counts and kinds, words, numbers, selectors,
//! refs, flag ranges and conflicts, forms only the command line accepts. The registry says which
//! daemon reader applies ([`Dispatch`]): `readers/` (one file per command family, over `sym.rs`'s
//! values) and `forms.rs` are those readers, giving each step a [`Verdict`]; this file runs them
//! and, in a fixed order, the rules that report: `refused_step.rs` and `unread_flags.rs` (a
//! refusal), `ignored_extras.rs`, `placeholder_point.rs` and `platform_setting.rs`.
//!
//! A step with `${VAR}`s is refused only when every value would be: each check answers yes, no
//! or "depends on the value" ([`Tri`](sym::Tri)), and only a definite no refuses.

use ad_grammar::{selector, Diagnostic};

use super::{At, Context};
use crate::lower::Step;
use crate::registry::Dispatch;

mod forms;
mod ignored_extras;
mod placeholder_point;
mod platform_setting;
pub(crate) mod readers;
mod refused_step;
mod sym;
mod unread_flags;

pub(super) use forms::matching_form;
pub(super) use unread_flags::refused_flag;

/// What the daemon does with a step.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Verdict {
    Pass,
    /// Depends on `${VAR}` values.
    Unknown,
    /// Boxed: nearly every step passes, and a verdict is handed to every family.
    Refused(Box<Refusal>),
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
    // On the stack for the usual few positionals: this runs once per step.
    let mut inline = [""; 8];
    let spilled: Vec<&str>;
    let values: &[&str] = if step.positionals.len() <= inline.len() {
        for (slot, a) in inline.iter_mut().zip(&step.positionals) {
            *slot = a.value.as_str();
        }
        &inline[..step.positionals.len()]
    } else {
        spilled = step.positionals.iter().map(|a| a.value.as_str()).collect();
        &spilled
    };
    verdict_on(step, values)
}

/// The verdict on `step` read with `values` as its positionals: as written for `ad check`, filled
/// in for `ad run` ([`refusal_when_filled`]). The step gives the command and its flags.
fn verdict_on(step: &Step, values: &[&str]) -> Verdict {
    let Some(spec) = step.spec() else {
        return Verdict::Pass;
    };
    if !spec.is_usable_in_scripts() || spec.effect == crate::registry::Effect::Skipped {
        return Verdict::Pass;
    }
    match spec.dispatch {
        Dispatch::Unrouted | Dispatch::Unread | Dispatch::Lenient => Verdict::Pass,
        Dispatch::NoScriptInput => Verdict::Refused(Box::new(refusal(
            Kind::NoScriptInput,
            None,
            "batch requires a non-empty batchSteps array.",
        ))),
        Dispatch::Forms {
            extra,
            words,
            cli_only,
        } => forms::forms(step, values, spec.forms, extra, words, cli_only),
        Dispatch::Reader(reader) => readers::read(step, values, reader),
    }
}

/// What agent-device's daemon answers when a replay dispatches a step whose `${VAR}`s are filled
/// in: the interpreter reads a step's arguments through this, the readers `ad check` runs, so
/// the two cannot disagree about what a step means or refuses.
#[derive(Debug, Clone, PartialEq)]
pub struct FilledRefusal {
    /// agent-device's own words where the reader has them, else what is wrong, in the words of
    /// `ad check`'s diagnostic.
    pub message: String,
    /// The command's usage (`usage: swipe <x1> <y1> <x2> <y2> …`).
    pub usage: String,
}

/// `None` when the daemon takes `step` with `filled` as its positionals (a value still holding
/// `${…}` reads as "depends", which passes); else its refusal.
pub fn refusal_when_filled(step: &Step, filled: &[String]) -> Option<FilledRefusal> {
    // On the stack for the usual few positionals: the interpreter asks this before every step.
    let mut inline = [""; 8];
    let spilled: Vec<&str>;
    let values: &[&str] = if filled.len() <= inline.len() {
        for (slot, v) in inline.iter_mut().zip(filled) {
            *slot = v.as_str();
        }
        &inline[..filled.len()]
    } else {
        spilled = filled.iter().map(String::as_str).collect();
        &spilled
    };
    let Verdict::Refused(r) = verdict_on(step, values) else {
        return None;
    };
    let arg = |i: Option<usize>| i.and_then(|i| values.get(i)).copied().unwrap_or("");
    let message = if r.own_words {
        r.daemon.clone()
    } else {
        match &r.kind {
            Kind::WrongType { name, expected, .. } => {
                format!(
                    "`{}` is not a valid {name}: expected {expected}",
                    arg(r.arg)
                )
            }
            Kind::Missing { expected } => {
                format!(
                    "`{}` is missing an argument: expected {expected}",
                    step.command()
                )
            }
            Kind::Extra => format!("`{}` does not take this many arguments", step.command()),
            Kind::CliOnly { why } => format!(
                "this form of `{}` exists only on the agent-device command line: {why}",
                step.command()
            ),
            _ => r.daemon.clone(),
        }
    };
    let usage = step.spec().map_or(String::new(), |s| {
        format!("usage: {} {}", s.name, s.signature)
            .trim_end()
            .to_string()
    });
    Some(FilledRefusal { message, usage })
}

fn selector_message(text: &str) -> String {
    let (_, errors) = selector::parse_chain(text);
    errors
        .first()
        .map(|e| e.message.clone())
        .unwrap_or_else(|| "invalid selector".into())
}

// ---- diagnostics -------------------------------------------------------------------------------

pub(super) fn check(cx: &Context, at: &At, verdict: &Verdict, out: &mut Vec<Diagnostic>) {
    let step = at.step;
    if cx.is_rejected_line(step.line()) {
        return;
    }
    match verdict {
        Verdict::Refused(r) => {
            for r in std::iter::once(&**r).chain(&r.also) {
                if let Some(d) = refused_step::check(cx, step, r) {
                    out.push(d);
                }
            }
        }
        Verdict::Pass => ignored_extras::check(cx, step, out),
        Verdict::Unknown => {}
    }
    if !matches!(verdict, Verdict::Refused(_)) {
        placeholder_point::check(cx, step, out);
        platform_setting::check(cx, step, out);
    }
}
