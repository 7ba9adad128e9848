//! Reads: `get text|attrs`, `is <predicate>` and `wait`.

use super::*;

pub(super) fn get(p: &[&str]) -> Verdict {
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
pub(super) fn is(p: &[&str]) -> Verdict {
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
pub(super) fn wait(p: &[&str]) -> Verdict {
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
