//! The interpreter: runs a checked plan against a [`Backend`], step by step — interpolate
//! variables, resolve and verify targets, cross the side-effect seam (expire the ref frame,
//! journal the intent durably), dispatch, and on failure build the divergence report.
//!
//! - `mod.rs`: the run loop (this file);
//! - [`results`]: what a run returns, and the records made from it;
//! - `exec.rs`: the per-run executor's plumbing (observe, act, nap, interpolate);
//! - `dispatch.rs`: which command does what;
//! - `targets.rs`: resolving and verifying a step's target;
//! - `actions.rs`, `waits.rs`, `reads.rs`, `find.rs`: the commands;
//! - `failure.rs`: a failed step, and the run error with its divergence report;
//! - [`labels`]: how steps are named in messages and reports;
//! - [`debug`]: the debugger's seam (`ad dap`): stops at step boundaries.

mod actions;
pub mod debug;
mod dispatch;
mod exec;
mod failure;
mod find;
pub mod labels;
mod reads;
pub mod results;
mod targets;
mod waits;

use std::sync::Arc;
use std::time::Instant;

use ad_compiler::digest::{plan_digest, DigestOptions};
use ad_compiler::registry::Effect;
use ad_compiler::Step;
use ad_grammar::Metadata;
use serde_json::Value;

use crate::core::backend::Backend;
use crate::core::frame::Frames;
use crate::core::journal::Journal;
use crate::core::records::journal::{
    Event, RunStart, StepEnd as StepEndEvent, StepResult, StepSkipped, StepStart, StepStatus,
    VariableNames,
};
use crate::core::select::Selector;
use crate::core::tree::Snapshot;
use crate::core::vars::Scope;
use failure::Fail;

use crate::core::records::error_codes;
pub use labels::{action_label, format_arg};
pub use results::{RunError, RunResult};

/// Defaults of agent-device's waits.
pub const WAIT_TIMEOUT_MS: u64 = 10_000;
pub const POLL_INTERVAL_MS: u64 = 300;
pub const STABLE_QUIET_MS: u64 = 500;
/// How long click / press / longpress / fill wait for their target to appear, and
/// `alert accept|dismiss` for an alert (polling every [`POLL_INTERVAL_MS`], as agent-device's
/// iOS and Android handlers do).
pub const APPEAR_TIMEOUT_MS: u64 = 2_000;
pub const LONGPRESS_MS: u64 = 800;

/// How a run is configured.
#[derive(Debug, Clone, Default, serde::Serialize, serde::Deserialize)]
pub struct RunOptions {
    /// The script path as shown in messages (`examples/login.ad`).
    pub script_path: String,
    /// `-e KEY=VALUE` (already validated).
    pub cli_env: Vec<(String, String)>,
    /// `AD_VAR_*` imports (prefix stripped).
    pub shell_env: Vec<(String, String)>,
    pub from: Option<usize>,
    pub plan_digest: Option<String>,
    pub keep_session: bool,
    pub session: String,
    pub platform: Option<String>,
    pub target: Option<String>,
    pub device: Option<String>,
    /// (zero-based index, count) under `test --shard`.
    pub shard: Option<(usize, usize)>,
    /// `AD_ARTIFACTS`.
    pub artifacts: Option<String>,
    /// Fails the run when the device clock passes this many ms.
    pub timeout_ms: Option<u64>,
    /// Divergence report level: `digest`, `default` or `full`.
    pub level: String,
    /// How resume commands are spelled in guidance (`ad run flow.ad`).
    pub resume_command: String,
    /// Where screenshots without a path go.
    pub output_dir: Option<std::path::PathBuf>,
    /// A composition's expanded plan: the source of each 0-based plan line (journal, failures).
    pub sources: Vec<Option<crate::core::records::journal::StepSource>>,
    /// The run is repair-armed (`ad run --save-script`, docs/repair.md): the terminal `close`
    /// is skipped (the session stays live for the commit), as agent-device skips it.
    #[serde(default)]
    pub repair_armed: bool,
}

/// A compiled script.
pub struct Plan<'a> {
    pub steps: &'a [Step<'a>],
    pub metadata: &'a Metadata,
}

impl Plan<'_> {
    /// The digest of this plan as a run with `opts` targets it (what `--plan-digest` must match).
    pub fn digest(&self, opts: &RunOptions) -> String {
        plan_digest(
            self.steps,
            self.metadata,
            &DigestOptions {
                platform: opts.platform.clone(),
                target: opts.target.clone(),
            },
        )
    }

    /// Does a run with `opts` start after step 1 (a valid `--from N` with N > 1)? An invalid
    /// resume is left to [`run`], which refuses it with the exact reason.
    pub fn resumes_mid_plan(&self, opts: &RunOptions) -> bool {
        resume_preflight(opts, &self.digest(opts), self.steps.len()).is_ok_and(|from| from > 1)
    }
}

/// One step as progress reporters see it.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct StepInfo {
    pub index: usize,
    pub total: usize,
    pub line: usize,
    pub label: String,
}

/// How a step ended, for progress reporters.
#[derive(Debug, Clone)]
pub struct StepEnd {
    pub status: &'static str,
    pub wall_ms: f64,
    pub device_ms: u64,
    pub note: Option<String>,
}

/// Live progress (stderr in the CLI).
pub trait Progress {
    fn step_start(&mut self, _step: &StepInfo) {}
    fn step_end(&mut self, _step: &StepInfo, _end: &StepEnd) {}
    /// A step of [`run`] that passed, with the elements it resolved (each on the capture it
    /// used): a repair-armed run records it from them (`authoring::repair`).
    fn step_passed(&mut self, _step: &Step<'_>, _resolved: &[(Arc<Snapshot>, usize)]) {}
    /// A step that failed, with the elements it had resolved before it failed (`ad heal` on a
    /// recording: a step whose action the recording never saw still resolved its target).
    fn step_failed(&mut self, _step: &Step<'_>, _resolved: &[(Arc<Snapshot>, usize)]) {}
    /// The debugger [`run`] pauses for before each step and after a failed one (`ad dap`);
    /// none by default.
    fn debugger(&mut self) -> Option<&mut dyn debug::Debugger> {
        None
    }
}

/// What a passing step read, for the progress line: the text of `get text` (and of `find … get
/// text`), from the step's result as the journal records it, so redacted as it is.
pub fn read_note(result: &StepResult) -> Option<String> {
    let text = match result {
        StepResult::Read {
            text: Some(text), ..
        }
        | StepResult::Find {
            text: Some(text), ..
        } => text,
        _ => return None,
    };
    Some(format!("read {}", ad_grammar::json::quote(text)))
}

/// A location without a screen name (agent-device's desktop, the web) gets `window`: the title
/// of the first window the last capture showed (a labelled `window` node), when there is one.
fn name_window(location: &mut Value, last: Option<&Snapshot>) {
    let (Value::Object(loc), Some(last)) = (location, last) else {
        return;
    };
    if loc.contains_key("screen") {
        return;
    }
    let title = last
        .nodes
        .iter()
        .find(|n| crate::core::tree::normalize_type(&n.kind) == "window")
        .and_then(|n| n.label.clone())
        .filter(|l| !l.trim().is_empty());
    if let Some(title) = title {
        loc.insert("window".into(), Value::String(title));
    }
}

/// A progress reporter that says nothing.
pub struct Quiet;
impl Progress for Quiet {}

/// One run's executor: the device, the journal and what the run has learned so far.
struct Exec<'b, B: Backend> {
    backend: &'b mut B,
    journal: &'b mut Journal,
    scope: Scope,
    frames: Frames,
    last: Option<Arc<Snapshot>>,
    step_no: usize,
    /// The current step's action label (from the script's text, so never an injected value).
    label: String,
    line: usize,
    deadline: Option<u64>,
    warnings: Vec<String>,
    output_dir: Option<std::path::PathBuf>,
    /// A live session's step: where the file a path names goes (instead of `output_dir`).
    live_files: Option<LiveFiles>,
    screenshots: u64,
    selectors: std::collections::HashMap<String, Arc<Selector>>,
    /// The elements the current step resolved (acted on, a drag's source then destination, or
    /// the landmark a wait matched), for authoring sessions that capture target evidence at
    /// action time.
    resolved: Vec<(Arc<Snapshot>, usize)>,
    /// The pinned refs (`@eN~sG`) typed on a live session's command: the line reader strips
    /// the pin, and the ref is admitted with it (ADR 0014), as agent-device's CLI sends it.
    typed_pins: Vec<String>,
}

fn seed_for(session: &str) -> u64 {
    // FNV-1a: a session-specific, deterministic starting epoch.
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in session.bytes() {
        h ^= b as u64;
        h = h.wrapping_mul(0x100_0000_01b3);
    }
    (h % 900) + 100
}

/// The step a run starts at: 1, or `--from N` when `--plan-digest` matches the plan's `digest`
/// and N is one of its `total` steps.
pub fn resume_preflight(
    opts: &RunOptions,
    digest: &str,
    total: usize,
) -> Result<usize, Box<RunError>> {
    match (opts.from, &opts.plan_digest) {
        (None, None) => Ok(1),
        (Some(_), None) | (None, Some(_)) => Err(Box::new(RunError::preflight(
            "--from and --plan-digest must be given together".into(),
            Some("copy both from the divergence report's resume line"),
        ))),
        (Some(n), Some(d)) => {
            if d != digest {
                return Err(Box::new(RunError::preflight(
                    format!("--plan-digest does not match {}: expected {digest}, got {d}", opts.script_path),
                    Some("the script changed since the digest was taken (any edit, even a comment or blank line, changes it); run the whole script again or take the digest with `ad parse --digest`"),
                )));
            }
            if n < 1 || n > total {
                return Err(Box::new(RunError::preflight(
                    format!("--from {n} is out of range: the plan has {total} step(s)"),
                    Some("steps are numbered 1.. among action lines (comments, blank, env and context lines are not steps)"),
                )));
            }
            Ok(n)
        }
    }
}

/// The plan's platform: `--platform`, else the context header's.
fn run_platform(opts: &RunOptions, metadata: &Metadata) -> Option<String> {
    opts.platform
        .clone()
        .or_else(|| metadata.platform.as_ref().map(|p| p.value.clone()))
}

/// The built-in `AD_*` variables a run defines (spec §6), from its options and header.
pub fn builtin_values(opts: &RunOptions, metadata: &Metadata) -> Vec<(String, String)> {
    let target = opts
        .target
        .clone()
        .or_else(|| metadata.target.as_ref().map(|p| p.value.clone()));
    let mut builtins = vec![
        ("AD_SESSION".to_string(), opts.session.clone()),
        ("AD_FILENAME".to_string(), opts.script_path.clone()),
    ];
    let mut push = |k: &str, v: Option<String>| {
        if let Some(v) = v {
            builtins.push((k.to_string(), v));
        }
    };
    push("AD_PLATFORM", run_platform(opts, metadata));
    push("AD_TARGET", target);
    push("AD_DEVICE", opts.device.clone());
    push("AD_SHARD_INDEX", opts.shard.map(|s| s.0.to_string()));
    push("AD_SHARD_COUNT", opts.shard.map(|s| s.1.to_string()));
    push("AD_ARTIFACTS", opts.artifacts.clone());
    builtins
}

/// Runs `plan` on `backend`, journaling into `journal`.
pub async fn run<B: Backend>(
    plan: &Plan<'_>,
    backend: &mut B,
    journal: &mut Journal,
    progress: &mut dyn Progress,
    opts: &RunOptions,
) -> RunResult {
    run_keeping_frames(plan, backend, journal, progress, opts)
        .await
        .0
}

/// [`run`], and the run's ref frames at its end (a divergence's partial frame included), for a
/// session that lives on after the run (a held repair: its `ad session` commands use them).
pub async fn run_keeping_frames<B: Backend>(
    plan: &Plan<'_>,
    backend: &mut B,
    journal: &mut Journal,
    progress: &mut dyn Progress,
    opts: &RunOptions,
) -> (RunResult, Frames) {
    let wall = Instant::now();
    let start = RunStartFacts::new(plan, opts, backend.name());
    let mut result = RunResult::starting(plan.steps.len(), &start.digest, opts);
    // Refused before any action: a resume that does not fit the plan, or variables that cannot
    // be scoped. The journal still says the run started and why it ended.
    let (from, scope) = match start.preflight(plan, opts) {
        Ok(ready) => ready,
        Err(e) => {
            let _ = journal.append(start.event(result.from));
            result.error = Some(*e);
            return (
                finish_early(result, journal, wall, &opts.script_path, backend.name()),
                Frames::new(seed_for(&opts.session)),
            );
        }
    };
    result.from = from;
    let _ = journal.append(start.event(from));
    let start_device = backend.now_ms();
    let mut ex = Exec::new(backend, journal, scope, opts, start_device);
    let terminal_close = ad_compiler::profile::terminal_close(plan.steps).map(|s| s.line());
    let mut closed = false;
    for (i, step) in plan.steps.iter().enumerate().skip(from - 1) {
        // A backend that answers at once (the sim) never makes the run wait: without a yield
        // now and then, a long run in the session daemon would hold every other client up.
        tokio::task::coop::consume_budget().await;
        let at = StepAt::new(step, i + 1, plan.steps.len());
        if ex.skipped(&at, opts, terminal_close, progress) {
            continue;
        }
        let ctx = RunCtx {
            plan,
            digest: &start.digest,
            opts,
            file_env: &start.file_env,
        };
        if let Some(stop) = ex.stop_before(&at, &ctx, &result, progress).await {
            result.error = Some(stop);
            break;
        }
        match ex.run_step(&at, &ctx, progress).await {
            Ok(()) => {
                result.replayed += 1;
                closed |= Some(step.line()) == terminal_close;
            }
            Err(error) => {
                result.error = Some(error);
                break;
            }
        }
    }
    ex.finish(result, closed, wall, start_device, opts)
}

/// What the run's start event and preflight need, computed once.
struct RunStartFacts {
    digest: String,
    file_env: Vec<(String, String)>,
    /// The journal's `run_start` but for the step it starts at.
    event: RunStart,
}

impl RunStartFacts {
    fn new(plan: &Plan<'_>, opts: &RunOptions, backend: &str) -> RunStartFacts {
        let digest = plan.digest(opts);
        let file_env: Vec<(String, String)> = plan
            .metadata
            .env
            .iter()
            .map(|e| (e.key.clone(), e.value.clone()))
            .collect();
        // Variable names only, never values.
        let names = |pairs: &[(String, String)]| -> Vec<String> {
            pairs.iter().map(|(k, _)| k.clone()).collect()
        };
        let event = RunStart {
            script: opts.script_path.clone(),
            plan_digest: digest.clone(),
            steps: plan.steps.len(),
            from: 0,
            backend: backend.to_string(),
            platform: run_platform(opts, plan.metadata),
            keep_session: opts.keep_session,
            variables: VariableNames {
                cli: names(&opts.cli_env),
                shell: names(&opts.shell_env),
                file: names(&file_env),
            },
        };
        RunStartFacts {
            digest,
            file_env,
            event,
        }
    }

    /// The step the run starts at and its variable scope, or why it cannot start.
    fn preflight(
        &self,
        plan: &Plan<'_>,
        opts: &RunOptions,
    ) -> Result<(usize, Scope), Box<RunError>> {
        let from = resume_preflight(opts, &self.digest, plan.steps.len())?;
        let builtins = builtin_values(opts, plan.metadata);
        let scope = Scope::new(&builtins, &self.file_env, &opts.shell_env, &opts.cli_env)
            .map_err(|e| Box::new(RunError::preflight(e, None)))?;
        Ok((from, scope))
    }

    fn event(&self, from: usize) -> Event {
        Event::RunStart(RunStart {
            from,
            ..self.event.clone()
        })
    }
}

/// What every step of one run shares.
struct RunCtx<'r, 'p> {
    plan: &'r Plan<'p>,
    digest: &'r str,
    opts: &'r RunOptions,
    file_env: &'r [(String, String)],
}

/// One step of the plan as the run reports it.
struct StepAt<'r, 's> {
    step: &'r Step<'s>,
    /// 1-based plan index and the 1-based line.
    index: usize,
    line: usize,
    /// The journal's action label, from the script's own text (before interpolation): no
    /// injected value is in it, and redacting it would rewrite the script's words
    /// (`open "com.e<var:X>ample"`).
    label: String,
    info: StepInfo,
}

impl<'r, 's> StepAt<'r, 's> {
    fn new(step: &'r Step<'s>, index: usize, total: usize) -> Self {
        let line = step.line() + 1;
        StepAt {
            step,
            index,
            line,
            label: action_label(step.command(), &step.positional_values()),
            info: StepInfo {
                index,
                total,
                line,
                // The step as written, flags included (the journal's action keeps `label`).
                label: labels::progress_label(step),
            },
        }
    }

    fn skipped_event(&self, reason: &str) -> Event {
        Event::StepSkipped(StepSkipped {
            step: self.index,
            line: self.line,
            action: self.label.clone(),
            reason: reason.into(),
        })
    }
}

impl RunResult {
    /// A run of `total` steps that has not started yet.
    fn starting(total: usize, digest: &str, opts: &RunOptions) -> RunResult {
        RunResult {
            ok: false,
            replayed: 0,
            total,
            from: opts.from.unwrap_or(1),
            session: opts.session.clone(),
            session_active: true,
            location: Value::Null,
            plan_digest: digest.to_string(),
            error: None,
            device_ms: 0,
            wall_ms: 0.0,
            warnings: Vec::new(),
        }
    }
}

impl<'b, B: Backend> Exec<'b, B> {
    fn new(
        backend: &'b mut B,
        journal: &'b mut Journal,
        scope: Scope,
        opts: &RunOptions,
        start_device: u64,
    ) -> Self {
        Exec {
            backend,
            journal,
            scope,
            frames: Frames::new(seed_for(&opts.session)),
            last: None,
            step_no: 0,
            label: String::new(),
            line: 0,
            deadline: opts.timeout_ms.map(|t| start_device + t),
            warnings: Vec::new(),
            output_dir: opts.output_dir.clone(),
            live_files: None,
            screenshots: 0,
            selectors: std::collections::HashMap::new(),
            resolved: Vec::new(),
            typed_pins: Vec::new(),
        }
    }

    /// Steps that are journaled as skipped, never dispatched: `replay` lines, and the terminal
    /// `close` of a repair-armed or `--keep-session` run.
    fn skipped(
        &mut self,
        at: &StepAt<'_, '_>,
        opts: &RunOptions,
        terminal_close: Option<usize>,
        progress: &mut dyn Progress,
    ) -> bool {
        if at.step.spec().is_some_and(|s| s.effect == Effect::Skipped) {
            let _ = self
                .journal
                .append(at.skipped_event("replay steps are never dispatched"));
            return true;
        }
        let is_terminal_close = Some(at.step.line()) == terminal_close;
        let (reason, note) = match () {
            _ if opts.repair_armed && is_terminal_close => (
                "terminal close skipped: the run is repair-armed (the session stays live for the commit)",
                "repair-armed",
            ),
            _ if opts.keep_session && is_terminal_close => {
                ("terminal close skipped by --keep-session", "--keep-session")
            }
            _ => return false,
        };
        let _ = self.journal.append(at.skipped_event(reason));
        progress.step_end(
            &at.info,
            &StepEnd {
                status: "skipped",
                wall_ms: 0.0,
                device_ms: 0,
                note: Some(note.into()),
            },
        );
        true
    }

    /// What ends the run before this step: a debugger's stop, Ctrl-C, or the script's timeout.
    async fn stop_before(
        &mut self,
        at: &StepAt<'_, '_>,
        ctx: &RunCtx<'_, '_>,
        result: &RunResult,
        progress: &mut dyn Progress,
    ) -> Option<RunError> {
        // A debugger stops here, before the stop request is read: ending the run from a stop
        // is a stop request.
        if let Some(debugger) = progress.debugger() {
            let mut paused = debug::Paused {
                ex: self,
                info: &at.info,
                step: at.step,
                opts: ctx.opts,
                file_env: ctx.file_env,
            };
            debugger.pause(debug::Pause::Step, &mut paused).await;
        }
        if let Some(signal) = crate::core::interrupt::requested() {
            return Some(RunError::interrupted(
                signal,
                at.index,
                at.line,
                result.replayed,
                self.backend.resumes_at_step(),
            ));
        }
        let deadline = self.deadline?;
        if self.backend.now_ms() < deadline {
            return None;
        }
        let t = ctx.opts.timeout_ms.unwrap_or(0);
        let fail = Fail::new(
            error_codes::TIMEOUT,
            format!(
                "the script exceeded its timeout of {t} ms before step {}",
                at.index
            ),
        )
        .hint("raise `context timeout=` or pass --timeout")
        .reason("script_timeout");
        Some(self.failure_at(fail, at, ctx).await)
    }

    /// Runs one step, journaled and reported; a failure is the run's error (after the debugger,
    /// if one is attached, has stopped on it).
    async fn run_step(
        &mut self,
        at: &StepAt<'_, '_>,
        ctx: &RunCtx<'_, '_>,
        progress: &mut dyn Progress,
    ) -> Result<(), RunError> {
        progress.step_start(&at.info);
        self.step_no = at.index;
        self.label = at.label.clone();
        self.line = at.line;
        let t0 = Instant::now();
        let d0 = self.backend.now_ms();
        let _ = self.journal.append(Event::StepStart(StepStart {
            step: at.index,
            line: at.line,
            command: at.step.command().to_string(),
            action: at.label.clone(),
            source: ctx.opts.sources.get(at.step.line()).cloned().flatten(),
        }));
        self.resolved.clear();
        let outcome = self.step(at.step, &ctx.opts.script_path).await;
        let wall_ms = t0.elapsed().as_secs_f64() * 1000.0;
        let device_ms = self.backend.now_ms().saturating_sub(d0);
        let mut end = StepEndEvent {
            step: at.index,
            line: at.line,
            status: StepStatus::Ok,
            wall_ms: results::round3(wall_ms),
            device_ms,
            code: None,
            kind: None,
            result: None,
        };
        let fail = match outcome {
            Ok(details) => {
                // A result the redaction cannot keep well-formed is left out, never unredacted.
                end.result = details.and_then(|d| self.scope.redacted(d));
                // What a read read, as the journal has it (redacted).
                let note = end.result.as_ref().and_then(read_note);
                let _ = self.journal.append(Event::StepEnd(end));
                progress.step_passed(at.step, &self.resolved);
                progress.step_end(
                    &at.info,
                    &StepEnd {
                        status: "ok",
                        wall_ms,
                        device_ms,
                        note,
                    },
                );
                return Ok(());
            }
            Err(fail) => fail,
        };
        end.status = StepStatus::Failed;
        end.code = Some(fail.code.clone());
        end.kind = Some(fail.kind);
        let _ = self.journal.append(Event::StepEnd(end));
        progress.step_failed(at.step, &self.resolved);
        progress.step_end(
            &at.info,
            &StepEnd {
                status: "failed",
                wall_ms,
                device_ms,
                note: Some(self.scope.redact(&fail.message)),
            },
        );
        let error = self.failure_at(fail, at, ctx).await;
        if let Some(debugger) = progress.debugger() {
            let mut paused = debug::Paused {
                ex: self,
                info: &at.info,
                step: at.step,
                opts: ctx.opts,
                file_env: ctx.file_env,
            };
            debugger
                .pause(debug::Pause::Failed(&error), &mut paused)
                .await;
        }
        Err(error)
    }

    async fn failure_at(
        &mut self,
        fail: Fail,
        at: &StepAt<'_, '_>,
        ctx: &RunCtx<'_, '_>,
    ) -> RunError {
        self.failure(
            fail, at.step, at.index, at.line, &at.label, ctx.plan, ctx.digest, ctx.opts,
        )
        .await
    }

    /// The run's result and its journal's end, from what the device shows now.
    fn finish(
        self,
        mut result: RunResult,
        closed: bool,
        wall: Instant,
        start_device: u64,
        opts: &RunOptions,
    ) -> (RunResult, Frames) {
        let ex = self;
        result.ok = result.error.is_none();
        result.session_active = !closed;
        result.location = ex.backend.location();
        name_window(&mut result.location, ex.last.as_deref());
        // The app id or URL the device shows may hold an injected value (`open "${BASE}/…"`).
        ex.scope.redact_value(&mut result.location);
        result.device_ms = ex.backend.now_ms().saturating_sub(start_device);
        result.warnings = ex.warnings.clone();
        result.wall_ms = wall.elapsed().as_secs_f64() * 1000.0;
        let summary = result.summary(&opts.script_path, ex.backend.name());
        let _ = ex.journal.finish(result.run_end(), summary);
        (result, ex.frames)
    }
}

/// Where a live session's step writes the file a path names (a screenshot's): the folder of the
/// `ad session` command that sent it. A path typed on that command line resolves there as
/// agent-device's client resolves it (an absolute one too); one a replayed script names must
/// stay inside it, as `ad run` keeps a script's paths inside its artifacts folder. A bare
/// `screenshot` writes nothing (its answer is the size).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LiveFiles {
    pub dir: std::path::PathBuf,
    /// The step was typed (not read from a script).
    pub typed: bool,
}

/// What a live session keeps between its commands (authoring sessions): the variables, the
/// ref frames, the last capture and the step count.
pub struct LiveState {
    pub scope: Scope,
    frames: Frames,
    last: Option<Arc<Snapshot>>,
    step_no: usize,
    selectors: std::collections::HashMap<String, Arc<Selector>>,
    /// Where the next step writes the file a path names (`None`: it writes none).
    pub files: Option<LiveFiles>,
    /// The pinned refs (`@eN~sG`) typed on the next step's command (see `Exec::typed_pins`).
    pub typed_pins: Vec<String>,
}

impl LiveState {
    pub fn new(session: &str, scope: Scope) -> LiveState {
        LiveState {
            scope,
            frames: Frames::new(seed_for(session)),
            last: None,
            step_no: 0,
            selectors: std::collections::HashMap::new(),
            files: None,
            typed_pins: Vec::new(),
        }
    }

    /// The session continues with a run's ref frames (a held repair after its run: the
    /// divergence report's refs, pinned to their generation, stay usable).
    pub fn with_frames(mut self, frames: Frames) -> LiveState {
        self.frames = frames;
        self
    }

    /// What a live `snapshot` shows, with its refs: the tree its ref frame holds (scoped, or
    /// only the interactive elements after `-i`), else the last screen capture.
    pub fn last_capture(&self) -> Option<&Arc<Snapshot>> {
        self.frames
            .current()
            .map(|f| &f.tree)
            .or(self.last.as_ref())
    }
}

/// A live step that failed: the code, the message and the recovery, redacted.
#[derive(Debug, Clone, PartialEq)]
pub struct LiveFailure {
    pub code: String,
    pub message: String,
    pub hint: Option<String>,
}

/// What one live step did.
pub struct LiveOutcome {
    pub result: Result<Option<crate::core::records::journal::StepResult>, LiveFailure>,
    /// The elements it resolved (action target, drag endpoints, matched landmark), each on the
    /// capture it used.
    pub resolved: Vec<(Arc<Snapshot>, usize)>,
    pub wall_ms: f64,
}

/// Runs one step of a live session on `backend`, journaled like a script step; the session's
/// state carries over to its next step.
pub async fn run_live_step<B: Backend>(
    state: &mut LiveState,
    backend: &mut B,
    journal: &mut Journal,
    step: &Step<'_>,
    path: &str,
) -> LiveOutcome {
    // A replay's steps on a backend that answers at once: yield now and then (see `run`).
    tokio::task::coop::consume_budget().await;
    let t0 = Instant::now();
    state.step_no += 1;
    let index = state.step_no;
    let label = action_label(step.command(), &step.positional_values());
    let mut ex = Exec {
        backend,
        journal,
        scope: std::mem::take(&mut state.scope),
        frames: std::mem::replace(&mut state.frames, Frames::new(0)),
        last: state.last.take(),
        step_no: index,
        label: label.clone(),
        line: index,
        deadline: None,
        warnings: Vec::new(),
        output_dir: None,
        live_files: state.files.clone(),
        screenshots: 0,
        selectors: std::mem::take(&mut state.selectors),
        resolved: Vec::new(),
        typed_pins: std::mem::take(&mut state.typed_pins),
    };
    let _ = ex.journal.append(Event::StepStart(StepStart {
        step: index,
        line: index,
        command: step.command().to_string(),
        action: label,
        // A live session step comes from one command, not from a composed file.
        source: None,
    }));
    let d0 = ex.backend.now_ms();
    let outcome = ex.step(step, path).await;
    let mut end = StepEndEvent {
        step: index,
        line: index,
        status: StepStatus::Ok,
        wall_ms: results::round3(t0.elapsed().as_secs_f64() * 1000.0),
        device_ms: ex.backend.now_ms().saturating_sub(d0),
        code: None,
        kind: None,
        result: None,
    };
    let result = match outcome {
        Ok(details) => {
            let details = details.and_then(|d| ex.scope.redacted(d));
            end.result = details.clone();
            Ok(details)
        }
        Err(fail) => {
            end.status = StepStatus::Failed;
            end.code = Some(fail.code.clone());
            end.kind = Some(fail.kind);
            Err(LiveFailure {
                code: fail.code.clone(),
                message: ex.scope.redact(&fail.message),
                hint: fail.hint.map(|h| ex.scope.redact(&h)),
            })
        }
    };
    let _ = ex.journal.append(Event::StepEnd(end));
    let resolved = std::mem::take(&mut ex.resolved);
    state.scope = ex.scope;
    state.frames = ex.frames;
    state.last = ex.last;
    state.selectors = ex.selectors;
    LiveOutcome {
        result,
        resolved,
        wall_ms: t0.elapsed().as_secs_f64() * 1000.0,
    }
}

/// Ends a run refused before its first step: `run_end` and `run.json` say why.
fn finish_early(
    mut result: RunResult,
    journal: &mut Journal,
    wall: Instant,
    script: &str,
    backend: &str,
) -> RunResult {
    result.wall_ms = wall.elapsed().as_secs_f64() * 1000.0;
    result.session_active = false;
    let summary = result.summary(script, backend);
    let _ = journal.finish(result.run_end(), summary);
    result
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::tree::{Node, Rect};

    fn capture(nodes: Value) -> Snapshot {
        let root: Vec<Node> = serde_json::from_value(nodes).expect("nodes");
        Snapshot::flatten(
            &root,
            Rect {
                x: 0.0,
                y: 0.0,
                width: 800.0,
                height: 600.0,
            },
        )
    }

    #[test]
    fn a_location_without_a_screen_names_the_window_the_last_capture_showed() {
        let window = serde_json::json!({"type": "Window", "label": "Calculator — galculator"});
        let app = serde_json::json!({"type": "Application", "label": "galc", "children": [window]});
        let desktop = capture(serde_json::json!([app]));
        let mut loc = serde_json::json!({"app": "galculator", "platform": "linux"});
        name_window(&mut loc, Some(&desktop));
        assert_eq!(loc["window"], "Calculator — galculator");
        // The sim names its screen: that stays what the location says.
        let mut sim = serde_json::json!({"app": "com.example.shop", "screen": "profile"});
        name_window(&mut sim, Some(&desktop));
        assert!(sim.get("window").is_none());
        // No titled window (the web's tree has none), no capture, no location: nothing added.
        let untitled = capture(serde_json::json!([{"type": "Window", "label": " "}]));
        let mut web = serde_json::json!({"app": "https://x.test/", "url": "https://x.test/"});
        name_window(&mut web, Some(&untitled));
        name_window(&mut web, None);
        let page = serde_json::json!({"app": "https://x.test/", "url": "https://x.test/"});
        assert_eq!(web, page);
        let mut none = Value::Null;
        name_window(&mut none, Some(&desktop));
        assert_eq!(none, Value::Null);
    }

    #[test]
    fn a_read_note_quotes_the_recorded_text() {
        let read: StepResult = serde_json::from_value(serde_json::json!({
            "target": {"ref": "e1", "role": "statictext"}, "text": "42 \"x\""
        }))
        .expect("a read");
        assert_eq!(read_note(&read).as_deref(), Some("read \"42 \\\"x\\\"\""));
        let waited: StepResult =
            serde_json::from_value(serde_json::json!({"waitedMs": 3})).expect("a wait");
        assert_eq!(read_note(&waited), None);
    }
}
