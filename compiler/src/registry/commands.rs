//! The descriptor table. Data only: behaviour lives in the code that reads it.
//!
//! Sources (agent-device 0.21.5): the command descriptor registry (`sdk-batch.js` export `d`,
//! 78 descriptors) for every command name, its recording effect and its
//! `targetIdentityVerification`; the `.ad` parser (`script.js`, `capture.js`) for reader rules
//! and flag keys; `agent-device help <command>` and the daemon's positional readers for
//! signatures and forms; `cli-command-aliases.js` for CLI-only aliases and retired words.

use super::*;

// ---------------------------------------------------------------------------------------------
// Building blocks
// ---------------------------------------------------------------------------------------------

/// A required positional.
const fn req(name: &'static str, kind: ArgKind) -> Positional {
    Positional {
        name,
        kind,
        optional: false,
        variadic: false,
    }
}

/// An optional positional.
const fn opt(name: &'static str, kind: ArgKind) -> Positional {
    Positional {
        name,
        kind,
        optional: true,
        variadic: false,
    }
}

/// A required positional that takes the rest of the tokens.
const fn rest(name: &'static str, kind: ArgKind) -> Positional {
    Positional {
        name,
        kind,
        optional: false,
        variadic: true,
    }
}

/// An optional positional that takes the rest of the tokens.
const fn opt_rest(name: &'static str, kind: ArgKind) -> Positional {
    Positional {
        name,
        kind,
        optional: true,
        variadic: true,
    }
}

/// A literal subcommand word.
const fn word(name: &'static str, words: &'static [&'static str]) -> Positional {
    req(name, ArgKind::Enum(words))
}

/// The single form of a command that takes no positionals.
const NO_ARGS: &[Form] = &[Form { positionals: &[] }];

const COORD: ArgKind = ArgKind::Coordinate;
const MS: ArgKind = ArgKind::DurationMs;
const POSITIVE_INT: ArgKind = ArgKind::Integer {
    min: 1,
    max: i64::MAX,
};

// Word sets ------------------------------------------------------------------------------------

const DIRECTIONS: &[&str] = &["up", "down", "left", "right"];
const SCROLL_DIRECTIONS: &[&str] = &["up", "down", "left", "right", "top", "bottom"];
/// With the aliases the daemon accepts (`upside-down`, `left`, `right`).
const ORIENTATIONS: &[&str] = &[
    "portrait",
    "portrait-upside-down",
    "landscape-left",
    "landscape-right",
    "upside-down",
    "left",
    "right",
];
/// `ok`, `center` and `enter` are accepted aliases of `select`.
const TV_BUTTONS: &[&str] = &[
    "up", "down", "left", "right", "select", "menu", "home", "back", "ok", "center", "enter",
];
const KEYBOARD_ACTIONS: &[&str] = &super::sub_actions::KEYBOARD_WORDS;
const KEYBOARD_OBSERVING: &[&str] = &["status", "get"];
const ALERT_ACTIONS: &[&str] = &["get", "accept", "dismiss", "wait"];
const ALERT_OBSERVING: &[&str] = &["get", "wait"];
const CLIPBOARD_OBSERVING: &[&str] = &["read"];
const GET_SUBCOMMANDS: &[&str] = &["text", "attrs"];
/// The words `shape::Predicate` reads.
const IS_PREDICATES: &[&str] = crate::shape::IS_PREDICATES;
const GESTURE_SWIPE_PRESETS: &[&str] = &["left", "right", "left-edge", "right-edge"];
const ON_OFF: &[&str] = &["on", "off"];
const BIOMETRIC_ACTIONS: &[&str] = &["match", "nonmatch", "enroll", "unenroll"];
const MOBILE_PERMISSIONS: &[&str] = &[
    "camera",
    "microphone",
    "photos",
    "contacts",
    "contacts-limited",
    "notifications",
    "calendar",
    "location",
    "location-always",
    "media-library",
    "motion",
    "reminders",
    "siri",
];
const MACOS_PERMISSIONS: &[&str] = &["accessibility", "screen-recording", "input-monitoring"];
const NETWORK_INCLUDE: &[&str] = &["summary", "headers", "body", "all"];
const PLATFORMS: &[&str] = &["ios", "android", "harmonyos"];

// Flags ----------------------------------------------------------------------------------------

const COUNT: FlagSpec = FlagSpec {
    name: "--count",
    aliases: &[],
    key: "count",
    value: FlagValue::Integer { min: 1, max: 200 },
    doc: "Repeat count for the series (1–200).",
};
const INTERVAL_MS: FlagSpec = FlagSpec {
    name: "--interval-ms",
    aliases: &[],
    key: "intervalMs",
    value: FlagValue::Integer {
        min: 0,
        max: 10_000,
    },
    doc: "Delay between press iterations in ms (0–10000).",
};
const HOLD_MS: FlagSpec = FlagSpec {
    name: "--hold-ms",
    aliases: &[],
    key: "holdMs",
    value: FlagValue::Integer {
        min: 0,
        max: 10_000,
    },
    doc: "Hold duration of each press iteration in ms (0–10000).",
};
const JITTER_PX: FlagSpec = FlagSpec {
    name: "--jitter-px",
    aliases: &[],
    key: "jitterPx",
    value: FlagValue::Integer { min: 0, max: 100 },
    doc: "Deterministic coordinate jitter radius in px (0–100).",
};
const DOUBLE_TAP: FlagSpec = FlagSpec {
    name: "--double-tap",
    aliases: &[],
    key: "doubleTap",
    value: FlagValue::Switch(true),
    doc: "Double-tap on each press iteration.",
};
const BUTTON: FlagSpec = FlagSpec {
    name: "--button",
    aliases: &[],
    key: "clickButton",
    value: FlagValue::Enum(&["primary", "secondary", "middle"]),
    doc: "Mouse button (primary, secondary, middle); any other value is dropped.",
};
const PAUSE_MS: FlagSpec = FlagSpec {
    name: "--pause-ms",
    aliases: &[],
    key: "pauseMs",
    value: FlagValue::Integer {
        min: 0,
        max: 10_000,
    },
    doc: "Delay between swipe iterations in ms (0–10000).",
};
const PATTERN: FlagSpec = FlagSpec {
    name: "--pattern",
    aliases: &[],
    key: "pattern",
    value: FlagValue::Enum(&["one-way", "ping-pong"]),
    doc: "Swipe repeat pattern (one-way, ping-pong); any other value is dropped.",
};
const DELAY_MS: FlagSpec = FlagSpec {
    name: "--delay-ms",
    aliases: &[],
    key: "delayMs",
    value: FlagValue::Integer {
        min: 0,
        max: 10_000,
    },
    doc: "Delay between typed characters in ms (0–10000).",
};
const POINTER_COUNT: FlagSpec = FlagSpec {
    name: "--pointer-count",
    aliases: &[],
    key: "pointerCount",
    value: FlagValue::Integer { min: 1, max: 2 },
    doc: "Number of touch pointers for gesture pan (1–2, default 1).",
};

const PLATFORM: FlagSpec = FlagSpec {
    name: "--platform",
    aliases: &[],
    key: "platform",
    value: FlagValue::Enum(PLATFORMS),
    doc: "Runtime platform hint; only ios, android and harmonyos are kept, others are dropped.",
};
const METRO_HOST: FlagSpec = FlagSpec {
    name: "--metro-host",
    aliases: &[],
    key: "metroHost",
    value: FlagValue::String,
    doc: "Session-scoped Metro/debug host hint.",
};
const METRO_PORT: FlagSpec = FlagSpec {
    name: "--metro-port",
    aliases: &[],
    key: "metroPort",
    value: FlagValue::Integer {
        min: 1,
        max: 65_535,
    },
    doc: "Session-scoped Metro/debug port hint (1–65535).",
};
const BUNDLE_URL: FlagSpec = FlagSpec {
    name: "--bundle-url",
    aliases: &[],
    key: "bundleUrl",
    value: FlagValue::String,
    doc: "Session-scoped bundle URL hint.",
};
const LAUNCH_URL: FlagSpec = FlagSpec {
    name: "--launch-url",
    aliases: &[],
    key: "launchUrl",
    value: FlagValue::String,
    doc: "Session-scoped deep link / launch URL hint.",
};

const CLICK_FLAGS: &[FlagSpec] = &[COUNT, INTERVAL_MS, HOLD_MS, JITTER_PX, DOUBLE_TAP, BUTTON];
const SWIPE_FLAGS: &[FlagSpec] = &[COUNT, PAUSE_MS, PATTERN];
const TYPE_FLAGS: &[FlagSpec] = &[DELAY_MS];
const GESTURE_FLAGS: &[FlagSpec] = &[POINTER_COUNT];
const RUNTIME_FLAGS: &[FlagSpec] = &[PLATFORM, METRO_HOST, METRO_PORT, BUNDLE_URL, LAUNCH_URL];
const OPEN_FLAGS: &[FlagSpec] = &[
    FlagSpec {
        name: "--relaunch",
        aliases: &[],
        key: "relaunch",
        value: FlagValue::Switch(true),
        doc: "Terminate the app process before launching it.",
    },
    FlagSpec {
        name: "--test-ime",
        aliases: &[],
        key: "testIme",
        value: FlagValue::Switch(true),
        doc: "Activate the headless Android test IME for deterministic text entry.",
    },
    FlagSpec {
        name: "--no-test-ime",
        aliases: &[],
        key: "testIme",
        value: FlagValue::Switch(false),
        doc: "Keep the real Android keyboard, even on emulators.",
    },
    PLATFORM,
    METRO_HOST,
    METRO_PORT,
    BUNDLE_URL,
    LAUNCH_URL,
];
const SNAPSHOT_FLAGS: &[FlagSpec] = &[
    FlagSpec {
        name: "-i",
        aliases: &[],
        key: "snapshotInteractiveOnly",
        value: FlagValue::Switch(true),
        doc: "Interactive elements only.",
    },
    FlagSpec {
        name: "--raw",
        aliases: &[],
        key: "snapshotRaw",
        value: FlagValue::Switch(true),
        doc: "Raw node output.",
    },
    FlagSpec {
        name: "--force-full",
        aliases: &[],
        key: "snapshotForceFull",
        value: FlagValue::Switch(true),
        doc: "Re-emit the full tree even when unchanged.",
    },
    FlagSpec {
        name: "--depth",
        aliases: &["-d"],
        key: "snapshotDepth",
        value: FlagValue::Integer {
            min: 0,
            max: i64::MAX,
        },
        doc: "Limit snapshot depth (integer ≥ 0).",
    },
    FlagSpec {
        name: "--scope",
        aliases: &["-s"],
        key: "snapshotScope",
        value: FlagValue::String,
        doc: "Scope the snapshot to a label, identifier or @ref.",
    },
];
const RECORD_FLAGS: &[FlagSpec] = &[
    FlagSpec {
        name: "--fps",
        aliases: &[],
        key: "fps",
        value: FlagValue::Integer { min: 1, max: 120 },
        doc: "Target frames per second (1–120; iOS physical device runner).",
    },
    FlagSpec {
        name: "--quality",
        aliases: &[],
        key: "quality",
        value: FlagValue::Enum(&["medium", "high"]),
        doc: "Output quality preset (medium, high; legacy 5–7 = medium, 8–10 = high).",
    },
    FlagSpec {
        name: "--hide-touches",
        aliases: &[],
        key: "hideTouches",
        value: FlagValue::Switch(true),
        doc: "Skip touch-overlay post-processing.",
    },
];
const SCREENSHOT_FLAGS: &[FlagSpec] = &[
    FlagSpec {
        name: "--fullscreen",
        aliases: &["--full", "-f"],
        key: "screenshotFullscreen",
        value: FlagValue::Switch(true),
        doc: "Web: capture the full page; macOS app sessions: capture the full desktop.",
    },
    FlagSpec {
        name: "--no-stabilize",
        aliases: &[],
        key: "screenshotNoStabilize",
        value: FlagValue::Switch(true),
        doc: "Skip Android status-bar stabilization and settle delay.",
    },
    FlagSpec {
        name: "--normalize-status-bar",
        aliases: &[],
        key: "screenshotNormalizeStatusBar",
        value: FlagValue::Switch(true),
        doc: "Normalize iOS simulator status-bar chrome for deterministic captures.",
    },
    FlagSpec {
        name: "--pixel-density",
        aliases: &[],
        key: "screenshotPixelDensity",
        value: FlagValue::Integer {
            min: 1,
            max: i64::MAX,
        },
        doc: "Output pixel density in pixels per logical point (integer ≥ 1).",
    },
    FlagSpec {
        name: "--scale",
        aliases: &[],
        key: "screenshotScale",
        value: FlagValue::Number {
            min: 0.01,
            max: 1.0,
        },
        doc: "Resize both dimensions by this factor (0.01–1).",
    },
    FlagSpec {
        name: "--crop-on",
        aliases: &[],
        key: "screenshotCropOn",
        value: FlagValue::String,
        doc: "Crop the capture to the frame of this selector on the same screen.",
    },
];

// Forms ----------------------------------------------------------------------------------------

/// `tv-remote press|longpress <button>` is how the command line spells it; the daemon reads
/// exactly one button.
const TV_REMOTE_CLI_ONLY: &[CliOnlyForm] = &[CliOnlyForm {
    form: Form {
        positionals: &[
            req("action", ArgKind::Enum(&["press", "longpress"])),
            req("button", ArgKind::Enum(TV_BUTTONS)),
        ],
    },
    why: "the `press`/`longpress` word exists only on the agent-device command line: a replay \
          passes both words to the daemon, which requires exactly one button; write \
          `tv-remote <button>` (a script cannot long-press a TV button)",
    drop: &["press"],
}];

/// `diff screenshot` compares images on the command line; a replay only diffs snapshots.
const DIFF_CLI_ONLY: &[CliOnlyForm] = &[CliOnlyForm {
    form: Form {
        positionals: &[
            word("kind", &["screenshot"]),
            opt_rest("current", ArgKind::Any),
        ],
    },
    why: "`diff screenshot` exists only on the agent-device command line; in a replay the daemon \
          answers \"diff currently supports only: diff snapshot\": compare screenshots outside \
          the script, or use `diff snapshot`",
    drop: &[],
}];

/// `click` / `press`: `x y`, `@ref [label]` or a selector (the reader joins the tokens).
const CLICK_FORMS: &[Form] = &[
    Form {
        positionals: &[req("x", COORD), req("y", COORD)],
    },
    Form {
        positionals: &[req("ref", ArgKind::Ref), opt("label", ArgKind::Text)],
    },
    Form {
        positionals: &[rest("target", ArgKind::Selector)],
    },
];

const LONGPRESS_FORMS: &[Form] = &[
    Form {
        positionals: &[req("x", COORD), req("y", COORD), opt("durationMs", MS)],
    },
    Form {
        positionals: &[req("ref", ArgKind::Ref), opt("durationMs", MS)],
    },
    Form {
        positionals: &[req("target", ArgKind::Selector), opt("durationMs", MS)],
    },
];

const HOVER_FORMS: &[Form] = &[
    Form {
        positionals: &[req("x", COORD), req("y", COORD)],
    },
    Form {
        positionals: &[req("ref", ArgKind::Ref)],
    },
    Form {
        positionals: &[rest("target", ArgKind::Selector)],
    },
];

/// `fill`: with three or more tokens after an `@ref` the first one is the ref label.
const FILL_FORMS: &[Form] = &[
    Form {
        positionals: &[
            req("x", COORD),
            req("y", COORD),
            opt_rest("text", ArgKind::Text),
        ],
    },
    Form {
        positionals: &[req("ref", ArgKind::Ref), req("text", ArgKind::Text)],
    },
    Form {
        positionals: &[
            req("ref", ArgKind::Ref),
            req("label", ArgKind::Text),
            rest("text", ArgKind::Text),
        ],
    },
    Form {
        positionals: &[
            req("target", ArgKind::Selector),
            rest("text", ArgKind::Text),
        ],
    },
];

const GESTURE_FORMS: &[Form] = &[
    Form {
        positionals: &[
            word("kind", &["pan"]),
            req("x", COORD),
            req("y", COORD),
            req("dx", ArgKind::Number),
            req("dy", ArgKind::Number),
            opt("durationMs", MS),
        ],
    },
    Form {
        positionals: &[
            word("kind", &["fling"]),
            req("direction", ArgKind::Enum(DIRECTIONS)),
            req("x", COORD),
            req("y", COORD),
            opt("distance", ArgKind::Number),
        ],
    },
    Form {
        positionals: &[
            word("kind", &["swipe"]),
            req("preset", ArgKind::Enum(GESTURE_SWIPE_PRESETS)),
        ],
    },
    Form {
        positionals: &[
            word("kind", &["pinch"]),
            req("scale", ArgKind::Number),
            opt("x", COORD),
            opt("y", COORD),
        ],
    },
    Form {
        positionals: &[
            word("kind", &["rotate"]),
            req("degrees", ArgKind::Number),
            opt("x", COORD),
            opt("y", COORD),
        ],
    },
    Form {
        positionals: &[
            word("kind", &["transform"]),
            req("x", COORD),
            req("y", COORD),
            req("dx", ArgKind::Number),
            req("dy", ArgKind::Number),
            req("scale", ArgKind::Number),
            req("degrees", ArgKind::Number),
            opt("durationMs", MS),
        ],
    },
    // Drag endpoints are selectors or pinned `@ref`s (never points).
    Form {
        positionals: &[
            word("kind", &["drag"]),
            req("source", ArgKind::Target),
            req("destination", ArgKind::Target),
            opt("sourceHoldMs", MS),
            opt("moveMs", MS),
            opt("destinationHoldMs", MS),
        ],
    },
];

/// `wait`: a trailing numeric token is the timeout (for the variadic text forms too).
const WAIT_FORMS: &[Form] = &[
    Form {
        positionals: &[req("ms", MS)],
    },
    Form {
        positionals: &[word("kind", &["text"]), rest("text", ArgKind::Text)],
    },
    Form {
        positionals: &[req("ref", ArgKind::Ref), opt("timeoutMs", MS)],
    },
    Form {
        positionals: &[
            word("kind", &["absent"]),
            req("selector", ArgKind::Selector),
            opt("timeoutMs", MS),
        ],
    },
    Form {
        positionals: &[
            word("kind", &["stable"]),
            opt("quietMs", MS),
            opt("timeoutMs", MS),
        ],
    },
    Form {
        positionals: &[req("selector", ArgKind::Selector), opt("timeoutMs", MS)],
    },
    // Words that are not a selector are a text wait (`wait "Checkout form" 5000`).
    Form {
        positionals: &[rest("text", ArgKind::Text)],
    },
];

const GET_FORMS: &[Form] = &[
    Form {
        positionals: &[
            req("subcommand", ArgKind::Enum(GET_SUBCOMMANDS)),
            req("ref", ArgKind::Ref),
            opt("label", ArgKind::Text),
        ],
    },
    Form {
        positionals: &[
            req("subcommand", ArgKind::Enum(GET_SUBCOMMANDS)),
            rest("target", ArgKind::Selector),
        ],
    },
];

const IS_FORMS: &[Form] = &[
    Form {
        positionals: &[
            req("predicate", ArgKind::Enum(IS_PREDICATES)),
            req("selector", ArgKind::Selector),
            opt("value", ArgKind::Text),
        ],
    },
    Form {
        positionals: &[
            req("selector", ArgKind::Selector),
            req("predicate", ArgKind::Enum(IS_PREDICATES)),
        ],
    },
];

const FIND_FORMS: &[Form] = &[
    Form {
        positionals: &[
            req("locator", ArgKind::Enum(FIND_LOCATORS)),
            req("query", ArgKind::Text),
            opt("action", ArgKind::Enum(FIND_ACTIONS)),
            opt_rest("value", ArgKind::Any),
        ],
    },
    Form {
        positionals: &[
            req("query", ArgKind::Text),
            opt("action", ArgKind::Enum(FIND_ACTIONS)),
            opt_rest("value", ArgKind::Any),
        ],
    },
];

const SETTINGS_FORMS: &[Form] = &[
    Form {
        positionals: &[
            word("area", &["wifi", "airplane", "location"]),
            req("state", ArgKind::Enum(ON_OFF)),
        ],
    },
    Form {
        positionals: &[
            word("area", &["location"]),
            word("action", &["set"]),
            req("lat", ArgKind::Number),
            req("lon", ArgKind::Number),
        ],
    },
    Form {
        positionals: &[
            word("area", &["animations"]),
            req("state", ArgKind::Enum(ON_OFF)),
        ],
    },
    Form {
        positionals: &[
            word("area", &["appearance"]),
            req("mode", ArgKind::Enum(&["light", "dark", "toggle"])),
        ],
    },
    Form {
        positionals: &[
            word("area", &["faceid", "touchid"]),
            req("action", ArgKind::Enum(BIOMETRIC_ACTIONS)),
        ],
    },
    Form {
        positionals: &[
            word("area", &["fingerprint"]),
            req("action", ArgKind::Enum(&["match", "nonmatch"])),
        ],
    },
    Form {
        positionals: &[
            word("area", &["clear-app-state"]),
            opt("appId", ArgKind::App),
        ],
    },
    Form {
        positionals: &[
            word("area", &["reset-keychain"]),
            word("action", &["clear"]),
        ],
    },
    Form {
        positionals: &[
            word("area", &["permission"]),
            req("action", ArgKind::Enum(&["grant", "deny", "reset"])),
            req("permission", ArgKind::Enum(MOBILE_PERMISSIONS)),
            opt("mode", ArgKind::Enum(&["full", "limited"])),
        ],
    },
    Form {
        positionals: &[
            word("area", &["permission"]),
            req("action", ArgKind::Enum(&["grant", "reset"])),
            req("permission", ArgKind::Enum(MACOS_PERMISSIONS)),
        ],
    },
];

const PERF_FORMS: &[Form] = &[
    Form {
        positionals: &[word("area", &["frames"])],
    },
    Form {
        positionals: &[
            word("area", &["memory"]),
            word("action", &["sample", "snapshot"]),
        ],
    },
    Form {
        positionals: &[
            word("area", &["cpu"]),
            word("object", &["profile"]),
            word("action", &["start", "stop", "report"]),
        ],
    },
    Form {
        positionals: &[word("area", &["trace"]), word("action", &["start", "stop"])],
    },
];

// Entry builders -------------------------------------------------------------------------------

/// The table names only what differs from the common case; each constructor supplies the
/// defaults of one kind of entry, and the `const` setters (struct field names) override them.
impl CommandSpec {
    /// A script command: no positionals (`NO_ARGS`, signature `""`), no flags or targets, the
    /// `Verbatim` reader, mutating, and read by its forms (extra positionals ignored, exact words).
    const fn new(name: &'static str, action: Action, summary: &'static str) -> Self {
        Self {
            name,
            summary,
            signature: "",
            reader: ReaderRule::Verbatim,
            forms: NO_ARGS,
            flags: &[],
            effect: Effect::Mutates,
            targeting: Targeting::None,
            verification: Verification::None,
            availability: Availability::Script,
            dispatch: Dispatch::Forms {
                extra: Extra::Ignored,
                words: Case::Exact,
                cli_only: &[],
            },
            action,
        }
    }

    /// A daemon-routed device command a recording never contains (device management,
    /// diagnostics).
    const fn not_recorded(name: &'static str, summary: &'static str) -> Self {
        Self::new(name, Action::Device, summary).effect(Effect::NotRecorded)
    }

    /// A word a script cannot use: no daemon route, not recorded, no action.
    const fn unavailable(
        name: &'static str,
        availability: Availability,
        summary: &'static str,
    ) -> Self {
        Self::new(name, Action::Unavailable, summary)
            .availability(availability)
            .effect(Effect::NotRecorded)
            .dispatch(Dispatch::Unrouted)
    }

    /// A client-only command (no daemon route); its forms still document the CLI's grammar.
    const fn client_only(name: &'static str, summary: &'static str) -> Self {
        Self::unavailable(name, Availability::ClientOnly, summary)
    }

    /// An internal daemon request: its inputs are request fields, so no positional grammar.
    const fn internal(name: &'static str, summary: &'static str) -> Self {
        Self::unavailable(name, Availability::Internal, summary)
            .signature("…")
            .forms(&[])
    }

    /// A retired word: no positional grammar applies, every use is reported with `migration`.
    const fn retired(name: &'static str, summary: &'static str, migration: &'static str) -> Self {
        Self::unavailable(name, Availability::Retired { migration }, summary)
            .signature("(retired)")
            .forms(&[])
    }

    /// A CLI alias scripts do not apply; the signature is the canonical command's.
    const fn cli_alias(
        name: &'static str,
        canonical: &'static str,
        signature: &'static str,
        summary: &'static str,
    ) -> Self {
        Self::unavailable(name, Availability::CliAlias { canonical }, summary)
            .signature(signature)
            .forms(&[])
    }

    const fn signature(self, signature: &'static str) -> Self {
        Self { signature, ..self }
    }

    const fn reader(self, reader: ReaderRule) -> Self {
        Self { reader, ..self }
    }

    const fn forms(self, forms: &'static [Form]) -> Self {
        Self { forms, ..self }
    }

    const fn flags(self, flags: &'static [FlagSpec]) -> Self {
        Self { flags, ..self }
    }

    const fn effect(self, effect: Effect) -> Self {
        Self { effect, ..self }
    }

    const fn targeting(self, targeting: Targeting) -> Self {
        Self { targeting, ..self }
    }

    const fn verification(self, verification: Verification) -> Self {
        Self {
            verification,
            ..self
        }
    }

    const fn availability(self, availability: Availability) -> Self {
        Self {
            availability,
            ..self
        }
    }

    const fn dispatch(self, dispatch: Dispatch) -> Self {
        Self { dispatch, ..self }
    }

    /// What the daemon does with positionals past a form. `extra`, `words` and `cli_only` adjust
    /// a `Dispatch::Forms`; on anything else they panic, which the `static` table turns into a
    /// build error.
    const fn extra(self, extra: Extra) -> Self {
        match self.dispatch {
            Dispatch::Forms {
                words, cli_only, ..
            } => self.dispatch(Dispatch::Forms {
                extra,
                words,
                cli_only,
            }),
            _ => panic!("`extra` applies to Dispatch::Forms only"),
        }
    }

    /// How the daemon compares words with the forms' (`Dispatch::Forms` only).
    const fn words(self, words: Case) -> Self {
        match self.dispatch {
            Dispatch::Forms {
                extra, cli_only, ..
            } => self.dispatch(Dispatch::Forms {
                extra,
                words,
                cli_only,
            }),
            _ => panic!("`words` applies to Dispatch::Forms only"),
        }
    }

    /// Forms only the agent-device command line accepts (`Dispatch::Forms` only).
    const fn cli_only(self, cli_only: &'static [CliOnlyForm]) -> Self {
        match self.dispatch {
            Dispatch::Forms { extra, words, .. } => self.dispatch(Dispatch::Forms {
                extra,
                words,
                cli_only,
            }),
            _ => panic!("`cli_only` applies to Dispatch::Forms only"),
        }
    }
}

// ---------------------------------------------------------------------------------------------
// The table
// ---------------------------------------------------------------------------------------------

pub static COMMANDS: &[CommandSpec] = &[
    // ---- Recorded commands (spec §8 catalogue) -------------------------------------------------
    CommandSpec::new(
        "open",
        Action::Open,
        "Open an app, deep link or URL in the session (boots the device when needed).",
    )
    .signature("[appOrUrl] [url]")
    .reader(ReaderRule::Open)
    .forms(&[Form {
        positionals: &[opt("appOrUrl", ArgKind::App), opt("url", ArgKind::Url)],
    }])
    .flags(OPEN_FLAGS),
    CommandSpec::new(
        "close",
        Action::Close,
        "Close the named app, or the session app and end the session.",
    )
    .signature("[app]")
    .forms(&[Form {
        positionals: &[opt("app", ArgKind::App)],
    }]),
    CommandSpec::new(
        "click",
        Action::Tap,
        "Tap an element (selector or @ref) or a screen point.",
    )
    .signature("<x y | @ref [label] | selector>")
    .reader(ReaderRule::ClickLike)
    .forms(CLICK_FORMS)
    .flags(CLICK_FLAGS)
    .targeting(Targeting::Element)
    .verification(Verification::PreDispatch)
    .dispatch(Dispatch::Reader(Reader::Touch { buttons: true })),
    CommandSpec::new(
        "press",
        Action::Tap,
        "Short-press an element (selector or @ref) or a screen point; same as click.",
    )
    .signature("<x y | @ref [label] | selector>")
    .reader(ReaderRule::ClickLike)
    .forms(CLICK_FORMS)
    .flags(CLICK_FLAGS)
    .targeting(Targeting::Element)
    .verification(Verification::PreDispatch)
    .dispatch(Dispatch::Reader(Reader::Touch { buttons: false })),
    CommandSpec::new(
        "longpress",
        Action::LongPress,
        "Hold an element or point (context menus); the hold duration is positional.",
    )
    .signature("<x y | @ref | selector> [durationMs]")
    .reader(ReaderRule::StripPins)
    .forms(LONGPRESS_FORMS)
    .targeting(Targeting::Element)
    .verification(Verification::PreDispatch)
    .dispatch(Dispatch::Reader(Reader::LongPress)),
    CommandSpec::new(
        "hover",
        Action::Hover,
        "Move the pointer over an element or point to reveal hover UI (web only).",
    )
    .signature("<x y | @ref | selector>")
    .reader(ReaderRule::StripPins)
    .forms(HOVER_FORMS)
    .targeting(Targeting::Element)
    .verification(Verification::PreDispatch)
    .dispatch(Dispatch::Reader(Reader::Touch { buttons: false })),
    CommandSpec::new(
        "fill",
        Action::Fill,
        "Replace the text of an input selected by selector, @ref or point.",
    )
    .signature("<x> <y> <text> | <@ref> [label] <text> | <selector> <text>")
    .reader(ReaderRule::Fill)
    .forms(FILL_FORMS)
    .flags(TYPE_FLAGS)
    .targeting(Targeting::Element)
    .verification(Verification::PreDispatch)
    .dispatch(Dispatch::Reader(Reader::Fill)),
    CommandSpec::new(
        "type",
        Action::Type,
        "Append text to the focused input (tokens are joined with one space).",
    )
    .signature("<text…>")
    .reader(ReaderRule::SeriesFlags)
    .forms(&[Form {
        positionals: &[rest("text", ArgKind::Text)],
    }])
    .flags(TYPE_FLAGS)
    .dispatch(Dispatch::Reader(Reader::Type)),
    CommandSpec::new(
        "focus",
        Action::Focus,
        "Move input focus to screen coordinates without entering text.",
    )
    .signature("<x> <y>")
    .forms(&[Form {
        positionals: &[req("x", COORD), req("y", COORD)],
    }]),
    CommandSpec::new(
        "swipe",
        Action::Swipe,
        "Quick coordinate fling from (x1, y1) to (x2, y2), optionally repeated.",
    )
    .signature("<x1> <y1> <x2> <y2>")
    .reader(ReaderRule::SeriesFlags)
    .forms(&[Form {
        positionals: &[
            req("x1", COORD),
            req("y1", COORD),
            req("x2", COORD),
            req("y2", COORD),
        ],
    }])
    .flags(SWIPE_FLAGS)
    .dispatch(Dispatch::Reader(Reader::Swipe)),
    CommandSpec::new(
        "gesture",
        Action::Gesture,
        "Run a structured pan, fling, swipe, pinch, rotate, transform or drag gesture.",
    )
    .signature(
        "pan <x> <y> <dx> <dy> [durationMs] | fling <up|down|left|right> <x> <y> \
         [distance] | swipe <left|right|left-edge|right-edge> | pinch <scale> [x] [y] \
         | rotate <degrees> [x] [y] | transform <x> <y> <dx> <dy> <scale> <degrees> \
         [durationMs] | drag <source> <destination> [sourceHoldMs] [moveMs] \
         [destinationHoldMs]",
    )
    .reader(ReaderRule::SeriesFlags)
    .forms(GESTURE_FORMS)
    .flags(GESTURE_FLAGS)
    .targeting(Targeting::DragEndpoints)
    .verification(Verification::DragEndpoints)
    .dispatch(Dispatch::Reader(Reader::Gesture)),
    CommandSpec::new(
        "scroll",
        Action::Scroll,
        "Scroll in a direction or to an edge; amount is a viewport fraction (≤ 0.8).",
    )
    .signature("<up|down|left|right|top|bottom> [amount]")
    .forms(&[Form {
        positionals: &[
            req("direction", ArgKind::Enum(SCROLL_DIRECTIONS)),
            opt("amount", ArgKind::Number),
        ],
    }])
    .dispatch(Dispatch::Reader(Reader::Scroll)),
    CommandSpec::new(
        "back",
        Action::Key(SystemKey::Back),
        "Navigate back in the app or through system navigation.",
    )
    .dispatch(Dispatch::Unread),
    CommandSpec::new(
        "home",
        Action::Key(SystemKey::Home),
        "Send the device to its home screen (the session stays open).",
    )
    .dispatch(Dispatch::Unread),
    CommandSpec::new(
        "app-switcher",
        Action::Key(SystemKey::AppSwitcher),
        "Open the device app switcher.",
    )
    .dispatch(Dispatch::Unread),
    CommandSpec::new(
        "orientation",
        Action::Device,
        "Set the device orientation (iOS and Android).",
    )
    .signature("<portrait|portrait-upside-down|landscape-left|landscape-right>")
    .forms(&[Form {
        positionals: &[req("orientation", ArgKind::Enum(ORIENTATIONS))],
    }])
    .words(Case::Insensitive),
    CommandSpec::new(
        "tv-remote",
        Action::Device,
        "Press a TV remote / D-pad button (Android TV, tvOS, Vega OS); long-press is \
         CLI-only.",
    )
    .signature("<up|down|left|right|select|menu|home|back>")
    .forms(&[Form {
        positionals: &[req("button", ArgKind::Enum(TV_BUTTONS))],
    }])
    .extra(Extra::Refused)
    .words(Case::Insensitive)
    .cli_only(TV_REMOTE_CLI_ONLY),
    CommandSpec::new(
        "settings",
        Action::Device,
        "Change OS settings, appearance, biometrics or app permissions on the target.",
    )
    .signature(
        "<wifi|airplane|location> <on|off> | location set <lat> <lon> | animations \
         <on|off> | appearance <light|dark|toggle> | faceid|touchid \
         <match|nonmatch|enroll|unenroll> | fingerprint <match|nonmatch> | \
         clear-app-state [app-id] | reset-keychain clear | permission \
         <grant|deny|reset> <permission> [full|limited]",
    )
    .forms(SETTINGS_FORMS)
    .dispatch(Dispatch::Reader(Reader::Settings)),
    CommandSpec::new(
        "install",
        Action::Device,
        "Install an app binary from a local path.",
    )
    .signature("<path> | <app> <path>")
    .forms(&[
        Form {
            positionals: &[req("path", ArgKind::Path)],
        },
        Form {
            positionals: &[req("app", ArgKind::App), req("path", ArgKind::Path)],
        },
    ]),
    CommandSpec::new(
        "reinstall",
        Action::Device,
        "Replace an installed app with a binary from a local path.",
    )
    .signature("<app> <path>")
    .forms(&[Form {
        positionals: &[req("app", ArgKind::App), req("path", ArgKind::Path)],
    }]),
    // The descriptor has no daemon route: the CLI rewrites it to the internal `install_source`
    // request, so as a script step it fails on the daemon's generic route.
    CommandSpec::client_only(
        "install-from-source",
        "Install app builds from URLs or CI artifacts (CLI only: no daemon route, so it \
         fails in scripts).",
    )
    .signature("<url>")
    .forms(&[Form {
        positionals: &[req("url", ArgKind::Url)],
    }])
    .effect(Effect::Mutates),
    CommandSpec::new(
        "push",
        Action::Device,
        "Deliver a push notification payload (JSON text or file) to an installed app.",
    )
    .signature("<bundleOrPackage> <payloadOrJson>")
    .forms(&[Form {
        positionals: &[
            req("bundleOrPackage", ArgKind::App),
            req("payloadOrJson", ArgKind::Any),
        ],
    }]),
    CommandSpec::new(
        "trigger-app-event",
        Action::Device,
        "Ask the app to handle an app-defined automation event with an optional payload.",
    )
    .signature("<event> [payloadJson]")
    .forms(&[Form {
        positionals: &[
            req("event", ArgKind::Text),
            opt("payloadJson", ArgKind::Any),
        ],
    }]),
    CommandSpec::new(
        "react-native",
        Action::Device,
        "React Native helpers: dismiss a LogBox/RedBox overlay and verify it is gone.",
    )
    .signature("dismiss-overlay")
    .forms(&[Form {
        positionals: &[word("action", &["dismiss-overlay"])],
    }])
    .extra(Extra::Refused),
    CommandSpec::new(
        "viewport",
        Action::Device,
        "Resize the web viewport of the current session.",
    )
    .signature("<width> <height>")
    .forms(&[Form {
        positionals: &[req("width", POSITIVE_INT), req("height", POSITIVE_INT)],
    }])
    .extra(Extra::Refused),
    CommandSpec::new(
        "keyboard",
        Action::Keyboard,
        "Inspect (status/get, the default) or press enter/return or dismiss the keyboard.",
    )
    .signature("[status|get|dismiss|enter|return]")
    .forms(&[Form {
        positionals: &[opt("action", ArgKind::Enum(KEYBOARD_ACTIONS))],
    }])
    .effect(Effect::BySubcommand {
        observing: KEYBOARD_OBSERVING,
        default_observes: true,
    })
    .extra(Extra::Refused)
    .words(Case::Insensitive),
    CommandSpec::new(
        "alert",
        Action::Alert,
        "Inspect or wait for (get, the default / wait) or accept/dismiss a system alert.",
    )
    .signature("[get|accept|dismiss|wait] [timeout]")
    .forms(&[Form {
        positionals: &[
            opt("action", ArgKind::Enum(ALERT_ACTIONS)),
            opt("timeout", MS),
        ],
    }])
    .effect(Effect::BySubcommand {
        observing: ALERT_OBSERVING,
        default_observes: true,
    })
    .dispatch(Dispatch::Lenient),
    CommandSpec::new(
        "clipboard",
        Action::Clipboard,
        "Read the device clipboard, or replace it with text.",
    )
    .signature("read | write <text>")
    .forms(&[
        Form {
            positionals: &[word("action", &["read"])],
        },
        Form {
            positionals: &[word("action", &["write"]), rest("text", ArgKind::Text)],
        },
    ])
    .effect(Effect::BySubcommand {
        observing: CLIPBOARD_OBSERVING,
        default_observes: false,
    })
    .extra(Extra::Refused)
    .words(Case::Insensitive),
    CommandSpec::new(
        "find",
        Action::Find,
        "Find an element by text/label/value/role/id and act on it (default: click).",
    )
    .signature("[text|label|value|role|id] <query> [action] [value]")
    .forms(FIND_FORMS)
    .effect(Effect::FindAction)
    .targeting(Targeting::Locator)
    .dispatch(Dispatch::Reader(Reader::Find)),
    CommandSpec::new(
        "wait",
        Action::Wait,
        "Wait for a duration, text, @ref, selector, strict absence or a stable UI.",
    )
    .signature(
        "<ms> | text <text> [timeoutMs] | @ref [timeoutMs] | <selector> [timeoutMs] | \
         absent <selector> [timeoutMs] | stable [quietMs] [timeoutMs]",
    )
    .reader(ReaderRule::StripPins)
    .forms(WAIT_FORMS)
    .effect(Effect::Observes)
    .targeting(Targeting::WaitTarget)
    .verification(Verification::PostResolution)
    .dispatch(Dispatch::Reader(Reader::Wait)),
    CommandSpec::new(
        "get",
        Action::Get,
        "Read an element's text or accessibility attributes.",
    )
    .signature("text|attrs <@ref [label] | selector>")
    .reader(ReaderRule::Get)
    .forms(GET_FORMS)
    .effect(Effect::Observes)
    .targeting(Targeting::ElementAfterSubcommand)
    .verification(Verification::PreDispatch)
    .dispatch(Dispatch::Reader(Reader::Get)),
    CommandSpec::new(
        "is",
        Action::Is,
        "Check a UI predicate (visible, hidden, exists, absent, …, text) on a selector.",
    )
    .signature("<predicate> <selector> [value] | <selector> <predicate>")
    .forms(IS_FORMS)
    .effect(Effect::Observes)
    .targeting(Targeting::Predicate)
    .verification(Verification::PreDispatch)
    .dispatch(Dispatch::Reader(Reader::Is)),
    CommandSpec::new(
        "snapshot",
        Action::Snapshot,
        "Capture the accessibility tree and issue @refs (positionals are ignored).",
    )
    .reader(ReaderRule::Snapshot)
    .flags(SNAPSHOT_FLAGS)
    .effect(Effect::Observes)
    .dispatch(Dispatch::Unread),
    CommandSpec::new(
        "diff",
        Action::Device,
        "Diff the accessibility snapshot against the previous one (`diff screenshot` is CLI-only).",
    )
    .signature("snapshot")
    .forms(&[Form {
        positionals: &[word("kind", &["snapshot"])],
    }])
    .effect(Effect::Observes)
    .cli_only(DIFF_CLI_ONLY),
    CommandSpec::new(
        "screenshot",
        Action::Screenshot,
        "Capture a screenshot of the app or web session.",
    )
    .signature("[path]")
    .reader(ReaderRule::Screenshot)
    .forms(&[Form {
        positionals: &[opt("path", ArgKind::ArtifactPath)],
    }])
    .flags(SCREENSHOT_FLAGS)
    .effect(Effect::Observes)
    .dispatch(Dispatch::Reader(Reader::Screenshot)),
    CommandSpec::new(
        "record",
        Action::Device,
        "Start or stop a screen recording.",
    )
    .signature("start [path] | stop")
    .reader(ReaderRule::Record)
    .forms(&[
        Form {
            positionals: &[
                word("action", &["start"]),
                opt("path", ArgKind::ArtifactPath),
            ],
        },
        Form {
            positionals: &[word("action", &["stop"])],
        },
    ])
    .flags(RECORD_FLAGS)
    .effect(Effect::Observes)
    .dispatch(Dispatch::Reader(Reader::Record)),
    CommandSpec::new(
        "trace",
        Action::Device,
        "Start or stop trace-log capture (use the same path for start and stop).",
    )
    .signature("start [path] | stop [path]")
    .forms(&[Form {
        positionals: &[
            word("action", &["start", "stop"]),
            opt("path", ArgKind::ArtifactPath),
        ],
    }])
    .effect(Effect::Observes)
    .words(Case::Insensitive),
    CommandSpec::new(
        "perf",
        Action::Device,
        "Collect frame health, memory diagnostics or CPU/trace profiles.",
    )
    .signature(
        "frames | memory sample|snapshot | cpu profile start|stop|report | trace \
         start|stop",
    )
    .forms(PERF_FORMS)
    .effect(Effect::Observes),
    // ---- Daemon-routed, never recorded ----------------------------------------------------------
    CommandSpec::not_recorded(
        "devices",
        "List available devices and simulators (not recorded).",
    ),
    CommandSpec::not_recorded(
        "capabilities",
        "List the commands the selected device or session supports (not recorded).",
    ),
    CommandSpec::not_recorded(
        "doctor",
        "Diagnose device, app, dev-server and RN/Expo readiness (not recorded).",
    ),
    CommandSpec::not_recorded(
        "apps",
        "List installed apps on the selected device (not recorded).",
    ),
    CommandSpec::not_recorded(
        "boot",
        "Boot the selected device or simulator (not recorded).",
    ),
    CommandSpec::not_recorded(
        "shutdown",
        "Shut down the selected simulator or emulator (not recorded).",
    ),
    CommandSpec::not_recorded(
        "appstate",
        "Show the foreground app and activity (not recorded).",
    ),
    CommandSpec::not_recorded(
        "logs",
        "Manage session app logs: path, start, stop, clear, doctor, mark (not recorded).",
    )
    .signature("path | start | stop | clear | doctor | mark [message…]")
    .forms(&[
        Form {
            positionals: &[word(
                "action",
                &["path", "start", "stop", "clear", "doctor"],
            )],
        },
        Form {
            positionals: &[
                word("action", &["mark"]),
                opt_rest("message", ArgKind::Text),
            ],
        },
    ]),
    CommandSpec::not_recorded("events", "Read the session event timeline (not recorded).")
        .signature("[limit] [cursor]")
        .forms(&[Form {
            positionals: &[opt("limit", POSITIVE_INT), opt("cursor", ArgKind::Any)],
        }]),
    CommandSpec::not_recorded(
        "network",
        "Inspect HTTP(S) traffic parsed from the session app log (not recorded).",
    )
    .signature("dump|log [limit] [summary|headers|body|all]")
    .forms(&[Form {
        positionals: &[
            word("action", &["dump", "log"]),
            opt("limit", POSITIVE_INT),
            opt("include", ArgKind::Enum(NETWORK_INCLUDE)),
        ],
    }]),
    CommandSpec::not_recorded(
        "audio",
        "Probe audio levels as dBFS buckets (not recorded).",
    )
    .signature("probe start [durationSeconds] [bucketMs] | probe status | probe stop")
    .forms(&[
        Form {
            positionals: &[
                word("object", &["probe"]),
                word("action", &["start"]),
                opt("durationSeconds", ArgKind::Number),
                opt("bucketMs", MS),
            ],
        },
        Form {
            positionals: &[
                word("object", &["probe"]),
                word("action", &["status", "stop"]),
            ],
        },
    ]),
    CommandSpec::not_recorded(
        "prepare",
        "Pre-warm platform helpers such as the iOS XCTest runner (not recorded).",
    )
    .signature("ios-runner")
    .forms(&[Form {
        positionals: &[word("helper", &["ios-runner"])],
    }]),
    CommandSpec::not_recorded(
        "test",
        "Run replay scripts as a serial test suite (not recorded; untested inside a \
         replay).",
    )
    .signature("<path-or-glob>…")
    .forms(&[Form {
        positionals: &[rest("paths", ArgKind::Path)],
    }]),
    CommandSpec::not_recorded(
        "batch",
        "Run several commands in one daemon request (steps come from --steps, which .ad \
         lines cannot carry; not recorded).",
    )
    .dispatch(Dispatch::NoScriptInput),
    CommandSpec::not_recorded(
        "artifacts",
        "List daemon or cloud provider session artifacts (not recorded).",
    )
    .signature("[provider-session-id]")
    .forms(&[Form {
        positionals: &[opt("providerSessionId", ArgKind::Text)],
    }]),
    CommandSpec::new(
        "replay",
        Action::Replay,
        "Replay another script: skipped by the replay step loop (never dispatched).",
    )
    .signature("<path> | export <file.ad>")
    .forms(&[
        Form {
            positionals: &[req("path", ArgKind::Path)],
        },
        Form {
            positionals: &[word("action", &["export"]), req("file", ArgKind::Path)],
        },
    ])
    .effect(Effect::Skipped),
    CommandSpec::new(
        "runtime",
        Action::Runtime,
        "Legacy .ad-only step that sets, shows or clears the session's Metro/runtime \
         hints.",
    )
    .signature("[set|show|clear|port-reverse|gesture-viewport]")
    .reader(ReaderRule::Runtime)
    .forms(&[Form {
        positionals: &[opt(
            "action",
            ArgKind::Enum(&["set", "show", "clear", "port-reverse", "gesture-viewport"]),
        )],
    }])
    .flags(RUNTIME_FLAGS)
    .effect(Effect::NotRecorded)
    .availability(Availability::Legacy)
    .words(Case::Insensitive),
    // ---- Client-only (no daemon route): unusable in scripts -------------------------------------
    CommandSpec::client_only("debug", "Symbolicate Apple crash artifacts (CLI only).")
        .signature("symbols")
        .forms(&[Form {
            positionals: &[word("action", &["symbols"])],
        }]),
    CommandSpec::client_only(
        "daemon",
        "Stop a local daemon and clean up its resources (CLI only).",
    )
    .signature("stop")
    .forms(&[Form {
        positionals: &[word("action", &["stop"])],
    }]),
    CommandSpec::client_only(
        "device",
        "Inspect or release host-local device ownership claims (CLI only).",
    )
    .signature("status|release")
    .forms(&[Form {
        positionals: &[word("action", &["status", "release"])],
    }]),
    CommandSpec::client_only(
        "metro",
        "Prepare the React Native dev server or reload apps (CLI only).",
    )
    .signature("prepare | reload")
    .forms(&[Form {
        positionals: &[word("action", &["prepare", "reload"])],
    }]),
    CommandSpec::client_only(
        "session",
        "List sessions, print the state dir or publish an armed script (CLI only).",
    )
    .signature("list | state-dir | save-script [path]")
    .forms(&[
        Form {
            positionals: &[word("action", &["list", "state-dir"])],
        },
        Form {
            positionals: &[word("action", &["save-script"]), opt("path", ArgKind::Path)],
        },
    ]),
    // Free-form: a deep tree of CDP subcommands.
    CommandSpec::client_only("cdp", "Inspect CDP targets, JS heap and leaks (CLI only).")
        .signature("<subcommand> …")
        .forms(&[]),
    CommandSpec::client_only("auth", "Manage cloud login state (CLI only).")
        .signature("status|login|logout")
        .forms(&[Form {
            positionals: &[word("action", &["status", "login", "logout"])],
        }]),
    CommandSpec::client_only(
        "connect",
        "Configure remote or cloud provider access (CLI only).",
    )
    .signature("[cloud|proxy|limrun|browserstack|aws-device-farm]")
    .forms(&[Form {
        positionals: &[opt(
            "provider",
            ArgKind::Enum(&[
                "cloud",
                "proxy",
                "limrun",
                "browserstack",
                "aws-device-farm",
            ]),
        )],
    }]),
    CommandSpec::client_only(
        "connection",
        "Inspect the saved remote connection (CLI only).",
    )
    .signature("status")
    .forms(&[Form {
        positionals: &[word("action", &["status"])],
    }]),
    CommandSpec::client_only(
        "disconnect",
        "Clear remote connection state and release leases (CLI only).",
    ),
    CommandSpec::client_only("mcp", "Start the stdio MCP server (CLI only)."),
    CommandSpec::client_only(
        "proxy",
        "Expose a local daemon through an HTTP tunnel (CLI only).",
    ),
    CommandSpec::client_only(
        "takeover",
        "Pause agent interactions while a person controls a remote device (CLI only).",
    )
    .signature("[status | release <hold-id>]")
    .forms(&[
        Form {
            positionals: &[opt("action", ArgKind::Enum(&["status"]))],
        },
        Form {
            positionals: &[word("action", &["release"]), req("holdId", ArgKind::Text)],
        },
    ]),
    // Free-form: a deep tree of React DevTools subcommands.
    CommandSpec::client_only(
        "react-devtools",
        "Inspect React components, hooks and render profiles (CLI only).",
    )
    .signature("<subcommand> …")
    .forms(&[]),
    CommandSpec::client_only(
        "web",
        "Set up or diagnose the web automation backend (CLI only).",
    )
    .signature("setup|doctor")
    .forms(&[Form {
        positionals: &[word("action", &["setup", "doctor"])],
    }]),
    // ---- Internal daemon requests (descriptor group "internal"; not CLI commands) ---------------
    // They have daemon routes, so a script step is dispatched, but their inputs are structured
    // request fields rather than positionals: free-form.
    CommandSpec::internal(
        "human_control",
        "Internal daemon request behind `takeover` (human-control holds); not meant for \
         scripts.",
    ),
    CommandSpec::internal(
        "lease_allocate",
        "Internal daemon request: allocate a remote device lease; not meant for scripts.",
    ),
    CommandSpec::internal(
        "lease_heartbeat",
        "Internal daemon request: renew a remote device lease; not meant for scripts.",
    ),
    CommandSpec::internal(
        "lease_release",
        "Internal daemon request: release a remote device lease; not meant for scripts.",
    ),
    CommandSpec::internal(
        "session_list",
        "Internal daemon request behind `session list`; not meant for scripts.",
    ),
    CommandSpec::internal(
        "session_save_script",
        "Internal daemon request behind `session save-script`; not meant for scripts.",
    ),
    CommandSpec::internal(
        "install_source",
        "Internal daemon request behind `install-from-source`; its source object cannot \
         be written in a .ad line.",
    )
    .effect(Effect::Mutates),
    CommandSpec::internal(
        "release_materialized_paths",
        "Internal daemon request: release retained install-from-source artifact paths; \
         not meant for scripts.",
    ),
    // ---- Script header --------------------------------------------------------------------------
    // Free-form `key=value` metadata, read by regex rather than as positionals (spec §4).
    CommandSpec::new(
        "context",
        Action::Context,
        "Script metadata header (platform, target, timeout, retries); never an action.",
    )
    .signature("platform=<p> [target=mobile|tv|desktop] [timeout=<ms>] [retries=<n>]")
    .reader(ReaderRule::Context)
    .forms(&[])
    .effect(Effect::NotRecorded)
    .dispatch(Dispatch::Unread),
    // ---- Retired words: parse, then fail at dispatch (earlier steps will have run) --------------
    // No positional grammar applies (`retired` declares no forms): every use is reported with its
    // migration.
    CommandSpec::retired(
        "scrollintoview",
        "Retired command: scroll an element into view.",
        "scrollintoview was removed: use `scroll <up|down|left|right> [amount]` \
         steps followed by a selector wait (`wait \"label=\\\"Item\\\"\" 5000`), or \
         `find <text> click` to locate and tap in one step",
    ),
    CommandSpec::retired(
        "fling",
        "Retired command: directional fling.",
        "fling was removed: use `gesture fling <up|down|left|right> <x> <y> \
         [distance]`",
    ),
    CommandSpec::retired(
        "pan",
        "Retired command: pan gesture.",
        "pan was removed: use `gesture pan <x> <y> <dx> <dy> [durationMs]` \
         (`--pointer-count 2` for a two-finger pan)",
    ),
    CommandSpec::retired(
        "pinch",
        "Retired command: pinch gesture.",
        "pinch was removed: use `gesture pinch <scale> [x] [y]`",
    ),
    CommandSpec::retired(
        "rotate-gesture",
        "Retired command: two-finger rotate gesture.",
        "rotate-gesture was removed: use `gesture rotate <degrees> [x] [y]`",
    ),
    CommandSpec::retired(
        "rotate",
        "Retired command: renamed to orientation.",
        "rotate was renamed to orientation (`orientation \
         <portrait|portrait-upside-down|landscape-left|landscape-right>`); for the \
         two-finger gesture use `gesture rotate <degrees> [x] [y]`",
    ),
    CommandSpec::retired(
        "metrics",
        "Retired command: aggregate perf metrics.",
        "Aggregate perf was removed: use `perf frames`, `perf memory sample`, \
         `perf cpu profile start|stop|report` or `perf trace start|stop`",
    ),
    // ---- CLI aliases: the CLI rewrites them, scripts do not (dispatch fails) --------------------
    // No positional grammar applies (`cli_alias` declares no forms): every use is reported with
    // its canonical word.
    // Canonical words are those of the 0.21.5 alias table (`cli-command-aliases.js`).
    CommandSpec::cli_alias(
        "tap",
        "press",
        "<x y | @ref [label] | selector>",
        "CLI alias of press; not applied in scripts.",
    ),
    CommandSpec::cli_alias(
        "long-press",
        "longpress",
        "<x y | @ref | selector> [durationMs]",
        "CLI alias of longpress; not applied in scripts.",
    ),
    CommandSpec::cli_alias(
        "launch",
        "open",
        "[appOrUrl] [url]",
        "CLI alias of open; not applied in scripts.",
    ),
    CommandSpec::cli_alias(
        "relaunch",
        "open",
        "[appOrUrl] [url]",
        "CLI alias of `open --relaunch`; not applied in scripts.",
    ),
];
