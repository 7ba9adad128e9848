//! Runs a Maestro flow on any `ad` backend with agent-device 0.21.5's engine semantics
//! (`agent-device replay FLOW.yaml --maestro`): its selectors ([`select`]), its waits and their
//! timeouts ([`Timing`]), `optional`, `runFlow` with `when` and `env`, `repeat.times`, `retry`,
//! `onFlowStart`/`onFlowComplete`, scripts ([`crate::script`]) and `${…}` ([`values`]).
//!
//! Every command that acts or asserts is a step: journaled like an `.ad` step (its line is the
//! YAML line, its source the flow file), shown by the progress reporter, and on failure the run
//! ends with a divergence report that points at the YAML line and column.

pub mod program;
pub mod select;
pub mod values;

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use ad_runtime::backend::{
    Backend, BackendError, Direction, GesturePlan, KeyboardAction, LaunchOptions, SystemKey,
    TapOptions,
};
use ad_runtime::divergence::{self, ScreenEvidence};
use ad_runtime::interp::{Progress, StepEnd as ProgressEnd, StepInfo};
use ad_runtime::journal::{Intent, Journal};
use ad_runtime::records::divergence::{DivergenceKind, DivergenceReport};
use ad_runtime::records::journal::{
    ActionArgs, DivergenceEvent, Event, ExitReason, Outcome as ActionOutcome, RunEnd, RunStart,
    StepEnd, StepError, StepSource, StepStart, StepStatus, VariableNames,
};
use ad_runtime::records::summary::{RunSummary, StepCounts, SummaryError};
use ad_runtime::select::Policy;
use ad_runtime::tree::{Point, Rect, Snapshot};
use ad_runtime::vars::{Redactor, Scope};

use crate::script::{self, HttpTransport, Limits};
use crate::tree::{Command, CommandKind, Include, Target};
use crate::yaml::Scalar;
use program::{FlowFile, Program};
use select::{Found, Query};
use values::{truthy, Values};

/// agent-device 0.21.5's engine defaults (its compatibility policy's `command` and
/// `observation` tables).
#[derive(Debug, Clone)]
pub struct Timing {
    /// How long a tap, double tap or long press waits for its target.
    pub target_ms: u64,
    /// The same for an `optional: true` target.
    pub optional_target_ms: u64,
    /// `assertVisible` / `assertNotVisible`.
    pub assert_ms: u64,
    /// `extendedWaitUntil` without `timeout`.
    pub extended_wait_ms: u64,
    /// `runFlow.when.visible` / `notVisible`.
    pub condition_ms: u64,
    pub scroll_until_visible_ms: u64,
    pub animation_ms: u64,
    pub long_press_ms: u64,
    pub swipe_ms: u64,
    /// Between the taps of `tapOn.repeat`.
    pub repeat_delay_ms: u64,
    pub poll_ms: u64,
    /// `eraseText` without a count.
    pub erase_characters: usize,
    /// The most `retry.maxRetries` counts.
    pub max_retries: u64,
}

impl Default for Timing {
    fn default() -> Self {
        Timing {
            target_ms: 17_000,
            optional_target_ms: 7_000,
            assert_ms: 17_000,
            extended_wait_ms: 17_000,
            condition_ms: 7_000,
            scroll_until_visible_ms: 20_000,
            animation_ms: 15_000,
            long_press_ms: 3_000,
            swipe_ms: 400,
            repeat_delay_ms: 100,
            poll_ms: 200,
            erase_characters: 50,
            max_retries: 3,
        }
    }
}

/// How a flow runs.
#[derive(Clone, Default)]
pub struct Options {
    /// `-e KEY=VALUE`.
    pub cli_env: Vec<(String, String)>,
    /// `AD_VAR_*` (prefix stripped).
    pub shell_env: Vec<(String, String)>,
    /// What `runScript`'s `http.post` goes through; `None` refuses it.
    pub http: Option<HttpTransport>,
    /// Where `takeScreenshot` files go (the run folder when `None`).
    pub screenshots: Option<PathBuf>,
    pub timing: Timing,
}

/// Where a failed step is, and why it failed.
#[derive(Debug, Clone, PartialEq)]
pub struct Failure {
    pub code: String,
    /// Injected values redacted.
    pub message: String,
    pub hint: Option<String>,
    /// The flow file as shown, and the 1-based line and column of the command.
    pub file: String,
    pub line: usize,
    pub column: usize,
    /// 1-based step number (0 before the first step).
    pub step: usize,
    /// The command as the progress line names it (`tapOn "Sign in"`).
    pub action: String,
    pub report: Option<Box<DivergenceReport>>,
}

/// What a run did.
#[derive(Debug, Clone)]
pub struct Outcome {
    pub steps: usize,
    pub failure: Option<Failure>,
    pub interrupted: bool,
    pub device_ms: u64,
    pub wall_ms: f64,
    /// Files `takeScreenshot` wrote.
    pub artifacts: Vec<PathBuf>,
    /// Optional steps that failed and were let pass.
    pub warnings: Vec<String>,
    pub run_dir: Option<PathBuf>,
}

impl Outcome {
    pub fn ok(&self) -> bool {
        self.failure.is_none() && !self.interrupted
    }
    pub fn exit_code(&self) -> i32 {
        if self.interrupted {
            130
        } else if self.failure.is_some() {
            1
        } else {
            0
        }
    }
}

/// A failed command before it is placed: code, message, hint.
#[derive(Debug)]
struct Fail {
    code: String,
    message: String,
    hint: Option<String>,
    kind: DivergenceKind,
    /// A stop request: ends the run, not retried, not optional.
    interrupted: bool,
}

impl Fail {
    fn new(code: &str, message: impl Into<String>) -> Fail {
        Fail {
            code: code.into(),
            message: message.into(),
            hint: None,
            kind: DivergenceKind::ActionFailure,
            interrupted: false,
        }
    }
    fn hint(mut self, h: impl Into<String>) -> Fail {
        self.hint = Some(h.into());
        self
    }
    fn not_found(message: impl Into<String>) -> Fail {
        Fail {
            kind: DivergenceKind::SelectorMiss,
            ..Fail::new("COMMAND_FAILED", message)
        }
    }
    fn assertion(message: impl Into<String>) -> Fail {
        Fail {
            kind: DivergenceKind::ActionFailure,
            ..Fail::new("COMMAND_FAILED", message)
        }
    }
    fn from_backend(e: BackendError) -> Fail {
        let interrupted = matches!(e, BackendError::Interrupted { .. });
        Fail {
            code: e.code().into(),
            message: e.message().into(),
            hint: e.hint().map(str::to_string),
            kind: DivergenceKind::ActionFailure,
            interrupted,
        }
    }
}

type Step<T = ()> = Result<T, Fail>;

/// Journals the action, sends `backend.$call`, and journals the answer.
macro_rules! act {
    ($engine:ident, $line:expr, $command:expr, $args:expr, $($call:tt)+) => {{
        let attempt = $engine.attempt($line, $command, $args);
        let result = $engine.backend.$($call)+.await;
        $engine.settle(attempt, result)
    }};
}

/// A failure on its way out of nested `runFlow`/`repeat`/`retry`: placed at its command.
#[derive(Debug)]
enum Stop {
    Failed(Box<Failure>, Fail),
    Interrupted,
}

/// Runs `program` on `backend`, journaling into `journal` and reporting to `progress`.
pub async fn run<B: Backend>(
    backend: &mut B,
    program: &Program,
    options: &Options,
    journal: &mut Journal,
    progress: &mut dyn Progress,
) -> Outcome {
    let started = Instant::now();
    let device_start = backend.now_ms();
    let injected: Vec<(String, String)> = options
        .shell_env
        .iter()
        .chain(&options.cli_env)
        .cloned()
        .collect();
    let redactor = Redactor::new(injected.iter().map(|(k, v)| (k.as_str(), v.as_str())));
    backend.use_redactor(&redactor);
    let platform = backend.platform().to_string();
    let builtins = vec![("AD_PLATFORM".to_string(), platform.clone())];
    let entry = &program.files[0];
    let mut engine = Engine {
        backend,
        program,
        options,
        journal,
        progress,
        values: Values::new(&builtins, &injected, &platform),
        redactor,
        platform,
        step: 0,
        total: planned_steps(program, 0, &entry.flow.commands) + on_flow(program, 0),
        last: None,
        generation: 0,
        artifacts: Vec::new(),
        warnings: Vec::new(),
        apps: Vec::new(),
    };
    let digest = ad_runtime::journal::sha256_hex(
        program
            .files
            .iter()
            .map(|f| f.text.as_str())
            .collect::<Vec<_>>()
            .join("\u{0}")
            .as_bytes(),
    );
    let names = |v: &[(String, String)]| v.iter().map(|(k, _)| k.clone()).collect();
    let _ = engine.journal.append(Event::RunStart(RunStart {
        script: entry.display.clone(),
        plan_digest: digest.clone(),
        steps: engine.total,
        from: 1,
        backend: engine.backend.name().to_string(),
        platform: Some(engine.platform.clone()),
        keep_session: false,
        variables: VariableNames {
            cli: names(&options.cli_env),
            shell: names(&options.shell_env),
            file: entry
                .flow
                .config
                .env
                .iter()
                .map(|e| e.key.value.clone())
                .collect(),
        },
    }));
    let result = engine.flow(0, Vec::new()).await;
    let (failure, interrupted) = match result {
        Ok(()) => (None, false),
        Err(Stop::Interrupted) => (None, true),
        Err(Stop::Failed(f, _)) => (Some(*f), false),
    };
    let device_ms = engine.backend.now_ms().saturating_sub(device_start);
    let wall_ms = started.elapsed().as_secs_f64() * 1000.0;
    let (exit_code, exit_reason) = match (&failure, interrupted) {
        (_, true) => (130, ExitReason::Interrupted),
        (Some(f), _) if f.report.is_some() => (1, ExitReason::Divergence),
        (Some(_), _) => (1, ExitReason::Error),
        (None, _) => (0, ExitReason::Completed),
    };
    let steps = engine.step;
    let summary = RunSummary {
        script: entry.display.clone(),
        plan_digest: digest,
        backend: engine.backend.name().to_string(),
        ok: exit_code == 0,
        exit_code,
        exit_reason,
        steps: StepCounts {
            total: engine.total.max(steps),
            from: 1,
            replayed: steps,
        },
        session_active: false,
        device_ms,
        wall_ms,
        location: None,
        error: failure.as_ref().map(|f| SummaryError {
            code: f.code.clone(),
            message: f.message.clone(),
            step: Some(f.step),
            line: Some(f.line),
            divergence: f.report.as_deref().cloned(),
            resume_command: None,
        }),
        schema_version: 1,
        run_id: String::new(),
        session: String::new(),
        events: 0,
        observations: 0,
        attempts: 0,
        awaiting_observation_after_attempt: None,
        journal_error: None,
    };
    let end = RunEnd {
        exit_code,
        exit_reason,
        replayed: steps,
        total: engine.total.max(steps),
        session_active: false,
        device_ms,
        wall_ms,
        message: None,
        awaiting_observation_after_attempt: None,
    };
    let _ = engine.journal.finish(end, summary);
    Outcome {
        steps,
        failure,
        interrupted,
        device_ms,
        wall_ms,
        artifacts: engine.artifacts,
        warnings: engine.warnings,
        run_dir: engine.journal.dir().map(PathBuf::from),
    }
}

/// Why a run could not start.
#[derive(Debug)]
pub enum SetupError {
    /// The backend could not be made or reached.
    Backend(ad_runtime::records::SetupProblem),
    /// No async runtime, no run folder.
    Other(String),
}

/// Runs `program` on a new backend of `kind` made by the one factory: connects it, opens a run
/// folder under `artifacts`, runs, and releases what the backend leaves on a device.
pub fn run_on_new_backend(
    kind: ad_runtime::backends::BackendKind,
    setup: ad_runtime::backends::BackendSetup,
    program: &Program,
    options: &Options,
    artifacts: &std::path::Path,
    session: &str,
    progress: &mut dyn Progress,
) -> Result<Outcome, SetupError> {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| SetupError::Other(format!("cannot start the async runtime: {e}")))?;
    rt.block_on(async {
        let mut backend = ad_runtime::backends::create(kind, setup).map_err(SetupError::Backend)?;
        backend.connect().await.map_err(SetupError::Backend)?;
        let mut journal = Journal::create(artifacts, session).map_err(|e| {
            SetupError::Other(format!(
                "cannot create a run folder in {}: {e} (pass --artifacts-dir DIR)",
                artifacts.display()
            ))
        })?;
        let outcome = run(&mut backend, program, options, &mut journal, progress).await;
        backend.release().await;
        // The browser or daemon the backend started stops here, inside the runtime.
        drop(backend);
        Ok(outcome)
    })
}

/// Steps a run of `commands` takes when every `when` holds and nothing fails (the progress
/// total).
fn planned_steps(program: &Program, file: usize, commands: &[Command]) -> usize {
    let mut n = 0;
    for c in commands {
        n += match c.kind {
            CommandKind::Repeat => {
                let times = field(c, "repeat.times")
                    .and_then(|s| match s {
                        Scalar::Number(n) => Some(*n as usize),
                        Scalar::Str(s) => s.trim().parse().ok(),
                        _ => None,
                    })
                    .unwrap_or(1)
                    .min(10_000);
                times.saturating_mul(planned_steps(program, file, &c.body))
            }
            CommandKind::Retry => planned_steps(program, file, &c.body),
            CommandKind::RunFlow => match &c.include {
                Some(Include::Commands(inner)) => planned_steps(program, file, inner),
                Some(Include::File(f)) => match program.included(file, &f.value) {
                    Some(i) if i != file => {
                        planned_steps(program, i, &program.files[i].flow.commands)
                            + on_flow(program, i)
                    }
                    _ => 0,
                },
                None => 0,
            },
            _ => 1,
        };
    }
    n
}

fn on_flow(program: &Program, file: usize) -> usize {
    let c = &program.files[file].flow.config;
    planned_steps(program, file, &c.on_flow_start)
        + planned_steps(program, file, &c.on_flow_complete)
}

fn field<'c>(c: &'c Command, path: &str) -> Option<&'c Scalar> {
    c.fields
        .iter()
        .find(|f| f.path == path)
        .map(|f| &f.value.value)
}

struct Engine<'r, B: Backend> {
    backend: &'r mut B,
    program: &'r Program,
    options: &'r Options,
    journal: &'r mut Journal,
    progress: &'r mut dyn Progress,
    values: Values,
    redactor: Redactor,
    platform: String,
    step: usize,
    total: usize,
    last: Option<Arc<Snapshot>>,
    generation: u64,
    artifacts: Vec<PathBuf>,
    warnings: Vec<String>,
    /// The `appId` of each flow being run, innermost last.
    apps: Vec<Option<String>>,
}

impl<B: Backend> Engine<'_, B> {
    fn file(&self, i: usize) -> &FlowFile {
        &self.program.files[i]
    }

    /// Runs flow file `i` with `env` (a `runFlow`'s) around its own config `env`.
    async fn flow(&mut self, i: usize, env: Vec<(String, String)>) -> Result<(), Stop> {
        let program = self.program;
        let file = &program.files[i];
        let config = &file.flow.config;
        let own = self.env_entries(i, &config.env, None)?;
        self.values.enter(own);
        self.values.enter(env);
        let app = config.app_id.as_ref().map(|a| a.value.clone());
        let inherited = self.apps.last().cloned().flatten();
        self.apps.push(app.or(inherited));
        let mut result = self.commands(i, &config.on_flow_start).await;
        if result.is_ok() {
            result = self.commands(i, &file.flow.commands).await;
        }
        // onFlowComplete runs after a failure too; the flow's own failure is the one reported.
        if !matches!(result, Err(Stop::Interrupted)) {
            let after = self.commands(i, &config.on_flow_complete).await;
            if result.is_ok() {
                result = after;
            }
        }
        self.apps.pop();
        self.values.leave();
        self.values.leave();
        result
    }

    /// `env` entries with their values interpolated (a failure is placed at `at`, or at the
    /// entry).
    fn env_entries(
        &mut self,
        file: usize,
        entries: &[crate::tree::EnvEntry],
        at: Option<&Command>,
    ) -> Result<Vec<(String, String)>, Stop> {
        let mut out = Vec::new();
        for e in entries {
            let raw = e.value.value.js_string();
            match self.values.expand(&raw) {
                Ok(v) => out.push((e.key.value.clone(), v)),
                Err(u) => {
                    let span = at.map_or(e.value.span, |c| c.span);
                    let fail = Fail::new("INVALID_ARGS", u.message());
                    return Err(self.placed(file, span, "env".into(), fail, None));
                }
            }
        }
        Ok(out)
    }

    fn commands<'c>(
        &'c mut self,
        file: usize,
        commands: &'c [Command],
    ) -> std::pin::Pin<Box<dyn std::future::Future<Output = Result<(), Stop>> + 'c>> {
        Box::pin(async move {
            for c in commands {
                self.command(file, c).await?;
            }
            Ok(())
        })
    }

    async fn command(&mut self, file: usize, c: &Command) -> Result<(), Stop> {
        if ad_runtime::interrupt::requested().is_some() {
            return Err(Stop::Interrupted);
        }
        match c.kind {
            CommandKind::RunFlow => self.run_flow(file, c).await,
            CommandKind::Repeat => {
                let times = self.count(file, c, "repeat.times", 0)?;
                for _ in 0..times {
                    self.commands(file, &c.body).await?;
                }
                Ok(())
            }
            CommandKind::Retry => {
                let retries = self
                    .count(file, c, "retry.maxRetries", 1)?
                    .min(self.options.timing.max_retries);
                let mut attempt = 0;
                loop {
                    match self.commands(file, &c.body).await {
                        Ok(()) => return Ok(()),
                        Err(Stop::Interrupted) => return Err(Stop::Interrupted),
                        Err(e) if attempt >= retries => return Err(e),
                        Err(_) => attempt += 1,
                    }
                }
            }
            _ => self.leaf(file, c).await,
        }
    }

    /// A whole-number field (`repeat.times`, `retry.maxRetries`), interpolated.
    fn count(&mut self, file: usize, c: &Command, path: &str, default: u64) -> Result<u64, Stop> {
        let raw = match field(c, path) {
            None => return Ok(default),
            Some(s) => s.js_string(),
        };
        let text = match self.values.expand(&raw) {
            Ok(t) => t,
            Err(u) => {
                let fail = Fail::new("INVALID_ARGS", u.message());
                return Err(self.placed(file, c.span, c.kind.name().into(), fail, None));
            }
        };
        match text.trim().parse::<f64>() {
            Ok(n) if n.is_finite() && n >= 0.0 && n.fract() == 0.0 => Ok(n as u64),
            _ => {
                let fail = Fail::new(
                    "INVALID_ARGS",
                    format!("Maestro {path} must be a non-negative integer."),
                );
                Err(self.placed(file, c.span, c.kind.name().into(), fail, None))
            }
        }
    }

    async fn run_flow(&mut self, file: usize, c: &Command) -> Result<(), Stop> {
        if let Some(when) = &c.when {
            if !self.when_holds(file, c, when).await? {
                return Ok(());
            }
        }
        let env = self.env_entries(file, &c.env, Some(c))?;
        match &c.include {
            Some(Include::Commands(inner)) => {
                self.values.enter(env);
                let r = self.commands(file, inner).await;
                self.values.leave();
                r
            }
            Some(Include::File(f)) => {
                let name = match self.values.expand(&f.value) {
                    Ok(n) => n,
                    Err(u) => {
                        let fail = Fail::new("INVALID_ARGS", u.message());
                        return Err(self.placed(file, c.span, "runFlow".into(), fail, None));
                    }
                };
                match self.program.included(file, &name) {
                    Some(i) => Box::pin(self.flow(i, env)).await,
                    None => {
                        let fail = Fail::new(
                            "INVALID_ARGS",
                            format!("Maestro runFlow file not found: {name}"),
                        );
                        Err(self.placed(file, c.span, "runFlow".into(), fail, None))
                    }
                }
            }
            None => Ok(()),
        }
    }

    async fn when_holds(
        &mut self,
        file: usize,
        c: &Command,
        when: &crate::tree::When,
    ) -> Result<bool, Stop> {
        if let Some(p) = &when.platform {
            if !p.value.eq_ignore_ascii_case(&self.platform) {
                return Ok(false);
            }
        }
        if let Some(t) = &when.true_ {
            let raw = t.value.js_string();
            match self.values.expand(&raw) {
                Ok(v) if !truthy(&v) => return Ok(false),
                Ok(_) => {}
                Err(u) => {
                    let fail = Fail::new("INVALID_ARGS", u.message());
                    return Err(self.placed(file, c.span, "runFlow".into(), fail, None));
                }
            }
        }
        for (selector, want) in [(&when.visible, true), (&when.not_visible, false)] {
            let Some(selector) = selector else { continue };
            let query = match self.query(selector) {
                Ok(q) => q,
                Err(f) => return Err(self.placed(file, c.span, "runFlow".into(), f, None)),
            };
            let timeout = self.options.timing.condition_ms;
            match self.wait_for(&query, want, timeout).await {
                Ok(true) => {}
                Ok(false) => return Ok(false),
                Err(f) if f.interrupted => return Err(Stop::Interrupted),
                Err(f) => return Err(self.placed(file, c.span, "runFlow".into(), f, None)),
            }
        }
        Ok(true)
    }

    fn query(&self, selector: &crate::tree::Selector) -> Step<Query> {
        let values = &self.values;
        Query::of(selector, &mut |s: &str| values.expand(s))
            .map_err(|u| Fail::new("INVALID_ARGS", u.message()))
    }

    /// One step: journaled, shown, and failed at its line unless it is optional.
    async fn leaf(&mut self, file: usize, c: &Command) -> Result<(), Stop> {
        self.step += 1;
        let program = self.program;
        let f = &program.files[file];
        let (line, _) = f.line_col(c.span);
        let label = action_label(c);
        let info = StepInfo {
            index: self.step,
            total: self.total.max(self.step),
            line,
            label: label.clone(),
        };
        let source = (file != 0).then(|| StepSource {
            file: f.display.clone(),
            line,
            includes: Vec::new(),
        });
        let _ = self.journal.append(Event::StepStart(StepStart {
            step: self.step,
            line,
            command: c.kind.name().into(),
            action: label.clone(),
            source,
        }));
        self.progress.step_start(&info);
        let wall = Instant::now();
        let device = self.backend.now_ms();
        let result = self.execute(file, c).await;
        let optional = c
            .fields
            .iter()
            .any(|f| f.path.ends_with(".optional") && f.value.value == Scalar::Bool(true))
            || matches!(&c.target, Some(Target::Selector(s)) if s.optional == Some(true));
        let (status, outcome) = match result {
            Ok(()) => (StepStatus::Ok, Ok(())),
            Err(fail) if fail.interrupted => (StepStatus::Failed, Err(Stop::Interrupted)),
            Err(fail) if optional => {
                let message = self.redactor.redact(&fail.message);
                self.warnings.push(format!(
                    "{}:{line}: optional {label} skipped: {message}",
                    f.display
                ));
                (StepStatus::Ok, Ok(()))
            }
            Err(fail) => {
                let code = fail.code.clone();
                let stop = self.placed(file, c.span, label.clone(), fail, Some(self.step));
                let _ = code;
                (StepStatus::Failed, Err(stop))
            }
        };
        let end = ProgressEnd {
            status: if status == StepStatus::Ok {
                "ok"
            } else {
                "failed"
            },
            wall_ms: wall.elapsed().as_secs_f64() * 1000.0,
            device_ms: self.backend.now_ms().saturating_sub(device),
            note: None,
        };
        let (code, kind) = match &outcome {
            Err(Stop::Failed(f, fail)) => (Some(f.code.clone()), Some(fail.kind)),
            _ => (None, None),
        };
        let _ = self.journal.append(Event::StepEnd(StepEnd {
            step: self.step,
            line,
            status,
            wall_ms: end.wall_ms,
            device_ms: end.device_ms,
            code,
            kind,
            result: None,
        }));
        self.progress.step_end(&info, &end);
        outcome
    }

    /// Places `fail` at `span` of `file`: the failure record, its journal event and (for a
    /// step) its divergence report.
    fn placed(
        &mut self,
        file: usize,
        span: ad_grammar::Span,
        action: String,
        fail: Fail,
        step: Option<usize>,
    ) -> Stop {
        if fail.interrupted {
            return Stop::Interrupted;
        }
        let f = &self.program.files[file];
        let (line, column) = f.line_col(span);
        let message = self.redactor.redact(&fail.message);
        let hint = fail.hint.as_deref().map(|h| self.redactor.redact(h));
        let step_no = step.unwrap_or(self.step);
        let report = step.map(|n| {
            let scope = Scope::default();
            let screen = match &self.last {
                Some(s) => ScreenEvidence::Available {
                    snapshot: s,
                    generation: self.generation,
                },
                None => ScreenEvidence::Unavailable {
                    reason: "the step failed before the screen was captured".into(),
                    hint: "run the flow again with the app on screen".into(),
                },
            };
            let mut report = divergence::build(
                &divergence::Input {
                    kind: fail.kind,
                    step: n,
                    path: f.display.clone(),
                    line,
                    action: action.clone(),
                    cause_code: fail.code.clone(),
                    cause_message: message.clone(),
                    cause_hint: hint.clone(),
                    screen,
                    evidence: None,
                    binding: None,
                    binding_snapshot: None,
                    selector: None,
                    policy: Policy::ANY,
                    total_steps: self.total.max(n),
                    plan_digest: String::new(),
                    session_exists: false,
                    resumable: false,
                    resume_refusal: Some("a Maestro flow runs from its first command".into()),
                },
                &scope,
            );
            // The screen's text can hold injected values: redact what the report shows.
            redact_report(&mut report, &self.redactor);
            Box::new(report)
        });
        match &report {
            Some(r) => {
                let _ = self.journal.append(Event::Divergence(DivergenceEvent {
                    step: step_no,
                    line,
                    report: r.clone(),
                    screenshot: None,
                }));
            }
            None => {
                let _ = self.journal.append(Event::StepError(StepError {
                    step: step_no,
                    line,
                    code: fail.code.clone(),
                    message: message.clone(),
                }));
            }
        }
        let failure = Failure {
            code: fail.code.clone(),
            message,
            hint,
            file: f.display.clone(),
            line,
            column,
            step: step_no,
            action,
            report,
        };
        Stop::Failed(Box::new(failure), fail)
    }

    async fn capture(&mut self) -> Step<Arc<Snapshot>> {
        let capture = self.backend.capture().await.map_err(Fail::from_backend)?;
        let snapshot = Arc::new(Snapshot::flatten_owned(capture.roots, capture.viewport));
        self.generation += 1;
        self.last = Some(snapshot.clone());
        Ok(snapshot)
    }

    /// Waits up to `timeout_ms` for `query` to find its element.
    async fn find(&mut self, query: &Query, timeout_ms: u64) -> Step<(Arc<Snapshot>, Found)> {
        let deadline = self.backend.now_ms() + timeout_ms;
        loop {
            let snapshot = self.capture().await?;
            match select::find(&snapshot, query, &self.platform) {
                Ok(found) => return Ok((snapshot, found)),
                Err(m) if m.invalid => return Err(Fail::new("INVALID_ARGS", m.message)),
                Err(m) => {
                    if self.backend.now_ms() >= deadline {
                        return Err(Fail::not_found(m.message).hint(format!(
                            "no visible element matched {} within {timeout_ms} ms",
                            query.describe()
                        )));
                    }
                }
            }
            self.nap().await?;
        }
    }

    /// Waits up to `timeout_ms` until `query` is visible (`want`) or not; true when it came.
    async fn wait_for(&mut self, query: &Query, want: bool, timeout_ms: u64) -> Step<bool> {
        let deadline = self.backend.now_ms() + timeout_ms;
        loop {
            let snapshot = self.capture().await?;
            let seen = select::is_visible(&snapshot, query, &self.platform)
                .map_err(|m| Fail::new("INVALID_ARGS", m.message))?;
            if seen == want {
                return Ok(true);
            }
            if self.backend.now_ms() >= deadline {
                return Ok(false);
            }
            self.nap().await?;
        }
    }

    async fn nap(&mut self) -> Step {
        if let Some(signal) = ad_runtime::interrupt::requested() {
            return Err(Fail::from_backend(BackendError::interrupted(signal)));
        }
        self.backend.poll_wait(self.options.timing.poll_ms).await;
        Ok(())
    }

    fn expand(&self, s: &str) -> Step<String> {
        self.values
            .expand(s)
            .map_err(|u| Fail::new("INVALID_ARGS", u.message()))
    }

    fn text_field(&self, c: &Command, path: &str) -> Step<Option<String>> {
        match field(c, path) {
            None => Ok(None),
            Some(s) => self.expand(&s.js_string()).map(Some),
        }
    }

    fn number_field(&self, c: &Command, path: &str) -> Step<Option<f64>> {
        match self.text_field(c, path)? {
            None => Ok(None),
            Some(t) => t.trim().parse::<f64>().map(Some).map_err(|_| {
                Fail::new("INVALID_ARGS", format!("Maestro {path} must be a number."))
            }),
        }
    }

    fn timeout_field(&self, c: &Command, path: &str, default: u64) -> Step<u64> {
        Ok(self
            .number_field(c, path)?
            .map(|n| n.max(0.0) as u64)
            .unwrap_or(default))
    }

    fn app_id(&self, c: &Command, path: &str) -> Step<String> {
        let given = match field(c, c.kind.name()) {
            Some(_) => self.text_field(c, c.kind.name())?,
            None => self.text_field(c, path)?,
        };
        match given.or_else(|| self.apps.last().cloned().flatten()) {
            Some(app) => Ok(app),
            None => Err(Fail::new(
                "INVALID_ARGS",
                format!("Maestro {} requires an appId.", c.kind.name()),
            )
            .hint("give the flow an appId, or the command its own")),
        }
    }

    /// Journals an action about to be sent (durably, before it is sent).
    fn attempt(&mut self, line: usize, command: &str, args: ActionArgs) -> Option<String> {
        self.journal
            .attempt(Intent {
                step: self.step,
                line,
                action: command.into(),
                command: command.into(),
                args,
            })
            .ok()
    }

    /// Journals the device's answer to an attempt.
    fn settle<T>(&mut self, attempt: Option<String>, result: Result<T, BackendError>) -> Step<T> {
        if let Some(id) = attempt {
            let (outcome, failure) = match &result {
                Ok(_) => (ActionOutcome::Accepted, None),
                Err(BackendError::Transport { message }) => (
                    ActionOutcome::Unknown,
                    Some(("COMMAND_FAILED".into(), self.redactor.redact(message))),
                ),
                Err(e) => (
                    ActionOutcome::Rejected,
                    Some((e.code().into(), self.redactor.redact(e.message()))),
                ),
            };
            let _ = self.journal.result(&id, outcome, failure);
        }
        result.map_err(Fail::from_backend)
    }

    /// Where a point target is, in device points.
    async fn point(&mut self, p: &crate::tree::Point) -> Step<Point> {
        if !p.percent {
            return Ok(Point {
                x: p.x as f64,
                y: p.y as f64,
            });
        }
        let viewport = match &self.last {
            Some(s) => s.viewport,
            None => self.capture().await?.viewport,
        };
        Ok(percent_point(&viewport, p.x as f64, p.y as f64))
    }

    /// The point a tap-like command acts on: a selector's element (waited for) or a point.
    async fn target_point(&mut self, c: &Command) -> Step<Point> {
        match &c.target {
            Some(Target::Point(p)) => self.point(&p.value).await,
            Some(Target::Selector(s)) => {
                let query = self.query(s)?;
                let optional = s.optional == Some(true)
                    || field(c, &format!("{}.optional", c.kind.name()))
                        == Some(&Scalar::Bool(true));
                let timing = &self.options.timing;
                let timeout = if optional {
                    timing.optional_target_ms
                } else {
                    timing.target_ms
                };
                let (_, found) = self.find(&query, timeout).await?;
                Ok(select::centre(&found.rect))
            }
            None => Err(Fail::new(
                "INVALID_ARGS",
                format!("Maestro {} requires a target.", c.kind.name()),
            )),
        }
    }

    async fn execute(&mut self, file: usize, c: &Command) -> Step {
        let (line, _) = self.file(file).line_col(c.span);
        let timing = self.options.timing.clone();
        match c.kind {
            CommandKind::LaunchApp => {
                let app = self.app_id(c, "launchApp.appId")?;
                let clear = field(c, "launchApp.clearState") == Some(&Scalar::Bool(true));
                // Maestro's launchApp stops a running app first unless `stopApp: false`.
                let stop = field(c, "launchApp.stopApp") != Some(&Scalar::Bool(false));
                if clear {
                    let a = app.clone();
                    act!(
                        self,
                        line,
                        "clearState",
                        ActionArgs::Close {
                            app: Some(a.clone())
                        },
                        close(Some(&a))
                    )?;
                }
                let options = LaunchOptions {
                    relaunch: stop || clear,
                    url: None,
                };
                let args = ActionArgs::Launch {
                    app: self.redactor.redact_id(&app),
                    relaunch: options.relaunch,
                    url: None,
                };
                act!(self, line, "launchApp", args, launch(&app, &options))
            }
            CommandKind::StopApp | CommandKind::ClearState => {
                let app = self.app_id(c, "")?;
                let args = ActionArgs::Close {
                    app: Some(self.redactor.redact_id(&app)),
                };
                act!(self, line, c.kind.name(), args, close(Some(&app)))
            }
            CommandKind::OpenLink => {
                let link = match field(c, "openLink") {
                    Some(_) => self.text_field(c, "openLink")?,
                    None => self.text_field(c, "openLink.link")?,
                }
                .unwrap_or_default();
                let foreground = self
                    .backend
                    .location()
                    .get("app")
                    .and_then(|a| a.as_str())
                    .map(str::to_string);
                let (app, url) = match foreground {
                    Some(a) => (a, Some(link.clone())),
                    None => (link.clone(), None),
                };
                let options = LaunchOptions {
                    relaunch: false,
                    url: url.clone(),
                };
                let args = ActionArgs::Launch {
                    app: self.redactor.redact_id(&app),
                    relaunch: false,
                    url: url.map(|u| self.redactor.redact_id(&u)),
                };
                act!(self, line, "openLink", args, launch(&app, &options))
            }
            CommandKind::TapOn | CommandKind::DoubleTapOn => {
                let at = self.target_point(c).await?;
                let double = c.kind == CommandKind::DoubleTapOn;
                let repeat = if double {
                    1
                } else {
                    self.number_field(c, "tapOn.repeat")?
                        .map_or(1, |n| n.max(1.0) as u32)
                };
                let delay = self
                    .number_field(c, &format!("{}.delay", c.kind.name()))?
                    .map_or(timing.repeat_delay_ms, |n| n.max(0.0) as u64);
                let options = TapOptions {
                    count: if double { 2 } else { repeat },
                    interval_ms: if double || repeat > 1 { delay } else { 0 },
                    double_tap: double,
                    ..TapOptions::default()
                };
                let args = ActionArgs::Tap {
                    point: at,
                    count: options.count,
                    target: None,
                };
                act!(self, line, c.kind.name(), args, tap(at, &options))
            }
            CommandKind::LongPressOn => {
                let at = self.target_point(c).await?;
                let ms = timing.long_press_ms;
                let args = ActionArgs::LongPress {
                    point: at,
                    duration_ms: ms,
                };
                act!(self, line, "longPressOn", args, long_press(at, ms))
            }
            CommandKind::InputText => {
                let text = match field(c, "inputText") {
                    Some(_) => self.text_field(c, "inputText")?,
                    None => self.text_field(c, "inputText.text")?,
                }
                .unwrap_or_default();
                let args = ActionArgs::Text {
                    text: self.redactor.redact(&text),
                };
                act!(self, line, "inputText", args, type_text(&text, 0))
            }
            CommandKind::EraseText => {
                let n = match field(c, "eraseText") {
                    Some(_) => self.number_field(c, "eraseText")?,
                    None => self.number_field(c, "eraseText.charactersToErase")?,
                }
                .map_or(timing.erase_characters, |n| n.max(0.0) as usize);
                let text = "\u{8}".repeat(n);
                let args = ActionArgs::Text { text: text.clone() };
                act!(self, line, "eraseText", args, type_text(&text, 0))
            }
            CommandKind::AssertVisible | CommandKind::AssertNotVisible => {
                let Some(Target::Selector(s)) = &c.target else {
                    return Err(Fail::new(
                        "INVALID_ARGS",
                        "Maestro assertion requires a selector.",
                    ));
                };
                let query = self.query(s)?;
                let want = c.kind == CommandKind::AssertVisible;
                if self.wait_for(&query, want, timing.assert_ms).await? {
                    Ok(())
                } else if want {
                    Err(Fail::assertion(format!(
                        "Maestro assertVisible failed: {} is not visible.",
                        query.describe()
                    )))
                } else {
                    Err(Fail::assertion(format!(
                        "Maestro assertNotVisible failed: {} is visible.",
                        query.describe()
                    )))
                }
            }
            CommandKind::ExtendedWaitUntil => {
                let Some(Target::Selector(s)) = &c.target else {
                    return Err(Fail::new(
                        "INVALID_ARGS",
                        "Maestro extendedWaitUntil requires one condition.",
                    ));
                };
                let query = self.query(s)?;
                let want = !c.not_visible;
                let timeout =
                    self.timeout_field(c, "extendedWaitUntil.timeout", timing.extended_wait_ms)?;
                if self.wait_for(&query, want, timeout).await? {
                    Ok(())
                } else {
                    Err(Fail::assertion(format!(
                        "Maestro {} condition did not match.",
                        if want { "visible" } else { "notVisible" }
                    )))
                }
            }
            CommandKind::AssertTrue => {
                let value = match field(c, "assertTrue") {
                    Some(_) => self.text_field(c, "assertTrue")?,
                    None => self.text_field(c, "assertTrue.condition")?,
                }
                .unwrap_or_default();
                if truthy(&value) {
                    Ok(())
                } else {
                    Err(Fail::assertion(format!(
                        "Maestro assertTrue failed: \"{}\" is not true.",
                        value
                    )))
                }
            }
            CommandKind::TakeScreenshot => {
                let name = self.text_field(c, "takeScreenshot")?.unwrap_or_default();
                let png = act!(
                    self,
                    line,
                    "takeScreenshot",
                    ActionArgs::None {},
                    screenshot()
                )?;
                self.save_screenshot(&name, &png)
            }
            CommandKind::Scroll => {
                let args = ActionArgs::Scroll {
                    direction: Direction::Down,
                    amount: None,
                };
                act!(self, line, "scroll", args, scroll(Direction::Down, None))
            }
            CommandKind::ScrollUntilVisible => {
                let Some(Target::Selector(s)) = &c.target else {
                    return Err(Fail::new(
                        "INVALID_ARGS",
                        "Maestro scrollUntilVisible requires element.",
                    ));
                };
                let query = self.query(s)?;
                let direction = self
                    .text_field(c, "scrollUntilVisible.direction")?
                    .and_then(|d| Direction::parse(&d))
                    .unwrap_or(Direction::Down);
                let timeout = self.timeout_field(
                    c,
                    "scrollUntilVisible.timeout",
                    timing.scroll_until_visible_ms,
                )?;
                let deadline = self.backend.now_ms() + timeout;
                loop {
                    let snapshot = self.capture().await?;
                    if select::is_visible(&snapshot, &query, &self.platform)
                        .map_err(|m| Fail::new("INVALID_ARGS", m.message))?
                    {
                        return Ok(());
                    }
                    if self.backend.now_ms() >= deadline {
                        return Err(Fail::not_found(
                            "Maestro scrollUntilVisible target did not become visible.",
                        ));
                    }
                    if ad_runtime::interrupt::requested().is_some() {
                        return Err(Fail::from_backend(BackendError::interrupted(
                            "a stop request",
                        )));
                    }
                    let args = ActionArgs::Scroll {
                        direction,
                        amount: None,
                    };
                    act!(self, line, "scroll", args, scroll(direction, None))?;
                }
            }
            CommandKind::Swipe => self.swipe(line, c).await,
            CommandKind::HideKeyboard => act!(
                self,
                line,
                "hideKeyboard",
                ActionArgs::Keyboard {
                    action: KeyboardAction::Dismiss,
                },
                keyboard(KeyboardAction::Dismiss)
            )
            .map(|_| ()),
            CommandKind::PressKey => {
                let key = self
                    .text_field(c, "pressKey")?
                    .unwrap_or_default()
                    .to_lowercase();
                match key.as_str() {
                    "back" => self.system_key(line, "pressKey", SystemKey::Back).await,
                    "home" => self.system_key(line, "pressKey", SystemKey::Home).await,
                    _ => act!(
                        self,
                        line,
                        "pressKey",
                        ActionArgs::Keyboard {
                            action: KeyboardAction::Enter,
                        },
                        keyboard(KeyboardAction::Enter)
                    )
                    .map(|_| ()),
                }
            }
            CommandKind::Back => self.system_key(line, "back", SystemKey::Back).await,
            CommandKind::WaitForAnimationToEnd => {
                let timeout = match field(c, "waitForAnimationToEnd") {
                    Some(_) => {
                        self.timeout_field(c, "waitForAnimationToEnd", timing.animation_ms)?
                    }
                    None => {
                        self.timeout_field(c, "waitForAnimationToEnd.timeout", timing.animation_ms)?
                    }
                };
                let deadline = self.backend.now_ms() + timeout;
                let mut previous = self.capture().await?.fingerprint();
                // Never fails: when the screen keeps changing, the wait just ends.
                while self.backend.now_ms() < deadline {
                    self.nap().await?;
                    let now = self.capture().await?.fingerprint();
                    if now == previous {
                        break;
                    }
                    previous = now;
                }
                Ok(())
            }
            CommandKind::RunScript => self.run_script(file, c).await,
            CommandKind::EvalScript => {
                let source = match field(c, "evalScript") {
                    Some(s) => s.js_string(),
                    None => String::new(),
                };
                let inputs = self.script_inputs();
                let outputs = run_blocking(move || {
                    script::eval_script(&source, &inputs, &Limits::eval_script())
                })
                .await
                .map_err(script_fail)?;
                for (k, v) in outputs {
                    self.values.set_output(&k, &v);
                }
                Ok(())
            }
            CommandKind::RunFlow | CommandKind::Repeat | CommandKind::Retry => Ok(()),
        }
    }

    async fn system_key(&mut self, line: usize, command: &str, key: SystemKey) -> Step {
        act!(self, line, command, ActionArgs::None {}, press_key(key))
    }

    async fn swipe(&mut self, line: usize, c: &Command) -> Step {
        let duration = self
            .number_field(c, "swipe.duration")?
            .map_or(self.options.timing.swipe_ms, |n| n.max(0.0) as u64);
        let (from, to) = if let Some((a, b)) = &c.swipe {
            (self.point(&a.value).await?, self.point(&b.value).await?)
        } else {
            let direction = self
                .text_field(c, "swipe.direction")?
                .and_then(|d| Direction::parse(&d))
                .unwrap_or(Direction::Up);
            let viewport = match &self.last {
                Some(s) => s.viewport,
                None => self.capture().await?.viewport,
            };
            let area = match &c.target {
                Some(Target::Selector(s)) => {
                    let query = self.query(s)?;
                    let (_, found) = self.find(&query, self.options.timing.target_ms).await?;
                    found.rect
                }
                _ => viewport,
            };
            swipe_path(&area, direction)
        };
        let plan = GesturePlan {
            kind: ad_runtime::backend::GestureKind::Swipe,
            pointers: vec![vec![from, to]],
            duration_ms: duration,
            repeat: 1,
            intent: None,
        };
        let args = ActionArgs::Gesture { plan: plan.clone() };
        act!(self, line, "swipe", args, gesture(&plan))
    }

    fn script_inputs(&self) -> script::Inputs {
        self.values.all()
    }

    async fn run_script(&mut self, file: usize, c: &Command) -> Step {
        let name = match field(c, "runScript") {
            Some(_) => self.text_field(c, "runScript")?,
            None => self.text_field(c, "runScript.file")?,
        }
        .unwrap_or_default();
        let path = self.file(file).folder().join(&name);
        let source = std::fs::read_to_string(&path).map_err(|e| {
            Fail::new(
                "INVALID_ARGS",
                format!("Maestro runScript file cannot be read: {name} ({e})"),
            )
            .hint("runScript paths start at the flow's folder")
        })?;
        let mut inputs = self.script_inputs();
        for e in &c.env {
            let v = self.expand(&e.value.value.js_string())?;
            inputs.insert(e.key.value.clone(), v);
        }
        let http = self.options.http.clone();
        let outputs =
            run_blocking(move || script::run_script(&source, &inputs, http, &Limits::run_script()))
                .await
                .map_err(script_fail)?;
        for (k, v) in outputs {
            self.values.set_output(&k, &v);
        }
        Ok(())
    }

    fn save_screenshot(&mut self, name: &str, png: &[u8]) -> Step {
        let dir = match (&self.options.screenshots, self.journal.dir()) {
            (Some(d), _) => d.clone(),
            (None, Some(d)) => d.to_path_buf(),
            (None, None) => return Ok(()),
        };
        // The name is the flow's: keep it inside the folder whatever it says.
        let safe: String = name
            .chars()
            .map(|ch| {
                if ch == '/' || ch == '\\' || ch == '\0' {
                    '_'
                } else {
                    ch
                }
            })
            .collect();
        let safe = safe.trim_start_matches('.');
        let safe = if safe.is_empty() { "screenshot" } else { safe };
        let file = if safe.ends_with(".png") {
            dir.join(safe)
        } else {
            dir.join(format!("{safe}.png"))
        };
        std::fs::create_dir_all(&dir)
            .and_then(|_| std::fs::write(&file, png))
            .map_err(|e| {
                Fail::new(
                    "COMMAND_FAILED",
                    format!("cannot write the screenshot {}: {e}", file.display()),
                )
            })?;
        self.artifacts.push(file);
        Ok(())
    }
}

/// A script runs on its own thread (it may take seconds; the device clock does not wait).
async fn run_blocking<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    match tokio::task::spawn_blocking(f).await {
        Ok(v) => v,
        Err(e) => std::panic::resume_unwind(e.into_panic()),
    }
}

fn script_fail(e: script::ScriptError) -> Fail {
    let hint = (e.detail != e.message).then(|| format!("the script threw: {}", e.detail));
    Fail {
        hint,
        ..Fail::new(e.code, e.message)
    }
}

fn percent_point(viewport: &Rect, x: f64, y: f64) -> Point {
    Point {
        x: viewport.x + (viewport.width * x / 100.0).round(),
        y: viewport.y + (viewport.height * y / 100.0).round(),
    }
}

/// A direction swipe across `area`: from 90% to 10% of it along the direction (agent-device's
/// target swipe edges), through its middle.
fn swipe_path(area: &Rect, direction: Direction) -> (Point, Point) {
    let at = |fx: f64, fy: f64| Point {
        x: (area.x + area.width * fx).round(),
        y: (area.y + area.height * fy).round(),
    };
    match direction {
        Direction::Up | Direction::Top => (at(0.5, 0.9), at(0.5, 0.1)),
        Direction::Down | Direction::Bottom => (at(0.5, 0.1), at(0.5, 0.9)),
        Direction::Left => (at(0.9, 0.5), at(0.1, 0.5)),
        Direction::Right => (at(0.1, 0.5), at(0.9, 0.5)),
    }
}

/// How a step is named in progress lines and reports: the command and what it targets, from
/// the flow's text (never an interpolated value; `inputText` shows `<text>`).
pub fn action_label(c: &Command) -> String {
    let name = c.kind.name();
    let quoted = |s: &str| format!("{name} {}", ad_grammar::json::quote(s));
    if let Some(l) = c.fields.iter().find(|f| f.path.ends_with(".label")) {
        if let Scalar::Str(s) = &l.value.value {
            return quoted(s);
        }
    }
    match (&c.target, c.kind) {
        (_, CommandKind::InputText) => format!("{name} <text>"),
        (Some(Target::Selector(s)), _) => match s.id.as_ref().or(s.text.as_ref()) {
            Some(t) => quoted(&t.value),
            None => name.into(),
        },
        (Some(Target::Point(p)), _) => {
            let pc = if p.value.percent { "%" } else { "" };
            format!("{name} {}{pc},{}{pc}", p.value.x, p.value.y)
        }
        (None, _) => match c.fields.iter().find(|f| {
            f.path == name
                || f.path == format!("{name}.appId")
                || f.path == "openLink.link"
                || f.path == "runScript.file"
        }) {
            Some(f) if c.kind != CommandKind::EvalScript => match &f.value.value {
                Scalar::Str(s) => quoted(s),
                other => format!("{name} {}", other.js_string()),
            },
            _ => name.into(),
        },
    }
}

/// Redacts the text a report carries from the screen (labels, messages).
fn redact_report(report: &mut DivergenceReport, redactor: &Redactor) {
    if redactor.is_empty() {
        return;
    }
    if let Ok(mut v) = serde_json::to_value(&*report) {
        redactor.redact_value(&mut v);
        if let Ok(r) = serde_json::from_value(v) {
            *report = r;
        }
    }
}
