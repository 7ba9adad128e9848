//! A step's target: a point, a ref from the active frame, or a selector resolved on a fresh
//! capture (waiting for it to appear), verified against the recorded identity.

use std::sync::Arc;

use ad_compiler::registry::Verification;
use ad_compiler::Step;
use ad_grammar::annotation::TargetEvidence;

use super::exec::num;
use super::failure::Fail;
use super::{Exec, APPEAR_TIMEOUT_MS, POLL_INTERVAL_MS};
use crate::core::backend::Backend;
use crate::core::identity::{self, BindingFailure, Verdict};
use crate::core::records::common::PointTarget;
use crate::core::records::error_codes;
use crate::core::records::journal::{Phase, Resolution, ResolutionKind, StepResult};
use crate::core::records::{NodeRef, Target};
use crate::core::select::{self, resolve, Policy};
use crate::core::tree::{display_label, display_role, FlatNode, Point, Snapshot};

/// A resolved target.
pub(super) struct Resolved {
    pub point: Point,
    /// The node (in `tree`) when the target is an element.
    pub node: Option<usize>,
    pub tree: Option<Arc<Snapshot>>,
    /// What the step acted on (`None`: a drag endpoint given as `x,y`).
    pub target: Option<Target>,
    pub resolution: Option<Resolution>,
    /// `verified` or `unannotated` (selector targets).
    pub verification: Option<&'static str>,
}

impl Resolved {
    /// The step's result: what it acted on and how that was found.
    pub fn result(&self) -> Option<StepResult> {
        Some(StepResult::Targeted {
            target: self.target.clone()?,
            resolution: self.resolution.clone(),
            verification: self.verification.map(str::to_string),
        })
    }
}

/// The step's selector policy, from its targeting in the registry: acting commands need one
/// element, `get text`/`is` read text, other reads take any match. `p` are its interpolated words.
pub(super) fn policy_for(step: &Step<'_>, p: &[String]) -> Policy {
    Policy::for_step(step, p)
}

/// How records name an element of a capture.
pub(super) fn node_ref(n: &FlatNode) -> NodeRef {
    NodeRef {
        reference: n.reference.clone(),
        role: display_role(n),
        id: n.id.clone(),
        label: display_label(n),
    }
}

impl<B: Backend> Exec<'_, B> {
    /// Resolves positional `at` (and `at+1` for points) to a point.
    pub(super) async fn target(
        &mut self,
        step: &Step<'_>,
        p: &[String],
        at: usize,
        appear: bool,
    ) -> Result<Resolved, Fail> {
        if let (Some(x), Some(y)) = (num(p.get(at)), num(p.get(at + 1))) {
            return Ok(Resolved {
                point: Point { x, y },
                node: None,
                tree: None,
                target: Some(Target::Point(PointTarget {
                    point: Point { x, y },
                })),
                resolution: None,
                verification: None,
            });
        }
        let Some(t) = p.get(at).cloned() else {
            return Err(Fail::misread(step.command()));
        };
        let evidence = step.target_evidence.as_deref().filter(|_| {
            step.spec()
                .is_some_and(|s| s.verification == Verification::PreDispatch)
        });
        let mut r = if t.starts_with('@') {
            self.ref_target(step, &t, evidence).await?
        } else {
            let policy = policy_for(step, p);
            self.selector_target(step, &t, policy, evidence, appear)
                .await?
        };
        match self.refused_touch(step.command(), &t, &mut r) {
            Some(f) => Err(f),
            None => Ok(r),
        }
    }

    /// Sets the point the device touches the resolved element at for `action` (agent-device's
    /// own rules on the bridge); its refusal is this step's failure, before anything is sent.
    pub(super) fn refused_touch(&self, action: &str, t: &str, r: &mut Resolved) -> Option<Fail> {
        let (Some(tree), Some(idx)) = (&r.tree, r.node) else {
            return None;
        };
        match self.backend.touch_point(tree, idx, t, action) {
            Ok(p) => {
                r.point = p;
                None
            }
            Err(refusal) => {
                let mut f = Fail::new(error_codes::COMMAND_FAILED, refusal.message)
                    .hint(refusal.hint)
                    .reason(refusal.reason);
                if t.starts_with('@') {
                    f.details.reference = Some(t.to_string());
                } else {
                    f.details.selector = Some(t.to_string());
                }
                if !refusal.competitors.is_empty() {
                    f.details.candidates = Some(
                        refusal
                            .competitors
                            .iter()
                            .take(5)
                            .filter_map(|&i| tree.nodes.get(i).map(node_ref))
                            .collect(),
                    );
                }
                Some(f)
            }
        }
    }

    pub(super) async fn ref_target(
        &mut self,
        step: &Step<'_>,
        t: &str,
        evidence: Option<&TargetEvidence>,
    ) -> Result<Resolved, Fail> {
        // A pinned ref typed on a live session's command is admitted with its pin (the line
        // reader stripped it from the step).
        let body = crate::core::frame::RefToken::parse(t).body;
        let pinned = self
            .typed_pins
            .iter()
            .find(|p| crate::core::frame::RefToken::parse(p).body == body && p.as_str() != t);
        let t = pinned.map(String::as_str).unwrap_or(t);
        let (tree, idx) = match self.frames.admit_mutation(t) {
            Ok(x) => x,
            Err(r) => {
                let mut f = Fail::new(error_codes::COMMAND_FAILED, r.message.clone())
                    .hint(r.hint.clone())
                    .reason(r.reason);
                f.details.reference = Some(r.reference.clone());
                f.details.current_generation = r.current_generation;
                f.details.minted_generation = r.minted_generation;
                f.details.scope = Some(r.scope.into());
                return Err(f);
            }
        };
        if let Some(e) = evidence {
            if let Verdict::Failed(b) = identity::verify(&tree, e, &[idx], Some(idx)) {
                return Err(self.binding_fail(b, tree));
            }
        }
        let n = &tree.nodes[idx];
        let Some(rect) = n.rect else {
            return Err(Fail::new(
                error_codes::COMMAND_FAILED,
                format!("Ref {t} has no bounds to act on"),
            )
            .hint("target an element with a frame, or use a selector"));
        };
        let _ = step;
        self.resolved.push((tree.clone(), idx));
        Ok(Resolved {
            point: rect.center(),
            node: Some(idx),
            target: Some(Target::Node(node_ref(n))),
            tree: Some(tree),
            resolution: None,
            verification: None,
        })
    }

    pub(super) fn binding_fail(&self, b: BindingFailure, tree: Arc<Snapshot>) -> Fail {
        let mut f = Fail::new(b.cause_code, b.cause_message.clone());
        f.kind = b.kind;
        f.details.reason = Some(b.kind.as_str().into());
        f.binding = Some((b, tree));
        f
    }

    pub(super) async fn selector_target(
        &mut self,
        step: &Step<'_>,
        t: &str,
        policy: Policy,
        evidence: Option<&TargetEvidence>,
        appear: bool,
    ) -> Result<Resolved, Fail> {
        let sel = self.selector(t).map_err(|m| {
            Fail::new(error_codes::INVALID_ARGS, m).hint(format!(
                "Target \"{t}\" is not a @ref, selector, or \"x y\" point."
            ))
        })?;
        let budget = if appear {
            self.remaining(APPEAR_TIMEOUT_MS)
        } else {
            0
        };
        let start = self.backend.now_ms();
        loop {
            let snap = self.observe(Phase::Resolve).await?;
            let r = resolve(&snap, &sel, policy);
            let waited = self.backend.now_ms() - start;
            let found = r.winner.is_some() || !r.matched.is_empty();
            if found || waited >= budget {
                if let Some(e) = evidence {
                    match identity::verify(&snap, e, &r.matched, r.winner) {
                        Verdict::Verified { node, .. } => {
                            return Ok(self.resolved_from(&snap, node, &r, "verified"));
                        }
                        Verdict::Failed(b) => return Err(self.binding_fail(b, snap)),
                    }
                }
                let Some(w) = r.winner else {
                    let (code, msg, hint) = r.failure(policy);
                    let mut f = Fail::new(&code, msg).hint(hint).reason(
                        if code == error_codes::AMBIGUOUS_MATCH {
                            "ambiguous"
                        } else {
                            "wait_target_absent"
                        },
                    );
                    if code == error_codes::AMBIGUOUS_MATCH {
                        let cands = r
                            .matched
                            .iter()
                            .take(5)
                            .map(|&i| node_ref(&snap.nodes[i]))
                            .collect();
                        f.details.candidates = Some(cands);
                    }
                    f.details.selector = Some(t.into());
                    if waited > 0 {
                        f.details.waited_ms = Some(waited);
                    }
                    return Err(f);
                };
                let _ = step;
                return Ok(self.resolved_from(&snap, w, &r, "unannotated"));
            }
            let nap = POLL_INTERVAL_MS.min(budget - waited);
            self.poll_nap(nap).await?;
        }
    }

    fn resolved_from(
        &mut self,
        snap: &Arc<Snapshot>,
        w: usize,
        r: &select::Resolution,
        verification: &'static str,
    ) -> Resolved {
        self.resolved.push((snap.clone(), w));
        let n = &snap.nodes[w];
        let resolution = match &r.disambiguation {
            Some(d) => Resolution {
                kind: ResolutionKind::Disambiguated,
                match_count: d.match_count,
                tiebreak: Some(d.tiebreak.clone()),
                alternatives: Some(
                    d.alternatives
                        .iter()
                        .take(5)
                        .map(|&i| node_ref(&snap.nodes[i]))
                        .collect(),
                ),
                alternative: r.alternative,
            },
            None => Resolution {
                kind: ResolutionKind::Unique,
                match_count: r.matched.len(),
                tiebreak: None,
                alternatives: None,
                alternative: r.alternative,
            },
        };
        let point = n
            .rect
            .map(|r| r.center())
            .unwrap_or(Point { x: 0.0, y: 0.0 });
        Resolved {
            point,
            node: Some(w),
            tree: Some(snap.clone()),
            target: Some(Target::Node(node_ref(n))),
            resolution: Some(resolution),
            verification: Some(verification),
        }
    }
}
