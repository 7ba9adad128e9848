//! Device commands the daemon checks itself: `settings`, `screenshot` flags and `record`.

use super::*;

/// `settings`: the shape the daemon checks before the platform backend reads the words, and the
/// coordinates of `location set`.
pub(super) fn settings(p: &[&str]) -> Verdict {
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
                _ => applied_somewhere(setting),
            },
        )
    })
}

/// A setting name some platform's backend applies (the registry's table); one none applies is
/// refused by every backend once the daemon hands it over (`Unsupported setting: …`).
fn applied_somewhere(setting: &str) -> Verdict {
    let names = crate::registry::settings::setting_names();
    need(sym::word_in(setting, names, true), || {
        refusal(
            Kind::WrongType {
                name: "setting",
                expected: format!("a setting some platform applies: {}", names.join(", ")),
                words: Some(names),
            },
            Some(0),
            format!("Unsupported setting: {}", setting.to_lowercase()),
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
pub(super) fn screenshot(step: &Step) -> Verdict {
    let Some(crop) = step
        .flags()
        .get("screenshotCropOn")
        .and_then(|v| v.as_str())
    else {
        return Verdict::Pass;
    };
    // An empty value (a `${VAR}` may be one) means no crop at all.
    branch(
        sym::empty(crop),
        || Verdict::Pass,
        || {
            if step.flags().get("screenshotFullscreen") == Some(&serde_json::Value::Bool(true)) {
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
pub(super) fn record(p: &[&str]) -> Verdict {
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
