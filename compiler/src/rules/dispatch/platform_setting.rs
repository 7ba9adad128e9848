//! AD128: a `settings` name that some platforms apply but the script's `context platform=` does
//! not: its backend refuses the step (`Unsupported setting: …`) on that platform. The names per
//! platform are the registry's table (`registry::settings`); a name no platform applies is a
//! refusal (`readers/device.rs`), not this.

use ad_grammar::Diagnostic;

use crate::codes;
use crate::lower::Step;
use crate::registry::settings::{platforms_applying, platforms_selected};
use crate::registry::{Dispatch, Reader};
use crate::rules::Context;

pub(super) fn check(cx: &Context, step: &Step, out: &mut Vec<Diagnostic>) {
    let is_settings = step
        .spec()
        .is_some_and(|s| matches!(s.dispatch, Dispatch::Reader(Reader::Settings)));
    let Some(platform) = cx.parse.metadata.platform.as_ref() else {
        return;
    };
    let Some(arg) = step.positionals.first().filter(|_| is_settings) else {
        return;
    };
    let name = arg.value.as_str();
    if name.contains("${") {
        // Its value, and so the platforms that apply it, are known only at run time.
        return;
    }
    let applying = platforms_applying(name);
    if applying.is_empty() {
        return;
    }
    let refusing: Vec<&str> = platforms_selected(&platform.value)
        .into_iter()
        .filter(|p| !applying.contains(p))
        .collect();
    if refusing.is_empty() {
        return;
    }
    let name = name.to_lowercase();
    out.push(
        Diagnostic::new(
            codes::SETTING_NOT_ON_PLATFORM,
            format!(
                "`settings {name}` is applied only on {}",
                applying.join(", ")
            ),
            step.arg_span(cx.file(), arg),
        )
        .with_label(if refusing.len() == 1 {
            format!("agent-device's {} backend refuses it", refusing[0])
        } else {
            format!(
                "agent-device's {} backends refuse it",
                refusing.join(" and ")
            )
        })
        .with_help(format!(
            "this script says `context platform={}`: run this step on {}, or leave it out",
            platform.value,
            applying.join(" or ")
        )),
    );
}

#[cfg(test)]
mod tests {
    use crate::codes::{Code, SETTING_NOT_ON_PLATFORM, WRONG_TYPE};

    fn codes(text: &str) -> Vec<Code> {
        crate::analyze(text)
            .diagnostics
            .iter()
            .map(|d| d.code)
            .collect()
    }

    #[test]
    fn warns_only_where_the_context_platform_refuses_the_name() {
        let warned = |text: &str| codes(text).contains(&SETTING_NOT_ON_PLATFORM);
        assert!(!warned("context platform=ios\nsettings faceid match\n"));
        assert!(!warned("context platform=android\nsettings WiFi on\n"));
        assert!(warned("context platform=android\nsettings faceid match\n"));
        assert!(warned(
            "context platform=apple\nsettings fingerprint match\n"
        ));
        assert!(warned("context platform=macos\nsettings wifi on\n"));
        assert!(warned("context platform=linux\nsettings appearance dark\n"));
        assert!(warned(
            "context platform=harmonyos\nsettings appearance dark\n"
        ));
        // No platform in the script, or a name known only at run time: nothing to say.
        assert!(!warned("settings faceid match\n"));
        assert!(!warned("context platform=macos\nsettings ${S} dark\n"));
        // A name no platform applies is refused (AD117), not platform-dependent.
        let found = codes("context platform=macos\nsettings text-size accessibility-large\n");
        assert!(found.contains(&WRONG_TYPE), "{found:?}");
        assert!(!found.contains(&SETTING_NOT_ON_PLATFORM), "{found:?}");
    }
}
