//! Script profiles: a **flow** ends with a terminal `close` (a closed test flow); a **handoff**
//! script has none and leaves the app session live at a destination for an agent to continue
//! (agent-device ADR 0016). The profile is inferred and can be forced (`--profile`, `ad.toml`).

use crate::config::ProfileChoice;
use crate::lower::Step;
use crate::registry::Effect;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Profile {
    Flow,
    Handoff,
}

/// Why a profile applies, for messages: "handoff profile (inferred: no terminal `close`)".
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProfileDecision {
    pub profile: Profile,
    pub forced: bool,
}

impl ProfileDecision {
    pub fn describe(&self) -> &'static str {
        match (self.profile, self.forced) {
            (Profile::Handoff, false) => {
                "handoff profile (inferred: the script has no terminal `close`)"
            }
            (Profile::Handoff, true) => "handoff profile (forced)",
            (Profile::Flow, false) => "flow profile (inferred: the script ends with `close`)",
            (Profile::Flow, true) => "flow profile (forced)",
        }
    }
}

/// The terminal `close`: the last action that is not a skipped `replay`, when it is `close`.
pub fn terminal_close(steps: &[Step]) -> Option<&Step> {
    steps
        .iter()
        .rev()
        .find(|s| s.spec.is_none_or(|spec| spec.effect != Effect::Skipped))
        .filter(|s| s.command == "close")
}

pub fn decide(steps: &[Step], choice: ProfileChoice) -> ProfileDecision {
    match choice {
        ProfileChoice::Flow => ProfileDecision {
            profile: Profile::Flow,
            forced: true,
        },
        ProfileChoice::Handoff => ProfileDecision {
            profile: Profile::Handoff,
            forced: true,
        },
        ProfileChoice::Auto => ProfileDecision {
            profile: if terminal_close(steps).is_some() {
                Profile::Flow
            } else {
                Profile::Handoff
            },
            forced: false,
        },
    }
}

/// Does this step change app state (its recording effect, request-sensitive)? Unknown commands
/// count as mutating: nothing proves they do not.
pub fn mutates(step: &Step) -> bool {
    match step.spec {
        None => true,
        Some(spec) => spec.effect_for(&step.positionals) == Effect::Mutates,
    }
}
