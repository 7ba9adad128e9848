//! The commands that read the screen: `is`, `get`, `snapshot` (which activates a ref frame).

use std::sync::Arc;

use ad_compiler::registry::{GetOp, Verification};
use ad_compiler::shape::{is_form, IsForm, Predicate};
use ad_compiler::Step;
use serde_json::{Map, Value};

use super::failure::{Fail, Outcome};
use super::targets::{node_ref, policy_for};
use super::Exec;
use crate::core::backend::Backend;
use crate::core::frame::FrameScope;
use crate::core::identity::{self, Verdict};
use crate::core::records::error_codes;
use crate::core::records::journal::{Phase, StepResult};
use crate::core::select::{self, resolve, Policy, Selector};
use crate::core::tree::{display_label, display_role, Snapshot};

impl<B: Backend> Exec<'_, B> {
    pub(super) async fn is(&mut self, step: &Step<'_>, p: &[String]) -> Outcome {
        let (predicate, selector, expected) = match is_form(p) {
            IsForm::Check {
                predicate,
                selector,
                expected,
            } => (predicate, selector, expected),
            IsForm::Invalid { message } => {
                return Err(Fail::new(error_codes::INVALID_ARGS, message))
            }
        };
        let sel = self
            .selector(&selector)
            .map_err(|m| Fail::new(error_codes::INVALID_ARGS, m))?;
        let snap = self.observe(Phase::Assert).await?;
        // agent-device: `exists` takes any match and `absent` none; every other predicate reads
        // one element and fails closed (no tiebreak) when the selector does not single one out,
        // before identity or the predicate is looked at ("Selector did not match: SEL").
        let any = matches!(predicate, Predicate::Exists | Predicate::Absent);
        let r = resolve(
            &snap,
            &sel,
            if any {
                Policy::ANY
            } else {
                Policy::READ_UNIQUE
            },
        );
        if !any && r.winner.is_none() {
            return Err(Fail::new(
                error_codes::COMMAND_FAILED,
                format!("Selector did not match: {selector}"),
            )
            .hint("Selector text/label values match exactly (quote multi-word values: text=\"Sign in\"). Add a snapshot step to see current elements, or wait for the element first.")
            .reason("selector_not_found"));
        }
        let evidence = step.target_evidence.as_deref().filter(|_| {
            !any && step
                .spec()
                .is_some_and(|s| s.verification == Verification::PreDispatch)
        });
        if let Some(e) = evidence {
            if let Verdict::Failed(b) = identity::verify(&snap, e, &r.matched, r.winner) {
                return Err(self.binding_fail(b, snap));
            }
        }
        let fail = |detail: String| {
            Fail::new(
                error_codes::COMMAND_FAILED,
                format!("is {predicate} failed for selector {selector}: {detail}"),
            )
            .reason("predicate_failed")
        };
        if let Some(w) = r.winner {
            self.resolved.push((snap.clone(), w));
        }
        let node = r.winner.map(|w| &snap.nodes[w]);
        let pass = match predicate {
            Predicate::Exists => !r.matched.is_empty(),
            Predicate::Absent => r.matched.is_empty(),
            Predicate::Visible => node.is_some_and(|n| select::is_visible(n) && snap.on_screen(n)),
            Predicate::Hidden => {
                node.is_some_and(|n| !(select::is_visible(n) && snap.on_screen(n)))
            }
            Predicate::Editable => node.is_some_and(|n| n.editable && n.enabled),
            Predicate::Selected => node.is_some_and(|n| n.selected),
            Predicate::Focused => node.is_some_and(|n| n.focused),
            Predicate::Text => node.is_some_and(|n| {
                crate::core::tree::normalize_text(crate::core::tree::display_text(n))
                    == crate::core::tree::normalize_text(&expected)
                    || n.value.as_deref().is_some_and(|v| {
                        crate::core::tree::normalize_text(v)
                            == crate::core::tree::normalize_text(&expected)
                    })
            }),
        };
        if pass {
            Ok(Some(StepResult::Predicate {
                predicate: predicate.as_str().to_string(),
                pass,
                matches: r.matched.len(),
                target: node.map(node_ref),
            }))
        } else {
            let observed = match (predicate, node) {
                (Predicate::Exists, _) => "no element matched".to_string(),
                (Predicate::Absent, _) => format!("{} element(s) matched", r.matched.len()),
                (Predicate::Text, Some(n)) => {
                    format!("text is \"{}\"", crate::core::tree::display_text(n))
                }
                (_, Some(n)) => format!(
                    "{} [{}] is not {predicate}",
                    display_label(n).unwrap_or_default(),
                    display_role(n)
                ),
                _ => "no element".into(),
            };
            Err(fail(observed))
        }
    }

    pub(super) async fn get(&mut self, step: &Step<'_>, op: GetOp, p: &[String]) -> Outcome {
        if op == GetOp::Unknown {
            return Err(Fail::misread("get"));
        }
        let Some(t) = p.get(1).cloned() else {
            return Err(Fail::misread("get"));
        };
        let (tree, idx) = if t.starts_with('@') {
            let (tree, idx, warn) = self.frames.admit_read(&t).map_err(|r| {
                Fail::new(error_codes::COMMAND_FAILED, r.message.clone())
                    .hint(r.hint.clone())
                    .reason(r.reason)
            })?;
            if let Some(w) = warn {
                self.warnings.push(w);
            }
            (tree, idx)
        } else {
            let policy = policy_for(step, p);
            let evidence = step.target_evidence.as_deref().filter(|_| {
                step.spec()
                    .is_some_and(|s| s.verification == Verification::PreDispatch)
            });
            let r = self
                .selector_target(step, &t, policy, evidence, false)
                .await?;
            (r.tree.expect("tree"), r.node.expect("node"))
        };
        let n = &tree.nodes[idx];
        let (text, attrs) = if op == GetOp::Text {
            (Some(crate::core::tree::display_text(n).to_string()), None)
        } else {
            (None, Some(n.clone()))
        };
        Ok(Some(StepResult::Read {
            target: node_ref(n),
            text,
            attrs,
        }))
    }

    pub(super) async fn snapshot(&mut self, flags: &Map<String, Value>) -> Outcome {
        let snap = self.observe(Phase::Snapshot).await?;
        let scope = flags
            .get("snapshotScope")
            .and_then(Value::as_str)
            .map(str::to_string);
        let tree = match &scope {
            None => snap.clone(),
            Some(s) => {
                let root = if s.starts_with('@') {
                    let (t, i, _) = self.frames.admit_read(s).map_err(|r| {
                        Fail::new(error_codes::COMMAND_FAILED, r.message.clone())
                            .hint(r.hint.clone())
                            .reason(r.reason)
                    })?;
                    // Find the same node in the new capture by identity.
                    let want = identity::identity(&t.nodes[i]);
                    snap.nodes
                        .iter()
                        .find(|n| identity::identity(n) == want)
                        .map(|n| n.index)
                } else {
                    match Selector::parse(s) {
                        Ok(sel) => resolve(&snap, &sel, Policy::ANY).matched.first().copied(),
                        Err(_) => {
                            let q = s.to_lowercase();
                            snap.nodes
                                .iter()
                                .find(|n| {
                                    [n.label.as_deref(), n.value.as_deref(), n.id.as_deref()]
                                        .into_iter()
                                        .flatten()
                                        .any(|x| x.to_lowercase().contains(&q))
                                })
                                .map(|n| n.index)
                        }
                    }
                };
                let Some(root) = root else {
                    return Err(Fail::new(
                        error_codes::COMMAND_FAILED,
                        format!("snapshot scope {s} matched nothing"),
                    )
                    .hint("check the scope label or selector"));
                };
                Arc::new(subtree(&snap, root))
            }
        };
        // `-i`: what agent-device's web backend asks agent-browser for (`snapshot --interactive`),
        // the elements a user can act on, as a flat list whose refs count only them.
        let tree = if flags.get("snapshotInteractiveOnly") == Some(&Value::Bool(true)) {
            Arc::new(interactive_only(&tree))
        } else {
            tree
        };
        let generation = self.frames.activate(tree.clone(), FrameScope::All);
        Ok(Some(StepResult::Snapshot {
            refs_generation: generation,
            refs: tree.nodes.len(),
            scope,
        }))
    }
}

/// The nodes a user can act on (`hittable`: on the web the interactive roles agent-browser's
/// `--interactive` keeps, enabled and laid out), in document order, flat and re-indexed: `@e1` is
/// the first of them, as after agent-device's `snapshot -i`.
pub(super) fn interactive_only(s: &Snapshot) -> Snapshot {
    let nodes = s
        .nodes
        .iter()
        .filter(|n| n.hittable)
        .enumerate()
        .map(|(i, n)| {
            let mut m = n.clone();
            m.index = i;
            m.reference = format!("e{}", i + 1);
            m.depth = 0;
            m.parent_index = None;
            m
        })
        .collect();
    Snapshot {
        nodes,
        viewport: s.viewport,
    }
}

/// The subtree rooted at `root`, re-indexed (scoped snapshots issue their own refs).
pub(super) fn subtree(s: &Snapshot, root: usize) -> Snapshot {
    let base = s.nodes[root].depth;
    let mut nodes = Vec::new();
    let mut map = std::collections::BTreeMap::new();
    for n in &s.nodes[root..] {
        if n.index != root && n.depth <= base {
            break;
        }
        let new_index = nodes.len();
        map.insert(n.index, new_index);
        let mut m = n.clone();
        m.index = new_index;
        m.reference = format!("e{}", new_index + 1);
        m.depth = n.depth - base;
        m.parent_index = if n.index == root {
            None
        } else {
            n.parent_index.and_then(|p| map.get(&p).copied())
        };
        nodes.push(m);
    }
    Snapshot {
        nodes,
        viewport: s.viewport,
    }
}
