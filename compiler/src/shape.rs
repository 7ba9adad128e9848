//! What a lowered step means at run time: its element target (`@ref`, point or selector) and the
//! sub-grammars of `wait` and `is`, exactly as agent-device's daemon readers interpret the
//! positionals (spec §9–§11). Shared by the validator, the script rules and the interpreter.

use ad_grammar::selector::{self, SelectorChain, SelectorError};
use ad_grammar::text::{is_numeric, js_number, js_trim};

use crate::lower::{Arg, Step};
use crate::registry::Targeting;

/// An element target as the daemon's positional target reader classifies it.
#[derive(Debug, Clone, PartialEq)]
pub enum Target {
    Ref {
        value: String,
    },
    Point {
        x: f64,
        y: f64,
    },
    /// A selector expression; `valid` comes from the fast check, the tree is built on demand.
    Selector {
        text: String,
        valid: bool,
    },
}

impl Target {
    pub fn classify(value: &str) -> Target {
        if value.starts_with('@') {
            return Target::Ref {
                value: value.to_string(),
            };
        }
        Target::Selector {
            text: value.to_string(),
            valid: selector::is_valid(value),
        }
    }
    pub fn is_valid_selector(&self) -> bool {
        matches!(self, Target::Selector { valid: true, .. })
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
pub fn element_targets(step: &Step) -> Vec<(&Arg, Target)> {
    let Some(spec) = step.spec else {
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
            if p.first().map(|a| a.value.as_str()) != Some("drag") {
                return Vec::new();
            }
            p.iter()
                .skip(1)
                .take(2)
                .map(|a| (a, Target::classify(&a.value)))
                .collect()
        }
        Targeting::WaitTarget => wait_targets(step, &wait_form(&step.positionals)),
        _ => Vec::new(),
    }
}

/// The element target of a `wait` whose form is already known.
pub fn wait_targets<'s>(step: &'s Step, form: &WaitForm) -> Vec<(&'s Arg, Target)> {
    let p = &step.positionals;
    match (form, p.first()) {
        (WaitForm::Ref { reference, .. }, Some(a)) => vec![(
            a,
            Target::Ref {
                value: reference.clone(),
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
fn finite(value: Option<&&str>) -> Option<f64> {
    let v = *value?;
    if v.is_empty() {
        return None;
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

/// agent-device's `wait` positional reader.
pub fn wait_form<S: AsRef<str>>(p: &[S]) -> WaitForm {
    let values: Vec<&str> = p.iter().map(AsRef::as_ref).collect();
    wait_form_of(&values)
}

fn wait_form_of(p: &[&str]) -> WaitForm {
    let Some(first) = p.first() else {
        return WaitForm::Empty;
    };
    if let Some(ms) = finite(Some(first)) {
        return WaitForm::Sleep { ms };
    }
    let timeout = finite(p.last());
    let body = |skip: usize| -> Vec<&str> {
        let end = if timeout.is_some() {
            p.len() - 1
        } else {
            p.len()
        };
        p[skip.min(end)..end].to_vec()
    };
    match *first {
        "text" => WaitForm::Text {
            text: js_trim(&body(1).join(" ")).to_string(),
            timeout_ms: timeout,
        },
        "stable" => {
            let rest = &p[1..];
            WaitForm::Stable {
                quiet_ms: if rest.is_empty() {
                    None
                } else {
                    finite(rest.first())
                },
                timeout_ms: if rest.len() > 1 {
                    finite(rest.get(1))
                } else {
                    None
                },
            }
        }
        "absent" => {
            let n = body(1);
            match split_selector_prefix(&n, false) {
                Some((sel, rest))
                    if !n.is_empty() && rest.is_empty() && selector::is_valid(&sel) =>
                {
                    WaitForm::Absent {
                        selector: sel,
                        timeout_ms: timeout,
                    }
                }
                _ => {
                    let joined = n.join(" ");
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
            let split = split_selector_prefix(&n, false);
            if let Some((sel, rest)) = &split {
                if rest.is_empty() {
                    return WaitForm::Selector {
                        selector: sel.clone(),
                        timeout_ms: timeout,
                    };
                }
            }
            for t in &n {
                if let Some((key, value)) = unknown_key_term(t) {
                    return WaitForm::Invalid {
                        reason: "unknown-selector-key",
                        message: format!(
                            "Unknown selector key \"{key}\" in \"{}\". Use wait 'label=\"{value}\"' to wait for a selector, or wait text '{}' for the literal text.",
                            n.join(" "),
                            n.join(" ")
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
                            rest.join(" ")
                        ),
                    };
                }
            }
            if n.iter().any(|t| selector::looks_like_term(t)) {
                return WaitForm::Invalid {
                    reason: "selector-shaped-text",
                    message: format!(
                        "\"{}\" looks like a selector but does not parse as one",
                        n.join(" ")
                    ),
                };
            }
            WaitForm::Text {
                text: js_trim(&body(0).join(" ")).to_string(),
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

/// `b(tokens)`: the longest (or, preferring a trailing value, the longest leaving one) prefix of
/// selector-looking tokens that parses as a selector, and the rest.
pub fn split_selector_prefix<S: AsRef<str>>(
    tokens: &[S],
    prefer_trailing_value: bool,
) -> Option<(String, Vec<String>)> {
    let tokens: Vec<&str> = tokens.iter().map(AsRef::as_ref).collect();
    if tokens.is_empty() {
        return None;
    }
    let mut ends = Vec::new();
    let mut r = 0;
    while r < tokens.len() {
        if !selector::looks_like_term(tokens[r]) {
            break;
        }
        r += 1;
        let joined = tokens[..r].join(" ");
        let joined = js_trim(&joined);
        if !joined.is_empty() && selector::is_valid(joined) {
            ends.push(r);
        }
    }
    let mut end = *ends.last()?;
    if prefer_trailing_value {
        if let Some(e) = ends.iter().rev().find(|e| **e < tokens.len()) {
            end = *e;
        }
    }
    let sel = js_trim(&tokens[..end].join(" ")).to_string();
    (!sel.is_empty()).then(|| (sel, tokens[end..].iter().map(|t| t.to_string()).collect()))
}

/// `is` predicates.
pub const IS_PREDICATES: &[&str] = &[
    "visible", "hidden", "exists", "absent", "editable", "selected", "focused", "text",
];

#[derive(Debug, Clone, PartialEq)]
pub enum IsForm {
    Check {
        predicate: String,
        selector: String,
        expected: String,
    },
    Invalid {
        message: String,
    },
}

/// agent-device's `is` reader: `<predicate> <selector…> [value]` or `<selector…> <predicate>`.
pub fn is_form<S: AsRef<str>>(p: &[S]) -> IsForm {
    let mut tokens: Vec<String> = p.iter().map(|t| t.as_ref().to_string()).collect();
    let first_is_predicate = tokens
        .first()
        .is_some_and(|t| IS_PREDICATES.contains(&t.to_lowercase().as_str()));
    if !first_is_predicate {
        for i in 1..tokens.len() {
            let t = tokens[i].to_lowercase();
            if IS_PREDICATES.contains(&t.as_str()) && selector::is_valid(&tokens[..i].join(" ")) {
                let mut reordered = vec![t];
                reordered.extend_from_slice(&tokens[..i]);
                reordered.extend_from_slice(&tokens[i + 1..]);
                tokens = reordered;
                break;
            }
        }
    }
    let predicate = tokens.first().cloned().unwrap_or_default().to_lowercase();
    if !IS_PREDICATES.contains(&predicate.as_str()) {
        return IsForm::Invalid {
            message: format!("is requires predicate: {}", IS_PREDICATES.join("|")),
        };
    }
    let Some((sel, rest)) = split_selector_prefix(&tokens[1..], predicate == "text") else {
        return IsForm::Invalid {
            message: "is requires a selector expression".into(),
        };
    };
    let expected = js_trim(&rest.join(" ")).to_string();
    if predicate == "text" && expected.is_empty() {
        return IsForm::Invalid {
            message: "is text requires expected text value".into(),
        };
    }
    if predicate != "text" && !rest.is_empty() {
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

    #[test]
    fn wait_forms() {
        assert_eq!(wait_form(&v(&["500"])), WaitForm::Sleep { ms: 500.0 });
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
