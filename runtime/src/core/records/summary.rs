//! `run.json`: the summary a run writes into its folder when it ends.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::divergence::DivergenceReport;
use super::journal::ExitReason;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RunSummary {
    pub script: String,
    pub plan_digest: String,
    pub backend: String,
    pub ok: bool,
    /// 0 passed, 1 failed, 2 refused before any step or a backend that could not start, 130
    /// interrupted.
    pub exit_code: i32,
    pub exit_reason: ExitReason,
    pub steps: StepCounts,
    pub session_active: bool,
    pub device_ms: u64,
    pub wall_ms: f64,
    /// Where the device stopped (only while the session is live).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub location: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<SummaryError>,
    /// Always 1.
    pub schema_version: u64,
    pub run_id: String,
    pub session: String,
    /// Events in `events.jsonl` (`run_end` included).
    pub events: u64,
    pub observations: u64,
    pub attempts: u64,
    /// An attempt no observation followed: its effect on the device was never seen.
    pub awaiting_observation_after_attempt: Option<String>,
    /// The first journal write that failed (later events were not written).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub journal_error: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct StepCounts {
    pub total: usize,
    pub from: usize,
    pub replayed: usize,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SummaryError {
    /// The failure's own code (`IDENTITY_MISMATCH`, `INVALID_ARGS`, …).
    pub code: String,
    pub message: String,
    /// 1-based plan index and source line of the failing step (`null` before any step).
    pub step: Option<usize>,
    pub line: Option<usize>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub divergence: Option<DivergenceReport>,
    /// The command the divergence report offers: the resume (`ad run FILE <the options that
    /// chose the backend and device> --from N --plan-digest SHA`), or the full re-run when the
    /// resume is refused.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resume_command: Option<String>,
}
