//! The divergence report for people: agent-device's text rendering of a replay divergence, with
//! resume commands spelled for `ad`.

use ad_runtime::core::records::divergence::{RepairHint, Resume, Screen, Suggestion};
use ad_runtime::core::records::{DivergenceKind, DivergenceReport, NodeRef};

fn resume_line(cmd: &str, from: usize, digest: &str) -> String {
    format!("`{cmd} --from {from} --plan-digest {digest}`")
}

/// What to do next, by repair hint, with the resume commands that apply.
pub fn guidance(hint: RepairHint, resume: &Resume, cmd: &str) -> String {
    let digest = &resume.plan_digest;
    // agent-device's words, with the reason and the fresh replay spelled for `ad`.
    let not_resumable = &match &resume.reason {
        Some(reason) => format!(
            "This step cannot currently be resumed automatically ({reason}) — run a fresh full replay instead: `{cmd}`."
        ),
        None => format!(
            "This step cannot currently be resumed automatically — run a fresh full replay instead: `{cmd}`."
        ),
    };
    let two_way = |lead: &str| {
        if !resume.allowed {
            return format!("{lead} {not_resumable}");
        }
        let first = format!(
            "if you fixed app state by hand: {}",
            resume_line(cmd, resume.from, digest)
        );
        match resume.alternate_from {
            Some(a) => format!(
                "{lead} {first}; if you performed the step's intent yourself: {}.",
                resume_line(cmd, a, digest)
            ),
            None => format!("{lead} {first}."),
        }
    };
    let text = match hint {
        RepairHint::RecordAndHeal if resume.allowed => format!(
            "perform this step by hand on the device (the recorded container is on screen), then {}.",
            resume_line(cmd, resume.from, digest)
        ),
        RepairHint::RecordAndHeal => {
            format!("perform this step by hand on the device. {not_resumable}")
        }
        RepairHint::StateRepair if resume.allowed => format!(
            "bring the app to the state this step expects, then {} to re-run it.",
            resume_line(cmd, resume.from, digest)
        ),
        RepairHint::StateRepair => {
            format!("bring the app to the state this step expects. {not_resumable}")
        }
        RepairHint::Caution => two_way("something already matches the recorded selector; a blind re-press may repeat the mistake."),
        RepairHint::Manual => two_way("no safe automated repair could be proven; inspect the screen and repair by hand."),
    };
    // A repair-armed run holds its session (docs/repair.md): agent-device's note on what the
    // heal records.
    if resume.repair_session_held == Some(true) {
        format!("{text} Read-only inspection while armed (`ad session snapshot -i`, `get`, `find`, `is`) is excluded from the healed script by default — no --no-record needed. If the step you are repairing is itself a read, add --record to that command so it lands in the heal.")
    } else {
        text
    }
}

/// What an `evidence` suggestion (a renamed element, ranked by
/// `ad_runtime::core::divergence::rank_by_evidence`) shares with the record and what changed.
pub fn evidence_note(s: &Suggestion) -> String {
    if s.differs.is_empty() && s.agrees.is_empty() {
        return String::new();
    }
    let mut parts = Vec::new();
    if !s.differs.is_empty() {
        parts.push(format!("{} changed", s.differs.join(", ")));
    }
    if !s.agrees.is_empty() {
        parts.push(format!("same {}", s.agrees.join(", ")));
    }
    format!(" ({})", parts.join("; "))
}

fn describe_ref(r: &NodeRef) -> String {
    let label = r
        .label
        .as_deref()
        .map(|l| format!(" \"{l}\""))
        .unwrap_or_default();
    format!("  @{} [{}]{label}", r.reference, r.role)
}

pub fn hint_word(h: RepairHint) -> &'static str {
    match h {
        RepairHint::Caution => "caution",
        RepairHint::Manual => "manual",
        RepairHint::RecordAndHeal => "record-and-heal",
        RepairHint::StateRepair => "state-repair",
    }
}

/// The report as text; `resume_command` is how resume commands are spelled (`ad run flow.ad`).
pub fn render(d: &DivergenceReport, resume_command: &str) -> String {
    let mut lines = Vec::new();
    lines.push(match &d.step.origin {
        // In a fragment of a composition: its line and the call sites, then the plan's line.
        Some(origin) => {
            let sites: Vec<String> = origin
                .includes
                .iter()
                .map(|s| format!("{}:{} [{}]", s.file, s.line, s.call_site_id))
                .collect();
            let via = if sites.is_empty() {
                String::new()
            } else {
                format!(", included at {}", sites.join(" → "))
            };
            format!(
                "Divergence at step {} ({}:{}{via}; plan line {})",
                d.step.index, origin.file, origin.line, d.step.source.line
            )
        }
        None => format!(
            "Divergence at step {} ({}:{})",
            d.step.index, d.step.source.path, d.step.source.line
        ),
    });
    if d.kind != DivergenceKind::ActionFailure {
        if let Some(tb) = &d.target_binding {
            let mc = tb
                .match_count
                .map(|c| format!(" (matchCount {c})"))
                .unwrap_or_default();
            lines.push(format!(
                "Target binding: {}{mc} — recorded target evidence did not verify.",
                d.kind.as_str()
            ));
            if !tb.mismatches.is_empty() {
                let parts: Vec<&str> = tb.mismatches.iter().take(5).map(String::as_str).collect();
                lines.push(format!("  mismatches: {}", parts.join("; ")));
            }
            if !tb.candidates.is_empty() {
                lines.push(format!(
                    "  {} candidate(s) shared the recorded identity:",
                    tb.candidates.len()
                ));
                for x in tb.candidates.iter().take(5) {
                    lines.push(format!("    {}", describe_ref(x)));
                }
            }
        }
    }
    lines.push(format!(
        "Repair hint: {} — {}",
        hint_word(d.repair_hint),
        guidance(d.repair_hint, &d.resume, resume_command)
    ));
    match &d.screen {
        Screen::Available {
            refs_generation,
            refs,
            omitted,
            ..
        } => {
            lines.push(format!(
                "Screen: {} actionable ref(s) captured (refsGeneration {refs_generation}).",
                refs.len()
            ));
            for r in refs.iter().take(8) {
                lines.push(describe_ref(r));
            }
            // Shown ones first, nearest the target's recorded place; hidden ones last.
            let more = refs.len().saturating_sub(8) + omitted.unwrap_or(0);
            if more > 0 {
                lines.push(format!("  … and {more} more"));
            }
        }
        Screen::Unavailable { reason, hint } => {
            let hint = if hint.is_empty() {
                String::new()
            } else {
                format!(" {hint}")
            };
            lines.push(format!("Screen: unavailable ({reason}).{hint}"));
        }
    }
    if !d.suggestions.is_empty() {
        lines.push("Suggestions:".into());
        for s in d.suggestions.iter().take(5) {
            let label = s
                .label
                .as_deref()
                .map(|l| format!(" \"{l}\""))
                .unwrap_or_default();
            lines.push(format!(
                "  - [{}]{label} {}{}",
                s.basis,
                s.selector,
                evidence_note(s)
            ));
        }
    } else if d.suggestion_count > 0 {
        lines.push(format!(
            "Suggestions: {} available (omitted at this report level; rerun with --json for the full report).",
            d.suggestion_count
        ));
    }
    if let Some(o) = &d.overflow {
        lines.push(format!("Full report written to {}.", o.artifact_path));
    } else if d.artifact_unavailable == Some(true) {
        lines.push(
            "Full report exceeded the report budget and the overflow artifact could not be written."
                .into(),
        );
    }
    // Screens, labels and script lines come from the device and the script: escaped.
    super::escape_controls(&lines.join("\n")).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn report(v: serde_json::Value) -> DivergenceReport {
        serde_json::from_value(v).expect("a divergence report")
    }

    #[test]
    fn every_part_of_the_report_is_rendered() {
        let d = report(serde_json::json!({
            "version": 1, "kind": "identity-unverifiable",
            "step": {"index": 3, "source": {"path": "f.ad", "line": 7}},
            "action": "click \"label=Delete\"",
            "cause": {"code": "IDENTITY_UNVERIFIABLE", "message": "m"},
            "screen": {"state": "unavailable", "reason": "omitted-for-size", "hint": "see the file"},
            "suggestions": [], "suggestionCount": 2,
            "resume": {"allowed": true, "from": 3, "planDigest": "abc", "alternateFrom": 4},
            "repairHint": "manual",
            "targetBinding": {"classification": "identity-unverifiable", "matchCount": 2,
                "recorded": {"role": "button", "label": "Delete"}, "mismatches": [],
                "candidates": [{"ref": "e4", "role": "button", "label": "Delete"}]},
            "overflow": {"omittedBytes": 10, "artifactPath": "run/divergence-full.json"}
        }));
        let text = render(&d, "ad run f.ad");
        assert_eq!(
            text,
            "Divergence at step 3 (f.ad:7)
Target binding: identity-unverifiable (matchCount 2) — recorded target evidence did not verify.
  1 candidate(s) shared the recorded identity:
      @e4 [button] \"Delete\"
Repair hint: manual — no safe automated repair could be proven; inspect the screen and repair by hand. if you fixed app state by hand: `ad run f.ad --from 3 --plan-digest abc`; if you performed the step's intent yourself: `ad run f.ad --from 4 --plan-digest abc`.
Screen: unavailable (omitted-for-size). see the file
Suggestions: 2 available (omitted at this report level; rerun with --json for the full report).
Full report written to run/divergence-full.json."
        );
    }

    #[test]
    fn a_renamed_element_is_suggested_with_what_changed() {
        let d = report(serde_json::json!({
            "version": 1, "kind": "selector-miss",
            "step": {"index": 2, "source": {"path": "f.ad", "line": 4}},
            "action": "click", "cause": {"code": "SELECTOR_MISS", "message": "m"},
            "screen": {"state": "unavailable", "reason": "capture-failed", "hint": ""},
            "suggestions": [{"selector": "role=\"link\" label=\"Done\"", "basis": "evidence",
                "ref": "e11", "role": "link", "label": "Done",
                "agrees": ["role", "ancestry", "sibling"], "differs": ["label"]}],
            "suggestionCount": 1,
            "resume": {"allowed": false, "from": 2, "planDigest": "abc"},
            "repairHint": "manual"
        }));
        let text = render(&d, "ad run f.ad");
        assert!(
            text.contains("Suggestions:\n  - [evidence] \"Done\" role=\"link\" label=\"Done\" (label changed; same role, ancestry, sibling)"),
            "{text}"
        );
        assert!(!text.contains("--from"), "{text}");
    }

    #[test]
    fn an_action_failure_has_no_binding_section() {
        let d = report(serde_json::json!({
            "version": 1, "kind": "action-failure",
            "step": {"index": 1, "source": {"path": "f.ad", "line": 2}},
            "action": "click", "cause": {"code": "COMMAND_FAILED", "message": "m"},
            "screen": {"state": "available", "refsGeneration": 5, "refs": (1..=9)
                .map(|i| serde_json::json!({"ref": format!("e{i}"), "role": "button"}))
                .collect::<Vec<_>>()},
            "suggestions": [{"selector": "id=\"a\"", "basis": "id", "ref": "e1", "role": "button", "label": "A"}],
            "suggestionCount": 1,
            "resume": {"allowed": true, "from": 2, "planDigest": "abc"},
            "repairHint": "record-and-heal"
        }));
        let text = render(&d, "ad run f.ad");
        assert!(!text.contains("Target binding"), "{text}");
        assert!(text.contains("Repair hint: record-and-heal — perform this step by hand on the device (the recorded container is on screen), then `ad run f.ad --from 2 --plan-digest abc`."), "{text}");
        assert!(
            text.contains(
                "Screen: 9 actionable ref(s) captured (refsGeneration 5).\n  @e1 [button]\n"
            ),
            "{text}"
        );
        assert!(
            text.contains("  … and 1 more\nSuggestions:\n  - [id] \"A\" id=\"a\""),
            "{text}"
        );
    }
}
