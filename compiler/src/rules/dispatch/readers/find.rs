//! `find [locator] <query> [action] [value…]`.

use super::*;

/// `find [locator] <query> [action] [value…]`.
pub(super) fn find(p: &[&str]) -> Verdict {
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
