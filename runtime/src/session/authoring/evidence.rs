//! Target evidence captured at action time (ADR 0012 as the writer records it): the element an
//! armed session's step resolved becomes a canonical `target-v1` annotation, with the writer's
//! reductions and the session-scoped echo protection of ADR 0017 (#1398).

use ad_grammar::annotation::{
    CompactString, Rect, TargetEvidence, VerificationState, ANCESTRY_CAP, TARGET_PAYLOAD_CAP,
};

use crate::core::identity::{self, ancestry};
use crate::core::select::{resolve, Policy, Selector};
use crate::core::tree::{normalize_type, Snapshot};
use crate::core::vars::Redactor;

/// How the step uses its element.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// Acted on or read (verified before dispatch on replay).
    Action,
    /// Matched by a selector `wait` (a landmark guard on replay).
    Landmark,
}

/// The evidence for `node` of `snap`, or `None` for a landmark that has no identity (neither id
/// nor label) or whose identity echoes a parameterized literal: such a wait records no
/// annotation, so it cannot serve as a destination guard.
///
/// `echo` holds the literals the session parameterized before this step (`${NAME}`
/// replacements): an action's evidence that echoes one is redacted and downgraded to
/// `unverifiable`; `exact` is the step's own `--record-as` pair, matched only exactly (the
/// fill-boundary rule).
pub fn capture(
    snap: &Snapshot,
    node: usize,
    mode: Mode,
    echo: &Redactor,
    exact: Option<(&str, &str)>,
) -> Option<TargetEvidence> {
    let n = snap.nodes.get(node)?;
    let id = identity::identity(n);
    let (chain, _) = ancestry(snap, n, ANCESTRY_CAP);
    let mut e = TargetEvidence {
        id: id.id,
        role: id.role,
        label: id.label,
        ancestry: chain,
        sibling: snap.sibling_index(n),
        viewport_order: 0,
        scroll_region: identity::region_of(snap, n).map(Box::new),
        rect: n.rect.map(|r| {
            Box::new(Rect {
                x: r.x,
                y: r.y,
                width: r.width,
                height: r.height,
            })
        }),
        verification: VerificationState::Verified,
    };
    e.viewport_order = identity::viewport_order(snap, node, &e.ancestry);
    if mode == Mode::Landmark && e.id.is_none() && e.label.is_none() {
        return None;
    }
    let mut echoed = false;
    let mut scrub = |s: &mut Option<CompactString>| {
        let Some(v) = s else { return };
        if let Some((name, literal)) = exact {
            if v == literal {
                *v = format!("${{{name}}}").into();
                echoed = true;
                return;
            }
        }
        let r = echo.redact(v);
        if r != *v {
            *v = r.into();
            echoed = true;
        }
    };
    scrub(&mut e.label);
    for a in &mut e.ancestry {
        scrub(&mut a.label);
    }
    if let Some(region) = &mut e.scroll_region {
        scrub(&mut region.label);
    }
    if echoed {
        match mode {
            Mode::Landmark => return None,
            Mode::Action => e.verification = VerificationState::Unverifiable,
        }
    }
    Some(reduce(e))
}

/// What the recorder writes as an acted step's element target, checked under the replay's own
/// rules on the screen it was recorded on: the selector must resolve (the tiebreak: visible,
/// deepest, smallest) to an element whose identity verification against the evidence isolates
/// the acted element.
pub enum Written {
    /// The typed selector (or the ref's selector chain) already does.
    Keep,
    /// It does not; this selector does (more terms: role, id, label, value).
    Selector(String),
    /// Nothing the element's own terms can spell does: what to tell the author.
    Unresolvable(String),
}

/// Checks `current` (the step's selector, or the ref's chain; `None` when there is none) and,
/// when it does not single out `node` as replay would, the selectors the element's terms allow,
/// most readable first: `id`, `role label`, `role label value`, `role value`, `role` (a nameless
/// element, which its evidence's ancestry, `sibling` and `viewportOrder` then isolate).
pub fn writable_target(
    snap: &Snapshot,
    node: usize,
    e: &TargetEvidence,
    policy: Policy,
    current: Option<&str>,
) -> Written {
    // Unverifiable evidence (an echoed literal) fails on replay whatever the selector says.
    if e.verification == VerificationState::Unverifiable {
        return Written::Keep;
    }
    let Some(n) = snap.nodes.get(node) else {
        return Written::Keep;
    };
    let verifies = |sel: &str| {
        let Ok(parsed) = Selector::parse(sel) else {
            return false;
        };
        let r = resolve(snap, &parsed, policy);
        matches!(
            identity::verify(snap, e, &r.matched, r.winner),
            identity::Verdict::Verified { node: v, .. } if v == node
        )
    };
    if current.is_some_and(verifies) {
        return Written::Keep;
    }
    let q = |s: &str| serde_json::to_string(s).unwrap_or_default();
    let term = |key: &str, s: Option<&str>| {
        s.map(str::trim)
            .filter(|s| !s.is_empty())
            .map(|v| format!("{key}={}", q(v)))
    };
    let role = term("role", Some(&normalize_type(&n.kind)));
    let id = term("id", n.id.as_deref());
    let label = term("label", n.label.as_deref());
    let value = term("value", n.value.as_deref());
    let join = |terms: &[&Option<String>]| {
        terms
            .iter()
            .map(|t| t.as_deref())
            .collect::<Option<Vec<&str>>>()
            .map(|t| t.join(" "))
    };
    let candidates = [
        join(&[&id]),
        join(&[&role, &label]),
        join(&[&role, &label, &value]),
        join(&[&role, &value]),
        join(&[&role]),
    ];
    if let Some(found) = candidates.into_iter().flatten().find(|c| verifies(c)) {
        return Written::Selector(found);
    }
    Written::Unresolvable(format!(
        "no selector of the element's own terms (role, id, label, value) resolves to it as replay resolves on the screen it was recorded on{}, so its replay fails identity verification; give the element an id or a distinct label",
        current
            .map(|c| format!(" ({c} resolves to another element)"))
            .unwrap_or_default()
    ))
}

/// The writer's size reductions: ancestry dropped from the root side until the payload fits
/// 4,096 bytes; when even the parent alone does not fit, `unverifiable` (and no `rect` if still
/// too large). Fields are already capped at 256 bytes on character boundaries.
pub fn reduce(mut e: TargetEvidence) -> TargetEvidence {
    let fits = |e: &TargetEvidence| e.to_canonical_json().len() <= TARGET_PAYLOAD_CAP;
    while !fits(&e) && e.ancestry.len() > 1 {
        e.ancestry.pop();
    }
    if !fits(&e) {
        e.verification = VerificationState::Unverifiable;
        if !fits(&e) {
            e.rect = None;
        }
        if !fits(&e) {
            e.ancestry.clear();
        }
    }
    e
}

#[cfg(test)]
mod tests {
    use super::*;
    use ad_grammar::annotation::AncestryEntry;

    fn evidence(ancestors: usize, label_len: usize) -> TargetEvidence {
        TargetEvidence {
            id: Some("x".into()),
            role: "button".into(),
            label: Some("é".repeat(label_len / 2).into()),
            ancestry: (0..ancestors)
                .map(|i| AncestryEntry {
                    role: "other".into(),
                    // Control characters: 6 JSON bytes each, so 8 entries overflow the cap.
                    label: Some(format!("{i}{}", "\u{1}".repeat(250)).into()),
                })
                .collect(),
            sibling: 0,
            viewport_order: 0,
            scroll_region: None,
            rect: None,
            verification: VerificationState::Verified,
        }
    }

    #[test]
    fn ancestry_is_trimmed_from_the_root_side_to_fit_the_payload_cap() {
        let e = reduce(evidence(8, 256));
        assert!(e.to_canonical_json().len() <= TARGET_PAYLOAD_CAP);
        assert_eq!(e.verification, VerificationState::Verified);
        // Leaf-first: the nearest ancestors stay.
        assert!(e.ancestry[0].label.as_deref().unwrap().starts_with('0'));
        assert!(e.ancestry.len() < 8 && e.ancestry.len() > 1);
        // Parseable by the reader.
        assert!(ad_grammar::annotation::parse_target(&e.to_canonical_json()).is_ok());
    }

    #[test]
    fn evidence_that_cannot_fit_with_its_parent_is_downgraded() {
        let mut e = evidence(1, 256);
        e.ancestry[0].label = Some("b".repeat(5000).into());
        let e = reduce(e);
        assert_eq!(e.verification, VerificationState::Unverifiable);
        assert!(e.to_canonical_json().len() <= TARGET_PAYLOAD_CAP);
    }
}
