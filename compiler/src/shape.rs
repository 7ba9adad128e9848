//! What a lowered step means at run time: its element target (`@ref`, point or selector) and the
//! sub-grammars of `wait` and `is`, exactly as agent-device's daemon readers interpret the
//! positionals (spec §9–§11). Shared by the validator, the script rules and the interpreter.

use std::borrow::Cow;

use ad_grammar::selector::{self, SelectorChain, SelectorError};
use ad_grammar::text::{is_numeric, js_number, js_trim};

use crate::lower::{Arg, Step};
use crate::registry::{GestureKind, StepAction, Targeting};

/// An element target as the daemon's positional target reader classifies it.
#[derive(Debug, Clone, PartialEq)]
pub enum Target<'a> {
    Ref {
        value: Cow<'a, str>,
    },
    Point {
        x: f64,
        y: f64,
    },
    /// A selector expression; validity ([`Target::is_valid_selector`]) and the tree are
    /// computed on demand, since most callers only need the kind of target.
    Selector {
        text: Cow<'a, str>,
    },
}

impl<'a> Target<'a> {
    pub fn classify(value: &'a str) -> Target<'a> {
        if value.starts_with('@') {
            return Target::Ref {
                value: value.into(),
            };
        }
        Target::Selector { text: value.into() }
    }
    /// The same target, owning its text.
    pub fn into_owned(self) -> Target<'static> {
        match self {
            Target::Ref { value } => Target::Ref {
                value: Cow::Owned(value.into_owned()),
            },
            Target::Point { x, y } => Target::Point { x, y },
            Target::Selector { text } => Target::Selector {
                text: Cow::Owned(text.into_owned()),
            },
        }
    }
    pub fn is_valid_selector(&self) -> bool {
        matches!(self, Target::Selector { text } if selector::is_valid(text))
    }
    /// The selector tree and its errors (for a selector target).
    pub fn selector_tree(&self) -> Option<(SelectorChain, Vec<SelectorError>)> {
        match self {
            Target::Selector { text, .. } => Some(selector::parse_chain(text)),
            _ => None,
        }
    }
}

/// The element-target positional(s) of a step, with the argument they came from.
pub fn element_targets<'s>(step: &'s Step<'s>) -> Vec<(&'s Arg<'s>, Target<'s>)> {
    let Some(spec) = step.spec() else {
        return Vec::new();
    };
    let p = &step.positionals;
    match spec.targeting {
        Targeting::Element => {
            let Some(first) = p.first() else {
                return Vec::new();
            };
            if p.len() >= 2 && is_numeric(&first.value) && is_numeric(&p[1].value) {
                return vec![(
                    first,
                    Target::Point {
                        x: js_number(&first.value),
                        y: js_number(&p[1].value),
                    },
                )];
            }
            vec![(first, Target::classify(&first.value))]
        }
        Targeting::ElementAfterSubcommand => p
            .get(1)
            .map(|a| vec![(a, Target::classify(&a.value))])
            .unwrap_or_default(),
        Targeting::DragEndpoints => {
            if step.step_action() != Some(StepAction::Gesture(GestureKind::Drag)) {
                return Vec::new();
            }
            p.iter()
                .skip(1)
                .take(2)
                .map(|a| (a, Target::classify(&a.value)))
                .collect()
        }
        Targeting::WaitTarget => wait_targets(step, &wait_form(&step.positionals))
            .into_iter()
            .map(|(arg, target)| (arg, target.into_owned()))
            .collect(),
        _ => Vec::new(),
    }
}

/// The element target of a `wait` whose form is already known.
pub fn wait_targets<'s, 'f>(
    step: &'s Step<'s>,
    form: &'f WaitForm,
) -> Vec<(&'s Arg<'s>, Target<'f>)> {
    let p = &step.positionals;
    match (form, p.first()) {
        (WaitForm::Ref { reference, .. }, Some(a)) => vec![(
            a,
            Target::Ref {
                value: reference.into(),
            },
        )],
        (WaitForm::Selector { selector, .. }, Some(a)) => vec![(a, Target::classify(selector))],
        (WaitForm::Absent { selector, .. }, Some(_)) => p
            .get(1)
            .map(|a| vec![(a, Target::classify(selector))])
            .unwrap_or_default(),
        _ => Vec::new(),
    }
}

/// `j(e)`: a non-empty string whose `Number()` is finite.
fn finite(value: Option<&str>) -> Option<f64> {
    let v = value?;
    if v.is_empty() {
        return None;
    }
    // A finite `Number()` of a non-blank string starts with a digit, a sign or a point; most
    // wait words (`text`, selectors, labels) do not, and need no number parse.
    match js_trim(v).bytes().next() {
        None => return Some(0.0),
        Some(b) if !(b.is_ascii_digit() || matches!(b, b'+' | b'-' | b'.')) => return None,
        _ => {}
    }
    let n = js_number(v);
    n.is_finite().then_some(n)
}

#[derive(Debug, Clone, PartialEq)]
pub enum WaitForm {
    Sleep {
        ms: f64,
    },
    Text {
        text: String,
        timeout_ms: Option<f64>,
    },
    Stable {
        quiet_ms: Option<f64>,
        timeout_ms: Option<f64>,
    },
    Absent {
        selector: String,
        timeout_ms: Option<f64>,
    },
    Ref {
        reference: String,
        timeout_ms: Option<f64>,
    },
    Selector {
        selector: String,
        timeout_ms: Option<f64>,
    },
    Invalid {
        reason: &'static str,
        message: String,
    },
    Empty,
}

/// The only value a [`wait_form`]'s timeout can have: the last positional's number (for
/// `stable`, its third positional's), or None when no form of these positionals has one. Read
/// without splitting a selector, for rules that ask about the timeout alone and, nearly always,
/// can stop here.
pub fn wait_timeout_bound<S: AsRef<str>>(p: &[S]) -> Option<f64> {
    match p.first().map(AsRef::as_ref) {
        Some("stable") => finite(p.get(2).map(AsRef::as_ref)),
        Some(_) => finite(p.last().map(AsRef::as_ref)),
        None => None,
    }
}

/// agent-device's `wait` positional reader.
pub fn wait_form<S: AsRef<str>>(p: &[S]) -> WaitForm {
    let Some(first) = p.first().map(AsRef::as_ref) else {
        return WaitForm::Empty;
    };
    if let Some(ms) = finite(Some(first)) {
        return WaitForm::Sleep { ms };
    }
    let timeout = finite(p.last().map(AsRef::as_ref));
    let body = |skip: usize| -> &[S] {
        let end = if timeout.is_some() {
            p.len() - 1
        } else {
            p.len()
        };
        &p[skip.min(end)..end]
    };
    match first {
        "text" => WaitForm::Text {
            text: js_trim(&join(body(1))).to_string(),
            timeout_ms: timeout,
        },
        "stable" => {
            let rest = &p[1..];
            WaitForm::Stable {
                quiet_ms: if rest.is_empty() {
                    None
                } else {
                    finite(rest.first().map(AsRef::as_ref))
                },
                timeout_ms: if rest.len() > 1 {
                    finite(rest.get(1).map(AsRef::as_ref))
                } else {
                    None
                },
            }
        }
        "absent" => {
            let n = body(1);
            match split_selector_prefix(n, false) {
                Some((sel, rest))
                    if !n.is_empty() && rest == n.len() && selector::is_valid(&sel) =>
                {
                    WaitForm::Absent {
                        selector: sel,
                        timeout_ms: timeout,
                    }
                }
                _ => {
                    let joined = join(n);
                    WaitForm::Invalid {
                        reason: "absent-selector-required",
                        message: if joined.is_empty() {
                            "wait absent requires <selector> [timeoutMs].".into()
                        } else {
                            format!("wait absent requires one valid selector; received \"{joined}\". Use wait absent '<selector>' [timeoutMs].")
                        },
                    }
                }
            }
        }
        f if f.starts_with('@') => WaitForm::Ref {
            reference: f.to_string(),
            timeout_ms: timeout,
        },
        _ => {
            let n = body(0);
            let split = split_selector_prefix(n, false);
            let split = match split {
                Some((sel, rest)) if rest == n.len() => {
                    return WaitForm::Selector {
                        selector: sel,
                        timeout_ms: timeout,
                    }
                }
                other => other.map(|(sel, rest)| (sel, &n[rest..])),
            };
            for t in n {
                if let Some((key, value)) = unknown_key_term(t.as_ref()) {
                    return WaitForm::Invalid {
                        reason: "unknown-selector-key",
                        message: format!(
                            "Unknown selector key \"{key}\" in \"{}\". Use wait 'label=\"{value}\"' to wait for a selector, or wait text '{}' for the literal text.",
                            join(n),
                            join(n)
                        ),
                    };
                }
            }
            if let Some((sel, rest)) = &split {
                if !rest.is_empty() {
                    return WaitForm::Invalid {
                        reason: "selector-shaped-text",
                        message: format!(
                            "Selector {sel} is followed by unexpected extra arguments: {}",
                            join(rest)
                        ),
                    };
                }
            }
            if n.iter().any(|t| selector::looks_like_term(t.as_ref())) {
                return WaitForm::Invalid {
                    reason: "selector-shaped-text",
                    message: format!(
                        "\"{}\" looks like a selector but does not parse as one",
                        join(n)
                    ),
                };
            }
            WaitForm::Text {
                text: js_trim(&join(body(0))).to_string(),
                timeout_ms: timeout,
            }
        }
    }
}

/// `Te`: a `key=value` token whose key is not a selector key.
fn unknown_key_term(t: &str) -> Option<(String, String)> {
    let t = js_trim(t);
    let eq = t.find('=')?;
    let key = js_trim(&t[..eq]).to_lowercase();
    if key.is_empty() || selector::is_key(&key) {
        return None;
    }
    let v = js_trim(&t[eq + 1..]);
    if v.is_empty() {
        return None;
    }
    let value = selector::unquote(v);
    let value = js_trim(&value).to_string();
    (!value.is_empty()).then_some((key, value))
}

/// Tokens joined with one space, as the daemon joins them.
fn join<S: AsRef<str>>(tokens: &[S]) -> String {
    let mut out = String::with_capacity(tokens.iter().map(|t| t.as_ref().len() + 1).sum());
    for (i, t) in tokens.iter().enumerate() {
        if i > 0 {
            out.push(' ');
        }
        out.push_str(t.as_ref());
    }
    out
}

/// `b(tokens)`: the longest (or, preferring a trailing value, the longest leaving one) prefix of
/// selector-looking tokens that parses as a selector, and the index where the rest starts.
pub fn split_selector_prefix<S: AsRef<str>>(
    tokens: &[S],
    prefer_trailing_value: bool,
) -> Option<(String, usize)> {
    // The prefixes grow one token at a time, so one buffer holds them all; a candidate is
    // remembered as its token count and its trimmed byte range in the buffer.
    let mut joined = String::new();
    let mut longest = None;
    let mut longest_leaving_one = None;
    for (r, t) in tokens.iter().enumerate() {
        let t = t.as_ref();
        if !selector::looks_like_term(t) {
            break;
        }
        if r > 0 {
            joined.push(' ');
        }
        joined.push_str(t);
        let (start, end) = ad_grammar::text::js_trim_range(&joined);
        if start < end && selector::is_valid(&joined[start..end]) {
            longest = Some((r + 1, start..end));
            if r + 1 < tokens.len() {
                longest_leaving_one = longest.clone();
            }
        }
    }
    let (end, range) = if prefer_trailing_value {
        longest_leaving_one.or(longest)
    } else {
        longest
    }?;
    joined.truncate(range.end);
    joined.drain(..range.start);
    Some((joined, end))
}

/// `is` predicates.
pub const IS_PREDICATES: &[&str] = &[
    "visible", "hidden", "exists", "absent", "editable", "selected", "focused", "text",
];

/// What an `is` step asserts of its element.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Predicate {
    Visible,
    Hidden,
    Exists,
    Absent,
    Editable,
    Selected,
    Focused,
    Text,
}

impl Predicate {
    /// The predicate word ([`IS_PREDICATES`] lists them in this order).
    pub fn as_str(self) -> &'static str {
        match self {
            Predicate::Visible => "visible",
            Predicate::Hidden => "hidden",
            Predicate::Exists => "exists",
            Predicate::Absent => "absent",
            Predicate::Editable => "editable",
            Predicate::Selected => "selected",
            Predicate::Focused => "focused",
            Predicate::Text => "text",
        }
    }

    /// A predicate word, any case.
    fn parse(word: &str) -> Option<Predicate> {
        const ALL: [Predicate; 8] = [
            Predicate::Visible,
            Predicate::Hidden,
            Predicate::Exists,
            Predicate::Absent,
            Predicate::Editable,
            Predicate::Selected,
            Predicate::Focused,
            Predicate::Text,
        ];
        let word = word.to_lowercase();
        ALL.into_iter().find(|p| p.as_str() == word)
    }
}

impl std::fmt::Display for Predicate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

#[derive(Debug, Clone, PartialEq)]
pub enum IsForm {
    Check {
        predicate: Predicate,
        selector: String,
        expected: String,
    },
    Invalid {
        message: String,
    },
}

/// An `is` predicate word, compared as the daemon does (lowercased).
fn is_predicate(word: &str) -> bool {
    if word.is_ascii() {
        IS_PREDICATES.iter().any(|p| p.eq_ignore_ascii_case(word))
    } else {
        IS_PREDICATES.contains(&word.to_lowercase().as_str())
    }
}

/// agent-device's `is` reader: `<predicate> <selector…> [value]` or `<selector…> <predicate>`.
pub fn is_form<S: AsRef<str>>(p: &[S]) -> IsForm {
    let mut tokens: Vec<&str> = p.iter().map(AsRef::as_ref).collect();
    let first_is_predicate = tokens.first().is_some_and(|t| is_predicate(t));
    if !first_is_predicate {
        for i in 1..tokens.len() {
            if is_predicate(tokens[i]) && selector::is_valid(&join(&tokens[..i])) {
                // `<selector…> <predicate> [rest]` reads as `<predicate> <selector…> [rest]`.
                tokens[..=i].rotate_right(1);
                break;
            }
        }
    }
    let Some(predicate) = Predicate::parse(tokens.first().copied().unwrap_or_default()) else {
        return IsForm::Invalid {
            message: format!("is requires predicate: {}", IS_PREDICATES.join("|")),
        };
    };
    let text = predicate == Predicate::Text;
    let Some((sel, rest)) = split_selector_prefix(&tokens[1..], text) else {
        return IsForm::Invalid {
            message: "is requires a selector expression".into(),
        };
    };
    let rest = &tokens[1 + rest..];
    let expected = js_trim(&join(rest)).to_string();
    if text && expected.is_empty() {
        return IsForm::Invalid {
            message: "is text requires expected text value".into(),
        };
    }
    if !text && !rest.is_empty() {
        return IsForm::Invalid {
            message: format!("is {predicate} does not accept trailing values"),
        };
    }
    IsForm::Check {
        predicate,
        selector: sel,
        expected,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(s: &[&str]) -> Vec<String> {
        s.iter().map(|x| x.to_string()).collect()
    }

    /// The timeout of every form is the bound, over waits built from words that reach each form.
    #[test]
    fn a_wait_timeout_is_its_bound() {
        let words = [
            "text",
            "stable",
            "absent",
            "@e3",
            "id=a",
            "label=\"x y\"",
            "hidden",
            "foo=bar",
            "Done",
            "5000",
            "100",
            "0",
            " ",
            "1e3",
            "Infinity",
            "-5",
            "||",
        ];
        // Every sequence of one to four of the words.
        let mut waits: Vec<Vec<&str>> = vec![vec![]];
        for _ in 0..4 {
            let longer: Vec<Vec<&str>> = waits
                .iter()
                .filter(|w| w.len() == waits.last().map_or(0, Vec::len))
                .flat_map(|w| words.iter().map(move |x| [&w[..], &[*x]].concat()))
                .collect();
            waits.extend(longer);
        }
        let mut checked = 0;
        for p in &waits {
            let timeout = match wait_form(p) {
                WaitForm::Text { timeout_ms, .. }
                | WaitForm::Absent { timeout_ms, .. }
                | WaitForm::Ref { timeout_ms, .. }
                | WaitForm::Selector { timeout_ms, .. }
                | WaitForm::Stable { timeout_ms, .. } => timeout_ms,
                _ => None,
            };
            if let Some(t) = timeout {
                assert_eq!(wait_timeout_bound(p), Some(t), "{p:?}");
                checked += 1;
            }
        }
        assert!(checked > 1000, "{checked} waits with a timeout");
    }

    #[test]
    fn wait_forms() {
        assert_eq!(wait_form(&v(&["500"])), WaitForm::Sleep { ms: 500.0 });
        // JavaScript's Number(): blank is 0, Infinity is not finite, hex and exponents count.
        assert_eq!(wait_form(&v(&[" "])), WaitForm::Sleep { ms: 0.0 });
        assert_eq!(wait_form(&v(&["0x10"])), WaitForm::Sleep { ms: 16.0 });
        assert_eq!(wait_form(&v(&["1e3"])), WaitForm::Sleep { ms: 1000.0 });
        assert!(!matches!(
            wait_form(&v(&["Infinity"])),
            WaitForm::Sleep { .. }
        ));
        assert!(matches!(
            wait_form(&v(&["text", "Done", "Infinity"])),
            WaitForm::Text {
                timeout_ms: None,
                ..
            }
        ));
        assert!(matches!(
            wait_form(&v(&["Checkout form", "5000"])),
            WaitForm::Text {
                timeout_ms: Some(_),
                ..
            }
        ));
        assert!(matches!(
            wait_form(&v(&["id=\"a\"", "3000"])),
            WaitForm::Selector { .. }
        ));
        assert!(matches!(
            wait_form(&v(&["hidden"])),
            WaitForm::Selector { .. }
        ));
        assert!(matches!(
            wait_form(&v(&["absent", "id=x"])),
            WaitForm::Absent { .. }
        ));
        assert!(matches!(
            wait_form(&v(&["@e3", "100"])),
            WaitForm::Ref { .. }
        ));
        assert!(matches!(
            wait_form(&v(&["foo=bar"])),
            WaitForm::Invalid { .. }
        ));
        assert!(matches!(
            wait_form(&v(&["stable"])),
            WaitForm::Stable {
                quiet_ms: None,
                timeout_ms: None
            }
        ));
    }

    #[test]
    fn predicates_are_the_listed_words() {
        let words: Vec<&str> = IS_PREDICATES
            .iter()
            .map(|w| Predicate::parse(w).expect("a predicate").as_str())
            .collect();
        assert_eq!(words, IS_PREDICATES);
        assert_eq!(Predicate::parse("VISIBLE"), Some(Predicate::Visible));
        assert_eq!(Predicate::parse("shown"), None);
    }

    #[test]
    fn is_forms() {
        assert!(matches!(
            is_form(&v(&["visible", "id=\"a\""])),
            IsForm::Check { .. }
        ));
        assert!(matches!(
            is_form(&v(&["id=a", "visible"])),
            IsForm::Check { .. }
        ));
        assert!(matches!(
            is_form(&v(&["text", "id=a", "Hello", "there"])),
            IsForm::Check { .. }
        ));
        assert!(matches!(
            is_form(&v(&["visible", "id=a", "extra"])),
            IsForm::Invalid { .. }
        ));
    }
}
