//! The daemon's argument readers, one per [`Reader`], over values that may hold `${VAR}`s (see
//! `sym`). Each mirrors agent-device 0.21.5's reader for its command, in its order: the replay
//! runner's conversion of `gesture` and `swipe`, then the handler's own checks.

use ad_grammar::text::js_trim;

use super::sym::{self, branch, fork, need, then, Tri};
use super::{refusal, wrong, Kind, Verdict};
use crate::lower::Step;
use crate::registry::Reader;

pub(super) fn read(step: &Step, reader: Reader) -> Verdict {
    let p: Vec<&str> = step.positionals.iter().map(|a| a.value.as_str()).collect();
    let p = &p[..];
    match reader {
        Reader::Touch { buttons } => then(touch(&step.command, p), || tap_flags(step, buttons)),
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

fn join(p: &[&str]) -> String {
    p.join(" ")
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

// ---- element targets -----------------------------------------------------------------------

/// `click`/`press`/`hover` (and `longpress`'s target): `x y`, an `@ref` or a joined selector.
fn touch(command: &str, p: &[&str]) -> Verdict {
    let point = if p.len() >= 2 {
        sym::finite(p[0]).and(sym::finite(p[1]))
    } else {
        Tri::No
    };
    branch(point, || Verdict::Pass, || not_point(command, p))
}

fn not_point(command: &str, p: &[&str]) -> Verdict {
    let first = p.first().copied().unwrap_or("");
    branch(
        sym::starts_with(first, '@'),
        || ref_ok(first, 0),
        || {
            let joined = join(p);
            branch(
                sym::blank(&joined),
                || {
                    missing(
                        "an @ref, a selector or x y",
                        format!("{command} requires @ref, selector expression, or x y coordinates"),
                    )
                },
                || selector(js_trim(&joined), 0),
            )
        },
    )
}

/// `click`/`press` series flags (ranges are the flag rule's, AD118): a double tap cannot hold or
/// jitter; a non-primary `--button` is for `click` only, and never with series flags (where a
/// platform takes it at all).
fn tap_flags(step: &Step, buttons: bool) -> Verdict {
    let button = step.flags.get("clickButton").and_then(|v| v.as_str());
    if let Some(button) = button.filter(|b| *b != "primary") {
        if !buttons {
            return refuse(
                Kind::Conflict {
                    help: "only `click` takes a non-primary `--button`",
                },
                None,
                "--button is supported only for click",
            );
        }
        let series = ["count", "intervalMs", "holdMs", "jitterPx"]
            .iter()
            .any(|k| step.flags.contains_key(k))
            || step.flags.get("doubleTap") == Some(&serde_json::Value::Bool(true));
        if series {
            return refuse(
                Kind::Conflict {
                    help: "drop `--button` or the repeat flags (--count, --interval-ms, --hold-ms, --jitter-px, --double-tap)",
                },
                None,
                format!("click --button {button} does not support repeat or gesture modifier flags"),
            );
        }
    }
    let n = |key: &str| {
        step.flags
            .get(key)
            .and_then(serde_json::Value::as_f64)
            .unwrap_or(0.0)
    };
    let double = step.flags.get("doubleTap") == Some(&serde_json::Value::Bool(true));
    for (key, word) in [("holdMs", "hold-ms"), ("jitterPx", "jitter-px")] {
        if double && n(key) > 0.0 {
            return refuse(
                Kind::Conflict {
                    help: "drop one of them",
                },
                None,
                format!("double-tap cannot be combined with {word}"),
            );
        }
    }
    Verdict::Pass
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

/// `longpress`: a point takes the third token as its duration; otherwise a trailing number is
/// the duration and the rest the target.
fn long_press(p: &[&str]) -> Verdict {
    let point = if p.len() >= 2 {
        sym::finite(p[0]).and(sym::finite(p[1]))
    } else {
        Tri::No
    };
    branch(
        point,
        || p.get(2).map_or(Verdict::Pass, |d| duration(d, 2)),
        || {
            let n = p.len();
            let trailing = if n > 1 {
                sym::finite_nonblank(p[n - 1])
            } else {
                Tri::No
            };
            // The target's own point test reads the same first two values: not a point here.
            branch(
                trailing,
                || {
                    then(duration(p[n - 1], n - 1), || {
                        not_point("longpress", &p[..n - 1])
                    })
                },
                || not_point("longpress", p),
            )
        },
    )
}

/// `fill`: agent-device's fill target reader (`x y text`, `@ref text`, `selector text`).
fn fill(p: &[&str]) -> Verdict {
    let no_form = || {
        missing(
            "x y text, @ref text or selector text",
            "fill requires x y text, @ref text, or selector text",
        )
    };
    let no_text = |what: &str| {
        missing(
            &format!("text after the {what}"),
            format!("fill requires text after {what} (use \"\" to clear the field)"),
        )
    };
    let Some(&first) = p.first() else {
        return no_form();
    };
    branch(
        sym::starts_with(first, '@'),
        || {
            then(ref_ok(first, 0), || {
                if p.len() >= 2 {
                    Verdict::Pass
                } else {
                    no_text("ref")
                }
            })
        },
        || {
            branch(eref(first), no_form, || {
                fork(sym::split_outcomes(p, true), |split| match split {
                    Some(k) if k >= p.len() => no_text("selector"),
                    Some(k) => {
                        let text = join(&p[k..]);
                        branch(
                            sym::empty(&text).not().and(sym::blank(&text)),
                            || no_text("selector"),
                            || Verdict::Pass,
                        )
                    }
                    None => {
                        let point = if p.len() >= 2 {
                            sym::finite(p[0]).and(sym::finite(p[1]))
                        } else {
                            Tri::No
                        };
                        branch(
                            point,
                            || {
                                if p.len() >= 3 {
                                    Verdict::Pass
                                } else {
                                    no_text("coordinates")
                                }
                            },
                            no_form,
                        )
                    }
                })
            })
        },
    )
}

/// `/^e\d+$/`: a ref written without its `@`.
fn eref(v: &str) -> Tri {
    let shape =
        |s: &str| s.len() > 1 && s.starts_with('e') && s[1..].bytes().all(|b| b.is_ascii_digit());
    if !sym::dynamic(v) {
        return Tri::of(shape(v));
    }
    let (prefix, suffix) = sym::literal_ends(v);
    let prefix_ok = prefix.is_empty()
        || (prefix.starts_with('e') && prefix[1..].bytes().all(|b| b.is_ascii_digit()));
    if prefix_ok && suffix.bytes().all(|b| b.is_ascii_digit()) {
        Tri::Unknown
    } else {
        Tri::No
    }
}

/// `type`: text that does not start with a ref-like word, and not empty.
fn type_text(p: &[&str]) -> Verdict {
    let first = p.first().map_or(Verdict::Pass, |f| {
        need(ref_like(f).not(), || {
            wrong(
                "text",
                "text (not an @ref: use fill @ref \"text\")",
                0,
                format!(
                    "type does not accept a target ref like \"{}\"",
                    js_trim(f).split(' ').next().unwrap_or("")
                ),
            )
        })
    });
    then(first, || {
        branch(
            sym::empty(&join(p)),
            || missing("text", "type requires text"),
            || Verdict::Pass,
        )
    })
}

/// agent-device's "this looks like a target ref" test for `type`'s first word.
fn ref_like(v: &str) -> Tri {
    if sym::dynamic(v) {
        let (prefix, _) = sym::literal_ends(v);
        let p = ad_grammar::text::js_trim_start(prefix);
        return match p.chars().next() {
            Some(c) if c != '@' => Tri::No,
            _ => Tri::Unknown,
        };
    }
    let w = js_trim(v)
        .split(ad_grammar::text::is_js_whitespace)
        .next()
        .unwrap_or("");
    let Some(rest) = w.strip_prefix('@') else {
        return Tri::No;
    };
    if w.chars().count() < 3 {
        return Tri::No;
    }
    let word_char = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == '-';
    // /^[A-Za-z_-]*\d[\w-]*$/i
    let lead = rest
        .find(|c: char| !(c.is_ascii_alphabetic() || c == '_' || c == '-'))
        .unwrap_or(rest.len());
    let digit_after = rest[lead..].starts_with(|c: char| c.is_ascii_digit())
        && rest[lead + 1..].chars().all(word_char);
    // /^(?:ref|node|element|el)[\w-]*$/i
    let lower = rest.to_ascii_lowercase();
    let named = ["ref", "node", "element", "el"]
        .iter()
        .any(|p| lower.starts_with(p) && rest[p.len()..].chars().all(word_char));
    Tri::of(digit_after || named)
}

fn get(p: &[&str]) -> Verdict {
    const FORMATS: &[&str] = &["text", "attrs"];
    let format = p.first().copied().unwrap_or("");
    let bad_format = || {
        refusal(
            Kind::WrongType {
                name: "subcommand",
                expected: "text or attrs".into(),
                words: Some(FORMATS),
            },
            p.first().map(|_| 0),
            "get only supports text or attrs",
        )
    };
    if p.is_empty() {
        return Verdict::Refused(Box::new(bad_format()));
    }
    then(
        need(sym::word_in(format, FORMATS, false), bad_format),
        || {
            let target = p.get(1).copied().unwrap_or("");
            branch(
                sym::starts_with(target, '@'),
                || ref_ok(target, 1),
                || {
                    let joined = join(&p[1..]);
                    branch(
                        sym::blank(&joined),
                        || {
                            missing(
                                "an @ref or a selector",
                                "get requires @ref or selector expression",
                            )
                        },
                        || selector(js_trim(&joined), 1),
                    )
                },
            )
        },
    )
}

const PREDICATES: &[&str] = &[
    "visible", "hidden", "exists", "absent", "editable", "selected", "focused", "text",
];

/// `is`: `<predicate> <selector…> [value]`, or `<selector…> <predicate>` reordered.
fn is(p: &[&str]) -> Verdict {
    let form = |message: &str| refuse(Kind::Form { command: "is" }, None, message);
    // The reorderings the values allow: (tokens, predicate as written after the reorder).
    let mut orders: Vec<(Vec<String>, String)> = Vec::new();
    let first = p.first().copied().unwrap_or("");
    let first_is = sym::word_in(first, PREDICATES, true);
    if first_is != Tri::No {
        orders.push((p.iter().map(|s| s.to_string()).collect(), first.to_string()));
    }
    if first_is != Tri::Yes {
        let mut settled = false;
        for i in 1..p.len() {
            let c = sym::word_in(p[i], PREDICATES, true).and(sym::selector_valid(&join(&p[..i])));
            if c == Tri::No {
                continue;
            }
            let lower = p[i].to_lowercase();
            let mut t = vec![lower.clone()];
            t.extend(p[..i].iter().map(|s| s.to_string()));
            t.extend(p[i + 1..].iter().map(|s| s.to_string()));
            orders.push((t, lower));
            if c == Tri::Yes {
                settled = true;
                break;
            }
        }
        if !settled {
            orders.push((p.iter().map(|s| s.to_string()).collect(), first.to_string()));
        }
    }
    fork(orders, |(tokens, predicate)| {
        let is_predicate = sym::word_in(&predicate, PREDICATES, true);
        let no_predicate = || {
            refusal(
                Kind::Form { command: "is" },
                None,
                "is requires predicate: visible|hidden|exists|absent|editable|selected|focused|text",
            )
        };
        then(need(is_predicate, no_predicate), || {
            // (is text, the split prefers a trailing value) as the predicate can turn out.
            let text = sym::word_in(&predicate, &["text"], true);
            let exact = sym::word_in(&predicate, &["text"], false);
            let mut cases = Vec::new();
            for &t in text.cases() {
                for &e in exact.cases() {
                    if !e || t {
                        cases.push((t, e));
                    }
                }
            }
            let rest: Vec<&str> = tokens[1..].iter().map(String::as_str).collect();
            fork(cases, |(is_text, prefer)| {
                fork(sym::split_outcomes(&rest, prefer), |split| match split {
                    None => form("is requires a selector expression"),
                    Some(k) => {
                        let trailing = &rest[k..];
                        if is_text {
                            branch(
                                sym::blank(&join(trailing)),
                                || form("is text requires expected text value"),
                                || Verdict::Pass,
                            )
                        } else if trailing.is_empty() {
                            Verdict::Pass
                        } else {
                            form(&format!(
                                "is {} does not accept trailing values",
                                predicate.to_lowercase()
                            ))
                        }
                    }
                })
            })
        })
    })
}

/// `wait`'s forms (agent-device's wait positional reader, then the handler's checks).
fn wait(p: &[&str]) -> Verdict {
    let form = |message: String| refuse(Kind::Form { command: "wait" }, None, message);
    let Some(&first) = p.first() else {
        return missing(
            "a duration, text, a selector or an @ref",
            "wait requires a duration or text",
        );
    };
    // `j(v)`: a non-empty value whose `Number()` is finite.
    let j = |v: &str| sym::empty(v).not().and(sym::finite(v));
    branch(
        j(first),
        || Verdict::Pass,
        || {
            let n = p.len();
            let timeout = if n > 1 { j(p[n - 1]) } else { Tri::No };
            fork(timeout.cases().iter().copied(), |has_timeout| {
                let body = if has_timeout { &p[..n - 1] } else { p };
                let mut kinds = sym::words_matching(first, &["text", "stable", "absent"], false);
                if sym::starts_with(first, '@') != Tri::No {
                    kinds.push("@");
                }
                if sym::word_in(first, &["text", "stable", "absent"], false) != Tri::Yes
                    && sym::starts_with(first, '@') != Tri::Yes
                {
                    kinds.push("other");
                }
                fork(kinds, |kind| match kind {
                    "text" => branch(
                        sym::blank(&join(&body[1.min(body.len())..])),
                        || missing("the text to wait for", "wait requires text"),
                        || Verdict::Pass,
                    ),
                    "stable" => Verdict::Pass,
                    "absent" => {
                        let sel = &body[1.min(body.len())..];
                        let received = join(sel);
                        let bad = || {
                            form(if received.is_empty() {
                                "wait absent requires <selector> [timeoutMs].".into()
                            } else {
                                format!("wait absent requires one valid selector; received \"{received}\". Use wait absent '<selector>' [timeoutMs].")
                            })
                        };
                        if sel.is_empty() {
                            return bad();
                        }
                        fork(sym::split_outcomes(sel, false), |split| {
                            if split == Some(sel.len()) {
                                Verdict::Pass
                            } else {
                                bad()
                            }
                        })
                    }
                    "@" => ref_ok(first, 0),
                    _ => fork(sym::split_outcomes(body, false), |split| {
                        if split == Some(body.len()) && !body.is_empty() {
                            return Verdict::Pass;
                        }
                        let joined = join(body);
                        let unknown_key = body
                            .iter()
                            .fold(Tri::No, |acc, t| acc.or(sym::unknown_key_term(t)));
                        branch(
                            unknown_key,
                            || form(format!("Unknown selector key in \"{joined}\"")),
                            || {
                                match split {
                            Some(_) => form(format!("Selector is followed by unexpected extra arguments: \"{joined}\"")),
                            None => {
                                let term = body
                                    .iter()
                                    .fold(Tri::No, |acc, t| acc.or(sym::looks_like_term(t)));
                                branch(
                                    term,
                                    || form(format!("\"{joined}\" looks like a selector but does not parse as one")),
                                    || {
                                        branch(
                                            sym::blank(&joined),
                                            || missing("the text to wait for", "wait requires text"),
                                            || Verdict::Pass,
                                        )
                                    },
                                )
                            }
                        }
                            },
                        )
                    }),
                })
            })
        },
    )
}

/// `find [locator] <query> [action] [value…]`.
fn find(p: &[&str]) -> Verdict {
    const LOCATORS: &[&str] = &["text", "label", "value", "role", "id"];
    const ACTIONS: &[&str] = &[
        "exists", "list", "click", "focus", "press", "tap", "wait", "get", "fill", "type",
    ];
    if p.is_empty() {
        return missing("the text to find", "find requires a locator or text");
    }
    let located = sym::word_in(p[0], LOCATORS, false);
    fork(located.cases().iter().copied(), |has_locator| {
        let r = usize::from(has_locator);
        let query = p.get(r).copied().unwrap_or("");
        let actions = &p[(r + 1).min(p.len())..];
        then(
            branch(
                sym::empty(query),
                || missing("the text to find", "find requires a value"),
                || Verdict::Pass,
            ),
            || {
                let Some(&action) = actions.first() else {
                    return Verdict::Pass;
                };
                let ai = r + 1;
                let mut kinds: Vec<&str> = sym::words_matching(action, ACTIONS, true);
                if sym::can_be_other(action, ACTIONS, true) {
                    kinds.push("other");
                }
                let value = &actions[1..];
                fork(kinds, |kind| {
                    match kind {
                    "get" if value.is_empty() => missing(
                        "text or attrs after get",
                        "find get only supports text or attrs",
                    ),
                    "get" => {
                        let sub = value.first().copied().unwrap_or("");
                        need(sym::word_in(sub, &["text", "attrs"], true), || {
                            refusal(
                                Kind::WrongType {
                                    name: "get",
                                    expected: "text or attrs".into(),
                                    words: Some(&["text", "attrs"]),
                                },
                                Some(ai + 1),
                                "find get only supports text or attrs",
                            )
                        })
                    }
                    "fill" if value.is_empty() => missing(
                        "the text to fill",
                        "find fill requires text (use \"\" to clear the field)",
                    ),
                    "type" => branch(
                        sym::empty(&join(value)).or(Tri::of(value.is_empty())),
                        || missing("the text to type", "find type requires text"),
                        || Verdict::Pass,
                    ),
                    "other" => refuse(
                        Kind::WrongType {
                            name: "action",
                            expected: "click, list, focus, fill, type, exists, wait, get text or get attrs"
                                .into(),
                            words: Some(crate::registry::FIND_ACTIONS),
                        },
                        Some(ai),
                        format!("Unsupported find action: {action}"),
                    ),
                    _ => Verdict::Pass,
                }
                })
            },
        )
    })
}

// ---- gestures --------------------------------------------------------------------------------

const KINDS: &[&str] = &[
    "pan",
    "fling",
    "swipe",
    "pinch",
    "rotate",
    "transform",
    "drag",
];

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

/// `gesture`: the replay runner converts the positionals with `Number()` and checks the
/// structured gesture before the daemon sees it.
fn gesture(step: &Step, p: &[&str]) -> Verdict {
    let kind = p.first().copied();
    let bad_kind = || {
        refuse(
            Kind::WrongType {
                name: "kind",
                expected: KINDS.join(", "),
                words: Some(KINDS),
            },
            kind.map(|_| 0),
            format!("Expected kind to be one of: {}.", KINDS.join(", ")),
        )
    };
    let Some(kind) = kind else {
        return missing(
            &format!("a gesture kind ({})", KINDS.join(", ")),
            format!("Expected kind to be one of: {}.", KINDS.join(", ")),
        );
    };
    let mut kinds = sym::words_matching(kind, KINDS, false);
    if sym::can_be_other(kind, KINDS, false) {
        kinds.push("other");
    }
    fork(kinds, |k| {
        // The runner's arity check (the reader's, when the kind is written literally).
        let key = format!("gesture {k}");
        if let Some(a) = crate::registry::arity::ARITIES
            .iter()
            .find(|a| a.key == key)
        {
            if p.len() - 1 > a.max {
                return refuse(Kind::Extra, Some(a.max + 1), a.usage);
            }
        }
        let verdict = gesture_kind(p, k, bad_kind);
        // Only `pan` reads `--pointer-count` (1 or 2); the runner drops it for the other kinds.
        if k != "pan" {
            return verdict;
        }
        then(verdict, || {
            let count = step
                .flags
                .get("pointerCount")
                .and_then(serde_json::Value::as_f64);
            match count {
                Some(n) if !(1.0..=2.0).contains(&n) => refuse(
                    Kind::OutOfRange {
                        flag: Some("--pointer-count"),
                    },
                    None,
                    format!(
                        "Expected pointerCount to be at {} {}.",
                        if n < 1.0 { "least" } else { "most" },
                        if n < 1.0 { 1 } else { 2 }
                    ),
                ),
                _ => Verdict::Pass,
            }
        })
    })
}

fn gesture_kind(p: &[&str], k: &str, bad_kind: impl Fn() -> Verdict) -> Verdict {
    match k {
        "pan" => all([
            number(p, 1, "x"),
            number(p, 2, "y"),
            number(p, 3, "dx"),
            number(p, 4, "dy"),
            whole(p, 5, "durationMs", 16.0, 10_000.0),
        ]),
        "fling" => all([
            word(p, 1, "direction", &["up", "down", "left", "right"]),
            number(p, 2, "x"),
            number(p, 3, "y"),
            whole(p, 4, "distance", 0.0, f64::INFINITY),
        ]),
        "swipe" => word(
            p,
            1,
            "preset",
            &["left", "right", "left-edge", "right-edge"],
        ),
        "pinch" => then(origin(p), || number(p, 1, "scale")),
        "rotate" => then(origin(p), || number(p, 1, "degrees")),
        "transform" => all([
            number(p, 1, "x"),
            number(p, 2, "y"),
            number(p, 3, "dx"),
            number(p, 4, "dy"),
            number(p, 5, "scale"),
            number(p, 6, "degrees"),
            whole(p, 7, "durationMs", 16.0, 10_000.0),
        ]),
        "drag" => drag(p),
        _ => bad_kind(),
    }
}

/// `pinch`/`rotate` origin: both coordinates or neither.
fn origin(p: &[&str]) -> Verdict {
    match (p.get(2), p.get(3)) {
        (None, None) => Verdict::Pass,
        (Some(_), None) => missing(
            "both x and y",
            "gesture origin requires both x and y coordinates",
        ),
        _ => then(number(p, 2, "x"), || number(p, 3, "y")),
    }
}

fn drag(p: &[&str]) -> Verdict {
    let holds = all([
        whole(p, 3, "sourceHoldMs", 1.0, 10_000.0),
        whole(p, 4, "moveMs", 16.0, 10_000.0),
        whole(p, 5, "destinationHoldMs", 0.0, 10_000.0),
    ]);
    // A `${VAR}` duration counts as the least value its own check lets through: if even that
    // makes the total too long, every value does (or fails its own check).
    let value = |i: usize, default: f64, least: f64| -> (f64, bool) {
        match p.get(i) {
            None => (default, true),
            Some(v) if !sym::dynamic(v) => (ad_grammar::text::js_number(v), true),
            Some(_) => (least, false),
        }
    };
    let parts = [
        value(3, 800.0, 1.0),
        value(4, 500.0, 16.0),
        value(5, 0.0, 0.0),
    ];
    let total: f64 = parts.iter().map(|(n, _)| n).sum();
    let total = if total > 10_000.0 {
        refuse(
            Kind::OutOfRange { flag: None },
            Some(3),
            "gesture drag total duration must be at most 10000",
        )
    } else if parts.iter().all(|(_, known)| *known) {
        Verdict::Pass
    } else {
        Verdict::Unknown
    };
    let endpoint = |i: usize, name: &'static str| -> Verdict {
        let Some(&v) = p.get(i) else {
            return missing(
                &format!("the drag {name} (a selector or @ref)"),
                format!("Expected {name} to be a non-empty string."),
            );
        };
        branch(
            sym::blank(v),
            || {
                refuse(
                    Kind::Missing {
                        expected: format!("the drag {name} (a selector or @ref)"),
                    },
                    Some(i),
                    format!("Expected {name} to be a non-empty string."),
                )
            },
            || {
                let t = js_trim(v);
                branch(sym::starts_with(t, '@'), || ref_ok(t, i), || selector(t, i))
            },
        )
    };
    // Both endpoints are reported when both are refused: one run shows every problem.
    let ends = match (endpoint(1, "source"), endpoint(2, "destination")) {
        (Verdict::Refused(mut a), Verdict::Refused(b)) => {
            a.also.push(*b);
            Verdict::Refused(a)
        }
        (a, b) => then(a, || b),
    };
    all([holds, total, ends])
}

/// `swipe x1 y1 x2 y2`: numbers, and a series that fits in 60 s.
fn swipe(step: &Step, p: &[&str]) -> Verdict {
    let points = all(
        [(0, "x1"), (1, "y1"), (2, "x2"), (3, "y2")].map(|(i, name)| match p.get(i) {
            None => missing("x1 y1 x2 y2", format!("swipe {name} must be finite")),
            Some(v) => need(sym::finite(v), || {
                wrong(name, "a number", i, format!("swipe {name} must be finite"))
            }),
        }),
    );
    then(points, || {
        let n = |key: &str| step.flags.get(key).and_then(serde_json::Value::as_f64);
        let count = n("count").unwrap_or(1.0);
        let pause = n("pauseMs").unwrap_or(0.0);
        if count * 100.0 + (count - 1.0).max(0.0) * pause > 60_000.0 {
            refuse(
                Kind::Conflict {
                    help: "lower --count or --pause-ms",
                },
                None,
                "Swipe series must fit within 60000ms.",
            )
        } else {
            Verdict::Pass
        }
    })
}

/// `scroll <direction> [amount]`: positionals past the amount are not read.
fn scroll(p: &[&str]) -> Verdict {
    const DIRECTIONS: &[&str] = &["up", "down", "left", "right", "top", "bottom"];
    let direction = p.first().copied().unwrap_or("");
    let no_direction = || {
        missing(
            &format!("a direction ({})", DIRECTIONS.join(", ")),
            "scroll requires direction",
        )
    };
    branch(sym::empty(direction), no_direction, || {
        // The amount is read when its token is not empty.
        let amount = p.get(1).map_or(Verdict::Pass, |a| {
            branch(
                sym::empty(a),
                || Verdict::Pass,
                || {
                    need(sym::finite(a), || {
                        wrong("amount", "a number", 1, "scroll amount must be a number")
                    })
                },
            )
        });
        then(amount, || {
            need(sym::word_in(direction, DIRECTIONS, false), || {
                refusal(
                    Kind::WrongType {
                        name: "direction",
                        expected: DIRECTIONS.join(", "),
                        words: Some(DIRECTIONS),
                    },
                    Some(0),
                    format!("Unknown direction: {direction}"),
                )
            })
        })
    })
}

/// `settings`: the shape the daemon checks before the platform backend reads the words, and the
/// coordinates of `location set`.
fn settings(p: &[&str]) -> Verdict {
    const SPECIAL: &[&str] = &[
        "clear-app-state",
        "permission",
        "location",
        "reset-keychain",
    ];
    let shape = "settings requires <wifi|airplane|location> <on|off>, location set <lat> <lon>, \
                 animations <on|off>, appearance <light|dark|toggle>, … (see `ad commands`)";
    let setting = p.first().copied().unwrap_or("");
    let mut kinds = sym::words_matching(setting, SPECIAL, true);
    if sym::can_be_other(setting, SPECIAL, true) {
        kinds.push("other");
    }
    let present = |i: usize| p.get(i).map_or(Tri::No, |v| sym::empty(v).not());
    fork(kinds, |kind| {
        if kind == "clear-app-state" {
            return Verdict::Pass;
        }
        let base = present(0).and(present(1));
        then(
            need(base, || {
                refusal(
                    Kind::Missing {
                        expected: "the setting's arguments".into(),
                    },
                    None,
                    shape,
                )
            }),
            || match kind {
                "permission" => need(present(2), || {
                    refusal(
                        Kind::Missing {
                            expected: "the permission".into(),
                        },
                        None,
                        shape,
                    )
                }),
                "reset-keychain" if p.len() > 2 => refuse(Kind::Extra, Some(2), shape),
                "location" => {
                    let state = p.get(1).copied().unwrap_or("");
                    branch(
                        sym::word_in(state, &["set"], true),
                        || {
                            then(
                                need(present(2).and(present(3)), || {
                                    refusal(
                                        Kind::Missing {
                                            expected: "latitude and longitude".into(),
                                        },
                                        None,
                                        shape,
                                    )
                                }),
                                || {
                                    all([
                                        coordinate(p, 2, "latitude", 90.0),
                                        coordinate(p, 3, "longitude", 180.0),
                                    ])
                                },
                            )
                        },
                        || Verdict::Pass,
                    )
                }
                _ => Verdict::Pass,
            },
        )
    })
}

fn coordinate(p: &[&str], i: usize, name: &str, limit: f64) -> Verdict {
    let v = p.get(i).copied().unwrap_or("");
    let t = if sym::dynamic(v) {
        sym::blank(v).not().and(sym::finite(v)).and(Tri::Unknown)
    } else {
        let n = ad_grammar::text::js_number(v);
        Tri::of(!js_trim(v).is_empty() && n.is_finite() && n >= -limit && n <= limit)
    };
    need(t, || {
        refusal(
            Kind::OutOfRange { flag: None },
            Some(i),
            format!("{name} must be a number from -{limit} to {limit}"),
        )
    })
}

/// `screenshot`: `--crop-on` must be a selector and cannot be combined with `--fullscreen`.
fn screenshot(step: &Step) -> Verdict {
    let Some(crop) = step.flags.get("screenshotCropOn").and_then(|v| v.as_str()) else {
        return Verdict::Pass;
    };
    // An empty value (a `${VAR}` may be one) means no crop at all.
    branch(
        sym::empty(crop),
        || Verdict::Pass,
        || {
            if step.flags.get("screenshotFullscreen") == Some(&serde_json::Value::Bool(true)) {
                return refuse(
                Kind::Conflict {
                    help: "drop one of them",
                },
                None,
                "--crop-on cannot be combined with --overlay-refs or --fullscreen: both move the \
                 captured frame away from the snapshot viewport the crop is measured against",
            );
            }
            need(sym::selector_valid(crop), || {
                refusal(
                    Kind::CropOn,
                    None,
                    "screenshot --crop-on requires a valid selector expression",
                )
            })
        },
    )
}

/// `record start|stop` (any case).
fn record(p: &[&str]) -> Verdict {
    const ACTIONS: &[&str] = &["start", "stop"];
    match p.first() {
        None => missing("start or stop", "record requires start or stop"),
        Some(a) => need(sym::word_in(a, ACTIONS, true), || {
            refusal(
                Kind::WrongType {
                    name: "action",
                    expected: "start or stop".into(),
                    words: Some(ACTIONS),
                },
                Some(0),
                "record requires start or stop",
            )
        }),
    }
}
