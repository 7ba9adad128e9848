//! Element targets: `click`, `press`, `hover` (an `x y` point, an `@ref` or a joined selector,
//! and the tap flags) and `longpress`.

use super::*;

/// `click`/`press`/`hover` (and `longpress`'s target): `x y`, an `@ref` or a joined selector.
pub(super) fn touch(command: &str, p: &[&str]) -> Verdict {
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
pub(super) fn tap_flags(step: &Step, buttons: bool) -> Verdict {
    let button = step.flags().get("clickButton").and_then(|v| v.as_str());
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
            .any(|k| step.flags().contains_key(k))
            || step.flags().get("doubleTap") == Some(&serde_json::Value::Bool(true));
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
        step.flags()
            .get(key)
            .and_then(serde_json::Value::as_f64)
            .unwrap_or(0.0)
    };
    let double = step.flags().get("doubleTap") == Some(&serde_json::Value::Bool(true));
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

/// `longpress`: a point takes the third token as its duration; otherwise a trailing number is
/// the duration and the rest the target.
pub(super) fn long_press(p: &[&str]) -> Verdict {
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
