//! The result of one run, as `ad run --json` prints it, and the `details` of a run's error (which
//! `run.json` and the journal share).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::common::NodeRef;
use super::divergence::DivergenceReport;
use super::journal::{Event, JournalEvent, StepStatus};
use crate::core::records::error_codes;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RunResultRecord {
    pub ok: bool,
    /// Steps that ran to completion.
    pub replayed: usize,
    /// Steps in the plan.
    pub total: usize,
    pub session: String,
    /// The session is still live (a handoff script, `--keep-session`, a divergence).
    pub session_active: bool,
    /// The digest `--plan-digest` resumes against (`ad parse --digest`).
    pub plan_digest: String,
    pub device_time_ms: u64,
    /// Where the device stopped, as the backend describes it (`{app, screen, …}` on the sim);
    /// only while the session is live.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub location: Option<Value>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<ErrorRecord>,
    /// `<artifacts-dir>/<run-id>`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run_dir: Option<String>,
    /// The saved live session, for `--from`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_file: Option<String>,
    /// Each step that ran, with its timings, in order (from the journal: [`step_timings`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub steps: Vec<StepTiming>,
}

/// One step that ran and how long it took: its journal `step_end`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct StepTiming {
    /// 1-based plan index.
    pub step: usize,
    /// 1-based source line.
    pub line: usize,
    /// The command word (`click`, `wait`, …).
    pub command: String,
    pub status: StepStatus,
    /// Wall-clock time of the step (µs precision).
    pub wall_ms: f64,
    /// Device-clock time of the step (virtual on the sim).
    pub device_ms: u64,
}

/// The steps of a run's journal that ended (`step_end`), with the command their `step_start`
/// named. Skipped steps and steps that never ended (a crash) have no timing and are left out.
pub fn step_timings(events: &[JournalEvent]) -> Vec<StepTiming> {
    let mut commands = std::collections::HashMap::new();
    let mut out = Vec::new();
    for e in events {
        match &e.event {
            Event::StepStart(s) => {
                commands.insert(s.step, s.command.clone());
            }
            Event::StepEnd(s) => out.push(StepTiming {
                step: s.step,
                line: s.line,
                command: commands.get(&s.step).cloned().unwrap_or_default(),
                status: s.status,
                wall_ms: s.wall_ms,
                device_ms: s.device_ms,
            }),
            _ => {}
        }
    }
    out
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ErrorRecord {
    /// `REPLAY_DIVERGENCE` when a divergence report is attached, else the failure's own code.
    pub code: String,
    pub message: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hint: Option<String>,
    pub details: ErrorDetails,
}

/// Structured facts about a failure. Which fields are present depends on the failure; every one
/// is optional.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ErrorDetails {
    /// Machine-readable reason: `wait_target_absent`, `wait_target_present`,
    /// `wait_stable_timeout`, `wait_landmark_identity_mismatch`, `predicate_failed`,
    /// `ref_frame_expired`, `unresolved_variable`, `transport-failure`, `interrupted`, a
    /// divergence kind, …
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// A transport failure is never retried automatically.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retriable: Option<bool>,
    /// The unresolved variable.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub variable: Option<String>,
    /// The signal that stopped the run (`SIGINT`, `SIGTERM`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signal: Option<String>,
    /// A refused ref and the frame it was checked against.
    #[serde(default, rename = "ref", skip_serializing_if = "Option::is_none")]
    pub reference: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub current_generation: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub minted_generation: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scope: Option<String>,
    /// An ambiguous selector's first matches (at most 5).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub candidates: Option<Vec<NodeRef>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub selector: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub waited_ms: Option<u64>,
    /// What a `wait absent` still found.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_match: Option<NodeRef>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout_ms: Option<u64>,
    /// The command that resumes a diverged run (`ad run FILE <the options that chose its
    /// backend and device> --from N --plan-digest SHA`), or, when `divergence.resume.allowed`
    /// is false, the command that runs it again from the start.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resume_command: Option<String>,
    /// The script, step index, command and (redacted) positionals of a diverged step.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replay_path: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub step: Option<usize>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub action: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub positionals: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub divergence: Option<DivergenceReport>,
    /// The backend could not start (code `BACKEND_UNAVAILABLE`): nothing about the script
    /// diverged, so there is no divergence report and no resume.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub setup: Option<SetupProblem>,
}

/// A backend that could not start: a browser that is missing or exits, an agent-device that is
/// not installed or whose daemon cannot start, a fixture folder that cannot be read, an app
/// model that is missing or invalid. The words are `ad doctor`'s (one source for both).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SetupProblem {
    /// The backend that could not start (`sim`, `web`, `agent-device`, `recorded`).
    pub backend: String,
    /// What is missing or broken.
    pub problem: String,
    /// How to install or fix it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fix: Option<String>,
}

impl SetupProblem {
    /// The error code of a run whose backend could not start.
    pub const CODE: &'static str = error_codes::BACKEND_UNAVAILABLE;

    pub fn new(backend: &str, problem: impl Into<String>, fix: Option<&str>) -> SetupProblem {
        SetupProblem {
            backend: backend.into(),
            problem: problem.into(),
            fix: fix.map(str::to_string),
        }
    }

    /// The problem and its fix in one line (`ad doctor`'s `missing:` rows).
    pub fn line(&self) -> String {
        match &self.fix {
            Some(fix) => format!("{}; {fix}", self.problem),
            None => self.problem.clone(),
        }
    }
}

impl std::fmt::Display for SetupProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "the {} backend cannot start: {}",
            self.backend,
            self.line()
        )
    }
}
