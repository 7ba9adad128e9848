//! The recording lifecycle of one live session (agent-device ADR 0016 with the #1533
//! amendments): whether the session records is read off this state, never stored beside it.

use crate::core::records::error_codes;
use std::path::PathBuf;

/// Where an authoring session's recording stands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Lifecycle {
    /// No `open --save-script` started the session (a plain session, or a handoff).
    NeverArmed,
    /// The session's initial `open --save-script[=PATH]` armed it: actions are recorded with
    /// their evidence. `path` is the armed target, `force` its same-target authorization.
    Armed { path: Option<PathBuf>, force: bool },
    /// A second successful plain `open`: terminal until the session ends.
    Aborted,
    /// `save-script` published the recording: terminal until the session ends.
    Published { path: PathBuf },
}

impl Lifecycle {
    /// Does the session record its actions (and capture evidence)? Only while ARMED.
    pub fn records(&self) -> bool {
        matches!(self, Lifecycle::Armed { .. })
    }

    /// The state's name, as responses and `list` show it.
    pub fn name(&self) -> &'static str {
        match self {
            Lifecycle::NeverArmed => "unarmed",
            Lifecycle::Armed { .. } => "armed",
            Lifecycle::Aborted => "aborted",
            Lifecycle::Published { .. } => "published",
        }
    }

    /// Why this state cannot publish, with the recovery (None: ARMED, it can).
    pub fn publication_refusal(&self) -> Option<(&'static str, String)> {
        match self {
            Lifecycle::Armed { .. } => None,
            Lifecycle::NeverArmed => Some((
                error_codes::NOT_ARMED,
                "recording was never armed: this session did not start with `open --save-script`; start a fresh session with `ad session open <app> --save-script[=PATH]` and perform the journey again".into(),
            )),
            Lifecycle::Aborted => Some((
                error_codes::RECORDING_ABORTED,
                "the recording was aborted by a second `open`, so it is no longer a single-open script; close this session (`ad session close`) and author the script in a fresh session".into(),
            )),
            Lifecycle::Published { path } => Some((
                error_codes::ALREADY_PUBLISHED,
                format!(
                    "the recording was already published to {}; the session stays usable, but a new script needs a fresh session (`ad session close`, then `ad session open <app> --save-script`)",
                    path.display()
                ),
            )),
        }
    }
}
