//! The interpreter: runs a checked plan against a [`Backend`], step by step — interpolate
//! variables, resolve and verify targets, cross the side-effect seam (expire the ref frame,
//! journal the intent durably), dispatch, and on failure build the divergence report.

use std::sync::Arc;
use std::time::Instant;

use ad_compiler::digest::{plan_digest, DigestOptions};
use ad_compiler::registry::{Effect, Verification};
use ad_compiler::shape::{is_form, wait_form, IsForm, WaitForm};
use ad_compiler::Step;
use ad_grammar::annotation::TargetEvidence;
use ad_grammar::text::is_numeric;
use ad_grammar::Metadata;
use serde_json::{json, Map, Value};

use crate::backend::*;
use crate::divergence::{self, ScreenEvidence};
use crate::frame::{FrameScope, Frames};
use crate::identity::{self, BindingFailure, Verdict};
use crate::journal::Journal;
use crate::select::{self, resolve, Policy, Selector};
use crate::tree::{display_label, display_role, FlatNode, Point, Snapshot};
use crate::vars::{Scope, Unresolved};

/// Defaults of agent-device's waits.
pub const WAIT_TIMEOUT_MS: u64 = 10_000;
pub const POLL_INTERVAL_MS: u64 = 300;
pub const STABLE_QUIET_MS: u64 = 500;
/// How long click / press / longpress / fill wait for their target to appear.
pub const APPEAR_TIMEOUT_MS: u64 = 2_000;
pub const LONGPRESS_MS: u64 = 800;

/// How a run is configured.
#[derive(Debug, Clone, Default)]
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
}

/// A compiled script.
pub struct Plan<'a> {
    pub steps: &'a [Step],
    pub metadata: &'a Metadata,
}

/// Why a run failed.
#[derive(Debug, Clone, PartialEq)]
pub struct RunError {
    pub code: String,
    pub message: String,
    pub hint: Option<String>,
    /// 1-based plan index of the failing step.
    pub step: Option<usize>,
    /// 1-based source line.
    pub line: Option<usize>,
    /// Raised before any step ran (bad arguments, digest mismatch): exit code 2.
    pub preflight: bool,
    /// `details` (reason, divergence, …).
    pub details: Value,
}

impl RunError {
    pub fn divergence(&self) -> Option<&Value> {
        self.details.get("divergence")
    }
    /// The run stopped on a signal before step `index` (at `line`).
    fn interrupted(signal: &str, index: usize, line: usize, replayed: usize) -> RunError {
        RunError {
            code: "INTERRUPTED".into(),
            message: format!(
                "interrupted by {signal} before step {index} ({replayed} step(s) replayed)"
            ),
            hint: Some(
                "the session was left live: resume with --from and --plan-digest (see run.json)"
                    .into(),
            ),
            step: Some(index),
            line: Some(line),
            preflight: false,
            details: json!({"reason": "interrupted", "signal": signal}),
        }
    }

    pub fn is_interrupted(&self) -> bool {
        self.code == "INTERRUPTED"
    }

    fn preflight(message: String, hint: Option<&str>) -> RunError {
        RunError {
            code: "INVALID_ARGS".into(),
            message,
            hint: hint.map(str::to_string),
            step: None,
            line: None,
            preflight: true,
            details: json!({}),
        }
    }
}

/// The outcome of a run.
#[derive(Debug, Clone)]
pub struct RunResult {
    pub ok: bool,
    /// Steps that ran to completion.
    pub replayed: usize,
    /// Steps in the plan.
    pub total: usize,
    pub session: String,
    pub session_active: bool,
    /// Where the device stopped (`{app, screen, …}` on the sim).
    pub location: Value,
    pub plan_digest: String,
    pub error: Option<RunError>,
    pub device_ms: u64,
    pub wall_ms: f64,
    pub warnings: Vec<String>,
}

impl RunResult {
    /// The structured result (`--json`).
    pub fn to_json(&self) -> Value {
        let mut m = Map::new();
        m.insert("ok".into(), self.ok.into());
        m.insert("replayed".into(), self.replayed.into());
        m.insert("total".into(), self.total.into());
        m.insert("session".into(), self.session.clone().into());
        m.insert("sessionActive".into(), self.session_active.into());
        m.insert("planDigest".into(), self.plan_digest.clone().into());
        m.insert("deviceTimeMs".into(), self.device_ms.into());
        if self.session_active {
            m.insert("location".into(), self.location.clone());
        }
        if !self.warnings.is_empty() {
            m.insert("warnings".into(), self.warnings.clone().into());
        }
        if let Some(e) = &self.error {
            let mut err = Map::new();
            err.insert(
                "code".into(),
                if e.details.get("divergence").is_some() {
                    "REPLAY_DIVERGENCE".into()
                } else {
                    e.code.clone().into()
                },
            );
            err.insert("message".into(), e.message.clone().into());
            if let Some(h) = &e.hint {
                err.insert("hint".into(), h.clone().into());
            }
            err.insert("details".into(), e.details.clone());
            m.insert("error".into(), Value::Object(err));
        }
        Value::Object(m)
    }
}

/// One step as progress reporters see it.
#[derive(Debug, Clone)]
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
}

/// A progress reporter that says nothing.
pub struct Quiet;
impl Progress for Quiet {}

/// `formatScriptArg`: bare for `@refs` and plain numbers, JSON-quoted otherwise.
pub fn format_arg(s: &str) -> String {
    let plain = !s.is_empty()
        && !s
            .chars()
            .any(|c| c.is_whitespace() || c == '"' || c == '\\');
    if plain && (s.starts_with('@') || is_plain_number(s)) {
        s.to_string()
    } else {
        ad_grammar::json::quote(s)
    }
}

fn is_plain_number(s: &str) -> bool {
    let t = s.strip_prefix('-').unwrap_or(s);
    let (int, frac) = match t.split_once('.') {
        Some((a, b)) => (a, Some(b)),
        None => (t, None),
    };
    !int.is_empty()
        && int.bytes().all(|b| b.is_ascii_digit())
        && frac.is_none_or(|f| !f.is_empty() && f.bytes().all(|b| b.is_ascii_digit()))
}

/// The divergence action label: command and script-formatted positionals, with `fill`/`type`
/// text replaced by `<text>`.
pub fn action_label(command: &str, p: &[String]) -> String {
    if command != "fill" && command != "type" {
        let mut parts = vec![command.to_string()];
        parts.extend(p.iter().map(|x| format_arg(x)));
        return parts.join(" ");
    }
    let target: Vec<&String> = if command == "type" {
        vec![]
    } else {
        match p.first() {
            None => vec![],
            Some(f) if f.starts_with('@') => vec![f],
            Some(f) if p.len() >= 3 && is_plain_number(f) && is_plain_number(&p[1]) => {
                vec![f, &p[1]]
            }
            Some(f) => vec![f],
        }
    };
    let t: Vec<String> = target.iter().map(|x| format_arg(x)).collect();
    [command.to_string(), t.join(" "), "<text>".to_string()]
        .into_iter()
        .filter(|s| !s.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

/// A step that did not complete.
struct Fail {
    kind: &'static str,
    code: String,
    message: String,
    hint: Option<String>,
    details: Map<String, Value>,
    binding: Option<(BindingFailure, Arc<Snapshot>)>,
    /// No divergence report (unresolved variable).
    bare: bool,
}

impl Fail {
    fn new(code: &str, message: impl Into<String>) -> Fail {
        Fail {
            kind: "action-failure",
            code: code.into(),
            message: message.into(),
            hint: None,
            details: Map::new(),
            binding: None,
            bare: false,
        }
    }
    fn hint(mut self, h: impl Into<String>) -> Fail {
        self.hint = Some(h.into());
        self
    }
    fn reason(mut self, r: &str) -> Fail {
        self.details.insert("reason".into(), r.into());
        self
    }
    fn from_backend(e: BackendError) -> Fail {
        let mut f = Fail::new(e.code(), e.message().to_string());
        if let Some(h) = e.hint() {
            f.hint = Some(h.to_string());
        }
        if matches!(e, BackendError::Transport { .. }) {
            f.details
                .insert("reason".into(), "transport-failure".into());
            f.details.insert("retriable".into(), false.into());
        }
        f
    }
}

/// What a step produced (journaled in `step_end`).
type Outcome = Result<Map<String, Value>, Fail>;

/// A resolved element target.
struct Resolved {
    point: Point,
    /// The node (in `tree`) when the target is an element.
    node: Option<usize>,
    tree: Option<Arc<Snapshot>>,
    info: Map<String, Value>,
}

struct Exec<'b, B: Backend> {
    backend: &'b mut B,
    journal: &'b mut Journal,
    scope: Scope,
    frames: Frames,
    last: Option<Arc<Snapshot>>,
    step_no: usize,
    /// The current step's action label (redacted).
    label: String,
    line: usize,
    deadline: Option<u64>,
    warnings: Vec<String>,
    output_dir: Option<std::path::PathBuf>,
    screenshots: u64,
    selectors: std::collections::HashMap<String, Arc<Selector>>,
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
    let wall = Instant::now();
    let digest = plan_digest(
        plan.steps,
        plan.metadata,
        &DigestOptions {
            platform: opts.platform.clone(),
            target: opts.target.clone(),
        },
    );
    let total = plan.steps.len();
    let mut result = RunResult {
        ok: false,
        replayed: 0,
        total,
        session: opts.session.clone(),
        session_active: true,
        location: Value::Null,
        plan_digest: digest.clone(),
        error: None,
        device_ms: 0,
        wall_ms: 0.0,
        warnings: Vec::new(),
    };
    // Resume preflight (before any action).
    let from = match resume_preflight(opts, &digest, total) {
        Ok(from) => from,
        Err(e) => {
            result.error = Some(*e);
            return finish_early(result, journal, wall);
        }
    };
    let platform = run_platform(opts, plan.metadata);
    let builtins = builtin_values(opts, plan.metadata);
    let file_env: Vec<(String, String)> = plan
        .metadata
        .env
        .iter()
        .map(|e| (e.key.clone(), e.value.clone()))
        .collect();
    let scope = match Scope::new(&builtins, &file_env, &opts.shell_env, &opts.cli_env) {
        Ok(s) => s,
        Err(e) => {
            result.error = Some(RunError::preflight(e, None));
            return finish_early(result, journal, wall);
        }
    };
    let terminal_close = ad_compiler::profile::terminal_close(plan.steps).map(|s| s.line);
    let _ = journal.append(
        "run_start",
        json!({
            "script": opts.script_path,
            "plan_digest": digest,
            "steps": total,
            "from": from,
            "backend": backend.name(),
            "platform": platform,
            "keep_session": opts.keep_session,
            "variables": {
                "cli": opts.cli_env.iter().map(|(k, _)| k.clone()).collect::<Vec<_>>(),
                "shell": opts.shell_env.iter().map(|(k, _)| k.clone()).collect::<Vec<_>>(),
                "file": file_env.iter().map(|(k, _)| k.clone()).collect::<Vec<_>>(),
            },
        }),
    );
    let start_device = backend.now_ms();
    let mut ex = Exec {
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
        screenshots: 0,
        selectors: std::collections::HashMap::new(),
    };
    let mut closed = false;
    for (i, step) in plan.steps.iter().enumerate().skip(from - 1) {
        let index = i + 1;
        let line = step.line + 1;
        let raw: Vec<String> = step.positional_values();
        // Built from the script's own text (before interpolation): no injected value is in it,
        // and redacting it would rewrite the script's words (`open "com.e<var:X>ample"`).
        let label = action_label(&step.command, &raw);
        let info = StepInfo {
            index,
            total,
            line,
            label: label.clone(),
        };
        if step.spec.is_some_and(|s| s.effect == Effect::Skipped) {
            let _ = ex.journal.append("step_skipped", json!({"step": index, "line": line, "action": label, "reason": "replay steps are never dispatched"}));
            continue;
        }
        if opts.keep_session && Some(step.line) == terminal_close {
            let _ = ex.journal.append("step_skipped", json!({"step": index, "line": line, "action": label, "reason": "terminal close skipped by --keep-session"}));
            progress.step_end(
                &info,
                &StepEnd {
                    status: "skipped",
                    wall_ms: 0.0,
                    device_ms: 0,
                    note: Some("--keep-session".into()),
                },
            );
            continue;
        }
        if let Some(signal) = crate::interrupt::requested() {
            result.error = Some(RunError::interrupted(signal, index, line, result.replayed));
            break;
        }
        if let Some(d) = ex.deadline {
            if ex.backend.now_ms() >= d {
                let t = opts.timeout_ms.unwrap_or(0);
                let fail = Fail::new(
                    "TIMEOUT",
                    format!("the script exceeded its timeout of {t} ms before step {index}"),
                )
                .hint("raise `context timeout=` or pass --timeout")
                .reason("script_timeout");
                result.error = Some(
                    ex.failure(fail, step, index, line, &label, plan, &digest, opts)
                        .await,
                );
                break;
            }
        }
        progress.step_start(&info);
        ex.step_no = index;
        ex.label = label.clone();
        ex.line = line;
        let t0 = Instant::now();
        let d0 = ex.backend.now_ms();
        let _ = ex.journal.append(
            "step_start",
            json!({"step": index, "line": line, "command": step.command, "action": label}),
        );
        let outcome = ex.step(step, &opts.script_path).await;
        let wall_ms = t0.elapsed().as_secs_f64() * 1000.0;
        let device_ms = ex.backend.now_ms().saturating_sub(d0);
        match outcome {
            Ok(mut details) => {
                result.replayed += 1;
                let note = details
                    .remove("note")
                    .and_then(|v| v.as_str().map(str::to_string));
                let mut row = json!({"step": index, "line": line, "status": "ok", "wall_ms": round3(wall_ms), "device_ms": device_ms});
                if !details.is_empty() {
                    let mut d = Value::Object(details);
                    ex.scope.redact_value(&mut d);
                    row["result"] = d;
                }
                let _ = ex.journal.append("step_end", row);
                progress.step_end(
                    &info,
                    &StepEnd {
                        status: "ok",
                        wall_ms,
                        device_ms,
                        note,
                    },
                );
                if Some(step.line) == terminal_close {
                    closed = true;
                }
            }
            Err(fail) => {
                let _ = ex.journal.append("step_end", json!({"step": index, "line": line, "status": "failed", "wall_ms": round3(wall_ms), "device_ms": device_ms, "code": fail.code, "kind": fail.kind}));
                progress.step_end(
                    &info,
                    &StepEnd {
                        status: "failed",
                        wall_ms,
                        device_ms,
                        note: Some(ex.scope.redact(&fail.message)),
                    },
                );
                result.error = Some(
                    ex.failure(fail, step, index, line, &label, plan, &digest, opts)
                        .await,
                );
                break;
            }
        }
    }
    result.ok = result.error.is_none();
    result.session_active = !closed;
    result.location = ex.backend.location();
    result.device_ms = ex.backend.now_ms().saturating_sub(start_device);
    result.warnings = ex.warnings.clone();
    result.wall_ms = wall.elapsed().as_secs_f64() * 1000.0;
    let exit_reason = match &result.error {
        None => "completed",
        Some(e) if e.is_interrupted() => "interrupted",
        Some(e) if e.details.get("divergence").is_some() => "divergence",
        Some(_) => "error",
    };
    let exit_code = match &result.error {
        None => 0,
        Some(e) if e.is_interrupted() => 130,
        Some(_) => 1,
    };
    let end = json!({
        "exit_code": exit_code,
        "exit_reason": exit_reason,
        "replayed": result.replayed,
        "total": total,
        "session_active": result.session_active,
        "device_ms": result.device_ms,
        "wall_ms": round3(result.wall_ms),
    });
    let mut summary = crate::journal::fields(json!({
        "script": opts.script_path,
        "plan_digest": digest,
        "backend": ex.backend.name(),
        "ok": result.ok,
        "exit_code": exit_code,
        "exit_reason": exit_reason,
        "steps": {"total": total, "from": from, "replayed": result.replayed},
        "session_active": result.session_active,
        "device_ms": result.device_ms,
        "wall_ms": round3(result.wall_ms),
    }));
    if result.session_active {
        summary.insert("location".into(), result.location.clone());
    }
    if let Some(e) = &result.error {
        let mut err = json!({"code": e.code, "message": e.message, "step": e.step, "line": e.line});
        if let Some(d) = e.divergence() {
            err["divergence"] = d.clone();
        }
        summary.insert("error".into(), err);
    }
    let _ = ex.journal.finish(end, summary);
    result
}

fn round3(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}

fn finish_early(mut result: RunResult, journal: &mut Journal, wall: Instant) -> RunResult {
    result.wall_ms = wall.elapsed().as_secs_f64() * 1000.0;
    result.session_active = false;
    let e = result.error.clone().expect("error");
    let _ = journal.append(
        "run_start",
        json!({"plan_digest": result.plan_digest, "steps": result.total}),
    );
    let _ = journal.finish(
        json!({"exit_code": 2, "exit_reason": "preflight", "message": e.message}),
        crate::journal::fields(json!({"ok": false, "exit_code": 2, "exit_reason": "preflight", "error": {"code": e.code, "message": e.message}})),
    );
    result
}

/// The command's selector policy (agent-device `df`), from its targeting in the registry.
fn policy_for(command: &str, p: &[String]) -> Policy {
    use ad_compiler::registry::Targeting;
    match ad_compiler::registry::lookup(command).map(|s| s.targeting) {
        Some(Targeting::Element) => Policy::ACT,
        Some(Targeting::ElementAfterSubcommand)
            if p.first().map(String::as_str) == Some("text") =>
        {
            Policy::READ_TEXT
        }
        Some(Targeting::ElementAfterSubcommand) => Policy::READ_UNIQUE,
        Some(Targeting::Predicate) => Policy::READ_TEXT,
        _ => Policy::ANY,
    }
}

fn node_info(tree: &Snapshot, n: &FlatNode) -> Value {
    let mut m = Map::new();
    m.insert("ref".into(), n.reference.clone().into());
    m.insert("role".into(), display_role(n).into());
    if let Some(id) = &n.id {
        m.insert("id".into(), id.clone().into());
    }
    if let Some(l) = display_label(n) {
        m.insert("label".into(), l.into());
    }
    let _ = tree;
    Value::Object(m)
}

fn num(s: Option<&String>) -> Option<f64> {
    let s = s?;
    if s.trim().is_empty() || !is_numeric(s) {
        return None;
    }
    let n = ad_grammar::text::js_number(s);
    n.is_finite().then_some(n)
}

fn flag_u64(step: &Step, key: &str) -> Option<u64> {
    step.flags
        .get(key)
        .and_then(Value::as_f64)
        .map(|f| f.max(0.0) as u64)
}

impl<B: Backend> Exec<'_, B> {
    /// Captures the screen, journals it as an observation and remembers it.
    async fn observe(&mut self, phase: &str) -> Result<Arc<Snapshot>, Fail> {
        let cap = self
            .backend
            .capture()
            .await
            .map_err(|e| Fail::from_backend(e).reason("wait_capture_stalled"))?;
        let app = cap.app;
        let snap = Arc::new(Snapshot::flatten_owned(cap.roots, cap.viewport));
        let now = self.backend.now_ms();
        let scope = &self.scope;
        let make_body = || {
            #[derive(serde::Serialize)]
            #[serde(rename_all = "camelCase")]
            struct Body<'a> {
                app: &'a Option<String>,
                viewport: crate::tree::Rect,
                device_time_ms: u64,
                nodes: &'a [FlatNode],
            }
            let redacted;
            let nodes: &[FlatNode] = if scope.has_redactions() {
                redacted = snap
                    .nodes
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
                    .collect::<Vec<_>>();
                &redacted
            } else {
                &snap.nodes
            };
            serde_json::to_vec(&Body {
                app: &app,
                viewport: snap.viewport,
                device_time_ms: now,
                nodes,
            })
            .unwrap_or_default()
        };
        let fields = crate::journal::fields(json!({"step": self.step_no, "phase": phase}));
        self.journal.observe_bytes(make_body, fields).map_err(|e| {
            Fail::new(
                "JOURNAL_WRITE_FAILED",
                format!("could not record an observation: {e}"),
            )
            .hint("check free space and permissions of the artifacts folder")
        })?;
        self.last = Some(snap.clone());
        Ok(snap)
    }

    /// Parses a selector, remembering recent ones (scripts repeat their selectors).
    fn selector(&mut self, text: &str) -> Result<Arc<Selector>, String> {
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
    async fn act<T, F>(&mut self, command: &str, args: Value, call: F) -> Result<T, Fail>
    where
        F: AsyncFnOnce(&mut B) -> BackendResult<T>,
    {
        self.frames.expire();
        let mut args = args;
        self.scope.redact_value(&mut args);
        let attempt = self
            .journal
            .attempt(
                json!({"step": self.step_no, "line": self.line, "action": self.label, "command": command, "args": args}),
            )
            .map_err(|e| {
                Fail::new(
                    "JOURNAL_WRITE_FAILED",
                    format!("could not record the action intent, so it was not sent: {e}"),
                )
                .hint("check free space and permissions of the artifacts folder")
            })?;
        match call(self.backend).await {
            Ok(v) => {
                let _ = self.journal.result(&attempt, "accepted", json!({}));
                Ok(v)
            }
            Err(e) => {
                let outcome = match e {
                    BackendError::Rejected { .. } => "rejected",
                    BackendError::Transport { .. } => "unknown",
                };
                let msg = self.scope.redact(e.message());
                let _ = self.journal.result(
                    &attempt,
                    outcome,
                    json!({"code": e.code(), "message": msg}),
                );
                Err(Fail::from_backend(e))
            }
        }
    }

    /// Sleeps on the device clock between polls; a stop request (Ctrl-C, SIGTERM) ends the wait.
    async fn nap(&mut self, ms: u64) -> Result<(), Fail> {
        if let Some(signal) = crate::interrupt::requested() {
            let mut f = Fail::new(
                "INTERRUPTED",
                format!("interrupted by {signal} while waiting"),
            )
            .reason("interrupted");
            f.bare = true; // no divergence: the screen did not diverge, the user stopped the run
            return Err(f);
        }
        self.backend.sleep(ms).await;
        Ok(())
    }

    fn remaining(&self, timeout: u64) -> u64 {
        let now = self.backend.now_ms();
        match self.deadline {
            Some(d) => timeout.min(d.saturating_sub(now)),
            None => timeout,
        }
    }

    async fn interpolate(
        &mut self,
        step: &Step,
        path: &str,
    ) -> Result<(Vec<String>, Map<String, Value>, Option<Map<String, Value>>), Fail> {
        let unresolved = |u: Unresolved, line: usize| {
            Fail {
            kind: "action-failure",
            code: "INVALID_ARGS".into(),
            message: format!("Unresolved variable ${{{}}} at {path}:{line}.", u.name),
            hint: Some(format!("pass -e {0}=… or export AD_VAR_{0}=…; or give it a default with `env {0}=…` or `${{{0}:-fallback}}`", u.name)),
            details: crate::journal::fields(json!({"reason": "unresolved_variable", "variable": u.name})),
            binding: None,
            bare: true,
        }
        };
        let line = step.line + 1;
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
            .expand_value(&Value::Object(step.flags.to_map()))
            .map_err(|u| unresolved(u, line))?
        {
            Value::Object(m) => m,
            _ => Map::new(),
        };
        let runtime = match &step.runtime {
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

    async fn step(&mut self, step: &Step, path: &str) -> Outcome {
        let (p, flags, _runtime) = self.interpolate(step, path).await?;
        let cmd = &*step.command;
        let mutates = ad_compiler::profile::mutates(step);
        match cmd {
            "open" => self.open(&p, &flags).await,
            "close" => {
                let app = p.first().cloned();
                self.act("close", json!({"app": app}), async move |b: &mut B| {
                    b.close(app.as_deref()).await
                })
                .await?;
                Ok(Map::new())
            }
            "click" | "press" => self.click(step, &p, &flags).await,
            "longpress" => self.longpress(step, &p).await,
            "hover" => {
                let t = self.target(step, &p, 0, true).await?;
                let pt = t.point;
                self.act("hover", json!({"point": pt}), async move |b: &mut B| {
                    b.hover(pt).await
                })
                .await?;
                Ok(t.info)
            }
            "focus" => {
                let (Some(x), Some(y)) = (num(p.first()), num(p.get(1))) else {
                    return Err(
                        Fail::new("INVALID_ARGS", "focus requires x y").hint("focus <x> <y>")
                    );
                };
                let pt = Point { x, y };
                self.act("focus", json!({"point": pt}), async move |b: &mut B| {
                    b.focus(pt).await
                })
                .await?;
                Ok(Map::new())
            }
            "fill" => self.fill(step, &p, &flags).await,
            "type" => {
                let text = p.join(" ");
                let delay = flag_u64(step, "delayMs").unwrap_or(0);
                self.act("type", json!({"text": text}), async move |b: &mut B| {
                    b.type_text(&text, delay).await
                })
                .await?;
                Ok(Map::new())
            }
            "swipe" => self.swipe(step, &p).await,
            "gesture" => self.gesture(step, &p).await,
            "scroll" => {
                let Some(dir) = p.first().and_then(|d| Direction::parse(d)) else {
                    return Err(Fail::new("INVALID_ARGS", format!("scroll requires a direction (up, down, left, right, top, bottom), got {:?}", p.first().cloned().unwrap_or_default())));
                };
                let amount = num(p.get(1)).map(|a| a.min(0.8));
                self.act(
                    "scroll",
                    json!({"direction": dir, "amount": amount}),
                    async move |b: &mut B| b.scroll(dir, amount).await,
                )
                .await?;
                Ok(Map::new())
            }
            "back" | "home" | "app-switcher" => {
                let key = match cmd {
                    "back" => SystemKey::Back,
                    "home" => SystemKey::Home,
                    _ => SystemKey::AppSwitcher,
                };
                self.act(cmd, json!({}), async move |b: &mut B| {
                    b.press_key(key).await
                })
                .await?;
                Ok(Map::new())
            }
            "keyboard" => self.keyboard(&p, mutates).await,
            "alert" => self.alert(&p, mutates).await,
            "clipboard" => match p.first().map(String::as_str) {
                Some("read") | None => {
                    let t = self
                        .backend
                        .clipboard_read()
                        .await
                        .map_err(Fail::from_backend)?;
                    Ok(crate::journal::fields(json!({"text": t})))
                }
                Some("write") => {
                    let text = p[1..].join(" ");
                    self.act(
                        "clipboard",
                        json!({"write": text}),
                        async move |b: &mut B| b.clipboard_write(&text).await,
                    )
                    .await?;
                    Ok(Map::new())
                }
                Some(other) => Err(Fail::new(
                    "INVALID_ARGS",
                    format!("clipboard requires read or write, got {other}"),
                )),
            },
            "wait" => self.wait(step, &p).await,
            "is" => self.is(step, &p).await,
            "get" => self.get(step, &p).await,
            "snapshot" => self.snapshot(&flags).await,
            "find" => self.find(&p, mutates).await,
            "screenshot" => self.screenshot(&p).await,
            _ => {
                let cmd_s = cmd.to_string();
                let p2 = p.clone();
                let v = if mutates {
                    self.act(cmd, json!({"positionals": p}), async move |b: &mut B| {
                        b.other(&cmd_s, &p2).await
                    })
                    .await?
                } else {
                    self.backend
                        .other(&cmd_s, &p2)
                        .await
                        .map_err(Fail::from_backend)?
                };
                Ok(crate::journal::fields(json!({"response": v})))
            }
        }
    }

    async fn open(&mut self, p: &[String], flags: &Map<String, Value>) -> Outcome {
        let relaunch = flags
            .get("relaunch")
            .and_then(Value::as_bool)
            .unwrap_or(false);
        let Some(first) = p.first().cloned() else {
            return Err(Fail::new("INVALID_ARGS", "open requires an app id or URL")
                .hint("open \"com.example.app\""));
        };
        let (app, url) = if first.contains("://") && p.len() == 1 {
            // A bare URL opens in the foreground app of the device.
            let fg = self
                .backend
                .location()
                .get("app")
                .and_then(Value::as_str)
                .map(str::to_string);
            match fg {
                Some(a) => (a, Some(first.clone())),
                None => (first.clone(), None),
            }
        } else {
            (first.clone(), p.get(1).cloned())
        };
        let opts = LaunchOptions { relaunch, url };
        let app2 = app.clone();
        self.act(
            "open",
            json!({"app": app, "relaunch": relaunch, "url": opts.url}),
            async move |b: &mut B| b.launch(&app2, &opts).await,
        )
        .await?;
        Ok(Map::new())
    }

    /// Resolves positional `at` (and `at+1` for points) to a point.
    async fn target(
        &mut self,
        step: &Step,
        p: &[String],
        at: usize,
        appear: bool,
    ) -> Result<Resolved, Fail> {
        if let (Some(x), Some(y)) = (num(p.get(at)), num(p.get(at + 1))) {
            return Ok(Resolved {
                point: Point { x, y },
                node: None,
                tree: None,
                info: crate::journal::fields(json!({"target": {"point": {"x": x, "y": y}}})),
            });
        }
        let Some(t) = p.get(at).cloned() else {
            return Err(Fail::new(
                "INVALID_ARGS",
                format!("{} requires a target: @ref, selector, or x y", step.command),
            ));
        };
        let evidence = step.target_evidence.as_deref().filter(|_| {
            step.spec
                .is_some_and(|s| s.verification == Verification::PreDispatch)
        });
        if t.starts_with('@') {
            return self.ref_target(step, &t, evidence).await;
        }
        let policy = policy_for(&step.command, p);
        self.selector_target(step, &t, policy, evidence, appear)
            .await
    }

    async fn ref_target(
        &mut self,
        step: &Step,
        t: &str,
        evidence: Option<&TargetEvidence>,
    ) -> Result<Resolved, Fail> {
        let (tree, idx) = match self.frames.admit_mutation(t) {
            Ok(x) => x,
            Err(r) => {
                let mut f = Fail::new("COMMAND_FAILED", r.message.clone())
                    .hint(r.hint.clone())
                    .reason(r.reason);
                f.details.insert("ref".into(), r.reference.clone().into());
                if let Some(g) = r.current_generation {
                    f.details.insert("currentGeneration".into(), g.into());
                }
                if let Some(g) = r.minted_generation {
                    f.details.insert("mintedGeneration".into(), g.into());
                }
                f.details.insert("scope".into(), r.scope.into());
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
            return Err(
                Fail::new("COMMAND_FAILED", format!("Ref {t} has no bounds to act on"))
                    .hint("target an element with a frame, or use a selector"),
            );
        };
        let _ = step;
        let mut info = Map::new();
        info.insert("target".into(), node_info(&tree, n));
        Ok(Resolved {
            point: rect.center(),
            node: Some(idx),
            tree: Some(tree),
            info,
        })
    }

    fn binding_fail(&self, b: BindingFailure, tree: Arc<Snapshot>) -> Fail {
        let mut f = Fail::new(b.cause_code, b.cause_message.clone());
        f.kind = b.kind;
        f.details.insert("reason".into(), b.kind.into());
        f.binding = Some((b, tree));
        f
    }

    async fn selector_target(
        &mut self,
        step: &Step,
        t: &str,
        policy: Policy,
        evidence: Option<&TargetEvidence>,
        appear: bool,
    ) -> Result<Resolved, Fail> {
        let sel = self.selector(t).map_err(|m| {
            Fail::new("INVALID_ARGS", m).hint(format!(
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
            let snap = self.observe("resolve").await?;
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
                    let mut f =
                        Fail::new(&code, msg)
                            .hint(hint)
                            .reason(if code == "AMBIGUOUS_MATCH" {
                                "ambiguous"
                            } else {
                                "wait_target_absent"
                            });
                    if code == "AMBIGUOUS_MATCH" {
                        let cands: Vec<Value> = r
                            .matched
                            .iter()
                            .take(5)
                            .map(|&i| node_info(&snap, &snap.nodes[i]))
                            .collect();
                        f.details.insert("candidates".into(), cands.into());
                    }
                    f.details.insert("selector".into(), t.into());
                    if waited > 0 {
                        f.details.insert("waitedMs".into(), waited.into());
                    }
                    return Err(f);
                };
                let _ = step;
                return Ok(self.resolved_from(&snap, w, &r, "unannotated"));
            }
            let nap = POLL_INTERVAL_MS.min(budget - waited);
            self.nap(nap).await?;
        }
    }

    fn resolved_from(
        &self,
        snap: &Arc<Snapshot>,
        w: usize,
        r: &select::Resolution,
        verification: &str,
    ) -> Resolved {
        let n = &snap.nodes[w];
        let mut info = Map::new();
        info.insert("target".into(), node_info(snap, n));
        let mut res = Map::new();
        match &r.disambiguation {
            Some(d) => {
                res.insert("kind".into(), "disambiguated".into());
                res.insert("matchCount".into(), d.match_count.into());
                res.insert("tiebreak".into(), d.tiebreak.clone().into());
                res.insert(
                    "alternatives".into(),
                    d.alternatives
                        .iter()
                        .take(5)
                        .map(|&i| node_info(snap, &snap.nodes[i]))
                        .collect::<Vec<_>>()
                        .into(),
                );
            }
            None => {
                res.insert("kind".into(), "unique".into());
                res.insert("matchCount".into(), r.matched.len().into());
            }
        }
        if let Some(a) = r.alternative {
            res.insert("alternative".into(), a.into());
        }
        info.insert("resolution".into(), Value::Object(res));
        info.insert("verification".into(), verification.into());
        let point = n
            .rect
            .map(|r| r.center())
            .unwrap_or(Point { x: 0.0, y: 0.0 });
        Resolved {
            point,
            node: Some(w),
            tree: Some(snap.clone()),
            info,
        }
    }

    async fn click(&mut self, step: &Step, p: &[String], flags: &Map<String, Value>) -> Outcome {
        let t = self.target(step, p, 0, true).await?;
        let opts = TapOptions {
            count: flags
                .get("count")
                .and_then(Value::as_f64)
                .map(|c| c.clamp(1.0, 200.0) as u32)
                .unwrap_or(1),
            interval_ms: flags
                .get("intervalMs")
                .and_then(Value::as_f64)
                .unwrap_or(0.0) as u64,
            hold_ms: flags.get("holdMs").and_then(Value::as_f64).unwrap_or(0.0) as u64,
            double_tap: flags
                .get("doubleTap")
                .and_then(Value::as_bool)
                .unwrap_or(false),
            button: flags
                .get("clickButton")
                .and_then(Value::as_str)
                .unwrap_or("primary")
                .to_string(),
        };
        let pt = t.point;
        let o2 = opts.clone();
        self.act(
            &step.command,
            json!({"point": pt, "count": opts.count, "target": t.info.get("target")}),
            async move |b: &mut B| b.tap(pt, &o2).await,
        )
        .await?;
        let _ = (&t.node, &t.tree);
        Ok(t.info)
    }

    async fn longpress(&mut self, step: &Step, p: &[String]) -> Outcome {
        // A trailing number after a non-point target is the duration.
        let mut args = p.to_vec();
        let mut duration = LONGPRESS_MS;
        let point = num(p.first()).is_some() && num(p.get(1)).is_some();
        if (point && p.len() >= 3) || (!point && p.len() > 1) {
            if let Some(d) = num(p.last()) {
                duration = d.max(0.0) as u64;
                args.pop();
            }
        }
        let t = self.target(step, &args, 0, true).await?;
        let pt = t.point;
        self.act(
            "longpress",
            json!({"point": pt, "durationMs": duration}),
            async move |b: &mut B| b.long_press(pt, duration).await,
        )
        .await?;
        Ok(t.info)
    }

    async fn fill(&mut self, step: &Step, p: &[String], _flags: &Map<String, Value>) -> Outcome {
        let point = num(p.first()).is_some() && num(p.get(1)).is_some();
        let text_at = if point { 2 } else { 1 };
        if p.len() < 2 {
            return Err(Fail::new(
                "INVALID_ARGS",
                "fill requires x y text, @ref text, or selector text",
            )
            .hint("fill \"id=\\\"email\\\"\" \"me@example.com\""));
        }
        let text = p.get(text_at).cloned().unwrap_or_default();
        let t = self.target(step, p, 0, true).await?;
        let pt = t.point;
        let delay = flag_u64(step, "delayMs").unwrap_or(0);
        let mut args = json!({"point": pt, "text": text, "target": t.info.get("target")});
        if let Some(v) = step
            .positionals
            .get(text_at)
            .and_then(|a| ad_grammar::placeholder::whole_token_variable(&a.value))
        {
            args["recordAs"] = v.into();
        }
        self.act("fill", args, async move |b: &mut B| {
            b.fill(pt, &text, delay).await
        })
        .await?;
        Ok(t.info)
    }

    async fn swipe(&mut self, step: &Step, p: &[String]) -> Outcome {
        let c: Vec<Option<f64>> = (0..4).map(|i| num(p.get(i))).collect();
        let [Some(x1), Some(y1), Some(x2), Some(y2)] = [c[0], c[1], c[2], c[3]] else {
            return Err(Fail::new("INVALID_ARGS", "swipe requires x1 y1 x2 y2")
                .hint("swipe 200 600 200 200"));
        };
        let plan = GesturePlan {
            kind: "swipe".into(),
            pointers: vec![vec![Point { x: x1, y: y1 }, Point { x: x2, y: y2 }]],
            duration_ms: 300,
            repeat: flag_u64(step, "count").unwrap_or(1).max(1) as u32,
        };
        self.act("swipe", json!({"plan": plan}), async move |b: &mut B| {
            b.gesture(&plan).await
        })
        .await?;
        Ok(Map::new())
    }

    async fn gesture(&mut self, step: &Step, p: &[String]) -> Outcome {
        let kind = p.first().cloned().unwrap_or_default();
        let n = |i: usize| num(p.get(i));
        let pt = |x: Option<f64>, y: Option<f64>| Point {
            x: x.unwrap_or(195.0),
            y: y.unwrap_or(422.0),
        };
        let mut info = Map::new();
        let plan = match kind.as_str() {
            "pan" => {
                let a = pt(n(1), n(2));
                let b = Point {
                    x: a.x + n(3).unwrap_or(0.0),
                    y: a.y + n(4).unwrap_or(0.0),
                };
                GesturePlan {
                    kind: "swipe".into(),
                    pointers: vec![vec![a, b]],
                    duration_ms: n(5).unwrap_or(300.0) as u64,
                    repeat: 1,
                }
            }
            "fling" => {
                let a = pt(n(2), n(3));
                let d = n(4).unwrap_or(400.0);
                let b = match p.get(1).map(String::as_str) {
                    Some("up") => Point { x: a.x, y: a.y - d },
                    Some("down") => Point { x: a.x, y: a.y + d },
                    Some("left") => Point { x: a.x - d, y: a.y },
                    Some("right") => Point { x: a.x + d, y: a.y },
                    other => {
                        return Err(Fail::new(
                            "INVALID_ARGS",
                            format!(
                                "gesture fling requires up, down, left or right, got {other:?}"
                            ),
                        ))
                    }
                };
                GesturePlan {
                    kind: "swipe".into(),
                    pointers: vec![vec![a, b]],
                    duration_ms: 120,
                    repeat: 1,
                }
            }
            "drag" => {
                let src = self.drag_endpoint(step, p.get(1), "source").await?;
                let dst = self.drag_endpoint(step, p.get(2), "destination").await?;
                info.insert(
                    "source".into(),
                    src.info.get("target").cloned().unwrap_or(Value::Null),
                );
                info.insert(
                    "destination".into(),
                    dst.info.get("target").cloned().unwrap_or(Value::Null),
                );
                GesturePlan {
                    kind: "drag".into(),
                    pointers: vec![vec![src.point, dst.point]],
                    duration_ms: n(4).unwrap_or(300.0) as u64,
                    repeat: 1,
                }
            }
            "swipe" | "pinch" | "rotate" | "transform" => GesturePlan {
                kind: kind.clone(),
                pointers: vec![],
                duration_ms: 300,
                repeat: 1,
            },
            other => {
                return Err(
                    Fail::new("INVALID_ARGS", format!("unknown gesture \"{other}\""))
                        .hint("gesture pan|fling|swipe|pinch|rotate|transform|drag …"),
                )
            }
        };
        self.act("gesture", json!({"plan": plan}), async move |b: &mut B| {
            b.gesture(&plan).await
        })
        .await?;
        Ok(info)
    }

    async fn drag_endpoint(
        &mut self,
        step: &Step,
        t: Option<&String>,
        which: &str,
    ) -> Result<Resolved, Fail> {
        let Some(t) = t else {
            return Err(Fail::new(
                "INVALID_ARGS",
                format!("gesture drag requires a {which}"),
            ));
        };
        let evidence = step.target_evidences.as_ref().map(|d| {
            if which == "source" {
                &d.source
            } else {
                &d.destination
            }
        });
        if t.starts_with('@') {
            return self.ref_target(step, t, evidence).await;
        }
        if let Some((x, y)) = t.split_once(',').and_then(|(a, b)| {
            Some((
                num(Some(&a.trim().to_string()))?,
                num(Some(&b.trim().to_string()))?,
            ))
        }) {
            return Ok(Resolved {
                point: Point { x, y },
                node: None,
                tree: None,
                info: Map::new(),
            });
        }
        self.selector_target(step, t, Policy::ACT, evidence, true)
            .await
    }

    async fn keyboard(&mut self, p: &[String], mutates: bool) -> Outcome {
        let action = match p.first().map(|s| s.to_lowercase()).as_deref() {
            None | Some("status") | Some("get") => KeyboardAction::Status,
            Some("dismiss") | Some("hide") => KeyboardAction::Dismiss,
            Some("enter") | Some("return") => KeyboardAction::Enter,
            Some(o) => {
                return Err(Fail::new(
                    "INVALID_ARGS",
                    format!("keyboard requires status, get, dismiss, enter or return, got {o}"),
                ))
            }
        };
        let st = if mutates {
            self.act(
                "keyboard",
                json!({"action": action}),
                async move |b: &mut B| b.keyboard(action).await,
            )
            .await?
        } else {
            self.backend
                .keyboard(action)
                .await
                .map_err(Fail::from_backend)?
        };
        Ok(crate::journal::fields(
            json!({"keyboard": {"visible": st.visible}}),
        ))
    }

    async fn alert(&mut self, p: &[String], mutates: bool) -> Outcome {
        let sub = p
            .first()
            .map(|s| s.to_lowercase())
            .unwrap_or_else(|| "get".into());
        match sub.as_str() {
            "get" => {
                let a = self
                    .backend
                    .alert(AlertAction::Get)
                    .await
                    .map_err(Fail::from_backend)?;
                Ok(crate::journal::fields(json!({"alert": a})))
            }
            "wait" => {
                let timeout =
                    self.remaining(num(p.get(1)).map(|t| t as u64).unwrap_or(WAIT_TIMEOUT_MS));
                let start = self.backend.now_ms();
                loop {
                    if let Some(a) = self
                        .backend
                        .alert(AlertAction::Get)
                        .await
                        .map_err(Fail::from_backend)?
                    {
                        return Ok(crate::journal::fields(
                            json!({"alert": a, "waitedMs": self.backend.now_ms() - start}),
                        ));
                    }
                    let waited = self.backend.now_ms() - start;
                    if waited >= timeout {
                        return Err(Fail::new(
                            "COMMAND_FAILED",
                            format!("alert wait timed out after {timeout} ms: no alert appeared"),
                        )
                        .reason("wait_target_absent"));
                    }
                    self.nap(POLL_INTERVAL_MS.min(timeout - waited)).await?;
                }
            }
            "accept" | "dismiss" => {
                let action = if sub == "accept" {
                    AlertAction::Accept
                } else {
                    AlertAction::Dismiss
                };
                let _ = mutates;
                let r = self
                    .act("alert", json!({"action": sub}), async move |b: &mut B| {
                        b.alert(action).await
                    })
                    .await?;
                match r {
                    Some(a) => Ok(crate::journal::fields(json!({"alert": a}))),
                    None => Err(Fail::new(
                        "COMMAND_FAILED",
                        format!("alert {sub}: no alert is shown"),
                    )
                    .hint("wait for it first (`alert wait 2000`)")),
                }
            }
            o => Err(Fail::new(
                "INVALID_ARGS",
                format!("alert requires get, accept, dismiss or wait, got {o}"),
            )),
        }
    }

    async fn wait(&mut self, step: &Step, p: &[String]) -> Outcome {
        let form = wait_form(p);
        let landmark = step.target_evidence.as_deref().filter(|_| {
            step.spec
                .is_some_and(|s| s.verification == Verification::PostResolution)
        });
        match form {
            WaitForm::Sleep { ms } => {
                let ms = ms.max(0.0) as u64;
                self.nap(ms).await?;
                Ok(crate::journal::fields(json!({"waitedMs": ms})))
            }
            WaitForm::Text { text, timeout_ms } => self.wait_text(&text, timeout_ms).await,
            WaitForm::Ref {
                reference,
                timeout_ms,
            } => {
                let (tree, idx, warn) = self.frames.admit_read(&reference).map_err(|r| {
                    Fail::new("COMMAND_FAILED", r.message.clone())
                        .hint(r.hint.clone())
                        .reason(r.reason)
                })?;
                if let Some(w) = warn {
                    self.warnings.push(w);
                }
                let Some(label) = display_label(&tree.nodes[idx]) else {
                    return Err(Fail::new(
                        "COMMAND_FAILED",
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
                let mut last = self.observe("wait").await?.fingerprint();
                let mut since = start;
                let mut captures = 1;
                loop {
                    let now = self.backend.now_ms();
                    if now - since >= quiet {
                        return Ok(crate::journal::fields(
                            json!({"waitedMs": now - start, "captures": captures}),
                        ));
                    }
                    if now - start >= timeout {
                        return Err(Fail::new(
                            "COMMAND_FAILED",
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
                    let f = self.observe("wait").await?.fingerprint();
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
                    .map_err(|m| Fail::new("INVALID_ARGS", m))?;
                let timeout =
                    self.remaining(timeout_ms.map(|t| t as u64).unwrap_or(WAIT_TIMEOUT_MS));
                let start = self.backend.now_ms();
                loop {
                    let snap = self.observe("wait").await?;
                    let r = resolve(&snap, &sel, Policy::ANY);
                    let waited = self.backend.now_ms() - start;
                    if r.matched.is_empty() {
                        return Ok(crate::journal::fields(json!({"waitedMs": waited})));
                    }
                    if waited >= timeout {
                        let n = r.matched.len();
                        let mut f = Fail::new(
                            "COMMAND_FAILED",
                            format!(
                                "wait absent timed out for selector {selector}: {n} match{} remain",
                                if n == 1 { "" } else { "es" }
                            ),
                        )
                        .reason("wait_target_present");
                        f.details.insert(
                            "firstMatch".into(),
                            node_info(&snap, &snap.nodes[r.matched[0]]),
                        );
                        return Err(f);
                    }
                    self.nap(POLL_INTERVAL_MS.min(timeout - waited)).await?;
                }
            }
            WaitForm::Selector {
                selector,
                timeout_ms,
            } => {
                let sel = self
                    .selector(&selector)
                    .map_err(|m| Fail::new("INVALID_ARGS", m))?;
                let timeout =
                    self.remaining(timeout_ms.map(|t| t as u64).unwrap_or(WAIT_TIMEOUT_MS));
                let start = self.backend.now_ms();
                let mut impostor: Option<(BindingFailure, Arc<Snapshot>)> = None;
                loop {
                    let snap = self.observe("wait").await?;
                    let r = resolve(&snap, &sel, Policy::ANY);
                    let waited = self.backend.now_ms() - start;
                    if !r.matched.is_empty() {
                        match landmark {
                            None => {
                                let mut out = crate::journal::fields(json!({"waitedMs": waited}));
                                out.insert(
                                    "target".into(),
                                    node_info(&snap, &snap.nodes[r.matched[0]]),
                                );
                                return Ok(out);
                            }
                            Some(e) => match identity::landmark(&snap, e, &r.matched) {
                                Some(n) => {
                                    let mut out = crate::journal::fields(
                                        json!({"waitedMs": waited, "verification": "landmark-verified"}),
                                    );
                                    out.insert("target".into(), node_info(&snap, &snap.nodes[n]));
                                    return Ok(out);
                                }
                                None => {
                                    let first = r.matched[0];
                                    impostor = Some((
                                        BindingFailure {
                                            kind: "identity-mismatch",
                                            cause_code: "IDENTITY_MISMATCH",
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
                    if waited >= timeout {
                        if let Some((b, tree)) = impostor {
                            let mut f = self.binding_fail(b, tree);
                            f.details
                                .insert("reason".into(), "wait_landmark_identity_mismatch".into());
                            return Err(f);
                        }
                        let mut f = Fail::new(
                            "COMMAND_FAILED",
                            format!("wait timed out for selector: {selector}"),
                        )
                        .reason("wait_target_absent");
                        f.details.insert("timeoutMs".into(), timeout.into());
                        if landmark.is_some() {
                            // A landmark whose selector never matched is a selector miss.
                            f.kind = "selector-miss";
                            f.code = "SELECTOR_MISS".into();
                            f.binding = Some((
                                BindingFailure {
                                    kind: "selector-miss",
                                    cause_code: "SELECTOR_MISS",
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
                    self.nap(POLL_INTERVAL_MS.min(timeout - waited)).await?;
                }
            }
            WaitForm::Invalid { reason, message } => {
                Err(Fail::new("INVALID_ARGS", message).reason(reason))
            }
            WaitForm::Empty => Err(Fail::new(
                "INVALID_ARGS",
                "wait requires <ms> | text <text> | @ref | <selector> | absent <selector> | stable",
            )),
        }
    }

    async fn wait_text(&mut self, text: &str, timeout_ms: Option<f64>) -> Outcome {
        let timeout = self.remaining(timeout_ms.map(|t| t as u64).unwrap_or(WAIT_TIMEOUT_MS));
        let start = self.backend.now_ms();
        loop {
            let snap = self.observe("wait").await?;
            let waited = self.backend.now_ms() - start;
            if let Some(n) = select::find_text(&snap, text) {
                let mut out = crate::journal::fields(json!({"waitedMs": waited}));
                out.insert("target".into(), node_info(&snap, n));
                return Ok(out);
            }
            if waited >= timeout {
                return Err(Fail::new(
                    "COMMAND_FAILED",
                    format!("wait timed out for text: {text}"),
                )
                .reason("wait_target_absent"));
            }
            self.nap(POLL_INTERVAL_MS.min(timeout - waited)).await?;
        }
    }

    async fn is(&mut self, step: &Step, p: &[String]) -> Outcome {
        let (predicate, selector, expected) = match is_form(p) {
            IsForm::Check {
                predicate,
                selector,
                expected,
            } => (predicate, selector, expected),
            IsForm::Invalid { message } => return Err(Fail::new("INVALID_ARGS", message)),
        };
        let sel = self
            .selector(&selector)
            .map_err(|m| Fail::new("INVALID_ARGS", m))?;
        let snap = self.observe("assert").await?;
        let any = matches!(predicate.as_str(), "exists" | "absent");
        let r = resolve(
            &snap,
            &sel,
            if any { Policy::ANY } else { Policy::READ_TEXT },
        );
        let evidence = step.target_evidence.as_deref().filter(|_| {
            !any && step
                .spec
                .is_some_and(|s| s.verification == Verification::PreDispatch)
        });
        if let Some(e) = evidence {
            if let Verdict::Failed(b) = identity::verify(&snap, e, &r.matched, r.winner) {
                return Err(self.binding_fail(b, snap));
            }
        }
        let fail = |detail: String| {
            Fail::new(
                "COMMAND_FAILED",
                format!("is {predicate} failed for selector {selector}: {detail}"),
            )
            .reason("predicate_failed")
        };
        let node = r.winner.map(|w| &snap.nodes[w]);
        let pass = match predicate.as_str() {
            "exists" => !r.matched.is_empty(),
            "absent" => r.matched.is_empty(),
            _ if node.is_none() => {
                if predicate == "hidden" && r.matched.is_empty() {
                    true
                } else {
                    let (_, msg, _) = r.failure(Policy::READ_TEXT);
                    return Err(fail(msg));
                }
            }
            "visible" => node.is_some_and(|n| select::is_visible(n) && snap.on_screen(n)),
            "hidden" => node.is_some_and(|n| !(select::is_visible(n) && snap.on_screen(n))),
            "editable" => node.is_some_and(|n| n.editable && n.enabled),
            "selected" => node.is_some_and(|n| n.selected),
            "focused" => node.is_some_and(|n| n.focused),
            "text" => node.is_some_and(|n| {
                crate::tree::normalize_text(crate::tree::display_text(n))
                    == crate::tree::normalize_text(&expected)
                    || n.value.as_deref().is_some_and(|v| {
                        crate::tree::normalize_text(v) == crate::tree::normalize_text(&expected)
                    })
            }),
            _ => false,
        };
        let mut out = crate::journal::fields(
            json!({"predicate": predicate, "pass": pass, "matches": r.matched.len()}),
        );
        if let Some(n) = node {
            out.insert("target".into(), node_info(&snap, n));
        }
        if pass {
            Ok(out)
        } else {
            let observed = match (predicate.as_str(), node) {
                ("exists", _) => "no element matched".to_string(),
                ("absent", _) => format!("{} element(s) matched", r.matched.len()),
                ("text", Some(n)) => format!("text is \"{}\"", crate::tree::display_text(n)),
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

    async fn get(&mut self, step: &Step, p: &[String]) -> Outcome {
        let sub = p.first().cloned().unwrap_or_default();
        if sub != "text" && sub != "attrs" {
            return Err(Fail::new(
                "INVALID_ARGS",
                format!("get requires text or attrs, got \"{sub}\""),
            ));
        }
        let Some(t) = p.get(1).cloned() else {
            return Err(Fail::new(
                "INVALID_ARGS",
                format!("get {sub} requires a target: @ref or selector"),
            ));
        };
        let (tree, idx) = if t.starts_with('@') {
            let (tree, idx, warn) = self.frames.admit_read(&t).map_err(|r| {
                Fail::new("COMMAND_FAILED", r.message.clone())
                    .hint(r.hint.clone())
                    .reason(r.reason)
            })?;
            if let Some(w) = warn {
                self.warnings.push(w);
            }
            (tree, idx)
        } else {
            let policy = policy_for("get", p);
            let evidence = step.target_evidence.as_deref().filter(|_| {
                step.spec
                    .is_some_and(|s| s.verification == Verification::PreDispatch)
            });
            let r = self
                .selector_target(step, &t, policy, evidence, false)
                .await?;
            (r.tree.expect("tree"), r.node.expect("node"))
        };
        let n = &tree.nodes[idx];
        let mut out = Map::new();
        out.insert("target".into(), node_info(&tree, n));
        if sub == "text" {
            out.insert(
                "text".into(),
                crate::tree::display_text(n).to_string().into(),
            );
        } else {
            out.insert(
                "attrs".into(),
                serde_json::to_value(n).unwrap_or(Value::Null),
            );
        }
        Ok(out)
    }

    async fn snapshot(&mut self, flags: &Map<String, Value>) -> Outcome {
        let snap = self.observe("snapshot").await?;
        let scope = flags
            .get("snapshotScope")
            .and_then(Value::as_str)
            .map(str::to_string);
        let tree = match &scope {
            None => snap.clone(),
            Some(s) => {
                let root = if s.starts_with('@') {
                    let (t, i, _) = self.frames.admit_read(s).map_err(|r| {
                        Fail::new("COMMAND_FAILED", r.message.clone())
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
                        "COMMAND_FAILED",
                        format!("snapshot scope {s} matched nothing"),
                    )
                    .hint("check the scope label or selector"));
                };
                Arc::new(subtree(&snap, root))
            }
        };
        let generation = self.frames.activate(tree.clone(), FrameScope::All);
        Ok(crate::journal::fields(
            json!({"refsGeneration": generation, "refs": tree.nodes.len(), "scope": scope}),
        ))
    }

    async fn find(&mut self, p: &[String], mutates: bool) -> Outcome {
        let mut rest = p;
        let mut locator = "any";
        if let Some(f) = rest.first() {
            if ad_compiler::registry::FIND_LOCATORS.contains(&f.as_str()) && rest.len() > 1 {
                locator = f.as_str();
                rest = &rest[1..];
            }
        }
        let Some(query) = rest.first().cloned() else {
            return Err(Fail::new("INVALID_ARGS", "find requires a query"));
        };
        let action = rest
            .get(1)
            .map(|s| s.to_lowercase())
            .unwrap_or_else(|| "click".into());
        let timeout = if action == "wait" {
            self.remaining(
                num(rest.get(2))
                    .map(|t| t as u64)
                    .unwrap_or(WAIT_TIMEOUT_MS),
            )
        } else {
            0
        };
        let start = self.backend.now_ms();
        let q = crate::tree::normalize_text(&query);
        let (snap, found) = loop {
            let snap = self.observe("find").await?;
            let matches = |n: &FlatNode| -> bool {
                let f = |v: Option<&str>| {
                    v.is_some_and(|v| crate::tree::normalize_text(v).contains(&q))
                };
                match locator {
                    "text" => f(Some(crate::tree::display_text(n))),
                    "label" => f(n.label.as_deref()),
                    "value" => f(n.value.as_deref()),
                    "role" => crate::tree::normalize_type(&n.kind) == q,
                    "id" => f(n.id.as_deref()),
                    _ => f(n.label.as_deref()) || f(n.value.as_deref()) || f(n.id.as_deref()),
                }
            };
            let found: Vec<usize> = snap
                .nodes
                .iter()
                .filter(|n| matches(n))
                .map(|n| n.index)
                .collect();
            let waited = self.backend.now_ms() - start;
            if !found.is_empty() || waited >= timeout {
                break (snap, found);
            }
            self.nap(POLL_INTERVAL_MS.min(timeout - waited)).await?;
        };
        if !mutates && !found.is_empty() {
            // A read-only find publishes a partial frame with the refs it returned.
            let issued = found
                .iter()
                .map(|&i| snap.nodes[i].reference.clone())
                .collect();
            self.frames
                .activate(snap.clone(), FrameScope::Issued(issued));
        }
        if action == "exists" {
            if found.is_empty() {
                return Err(
                    Fail::new("COMMAND_FAILED", format!("find did not match {query}"))
                        .reason("predicate_failed"),
                );
            }
            return Ok(crate::journal::fields(json!({"matches": found.len()})));
        }
        let Some(&first) = found.first() else {
            return Err(
                Fail::new("COMMAND_FAILED", format!("find did not match {query}"))
                    .reason("wait_target_absent"),
            );
        };
        let n = snap.nodes[first].clone();
        let info =
            crate::journal::fields(json!({"target": node_info(&snap, &n), "matches": found.len()}));
        if !mutates {
            let mut out = info;
            if let Some(f) = self.frames.current() {
                out.insert("refsGeneration".into(), f.generation.into());
            }
            match action.as_str() {
                "get" => {
                    out.insert(
                        "text".into(),
                        crate::tree::display_text(&n).to_string().into(),
                    );
                }
                "list" => {
                    out.insert(
                        "list".into(),
                        found
                            .iter()
                            .take(50)
                            .map(|&i| node_info(&snap, &snap.nodes[i]))
                            .collect::<Vec<_>>()
                            .into(),
                    );
                }
                _ => {}
            }
            return Ok(out);
        }
        let point = n
            .rect
            .map(|r| r.center())
            .ok_or_else(|| Fail::new("COMMAND_FAILED", "find matched an element without bounds"))?;
        match action.as_str() {
            "click" | "press" | "tap" => {
                self.act(
                    "find",
                    json!({"action": "click", "point": point}),
                    async move |b: &mut B| b.tap(point, &TapOptions::default()).await,
                )
                .await?;
            }
            "focus" => {
                self.act(
                    "find",
                    json!({"action": "focus", "point": point}),
                    async move |b: &mut B| b.focus(point).await,
                )
                .await?;
            }
            "fill" => {
                let text = rest[2..].join(" ");
                self.act(
                    "find",
                    json!({"action": "fill", "point": point, "text": text}),
                    async move |b: &mut B| b.fill(point, &text, 0).await,
                )
                .await?;
            }
            "type" => {
                let text = rest[2..].join(" ");
                self.act(
                    "find",
                    json!({"action": "type", "point": point, "text": text}),
                    async move |b: &mut B| {
                        b.focus(point).await?;
                        b.type_text(&text, 0).await
                    },
                )
                .await?;
            }
            other => {
                return Err(Fail::new(
                    "INVALID_ARGS",
                    format!("Unsupported find action: {other}"),
                ))
            }
        }
        Ok(info)
    }

    async fn screenshot(&mut self, p: &[String]) -> Outcome {
        let bytes = self
            .backend
            .screenshot()
            .await
            .map_err(Fail::from_backend)?;
        self.screenshots += 1;
        // A path the script names resolves inside the run folder; one that escapes it (absolute,
        // or `..` above it) is refused: a script never writes over other files.
        let Some(dir) = &self.output_dir else {
            return Ok(crate::journal::fields(json!({"bytes": bytes.len()})));
        };
        let path = match p.iter().find(|x| !x.starts_with('-')) {
            Some(named) => ad_compiler::paths::inside(dir, named).ok_or_else(|| {
                let mut f = Fail::new(
                    "INVALID_ARGS",
                    format!("screenshot path {named} is outside the run's artifacts folder"),
                )
                .hint("name the file relative to the artifacts folder (`shots/login.png`); `ad check` reports such paths as AD735")
                .reason("artifact_path_outside");
                // A script error, not a screen that diverged: no divergence report.
                f.bare = true;
                f
            })?,
            None => dir.join(format!("screenshot-{:03}.png", self.screenshots)),
        };
        if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
            let _ = std::fs::create_dir_all(parent);
        }
        std::fs::write(&path, &bytes).map_err(|e| {
            Fail::new(
                "COMMAND_FAILED",
                format!("could not write {}: {e}", path.display()),
            )
        })?;
        Ok(crate::journal::fields(
            json!({"path": path.display().to_string(), "bytes": bytes.len()}),
        ))
    }

    /// Turns a step failure into the run error (with the divergence report).
    #[allow(clippy::too_many_arguments)]
    async fn failure(
        &mut self,
        fail: Fail,
        step: &Step,
        index: usize,
        line: usize,
        label: &str,
        plan: &Plan<'_>,
        digest: &str,
        opts: &RunOptions,
    ) -> RunError {
        let message = self.scope.redact(&format!(
            "Replay failed at step {index} ({label}): {}",
            fail.message
        ));
        if fail.bare {
            let msg = self.scope.redact(&fail.message);
            let _ = self.journal.append(
                "step_error",
                json!({"step": index, "line": line, "code": fail.code, "message": msg}),
            );
            return RunError {
                code: fail.code,
                message: msg,
                hint: fail.hint.map(|h| self.scope.redact(&h)),
                step: Some(index),
                line: Some(line),
                preflight: false,
                details: Value::Object(fail.details),
            };
        }
        // Capture the screen for the report (a binding failure already has it).
        let post = match &fail.binding {
            Some((_, tree)) => Ok(tree.clone()),
            None => self.observe("divergence").await,
        };
        // The divergence screen publishes its refs as a partial frame (ADR 0014).
        let generation = match &post {
            Ok(tree) => self.frames.activate(
                tree.clone(),
                FrameScope::Issued(divergence::issued_refs(tree)),
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
        let selector = match step.spec.map(|s| s.targeting) {
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
            policy: policy_for(&step.command, &raw),
            total_steps: plan.steps.len(),
            plan_digest: digest.to_string(),
            session_exists: true,
            resume_command: opts.resume_command.clone(),
        };
        let full = divergence::build(&input, &self.scope);
        let dir = self.journal.dir().map(std::path::Path::to_path_buf);
        let level = if opts.level.is_empty() {
            "default"
        } else {
            opts.level.as_str()
        };
        let report = divergence::cap(&full, level, &mut |v: &Value| {
            let d = dir.as_ref()?;
            let path = d.join("divergence-full.json");
            std::fs::write(&path, serde_json::to_vec_pretty(v).ok()?).ok()?;
            Some(path.display().to_string())
        });
        let _ = self.journal.append(
            "divergence",
            json!({"step": index, "line": line, "report": report}),
        );
        let mut details = fail.details;
        details.insert("replayPath".into(), opts.script_path.clone().into());
        details.insert("step".into(), index.into());
        details.insert("action".into(), step.command.clone().into());
        let mut pos = Value::from(raw);
        self.scope.redact_value(&mut pos);
        details.insert("positionals".into(), pos);
        details.insert("divergence".into(), report);
        let mut details = Value::Object(details);
        self.scope.redact_value(&mut details);
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

/// The subtree rooted at `root`, re-indexed (scoped snapshots issue their own refs).
fn subtree(s: &Snapshot, root: usize) -> Snapshot {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_hide_text() {
        let v = |s: &[&str]| s.iter().map(|x| x.to_string()).collect::<Vec<_>>();
        assert_eq!(
            action_label("fill", &v(&["label=\"Email\"", "x"])),
            "fill \"label=\\\"Email\\\"\" <text>"
        );
        assert_eq!(action_label("type", &v(&["hello"])), "type <text>");
        assert_eq!(action_label("click", &v(&["@e3"])), "click @e3");
        assert_eq!(action_label("click", &v(&["10", "20"])), "click 10 20");
        assert_eq!(
            action_label("fill", &v(&["10", "20", "t"])),
            "fill 10 20 <text>"
        );
    }
}
