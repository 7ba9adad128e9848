//! Script profiles: a **flow** is a replay/test script; a **handoff** script is a published
//! authoring artifact (agent-device ADR 0016) that leaves the app session live at a destination
//! for an agent to continue, and is held to the publication contract.
//!
//! Inference (`check.profile = "auto"`): a terminal `close` makes a flow. A close-less script is a
//! handoff only when it carries recorder evidence (`target-v1`/`targets-v1` annotations): ADR
//! 0016 guarantees evidence on every element step of a published script, so a close-less script
//! with none is a plain replay script (agent-device's own integration replays are close-less).
//! The profile can be forced (`--profile`, `check.profile`, or a path glob in `ad.toml`).

use crate::config::{ProfileChoice, ProfileOrigin};
use crate::lower::Step;
use crate::registry::Effect;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Profile {
    Flow,
    Handoff,
}

/// Why a profile applies, for messages.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ProfileReason {
    /// Forced by configuration or the command line.
    Forced(ProfileOrigin),
    /// Inferred: the script ends with `close`.
    TerminalClose,
    /// Inferred: no terminal `close`, and recorder evidence on at least one step.
    RecorderEvidence,
    /// Inferred: no terminal `close`, but no recorder evidence either.
    NoRecorderEvidence,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProfileDecision {
    pub profile: Profile,
    pub reason: ProfileReason,
}

impl ProfileDecision {
    /// "handoff profile (inferred: no terminal `close`, and recorder evidence …)".
    pub fn describe(&self) -> String {
        let name = match self.profile {
            Profile::Flow => "flow profile",
            Profile::Handoff => "handoff profile",
        };
        let why = match &self.reason {
            ProfileReason::Forced(origin) => format!("set by {}", origin.describe()),
            ProfileReason::TerminalClose => "inferred: the script ends with `close`".into(),
            ProfileReason::RecorderEvidence => {
                "inferred: no terminal `close`, and recorder evidence (target-v1 annotations)"
                    .into()
            }
            ProfileReason::NoRecorderEvidence => {
                "inferred: no terminal `close` and no recorder evidence, so a plain replay script"
                    .into()
            }
        };
        format!("{name} ({why})")
    }

    pub fn forced(&self) -> bool {
        matches!(self.reason, ProfileReason::Forced(_))
    }
}

/// The terminal `close`: the last action that is not a skipped `replay`, when it is `close`.
pub fn terminal_close<'s>(steps: &'s [Step<'s>]) -> Option<&'s Step<'s>> {
    steps
        .iter()
        .rev()
        .find(|s| s.spec().is_none_or(|spec| spec.effect != Effect::Skipped))
        .filter(|s| s.action() == Some(crate::registry::Action::Close))
}

/// Does any step carry recorder evidence (a bound `target-v1` or `targets-v1` annotation)?
pub fn has_recorder_evidence(steps: &[Step]) -> bool {
    steps
        .iter()
        .any(|s| s.target_evidence.is_some() || s.target_evidences().is_some())
}

pub fn decide(steps: &[Step], choice: ProfileChoice, origin: &ProfileOrigin) -> ProfileDecision {
    let forced = |profile| ProfileDecision {
        profile,
        reason: ProfileReason::Forced(origin.clone()),
    };
    match choice {
        ProfileChoice::Flow => forced(Profile::Flow),
        ProfileChoice::Handoff => forced(Profile::Handoff),
        ProfileChoice::Auto => {
            let (profile, reason) = if terminal_close(steps).is_some() {
                (Profile::Flow, ProfileReason::TerminalClose)
            } else if has_recorder_evidence(steps) {
                (Profile::Handoff, ProfileReason::RecorderEvidence)
            } else {
                (Profile::Flow, ProfileReason::NoRecorderEvidence)
            };
            ProfileDecision { profile, reason }
        }
    }
}

/// Does this step change app state (its recording effect, request-sensitive)? Unknown commands
/// count as mutating: nothing proves they do not.
pub fn mutates(step: &Step) -> bool {
    match step.spec() {
        None => true,
        Some(spec) => spec.effect_for(&step.positionals) == Effect::Mutates,
    }
}
