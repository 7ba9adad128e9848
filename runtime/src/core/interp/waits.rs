//! `wait`: sleeps, text, refs, selectors (landmark-verified when annotated), absence and a
//! stable screen, polled on the device clock.

use std::sync::Arc;

use ad_compiler::registry::Verification;
use ad_compiler::shape::{wait_form, WaitForm};
use ad_compiler::Step;

use super::failure::{Fail, Outcome};
use super::targets::node_ref;
use super::{Exec, POLL_INTERVAL_MS, STABLE_QUIET_MS, WAIT_TIMEOUT_MS};
use crate::core::backend::Backend;
use crate::core::identity::{self, BindingFailure};
use crate::core::records::error_codes;
use crate::core::records::journal::{Phase, StepResult};
use crate::core::records::DivergenceKind;
use crate::core::select::{self, resolve, Policy};
use crate::core::tree::{display_label, Snapshot};

/// A passed wait's result.
fn waited(waited_ms: u64) -> StepResult {
    StepResult::Waited {
        waited_ms,
        captures: None,
        verification: None,
        target: None,
    }
}

impl<B: Backend> Exec<'_, B> {
    pub(super) async fn wait(&mut self, step: &Step<'_>, p: &[String]) -> Outcome {
        let form = wait_form(p);
        let landmark = step.target_evidence.as_deref().filter(|_| {
            step.spec()
                .is_some_and(|s| s.verification == Verification::PostResolution)
        });
        match form {
            WaitForm::Sleep { ms } => {
                let ms = ms.max(0.0) as u64;
                self.nap(ms).await?;
                Ok(Some(waited(ms)))
            }
            WaitForm::Text { text, timeout_ms } => self.wait_text(&text, timeout_ms).await,
            WaitForm::Ref {
                reference,
                timeout_ms,
            } => {
                let (tree, idx, warn) = self.frames.admit_read(&reference).map_err(|r| {
                    Fail::new(error_codes::COMMAND_FAILED, r.message.clone())
                        .hint(r.hint.clone())
                        .reason(r.reason)
                })?;
                if let Some(w) = warn {
                    self.warnings.push(w);
                }
                let Some(label) = display_label(&tree.nodes[idx]) else {
                    return Err(Fail::new(
                        error_codes::COMMAND_FAILED,
                        format!("Ref {reference} not found or has no label"),
                    ));
                };
                self.wait_text(&label, timeout_ms).await
            }
            WaitForm::Stable {
                quiet_ms,
                timeout_ms,
            } => {
                let quiet = quiet_ms.map(|q| q as u64).unwrap_or(STABLE_QUIET_MS);
                let timeout =
                    self.remaining(timeout_ms.map(|t| t as u64).unwrap_or(WAIT_TIMEOUT_MS));
                let start = self.backend.now_ms();
                let mut last = self.observe(Phase::Wait).await?.fingerprint();
                let mut since = start;
                let mut captures = 1;
                loop {
                    let now = self.backend.now_ms();
                    if now - since >= quiet {
                        return Ok(Some(StepResult::Waited {
                            waited_ms: now - start,
                            captures: Some(captures),
                            verification: None,
                            target: None,
                        }));
                    }
                    if now - start >= timeout {
                        return Err(Fail::new(
                            error_codes::COMMAND_FAILED,
                            "wait timed out waiting for a stable UI",
                        )
                        .reason("wait_stable_timeout"));
                    }
                    self.nap(
                        POLL_INTERVAL_MS
                            .min(quiet)
                            .min(timeout - (now - start))
                            .max(1),
                    )
                    .await?;
                    let f = self.observe(Phase::Wait).await?.fingerprint();
                    captures += 1;
                    if f != last {
                        last = f;
                        since = self.backend.now_ms();
                    }
                }
            }
            WaitForm::Absent {
                selector,
                timeout_ms,
            } => {
                let sel = self
                    .selector(&selector)
                    .map_err(|m| Fail::new(error_codes::INVALID_ARGS, m))?;
                let timeout =
                    self.remaining(timeout_ms.map(|t| t as u64).unwrap_or(WAIT_TIMEOUT_MS));
                let start = self.backend.now_ms();
                loop {
                    let snap = self.observe(Phase::Wait).await?;
                    let r = resolve(&snap, &sel, Policy::ANY);
                    let waited_ms = self.backend.now_ms() - start;
                    if r.matched.is_empty() {
                        return Ok(Some(waited(waited_ms)));
                    }
                    if waited_ms >= timeout {
                        let n = r.matched.len();
                        let mut f = Fail::new(
                            error_codes::COMMAND_FAILED,
                            format!(
                                "wait absent timed out for selector {selector}: {n} match{} remain",
                                if n == 1 { "" } else { "es" }
                            ),
                        )
                        .reason("wait_target_present");
                        f.details.first_match = Some(node_ref(&snap.nodes[r.matched[0]]));
                        return Err(f);
                    }
                    self.poll_nap(POLL_INTERVAL_MS.min(timeout - waited_ms))
                        .await?;
                }
            }
            WaitForm::Selector {
                selector,
                timeout_ms,
            } => {
                let sel = self
                    .selector(&selector)
                    .map_err(|m| Fail::new(error_codes::INVALID_ARGS, m))?;
                let timeout =
                    self.remaining(timeout_ms.map(|t| t as u64).unwrap_or(WAIT_TIMEOUT_MS));
                let start = self.backend.now_ms();
                let mut impostor: Option<(BindingFailure, Arc<Snapshot>)> = None;
                loop {
                    let snap = self.observe(Phase::Wait).await?;
                    let r = resolve(&snap, &sel, Policy::ANY);
                    let waited_ms = self.backend.now_ms() - start;
                    if !r.matched.is_empty() {
                        match landmark {
                            None => {
                                self.resolved.push((snap.clone(), r.matched[0]));
                                return Ok(Some(StepResult::Waited {
                                    waited_ms,
                                    captures: None,
                                    verification: None,
                                    target: Some(node_ref(&snap.nodes[r.matched[0]])),
                                }));
                            }
                            Some(e) => match identity::landmark(&snap, e, &r.matched) {
                                Some(n) => {
                                    self.resolved.push((snap.clone(), n));
                                    return Ok(Some(StepResult::Waited {
                                        waited_ms,
                                        captures: None,
                                        verification: Some("landmark-verified".into()),
                                        target: Some(node_ref(&snap.nodes[n])),
                                    }));
                                }
                                None => {
                                    let first = r.matched[0];
                                    impostor = Some((
                                        BindingFailure {
                                            kind: DivergenceKind::IdentityMismatch,
                                            cause_code: error_codes::IDENTITY_MISMATCH,
                                            cause_message: format!("wait matched selector {selector} but no candidate carried the recorded landmark identity"),
                                            match_count: Some(r.matched.len()),
                                            observed: Some(first),
                                            candidates: Vec::new(),
                                            mismatches: identity::mismatches(&snap, e, &snap.nodes[first]),
                                        },
                                        snap.clone(),
                                    ));
                                }
                            },
                        }
                    }
                    if waited_ms >= timeout {
                        if let Some((b, tree)) = impostor {
                            let mut f = self.binding_fail(b, tree);
                            f.details.reason = Some("wait_landmark_identity_mismatch".into());
                            return Err(f);
                        }
                        let mut f = Fail::new(
                            error_codes::COMMAND_FAILED,
                            format!("wait timed out for selector: {selector}"),
                        )
                        .reason("wait_target_absent");
                        f.details.timeout_ms = Some(timeout);
                        if landmark.is_some() {
                            // A landmark whose selector never matched is a selector miss.
                            f.kind = DivergenceKind::SelectorMiss;
                            f.code = error_codes::SELECTOR_MISS.into();
                            f.binding = Some((
                                BindingFailure {
                                    kind: DivergenceKind::SelectorMiss,
                                    cause_code: error_codes::SELECTOR_MISS,
                                    cause_message:
                                        "The recorded target no longer matches any current element."
                                            .into(),
                                    match_count: Some(0),
                                    observed: None,
                                    candidates: vec![],
                                    mismatches: vec![],
                                },
                                snap,
                            ));
                        }
                        return Err(f);
                    }
                    self.poll_nap(POLL_INTERVAL_MS.min(timeout - waited_ms))
                        .await?;
                }
            }
            WaitForm::Invalid { reason, message } => {
                Err(Fail::new(error_codes::INVALID_ARGS, message).reason(reason))
            }
            WaitForm::Empty => Err(Fail::misread("wait")),
        }
    }

    async fn wait_text(&mut self, text: &str, timeout_ms: Option<f64>) -> Outcome {
        let timeout = self.remaining(timeout_ms.map(|t| t as u64).unwrap_or(WAIT_TIMEOUT_MS));
        let start = self.backend.now_ms();
        loop {
            let snap = self.observe(Phase::Wait).await?;
            let waited_ms = self.backend.now_ms() - start;
            let rendered = self.backend.platform() == "web";
            if let Some(n) = select::find_text(&snap, text, rendered) {
                return Ok(Some(StepResult::Waited {
                    waited_ms,
                    captures: None,
                    verification: None,
                    target: Some(node_ref(n)),
                }));
            }
            if waited_ms >= timeout {
                return Err(Fail::new(
                    error_codes::COMMAND_FAILED,
                    format!("wait timed out for text: {text}"),
                )
                .reason("wait_target_absent"));
            }
            self.poll_nap(POLL_INTERVAL_MS.min(timeout - waited_ms))
                .await?;
        }
    }
}
