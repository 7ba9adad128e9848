use super::*;
use std::collections::HashSet;

/// Every descriptor name of agent-device 0.21.5, in registry order, with its recording effect
/// (`M` = `mutates-app`, `O` = `observes-app`, `fn` = computed from the request, `-` = none)
/// and its `targetIdentityVerification` phase (`-` = none).
///
/// Dumped from the shipped package with
/// `node -e 'import(".../agent-device/dist/src/sdk-batch.js").then(m => …m.d…)'`
/// (export `d` of `sdk-batch.js`: an array of 78 descriptor objects).
const DESCRIPTORS: &[(&str, &str, &str)] = &[
    ("human_control", "-", "-"),
    ("lease_allocate", "-", "-"),
    ("lease_heartbeat", "-", "-"),
    ("lease_release", "-", "-"),
    ("artifacts", "-", "-"),
    ("session_list", "-", "-"),
    ("session_save_script", "-", "-"),
    ("devices", "-", "-"),
    ("capabilities", "-", "-"),
    ("doctor", "-", "-"),
    ("apps", "-", "-"),
    ("boot", "-", "-"),
    ("shutdown", "-", "-"),
    ("appstate", "-", "-"),
    ("perf", "O", "-"),
    ("logs", "-", "-"),
    ("events", "-", "-"),
    ("network", "-", "-"),
    ("audio", "-", "-"),
    ("replay", "-", "-"),
    ("test", "-", "-"),
    ("runtime", "-", "-"),
    ("clipboard", "fn", "-"),
    ("keyboard", "fn", "-"),
    ("install", "M", "-"),
    ("reinstall", "M", "-"),
    ("install_source", "M", "-"),
    ("release_materialized_paths", "-", "-"),
    ("push", "M", "-"),
    ("trigger-app-event", "M", "-"),
    ("open", "M", "-"),
    ("prepare", "-", "-"),
    ("batch", "-", "-"),
    ("close", "M", "-"),
    ("snapshot", "O", "-"),
    ("diff", "O", "-"),
    ("wait", "O", "post-resolution"),
    ("alert", "fn", "-"),
    ("settings", "M", "-"),
    ("react-native", "M", "-"),
    ("record", "O", "-"),
    ("trace", "O", "-"),
    ("find", "fn", "-"),
    ("click", "M", "pre-dispatch"),
    ("fill", "M", "pre-dispatch"),
    ("longpress", "M", "pre-dispatch"),
    ("hover", "M", "pre-dispatch"),
    ("press", "M", "pre-dispatch"),
    ("type", "M", "-"),
    ("get", "O", "pre-dispatch"),
    ("is", "O", "pre-dispatch"),
    ("back", "M", "-"),
    ("gesture", "M", "pre-dispatch"),
    ("home", "M", "-"),
    ("tv-remote", "M", "-"),
    ("orientation", "M", "-"),
    ("scroll", "M", "-"),
    ("swipe", "M", "-"),
    ("focus", "M", "-"),
    ("screenshot", "O", "-"),
    ("viewport", "M", "-"),
    ("app-switcher", "M", "-"),
    ("install-from-source", "M", "-"),
    ("debug", "-", "-"),
    ("daemon", "-", "-"),
    ("device", "-", "-"),
    ("metro", "-", "-"),
    ("session", "-", "-"),
    ("cdp", "-", "-"),
    ("auth", "-", "-"),
    ("connect", "-", "-"),
    ("connection", "-", "-"),
    ("disconnect", "-", "-"),
    ("mcp", "-", "-"),
    ("proxy", "-", "-"),
    ("takeover", "-", "-"),
    ("react-devtools", "-", "-"),
    ("web", "-", "-"),
];

/// Descriptors in the "local-cli" catalogue group (no daemon route), plus `install-from-source`
/// whose descriptor declares no daemon route either.
const CLIENT_ONLY: &[&str] = &[
    "debug",
    "daemon",
    "device",
    "metro",
    "session",
    "cdp",
    "auth",
    "connect",
    "connection",
    "disconnect",
    "mcp",
    "proxy",
    "takeover",
    "react-devtools",
    "web",
    "install-from-source",
];

fn spec(name: &str) -> &'static CommandSpec {
    lookup(name).unwrap_or_else(|| panic!("`{name}` missing from the registry"))
}

fn pos(words: &[&str]) -> Vec<String> {
    words.iter().map(|w| w.to_string()).collect()
}

fn flag_keys(name: &str) -> Vec<&'static str> {
    spec(name).flags.iter().map(|f| f.key).collect()
}

#[test]
fn names_are_unique() {
    let mut seen = HashSet::new();
    for c in COMMANDS {
        assert!(seen.insert(c.name), "duplicate command `{}`", c.name);
    }
}

#[test]
fn descriptor_dump_is_complete() {
    assert_eq!(DESCRIPTORS.len(), 78);
    for (name, _, _) in DESCRIPTORS {
        assert!(
            lookup(name).is_some(),
            "descriptor `{name}` missing from the registry"
        );
    }
    // Everything else in the table is an `.ad` header, a retired word or a CLI alias.
    for c in COMMANDS {
        if DESCRIPTORS.iter().any(|(n, _, _)| *n == c.name) {
            continue;
        }
        assert!(
            matches!(
                c.availability,
                Availability::Retired { .. } | Availability::CliAlias { .. }
            ) || c.reader == ReaderRule::Context,
            "`{}` is neither a descriptor nor a retired word, alias or header",
            c.name
        );
    }
}

#[test]
fn effects_follow_the_descriptors() {
    for (name, effect, _) in DESCRIPTORS {
        let c = spec(name);
        match *effect {
            "M" => assert_eq!(c.effect, Effect::Mutates, "{name}"),
            "O" => assert_eq!(c.effect, Effect::Observes, "{name}"),
            "fn" => assert!(
                matches!(c.effect, Effect::BySubcommand { .. } | Effect::FindAction),
                "{name} should be request-sensitive"
            ),
            _ if *name == "replay" => assert_eq!(c.effect, Effect::Skipped),
            _ => assert_eq!(c.effect, Effect::NotRecorded, "{name}"),
        }
    }
    assert!(matches!(spec("find").effect, Effect::FindAction));
}

#[test]
fn verification_follows_the_descriptors() {
    for (name, _, tiv) in DESCRIPTORS {
        let expected = match *tiv {
            "pre-dispatch" if *name == "gesture" => Verification::DragEndpoints,
            "pre-dispatch" => Verification::PreDispatch,
            "post-resolution" => Verification::PostResolution,
            _ => Verification::None,
        };
        assert_eq!(spec(name).verification, expected, "{name}");
    }
    for c in COMMANDS {
        if !DESCRIPTORS.iter().any(|(n, _, _)| *n == c.name) {
            assert_eq!(c.verification, Verification::None, "{}", c.name);
        }
    }
}

#[test]
fn targeting_matches_spec() {
    let expected: &[(&str, Targeting, Verification)] = &[
        ("click", Targeting::Element, Verification::PreDispatch),
        ("press", Targeting::Element, Verification::PreDispatch),
        ("longpress", Targeting::Element, Verification::PreDispatch),
        ("hover", Targeting::Element, Verification::PreDispatch),
        ("fill", Targeting::Element, Verification::PreDispatch),
        (
            "get",
            Targeting::ElementAfterSubcommand,
            Verification::PreDispatch,
        ),
        ("is", Targeting::Predicate, Verification::PreDispatch),
        ("wait", Targeting::WaitTarget, Verification::PostResolution),
        (
            "gesture",
            Targeting::DragEndpoints,
            Verification::DragEndpoints,
        ),
        ("find", Targeting::Locator, Verification::None),
    ];
    for (name, targeting, verification) in expected {
        let c = spec(name);
        assert_eq!(c.targeting, *targeting, "{name}");
        assert_eq!(c.verification, *verification, "{name}");
    }
    for c in COMMANDS {
        if !expected.iter().any(|(n, _, _)| *n == c.name) {
            assert_eq!(c.targeting, Targeting::None, "{}", c.name);
        }
    }
}

#[test]
fn lookup_is_exact_and_case_sensitive() {
    assert_eq!(lookup("click").map(|c| c.name), Some("click"));
    assert_eq!(lookup("tv-remote").map(|c| c.name), Some("tv-remote"));
    assert!(lookup("Click").is_none());
    assert!(lookup("click ").is_none());
    assert!(lookup("fragment-v1").is_none());
    assert!(lookup("").is_none());
    for c in COMMANDS {
        assert!(std::ptr::eq(lookup(c.name).unwrap(), c), "{}", c.name);
        // `CommandSpec::flag` relies on it.
        for f in c.flags {
            assert!(f.name.starts_with('-'), "{}", f.name);
            assert!(f.aliases.iter().all(|a| a.starts_with('-')), "{}", f.name);
        }
    }
}

#[test]
fn effect_for_is_request_sensitive() {
    let keyboard = spec("keyboard");
    assert_eq!(keyboard.effect_for(&pos(&["status"])), Effect::Observes);
    assert_eq!(keyboard.effect_for(&pos(&["get"])), Effect::Observes);
    assert_eq!(keyboard.effect_for(&pos(&["dismiss"])), Effect::Mutates);
    assert_eq!(keyboard.effect_for(&pos(&["enter"])), Effect::Mutates);
    assert_eq!(keyboard.effect_for(&[] as &[&str]), Effect::Observes);

    let alert = spec("alert");
    assert_eq!(alert.effect_for(&pos(&["accept"])), Effect::Mutates);
    assert_eq!(alert.effect_for(&pos(&["dismiss"])), Effect::Mutates);
    assert_eq!(alert.effect_for(&pos(&["get"])), Effect::Observes);
    assert_eq!(alert.effect_for(&pos(&["wait", "5000"])), Effect::Observes);
    assert_eq!(alert.effect_for(&[] as &[&str]), Effect::Observes);

    let clipboard = spec("clipboard");
    assert_eq!(clipboard.effect_for(&pos(&["read"])), Effect::Observes);
    assert_eq!(
        clipboard.effect_for(&pos(&["write", "hello"])),
        Effect::Mutates
    );
    // The shipped function defaults to "" for a missing subcommand, which mutates.
    assert_eq!(clipboard.effect_for(&[] as &[&str]), Effect::Mutates);

    let find = spec("find");
    assert_eq!(
        find.effect_for(&pos(&["Sign in", "exists"])),
        Effect::Observes
    );
    assert_eq!(
        find.effect_for(&pos(&["text", "Sign in", "exists"])),
        Effect::Observes
    );
    assert_eq!(
        find.effect_for(&pos(&["id", "submit", "wait", "3000"])),
        Effect::Observes
    );
    assert_eq!(
        find.effect_for(&pos(&["Total", "get", "text"])),
        Effect::Observes
    );
    assert_eq!(
        find.effect_for(&pos(&["role", "button", "list"])),
        Effect::Observes
    );
    assert_eq!(
        find.effect_for(&pos(&["Sign in", "click"])),
        Effect::Mutates
    );
    assert_eq!(
        find.effect_for(&pos(&["label", "Email", "fill", "a@b.c"])),
        Effect::Mutates
    );
    // Default action is click.
    assert_eq!(find.effect_for(&pos(&["text", "Sign in"])), Effect::Mutates);
    assert_eq!(find.effect_for(&pos(&["Sign in"])), Effect::Mutates);

    assert_eq!(spec("click").effect_for(&pos(&["id=x"])), Effect::Mutates);
    assert_eq!(spec("wait").effect_for(&pos(&["500"])), Effect::Observes);
    assert_eq!(spec("replay").effect_for(&pos(&["a.ad"])), Effect::Skipped);
    assert_eq!(
        spec("devices").effect_for(&[] as &[&str]),
        Effect::NotRecorded
    );
}

#[test]
fn subcommand_effect_words_are_declared_in_forms() {
    for c in COMMANDS {
        let Effect::BySubcommand { observing, .. } = c.effect else {
            continue;
        };
        for word in observing {
            let declared = c.forms.iter().any(|f| match f.positionals.first() {
                Some(Positional {
                    kind: ArgKind::Enum(words),
                    ..
                }) => words.contains(word),
                _ => false,
            });
            assert!(
                declared,
                "{}: observing word `{word}` not in any form",
                c.name
            );
        }
    }
}

#[test]
fn flags_are_found_by_name_and_alias() {
    let snapshot = spec("snapshot");
    assert_eq!(snapshot.flag("-d").map(|f| f.key), Some("snapshotDepth"));
    assert_eq!(
        snapshot.flag("--depth").map(|f| f.key),
        Some("snapshotDepth")
    );
    assert_eq!(snapshot.flag("-s").map(|f| f.key), Some("snapshotScope"));
    assert_eq!(
        snapshot.flag("-i").map(|f| f.key),
        Some("snapshotInteractiveOnly")
    );
    assert_eq!(
        snapshot.flag("--force-full").map(|f| f.key),
        Some("snapshotForceFull")
    );
    assert!(snapshot.flag("-x").is_none());

    let screenshot = spec("screenshot");
    for token in ["--fullscreen", "--full", "-f"] {
        assert_eq!(
            screenshot.flag(token).map(|f| f.key),
            Some("screenshotFullscreen")
        );
    }
    assert_eq!(
        screenshot.flag("--scale").map(|f| f.value),
        Some(FlagValue::Number {
            min: 0.01,
            max: 1.0
        })
    );
    assert!(screenshot.flag("--out").is_none());
    assert!(screenshot.flag("--max-size").is_none());

    let open = spec("open");
    assert_eq!(
        open.flag("--no-test-ime").map(|f| f.value),
        Some(FlagValue::Switch(false))
    );
    assert_eq!(
        open.flag("--test-ime").map(|f| f.value),
        Some(FlagValue::Switch(true))
    );
    assert_eq!(open.flag("--metro-port").map(|f| f.key), Some("metroPort"));
    assert!(open.flag("--activity").is_none());
    assert!(open.flag("--save-script").is_none());

    // Flags of other commands are not understood in `.ad` lines.
    assert!(spec("scroll").flag("--pixels").is_none());
    assert!(spec("click").flag("--settle").is_none());
    assert!(spec("click").flag("-d").is_none());
}

#[test]
fn reader_flag_keys() {
    let click = [
        "count",
        "intervalMs",
        "holdMs",
        "jitterPx",
        "doubleTap",
        "clickButton",
    ];
    assert_eq!(flag_keys("click"), click);
    assert_eq!(flag_keys("press"), click);
    assert_eq!(flag_keys("fill"), ["delayMs"]);
    assert_eq!(flag_keys("type"), ["delayMs"]);
    assert_eq!(flag_keys("swipe"), ["count", "pauseMs", "pattern"]);
    assert_eq!(flag_keys("gesture"), ["pointerCount"]);
    assert_eq!(
        flag_keys("open"),
        [
            "relaunch",
            "testIme",
            "testIme",
            "platform",
            "metroHost",
            "metroPort",
            "bundleUrl",
            "launchUrl"
        ]
    );
    assert_eq!(
        flag_keys("runtime"),
        [
            "platform",
            "metroHost",
            "metroPort",
            "bundleUrl",
            "launchUrl"
        ]
    );
    assert_eq!(flag_keys("record"), ["fps", "quality", "hideTouches"]);

    // Every ClickLike / Fill / SeriesFlags command uses only those keys.
    let allowed: HashSet<&str> = click
        .iter()
        .copied()
        .chain(["delayMs", "pauseMs", "pattern", "pointerCount"])
        .collect();
    for c in COMMANDS {
        if matches!(
            c.reader,
            ReaderRule::ClickLike | ReaderRule::Fill | ReaderRule::SeriesFlags
        ) {
            assert!(!c.flags.is_empty(), "{}", c.name);
            for f in c.flags {
                assert!(
                    allowed.contains(f.key),
                    "{}: unexpected key {}",
                    c.name,
                    f.key
                );
            }
        }
    }
}

#[test]
fn declared_flag_ranges() {
    let expect = |cmd: &str, flag: &str, value: FlagValue| {
        assert_eq!(
            spec(cmd).flag(flag).map(|f| f.value),
            Some(value),
            "{cmd} {flag}"
        );
    };
    expect("click", "--count", FlagValue::Integer { min: 1, max: 200 });
    expect("swipe", "--count", FlagValue::Integer { min: 1, max: 200 });
    expect(
        "press",
        "--interval-ms",
        FlagValue::Integer {
            min: 0,
            max: 10_000,
        },
    );
    expect(
        "press",
        "--hold-ms",
        FlagValue::Integer {
            min: 0,
            max: 10_000,
        },
    );
    expect(
        "swipe",
        "--pause-ms",
        FlagValue::Integer {
            min: 0,
            max: 10_000,
        },
    );
    expect(
        "type",
        "--delay-ms",
        FlagValue::Integer {
            min: 0,
            max: 10_000,
        },
    );
    expect(
        "click",
        "--jitter-px",
        FlagValue::Integer { min: 0, max: 100 },
    );
    expect(
        "gesture",
        "--pointer-count",
        FlagValue::Integer { min: 1, max: 2 },
    );
    expect("record", "--fps", FlagValue::Integer { min: 1, max: 120 });
    expect(
        "open",
        "--metro-port",
        FlagValue::Integer {
            min: 1,
            max: 65_535,
        },
    );
    expect(
        "runtime",
        "--metro-port",
        FlagValue::Integer {
            min: 1,
            max: 65_535,
        },
    );
    expect(
        "snapshot",
        "-d",
        FlagValue::Integer {
            min: 0,
            max: i64::MAX,
        },
    );
    expect(
        "screenshot",
        "--pixel-density",
        FlagValue::Integer {
            min: 1,
            max: i64::MAX,
        },
    );
    expect("click", "--double-tap", FlagValue::Switch(true));
    expect(
        "click",
        "--button",
        FlagValue::Enum(&["primary", "secondary", "middle"]),
    );
    expect(
        "swipe",
        "--pattern",
        FlagValue::Enum(&["one-way", "ping-pong"]),
    );
    expect("record", "--quality", FlagValue::Enum(&["medium", "high"]));
    expect(
        "open",
        "--platform",
        FlagValue::Enum(&["ios", "android", "harmonyos"]),
    );
}

#[test]
fn flag_spellings_are_unique_per_command() {
    for c in COMMANDS {
        let mut seen = HashSet::new();
        for f in c.flags {
            assert!(!f.doc.is_empty(), "{} {}", c.name, f.name);
            assert!(!f.key.is_empty(), "{} {}", c.name, f.name);
            for token in std::iter::once(&f.name).chain(f.aliases) {
                assert!(token.starts_with('-'), "{} {token}", c.name);
                assert!(seen.insert(*token), "{}: `{token}` declared twice", c.name);
            }
        }
    }
}

#[test]
fn reader_rules_match_spec() {
    let expected: &[(&str, ReaderRule)] = &[
        ("context", ReaderRule::Context),
        ("snapshot", ReaderRule::Snapshot),
        ("open", ReaderRule::Open),
        ("runtime", ReaderRule::Runtime),
        ("click", ReaderRule::ClickLike),
        ("press", ReaderRule::ClickLike),
        ("fill", ReaderRule::Fill),
        ("get", ReaderRule::Get),
        ("swipe", ReaderRule::SeriesFlags),
        ("type", ReaderRule::SeriesFlags),
        ("gesture", ReaderRule::SeriesFlags),
        ("record", ReaderRule::Record),
        ("screenshot", ReaderRule::Screenshot),
        ("wait", ReaderRule::StripPins),
        ("longpress", ReaderRule::StripPins),
        ("hover", ReaderRule::StripPins),
    ];
    for c in COMMANDS {
        let rule = expected
            .iter()
            .find(|(n, _)| *n == c.name)
            .map_or(ReaderRule::Verbatim, |(_, r)| *r);
        assert_eq!(c.reader, rule, "{}", c.name);
        if matches!(
            c.reader,
            ReaderRule::Verbatim | ReaderRule::StripPins | ReaderRule::Get | ReaderRule::Context
        ) {
            assert!(c.flags.is_empty(), "{} parses no flags", c.name);
        }
    }
}

#[test]
fn availability() {
    for name in CLIENT_ONLY {
        assert_eq!(spec(name).availability, Availability::ClientOnly, "{name}");
        assert!(!spec(name).is_usable_in_scripts());
    }
    assert_eq!(spec("runtime").availability, Availability::Legacy);
    assert!(spec("runtime").is_usable_in_scripts());
    for name in [
        "open", "click", "wait", "replay", "devices", "appstate", "batch", "test",
    ] {
        assert_eq!(spec(name).availability, Availability::Script, "{name}");
    }

    let retired = [
        "scrollintoview",
        "fling",
        "pan",
        "pinch",
        "rotate-gesture",
        "rotate",
        "metrics",
    ];
    for name in retired {
        let c = spec(name);
        let Availability::Retired { migration } = c.availability else {
            panic!("{name} should be retired");
        };
        assert!(!c.is_usable_in_scripts());
        assert!(
            migration.contains('`'),
            "{name}: migration should name the replacement"
        );
    }
    for name in ["fling", "pan", "pinch", "rotate-gesture"] {
        let Availability::Retired { migration } = spec(name).availability else {
            unreachable!()
        };
        assert!(migration.contains("gesture "), "{name}");
    }

    let aliases = [
        ("tap", "press"),
        ("long-press", "longpress"),
        ("launch", "open"),
        ("relaunch", "open"),
    ];
    for (alias, canonical) in aliases {
        let c = spec(alias);
        assert_eq!(
            c.availability,
            Availability::CliAlias { canonical },
            "{alias}"
        );
        assert!(!c.is_usable_in_scripts());
        assert!(spec(canonical).is_usable_in_scripts());
        assert_eq!(c.effect, Effect::NotRecorded);
    }
}

#[test]
fn docs_are_present() {
    for c in COMMANDS {
        assert!(!c.summary.is_empty(), "{}", c.name);
        assert!(!c.summary.contains('\n'), "{}: one line", c.name);
        assert!(!c.signature.contains('\n'), "{}: one line", c.name);
        assert!(
            !c.signature.contains("  "),
            "{}: stray spaces in signature",
            c.name
        );
        // An empty signature means exactly "takes no positionals".
        let no_args = c.forms.len() == 1 && c.forms[0].positionals.is_empty();
        assert_eq!(c.signature.is_empty(), no_args, "{}", c.name);
    }
}

#[test]
fn forms_are_well_formed() {
    // Commands whose arguments are genuinely free-form (documented in commands.rs).
    let free_form = [
        "context",
        "cdp",
        "react-devtools",
        "human_control",
        "lease_allocate",
        "lease_heartbeat",
        "lease_release",
        "session_list",
        "session_save_script",
        "install_source",
        "release_materialized_paths",
    ];
    for c in COMMANDS {
        let never_dispatched = matches!(
            c.availability,
            Availability::Retired { .. } | Availability::CliAlias { .. }
        );
        if never_dispatched || free_form.contains(&c.name) {
            assert!(c.forms.is_empty(), "{}", c.name);
            continue;
        }
        assert!(!c.forms.is_empty(), "{} needs forms", c.name);
        for form in c.forms {
            let n = form.positionals.len();
            let mut seen_optional = false;
            for (i, p) in form.positionals.iter().enumerate() {
                assert!(!p.name.is_empty(), "{}", c.name);
                assert!(
                    !p.variadic || i + 1 == n,
                    "{}: variadic `{}` not last",
                    c.name,
                    p.name
                );
                assert!(
                    p.optional || !seen_optional,
                    "{}: required `{}` after an optional",
                    c.name,
                    p.name
                );
                seen_optional |= p.optional;
                if let ArgKind::Enum(words) = p.kind {
                    assert!(!words.is_empty(), "{}", c.name);
                }
                if let ArgKind::Integer { min, max } = p.kind {
                    assert!(min <= max, "{}", c.name);
                }
            }
        }
    }
}

#[test]
fn key_forms() {
    // click: x y | @ref [label] | selector
    let click = spec("click").forms;
    assert_eq!(click.len(), 3);
    assert_eq!(click[0].positionals[0].kind, ArgKind::Coordinate);
    assert_eq!(click[1].positionals[0].kind, ArgKind::Ref);
    assert!(click[1].positionals[1].optional);
    assert!(click[2].positionals[0].variadic);
    assert_eq!(click[2].positionals[0].kind, ArgKind::Selector);

    let scroll = &spec("scroll").forms[0].positionals;
    assert_eq!(
        scroll[0].kind,
        ArgKind::Enum(&["up", "down", "left", "right", "top", "bottom"])
    );
    assert!(scroll[1].optional);

    let keyboard = &spec("keyboard").forms[0].positionals;
    assert_eq!(
        keyboard[0].kind,
        ArgKind::Enum(&["status", "get", "dismiss", "enter", "return"])
    );
    assert!(keyboard[0].optional);

    let alert = &spec("alert").forms[0].positionals;
    assert_eq!(alert[1].kind, ArgKind::DurationMs);

    // gesture: one form per kind, the kind word first.
    let kinds: Vec<&str> = spec("gesture")
        .forms
        .iter()
        .map(|f| match f.positionals[0].kind {
            ArgKind::Enum([kind]) => *kind,
            other => panic!("unexpected gesture kind {other:?}"),
        })
        .collect();
    assert_eq!(
        kinds,
        [
            "pan",
            "fling",
            "swipe",
            "pinch",
            "rotate",
            "transform",
            "drag"
        ]
    );

    // wait starts with a duration form.
    assert_eq!(
        spec("wait").forms[0].positionals[0].kind,
        ArgKind::DurationMs
    );
    // snapshot drops every positional.
    assert!(spec("snapshot").forms[0].positionals.is_empty());
    // find's locator words are the registry's.
    assert_eq!(
        spec("find").forms[0].positionals[0].kind,
        ArgKind::Enum(FIND_LOCATORS)
    );
}

/// The daemon's generic route executes only these (0.21.5 `internal/daemon.js`): every other
/// command routed there is refused ("… has no runtime execution on the generic route").
const GENERIC_ROUTE: &[&str] = &[
    "screenshot",
    "focus",
    "scroll",
    "viewport",
    "back",
    "home",
    "app-switcher",
    "orientation",
    "tv-remote",
];

#[test]
fn dispatch_follows_availability() {
    for c in COMMANDS {
        let unrouted = matches!(c.dispatch, Dispatch::Unrouted);
        assert_eq!(
            unrouted,
            !c.is_usable_in_scripts(),
            "{}: only commands a script cannot use are unrouted",
            c.name
        );
    }
    for name in GENERIC_ROUTE {
        assert!(spec(name).is_usable_in_scripts(), "{name}");
    }
    // Unread positionals: the daemon never refuses them, so they have no form to fit.
    for name in ["back", "home", "app-switcher", "snapshot"] {
        assert!(matches!(spec(name).dispatch, Dispatch::Unread), "{name}");
    }
    assert!(matches!(spec("batch").dispatch, Dispatch::NoScriptInput));
    assert!(matches!(spec("alert").dispatch, Dispatch::Lenient));
}

#[test]
fn cli_only_forms_never_shadow_a_script_form() {
    for c in COMMANDS {
        let Dispatch::Forms { cli_only, .. } = c.dispatch else {
            continue;
        };
        for f in cli_only {
            let first = f
                .form
                .positionals
                .first()
                .expect("a CLI-only form has a first word");
            let ArgKind::Enum(words) = first.kind else {
                panic!("{}: a CLI-only form starts with its word", c.name);
            };
            for form in c.forms {
                if let Some(ArgKind::Enum(script)) = form.positionals.first().map(|p| p.kind) {
                    assert!(
                        words.iter().all(|w| !script.contains(w)),
                        "{}: `{words:?}` is both a script and a CLI-only word",
                        c.name
                    );
                }
            }
            for d in f.drop {
                assert!(
                    words.contains(d),
                    "{}: drops `{d}`, not a first word",
                    c.name
                );
            }
        }
    }
}

/// Every value of every entry, one entry a line: the table may change how it is written, but
/// a change to what it says must show up here as a snapshot diff.
#[test]
fn table_fingerprint() {
    let dump: String = COMMANDS.iter().map(|c| format!("{c:?}\n")).collect();
    insta::assert_snapshot!(dump);
}

#[test]
fn find_is_read_once() {
    fn call(
        p: &[&'static str],
    ) -> (
        Option<&'static str>,
        Option<&'static str>,
        Option<String>,
        bool,
        bool,
    ) {
        let c = FindCall::parse(p);
        (
            c.locator.copied(),
            c.query().copied(),
            c.action(),
            c.observes(),
            matches!(
                step_action(Action::Find, |i| p.get(i).copied()),
                StepAction::Find(FindAction::Fill | FindAction::Type)
            ),
        )
    }
    assert_eq!(
        call(&["label", "Email", "fill", "a@b"]),
        (
            Some("label"),
            Some("Email"),
            Some("fill".into()),
            false,
            true
        )
    );
    // A locator word alone is the query.
    assert_eq!(call(&["label"]), (None, Some("label"), None, false, false));
    assert_eq!(
        call(&["Save", "GET", "text"]),
        (None, Some("Save"), Some("get".into()), true, false)
    );
    assert!(!call(&["Save", "get", "bounds"]).3);
    // The default action clicks.
    assert!(!call(&["role", "button"]).3);
    // A word `fill` as the query is not the action.
    assert!(!call(&["text", "fill"]).4);
}
