//! Building the version-1 divergence report ([`DivergenceReport`], spec §20) from a failed step:
//! the screen at the time, ranked suggestions, a repair hint and how to resume, within a byte
//! budget. (The `ad` command renders it for people.)

use ad_grammar::annotation::TargetEvidence;

use crate::identity::{ancestry, identity, BindingFailure};
use crate::records::divergence::{
    Cause, Identity, Overflow, RepairHint, Resume, Screen, SourceLocation, StepLocation,
    Suggestion, TargetBinding,
};
use crate::records::{DivergenceKind, DivergenceReport, NodeRef};
use crate::select::{basis, resolve, Policy, Selector};
use crate::tree::{display_label, display_role, FlatNode, Snapshot};
use crate::vars::Scope;

/// Byte budgets of the serialized report (`--level`).
pub const DIGEST_BYTES: usize = 8192;
pub const DEFAULT_BYTES: usize = 24_576;
pub const FULL_BYTES: usize = 65_536;
/// Strings in the report are cut to this many UTF-8 bytes.
pub const FIELD_BYTES: usize = 256;

/// Cuts a string to `max` UTF-8 bytes, marking the cut with `…<truncated>`.
pub fn truncate(s: &str, max: usize) -> String {
    if s.len() <= max {
        return s.to_string();
    }
    let marker = "…<truncated>";
    let mut end = max.saturating_sub(marker.len());
    while end > 0 && !s.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}{marker}", &s[..end])
}

/// The screen at the time of the failure.
pub enum ScreenEvidence<'a> {
    Available {
        snapshot: &'a Snapshot,
        generation: u64,
    },
    Unavailable {
        reason: String,
        hint: String,
    },
}

/// Everything the report is built from.
pub struct Input<'a> {
    pub kind: DivergenceKind,
    /// 1-based plan index.
    pub step: usize,
    pub path: String,
    /// 1-based source line.
    pub line: usize,
    pub action: String,
    pub cause_code: String,
    pub cause_message: String,
    pub cause_hint: Option<String>,
    pub screen: ScreenEvidence<'a>,
    pub evidence: Option<&'a TargetEvidence>,
    pub binding: Option<&'a BindingFailure>,
    /// The binding's node indices refer to this snapshot.
    pub binding_snapshot: Option<&'a Snapshot>,
    /// The step's own selector expression, if it has one.
    pub selector: Option<String>,
    pub policy: Policy,
    pub total_steps: usize,
    pub plan_digest: String,
    /// Whether the session stays live after the failure.
    pub session_exists: bool,
    /// Whether the backend lets a later run continue at a step (`--from`,
    /// [`crate::backend::Backend::resumes_at_step`]); without it the report offers no resume.
    pub resumable: bool,
}

fn ref_entry(n: &FlatNode, scope: &Scope) -> NodeRef {
    NodeRef {
        reference: n.reference.clone(),
        role: clip_plain(&display_role(n)),
        id: None,
        label: display_label(n).map(|l| clip(scope, &l)),
    }
}

/// Data a run observed or built from its arguments: redacted, then cut to the field budget.
fn clip(scope: &Scope, s: &str) -> String {
    truncate(&scope.redact(s), FIELD_BYTES)
}

/// Structure (roles, paths): cut to the field budget, never redacted.
fn clip_plain(s: &str) -> String {
    truncate(s, FIELD_BYTES)
}

/// The refs a divergence screen shows (and so issues, as a partial frame).
pub fn issued_refs(s: &Snapshot) -> std::collections::BTreeSet<String> {
    let mut picked: Vec<&FlatNode> = s
        .nodes
        .iter()
        .filter(|n| n.hittable || display_label(n).is_some())
        .collect();
    if picked.is_empty() {
        picked = s.nodes.iter().filter(|n| n.hittable).collect();
    }
    picked
        .iter()
        .take(20)
        .map(|n| n.reference.clone())
        .collect()
}

/// Actionable refs (labelled or hittable), at most 20.
fn screen_refs(s: &Snapshot, scope: &Scope) -> (Vec<NodeRef>, bool) {
    let mut picked: Vec<&FlatNode> = s
        .nodes
        .iter()
        .filter(|n| n.hittable || display_label(n).is_some())
        .collect();
    if picked.is_empty() {
        picked = s.nodes.iter().filter(|n| n.hittable).collect();
    }
    let truncated = picked.len() > 20;
    (
        picked
            .iter()
            .take(20)
            .map(|n| ref_entry(n, scope))
            .collect(),
        truncated,
    )
}

/// Is the recorded container (ancestry / scroll region) present in the capture?
fn container_present(e: &TargetEvidence, s: &Snapshot) -> bool {
    let ancestry_ok = if e.ancestry.is_empty() {
        !s.nodes.is_empty()
    } else {
        s.nodes.iter().any(|n| {
            let (chain, broken) = ancestry(s, n, e.ancestry.len());
            !broken
                && chain.len() >= e.ancestry.len()
                && e.ancestry
                    .iter()
                    .zip(&chain)
                    .all(|(r, o)| o.role == r.role && (r.label.is_none() || o.label == r.label))
        })
    };
    match &e.scroll_region {
        Some(r) if r.id.is_some() || r.label.is_some() => {
            ancestry_ok
                && s.nodes.iter().any(|n| {
                    let id = identity(n);
                    id.role == r.role
                        && match &r.id {
                            Some(i) => id.id.as_ref() == Some(i),
                            None => id.label == r.label,
                        }
                })
        }
        _ => ancestry_ok,
    }
}

fn has_container(e: &TargetEvidence) -> bool {
    !e.ancestry.is_empty()
        || e.scroll_region
            .as_ref()
            .is_some_and(|r| r.id.is_some() || r.label.is_some())
}

/// The repair hint for a divergence: caution when an impostor matched; with a recorded
/// container, record-and-heal while it is on screen (a selector miss without it: state-repair);
/// otherwise manual.
pub fn repair_hint(
    kind: DivergenceKind,
    evidence: Option<&TargetEvidence>,
    screen: Option<&Snapshot>,
) -> RepairHint {
    if kind == DivergenceKind::IdentityMismatch {
        return RepairHint::Caution;
    }
    let (Some(e), Some(s)) = (evidence, screen) else {
        return RepairHint::Manual;
    };
    if kind == DivergenceKind::IdentityUnverifiable || !has_container(e) {
        return RepairHint::Manual;
    }
    let present = container_present(e, s);
    match (kind, present) {
        (DivergenceKind::SelectorMiss, true) => RepairHint::RecordAndHeal,
        (DivergenceKind::SelectorMiss, false) => RepairHint::StateRepair,
        (_, true) => RepairHint::RecordAndHeal,
        _ => RepairHint::Manual,
    }
}

fn candidate_selectors(input: &Input) -> Vec<String> {
    let mut out = Vec::new();
    if input.binding.is_none() {
        if let Some(s) = &input.selector {
            if let Ok(sel) = Selector::parse(s) {
                out.extend(sel.alternatives.iter().map(|a| a.raw.clone()));
            }
        }
    }
    if let Some(e) = input.evidence {
        let q = ad_grammar::json::quote;
        if let Some(id) = &e.id {
            out.push(format!("id={}", q(id)));
        }
        if let Some(l) = &e.label {
            if !e.role.is_empty() {
                out.push(format!("role={} label={}", q(&e.role), q(l)));
            }
            out.push(format!("label={}", q(l)));
        }
    }
    out
}

fn basis_rank(b: &str) -> u8 {
    match b {
        "id" => 0,
        "role-label" => 1,
        "label" => 2,
        _ => 3,
    }
}

/// Ranked suggestions: more identity components first, then the recorded scroll region, then
/// document order (ADR 0012). The element a binding failure refused is never suggested.
fn suggestions(input: &Input, s: &Snapshot, scope: &Scope) -> Vec<Suggestion> {
    let refused = input.binding.and_then(|b| b.observed);
    let mut found: Vec<(u8, u8, usize, Suggestion)> = Vec::new();
    for cand in candidate_selectors(input) {
        let Ok(sel) = Selector::parse(&cand) else {
            continue;
        };
        let r = resolve(s, &sel, input.policy);
        let (Some(w), Some(ai)) = (r.winner, r.alternative) else {
            continue;
        };
        if Some(w) == refused && input.binding_snapshot.is_some_and(|b| std::ptr::eq(b, s)) {
            continue;
        }
        let b = basis(&sel.alternatives[ai]);
        let n = &s.nodes[w];
        let region_rank = match input.evidence.and_then(|e| e.scroll_region.as_ref()) {
            Some(rec) => {
                let here = s.scroll_region(n).map(identity);
                u8::from(!here.is_some_and(|h| {
                    h.role == rec.role
                        && (rec.id.is_some() && h.id == rec.id
                            || rec.id.is_none() && h.label == rec.label)
                }))
            }
            None => 0,
        };
        let m = Suggestion {
            selector: clip(scope, &crate::select::selector_for(s, n)),
            basis: b.into(),
            reference: n.reference.clone(),
            role: clip_plain(&display_role(n)),
            label: display_label(n).map(|l| clip(scope, &l)),
        };
        match found.iter_mut().find(|f| f.2 == w) {
            Some(f) if basis_rank(b) < f.0 => *f = (basis_rank(b), region_rank, w, m),
            Some(_) => {}
            None => found.push((basis_rank(b), region_rank, w, m)),
        }
    }
    found.sort_by_key(|f| (f.0, f.1, f.2));
    found.into_iter().map(|f| f.3).collect()
}

/// Builds the full (uncapped) report.
pub fn build(input: &Input, scope: &Scope) -> DivergenceReport {
    let snapshot = match &input.screen {
        ScreenEvidence::Available { snapshot, .. } => Some(*snapshot),
        _ => None,
    };
    let screen = match &input.screen {
        ScreenEvidence::Available {
            snapshot,
            generation,
        } => {
            let (refs, truncated) = screen_refs(snapshot, scope);
            Screen::Available {
                refs_generation: *generation,
                refs,
                truncated: truncated.then_some(true),
            }
        }
        ScreenEvidence::Unavailable { reason, hint } => Screen::Unavailable {
            reason: clip(scope, reason),
            hint: clip(scope, hint),
        },
    };
    let suggestions = snapshot
        .map(|s| suggestions(input, s, scope))
        .unwrap_or_default();
    let hint = repair_hint(input.kind, input.evidence, snapshot);
    let n = input.step;
    let resume = Resume {
        allowed: input.resumable,
        from: if hint == RepairHint::RecordAndHeal {
            n + 1
        } else {
            n
        },
        plan_digest: input.plan_digest.clone(),
        alternate_from: (input.resumable
            && matches!(hint, RepairHint::Caution | RepairHint::Manual)
            && (input.session_exists || n < input.total_steps))
            .then_some(n + 1),
    };
    let target_binding = match (input.binding, input.evidence) {
        (Some(b), Some(e)) => {
            let bs = input.binding_snapshot;
            Some(TargetBinding {
                classification: b.kind,
                match_count: b.match_count,
                recorded: Identity {
                    id: e.id.as_deref().map(|i| clip(scope, i)),
                    role: clip_plain(&e.role),
                    label: e.label.as_deref().map(|l| clip(scope, l)),
                },
                observed: b.observed.zip(bs).map(|(o, s)| {
                    let id = identity(&s.nodes[o]);
                    Identity {
                        id: id.id.map(|i| clip(scope, &i)),
                        role: clip_plain(&id.role),
                        label: id.label.map(|l| clip(scope, &l)),
                    }
                }),
                mismatches: b
                    .mismatches
                    .iter()
                    .take(5)
                    .map(|m| clip(scope, m))
                    .collect(),
                candidates: b
                    .candidates
                    .iter()
                    .take(5)
                    .filter_map(|&i| bs.map(|s| ref_entry(&s.nodes[i], scope)))
                    .collect(),
            })
        }
        _ => None,
    };
    DivergenceReport {
        version: 1,
        kind: input.kind,
        step: StepLocation {
            index: n,
            source: SourceLocation {
                path: clip_plain(&input.path),
                line: input.line,
            },
            origin: None,
        },
        action: clip(scope, &input.action),
        cause: Cause {
            code: input.cause_code.clone(),
            message: clip(scope, &input.cause_message),
            hint: input.cause_hint.as_deref().map(|h| clip(scope, h)),
        },
        screen,
        suggestion_count: suggestions.len(),
        suggestions,
        resume,
        repair_hint: hint,
        target_binding,
        overflow: None,
        artifact_unavailable: None,
    }
}

/// Applies a response level's caps (`digest`, `default`, `full`). When the report is still over
/// budget, the screen is replaced and the full report is handed to `write_overflow`, which
/// returns where it was written.
pub fn cap(
    full: &DivergenceReport,
    level: &str,
    write_overflow: &mut dyn FnMut(&DivergenceReport) -> Option<String>,
) -> DivergenceReport {
    let (budget, max_refs, max_sugg) = match level {
        "digest" => (DIGEST_BYTES, 8, 0),
        "full" => (FULL_BYTES, 20, 5),
        _ => (DEFAULT_BYTES, 20, 5),
    };
    let mut d = full.clone();
    if let Screen::Available {
        refs, truncated, ..
    } = &mut d.screen
    {
        if refs.len() > max_refs {
            refs.truncate(max_refs);
            *truncated = Some(true);
        }
    }
    d.suggestions.truncate(max_sugg);
    let size = serde_json::to_vec(&d).map(|v| v.len()).unwrap_or(0);
    if size <= budget {
        return d;
    }
    let omitted = size - budget;
    d.screen = Screen::Unavailable {
        reason: "omitted-for-size".into(),
        hint: "The screen digest and suggestions were omitted to stay within the report byte budget. See overflow.artifactPath for the complete report.".into(),
    };
    d.suggestions.clear();
    match write_overflow(full) {
        Some(path) => {
            d.overflow = Some(Overflow {
                omitted_bytes: omitted,
                artifact_path: path,
            });
        }
        None => d.artifact_unavailable = Some(true),
    }
    d
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn truncation_marks_the_cut() {
        let s = "é".repeat(200);
        let t = truncate(&s, 256);
        assert!(t.len() <= 256);
        assert!(t.ends_with("…<truncated>"));
        assert_eq!(truncate("short", 256), "short");
    }

    #[test]
    fn over_budget_reports_overflow() {
        let big = DivergenceReport {
            version: 1,
            kind: DivergenceKind::ActionFailure,
            step: StepLocation {
                index: 1,
                source: SourceLocation {
                    path: "x.ad".into(),
                    line: 1,
                },
                origin: None,
            },
            action: "click".into(),
            cause: Cause {
                code: "X".into(),
                message: "m".into(),
                hint: None,
            },
            screen: Screen::Available {
                refs_generation: 1,
                refs: (0..20)
                    .map(|i| NodeRef {
                        reference: format!("e{i}"),
                        role: "x".repeat(250),
                        id: None,
                        label: Some("y".repeat(1500)),
                    })
                    .collect(),
                truncated: None,
            },
            suggestions: vec![],
            suggestion_count: 0,
            resume: Resume {
                allowed: true,
                from: 1,
                plan_digest: "d".into(),
                alternate_from: None,
            },
            repair_hint: RepairHint::Manual,
            target_binding: None,
            overflow: None,
            artifact_unavailable: None,
        };
        let mut written = None;
        let capped = cap(&big, "digest", &mut |v| {
            written = Some(v.clone());
            Some("divergence-full.json".into())
        });
        assert!(
            matches!(&capped.screen, Screen::Unavailable { reason, .. } if reason == "omitted-for-size")
        );
        assert_eq!(
            capped.overflow.unwrap().artifact_path,
            "divergence-full.json"
        );
        assert_eq!(written, Some(big));
        let kept = cap(&capped_small(), "default", &mut |_| panic!("within budget"));
        assert_eq!(kept.suggestions.len(), 0);
    }

    fn capped_small() -> DivergenceReport {
        serde_json::from_value(serde_json::json!({
            "version": 1, "kind": "action-failure",
            "step": {"index": 1, "source": {"path": "x.ad", "line": 1}},
            "action": "click", "cause": {"code": "X", "message": "m"},
            "screen": {"state": "unavailable", "reason": "capture-failed", "hint": ""},
            "suggestions": [], "suggestionCount": 0,
            "resume": {"allowed": true, "from": 1, "planDigest": "d"},
            "repairHint": "manual"
        }))
        .expect("a report")
    }
}
