//! The version-1 divergence report (agent-device spec §20): what failed, where, the screen at the
//! time, ranked suggestions, a repair hint and how to resume. It appears in `ad run --json`
//! (`error.details.divergence`), in the journal's `divergence` event, in `run.json` and, over
//! budget, whole in `divergence-full.json`.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::common::NodeRef;

/// How the step diverged.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum DivergenceKind {
    /// The step resolved (or needed no target) and then failed.
    ActionFailure,
    /// Nothing matches the recorded target any more.
    SelectorMiss,
    /// Something matches, but not the element with the recorded identity (never tapped).
    IdentityMismatch,
    /// The identity was recorded as unverifiable, or no signal isolates one candidate.
    IdentityUnverifiable,
}

impl DivergenceKind {
    pub fn as_str(self) -> &'static str {
        match self {
            DivergenceKind::ActionFailure => "action-failure",
            DivergenceKind::SelectorMiss => "selector-miss",
            DivergenceKind::IdentityMismatch => "identity-mismatch",
            DivergenceKind::IdentityUnverifiable => "identity-unverifiable",
        }
    }
}

/// What a person (or agent) can safely do next.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum RepairHint {
    /// Something already matches the recorded selector: a blind re-press may repeat the mistake.
    Caution,
    /// No safe automated repair could be proven.
    Manual,
    /// The recorded container is on screen: do the step by hand and resume after it.
    RecordAndHeal,
    /// Bring the app to the state the step expects and re-run it.
    StateRepair,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct DivergenceReport {
    /// Always 1.
    pub version: u32,
    pub kind: DivergenceKind,
    pub step: StepLocation,
    /// The command and its script-formatted arguments; `fill`/`type` text shown as `<text>`.
    pub action: String,
    pub cause: Cause,
    pub screen: Screen,
    /// Ranked: more identity components first, then the recorded scroll region, then document
    /// order. The element a binding failure refused is never suggested.
    pub suggestions: Vec<Suggestion>,
    /// How many suggestions there were before the report level cut them.
    pub suggestion_count: usize,
    pub resume: Resume,
    pub repair_hint: RepairHint,
    /// Why recorded target evidence did not verify (binding failures only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target_binding: Option<TargetBinding>,
    /// Over budget: where the full report was written.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub overflow: Option<Overflow>,
    /// Over budget, and the full report could not be written.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub artifact_unavailable: Option<bool>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct StepLocation {
    /// 1-based plan index (action lines only).
    pub index: usize,
    pub source: SourceLocation,
    /// When the plan is a composition's expansion (`source` is then the plan's line): the
    /// fragment's file and line the step comes from and each include on the way to it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub origin: Option<Box<crate::core::records::journal::StepSource>>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SourceLocation {
    pub path: String,
    /// 1-based source line.
    pub line: usize,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Cause {
    /// The failing step's own code (`IDENTITY_MISMATCH`, `ELEMENT_NOT_FOUND`, …).
    pub code: String,
    pub message: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hint: Option<String>,
}

/// The screen at the time of the failure: its actionable refs, or why there are none.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(
    tag = "state",
    rename_all = "lowercase",
    rename_all_fields = "camelCase",
    deny_unknown_fields
)]
pub enum Screen {
    Available {
        /// The generation of the partial ref frame the screen published.
        refs_generation: u64,
        /// Labelled or hittable elements, at most 20 (8 at `--level digest`): the shown ones
        /// first, nearest the target's recorded place (its ancestry, then its rect), hidden
        /// ones last (`runtime::divergence::screen_order`).
        refs: Vec<NodeRef>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        truncated: Option<bool>,
        /// How many actionable elements were left out of `refs` (present when `truncated`).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        omitted: Option<usize>,
    },
    Unavailable {
        /// `capture-failed`, `omitted-for-size`.
        reason: String,
        hint: String,
    },
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Suggestion {
    pub selector: String,
    /// Which identity components the selector uses: `id`, `role-label`, `label` or `other`; or
    /// `evidence`: the recorded identity is gone and the other evidence fields (`agrees`) point
    /// at this element, whose `differs` fields changed (a renamed element).
    pub basis: String,
    #[serde(rename = "ref")]
    pub reference: String,
    pub role: String,
    /// The element's id (evidence suggestions).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    /// Evidence fields this element shares with the record (`id`, `role`, `ancestry`,
    /// `sibling`, `viewportOrder`, `position`), for `evidence` suggestions.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub agrees: Vec<String>,
    /// Identity fields that differ from the record (`id`, `role`, `label`), for `evidence`
    /// suggestions.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub differs: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Resume {
    pub allowed: bool,
    /// `--from` to re-run the failed step (or, after record-and-heal, the next one).
    pub from: usize,
    /// `--plan-digest` the resume is checked against.
    pub plan_digest: String,
    /// `--from` for when the step's intent was performed by hand.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub alternate_from: Option<usize>,
    /// Why the resume is refused (present exactly when `allowed` is false, as agent-device
    /// requires).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// `true` when a repair-armed run (`ad run --save-script`, docs/repair.md) holds the
    /// session live in ad's session daemon for the repair (agent-device's
    /// `resume.repairSessionHeld`); absent otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub repair_session_held: Option<bool>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct TargetBinding {
    pub classification: DivergenceKind,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub match_count: Option<usize>,
    pub recorded: Identity,
    /// The element that matched instead (identity mismatches).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub observed: Option<Identity>,
    /// `component: recorded=… observed=…`, at most 5.
    pub mismatches: Vec<String>,
    /// Elements that shared the recorded identity (unverifiable), at most 5.
    pub candidates: Vec<NodeRef>,
}

/// A recorded or observed identity: id, else role and label.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Identity {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    pub role: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Overflow {
    pub omitted_bytes: usize,
    /// `<run>/divergence-full.json`.
    pub artifact_path: String,
}
