//! The daemon's argument readers, one per [`Reader`], over values that may hold `${VAR}`s (see
//! `sym`). Each mirrors agent-device 0.21.5's reader for its command, in its order: the replay
//! runner's conversion of `gesture` and `swipe`, then the handler's own checks. One file per
//! family of commands; the helpers they share (refusals, numbers, words, refs, selectors,
//! durations) are here.

use ad_grammar::text::js_trim;

use super::sym::{self, branch, fork, need, then, Tri};
use super::{refusal, wrong, Kind, Verdict};
use crate::lower::Step;
use crate::registry::Reader;

mod device;
mod find;
pub(crate) mod gestures;
mod reads;
mod targets;
mod text;

use device::{record, screenshot, settings};
use find::find;
use gestures::{gesture, scroll, swipe};
use reads::{get, is, wait};
use targets::{long_press, tap_flags, touch};
pub use text::fill_text_at;
use text::{fill, type_text};

pub(super) fn read(step: &Step, p: &[&str], reader: Reader) -> Verdict {
    match reader {
        Reader::Touch { buttons } => then(touch(step.command(), p), || tap_flags(step, buttons)),
        Reader::LongPress => long_press(p),
        Reader::Fill => fill(p),
        Reader::Type => type_text(p),
        Reader::Get => get(p),
        Reader::Is => is(p),
        Reader::Wait => wait(p),
        Reader::Find => find(p),
        Reader::Gesture => gesture(step, p),
        Reader::Swipe => swipe(step, p),
        Reader::Scroll => scroll(p),
        Reader::Settings => settings(p),
        Reader::Screenshot => screenshot(step),
        Reader::Record => record(p),
    }
}
fn refuse(kind: Kind, arg: Option<usize>, daemon: impl Into<String>) -> Verdict {
    Verdict::Refused(Box::new(refusal(kind, arg, daemon)))
}
fn missing(expected: &str, daemon: impl Into<String>) -> Verdict {
    refuse(
        Kind::Missing {
            expected: expected.into(),
        },
        None,
        daemon,
    )
}
/// The values joined with one space, as the daemon joins them; a single value is borrowed (the
/// usual case, and this runs per step).
fn join<'a>(p: &[&'a str]) -> std::borrow::Cow<'a, str> {
    match p {
        [] => std::borrow::Cow::Borrowed(""),
        [one] => std::borrow::Cow::Borrowed(one),
        _ => std::borrow::Cow::Owned(p.join(" ")),
    }
}
/// A ref whose `~sN` pin is malformed is refused (`@e2~x3`); whether it exists is session state.
fn ref_ok(v: &str, arg: usize) -> Verdict {
    let t = if sym::dynamic(v) {
        Tri::Unknown
    } else {
        let t = js_trim(v);
        match t.find('~') {
            None => Tri::Yes,
            Some(n) => {
                let pin = &t[n..];
                Tri::of(
                    n > 0
                        && pin.len() > 2
                        && pin.starts_with("~s")
                        && pin[2..].bytes().all(|b| b.is_ascii_digit()),
                )
            }
        }
    };
    need(t, || {
        wrong(
            "ref",
            "an @ref with a well-formed `~sN` pin",
            arg,
            format!("Invalid ref \"{v}\" — malformed generation suffix."),
        )
    })
}
/// The runtime parses a selector target before resolving it.
fn selector(text: &str, arg: usize) -> Verdict {
    need(sym::selector_valid(text), || {
        refusal(
            Kind::Selector { text: text.into() },
            Some(arg),
            super::selector_message(text),
        )
    })
}
fn duration(v: &str, arg: usize) -> Verdict {
    need(sym::integer(v, 0.0, 120_000.0), || {
        refusal(
            Kind::OutOfRange { flag: None },
            Some(arg),
            "durationMs must be an integer between 0 and 120000",
        )
    })
}
/// A number the replay runner reads with `Number()` (`None`: the positional is missing, which
/// reads as NaN).
fn number(p: &[&str], i: usize, name: &'static str) -> Verdict {
    match p.get(i) {
        None => missing(
            &format!("{name} (a number)"),
            format!("Expected {name} to be a finite number."),
        ),
        Some(v) => need(sym::finite(v), || {
            wrong(
                name,
                "a number",
                i,
                format!("Expected {name} to be a finite number."),
            )
        }),
    }
}
/// An optional whole number within a range.
fn whole(p: &[&str], i: usize, name: &'static str, min: f64, max: f64) -> Verdict {
    p.get(i).map_or(Verdict::Pass, |v| {
        need(sym::integer(v, min, max), || {
            refusal(
                Kind::OutOfRange { flag: None },
                Some(i),
                format!("Expected {name} to be an integer between {min} and {max}."),
            )
        })
    })
}
fn word(p: &[&str], i: usize, name: &'static str, words: &'static [&'static str]) -> Verdict {
    match p.get(i) {
        None => missing(
            &format!("{name} ({})", words.join(", ")),
            format!("Expected {name} to be one of: {}.", words.join(", ")),
        ),
        Some(v) => need(sym::word_in(v, words, false), || {
            refusal(
                Kind::WrongType {
                    name,
                    expected: words.join(", "),
                    words: Some(words),
                },
                Some(i),
                format!("Expected {name} to be one of: {}.", words.join(", ")),
            )
        }),
    }
}
fn all(checks: impl IntoIterator<Item = Verdict>) -> Verdict {
    checks
        .into_iter()
        .fold(Verdict::Pass, |acc, v| then(acc, || v))
}
