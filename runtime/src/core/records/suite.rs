//! The suite report (`ad test --report-json`); the JUnit report is rendered from it.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SuiteReport {
    /// Always 1.
    pub version: u32,
    pub summary: SuiteCounts,
    /// In discovery order.
    pub scripts: Vec<ScriptReport>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SuiteCounts {
    /// Scripts reported (left-out and other-shard scripts are not).
    pub total: usize,
    pub passed: usize,
    /// Passed after a failed attempt (not counted in `passed`).
    pub flaky: usize,
    pub failed: usize,
    pub invalid: usize,
    /// Scripts whose backend could not start (an error of the environment, not of the script).
    #[serde(default)]
    pub errors: usize,
    pub skipped: usize,
    /// Left out by `--platform`.
    pub filtered: usize,
    pub other_shards: usize,
    /// No script failed, was invalid or met an error of the environment.
    pub ok: bool,
    pub wall_ms: f64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    Passed,
    /// Passed after at least one failed attempt.
    Flaky,
    Failed,
    /// Static errors (or a broken `ad.toml`, or variables without a value): not run.
    Invalid,
    Skipped,
    /// Its backend could not start (`setup` of its attempt says what is missing): an error of
    /// the environment, not a failed script; never retried.
    Error,
}

impl Status {
    pub fn word(self) -> &'static str {
        match self {
            Status::Passed => "passed",
            Status::Flaky => "flaky",
            Status::Failed => "failed",
            Status::Invalid => "invalid",
            Status::Skipped => "skipped",
            Status::Error => "error",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ScriptReport {
    pub path: String,
    pub status: Status,
    pub skip_reason: Option<String>,
    pub retries_allowed: u64,
    /// Device-clock ms (`context timeout=` or `--timeout`).
    pub timeout_ms: Option<u64>,
    /// Why the script was not run (invalid scripts).
    pub refused: Option<String>,
    pub static_errors: Vec<StaticError>,
    pub attempts: Vec<Attempt>,
    /// Wall-clock time of the script, every attempt and its static check included.
    pub wall_ms: f64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct StaticError {
    pub line: usize,
    pub column: usize,
    pub code: String,
    pub message: String,
}

/// One run of a script.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Attempt {
    pub ok: bool,
    /// `REPLAY_DIVERGENCE` when the run diverged, `BACKEND_UNAVAILABLE` when its backend could
    /// not start, `SETUP` when it was refused before it started.
    pub code: Option<String>,
    /// The divergence kind.
    pub kind: Option<super::divergence::DivergenceKind>,
    pub message: Option<String>,
    pub step: Option<usize>,
    pub line: Option<usize>,
    pub replayed: usize,
    pub total: usize,
    /// The attempt's run folder (its journal).
    pub run_dir: Option<String>,
    pub wall_ms: f64,
    pub device_ms: u64,
    /// The backend could not start: what is missing and how to fix it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub setup: Option<super::result::SetupProblem>,
}
