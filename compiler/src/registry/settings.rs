//! The setting names `settings` applies on each platform: what each platform backend of
//! agent-device 0.21.5 accepts before it touches the device (past it, `Unsupported setting: …`;
//! the daemon lowercases the name first). One table, read by the dispatch rules: a name no
//! platform applies is refused at dispatch (AD117), one the script's `context platform=` does
//! not apply is platform-dependent (AD128). `tests/tests/dispatch.rs` holds it to the table
//! `oracle/dispatch.mjs` reads out of the pinned package's handlers.

/// Each platform (as `context platform=` names it) and the setting names its backend applies.
/// iOS applies them on simulators only (a physical device refuses every setting); Linux and
/// Vega sessions have no settings at all.
pub const SETTINGS_BY_PLATFORM: &[(&str, &[&str])] = &[
    (
        "android",
        &[
            "wifi",
            "airplane",
            "location",
            "animations",
            "appearance",
            "clear-app-state",
            "fingerprint",
            "permission",
        ],
    ),
    (
        "ios",
        &[
            "clear-app-state",
            "reset-keychain",
            "wifi",
            "airplane",
            "location",
            "faceid",
            "touchid",
            "appearance",
            "permission",
        ],
    ),
    ("macos", &["appearance", "permission"]),
    ("harmonyos", &["clear-app-state"]),
    ("linux", &[]),
    ("vega", &[]),
];

/// The platforms a `context platform=` value selects: `apple` is iOS and macOS.
pub fn platforms_selected(context_platform: &str) -> Vec<&'static str> {
    if context_platform == "apple" {
        return vec!["ios", "macos"];
    }
    SETTINGS_BY_PLATFORM
        .iter()
        .map(|(p, _)| *p)
        .filter(|p| *p == context_platform)
        .collect()
}

/// Every name some platform applies, in the table's order, each once.
pub fn setting_names() -> &'static [&'static str] {
    static NAMES: std::sync::OnceLock<Vec<&'static str>> = std::sync::OnceLock::new();
    NAMES.get_or_init(|| {
        let mut names: Vec<&'static str> = Vec::new();
        for (_, ns) in SETTINGS_BY_PLATFORM {
            for n in *ns {
                if !names.contains(n) {
                    names.push(n);
                }
            }
        }
        names
    })
}

/// The platforms whose backend applies the setting `name` (any case), in the table's order.
pub fn platforms_applying(name: &str) -> Vec<&'static str> {
    SETTINGS_BY_PLATFORM
        .iter()
        .filter(|(_, ns)| ns.iter().any(|n| n.eq_ignore_ascii_case(name)))
        .map(|(p, _)| *p)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_context_platform_is_in_the_table_or_selects_some() {
        for p in ad_grammar::metadata::CONTEXT_PLATFORMS {
            assert!(!platforms_selected(p).is_empty(), "{p}");
        }
    }

    #[test]
    fn the_settings_forms_name_only_settings_some_platform_applies() {
        use super::super::{ArgKind, Dispatch, Reader, COMMANDS};
        let spec = COMMANDS
            .iter()
            .find(|c| matches!(c.dispatch, Dispatch::Reader(Reader::Settings)))
            .expect("the settings command");
        let mut seen = 0;
        for form in spec.forms {
            if let Some(ArgKind::Enum(words)) = form.positionals.first().map(|p| p.kind) {
                for w in words {
                    seen += 1;
                    assert!(setting_names().contains(w), "{w}");
                }
            }
        }
        assert!(seen > 5, "the forms name the settings ({seen})");
    }
}
