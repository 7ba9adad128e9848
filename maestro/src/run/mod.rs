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

use ad_runtime::core::backend::{
    Backend, BackendError, Direction, GesturePlan, KeyboardAction, LaunchOptions, SystemKey,
    TapOptions,
};
use ad_runtime::core::divergence::{self, ScreenEvidence};
use ad_runtime::core::interp::{Progress, StepEnd as ProgressEnd, StepInfo};
use ad_runtime::core::journal::{Intent, Journal};
use ad_runtime::core::records::divergence::{DivergenceKind, DivergenceReport};
use ad_runtime::core::records::journal::{
    ActionArgs, DivergenceEvent, Event, ExitReason, Outcome as ActionOutcome, RunEnd, RunStart,
    StepEnd, StepError, StepSource, StepStart, StepStatus, VariableNames,
};
use ad_runtime::core::records::summary::{RunSummary, StepCounts, SummaryError};
use ad_runtime::core::select::Policy;
use ad_runtime::core::tree::{Point, Rect, Snapshot};
use ad_runtime::core::vars::{Redactor, Scope};

use crate::script::{self, HttpTransport, Limits};
use crate::tree::{Command, CommandKind, Include, Target};
use crate::yaml::Scalar;
use ad_runtime::core::records::error_codes;
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
    /// How long the screen may take to settle after an action before the next action
    /// (agent-device's `settleTimeoutMs`: its poll interval times its default settle attempts).
    pub settle_ms: u64,
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
            settle_ms: 2_000,
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
    /// The session and target the flow sees as `AD_SESSION` and `AD_TARGET`.
    pub session: String,
    pub target: String,
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
    /// The engine's own "did not match" (agent-device's `maestro-test-failure`): the only
    /// failure `optional` skips and `retry` retries; device errors and bad values are not.
    test_failure: bool,
}

impl Fail {
    fn new(code: &str, message: impl Into<String>) -> Fail {
        Fail {
            code: code.into(),
            message: message.into(),
            hint: None,
            kind: DivergenceKind::ActionFailure,
            interrupted: false,
            test_failure: false,
        }
    }
    fn hint(mut self, h: impl Into<String>) -> Fail {
        self.hint = Some(h.into());
        self
    }
    fn not_found(message: impl Into<String>) -> Fail {
        Fail {
            kind: DivergenceKind::SelectorMiss,
            test_failure: true,
            ..Fail::new(error_codes::COMMAND_FAILED, message)
        }
    }
    fn assertion(message: impl Into<String>) -> Fail {
        Fail {
            kind: DivergenceKind::ActionFailure,
            test_failure: true,
            ..Fail::new(error_codes::COMMAND_FAILED, message)
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
            test_failure: false,
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
    /// The failure, why, and whether a step has journaled it yet.
    Failed(Box<Failure>, Fail, bool),
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
    let entry = &program.files[0];
    // agent-device's defaults (a run folder's own values are not: they differ per run).
    let builtins = vec![
        ("AD_SESSION".to_string(), options.session.clone()),
        ("AD_FILENAME".to_string(), entry.display.clone()),
        ("AD_PLATFORM".to_string(), platform.clone()),
        ("AD_TARGET".to_string(), options.target.clone()),
    ];
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
        settle_pending: false,
        dispatched: false,
        artifacts: Vec::new(),
        warnings: Vec::new(),
        apps: Vec::new(),
    };
    let digest = ad_runtime::core::records::common::sha256_hex(
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
    let result = match engine.plan_check() {
        Ok(()) => engine.flow(0, Vec::new(), false).await,
        Err(stop) => Err(stop),
    };
    let (failure, interrupted) = match result {
        Ok(()) => (None, false),
        Err(Stop::Interrupted) => (None, true),
        Err(Stop::Failed(f, fail, journaled)) => {
            if !journaled {
                engine.journal_failure(&f, &fail);
            }
            (Some(*f), false)
        }
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
    Backend(ad_runtime::core::records::SetupProblem),
    /// No async runtime, no run folder.
    Other(String),
    /// agent-device's plan refuses the flow on the device's platform (a `runFlow` it loads
    /// there alone is missing, refused or a cycle): nothing ran.
    Refused(Box<program::Refused>),
}

/// Runs `program` on a new backend of `kind` made by the one factory: connects it, opens a run
/// folder under `artifacts`, runs, and releases what the backend leaves on a device.
/// Where a flow's run writes: its run folder's parent, the session it names, and the fixture
/// folder `--record-fixture` records into.
pub struct RunPlace<'a> {
    pub artifacts: &'a std::path::Path,
    pub session: &'a str,
    pub record_fixture: Option<&'a std::path::Path>,
}

pub fn run_on_new_backend(
    kind: ad_runtime::backends::BackendKind,
    setup: ad_runtime::backends::BackendSetup,
    program: &Program,
    options: &Options,
    place: RunPlace<'_>,
    progress: &mut dyn Progress,
) -> Result<Outcome, SetupError> {
    let RunPlace {
        artifacts,
        session,
        record_fixture,
    } = place;
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| SetupError::Other(format!("cannot start the async runtime: {e}")))?;
    rt.block_on(async {
        let mut backend = ad_runtime::backends::create(kind, setup).map_err(SetupError::Backend)?;
        backend.connect().await.map_err(SetupError::Backend)?;
        if let Some(refused) = program.refusal_on(backend.platform()) {
            backend.release().await;
            return Err(SetupError::Refused(Box::new(refused)));
        }
        let mut journal = Journal::create(artifacts, session).map_err(|e| {
            SetupError::Other(format!(
                "cannot create a run folder in {}: {e} (pass --artifacts-dir DIR)",
                artifacts.display()
            ))
        })?;
        // `--record-fixture`: the flow's device calls are logged as its session's part of a new
        // fixture (injected values redacted), written when the run ends, as for `.ad` runs.
        let recording =
            record_fixture.map(|dir| (dir, ad_runtime::backends::recorded::Recording::shared()));
        if let Some((_, shared)) = &recording {
            let injected: Vec<(String, String)> = options
                .shell_env
                .iter()
                .chain(&options.cli_env)
                .cloned()
                .collect();
            let redactor = ad_runtime::backends::recorded::redactor(&injected);
            backend = backend.recorded_into(session, redactor, shared.clone());
        }
        let mut outcome = run(&mut backend, program, options, &mut journal, progress).await;
        if let Some((dir, shared)) = &recording {
            backend = backend.finish_recording();
            let written = shared.lock().unwrap_or_else(|e| e.into_inner()).write(dir);
            if let Err(e) = written {
                let message = format!("could not write the fixture to {}: {e}", dir.display());
                // The flow's own failure stays its verdict; a passing run whose fixture is
                // missing did not do what was asked.
                if outcome.ok() {
                    return Err(SetupError::Other(message));
                }
                outcome.warnings.push(message);
            }
        }
        if let Some(left) = backend.as_recorded().and_then(|r| r.unreplayed()) {
            outcome.warnings.push(left);
        }
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

/// The `env` entries the plan can resolve (one it cannot is left for the run to fail on).
fn known_env(values: &Values, entries: &[crate::tree::EnvEntry]) -> Vec<(String, String)> {
    entries
        .iter()
        .filter_map(|e| {
            Some((
                e.key.value.clone(),
                values.expand(&e.value.value.js_string()).ok()?,
            ))
        })
        .collect()
}

/// What the plan makes of a `runFlow`.
enum Planned {
    Omitted,
    Spliced,
    Opaque,
}

/// `optional: true` on the command or its selector.
fn optional(c: &Command) -> bool {
    c.fields
        .iter()
        .any(|f| f.path.ends_with(".optional") && f.value.value == Scalar::Bool(true))
        || matches!(&c.target, Some(Target::Selector(s)) if s.optional == Some(true))
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
    /// An action was sent whose effect the next action waits to settle (agent-device's
    /// `requireStability`; see [`Engine::execute`]).
    settle_pending: bool,
    /// The command being executed sent a device request.
    dispatched: bool,
    artifacts: Vec<PathBuf>,
    warnings: Vec<String>,
    /// The `appId` of each flow being run, innermost last.
    apps: Vec<Option<String>>,
}

impl<B: Backend> Engine<'_, B> {
    fn file(&self, i: usize) -> &FlowFile {
        &self.program.files[i]
    }

    /// Runs flow file `i` with `env` (a `runFlow`'s) around its own config `env`: its
    /// `onFlowStart`, commands and `onFlowComplete` in a row, as agent-device's plan flattens
    /// them (a failure ends the run there: `onFlowComplete` does not run after it).
    async fn flow(
        &mut self,
        i: usize,
        env: Vec<(String, String)>,
        nested: bool,
    ) -> Result<(), Stop> {
        let program = self.program;
        let file = &program.files[i];
        let config = &file.flow.config;
        // A runFlow's env is resolved against what its caller sees, before the flow's own.
        self.values.enter(env);
        let own = self.env_entries(i, &config.env, None)?;
        self.values.enter(own);
        let app = config.app_id.as_ref().map(|a| a.value.clone());
        let inherited = self.apps.last().cloned().flatten();
        self.apps.push(app.or(inherited));
        let mut result = self.commands(i, &config.on_flow_start, nested).await;
        if result.is_ok() {
            result = self.commands(i, &file.flow.commands, nested).await;
        }
        if result.is_ok() {
            result = self.commands(i, &config.on_flow_complete, nested).await;
        }
        self.apps.pop();
        self.values.leave();
        self.values.leave();
        result
    }

    /// What agent-device's plan evaluates before the first step: each `runFlow.when.true`
    /// whose variables are known then (the flows' and runFlows' `env`, `-e`, `AD_VAR_*`); one it
    /// cannot evaluate fails the run before anything runs.
    fn plan_check(&mut self) -> Result<(), Stop> {
        let mut values = self.values.clone();
        let mut active = vec![0];
        self.plan_flow(0, &mut values, &mut active)
    }

    fn plan_flow(
        &mut self,
        i: usize,
        values: &mut Values,
        active: &mut Vec<usize>,
    ) -> Result<(), Stop> {
        let program = self.program;
        let flow = &program.files[i].flow;
        values.enter(known_env(values, &flow.config.env));
        let all = flow
            .config
            .on_flow_start
            .iter()
            .chain(&flow.commands)
            .chain(&flow.config.on_flow_complete);
        for c in all {
            self.plan_command(i, c, values, active)?;
        }
        values.leave();
        Ok(())
    }

    fn plan_command(
        &mut self,
        file: usize,
        c: &Command,
        values: &mut Values,
        active: &mut Vec<usize>,
    ) -> Result<(), Stop> {
        for inner in &c.body {
            self.plan_command(file, inner, values, active)?;
        }
        if c.kind != CommandKind::RunFlow {
            return Ok(());
        }
        if let Some(t) = c.when.as_ref().and_then(|w| w.true_.as_ref()) {
            if let Scalar::Str(raw) = &t.value {
                if let Some(text) = values.expand_known(raw) {
                    if let Err(message) = crate::when_true::evaluate(&text, &self.platform) {
                        let fail = Fail::new(error_codes::INVALID_ARGS, message);
                        return Err(self.placed(file, c.span, "runFlow".into(), fail));
                    }
                }
            }
        }
        values.enter(known_env(values, &c.env));
        let result = match &c.include {
            Some(Include::Commands(inner)) => inner
                .iter()
                .try_for_each(|x| self.plan_command(file, x, values, active)),
            Some(Include::File(f)) => match self.program.included(file, &f.value) {
                Some(i) if !active.contains(&i) => {
                    active.push(i);
                    let r = self.plan_flow(i, values, active);
                    active.pop();
                    r
                }
                _ => Ok(()),
            },
            None => Ok(()),
        };
        values.leave();
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
                    let fail = Fail::new(error_codes::INVALID_ARGS, u.message());
                    return Err(self.placed(file, span, "env".into(), fail));
                }
            }
        }
        Ok(out)
    }

    /// Runs `commands` of file `file`; `nested` inside a step (a repeat, a retry, a
    /// conditional runFlow), where commands are not steps of their own.
    fn commands<'c>(
        &'c mut self,
        file: usize,
        commands: &'c [Command],
        nested: bool,
    ) -> std::pin::Pin<Box<dyn std::future::Future<Output = Result<(), Stop>> + 'c>> {
        Box::pin(async move {
            for c in commands {
                self.command(file, c, nested).await?;
            }
            Ok(())
        })
    }

    async fn command(&mut self, file: usize, c: &Command, nested: bool) -> Result<(), Stop> {
        if ad_runtime::core::interrupt::requested().is_some() {
            return Err(Stop::Interrupted);
        }
        match c.kind {
            CommandKind::RunFlow => match self.when_planned(file, c)? {
                Planned::Omitted => Ok(()),
                Planned::Spliced => self.include(file, c, nested).await,
                Planned::Opaque if nested => self.conditional(file, c).await,
                Planned::Opaque => self.step(file, c).await,
            },
            CommandKind::Repeat | CommandKind::Retry if nested => self.control(file, c).await,
            _ if nested => self.leaf(file, c).await,
            _ => self.step(file, c).await,
        }
    }

    /// One step of the plan: journaled, shown, and failed at the innermost command that failed.
    async fn step(&mut self, file: usize, c: &Command) -> Result<(), Stop> {
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
        let mut outcome = match c.kind {
            CommandKind::RunFlow => self.conditional(file, c).await,
            CommandKind::Repeat | CommandKind::Retry => self.control(file, c).await,
            _ => self.leaf(file, c).await,
        };
        let end = ProgressEnd {
            status: if outcome.is_ok() { "ok" } else { "failed" },
            wall_ms: wall.elapsed().as_secs_f64() * 1000.0,
            device_ms: self.backend.now_ms().saturating_sub(device),
            note: None,
        };
        if let Err(Stop::Failed(failure, fail, journaled)) = &mut outcome {
            if !*journaled {
                self.journal_failure(failure, fail);
                *journaled = true;
            }
        }
        let (code, kind) = match &outcome {
            Err(Stop::Failed(f, fail, _)) => (Some(f.code.clone()), Some(fail.kind)),
            _ => (None, None),
        };
        let _ = self.journal.append(Event::StepEnd(StepEnd {
            step: self.step,
            line,
            status: if outcome.is_ok() {
                StepStatus::Ok
            } else {
                StepStatus::Failed
            },
            wall_ms: end.wall_ms,
            device_ms: end.device_ms,
            code,
            kind,
            result: None,
        }));
        self.progress.step_end(&info, &end);
        outcome
    }

    /// `repeat` and `retry`: their commands, run inside this step.
    async fn control(&mut self, file: usize, c: &Command) -> Result<(), Stop> {
        if c.kind == CommandKind::Repeat {
            let times = self.count(file, c, "repeat.times", 0)?;
            for _ in 0..times {
                self.commands(file, &c.body, true).await?;
            }
            return Ok(());
        }
        let retries = self
            .count(file, c, "retry.maxRetries", 1)?
            .min(self.options.timing.max_retries);
        let mut attempt = 0;
        loop {
            match self.commands(file, &c.body, true).await {
                Err(Stop::Failed(_, fail, _)) if fail.test_failure && attempt < retries => {
                    attempt += 1
                }
                other => return other,
            }
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
                let fail = Fail::new(error_codes::INVALID_ARGS, u.message());
                return Err(self.placed(file, c.span, c.kind.name().into(), fail));
            }
        };
        match text.trim().parse::<f64>() {
            Ok(n) if n.is_finite() && n >= 0.0 && n.fract() == 0.0 => Ok(n as u64),
            _ => {
                let fail = Fail::new(
                    error_codes::INVALID_ARGS,
                    format!("Maestro {path} must be a non-negative integer."),
                );
                Err(self.placed(file, c.span, c.kind.name().into(), fail))
            }
        }
    }

    /// What agent-device's plan makes of a `runFlow` before the run (`nn`): left out (a
    /// platform or a `when.true` that is false), spliced into the plan (no `when`, or a
    /// `when.true` known to hold), or a step of its own decided when it runs.
    fn when_planned(&mut self, file: usize, c: &Command) -> Result<Planned, Stop> {
        let Some(when) = &c.when else {
            return Ok(Planned::Spliced);
        };
        if let Some(p) = &when.platform {
            if !p.value.eq_ignore_ascii_case(&self.platform) {
                return Ok(Planned::Omitted);
            }
        }
        let by_condition = when.visible.is_some() || when.not_visible.is_some();
        let Some(t) = &when.true_ else {
            return Ok(if by_condition {
                Planned::Opaque
            } else {
                Planned::Spliced
            });
        };
        let raw = match &t.value {
            Scalar::Bool(false) => return Ok(Planned::Omitted),
            Scalar::Bool(true) => {
                return Ok(if by_condition {
                    Planned::Opaque
                } else {
                    Planned::Spliced
                })
            }
            other => other.js_string(),
        };
        // Decided when planned unless it reads a value only the run makes (a script's output,
        // a variable nobody defines yet).
        match self.values.expand_known(&raw) {
            None => Ok(Planned::Opaque),
            Some(text) => match crate::when_true::evaluate(&text, &self.platform) {
                Ok(false) => Ok(Planned::Omitted),
                Ok(true) if by_condition => Ok(Planned::Opaque),
                Ok(true) => Ok(Planned::Spliced),
                Err(message) => {
                    let fail = Fail::new(error_codes::INVALID_ARGS, message);
                    Err(self.placed(file, c.span, "runFlow".into(), fail))
                }
            },
        }
    }

    /// A `runFlow` decided when it runs: its `when`, then its commands inside this step.
    async fn conditional(&mut self, file: usize, c: &Command) -> Result<(), Stop> {
        if let Some(when) = &c.when {
            if !self.when_holds(file, c, when).await? {
                return Ok(());
            }
        }
        self.include(file, c, true).await
    }

    /// A `runFlow`'s commands or file, with its `env`.
    async fn include(&mut self, file: usize, c: &Command, nested: bool) -> Result<(), Stop> {
        let env = self.env_entries(file, &c.env, Some(c))?;
        match &c.include {
            Some(Include::Commands(inner)) => {
                self.values.enter(env);
                let r = self.commands(file, inner, nested).await;
                self.values.leave();
                r
            }
            Some(Include::File(f)) => {
                let name = match self.values.expand(&f.value) {
                    Ok(n) => n,
                    Err(u) => {
                        let fail = Fail::new(error_codes::INVALID_ARGS, u.message());
                        return Err(self.placed(file, c.span, "runFlow".into(), fail));
                    }
                };
                match self.program.included(file, &name) {
                    Some(i) => Box::pin(self.flow(i, env, nested)).await,
                    None => {
                        let fail = Fail::new(
                            error_codes::INVALID_ARGS,
                            format!("Maestro runFlow file not found: {name}"),
                        );
                        Err(self.placed(file, c.span, "runFlow".into(), fail))
                    }
                }
            }
            None => Ok(()),
        }
    }

    /// `when` at run time (`jn`): the platform, `true` with the values now, then `visible` and
    /// `notVisible`, each waited for up to the condition timeout; the first that fails skips.
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
            let value = match &t.value {
                Scalar::Bool(b) => Ok(*b),
                other => self
                    .values
                    .expand(&other.js_string())
                    .map_err(|u| u.message())
                    .and_then(|text| crate::when_true::evaluate(&text, &self.platform)),
            };
            match value {
                Ok(false) => return Ok(false),
                Ok(true) => {}
                Err(message) => {
                    let fail = Fail::new(error_codes::INVALID_ARGS, message);
                    return Err(self.placed(file, c.span, "runFlow".into(), fail));
                }
            }
        }
        for (selector, want) in [(&when.visible, true), (&when.not_visible, false)] {
            let Some(selector) = selector else { continue };
            let query = match self.query(selector) {
                Ok(q) => q,
                Err(f) => return Err(self.placed(file, c.span, "runFlow".into(), f)),
            };
            let timeout = self.options.timing.condition_ms;
            match self.wait_for(&query, want, timeout).await {
                Ok(true) => {}
                Ok(false) => return Ok(false),
                Err(f) => return Err(self.placed(file, c.span, "runFlow".into(), f)),
            }
        }
        Ok(true)
    }

    fn query(&self, selector: &crate::tree::Selector) -> Step<Query> {
        let values = &self.values;
        Query::of(selector, &mut |s: &str| values.expand(s))
            .map_err(|u| Fail::new(error_codes::INVALID_ARGS, u.message()))
    }

    /// One command that acts or asserts; `optional: true` lets the engine's own "did not
    /// match" pass with a warning (never a device error).
    async fn leaf(&mut self, file: usize, c: &Command) -> Result<(), Stop> {
        let result = self.execute(file, c).await;
        match result {
            Ok(()) => Ok(()),
            Err(fail) if fail.interrupted => Err(Stop::Interrupted),
            Err(fail) if fail.test_failure && optional(c) => {
                let f = self.file(file);
                let (line, _) = f.line_col(c.span);
                let message = self.redactor.redact(&fail.message);
                self.warnings.push(format!(
                    "Optional Maestro {} skipped at {}:line {line}: {message}",
                    c.kind.name(),
                    f.display
                ));
                Ok(())
            }
            Err(fail) => Err(self.placed(file, c.span, action_label(c), fail)),
        }
    }

    /// Journals a failure that ended a step (or the run): its divergence report, or the error.
    fn journal_failure(&mut self, failure: &Failure, fail: &Fail) {
        let _ = fail;
        match &failure.report {
            Some(r) => {
                let _ = self.journal.append(Event::Divergence(DivergenceEvent {
                    step: failure.step,
                    line: failure.line,
                    report: r.clone(),
                    screenshot: None,
                }));
            }
            None => {
                let _ = self.journal.append(Event::StepError(StepError {
                    step: failure.step,
                    line: failure.line,
                    code: failure.code.clone(),
                    message: failure.message.clone(),
                }));
            }
        }
    }

    /// Places `fail` at `span` of `file`: the failure record and, inside a step, its
    /// divergence report (journaled by the step it ends).
    fn placed(&mut self, file: usize, span: ad_grammar::Span, action: String, fail: Fail) -> Stop {
        if fail.interrupted {
            return Stop::Interrupted;
        }
        let f = &self.program.files[file];
        let (line, column) = f.line_col(span);
        let message = self.redactor.redact(&fail.message);
        let hint = fail.hint.as_deref().map(|h| self.redactor.redact(h));
        let step_no = self.step;
        let report = (step_no > 0).then(|| {
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
                    step: step_no,
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
                    total_steps: self.total.max(step_no),
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
        Stop::Failed(Box::new(failure), fail, false)
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
            let snapshot = self.poll_capture(deadline).await?;
            match select::find(&snapshot, query, &self.platform) {
                Ok(found) => return Ok((snapshot, found)),
                Err(m) if m.invalid => return Err(Fail::new(error_codes::INVALID_ARGS, m.message)),
                Err(m) => {
                    if self.backend.now_ms() >= deadline {
                        return Err(Fail::not_found(
                            "Maestro target did not resolve to a visible element.",
                        )
                        .hint(format!(
                            "{} (waited {timeout_ms} ms for {})",
                            m.message,
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
            let snapshot = self.poll_capture(deadline).await?;
            let seen = select::is_visible(&snapshot, query, &self.platform)
                .map_err(|m| Fail::new(error_codes::INVALID_ARGS, m.message))?;
            if seen == want {
                return Ok(true);
            }
            if self.backend.now_ms() >= deadline {
                return Ok(false);
            }
            self.nap().await?;
        }
    }

    /// A capture while waiting: a device that cannot capture right now is asked again after a
    /// poll interval until the deadline (agent-device retries a retriable snapshot error).
    async fn poll_capture(&mut self, deadline: u64) -> Step<Arc<Snapshot>> {
        loop {
            match self.capture().await {
                Err(f) if !f.interrupted && self.backend.now_ms() < deadline => self.nap().await?,
                other => return other,
            }
        }
    }

    async fn nap(&mut self) -> Step {
        self.nap_for(self.options.timing.poll_ms).await
    }

    async fn nap_for(&mut self, ms: u64) -> Step {
        if let Some(signal) = ad_runtime::core::interrupt::requested() {
            return Err(Fail::from_backend(BackendError::interrupted(signal)));
        }
        if ms > 0 {
            self.backend.poll_wait(ms).await;
        }
        Ok(())
    }

    fn expand(&self, s: &str) -> Step<String> {
        self.values
            .expand(s)
            .map_err(|u| Fail::new(error_codes::INVALID_ARGS, u.message()))
    }

    /// `launchApp.arguments` then `launchApp.launchArguments`, as agent-device's device port
    /// flattens them (`Fm`): a scalar is one argument, a list its items, a map each key then its
    /// value; values as JavaScript's `String` writes them, variables expanded.
    fn launch_arguments(&self, c: &Command) -> Step<Vec<String>> {
        let mut out = Vec::new();
        for base in ["launchApp.arguments", "launchApp.launchArguments"] {
            for f in &c.fields {
                let value = || self.expand(&f.value.value.js_string());
                if f.path == base
                    || f.path
                        .strip_prefix(base)
                        .is_some_and(|r| r.starts_with('['))
                {
                    out.push(value()?);
                } else if let Some(key) =
                    f.path.strip_prefix(base).and_then(|r| r.strip_prefix('.'))
                {
                    out.push(key.to_string());
                    out.push(value()?);
                }
            }
        }
        Ok(out)
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
                Fail::new(
                    error_codes::INVALID_ARGS,
                    format!("Maestro {path} must be a number."),
                )
            }),
        }
    }

    fn timeout_field(&self, c: &Command, path: &str, default: u64) -> Step<u64> {
        Ok(self
            .number_field(c, path)?
            .map(|n| n.max(0.0) as u64)
            .unwrap_or(default))
    }

    /// The `appId` of the flow being run, interpolated (`appId: ${APP}`).
    fn flow_app(&self) -> Step<Option<String>> {
        self.apps
            .last()
            .cloned()
            .flatten()
            .map(|a| self.expand(&a))
            .transpose()
    }

    fn app_id(&self, c: &Command, path: &str) -> Step<String> {
        let given = match field(c, c.kind.name()) {
            Some(_) => self.text_field(c, c.kind.name())?,
            None => self.text_field(c, path)?,
        };
        match given.or(self.flow_app()?) {
            Some(app) => Ok(app),
            None => Err(Fail::new(
                error_codes::INVALID_ARGS,
                format!("Maestro {} requires an appId.", c.kind.name()),
            )
            .hint("give the flow an appId, or the command its own")),
        }
    }

    /// Journals an action about to be sent (durably, before it is sent).
    fn attempt(&mut self, line: usize, command: &str, args: ActionArgs) -> Option<String> {
        self.dispatched = true;
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
                    Some((
                        error_codes::COMMAND_FAILED.into(),
                        self.redactor.redact(message),
                    )),
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
        let viewport = self.viewport().await?;
        Ok(fraction(&viewport, p.x as f64 / 100.0, p.y as f64 / 100.0))
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
                error_codes::INVALID_ARGS,
                format!("Maestro {} requires a target.", c.kind.name()),
            )),
        }
    }

    /// One command, between the screen's settling as agent-device's device port has it: an
    /// action that leaves the screen moving (a tap, a gesture, a key, a launch) marks it
    /// unsettled; the next action (not an assertion, a screenshot or a script, whose own polling
    /// covers it) first waits up to `settle_ms` for two captures alike; typing settles at once.
    async fn execute(&mut self, file: usize, c: &Command) -> Step {
        if settles_first(c.kind) && std::mem::take(&mut self.settle_pending) {
            let settle_ms = self.options.timing.settle_ms;
            self.settle_screen(settle_ms, true).await?;
        }
        self.dispatched = false;
        let result = self.command_step(file, c).await;
        let retried = c.kind == CommandKind::TapOn
            && field(c, "tapOn.retryTapIfNoChange") == Some(&Scalar::Bool(true));
        // A tap that retries settled after each tap; only its failure leaves the screen moving.
        if self.dispatched && leaves_screen_moving(c.kind) && !(retried && result.is_ok()) {
            self.settle_pending = true;
        }
        result
    }

    /// Waits up to `timeout_ms` for the screen to hold still: two captures a poll apart alike
    /// (agent-device's settle, `rm`), starting from the last capture when `from_last`. Returns
    /// the last capture's fingerprint; a screen still moving at the deadline is no failure.
    async fn settle_screen(&mut self, timeout_ms: u64, from_last: bool) -> Step<String> {
        let deadline = self.backend.now_ms() + timeout_ms;
        let mut previous = match (&self.last, from_last) {
            (Some(last), true) => last.fingerprint(),
            _ => self.capture().await?.fingerprint(),
        };
        loop {
            let remaining = deadline.saturating_sub(self.backend.now_ms());
            self.nap_for(remaining.min(self.options.timing.poll_ms))
                .await?;
            let now = self.capture().await?.fingerprint();
            if now == previous || self.backend.now_ms() >= deadline {
                return Ok(now);
            }
            previous = now;
        }
    }

    async fn command_step(&mut self, file: usize, c: &Command) -> Step {
        let (line, _) = self.file(file).line_col(c.span);
        let timing = self.options.timing.clone();
        match c.kind {
            CommandKind::LaunchApp => {
                let app = self.app_id(c, "launchApp.appId")?;
                let clear = field(c, "launchApp.clearState") == Some(&Scalar::Bool(true));
                // agent-device: relaunch unless the state is cleared or `stopApp: false`.
                let stop = field(c, "launchApp.stopApp") != Some(&Scalar::Bool(false));
                if clear {
                    self.clear_state(line, &app).await?;
                }
                let options = LaunchOptions {
                    relaunch: !clear && stop,
                    url: None,
                    args: self.launch_arguments(c)?,
                };
                let args = ActionArgs::Launch {
                    app: self.redactor.redact_id(&app),
                    relaunch: options.relaunch,
                    url: None,
                    args: options
                        .args
                        .iter()
                        .map(|a| self.redactor.redact(a))
                        .collect(),
                };
                act!(self, line, "launchApp", args, launch(&app, &options))
            }
            CommandKind::StopApp => {
                let app = self.app_id(c, "")?;
                let args = ActionArgs::Close {
                    app: Some(self.redactor.redact_id(&app)),
                };
                act!(self, line, "stopApp", args, close(Some(&app)))
            }
            CommandKind::ClearState => {
                let app = self.app_id(c, "")?;
                self.clear_state(line, &app).await
            }
            CommandKind::OpenLink => {
                let link = match field(c, "openLink") {
                    Some(_) => self.text_field(c, "openLink")?,
                    None => self.text_field(c, "openLink.link")?,
                }
                .unwrap_or_default();
                // `open [the flow's appId] LINK`.
                let (app, url) = match self.flow_app()? {
                    Some(a) => (a, Some(link.clone())),
                    None => (link.clone(), None),
                };
                let options = LaunchOptions {
                    relaunch: false,
                    url: url.clone(),
                    args: Vec::new(),
                };
                let args = ActionArgs::Launch {
                    app: self.redactor.redact_id(&app),
                    relaunch: false,
                    url: url.map(|u| self.redactor.redact_id(&u)),
                    args: Vec::new(),
                };
                act!(self, line, "openLink", args, launch(&app, &options))
            }
            CommandKind::TapOn | CommandKind::DoubleTapOn => {
                let at = self.target_point(c).await?;
                let double = c.kind == CommandKind::DoubleTapOn;
                let repeat = if double {
                    None
                } else {
                    self.number_field(c, "tapOn.repeat")?
                };
                let delay = self.number_field(c, &format!("{}.delay", c.kind.name()))?;
                // `repeat: n` taps n times `delay` (else 100 ms) apart; `delay` alone is the
                // interval; a double tap's taps are `delay` (else 100 ms) apart.
                let interval = match (double, repeat, delay) {
                    (_, _, Some(d)) => d.max(0.0) as u64,
                    (true, _, None) | (false, Some(_), None) => timing.repeat_delay_ms,
                    _ => 0,
                };
                let options = TapOptions {
                    count: repeat.map_or(1, |n| n.max(1.0) as u32),
                    interval_ms: interval,
                    double_tap: double,
                    ..TapOptions::default()
                };
                let args = ActionArgs::Tap {
                    point: at,
                    count: options.count,
                    target: None,
                };
                let before = self.last.as_ref().map(|s| s.fingerprint());
                act!(self, line, c.kind.name(), args.clone(), tap(at, &options))?;
                // `retryTapIfNoChange`: once the screen settles, tap once more if it did not
                // change, and let that tap settle too.
                if field(c, "tapOn.retryTapIfNoChange") == Some(&Scalar::Bool(true)) {
                    let after = self.settle_screen(timing.settle_ms, false).await?;
                    if before.as_deref() == Some(after.as_str()) {
                        act!(self, line, c.kind.name(), args, tap(at, &options))?;
                        self.settle_screen(timing.settle_ms, false).await?;
                    }
                }
                Ok(())
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
                act!(self, line, "inputText", args, type_text(&text, 0))?;
                self.settle_screen(timing.settle_ms, false)
                    .await
                    .map(|_| ())
            }
            CommandKind::EraseText => {
                let n = match field(c, "eraseText") {
                    Some(_) => self.number_field(c, "eraseText")?,
                    None => self.number_field(c, "eraseText.charactersToErase")?,
                }
                .map_or(timing.erase_characters, |n| n.max(0.0) as usize);
                let text = "\u{8}".repeat(n);
                let args = ActionArgs::Text { text: text.clone() };
                act!(self, line, "eraseText", args, type_text(&text, 0))?;
                self.settle_screen(timing.settle_ms, false)
                    .await
                    .map(|_| ())
            }
            CommandKind::AssertVisible | CommandKind::AssertNotVisible => {
                let Some(Target::Selector(s)) = &c.target else {
                    return Err(Fail::new(
                        error_codes::INVALID_ARGS,
                        "Maestro assertion requires a selector.",
                    ));
                };
                let query = self.query(s)?;
                let want = c.kind == CommandKind::AssertVisible;
                if self.wait_for(&query, want, timing.assert_ms).await? {
                    Ok(())
                } else {
                    Err(condition_failed(want, &query))
                }
            }
            CommandKind::ExtendedWaitUntil => {
                let Some(Target::Selector(s)) = &c.target else {
                    return Err(Fail::new(
                        error_codes::INVALID_ARGS,
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
                    Err(condition_failed(want, &query))
                }
            }
            CommandKind::AssertTrue => {
                let path = if field(c, "assertTrue").is_some() {
                    "assertTrue"
                } else {
                    "assertTrue.condition"
                };
                // A YAML boolean or number is that value; a string is interpolated first.
                let (falsy, shown) = match field(c, path) {
                    Some(Scalar::Bool(b)) => (!*b, b.to_string()),
                    Some(Scalar::Number(n)) => {
                        (*n == 0.0 || n.is_nan(), crate::yaml::js_number(*n))
                    }
                    Some(Scalar::Null) | None => (true, "null".into()),
                    Some(other) => {
                        let v = self.expand(&other.js_string())?;
                        (!truthy(&v), ad_grammar::json::quote(&v))
                    }
                };
                if falsy {
                    Err(Fail::assertion(format!(
                        "Maestro assertTrue condition was falsy: {shown}"
                    )))
                } else {
                    Ok(())
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
            CommandKind::ScrollUntilVisible => self.scroll_until_visible(line, c).await,
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
                        // The screen held still: the next action need not settle it again.
                        self.settle_pending = false;
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
                self.values.replace_outputs(outputs);
                Ok(())
            }
            CommandKind::RunFlow | CommandKind::Repeat | CommandKind::Retry => Ok(()),
        }
    }

    async fn system_key(&mut self, line: usize, command: &str, key: SystemKey) -> Step {
        act!(self, line, command, ActionArgs::None {}, press_key(key))
    }

    /// agent-device's `settings clear-app-state APP`.
    async fn clear_state(&mut self, line: usize, app: &str) -> Step {
        let words = vec!["clear-app-state".to_string(), app.to_string()];
        let args = ActionArgs::Other {
            positionals: vec!["clear-app-state".into(), self.redactor.redact_id(app)],
        };
        act!(self, line, "clearState", args, other("settings", &words)).map(|_| ())
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
            match &c.target {
                Some(Target::Selector(s)) => {
                    let query = self.query(s)?;
                    let timing = &self.options.timing;
                    let timeout = if optional(c) {
                        timing.optional_target_ms
                    } else {
                        timing.target_ms
                    };
                    let (snapshot, found) = self.find(&query, timeout).await?;
                    let start = select::centre(&found.rect);
                    (start, toward_edge(&snapshot.viewport, start, direction))
                }
                _ => {
                    let viewport = self.viewport().await?;
                    let android = self.platform == "android";
                    direction_swipe(&viewport, direction, android)
                }
            }
        };
        let plan = GesturePlan {
            kind: ad_runtime::core::backend::GestureKind::Swipe,
            pointers: vec![vec![from, to]],
            duration_ms: duration,
            repeat: 1,
            intent: None,
        };
        let args = ActionArgs::Gesture { plan: plan.clone() };
        act!(self, line, "swipe", args, gesture(&plan))
    }

    /// The screen's frame, from the last capture (or a new one).
    async fn viewport(&mut self) -> Step<Rect> {
        match &self.last {
            Some(s) => Ok(s.viewport),
            None => Ok(self.capture().await?.viewport),
        }
    }

    /// `scrollUntilVisible` (agent-device's): until the element lies wholly inside the
    /// screen, swipe inside the scroll container that fits the direction (601 ms), or scroll
    /// the screen when there is none.
    async fn scroll_until_visible(&mut self, line: usize, c: &Command) -> Step {
        let Some(Target::Selector(s)) = &c.target else {
            return Err(Fail::new(
                error_codes::INVALID_ARGS,
                "Maestro scrollUntilVisible requires element.",
            ));
        };
        let query = self.query(s)?;
        let direction = self
            .text_field(c, "scrollUntilVisible.direction")?
            .and_then(|d| Direction::parse(&d))
            .unwrap_or(Direction::Down);
        let timing = self.options.timing.clone();
        let timeout = self.timeout_field(
            c,
            "scrollUntilVisible.timeout",
            timing.scroll_until_visible_ms,
        )?;
        let deadline = self.backend.now_ms() + timeout;
        loop {
            let snapshot = self.capture().await?;
            match select::find(&snapshot, &query, &self.platform) {
                Ok(found) if inside(&found.rect, &select::screen_frame(&snapshot)) => return Ok(()),
                Err(m) if m.invalid => return Err(Fail::new(error_codes::INVALID_ARGS, m.message)),
                _ => {}
            }
            if self.backend.now_ms() >= deadline {
                return Err(Fail::not_found(
                    "Maestro scrollUntilVisible target did not become visible.",
                ));
            }
            if let Some(signal) = ad_runtime::core::interrupt::requested() {
                return Err(Fail::from_backend(BackendError::interrupted(signal)));
            }
            match select::scroll_container(&snapshot, &query, direction, &self.platform) {
                Some(area) => {
                    let start = select::centre(&area);
                    let end = match direction {
                        Direction::Down | Direction::Bottom => fraction(&area, 0.5, 0.1),
                        Direction::Up | Direction::Top => fraction(&area, 0.5, 0.9),
                        Direction::Right => fraction(&area, 0.1, 0.5),
                        Direction::Left => fraction(&area, 0.9, 0.5),
                    };
                    let plan = GesturePlan {
                        kind: ad_runtime::core::backend::GestureKind::Swipe,
                        pointers: vec![vec![start, end]],
                        duration_ms: SCROLL_UNTIL_VISIBLE_SWIPE_MS,
                        repeat: 1,
                        intent: None,
                    };
                    let args = ActionArgs::Gesture { plan: plan.clone() };
                    act!(self, line, "scrollUntilVisible", args, gesture(&plan))?;
                }
                None => {
                    let args = ActionArgs::Scroll {
                        direction,
                        amount: None,
                    };
                    act!(
                        self,
                        line,
                        "scrollUntilVisible",
                        args,
                        scroll(direction, None)
                    )?;
                }
            }
            // Let the list settle before looking again.
            self.nap().await?;
        }
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
                error_codes::INVALID_ARGS,
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
                    error_codes::COMMAND_FAILED,
                    format!("cannot write the screenshot {}: {e}", file.display()),
                )
            })?;
        self.artifacts.push(file);
        Ok(())
    }
}

/// agent-device's failed `visible`/`notVisible` condition (assertions, extendedWaitUntil).
fn condition_failed(visible: bool, query: &Query) -> Fail {
    let kind = if visible { "visible" } else { "notVisible" };
    Fail::assertion(format!("Maestro {kind} condition did not match."))
        .hint(format!("the condition was on {}", query.describe()))
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

/// scrollUntilVisible's swipe: agent-device's speed 40 as a duration.
const SCROLL_UNTIL_VISIBLE_SWIPE_MS: u64 = 601;

/// The actions that first let the screen settle from the action before (agent-device's
/// `requiresSettledPredecessor`): every action but `waitForAnimationToEnd`, which waits itself.
fn settles_first(kind: CommandKind) -> bool {
    use CommandKind::*;
    matches!(
        kind,
        LaunchApp
            | StopApp
            | ClearState
            | OpenLink
            | TapOn
            | DoubleTapOn
            | LongPressOn
            | Swipe
            | InputText
            | EraseText
            | Scroll
            | ScrollUntilVisible
            | HideKeyboard
            | PressKey
            | Back
    )
}

/// The actions after which agent-device's device port requires the screen to settle before
/// the next action (its `deferred` requests and a tap): typing settles at once, and stopping
/// an app, clearing its state, opening a link or scrolling until visible do not wait.
fn leaves_screen_moving(kind: CommandKind) -> bool {
    use CommandKind::*;
    matches!(
        kind,
        LaunchApp
            | TapOn
            | DoubleTapOn
            | LongPressOn
            | Swipe
            | Scroll
            | HideKeyboard
            | PressKey
            | Back
    )
}

/// The point at fractions `fx`, `fy` of `area` (`x + trunc(width * fx)`).
fn fraction(area: &Rect, fx: f64, fy: f64) -> Point {
    Point {
        x: area.x + (area.width * fx).trunc(),
        y: area.y + (area.height * fy).trunc(),
    }
}

fn inside(r: &Rect, frame: &Rect) -> bool {
    r.x >= frame.x
        && r.y >= frame.y
        && r.x + r.width <= frame.x + frame.width
        && r.y + r.height <= frame.y + frame.height
}

/// A direction swipe across the screen (agent-device's pans): up from 90% (Android: the
/// middle) to 10% of the height, down from 20% to 90%, left from 85% to 15% of the width and
/// right the reverse, at least 8 points from the edges.
fn direction_swipe(viewport: &Rect, direction: Direction, android: bool) -> (Point, Point) {
    let clamp = |p: Point| Point {
        x: p.x
            .clamp(viewport.x + 8.0, viewport.x + viewport.width - 8.0),
        y: p.y,
    };
    let (a, b) = match direction {
        Direction::Up | Direction::Top => (
            fraction(viewport, 0.5, if android { 0.5 } else { 0.9 }),
            fraction(viewport, 0.5, 0.1),
        ),
        Direction::Down | Direction::Bottom => {
            (fraction(viewport, 0.5, 0.2), fraction(viewport, 0.5, 0.9))
        }
        Direction::Left => (fraction(viewport, 0.85, 0.5), fraction(viewport, 0.15, 0.5)),
        Direction::Right => (fraction(viewport, 0.15, 0.5), fraction(viewport, 0.85, 0.5)),
    };
    (clamp(a), clamp(b))
}

/// A swipe from an element: to 10% (up, left) or 90% (down, right) of the screen.
fn toward_edge(viewport: &Rect, start: Point, direction: Direction) -> Point {
    let edge = |f: f64| fraction(viewport, f, f);
    match direction {
        Direction::Up | Direction::Top => Point {
            x: start.x,
            y: edge(0.1).y,
        },
        Direction::Down | Direction::Bottom => Point {
            x: start.x,
            y: edge(0.9).y,
        },
        Direction::Left => Point {
            x: edge(0.1).x,
            y: start.y,
        },
        Direction::Right => Point {
            x: edge(0.9).x,
            y: start.y,
        },
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
