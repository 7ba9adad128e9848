//! Ref frames (agent-device ADR 0014). A `snapshot` step activates a frame (all of its refs, or
//! exactly the refs of a scoped snapshot); a mutating step expires it at the side-effect seam,
//! before dispatch, success or not. A ref-targeting mutation is admitted only from the active
//! frame, else rejected with the first typed reason that applies: `ref_frame_expired`,
//! `ref_generation_mismatch`, `plain_ref_requires_complete_frame`, `ref_not_issued`.

use std::collections::BTreeSet;
use std::sync::Arc;

use serde::Serialize;

use crate::core::tree::{FlatNode, Snapshot};

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FrameScope {
    All,
    Issued(BTreeSet<String>),
}

#[derive(Debug, Clone)]
pub struct RefFrame {
    pub generation: u64,
    pub tree: Arc<Snapshot>,
    pub expired: bool,
    pub scope: FrameScope,
}

/// A rejected ref, with ADR 0014's details.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RefRejection {
    pub reason: &'static str,
    #[serde(rename = "ref")]
    pub reference: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub current_generation: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub minted_generation: Option<u64>,
    pub scope: &'static str,
    pub message: String,
    pub hint: String,
}

/// A parsed `@eN[~sG]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RefToken {
    pub body: String,
    pub pin: Option<u64>,
}

impl RefToken {
    pub fn parse(text: &str) -> RefToken {
        let t = text.strip_prefix('@').unwrap_or(text);
        if let Some(pos) = t.find('~') {
            if pos > 0 {
                if let Some(digits) = t[pos..].strip_prefix("~s") {
                    if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) {
                        return RefToken {
                            body: t[..pos].to_string(),
                            pin: digits.parse().ok(),
                        };
                    }
                }
            }
        }
        RefToken {
            body: t.to_string(),
            pin: None,
        }
    }
}

/// The session's single ref frame.
#[derive(Debug, Clone)]
pub struct Frames {
    current: Option<RefFrame>,
    next_generation: u64,
}

impl Frames {
    /// `seed` makes the epoch session-specific (pins of another session do not match).
    pub fn new(seed: u64) -> Frames {
        Frames {
            current: None,
            next_generation: seed,
        }
    }

    pub fn current(&self) -> Option<&RefFrame> {
        self.current.as_ref()
    }

    /// Activates a new frame (superseding the old one) and returns its generation.
    pub fn activate(&mut self, tree: Arc<Snapshot>, scope: FrameScope) -> u64 {
        self.next_generation += 1;
        let generation = self.next_generation;
        self.current = Some(RefFrame {
            generation,
            tree,
            expired: false,
            scope,
        });
        generation
    }

    /// Crosses the side-effect seam: idempotent.
    pub fn expire(&mut self) -> bool {
        match &mut self.current {
            Some(f) if !f.expired => {
                f.expired = true;
                true
            }
            _ => false,
        }
    }

    fn reject(
        &self,
        reason: &'static str,
        token: &RefToken,
        text: &str,
        message: String,
        hint: &str,
    ) -> Box<RefRejection> {
        let f = self.current.as_ref();
        Box::new(RefRejection {
            reason,
            reference: format!("@{}", token.body),
            current_generation: f.map(|f| f.generation),
            minted_generation: token.pin,
            scope: match f.map(|f| &f.scope) {
                Some(FrameScope::Issued(_)) => "partial",
                Some(FrameScope::All) => "all",
                None => "none",
            },
            message: if message.is_empty() {
                format!("Ref {text} was rejected")
            } else {
                message
            },
            hint: hint.to_string(),
        })
    }

    /// Admission for a mutation: the node the active frame authorizes.
    pub fn admit_mutation(&self, text: &str) -> Result<(Arc<Snapshot>, usize), Box<RefRejection>> {
        let token = RefToken::parse(text);
        let fresh =
            "Add a `snapshot` step right before this step, or target the element with a selector.";
        let Some(frame) = &self.current else {
            return Err(self.reject(
                "ref_not_issued",
                &token,
                text,
                format!("Ref {text} was not issued: no snapshot step has run in this replay"),
                fresh,
            ));
        };
        if frame.expired {
            return Err(self.reject(
                "ref_frame_expired",
                &token,
                text,
                format!("Ref {text} belongs to an expired ref frame"),
                "Capture a fresh snapshot or use a stable selector: an earlier step may have changed the screen.",
            ));
        }
        if let Some(pin) = token.pin {
            if pin != frame.generation {
                return Err(self.reject(
                    "ref_generation_mismatch",
                    &token,
                    text,
                    format!(
                        "Ref {text} names generation {pin}, but the current ref frame is generation {}",
                        frame.generation
                    ),
                    "Pins are session-scoped: drop the ~sN suffix or take a fresh snapshot.",
                ));
            }
        }
        if let FrameScope::Issued(set) = &frame.scope {
            if token.pin.is_none() {
                return Err(self.reject(
                    "plain_ref_requires_complete_frame",
                    &token,
                    text,
                    format!("Plain ref {text} needs a complete snapshot, but the current frame is partial"),
                    "Use the pinned ref the scoped snapshot returned, or take a complete snapshot.",
                ));
            }
            if !set.contains(&token.body) {
                return Err(self.reject(
                    "ref_not_issued",
                    &token,
                    text,
                    format!("Ref {text} was not issued by the current ref frame"),
                    fresh,
                ));
            }
        }
        match frame.tree.by_ref(&token.body) {
            Some(n) => Ok((frame.tree.clone(), n.index)),
            None => Err(self.reject(
                "ref_not_issued",
                &token,
                text,
                format!("Ref {text} was not issued by the current ref frame"),
                fresh,
            )),
        }
    }

    /// Admission for a read: fail-open with a staleness warning while the retained frame still
    /// holds the ref's evidence.
    pub fn admit_read(
        &self,
        text: &str,
    ) -> Result<(Arc<Snapshot>, usize, Option<String>), Box<RefRejection>> {
        let token = RefToken::parse(text);
        match &self.current {
            Some(frame) if frame.expired => match frame.tree.by_ref(&token.body) {
                Some(n) => Ok((
                    frame.tree.clone(),
                    n.index,
                    Some(format!(
                        "Ref {text} belongs to an expired ref frame; read against the retained evidence"
                    )),
                )),
                None => Err(self.reject(
                    "ref_frame_expired",
                    &token,
                    text,
                    format!("Ref {text} belongs to an expired ref frame"),
                    "Capture a fresh snapshot or use a stable selector.",
                )),
            },
            _ => self.admit_mutation(text).map(|(t, i)| (t, i, None)),
        }
    }
}

/// The node behind an admitted ref.
pub fn node(tree: &Snapshot, index: usize) -> &FlatNode {
    &tree.nodes[index]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::tree::{Node, Rect};

    fn tree() -> Arc<Snapshot> {
        Arc::new(Snapshot::flatten(
            &[Node {
                kind: "Application".into(),
                children: vec![Node {
                    kind: "Button".into(),
                    ..Node::default()
                }],
                ..Node::default()
            }],
            Rect::default(),
        ))
    }

    #[test]
    fn admission_order() {
        let mut f = Frames::new(40);
        assert_eq!(
            f.admit_mutation("@e2").unwrap_err().reason,
            "ref_not_issued"
        );
        let g = f.activate(tree(), FrameScope::All);
        assert_eq!(g, 41);
        assert!(f.admit_mutation("@e2").is_ok());
        assert_eq!(
            f.admit_mutation("@e2~s7").unwrap_err().reason,
            "ref_generation_mismatch"
        );
        assert_eq!(
            f.admit_mutation("@e9").unwrap_err().reason,
            "ref_not_issued"
        );
        f.expire();
        assert_eq!(
            f.admit_mutation("@e2").unwrap_err().reason,
            "ref_frame_expired"
        );
        assert!(f.admit_read("@e2").unwrap().2.is_some());
        f.activate(tree(), FrameScope::Issued(["e2".to_string()].into()));
        assert_eq!(
            f.admit_mutation("@e2").unwrap_err().reason,
            "plain_ref_requires_complete_frame"
        );
        assert!(f.admit_mutation("@e2~s42").is_ok());
        assert_eq!(
            f.admit_mutation("@e1~s42").unwrap_err().reason,
            "ref_not_issued"
        );
    }
}
