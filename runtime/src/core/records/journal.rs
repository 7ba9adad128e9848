//! The run journal's records: one [`JournalEvent`] per line of `events.jsonl`, and the
//! observation files (`observations/NNNNNN.json`) its `observation` events point at.

use std::borrow::Cow;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::common::{NodeRef, Target};
use super::divergence::{DivergenceKind, DivergenceReport};
use crate::core::backend::{AlertInfo, Direction, GesturePlan, KeyboardAction, KeyboardState};
use crate::core::tree::{FlatNode, Point, Rect};

/// The journal format's version (`schema_version` of every event and of `run.json`).
pub const SCHEMA_VERSION: u64 = 1;

/// One line of `events.jsonl`: the fields every event has, then the event's own.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[schemars(transform = envelope_into_variants)]
pub struct JournalEvent {
    /// Always 1.
    pub schema_version: u64,
    pub session: String,
    /// 1, 2, … within the run.
    pub sequence: u64,
    /// UTC, RFC 3339 with milliseconds.
    pub recorded_at: String,
    #[serde(flatten)]
    pub event: Event,
}

/// Each event's schema lists the envelope's fields with its own and allows no others: serde
/// cannot deny unknown fields through `flatten`, so the generated schema is completed here.
fn envelope_into_variants(schema: &mut schemars::Schema) {
    let envelope = schema.remove("properties");
    let required = schema.remove("required");
    let Some(variants) = schema.get_mut("oneOf").and_then(Value::as_array_mut) else {
        return;
    };
    for variant in variants.iter_mut().filter_map(Value::as_object_mut) {
        let mut properties = envelope
            .as_ref()
            .and_then(Value::as_object)
            .cloned()
            .unwrap_or_default();
        if let Some(Value::Object(own)) = variant.remove("properties") {
            properties.extend(own);
        }
        let mut all_required: Vec<Value> = required
            .as_ref()
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        if let Some(Value::Array(own)) = variant.remove("required") {
            all_required.extend(own);
        }
        variant.insert("properties".into(), properties.into());
        variant.insert("required".into(), all_required.into());
        variant.insert("additionalProperties".into(), false.into());
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum Event {
    RunStart(RunStart),
    StepStart(StepStart),
    Observation(Observation),
    ActionAttempt(ActionAttempt),
    ActionResult(ActionResult),
    StepEnd(StepEnd),
    StepSkipped(StepSkipped),
    /// A failure reported without a divergence report (an unresolved variable, an interrupted
    /// wait, a screenshot path outside the run folder).
    StepError(StepError),
    Divergence(DivergenceEvent),
    RunEnd(RunEnd),
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RunStart {
    pub script: String,
    pub plan_digest: String,
    /// Steps in the plan.
    pub steps: usize,
    /// The first step that runs (`--from`).
    pub from: usize,
    pub backend: String,
    /// `--platform`, else the context header's; `null` when neither says.
    pub platform: Option<String>,
    pub keep_session: bool,
    /// The names (never the values) of the run's variables, by source.
    pub variables: VariableNames,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct VariableNames {
    /// `-e KEY=VALUE`.
    pub cli: Vec<String>,
    /// `AD_VAR_<KEY>`.
    pub shell: Vec<String>,
    /// `env` directives.
    pub file: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct StepStart {
    /// 1-based plan index.
    pub step: usize,
    /// 1-based source line.
    pub line: usize,
    pub command: String,
    /// The command and its arguments as written (`fill`/`type` text shown as `<text>`).
    pub action: String,
    /// In a composition: the file and line the step was written on, and the includes that led
    /// there (`line` above is the expanded plan's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<StepSource>,
}

/// Where a step of an expanded composition comes from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct StepSource {
    pub file: String,
    /// 1-based.
    pub line: usize,
    /// Outermost first: each `include` on the way to `file`.
    pub includes: Vec<IncludeSite>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct IncludeSite {
    /// The including file.
    pub file: String,
    /// 1-based line of the `include`.
    pub line: usize,
    pub call_site_id: String,
    /// The fragment's digest (`sha256:…`).
    pub digest: String,
}

impl std::fmt::Display for StepSource {
    /// `fragments/login.ad:7 (included at main.ad:10 [login])`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}", self.file, self.line)?;
        if !self.includes.is_empty() {
            let sites: Vec<String> = self
                .includes
                .iter()
                .map(|s| format!("{}:{} [{}]", s.file, s.line, s.call_site_id))
                .collect();
            write!(f, " (included at {})", sites.join(" → "))?;
        }
        Ok(())
    }
}

/// Why the screen was captured.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Phase {
    /// Resolving a step's target.
    Resolve,
    Wait,
    /// `is …`.
    Assert,
    Snapshot,
    Find,
    /// The screen a divergence report shows.
    Divergence,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Observation {
    pub step: usize,
    pub phase: Phase,
    /// `obs-000001`, … within the run.
    pub observation_id: String,
    /// The file, relative to the run folder.
    pub path: String,
    /// SHA-256 of the file's bytes.
    pub sha256: String,
    pub bytes: u64,
    /// An identical earlier capture whose file this one shares.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub same_as: Option<String>,
    /// The attempt this is the first observation after.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub after_attempt_id: Option<String>,
}

/// The intent to call the device, written and fsync'd before the call.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ActionAttempt {
    pub step: usize,
    pub line: usize,
    pub action: String,
    /// The device call: the step's command, or `find` for a find's action.
    pub command: String,
    /// Its arguments, injected values redacted.
    pub args: ActionArgs,
    /// `att-000001`, … within the run.
    pub attempt_id: String,
}

/// The arguments of a device call, by its kind.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged, deny_unknown_fields)]
pub enum ActionArgs {
    /// `open`.
    Launch {
        app: String,
        relaunch: bool,
        url: Option<String>,
        /// Launch arguments (redacted), when there are any.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        args: Vec<String>,
    },
    /// `click`, `press`.
    Tap {
        point: Point,
        count: u32,
        target: Option<Target>,
    },
    /// `fill`.
    Fill {
        point: Point,
        text: String,
        target: Option<Target>,
        /// The variable the text came from (`${EMAIL}`), so a recording keeps it a variable.
        #[serde(default, rename = "recordAs", skip_serializing_if = "Option::is_none")]
        record_as: Option<String>,
    },
    /// `longpress`.
    LongPress {
        point: Point,
        #[serde(rename = "durationMs")]
        duration_ms: u64,
    },
    /// A `find` that acts on what it found.
    Find {
        action: String,
        point: Point,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        text: Option<String>,
    },
    /// `swipe`, `gesture`.
    Gesture { plan: GesturePlan },
    /// `scroll`.
    Scroll {
        direction: Direction,
        amount: Option<f64>,
    },
    /// `keyboard dismiss|enter`.
    Keyboard { action: KeyboardAction },
    /// `alert accept|dismiss`.
    Alert { action: String },
    /// `clipboard write`.
    ClipboardWrite { write: String },
    /// `type`.
    Text { text: String },
    /// `hover`, `focus`.
    AtPoint { point: Point },
    /// Any other command that changes the device.
    Other { positionals: Vec<String> },
    /// `back`, `home`, `app-switcher`.
    None {},
    /// `close`.
    Close { app: Option<String> },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Outcome {
    Accepted,
    Rejected,
    /// The transport failed: the device may or may not have acted. Never retried.
    Unknown,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ActionResult {
    pub attempt_id: String,
    pub result: Outcome,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum StepStatus {
    Ok,
    Failed,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct StepEnd {
    pub step: usize,
    pub line: usize,
    pub status: StepStatus,
    /// Wall-clock time of the step (µs precision).
    pub wall_ms: f64,
    /// Device-clock time of the step (virtual on the sim).
    pub device_ms: u64,
    /// A failed step's code.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code: Option<String>,
    /// A failed step's divergence kind.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<DivergenceKind>,
    /// What a passed step resolved, waited for or read (injected values redacted).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<StepResult>,
}

/// What a passed step produced, by the kind of step.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged, deny_unknown_fields)]
pub enum StepResult {
    /// `is …`.
    Predicate {
        predicate: String,
        pass: bool,
        matches: usize,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        target: Option<NodeRef>,
    },
    /// `snapshot`: the ref frame it activated.
    Snapshot {
        #[serde(rename = "refsGeneration")]
        refs_generation: u64,
        /// How many refs the frame issued.
        refs: usize,
        /// `-s` scope, `null` for the whole screen.
        scope: Option<String>,
    },
    /// `find`.
    Find {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        target: Option<NodeRef>,
        matches: usize,
        #[serde(
            default,
            rename = "refsGeneration",
            skip_serializing_if = "Option::is_none"
        )]
        refs_generation: Option<u64>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        text: Option<String>,
        /// `find … list`: up to 50 matches.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        list: Option<Vec<NodeRef>>,
    },
    /// `wait …`.
    Waited {
        #[serde(rename = "waitedMs")]
        waited_ms: u64,
        /// `wait stable`: captures taken.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        captures: Option<u32>,
        /// `landmark-verified` for an annotated wait.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        verification: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        target: Option<NodeRef>,
    },
    /// `alert …`: the alert shown (`null`: none).
    Alert {
        alert: Option<AlertInfo>,
        #[serde(default, rename = "waitedMs", skip_serializing_if = "Option::is_none")]
        waited_ms: Option<u64>,
    },
    /// `keyboard …`.
    Keyboard { keyboard: KeyboardState },
    /// `gesture drag`: the endpoints that were elements (`null`: a point).
    Drag {
        source: Option<Target>,
        destination: Option<Target>,
    },
    /// A step that acted on a target: how it was resolved and verified.
    Targeted {
        target: Target,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        resolution: Option<Resolution>,
        /// `verified` (recorded identity checked) or `unannotated`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        verification: Option<String>,
    },
    /// `get text|attrs`.
    Read {
        target: NodeRef,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        text: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        attrs: Option<FlatNode>,
    },
    /// `screenshot`.
    Screenshot {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        path: Option<String>,
        bytes: usize,
    },
    /// `clipboard read`.
    Clipboard { text: String },
    /// Any other command: the backend's response.
    Response { response: Value },
}

/// How a selector picked its element.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Resolution {
    pub kind: ResolutionKind,
    pub match_count: usize,
    /// What settled an ambiguous match: `visible`, `deepest` or `smallest-area`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tiebreak: Option<String>,
    /// The other matches (at most 5).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub alternatives: Option<Vec<NodeRef>>,
    /// Which `||` alternative matched (0-based).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub alternative: Option<usize>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum ResolutionKind {
    Unique,
    Disambiguated,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct StepSkipped {
    pub step: usize,
    pub line: usize,
    pub action: String,
    pub reason: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct StepError {
    pub step: usize,
    pub line: usize,
    pub code: String,
    pub message: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DivergenceEvent {
    pub step: usize,
    pub line: usize,
    /// Boxed: the largest event by far, and the rarest.
    pub report: Box<DivergenceReport>,
    /// The screen at the failure, relative to the run folder (`failure-step-004.png`); absent
    /// when the backend took none (a replayed fixture) or could not.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub screenshot: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum ExitReason {
    Completed,
    Divergence,
    /// A failure without a divergence report.
    Error,
    /// Ctrl-C or SIGTERM.
    Interrupted,
    /// Refused before any step (`--from`/`--plan-digest`, variables).
    Preflight,
    /// The backend could not start (exit 2): an error of the environment, not of the script.
    Setup,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RunEnd {
    /// 0 passed, 1 failed, 2 refused before any step or a backend that could not start, 130
    /// interrupted.
    pub exit_code: i32,
    pub exit_reason: ExitReason,
    pub replayed: usize,
    pub total: usize,
    pub session_active: bool,
    pub device_ms: u64,
    pub wall_ms: f64,
    /// Why a preflight refused the run, or why its backend could not start.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// An attempt no observation followed: its effect on the device was never seen.
    pub awaiting_observation_after_attempt: Option<String>,
}

/// An observation file: the flattened tree of one capture, injected values redacted.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ObservationFile<'a> {
    /// The foreground app.
    pub app: Option<Cow<'a, str>>,
    pub viewport: Rect,
    pub device_time_ms: u64,
    pub nodes: Cow<'a, [FlatNode]>,
}
