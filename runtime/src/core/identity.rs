//! `target-v1` identity verification (agent-device ADR 0012): before a pre-dispatch step is
//! dispatched, the recorded identity (id, else role + label, plus a leaf-anchored ancestry
//! prefix) must single out the element the selector resolved to; `sibling`, then the
//! region-scoped `viewportOrder`, break ties. Landmark verification for annotated `wait`s uses
//! the identity tier only.

use crate::core::records::DivergenceKind;
use ad_grammar::annotation::{
    normalize_label, AncestryEntry, CompactString, ScrollRegion, TargetEvidence,
};
use serde::Serialize;

use crate::core::records::error_codes;
use crate::core::tree::{normalize_type, FlatNode, Snapshot};

/// A node's identity as agent-device derives it: id, role and label, each capped.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Identity {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub id: Option<CompactString>,
    pub role: CompactString,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub label: Option<CompactString>,
}

fn cap(s: impl AsRef<str>) -> CompactString {
    let s = s.as_ref();
    let mut end = s.len().min(256);
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    CompactString::new(&s[..end])
}

pub fn identity(n: &FlatNode) -> Identity {
    let id = n.id.as_deref().filter(|s| !s.is_empty()).map(cap);
    let label = n
        .label
        .as_deref()
        .map(normalize_label)
        .filter(|s| !s.is_empty())
        .map(cap);
    Identity {
        id,
        role: cap(normalize_type(&n.kind)),
        label,
    }
}

pub fn recorded_identity(e: &TargetEvidence) -> Identity {
    Identity {
        id: e.id.clone(),
        role: e.role.clone(),
        label: e.label.clone(),
    }
}

/// Does an observed identity carry the recorded one? Same id when the record has one, else
/// same role and label.
fn same_identity(observed: &Identity, recorded: &Identity) -> bool {
    match &recorded.id {
        Some(id) => observed.id.as_deref() == Some(id),
        None => observed.role == recorded.role && observed.label == recorded.label,
    }
}

/// Walks up to `n` ancestors, nearest first. `broken` when a parent is missing.
pub fn ancestry(s: &Snapshot, node: &FlatNode, n: usize) -> (Vec<AncestryEntry>, bool) {
    let mut chain = Vec::new();
    let mut cur = node;
    while chain.len() < n {
        let Some(pi) = cur.parent_index else {
            return (chain, false);
        };
        let Some(p) = s.nodes.get(pi) else {
            return (chain, true);
        };
        let id = identity(p);
        chain.push(AncestryEntry {
            role: id.role,
            label: id.label,
        });
        cur = p;
    }
    (chain, false)
}

/// Does the observed ancestor chain start with the recorded entries?
fn ancestry_prefix(observed: &[AncestryEntry], recorded: &[AncestryEntry]) -> bool {
    if observed.len() < recorded.len() {
        return false;
    }
    recorded
        .iter()
        .zip(observed)
        .all(|(r, o)| o.role == r.role && (r.label.is_none() || o.label == r.label))
}

/// The members of `candidates` that carry the recorded identity and ancestry prefix.
pub fn identity_set(
    s: &Snapshot,
    candidates: &[usize],
    recorded: &Identity,
    recorded_ancestry: &[AncestryEntry],
) -> Vec<usize> {
    candidates
        .iter()
        .copied()
        .filter(|&i| {
            let n = &s.nodes[i];
            if !same_identity(&identity(n), recorded) {
                return false;
            }
            let (chain, broken) = ancestry(s, n, recorded_ancestry.len().max(1));
            !broken && ancestry_prefix(&chain, recorded_ancestry)
        })
        .collect()
}

/// The scroll region a node is in, as target-v1 records it (`id`, else `label`).
pub fn region_of(s: &Snapshot, n: &FlatNode) -> Option<ScrollRegion> {
    let r = s.scroll_region(n)?;
    let id = identity(r);
    Some(match id.id {
        Some(i) => ScrollRegion {
            role: id.role,
            id: Some(i),
            label: None,
        },
        None => ScrollRegion {
            role: id.role,
            id: None,
            label: id.label,
        },
    })
}

/// Do two optional region identities agree? Both absent, or equal role and (id or label).
fn same_region(a: Option<&ScrollRegion>, b: Option<&ScrollRegion>) -> bool {
    match (a, b) {
        (None, None) => true,
        (Some(a), Some(b)) => {
            a.role == b.role
                && match &b.id {
                    Some(id) => a.id.as_ref() == Some(id),
                    None => a.label == b.label,
                }
        }
        _ => false,
    }
}

/// Region members ordered by their centre: top to bottom, then left to right, then document
/// order; members without a rect last.
fn viewport_sorted(s: &Snapshot, members: &[usize]) -> Vec<usize> {
    type Keyed = (usize, usize, Option<(f64, f64)>);
    let mut v: Vec<Keyed> = members
        .iter()
        .enumerate()
        .map(|(order, &i)| {
            (
                i,
                order,
                s.nodes[i].rect.map(|r| {
                    let c = r.center();
                    (c.y, c.x)
                }),
            )
        })
        .collect();
    v.sort_by(|a, b| match (a.2, b.2) {
        (None, None) => a.1.cmp(&b.1),
        (Some(_), None) => std::cmp::Ordering::Less,
        (None, Some(_)) => std::cmp::Ordering::Greater,
        (Some(x), Some(y)) => x
            .partial_cmp(&y)
            .unwrap_or(std::cmp::Ordering::Equal)
            .then(a.1.cmp(&b.1)),
    });
    v.into_iter().map(|x| x.0).collect()
}

/// A node's `viewportOrder` as the writer records it: its position, top to bottom then left to
/// right, among the nodes of its scroll region that carry its identity and ancestry (the order
/// [`verify`] reads back).
pub fn viewport_order(s: &Snapshot, node: usize, recorded_ancestry: &[AncestryEntry]) -> u64 {
    let n = &s.nodes[node];
    let all: Vec<usize> = (0..s.nodes.len()).collect();
    let region = region_of(s, n);
    let members: Vec<usize> = identity_set(s, &all, &identity(n), recorded_ancestry)
        .into_iter()
        .filter(|&i| same_region(region_of(s, &s.nodes[i]).as_ref(), region.as_ref()))
        .collect();
    viewport_sorted(s, &members)
        .iter()
        .position(|&i| i == node)
        .unwrap_or(0) as u64
}

/// The verdict of one verification.
#[derive(Debug, Clone, PartialEq)]
pub enum Verdict {
    Verified { node: usize, match_count: usize },
    Failed(BindingFailure),
}

/// Why a recorded target did not verify.
#[derive(Debug, Clone, PartialEq)]
pub struct BindingFailure {
    /// `selector-miss`, `identity-mismatch` or `identity-unverifiable`.
    pub kind: DivergenceKind,
    pub cause_code: &'static str,
    pub cause_message: String,
    /// Absent for a recorded-unverifiable annotation.
    pub match_count: Option<usize>,
    pub observed: Option<usize>,
    pub candidates: Vec<usize>,
    pub mismatches: Vec<String>,
}

fn describe_entry(e: Option<&AncestryEntry>) -> String {
    match e {
        None => "(missing)".into(),
        Some(e) => match &e.label {
            Some(l) if !l.is_empty() => format!("{}/{}", e.role, l),
            _ => e.role.to_string(),
        },
    }
}

/// What differs between the record and the observed node (id, role, label, then ancestry).
pub fn mismatches(s: &Snapshot, recorded: &TargetEvidence, node: &FlatNode) -> Vec<String> {
    let o = identity(node);
    let mut out = Vec::new();
    if recorded.id != o.id {
        out.push(format!(
            "id: recorded={} observed={}",
            recorded.id.as_deref().unwrap_or("(none)"),
            o.id.as_deref().unwrap_or("(none)")
        ));
    }
    if recorded.role != o.role {
        out.push(format!(
            "role: recorded={} observed={}",
            recorded.role, o.role
        ));
    }
    if recorded.label != o.label {
        out.push(format!(
            "label: recorded={} observed={}",
            recorded.label.as_deref().unwrap_or("(none)"),
            o.label.as_deref().unwrap_or("(none)")
        ));
    }
    let (chain, _) = ancestry(s, node, recorded.ancestry.len().max(1));
    for (i, r) in recorded.ancestry.iter().enumerate() {
        let ob = chain.get(i);
        let differs = match ob {
            None => true,
            Some(ob) => ob.role != r.role || (r.label.is_some() && ob.label != r.label),
        };
        if differs {
            out.push(format!(
                "ancestry[{i}]: recorded={} observed={}",
                describe_entry(Some(r)),
                describe_entry(ob)
            ));
            break;
        }
    }
    out.truncate(5);
    out
}

/// Pre-dispatch verification: `matched` are the selector's matches, `winner` the
/// element resolution settled on (if any).
pub fn verify(
    s: &Snapshot,
    recorded: &TargetEvidence,
    matched: &[usize],
    winner: Option<usize>,
) -> Verdict {
    use ad_grammar::annotation::VerificationState;
    if recorded.verification == VerificationState::Unverifiable {
        return Verdict::Failed(BindingFailure {
            kind: DivergenceKind::IdentityUnverifiable,
            cause_code: error_codes::IDENTITY_UNVERIFIABLE,
            cause_message: "The recorded target evidence is marked unverifiable, so the step cannot be proven to act on the recorded element.".into(),
            match_count: None,
            observed: winner,
            candidates: Vec::new(),
            mismatches: Vec::new(),
        });
    }
    let rid = recorded_identity(recorded);
    if matched.is_empty() {
        return Verdict::Failed(BindingFailure {
            kind: DivergenceKind::SelectorMiss,
            cause_code: error_codes::SELECTOR_MISS,
            cause_message: "The recorded target no longer matches any current element.".into(),
            match_count: Some(0),
            observed: None,
            candidates: Vec::new(),
            mismatches: Vec::new(),
        });
    }
    let set = identity_set(s, matched, &rid, &recorded.ancestry);
    let siblings: Vec<usize> = set
        .iter()
        .copied()
        .filter(|&i| s.sibling_index(&s.nodes[i]) == recorded.sibling)
        .collect();
    let region: Vec<usize> = set
        .iter()
        .copied()
        .filter(|&i| {
            same_region(
                region_of(s, &s.nodes[i]).as_ref(),
                recorded.scroll_region.as_deref(),
            )
        })
        .collect();
    let viewport_candidate = viewport_sorted(s, &region)
        .get(recorded.viewport_order as usize)
        .copied();
    // No winner: the selector matched several elements and the tiebreak (visible, deepest,
    // smallest) could not settle them (identical rows). The recorded identity and its
    // positional signals settle it instead; a winner the tiebreak did pick must be the one.
    let winner_ok = |i: usize| winner.is_none_or(|w| w == i);
    let fail = |kind: DivergenceKind, code: &'static str, msg: String, cands: Vec<usize>| {
        Verdict::Failed(BindingFailure {
            kind,
            cause_code: code,
            cause_message: msg,
            match_count: Some(matched.len()),
            observed: winner,
            candidates: cands,
            mismatches: if kind == DivergenceKind::IdentityMismatch {
                winner
                    .map(|w| mismatches(s, recorded, &s.nodes[w]))
                    .unwrap_or_default()
            } else {
                Vec::new()
            },
        })
    };
    let verified = |node: usize| Verdict::Verified {
        node,
        match_count: matched.len(),
    };
    if set.is_empty() {
        return fail(
            DivergenceKind::IdentityMismatch,
            error_codes::IDENTITY_MISMATCH,
            "The recorded selector/ref still matches, but nothing in the current tree carries the recorded identity.".into(),
            Vec::new(),
        );
    }
    if set.len() == 1 {
        return if winner_ok(set[0]) {
            verified(set[0])
        } else {
            fail(
                DivergenceKind::IdentityMismatch,
                error_codes::IDENTITY_MISMATCH,
                "Exactly one current element carries the recorded identity, but the resolved target is a different element.".into(),
                Vec::new(),
            )
        };
    }
    if siblings.len() == 1 {
        return if winner_ok(siblings[0]) {
            verified(siblings[0])
        } else {
            fail(
                DivergenceKind::IdentityMismatch,
                error_codes::IDENTITY_MISMATCH,
                "A disambiguation signal (sibling or viewport position) isolated a different element than the resolved target.".into(),
                Vec::new(),
            )
        };
    }
    if !region.is_empty() {
        if let Some(v) = viewport_candidate {
            return if winner_ok(v) {
                verified(v)
            } else {
                fail(
                    DivergenceKind::IdentityMismatch,
                    error_codes::IDENTITY_MISMATCH,
                    "A disambiguation signal (sibling or viewport position) isolated a different element than the resolved target.".into(),
                    Vec::new(),
                )
            };
        }
    }
    let n = set.len();
    fail(
        DivergenceKind::IdentityUnverifiable,
        error_codes::IDENTITY_UNVERIFIABLE,
        format!("{n} current elements carry the recorded identity and neither disambiguation signal isolated one."),
        set.into_iter().take(5).collect(),
    )
}

/// Landmark verification for an annotated `wait`: the first match carrying the recorded
/// identity, if any.
pub fn landmark(s: &Snapshot, recorded: &TargetEvidence, matched: &[usize]) -> Option<usize> {
    identity_set(s, matched, &recorded_identity(recorded), &recorded.ancestry)
        .first()
        .copied()
}
