//! A run whose session outlives it — a close-less (handoff) script, or `--keep-session` — runs
//! inside the session daemon, on a backend the daemon owns: when it ends well, its live session
//! (backend included: the sim's device, the web backend's browser page, the agent-device bridge's
//! session) stays in the daemon under the run's session name, where `ad session …` commands continue it. Nothing about the
//! session is written to a file; a run that fails keeps the sim's state for a `--from` resume as
//! a one-shot run does.
//!
//! The run is the client's, not the daemon's: its backend reads and starts its processes in the
//! environment `ad run` sent ([`RunRequest::env`]), and the files it writes get that `ad run`'s
//! umask; the live session it leaves keeps them for the `ad session` commands that continue it.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use super::lifecycle::Lifecycle;
use super::{Session, Sessions};
use crate::backends::web::LaunchConfig;
use crate::backends::BackendKind;
use crate::core::backend::Backend;
use crate::core::environment::Environment;
use crate::core::interp::{
    self, LiveState, Plan, Progress, RunOptions, RunResult, StepEnd, StepInfo,
};
use crate::core::records::error_codes;
use crate::core::vars::Scope;
use crate::session::{self, SessionConfig};

/// What `ad run` sends: the script (as run: a composition already expanded), the run's options
/// and where its journal goes. Paths are absolute (the daemon runs in `/`).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RunRequest {
    pub script: PathBuf,
    pub text: String,
    pub options: RunOptions,
    pub app_model: Option<PathBuf>,
    pub artifacts_root: PathBuf,
    /// The backend `ad run` chose ([`BackendKind::name`]).
    pub backend: String,
    pub web: LaunchConfig,
    /// `--record-fixture DIR`: the run records its backend calls there, and the session
    /// commands that continue its live session append to the same session log.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub record_fixture: Option<PathBuf>,
    /// `--backend recorded:DIR`: the fixture the run replays.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recorded: Option<PathBuf>,
    /// The agent-device bridge's settings, resolved where `ad run` ran
    /// ([`crate::backends::agent_device::BridgeConfig::resolved`]: its state dir and agent-device's
    /// environment, the daemon's auth token included, which only crosses the daemon's private
    /// socket).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent_device: Option<crate::backends::agent_device::BridgeConfig>,
    /// The environment and umask of the `ad run` that sent it ([`Environment::capture`]): the
    /// run's backend reads it and starts the browser or agent-device in it, never in the
    /// daemon's own. It crosses only the daemon's private socket and is written nowhere.
    #[serde(default)]
    pub env: Environment,
    /// `--save-script[=PATH]`: the run is repair-armed (docs/repair.md).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub save_script: Option<SaveScript>,
}

/// A run's `--save-script[=PATH]` (with `--overwrite`).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SaveScript {
    /// PATH, absolute (default: `<basename>.healed.ad` beside the script).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<PathBuf>,
    /// `--overwrite`: the healed script may replace an existing file (never the script).
    #[serde(default)]
    pub overwrite: bool,
}

/// What the run produced (the live session, if any, is in the daemon).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RunReply {
    pub result: RunResult,
    pub run_dir: Option<PathBuf>,
    /// The sim state kept for a `--from` resume (a run that did not end well).
    pub session_file: Option<PathBuf>,
}

/// One progress event of a run in the daemon, as `ad run` renders it.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", tag = "event")]
pub enum RunEvent {
    Start {
        step: StepInfo,
    },
    End {
        step: StepInfo,
        status: String,
        wall_ms: f64,
        device_ms: u64,
        note: Option<String>,
    },
}

impl RunEvent {
    /// Hands the event to a local progress reporter.
    pub fn report(self, progress: &mut dyn Progress) {
        match self {
            RunEvent::Start { step } => progress.step_start(&step),
            RunEvent::End {
                step,
                status,
                wall_ms,
                device_ms,
                note,
            } => {
                let status = ["ok", "skipped", "failed"]
                    .into_iter()
                    .find(|s| *s == status)
                    .unwrap_or("failed");
                progress.step_end(
                    &step,
                    &StepEnd {
                        status,
                        wall_ms,
                        device_ms,
                        note,
                    },
                );
            }
        }
    }
}

/// A progress reporter that queues events for the client's connection.
pub struct Forward(pub tokio::sync::mpsc::UnboundedSender<RunEvent>);

impl Progress for Forward {
    fn step_start(&mut self, step: &StepInfo) {
        let _ = self.0.send(RunEvent::Start { step: step.clone() });
    }
    fn step_end(&mut self, step: &StepInfo, end: &StepEnd) {
        let _ = self.0.send(RunEvent::End {
            step: step.clone(),
            status: end.status.into(),
            wall_ms: end.wall_ms,
            device_ms: end.device_ms,
            note: end.note.clone(),
        });
    }
}

impl Sessions {
    /// Runs `req` as `ad run` would, in the turn of its session name: a live session of that
    /// name ends first (a run starts cold); when the run ends well with its session active, the
    /// session stays here. `Err` is a setup problem (`ad run` exits 2). The run's files get the
    /// umask of the `ad run` that sent it.
    pub async fn run(
        &self,
        req: RunRequest,
        progress: &mut dyn Progress,
    ) -> Result<RunReply, String> {
        let env = req.env.clone();
        env.scoped(self.run_in_env(req, progress)).await
    }

    async fn run_in_env(
        &self,
        req: RunRequest,
        progress: &mut dyn Progress,
    ) -> Result<RunReply, String> {
        let kind = BackendKind::parse(&req.backend)
            .ok_or_else(|| format!("unknown backend {:?}", req.backend))?;
        // A large script's analysis does not hold the daemon's other clients up.
        let (script, display, text) = (
            req.script.clone(),
            req.options.script_path.clone(),
            req.text.clone(),
        );
        let analysis = super::daemon::off_thread(move || {
            use crate::core::gate;
            let config = ad_compiler::check_file::discover_config(&script)
                .map_err(|e| gate::config_refusal(&e, &text).summary)?;
            gate::analyze(&config, &display, &text, true).map_err(|r| r.summary)
        })
        .await?;
        let plan = Plan {
            steps: analysis.steps(),
            metadata: analysis.metadata(),
        };
        let config = SessionConfig {
            app_model: req.app_model.clone(),
            artifacts_root: req.artifacts_root.clone(),
            persist_session: true,
            state_dir: self.state_dir.clone(),
            backend: Some(kind),
            // Both backends that read the environment get the run's, not the daemon's.
            web: LaunchConfig {
                env: req.env.clone(),
                ..req.web.clone()
            },
            record_fixture: req.record_fixture.clone(),
            recorded: req.recorded.clone(),
            agent_device: crate::backends::agent_device::BridgeConfig {
                env: req.env.clone(),
                // A diverged run's bridge stays here for its resume (below).
                kept_for_resume: true,
                ..req.agent_device.clone().unwrap_or_default()
            },
            ..SessionConfig::default()
        };
        let name = req.options.session.clone();
        loop {
            let slot = self.slot(&name);
            let mut current = slot.session.lock().await;
            if !self.is_current(&name, &slot) {
                continue;
            }
            // A repair-armed run, or one that continues a held repair (docs/repair.md).
            if self.is_repair_run(&req, &current) {
                let reply = self
                    .repair_run(&req, &plan, kind, &config, progress, &mut current)
                    .await;
                self.settle(&name, &slot, &current);
                return reply;
            }
            // A resume (`--from N`) of a session live here is checked as agent-device's
            // `resolveEntryIndex` checks it, in its order, before anything else: the range (with
            // the empty tail, `N = actions + 1`, which only the watermark of a divergence at the
            // plan's last step admits), an action performed since a record-and-heal divergence,
            // the digest. A refusal ends nothing; the empty tail runs no step and leaves the
            // session as it is.
            if let (Some(s), Some(_)) = (current.as_mut(), req.options.from) {
                if let Some(reply) = self.resume_entry(&req, &plan, s) {
                    self.settle(&name, &slot, &current);
                    return Ok(reply);
                }
            }
            // A resume (`--from N`) on agent-device continues on the bridge a diverged run (or a
            // handoff) left live under this name: its daemon and device session, as they are.
            let kept = match current.take() {
                Some(s)
                    if kind == BackendKind::AgentDevice
                        && s.backend.kind() == BackendKind::AgentDevice
                        && plan.resumes_mid_plan(&req.options) =>
                {
                    Some(self.fixtures.borrow_mut().finish(&name, s.backend))
                }
                other => {
                    *current = other;
                    None
                }
            };
            let replaced = current.is_some();
            self.end(&name, &mut current).await;
            let live = session::run_live_on(
                &plan,
                &req.script,
                kind,
                &req.options,
                &config,
                progress,
                kept,
            )
            .await;
            let mut live = match live {
                Ok(l) => l,
                Err(session::StartError::Refused(e)) => {
                    self.settle(&name, &slot, &current);
                    return Err(e.0);
                }
                // The run's result, as a one-shot run reports it (a set-up error, exit 2).
                Err(session::StartError::Backend(problem)) => {
                    self.settle(&name, &slot, &current);
                    return Ok(RunReply {
                        result: session::unavailable_result(&plan, &req.options, problem),
                        run_dir: None,
                        session_file: None,
                    });
                }
            };
            if replaced {
                live.outcome.result.warnings.push(format!(
                    "the live session \"{name}\" this run replaced was ended (a run starts cold; pass --session NAME to keep both)"
                ));
            }
            let result = &live.outcome.result;
            // A run that diverged (or was interrupted) where its report offers a resume keeps
            // its agent-device bridge (the daemon it started, the device session) live here, so
            // the resume finds them; the session's close or reap ends them.
            let kept_for_resume = kind == BackendKind::AgentDevice
                && result
                    .error
                    .as_ref()
                    .and_then(|e| e.divergence())
                    .is_some_and(|d| d.resume.allowed);
            if kept_for_resume {
                live.outcome.result.session_active = true;
                live.outcome.result.warnings.push(format!(
                    "the agent-device session is kept live for the resume in ad's session daemon: end it with `ad session close --session {name}` (it is also ended when unused for an hour, AD_SESSION_REAP_MS, or by the next run of session \"{name}\")"
                ));
            }
            let result = &live.outcome.result;
            if (result.ok && result.session_active) || kept_for_resume {
                let stale = session::session_file(&self.state_dir, &name);
                if stale.is_file() {
                    let _ = std::fs::remove_file(stale);
                }
                // The session's end (`ad session close`, the daemon stopping) ends what the run
                // left on an agent-device daemon, as an authoring session's end does.
                live.backend.release_session_at_end();
                let backend = match live.recording {
                    Some((dir, recording)) => {
                        self.fixtures
                            .borrow_mut()
                            .continue_run(live.backend, &name, dir, recording)
                    }
                    None => live.backend,
                };
                // A repair armed at this session's resume is held to the watermark its
                // divergence stamps, as agent-device's is.
                let corrective = live
                    .outcome
                    .result
                    .error
                    .as_ref()
                    .and_then(|e| e.divergence())
                    .and_then(|d| super::repair::Watermark::at(d, plan.steps.len(), 0));
                *current = Some(Session {
                    backend,
                    env: req.env.clone(),
                    live: LiveState::new(&name, run_scope(&req.options, &plan)),
                    journal: self.new_journal(&name),
                    lifecycle: Lifecycle::NeverArmed,
                    recorded: Vec::new(),
                    echo: Vec::new(),
                    repair: None,
                    actions: 0,
                    corrective,
                });
                self.settle(&name, &slot, &current);
                return Ok(RunReply {
                    result: live.outcome.result,
                    run_dir: live.outcome.run_dir,
                    session_file: None,
                });
            }
            live.persist(&config, &req.options);
            let mut outcome = live.outcome;

            // As a one-shot run: what is left on a device that outlives `ad` is ended unless a
            // `--from` may resume it.
            if live.backend.release().await {
                outcome.result.session_active = false;
                // Ctrl-C ended the agent-device daemon the run started (as it would in `ad
                // run`): the hint says so instead of offering a resume.
                if let Some(e) = (outcome.result.error.as_mut())
                    .filter(|e| kind == BackendKind::AgentDevice && e.is_interrupted())
                {
                    e.hint = Some(
                        "this run's agent-device session ended with it: run the whole script again"
                            .into(),
                    );
                }
            }
            async move { drop(live.backend) }.await;
            self.settle(&name, &slot, &current);
            return Ok(RunReply {
                result: outcome.result,
                run_dir: outcome.run_dir,
                session_file: outcome.session_file,
            });
        }
    }

    /// The entry checks of a plain `--from N` on the live session `s` (the repair's, in
    /// agent-device's order): a refusal, or the empty tail's answer with no step run (its
    /// watermark cleared); `None` when the run goes on from step N.
    fn resume_entry(&self, req: &RunRequest, plan: &Plan<'_>, s: &mut Session) -> Option<RunReply> {
        let opts = &req.options;
        let digest = ad_compiler::digest::plan_digest(
            plan.steps,
            plan.metadata,
            &ad_compiler::digest::DigestOptions {
                platform: opts.platform.clone(),
                target: opts.target.clone(),
            },
        );
        let total = plan.steps.len();
        let entry = super::repair::entry_step(
            opts.from,
            opts.plan_digest.as_deref(),
            &digest,
            total,
            s.corrective.as_ref(),
            s.actions,
        );
        let from = match entry {
            Ok(n) if n == total + 1 => n,
            Ok(_) => return None,
            Err(m) => {
                return Some(super::repair::refused(
                    &digest,
                    total,
                    &opts.session,
                    super::publish::Refusal::new(error_codes::INVALID_ARGS, m),
                ))
            }
        };
        s.corrective = None;
        Some(RunReply {
            result: RunResult {
                ok: true,
                replayed: 0,
                total,
                from,
                session: opts.session.clone(),
                session_active: true,
                location: s.backend.location(),
                plan_digest: digest,
                error: None,
                device_ms: 0,
                wall_ms: 0.0,
                warnings: vec![format!(
                    "--from {from} is the empty tail of a {total}-step plan: the step you performed was its last, so no step ran and session \"{}\" stays live",
                    opts.session
                )],
            },
            run_dir: None,
            session_file: None,
        })
    }
}

/// The handed-over session's variables: the built-ins and the run's injected values, so what
/// later commands capture stays redacted as the run's journal was (`<var:NAME>`).
pub(super) fn run_scope(options: &RunOptions, plan: &Plan<'_>) -> Scope {
    let builtins = interp::builtin_values(options, plan.metadata);
    Scope::new(&builtins, &[], &options.shell_env, &options.cli_env)
        .unwrap_or_else(|_| Sessions::base_scope(&options.session))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn progress_events_round_trip_through_json() {
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
        let mut f = Forward(tx);
        let step = StepInfo {
            index: 1,
            total: 2,
            line: 3,
            label: "open".into(),
        };
        f.step_end(
            &step,
            &StepEnd {
                status: "skipped",
                wall_ms: 1.0,
                device_ms: 2,
                note: None,
            },
        );
        let ev: RunEvent =
            serde_json::from_str(&serde_json::to_string(&rx.try_recv().unwrap()).unwrap()).unwrap();
        struct Seen(Vec<&'static str>);
        impl Progress for Seen {
            fn step_end(&mut self, _: &StepInfo, end: &StepEnd) {
                self.0.push(end.status);
            }
        }
        let mut seen = Seen(Vec::new());
        ev.report(&mut seen);
        assert_eq!(seen.0, ["skipped"]);
    }
}
