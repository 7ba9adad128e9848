//! The heal record: what `ad heal` found for one script, machine-readable. `ad heal --json`
//! prints it, and every `ad heal` writes it to `<artifacts>/heal/<script>.json`, where the
//! language server reads it to offer the proven proposal as a quick fix (docs/repair.md).
//!
//! It is built from the heal's outcome (`crate::session::heal::Outcome`), whose text is already redacted: an injected value
//! never appears (device text is `<var:NAME>`, a `${NAME}` of the script stays a placeholder).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The folder under `--artifacts-dir` the heal records are written into.
pub const HEAL_DIR: &str = "heal";

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct HealRecord {
    /// Always 1.
    pub schema_version: u64,
    /// The script's path as `ad heal` was given it.
    pub script: String,
    /// sha256 (hex) of the script text that was healed: the line edits apply to exactly this
    /// text (an editor offers them only while its buffer still hashes to it).
    pub script_sha256: String,
    pub verdict: HealVerdict,
    /// How many runs the search took.
    pub runs: usize,
    /// Each proven change, in step order.
    pub proposals: Vec<HealProposal>,
    /// The step no candidate proved (a changed intent): a person repairs it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub human: Option<HealHuman>,
    /// The unified diff of the script with every proposal applied (empty when there is none).
    pub diff: String,
}

/// What the heal concluded.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum HealVerdict {
    /// The script passed as it is: nothing to heal.
    Passed,
    /// Every divergence got a proven proposal.
    Proposed,
    /// A step needs a human (`human`); `proposals` holds the ones proven before it.
    NeedsHuman,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct HealProposal {
    /// 1-based plan index and source line of the diverging step.
    pub step: usize,
    pub line: usize,
    /// How it diverged (`selector-miss`, `identity-mismatch`, …) and the cause's code.
    pub divergence_kind: String,
    pub cause_code: String,
    /// The selector as written, and the one proposed (the same for an annotation refresh).
    pub old_selector: String,
    pub new_selector: String,
    /// The winning suggestion's basis (`id`, `role-label`, `label`, `evidence`,
    /// `evidence-refresh`) and its 1-based rank in the divergence report.
    pub basis: String,
    pub rank: usize,
    /// The recorded evidence fields the new element still has.
    pub matched: Vec<String>,
    /// Each recorded evidence field that changed.
    pub changed: Vec<HealFieldChange>,
    pub proof: HealProof,
    /// Candidates tried before this one, each with why it was not kept.
    pub rejected: Vec<HealCandidate>,
    /// The edits that apply this proposal to the original text (`script_sha256`); only the
    /// step's selector line and its annotation line change.
    pub edits: Vec<LineEdit>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct HealFieldChange {
    pub field: String,
    pub was: String,
    pub now: String,
}

/// The fresh run of the whole changed script that proved the proposal.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct HealProof {
    pub replayed: usize,
    pub total: usize,
    /// The run passed; else it got past the step and diverged at `later`, healed next.
    pub passed: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub later: Option<usize>,
    /// The proving run's folder (its journal), when it wrote one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run_dir: Option<String>,
    pub wall_ms: f64,
    /// What the run could prove: the whole script on a device, or a recording's part of it
    /// (`ad heal --backend recorded:DIR`).
    pub scope: HealProofScope,
}

/// How far a proof reaches.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "kebab-case", deny_unknown_fields)]
pub enum HealProofScope {
    /// A run on a device (the sim, the web, the agent-device bridge): the app answered every
    /// step the run replayed.
    Device,
    /// A replay of a recording of the failing run.
    Recording {
        /// Steps 1..=`replayed_to` passed on the recording.
        replayed_to: usize,
        /// Where the recording ran out; none when the changed script passed to its end on it.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        ends_at: Option<HealRecordingEnd>,
    },
}

/// The step at which a proof on a recording stopped: the recording holds no answer to one of
/// its calls.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct HealRecordingEnd {
    /// 1-based plan index and source line.
    pub step: usize,
    pub line: usize,
    pub reason: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct HealCandidate {
    /// The selector tried (empty for a note that names no selector).
    pub selector: String,
    pub reason: String,
}

/// Lines `start..end` (1-based, `end` exclusive) of the original text replaced by `text`
/// (whole lines, each ending in `\n`; empty: the lines are removed). `start == end` inserts
/// `text` before line `start` (one past the last line: at the end).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LineEdit {
    pub start: usize,
    pub end: usize,
    pub text: String,
}

/// The step a human must repair.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct HealHuman {
    pub step: usize,
    pub line: usize,
    /// The step as written.
    pub action: String,
    pub cause_code: String,
    pub message: String,
    /// The divergence report's repair hint (`record-and-heal`, …).
    pub repair_hint: String,
    /// The repair-armed command that starts the repair from the script (`ad run FILE
    /// --save-script` with the backend and app options the heal used).
    pub repair_command: String,
    /// Each candidate tried, with why it was not kept.
    pub tried: Vec<HealCandidate>,
}

impl HealRecord {
    /// Every proposal's proof reached the end of the script (a proof on a recording may stop
    /// where the recording ran out): what `--write` and the editor's quick fix need.
    pub fn proven_to_the_end(&self) -> bool {
        self.verdict == HealVerdict::Proposed
            && self.proposals.iter().all(|p| {
                !matches!(
                    p.proof.scope,
                    HealProofScope::Recording {
                        ends_at: Some(_),
                        ..
                    }
                )
            })
    }

    /// Every proposal's edits, in line order: applied together to the original text they give
    /// the healed text (without `heal-complete`).
    pub fn edits(&self) -> Vec<&LineEdit> {
        let mut all: Vec<&LineEdit> = self.proposals.iter().flat_map(|p| &p.edits).collect();
        all.sort_by_key(|e| (e.start, e.end));
        all
    }
}

/// `text` with `edits` (sorted, not overlapping, of lines of `text`) applied; `None` when an
/// edit lies outside the text.
pub fn apply_line_edits(text: &str, edits: &[&LineEdit]) -> Option<String> {
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let mut out = String::with_capacity(text.len() + 256);
    let mut next = 1;
    for e in edits {
        if e.start < next || e.end < e.start || e.end > lines.len() + 1 {
            return None;
        }
        lines[next - 1..e.start - 1]
            .iter()
            .for_each(|l| out.push_str(l));
        out.push_str(&e.text);
        next = e.end;
    }
    lines[next - 1..].iter().for_each(|l| out.push_str(l));
    Some(out)
}

/// The sha256 (hex) a heal record names its script text by.
pub fn text_sha256(text: &str) -> String {
    crate::core::records::common::sha256_hex(text.as_bytes())
}

/// Where `ad heal` writes the record of `script` (as given) under the artifacts folder:
/// `<artifacts>/heal/<script's path, its normal components>.json`.
pub fn record_path(artifacts: &std::path::Path, script: &str) -> std::path::PathBuf {
    let relative: std::path::PathBuf = std::path::Path::new(script)
        .components()
        .filter_map(|c| match c {
            std::path::Component::Normal(n) => Some(n),
            _ => None,
        })
        .collect();
    artifacts
        .join(HEAL_DIR)
        .join(format!("{}.json", relative.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn edit(start: usize, end: usize, text: &str) -> LineEdit {
        LineEdit {
            start,
            end,
            text: text.into(),
        }
    }

    #[test]
    fn line_edits_replace_insert_and_remove_whole_lines() {
        let text = "a\nb\nc\nd\n";
        let (r, i, d) = (edit(2, 3, "B\n"), edit(4, 4, "x\n"), edit(4, 5, ""));
        assert_eq!(
            apply_line_edits(text, &[&r, &i]).as_deref(),
            Some("a\nB\nc\nx\nd\n")
        );
        assert_eq!(apply_line_edits(text, &[&d]).as_deref(), Some("a\nb\nc\n"));
        let end = edit(5, 5, "e\n");
        assert_eq!(
            apply_line_edits(text, &[&end]).as_deref(),
            Some("a\nb\nc\nd\ne\n")
        );
        assert_eq!(apply_line_edits(text, &[&edit(6, 6, "")]), None);
        assert_eq!(apply_line_edits(text, &[&r, &edit(2, 2, "")]), None);
    }

    #[test]
    fn a_record_path_stays_inside_the_artifacts_folder() {
        let p = record_path(std::path::Path::new("art"), "../flows/./login.ad");
        assert_eq!(p, std::path::Path::new("art/heal/flows/login.ad.json"));
    }
}
