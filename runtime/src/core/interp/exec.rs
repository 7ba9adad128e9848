//! The executor's plumbing every command uses: capturing the screen, crossing the side-effect
//! seam (expire the ref frame, journal the intent, call the device), sleeping on the device
//! clock, and interpolating a step's arguments.

use std::sync::Arc;

use ad_compiler::Step;
use ad_grammar::text::is_numeric;
use serde_json::{Map, Value};

use super::failure::Fail;
use super::Exec;
use crate::core::backend::{Backend, BackendError, BackendResult};
use crate::core::journal::Intent;
use crate::core::records::error_codes;
use crate::core::records::journal::{ActionArgs, ObservationFile, Outcome, Phase};
use crate::core::records::ErrorDetails;
use crate::core::select::Selector;
use crate::core::tree::{FlatNode, Snapshot};
use crate::core::vars::Unresolved;

/// A positional as a finite number, if it is one.
pub(super) fn num(s: Option<&String>) -> Option<f64> {
    let s = s?;
    if s.trim().is_empty() || !is_numeric(s) {
        return None;
    }
    let n = ad_grammar::text::js_number(s);
    n.is_finite().then_some(n)
}

pub(super) fn flag_u64(step: &Step<'_>, key: &str) -> Option<u64> {
    step.flags()
        .get(key)
        .and_then(Value::as_f64)
        .map(|f| f.max(0.0) as u64)
}

impl<B: Backend> Exec<'_, B> {
    /// Captures the screen, journals it as an observation and remembers it.
    pub(super) async fn observe(&mut self, phase: Phase) -> Result<Arc<Snapshot>, Fail> {
        self.backend.use_redactor(self.scope.redactor());
        let cap = self
            .backend
            .capture()
            .await
            .map_err(|e| match Fail::from_backend(e) {
                // A set-up error or a stop keeps its own reason.
                f if f.bare => f,
                f => f.reason("wait_capture_stalled"),
            })?;
        let app = cap.app;
        let snap = Arc::new(Snapshot::flatten_owned(cap.roots, cap.viewport));
        let now = self.backend.now_ms();
        let scope = &self.scope;
        let make_body = || {
            let nodes: std::borrow::Cow<[FlatNode]> = if scope.has_redactions() {
                snap.nodes
                    .iter()
                    .map(|n| {
                        let mut n = n.clone();
                        for v in [&mut n.id, &mut n.label, &mut n.value]
                            .into_iter()
                            .flatten()
                        {
                            *v = scope.redact(v);
                        }
                        n
                    })
                    .collect::<Vec<_>>()
                    .into()
            } else {
                (&snap.nodes[..]).into()
            };
            serde_json::to_vec(&ObservationFile {
                // The app id or URL: opened from a variable, it holds its value.
                app: app.as_deref().map(|a| scope.redactor().redact_id(a).into()),
                viewport: snap.viewport,
                device_time_ms: now,
                nodes,
            })
            .unwrap_or_default()
        };
        self.journal
            .observe(make_body, self.step_no, phase)
            .map_err(|e| {
                Fail::new(
                    error_codes::JOURNAL_WRITE_FAILED,
                    format!("could not record an observation: {e}"),
                )
                .hint("check free space and permissions of the artifacts folder")
            })?;
        self.last = Some(snap.clone());
        Ok(snap)
    }

    /// Parses a selector, remembering recent ones (scripts repeat their selectors).
    pub(super) fn selector(&mut self, text: &str) -> Result<Arc<Selector>, String> {
        if let Some(s) = self.selectors.get(text) {
            return Ok(s.clone());
        }
        let s = Arc::new(Selector::parse(text)?);
        if self.selectors.len() >= 256 {
            self.selectors.clear();
        }
        self.selectors.insert(text.to_string(), s.clone());
        Ok(s)
    }

    /// Expires the frame, journals the intent (fsync) and calls the device.
    pub(super) async fn act<T, F>(
        &mut self,
        command: &str,
        args: ActionArgs,
        call: F,
    ) -> Result<T, Fail>
    where
        F: AsyncFnOnce(&mut B) -> BackendResult<T>,
    {
        self.frames.expire();
        // Never sent unredacted: a redaction the record cannot hold drops the arguments.
        let args = self.scope.redacted(args).unwrap_or(ActionArgs::None {});
        let attempt = self
            .journal
            .attempt(Intent {
                step: self.step_no,
                line: self.line,
                action: self.label.clone(),
                command: command.to_string(),
                args,
            })
            .map_err(|e| {
                Fail::new(
                    error_codes::JOURNAL_WRITE_FAILED,
                    format!("could not record the action intent, so it was not sent: {e}"),
                )
                .hint("check free space and permissions of the artifacts folder")
            })?;
        self.backend.use_redactor(self.scope.redactor());
        match call(self.backend).await {
            Ok(v) => {
                let _ = self.journal.result(&attempt, Outcome::Accepted, None);
                Ok(v)
            }
            Err(e) => {
                let outcome = match e {
                    // A backend that could not start did nothing.
                    BackendError::Rejected { .. } | BackendError::Unavailable(_) => {
                        Outcome::Rejected
                    }
                    // A cancelled call may have reached the device (a navigation underway).
                    BackendError::Transport { .. } | BackendError::Interrupted { .. } => {
                        Outcome::Unknown
                    }
                };
                let msg = self.scope.redact(e.message());
                let _ = self
                    .journal
                    .result(&attempt, outcome, Some((e.code().to_string(), msg)));
                Err(Fail::from_backend(e))
            }
        }
    }

    /// Sleeps on the device clock between polls; a stop request (Ctrl-C, SIGTERM) ends the wait.
    /// Checked again after the sleep: a real device's sleep returns early on a stop request, and
    /// a `wait 60000` cut short did not wait its time, so it must not pass.
    pub(super) async fn nap(&mut self, ms: u64) -> Result<(), Fail> {
        if let Some(stop) = Self::stop_requested() {
            return Err(stop);
        }
        self.backend.sleep(ms).await;
        match Self::stop_requested() {
            Some(stop) => Err(stop),
            None => Ok(()),
        }
    }

    /// A pause between two looks at the screen in a wait: ends early when the device reports
    /// that the screen may have changed ([`Backend::poll_wait`]).
    pub(super) async fn poll_nap(&mut self, ms: u64) -> Result<(), Fail> {
        if let Some(stop) = Self::stop_requested() {
            return Err(stop);
        }
        self.backend.poll_wait(ms).await;
        match Self::stop_requested() {
            Some(stop) => Err(stop),
            None => Ok(()),
        }
    }

    /// The failure of a step a stop request (Ctrl-C, SIGTERM) ended while it waited.
    fn stop_requested() -> Option<Fail> {
        let signal = crate::core::interrupt::requested()?;
        let mut f = Fail::new(
            error_codes::INTERRUPTED,
            format!("interrupted by {signal} while waiting"),
        )
        .reason("interrupted");
        f.bare = true; // no divergence: the screen did not diverge, the user stopped the run
        Some(f)
    }

    pub(super) fn remaining(&self, timeout: u64) -> u64 {
        let now = self.backend.now_ms();
        match self.deadline {
            Some(d) => timeout.min(d.saturating_sub(now)),
            None => timeout,
        }
    }

    pub(super) async fn interpolate(
        &mut self,
        step: &Step<'_>,
        path: &str,
    ) -> Result<(Vec<String>, Map<String, Value>, Option<Map<String, Value>>), Fail> {
        let unresolved = |u: Unresolved, line: usize| {
            Fail {
            kind: crate::core::records::DivergenceKind::ActionFailure,
            code: error_codes::INVALID_ARGS.into(),
            message: format!("Unresolved variable ${{{}}} at {path}:{line}.", u.name),
            hint: Some(format!("pass -e {0}=… or export AD_VAR_{0}=…; or give it a default with `env {0}=…` or `${{{0}:-fallback}}`", u.name)),
            details: ErrorDetails {
                reason: Some("unresolved_variable".into()),
                variable: Some(u.name),
                ..ErrorDetails::default()
            },
            binding: None,
            bare: true,
        }
        };
        let line = step.line() + 1;
        let mut p = Vec::with_capacity(step.positionals.len());
        for a in &step.positionals {
            p.push(
                self.scope
                    .expand(&a.value)
                    .map_err(|u| unresolved(u, line))?,
            );
        }
        let flags = match self
            .scope
            .expand_value(&Value::Object(step.flags().to_map()))
            .map_err(|u| unresolved(u, line))?
        {
            Value::Object(m) => m,
            _ => Map::new(),
        };
        let runtime = match step.runtime() {
            Some(r) => match self
                .scope
                .expand_value(&Value::Object(r.to_map()))
                .map_err(|u| unresolved(u, line))?
            {
                Value::Object(m) => Some(m),
                _ => None,
            },
            None => None,
        };
        Ok((p, flags, runtime))
    }
}
