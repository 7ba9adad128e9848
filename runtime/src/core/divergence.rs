//! Building the version-1 divergence report ([`DivergenceReport`], spec §20) from a failed step:
//! the screen at the time, ranked suggestions, a repair hint and how to resume, within a byte
//! budget. (The `ad` command renders it for people.)

use ad_grammar::annotation::TargetEvidence;

use crate::core::identity::{ancestry, identity, BindingFailure};
use crate::core::records::divergence::{
    Cause, Identity, Overflow, RepairHint, Resume, Screen, SourceLocation, StepLocation,
    Suggestion, TargetBinding,
};
use crate::core::records::{DivergenceKind, DivergenceReport, NodeRef};
use crate::core::select::{basis, resolve, Policy, Selector};
use crate::core::tree::{display_label, display_role, FlatNode, Snapshot};
use crate::core::vars::Scope;

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
    /// [`crate::core::backend::Backend::resumes_at_step`]); without it the report offers no resume.
    pub resumable: bool,
    /// Why it does not, when it does not (`resume.reason`).
    pub resume_refusal: Option<String>,
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

/// How many refs a divergence screen lists (and so issues, as a partial frame).
pub const SCREEN_REFS: usize = 20;

/// Is the element shown: visible (hittable or a non-empty rect) with its centre on the screen?
fn shown(s: &Snapshot, n: &FlatNode) -> bool {
    crate::core::select::is_visible(n) && s.on_screen(n)
}

/// The actionable elements of a divergence screen (labelled or hittable; hittable ones when none
/// is labelled), in the order a report lists them: what is shown first, hidden ones last; within
/// each, nearest the target's recorded place: the most of its recorded ancestry shared (the
/// container it sat in), then the distance from its recorded rect, then document order. Without
/// evidence, shown ones first in document order. A menu's hidden items no longer push the keypad
/// that held the key out of the list (issue 31).
pub fn screen_order<'s>(s: &'s Snapshot, evidence: Option<&TargetEvidence>) -> Vec<&'s FlatNode> {
    let mut picked: Vec<&FlatNode> = s
        .nodes
        .iter()
        .filter(|n| n.hittable || display_label(n).is_some())
        .collect();
    if picked.is_empty() {
        picked = s.nodes.iter().filter(|n| n.hittable).collect();
    }
    let centre = evidence
        .and_then(|e| e.rect.as_deref())
        .map(|r| (r.x + r.width / 2.0, r.y + r.height / 2.0));
    let shared = |n: &FlatNode| -> usize {
        let Some(e) = evidence.filter(|e| !e.ancestry.is_empty()) else {
            return 0;
        };
        let (chain, _) = ancestry(s, n, e.ancestry.len());
        e.ancestry
            .iter()
            .zip(&chain)
            .take_while(|(r, o)| o.role == r.role && (r.label.is_none() || o.label == r.label))
            .count()
    };
    let distance = |n: &FlatNode| -> f64 {
        match (centre, n.rect) {
            (Some((x, y)), Some(r)) if !r.is_empty() => {
                let c = r.center();
                ((c.x - x).powi(2) + (c.y - y).powi(2)).sqrt()
            }
            _ => f64::MAX,
        }
    };
    let mut keyed: Vec<(bool, usize, f64, &FlatNode)> = picked
        .into_iter()
        .map(|n| (!shown(s, n), shared(n), distance(n), n))
        .collect();
    keyed.sort_by(|a, b| {
        a.0.cmp(&b.0)
            .then(b.1.cmp(&a.1))
            .then(a.2.total_cmp(&b.2))
            .then(a.3.index.cmp(&b.3.index))
    });
    keyed.into_iter().map(|k| k.3).collect()
}

/// The refs a divergence screen shows (and so issues, as a partial frame): the first
/// [`SCREEN_REFS`] of [`screen_order`].
pub fn issued_refs(
    s: &Snapshot,
    evidence: Option<&TargetEvidence>,
) -> std::collections::BTreeSet<String> {
    screen_order(s, evidence)
        .iter()
        .take(SCREEN_REFS)
        .map(|n| n.reference.clone())
        .collect()
}

/// The listed refs, and how many actionable ones were left out.
fn screen_refs(
    s: &Snapshot,
    evidence: Option<&TargetEvidence>,
    scope: &Scope,
) -> (Vec<NodeRef>, usize) {
    let ordered = screen_order(s, evidence);
    let omitted = ordered.len().saturating_sub(SCREEN_REFS);
    (
        ordered
            .iter()
            .take(SCREEN_REFS)
            .map(|n| ref_entry(n, scope))
            .collect(),
        omitted,
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

/// An element that may be the recorded one under a changed name (or id): the recorded evidence
/// fields it shares and the identity fields that differ.
#[derive(Debug, Clone, PartialEq)]
pub struct Likeness {
    /// Index in the snapshot.
    pub node: usize,
    /// Evidence fields that agree: `id`, `role`, `ancestry`, `sibling`, `viewportOrder`,
    /// `position` (its centre inside the recorded rect), in that order.
    pub agrees: Vec<&'static str>,
    /// Identity fields that differ: `id`, `role`, `label`.
    pub differs: Vec<&'static str>,
}

/// How many evidence candidates a report lists.
pub const EVIDENCE_CANDIDATES: usize = 3;

/// The elements of `s` that could be the recorded target once its label (or id) changed — a
/// filter renamed from "Completed" to "Done" — ranked by the other evidence fields: the id, the
/// role, the ancestry, the position among siblings, the order among elements of the same
/// identity, and where it was on screen. A candidate shares the recorded role or id and at least
/// one structural field (id, ancestry or sibling position); weights put an id first, then the
/// ancestry, then role and sibling, then the order and the rect; ties go to the element nearest
/// the recorded rect, then document order. `exclude` (the element a binding refused) is never a
/// candidate. The divergence report's suggestions, and through them the terminal and HTML
/// renderings, use this one ranking.
pub fn rank_by_evidence(s: &Snapshot, e: &TargetEvidence, exclude: Option<usize>) -> Vec<Likeness> {
    let rect_centre = e
        .rect
        .as_deref()
        .map(|r| (r.x + r.width / 2.0, r.y + r.height / 2.0));
    let mut ranked: Vec<(u32, f64, Likeness)> = Vec::new();
    for n in &s.nodes {
        if Some(n.index) == exclude {
            continue;
        }
        let id = identity(n);
        let mut agrees = Vec::new();
        let mut score = 0;
        let id_same = e.id.is_some() && id.id.as_deref() == e.id.as_deref();
        if id_same {
            agrees.push("id");
            score += 16;
        }
        let role_same = id.role == e.role;
        if role_same {
            agrees.push("role");
            score += 4;
        }
        if !id_same && !role_same {
            continue;
        }
        let (chain, broken) = ancestry(s, n, e.ancestry.len());
        let ancestry_same = !e.ancestry.is_empty()
            && !broken
            && chain.len() >= e.ancestry.len()
            && e.ancestry
                .iter()
                .zip(&chain)
                .all(|(r, o)| o.role == r.role && (r.label.is_none() || o.label == r.label));
        if ancestry_same {
            agrees.push("ancestry");
            score += 8;
        }
        let sibling_same = s.sibling_index(n) == e.sibling;
        if sibling_same {
            agrees.push("sibling");
            score += 4;
        }
        if !(id_same || ancestry_same || sibling_same) {
            continue;
        }
        // The order among the elements that carry its own identity, as it was recorded among
        // the recorded identity's.
        let peers: Vec<&FlatNode> = s.nodes.iter().filter(|o| identity(o) == id).collect();
        if peers.iter().position(|o| o.index == n.index) == Some(e.viewport_order as usize) {
            agrees.push("viewportOrder");
            score += 1;
        }
        let distance = match (rect_centre, n.rect) {
            (Some((x, y)), Some(r)) => {
                let c = r.center();
                if e.rect.as_deref().is_some_and(|rr| {
                    c.x >= rr.x && c.x <= rr.x + rr.width && c.y >= rr.y && c.y <= rr.y + rr.height
                }) {
                    agrees.push("position");
                    score += 2;
                }
                ((c.x - x).powi(2) + (c.y - y).powi(2)).sqrt()
            }
            _ => f64::MAX,
        };
        let mut differs = Vec::new();
        if e.id.is_some() && id.id.as_deref() != e.id.as_deref() {
            differs.push("id");
        }
        if !role_same {
            differs.push("role");
        }
        if id.label.as_deref() != e.label.as_deref() {
            differs.push("label");
        }
        ranked.push((
            score,
            distance,
            Likeness {
                node: n.index,
                agrees,
                differs,
            },
        ));
    }
    ranked.sort_by(|a, b| {
        b.0.cmp(&a.0)
            .then(a.1.total_cmp(&b.1))
            .then(a.2.node.cmp(&b.2.node))
    });
    ranked.into_iter().map(|r| r.2).collect()
}

/// Ranked suggestions: more identity components first, then the recorded scroll region, then
/// document order (ADR 0012); then the elements the other evidence fields point at when the
/// recorded identity is gone ([`rank_by_evidence`], basis `evidence`). The element a binding
/// failure refused is never suggested.
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
            selector: clip(scope, &crate::core::select::selector_for(s, n)),
            basis: b.into(),
            reference: n.reference.clone(),
            role: clip_plain(&display_role(n)),
            id: None,
            label: display_label(n).map(|l| clip(scope, &l)),
            agrees: Vec::new(),
            differs: Vec::new(),
        };
        match found.iter_mut().find(|f| f.2 == w) {
            Some(f) if basis_rank(b) < f.0 => *f = (basis_rank(b), region_rank, w, m),
            Some(_) => {}
            None => found.push((basis_rank(b), region_rank, w, m)),
        }
    }
    found.sort_by_key(|f| (f.0, f.1, f.2));
    let same_screen = input.binding_snapshot.is_some_and(|b| std::ptr::eq(b, s));
    let listed: Vec<usize> = found.iter().map(|f| f.2).collect();
    let mut out: Vec<Suggestion> = found.into_iter().map(|f| f.3).collect();
    if let Some(e) = input.evidence {
        let exclude = refused.filter(|_| same_screen);
        for l in rank_by_evidence(s, e, exclude)
            .into_iter()
            .filter(|l| !listed.contains(&l.node))
            .take(EVIDENCE_CANDIDATES)
        {
            let n = &s.nodes[l.node];
            out.push(Suggestion {
                selector: clip(scope, &crate::core::select::selector_for(s, n)),
                basis: "evidence".into(),
                reference: n.reference.clone(),
                role: clip_plain(&display_role(n)),
                id: identity(n).id.map(|i| clip(scope, &i)),
                label: display_label(n).map(|l| clip(scope, &l)),
                agrees: l.agrees.iter().map(|a| a.to_string()).collect(),
                differs: l.differs.iter().map(|d| d.to_string()).collect(),
            });
        }
    }
    out
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
            let (refs, omitted) = screen_refs(snapshot, input.evidence, scope);
            Screen::Available {
                refs_generation: *generation,
                refs,
                truncated: (omitted > 0).then_some(true),
                omitted: (omitted > 0).then_some(omitted),
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
        // agent-device requires a reason whenever the resume is refused.
        reason: (!input.resumable).then(|| {
            clip(
                scope,
                input
                    .resume_refusal
                    .as_deref()
                    .unwrap_or("the session ends with the run"),
            )
        }),
        // Set by a repair-armed run that holds its session (authoring::repair).
        repair_session_held: None,
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
        refs,
        truncated,
        omitted,
        ..
    } = &mut d.screen
    {
        if refs.len() > max_refs {
            *omitted = Some(omitted.unwrap_or(0) + refs.len() - max_refs);
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
                omitted: None,
            },
            suggestions: vec![],
            suggestion_count: 0,
            resume: Resume {
                allowed: true,
                from: 1,
                plan_digest: "d".into(),
                alternate_from: None,
                reason: None,
                repair_session_held: None,
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

    /// The to-do page of tests/web/renamed-filter.html: a heading, a list, the filters in a
    /// navigation (text between the links), a footer link.
    fn filters(done_label: &str) -> Snapshot {
        let link = |id: Option<&str>, label: &str, x: f64| {
            serde_json::json!({"type": "link", "id": id, "label": label, "hittable": true,
                "rect": {"x": x, "y": 138.0, "width": 40.0, "height": 17.0}})
        };
        let text = serde_json::json!({"type": "text"});
        let root: Vec<crate::core::tree::Node> = serde_json::from_value(serde_json::json!([
            {"type": "heading", "label": "todos"},
            {"type": "navigation", "label": "Filters", "children": [
                link(Some("filter-all"), "All", 24.0), text, link(None, "Active", 57.0),
                text, link(None, done_label, 117.0)
            ]},
            {"type": "contentinfo", "children": [link(None, "Help", 24.0)]}
        ]))
        .unwrap();
        Snapshot::flatten(
            &root,
            crate::core::tree::Rect {
                x: 0.0,
                y: 0.0,
                width: 1280.0,
                height: 713.0,
            },
        )
    }

    /// The evidence recorded when the third filter was labelled "Completed".
    fn completed() -> TargetEvidence {
        ad_grammar::annotation::parse_target(r#"{"role":"link","label":"Completed","ancestry":[{"role":"navigation","label":"Filters"}],"sibling":4,"viewportOrder":0,"rect":{"x":117,"y":138,"width":70,"height":17},"verification":"verified"}"#).unwrap()
    }

    fn label_of(s: &Snapshot, l: &Likeness) -> String {
        s.nodes[l.node].label.clone().unwrap_or_default()
    }

    #[test]
    fn a_renamed_element_ranks_first_by_the_other_evidence_fields() {
        let s = filters("Done");
        let ranked = rank_by_evidence(&s, &completed(), None);
        let labels: Vec<String> = ranked.iter().map(|l| label_of(&s, l)).collect();
        // "Done" shares role, ancestry, sibling, order and place; "All" and "Active" only the
        // role, the ancestry and the order ("Active" is nearer the recorded rect); "Help" (another
        // container, another position) is no candidate, nor is anything of another role.
        assert_eq!(labels, ["Done", "Active", "All"]);
        assert_eq!(
            ranked[0].agrees,
            ["role", "ancestry", "sibling", "viewportOrder", "position"]
        );
        assert_eq!(ranked[0].differs, ["label"]);
        assert_eq!(ranked[1].agrees, ["role", "ancestry", "viewportOrder"]);
    }

    #[test]
    fn an_id_outranks_every_other_field_and_the_refused_element_is_never_ranked() {
        let s = filters("Done");
        let mut e = completed();
        e.id = Some("filter-all".into());
        let ranked = rank_by_evidence(&s, &e, None);
        assert_eq!(label_of(&s, &ranked[0]), "All");
        assert_eq!(ranked[0].differs, ["label"]);
        // "Done" no longer has the recorded id: that differs too.
        assert_eq!(ranked[1].differs, ["id", "label"]);
        let all = ranked[0].node;
        let without = rank_by_evidence(&s, &e, Some(all));
        assert!(without.iter().all(|l| l.node != all));
    }

    #[test]
    fn the_report_suggests_the_renamed_element_for_a_selector_miss() {
        let s = filters("Done");
        let e = completed();
        let binding = BindingFailure {
            kind: DivergenceKind::SelectorMiss,
            cause_code: "SELECTOR_MISS",
            cause_message: "gone".into(),
            match_count: Some(0),
            observed: None,
            candidates: Vec::new(),
            mismatches: Vec::new(),
        };
        let input = Input {
            kind: DivergenceKind::SelectorMiss,
            step: 2,
            path: "f.ad".into(),
            line: 4,
            action: "click".into(),
            cause_code: "SELECTOR_MISS".into(),
            cause_message: "gone".into(),
            cause_hint: None,
            screen: ScreenEvidence::Available {
                snapshot: &s,
                generation: 1,
            },
            evidence: Some(&e),
            binding: Some(&binding),
            binding_snapshot: Some(&s),
            selector: Some("label=\"Completed\"".into()),
            policy: Policy {
                require_rect: true,
                require_unique: true,
                disambiguate: true,
            },
            total_steps: 3,
            plan_digest: "d".into(),
            session_exists: true,
            resumable: true,
            resume_refusal: None,
        };
        let d = build(&input, &Scope::default());
        let first = &d.suggestions[0];
        assert_eq!(first.basis, "evidence");
        assert_eq!(first.label.as_deref(), Some("Done"));
        assert_eq!(first.differs, ["label"]);
        assert_eq!(first.selector, "role=\"link\" label=\"Done\"");
        assert_eq!(d.suggestions.len(), EVIDENCE_CANDIDATES);
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
