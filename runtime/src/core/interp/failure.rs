//! A failed step ([`Fail`]), and the run error it becomes, with its divergence report.

use std::sync::Arc;

use ad_compiler::shape::{is_form, wait_form, IsForm, WaitForm};
use ad_compiler::Step;
use ad_grammar::text::is_numeric;

use super::targets::policy_for;
use super::{Exec, Plan, RunError, RunOptions};
use crate::core::backend::{Backend, BackendError};
use crate::core::divergence::{self, ScreenEvidence};
use crate::core::frame::FrameScope;
use crate::core::identity::BindingFailure;
use crate::core::records::error_codes;
use crate::core::records::journal::{DivergenceEvent, Event, Phase, StepError, StepResult};
use crate::core::records::{DivergenceKind, ErrorDetails};
use crate::core::tree::Snapshot;

/// The reason a [`Fail::misread`] carries.
const MISREAD: &str = "misread";

/// A step that did not complete.
pub(super) struct Fail {
    pub kind: DivergenceKind,
    pub code: String,
    pub message: String,
    pub hint: Option<String>,
    pub details: ErrorDetails,
    pub binding: Option<(BindingFailure, Arc<Snapshot>)>,
    /// No divergence report (unresolved variable, interrupted wait, …).
    pub bare: bool,
}

impl Fail {
    pub fn new(code: &str, message: impl Into<String>) -> Fail {
        Fail {
            kind: DivergenceKind::ActionFailure,
            code: code.into(),
            message: message.into(),
            hint: None,
            details: ErrorDetails::default(),
            binding: None,
            bare: false,
        }
    }
    pub fn hint(mut self, h: impl Into<String>) -> Fail {
        self.hint = Some(h.into());
        self
    }
    /// A step whose filled-in arguments agent-device's reader (`ad check`'s) accepts but this
    /// interpreter cannot read: a bug in `ad`, reported as one, never a second opinion on the
    /// script. Every step is read by that reader before it runs ([`Exec::step`]).
    pub fn misread(command: &str) -> Fail {
        Fail::new(
            error_codes::INVALID_ARGS,
            format!("ad cannot read `{command}` arguments that agent-device's reader accepts"),
        )
        .hint("this is a bug in ad: please report the script line")
        .reason(MISREAD)
    }
    pub fn is_misread(&self) -> bool {
        self.details.reason.as_deref() == Some(MISREAD)
    }
    pub fn reason(mut self, r: &str) -> Fail {
        self.details.reason = Some(r.into());
        self
    }
    pub fn from_backend(e: BackendError) -> Fail {
        let mut f = Fail::new(e.code(), e.message().to_string());
        match &e {
            // Not a divergence: the environment is missing something (a set-up error, exit 2).
            BackendError::Unavailable(problem) => {
                f.hint = problem.fix.clone();
                f.details.reason = Some("backend_unavailable".into());
                f.details.setup = Some(problem.clone());
                f.bare = true;
                return f;
            }
            // The user stopped the run while the device was busy: the run is interrupted.
            BackendError::Interrupted { .. } => {
                f.details.reason = Some("interrupted".into());
                f.bare = true;
                return f;
            }
            // A page the run may not show (the web's URL policy): the script asked for it, so
            // nothing diverged.
            BackendError::Rejected { code, hint, .. }
                if code == crate::core::backend::LOCAL_URL_REFUSED =>
            {
                f.hint = hint.clone();
                f.details.reason = Some("local_url_refused".into());
                f.bare = true;
                return f;
            }
            _ => {}
        }
        if let Some(h) = e.hint() {
            f.hint = Some(h.to_string());
        }
        if matches!(e, BackendError::Transport { .. }) {
            f.details.reason = Some("transport-failure".into());
            f.details.retriable = Some(false);
        }
        f
    }
}

/// What a step produced (journaled in `step_end`): `None` when there is nothing to say.
pub(super) type Outcome = Result<Option<StepResult>, Fail>;

impl<B: Backend> Exec<'_, B> {
    /// Turns a step failure into the run error (with the divergence report).
    #[allow(clippy::too_many_arguments)]
    pub(super) async fn failure(
        &mut self,
        fail: Fail,
        step: &Step<'_>,
        index: usize,
        line: usize,
        label: &str,
        plan: &Plan<'_>,
        digest: &str,
        opts: &RunOptions,
    ) -> RunError {
        // The label is the script's own text: only the failure's data is redacted.
        let message = format!(
            "Replay failed at step {index} ({label}): {}",
            self.scope.redact(&fail.message)
        );
        if fail.bare {
            let msg = self.scope.redact(&fail.message);
            let _ = self.journal.append(Event::StepError(StepError {
                step: index,
                line,
                code: fail.code.clone(),
                message: msg.clone(),
            }));
            let mut details = fail.details;
            // What the environment lacks can name an injected value (`open "${APP}"`).
            if let Some(p) = &mut details.setup {
                p.problem = self.scope.redact(&p.problem);
                p.fix = p.fix.as_ref().map(|f| self.scope.redact(f));
            }
            return RunError {
                code: fail.code,
                message: msg,
                hint: fail.hint.map(|h| self.scope.redact(&h)),
                step: Some(index),
                line: Some(line),
                preflight: false,
                details,
            };
        }
        // Capture the screen for the report (a binding failure already has it).
        let post = match &fail.binding {
            Some((_, tree)) => Ok(tree.clone()),
            None => self.observe(Phase::Divergence).await,
        };
        // The divergence screen publishes its refs as a partial frame (ADR 0014).
        let generation = match &post {
            Ok(tree) => self.frames.activate(
                tree.clone(),
                FrameScope::Issued(divergence::issued_refs(
                    tree,
                    step.target_evidence.as_deref(),
                )),
            ),
            Err(_) => self.frames.current().map(|f| f.generation).unwrap_or(0),
        };
        let screen = match &post {
            Ok(tree) => ScreenEvidence::Available {
                snapshot: tree,
                generation,
            },
            Err(e) => ScreenEvidence::Unavailable {
                reason: "capture-failed".into(),
                hint: e.message.clone(),
            },
        };
        let raw = step.positional_values();
        // The step's selector, located by its targeting in the registry.
        use ad_compiler::registry::Targeting;
        let selector = match step.spec().map(|s| s.targeting) {
            Some(Targeting::Element) => raw
                .first()
                .filter(|s| !s.starts_with('@') && !is_numeric(s))
                .cloned(),
            Some(Targeting::ElementAfterSubcommand) => {
                raw.get(1).filter(|s| !s.starts_with('@')).cloned()
            }
            Some(Targeting::WaitTarget) => match wait_form(&raw) {
                WaitForm::Selector { selector, .. } => Some(selector),
                _ => None,
            },
            Some(Targeting::Predicate) => match is_form(&raw) {
                IsForm::Check { selector, .. } => Some(selector),
                _ => None,
            },
            _ => None,
        }
        .and_then(|s| self.scope.clone().expand(&s).ok());
        let evidence = step.target_evidence.as_deref();
        let binding = fail.binding.as_ref().map(|(b, _)| b);
        let binding_snapshot = fail.binding.as_ref().map(|(_, t)| t.as_ref());
        let input = divergence::Input {
            kind: fail.kind,
            step: index,
            path: opts.script_path.clone(),
            line,
            action: label.to_string(),
            cause_code: fail.code.clone(),
            cause_message: fail.message.clone(),
            cause_hint: fail.hint.clone(),
            screen,
            evidence,
            binding,
            binding_snapshot,
            selector,
            policy: policy_for(step, &raw),
            total_steps: plan.steps.len(),
            plan_digest: digest.to_string(),
            session_exists: true,
            // A repair-armed run's session is held in the daemon whatever the backend
            // (docs/repair.md): its resume is offered.
            resumable: self.backend.resumes_at_step() || opts.repair_armed,
            resume_refusal: Some(self.backend.resume_refusal()),
        };
        let mut full = divergence::build(&input, &self.scope);
        // A step of a composition names its fragment line and call sites, not only the plan's.
        full.step.origin = line
            .checked_sub(1)
            .and_then(|l| opts.sources.get(l).cloned().flatten())
            .map(Box::new);
        let dir = self.journal.dir().map(std::path::Path::to_path_buf);
        let level = if opts.level.is_empty() {
            "default"
        } else {
            opts.level.as_str()
        };
        let mut report = divergence::cap(&full, level, &mut |full| {
            let d = dir.as_ref()?;
            let path = d.join("divergence-full.json");
            std::fs::write(&path, serde_json::to_vec_pretty(full).ok()?).ok()?;
            Some(path.display().to_string())
        });
        // A repair-armed run's divergence holds its session in ad's session daemon (the
        // transaction is armed for the whole run): the report says so in the journal and
        // run.json as in the reply, as agent-device marks the report it returns
        // (`markSessionHeldIfArmed`, after the full report's artifact was written).
        if opts.repair_armed {
            report.resume.repair_session_held = Some(true);
        }
        // The screen at the failure, beside the journal, for the HTML report to show at the step.
        let screenshot = match &dir {
            Some(d) if self.backend.screenshot_on_failure() => {
                let name = format!("failure-step-{index:03}.png");
                match self.backend.screenshot().await {
                    Ok(png) if std::fs::write(d.join(&name), &png).is_ok() => Some(name),
                    _ => None,
                }
            }
            _ => None,
        };
        let _ = self.journal.append(Event::Divergence(DivergenceEvent {
            step: index,
            line,
            report: Box::new(report.clone()),
            screenshot,
        }));
        let mut details = fail.details;
        details.replay_path = Some(opts.script_path.clone());
        details.step = Some(index);
        details.action = Some(step.command().to_string());
        details.positionals = Some(raw);
        // The report is redacted as it is built; redacting it again could rewrite its markers.
        let mut details = self
            .scope
            .redacted(details)
            .unwrap_or_else(|| ErrorDetails {
                reason: Some("redaction-failed".into()),
                ..ErrorDetails::default()
            });
        details.resume_command = resume_command(opts, &report.resume);
        details.divergence = Some(report);
        RunError {
            code: fail.code,
            message,
            hint: fail.hint.map(|h| self.scope.redact(&h)),
            step: Some(index),
            line: Some(line),
            preflight: false,
            details,
        }
    }
}

/// What the report offers to run next, spelled in full (the script and every option that chose
/// its backend and device): `--from N --plan-digest SHA` when the resume is allowed, else the
/// fresh full replay that works.
pub(super) fn resume_command(
    opts: &RunOptions,
    resume: &crate::core::records::divergence::Resume,
) -> Option<String> {
    let cmd = opts.resume_command.trim();
    if cmd.is_empty() {
        return None;
    }
    Some(if resume.allowed {
        format!(
            "{cmd} --from {} --plan-digest {}",
            resume.from, resume.plan_digest
        )
    } else {
        cmd.to_string()
    })
}
