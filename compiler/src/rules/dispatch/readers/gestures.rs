//! Gestures and scrolling: `gesture <kind> …` (the replay runner converts and checks it before
//! the daemon sees it), `swipe` and `scroll`.

use super::*;

/// Gesture kinds the daemon reads (the registry's `sub_actions::GESTURE_KINDS`, a test holds them
/// equal).
pub(crate) const GESTURE_KINDS: &[&str] = &[
    "pan",
    "fling",
    "swipe",
    "pinch",
    "rotate",
    "transform",
    "drag",
];

/// `gesture`: the replay runner converts the positionals with `Number()` and checks the
/// structured gesture before the daemon sees it.
pub(super) fn gesture(step: &Step, p: &[&str]) -> Verdict {
    let kind = p.first().copied();
    let bad_kind = || {
        refuse(
            Kind::WrongType {
                name: "kind",
                expected: GESTURE_KINDS.join(", "),
                words: Some(GESTURE_KINDS),
            },
            kind.map(|_| 0),
            format!("Expected kind to be one of: {}.", GESTURE_KINDS.join(", ")),
        )
    };
    let Some(kind) = kind else {
        return missing(
            &format!("a gesture kind ({})", GESTURE_KINDS.join(", ")),
            format!("Expected kind to be one of: {}.", GESTURE_KINDS.join(", ")),
        );
    };
    let mut kinds = sym::words_matching(kind, GESTURE_KINDS, false);
    if sym::can_be_other(kind, GESTURE_KINDS, false) {
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
                .flags()
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
pub(super) fn swipe(step: &Step, p: &[&str]) -> Verdict {
    let points = all(
        [(0, "x1"), (1, "y1"), (2, "x2"), (3, "y2")].map(|(i, name)| match p.get(i) {
            None => missing("x1 y1 x2 y2", format!("swipe {name} must be finite")),
            Some(v) => need(sym::finite(v), || {
                wrong(name, "a number", i, format!("swipe {name} must be finite"))
            }),
        }),
    );
    then(points, || {
        let n = |key: &str| step.flags().get(key).and_then(serde_json::Value::as_f64);
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
pub(super) fn scroll(p: &[&str]) -> Verdict {
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
