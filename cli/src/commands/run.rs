//! `ad run FILE`: run one script on a device backend (the simulated device, or a web app in
//! headless Chromium), with live progress, a
//! divergence report on failure and a crash-safe run journal.

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};

use ad_grammar::Severity;
use ad_runtime::backends::web::LaunchConfig;
use ad_runtime::core::gate::{self, Refusal};
use ad_runtime::core::interp::{Plan, Progress, RunOptions, StepEnd, StepInfo};
use ad_runtime::core::vars;
use ad_runtime::session::authoring::handoff::{RunRequest, SaveScript};
use ad_runtime::session::{run_script, ScriptOutcome, SessionConfig};
use clap::{Args, ValueEnum};

use crate::files;
use crate::render::{human, CheckedFile};

pub const RUN_AFTER_HELP: &str = "\
Examples:
  ad run examples/login.ad -e PASSWORD=hunter2     run on the simulated device (app model from examples/apps)
  AD_VAR_PASSWORD=hunter2 ad run examples/login.ad the same, the secret taken from the environment
  ad run flow.ad --app apps/shop.json --json       pick the app model, print the structured result
  ad run flow.ad --from 5 --plan-digest 3f2a…      resume at step 5 (both values come from a divergence report)
  ad run handoff.ad --keep-session                 leave the session live (the terminal close is skipped)
  ad run examples/web/login.ad --backend web       drive a web app in headless Chromium (`ad doctor` checks it)
  ad run flow.ad --report-html report/             a static HTML report of the run: open report/index.html

Variables: -e KEY=VALUE > AD_VAR_KEY in the environment > `env KEY=…` in the script > built-ins
(AD_SESSION, AD_FILENAME, AD_PLATFORM, …). Injected values are shown as <var:NAME> everywhere.

Every run writes <artifacts-dir>/<run-id>/ (events.jsonl, observations/, run.json): see docs/run.md.

Before the first step, the run is refused (exit 2, nothing dispatched) when the ad.toml that
applies is broken, when `ad check` reports errors, or when a ${VAR} a step needs (from --from on)
has no value: every missing variable is listed with each use, and how to supply it.

Ctrl-C or SIGTERM stops the run before the next step (or poll of a wait): the journal's end,
run.json (exit_reason: interrupted) and the live session are still written; exit code 130. A
second Ctrl-C quits at once.

A backend that cannot start (no browser, agent-device not installed, a fixture folder or an app
model missing) is a set-up error: what is missing and how to fix it, as `ad doctor` says; no
divergence report, exit 2.

Exit codes: 0 the script passed; 1 the script failed (a step diverged, an assertion or a wait
failed); 2 usage, I/O, configuration or static errors, missing variables (nothing was run), or a
backend that could not start; 130 interrupted.";

#[derive(Args)]
#[command(after_help = RUN_AFTER_HELP)]
pub struct RunArgs {
    /// The script to run.
    file: PathBuf,
    /// Set a script variable (repeatable); overrides AD_VAR_* and `env` directives.
    #[arg(short = 'e', long = "env", value_name = "KEY=VALUE")]
    env: Vec<String>,
    /// Resume at step N (1-based, action lines only); requires --plan-digest.
    #[arg(long, value_name = "N", requires = "plan_digest")]
    from: Option<usize>,
    /// The plan digest the resume is checked against (`ad parse --digest`, or the divergence
    /// report's resume line); requires --from.
    #[arg(long, value_name = "SHA", requires = "from")]
    plan_digest: Option<String>,
    /// Skip the script's terminal `close` and leave the session live.
    #[arg(long)]
    keep_session: bool,
    /// Arm a repair transaction (docs/repair.md): every step is recorded with its evidence, a
    /// divergence holds the session live in ad's session daemon for `ad session …` and `--from`,
    /// and `ad session close` commits PATH (default: <basename>.healed.ad beside the script;
    /// --overwrite lets it replace an existing file, never the script).
    #[arg(long, value_name = "PATH", num_args = 0..=1, require_equals = true)]
    save_script: Option<Option<PathBuf>>,
    #[command(flatten)]
    backend: super::backend_args::BackendArgs,
    #[command(flatten)]
    devices: super::agent_device::DeviceArgs,
    /// The simulator's app model: a JSON file, or a model name found in an apps/ folder (default:
    /// the model whose "app" is the id the script opens, in apps/ beside the script or above it,
    /// or examples/apps).
    #[arg(long, value_name = "MODEL")]
    app: Option<PathBuf>,
    /// Print the structured result (JSON) on stdout instead of the summary.
    #[arg(long)]
    json: bool,
    /// Where run folders are written [default: `[run] artifacts-dir` of ad.toml, else
    /// ad-artifacts].
    #[arg(long, value_name = "DIR")]
    artifacts_dir: Option<PathBuf>,
    /// Session name (AD_SESSION); a session a run leaves live is kept, for `--from`, in the
    /// per-user state folder ($AD_STATE_DIR, else $XDG_STATE_HOME/ad or ~/.local/state/ad),
    /// owner-only, secure fields masked.
    #[arg(long, value_name = "NAME", default_value = "default")]
    session: String,
    /// Platform for the plan digest and AD_PLATFORM (default: the context header).
    #[arg(long)]
    platform: Option<String>,
    /// Target for the plan digest and AD_TARGET (default: the context header).
    #[arg(long)]
    target: Option<String>,
    /// Divergence report size.
    #[arg(long, value_enum, default_value_t = Level::Default)]
    level: Level,
    /// Run even though `ad check` reports errors (only errors agent-device itself would accept:
    /// useful to see how a run fails).
    #[arg(long)]
    force: bool,
    /// No live progress on stderr.
    #[arg(long, short = 'q')]
    quiet: bool,
    /// Write a static HTML report of the run into DIR (index.html and the script's page, with
    /// its steps, screenshots and divergence report): see docs/run.md.
    #[arg(long, value_name = "DIR")]
    report_html: Option<PathBuf>,
    /// Run a Maestro flow (YAML) with agent-device's Maestro engine semantics, as
    /// `agent-device replay FLOW.yaml --maestro` does (docs/maestro.md): selectors, waits,
    /// runFlow/repeat/retry and scripts on any backend, with the same journal and run folder.
    #[arg(long)]
    maestro: bool,
    /// With --maestro: let a runScript's http.post reach this machine (localhost only).
    #[arg(long, requires = "maestro")]
    allow_http: bool,
    #[command(flatten)]
    input: files::InputArgs,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Level {
    /// ≤ 8 KiB, no suggestion entries.
    Digest,
    /// ≤ 24 KiB.
    Default,
    /// ≤ 64 KiB.
    Full,
}

impl Level {
    fn word(self) -> &'static str {
        match self {
            Level::Digest => "digest",
            Level::Default => "default",
            Level::Full => "full",
        }
    }
}

/// Live progress on stderr: one line per finished step; on a terminal, the running step too.
pub struct StderrProgress {
    tty: bool,
}

impl StderrProgress {
    pub fn new() -> Self {
        StderrProgress {
            tty: std::io::stderr().is_terminal(),
        }
    }
}

impl Default for StderrProgress {
    fn default() -> Self {
        Self::new()
    }
}

fn shorten(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        s.to_string()
    } else {
        let mut t: String = s.chars().take(max.saturating_sub(1)).collect();
        t.push('…');
        t
    }
}

impl Progress for StderrProgress {
    fn step_start(&mut self, s: &StepInfo) {
        if self.tty {
            let mut e = std::io::stderr().lock();
            let _ = write!(
                e,
                "\r\x1b[K  … {}/{}  line {:<4} {}",
                s.index,
                s.total,
                s.line,
                shorten(&crate::render::escape_controls(&s.label), 70)
            );
            let _ = e.flush();
        }
    }
    fn step_end(&mut self, s: &StepInfo, end: &StepEnd) {
        let mark = match end.status {
            "ok" => "ok  ",
            "skipped" => "skip",
            _ => "FAIL",
        };
        let device = if end.device_ms > 0 {
            format!(", device +{} ms", end.device_ms)
        } else {
            String::new()
        };
        // What a passing read read (`get text`), redacted as the journal has it.
        let read = match (&end.note, end.status) {
            (Some(n), "ok") => format!(" → {}", shorten(&crate::render::escape_controls(n), 80)),
            _ => String::new(),
        };
        let mut e = std::io::stderr().lock();
        if self.tty {
            let _ = write!(e, "\r\x1b[K");
        }
        let _ = writeln!(
            e,
            "  {mark} {}/{}  line {:<4} {}  ({:.1} ms{device}){read}",
            s.index,
            s.total,
            s.line,
            shorten(&crate::render::escape_controls(&s.label), 70),
            end.wall_ms
        );
    }
}

/// Prints why the gate refused a script: its diagnostics as `ad check` renders them (ariadne),
/// then the one-line summary. Returns exit code 2 (nothing was run).
pub fn print_refusal(name: &str, text: &str, refusal: &Refusal) -> i32 {
    let colour = std::io::stderr().is_terminal();
    let mut buf = Vec::new();
    render_refusal(name, text, refusal, colour, &mut buf);
    let _ = std::io::stderr().write_all(&buf);
    crate::usage_error(&refusal.summary)
}

/// The refusal's diagnostics, rendered as `ad check` renders them.
pub fn render_refusal(name: &str, text: &str, refusal: &Refusal, colour: bool, out: &mut Vec<u8>) {
    let file = CheckedFile::new(
        name.to_string(),
        text.to_string(),
        refusal.diagnostics.clone(),
    );
    for d in &file.diagnostics {
        human::render(&file, d, colour, out);
    }
}

/// A backend that could not start: what is missing and how to fix it (`ad doctor`'s words), and
/// the step that needed it when one did; no divergence, no resume (nothing diverged).
pub fn render_setup(problem: &ad_runtime::core::records::SetupProblem, at: Option<&str>) -> String {
    let mut out = format!(
        "error[{}]: the {} backend cannot start: {}\n",
        ad_runtime::core::records::SetupProblem::CODE,
        problem.backend,
        problem.problem
    );
    if let Some(at) = at {
        out.push_str(&format!("  --> {at}\n"));
    }
    if let Some(fix) = &problem.fix {
        out.push_str(&format!("  help: {fix}\n"));
    }
    out.push_str("  note: the environment lacks what the backend needs (the script did not fail); `ad doctor` checks every backend\n");
    out
}

/// A `fragment-v1` file run on its own: it has no `open` and its values come from a parent, so
/// it runs only inside a composition; the compositions of the project that include it are named.
/// `--maestro`: the flow runs on the Maestro engine; what only an `.ad` run has is refused.
fn run_maestro(args: &RunArgs) -> i32 {
    let refused = [
        (args.from.is_some(), "--from: a Maestro flow runs from its first command"),
        (args.keep_session, "--keep-session is supported only for native .ad replay; Maestro YAML owns its lifecycle"),
        (args.save_script.is_some(), "--save-script: Maestro YAML does not support repair recording (ADR 0012)"),
        (args.force, "--force: a flow agent-device refuses cannot run"),
        (args.backend.record_fixture.is_some(), "--record-fixture: recording a Maestro run into a fixture is not available yet; record the .ad script instead"),
    ];
    if let Some((_, why)) = refused.iter().find(|(given, _)| *given) {
        return crate::usage_error(why);
    }
    let state_dir = match ad_runtime::session::default_state_dir() {
        Ok(d) => d,
        Err(e) => return crate::usage_error(&e.0),
    };
    let mut session = SessionConfig {
        app_model: args.app.clone(),
        artifacts_root: artifacts_dir(args.artifacts_dir.as_deref(), &args.file),
        state_dir,
        ..SessionConfig::default()
    };
    args.backend.apply(&mut session);
    session.agent_device = args.devices.bridge();
    session.default_backend = ad_runtime::backends::project_default(&args.file)
        .ok()
        .flatten();
    if let Err(e) = args.backend.prepare_outputs(args.report_html.as_deref()) {
        return crate::usage_error(&e);
    }
    super::maestro_run::run(
        &args.file,
        super::maestro_run::MaestroRun {
            env: &args.env,
            session,
            session_name: args.session.clone(),
            platform: args.platform.clone(),
            target: args.target.clone(),
            json: args.json,
            quiet: args.quiet,
            allow_http: args.allow_http,
        },
        args.report_html.as_deref(),
    )
}

fn refuse_fragment(path: &std::path::Path, name: &str) -> i32 {
    let parents = super::compose::compositions_including(path);
    let code = crate::usage_error(&format!(
        "{name} is a fragment (`fragment-v1`): it runs only inside a composition that includes it"
    ));
    if parents.is_empty() {
        eprintln!(
            "  help: no composition of this project includes it; include it from a `composition-v1` script (docs/composition.md) and run that"
        );
    } else {
        let runs: Vec<String> = parents.iter().map(|p| format!("`ad run {p}`")).collect();
        eprintln!(
            "  help: run a composition that includes it: {}",
            crate::render::escape_controls(&runs.join(", "))
        );
    }
    code
}

/// `path:line` and the line's text, for failure headers.
fn source_excerpt(text: &str, line: usize) -> String {
    text.split('\n')
        .nth(line.saturating_sub(1))
        .map(|l| l.trim_end_matches('\r').to_string())
        .unwrap_or_default()
}

pub fn run(args: RunArgs) -> i32 {
    if args.maestro {
        return run_maestro(&args);
    }
    let source = match files::read(&args.file, &args.input) {
        Ok(s) => s,
        Err(e) => return crate::usage_error(&e.0),
    };
    if ad_compiler::compose::kind_of(&source.text) == ad_compiler::compose::ScriptKind::Fragment {
        return refuse_fragment(&args.file, &source.name);
    }
    let cli_env = match vars::parse_cli_entries(&args.env) {
        Ok(v) => v,
        Err(e) => return crate::usage_error(&e),
    };
    let shell_env = vars::shell_imports(std::env::vars());
    // A composition runs as its expansion; each step keeps its source file, line and includes.
    let mut source = source;
    let expanded = if super::compose::is_composed(&source.text) {
        let supplied = cli_env.iter().chain(&shell_env).map(|(k, _)| k.clone());
        match super::compose::expand_for_run(
            &args.file,
            &source.text,
            supplied.collect(),
            args.input.max_file_size,
        ) {
            Ok(e) => {
                source.text = e.composition.flattened.clone();
                Some(e)
            }
            Err(code) => return code,
        }
    } else {
        None
    };
    let analysis = match gate::analyze(&args.file, &source.name, &source.text, args.force) {
        Ok(a) => a,
        Err(refusal) => return print_refusal(&source.name, &source.text, &refusal),
    };
    if analysis.has_errors() {
        eprintln!(
            "warning: running despite {} static error(s) (--force)",
            analysis
                .diagnostics
                .iter()
                .filter(|d| d.severity == Severity::Error)
                .count()
        );
    }
    let plan = Plan {
        steps: analysis.steps(),
        metadata: analysis.metadata(),
    };
    let mut options = RunOptions {
        script_path: source.name.clone(),
        cli_env,
        shell_env,
        from: args.from,
        plan_digest: args.plan_digest.clone(),
        keep_session: args.keep_session,
        session: args.session.clone(),
        platform: args.platform.clone(),
        target: args.target.clone(),
        level: args.level.word().into(),
        device: args.devices.device.clone(),
        sources: expanded
            .as_ref()
            .map(|e| e.sources.clone())
            .unwrap_or_default(),
        ..RunOptions::default()
    };
    if let Err(refusal) = gate::missing_variables(&analysis, &source.name, &options) {
        return print_refusal(&source.name, &source.text, &refusal);
    }
    let state_dir = match ad_runtime::session::default_state_dir() {
        Ok(d) => d,
        Err(e) => return crate::usage_error(&e.0),
    };
    let mut session = SessionConfig {
        app_model: args.app.clone(),
        artifacts_root: artifacts_dir(args.artifacts_dir.as_deref(), &args.file),
        persist_session: true,
        state_dir,
        no_journal: false,
        ..SessionConfig::default()
    };
    args.backend.apply(&mut session);
    session.agent_device = args.devices.bridge();
    if let Err(e) = args.backend.prepare_outputs(args.report_html.as_deref()) {
        return crate::usage_error(&e);
    }
    // Ctrl-C / SIGTERM stop the run at the next step and still write the journal's end.
    ad_runtime::core::interrupt::install();
    let mut quiet = ad_runtime::core::interp::Quiet;
    let mut live = StderrProgress::new();
    let progress: &mut dyn Progress = if args.quiet || args.json {
        &mut quiet
    } else {
        &mut live
    };
    // A run whose session outlives it (no `close`, or --keep-session) runs in the session
    // daemon, which keeps its live session for `ad session …`.
    let kind = match ad_runtime::session::backend_kind(&plan, &args.file, &session) {
        Ok(k) => k,
        Err(e) => return crate::usage_error(&e.0),
    };
    // A divergence report's resume (and re-run) command chooses this backend and device again.
    options.resume_command = super::backend_args::RunChoice {
        backend: &args.backend,
        devices: &args.devices,
        kind: Some(kind),
        app: args.app.as_deref(),
        session: Some(&args.session),
        platform: args.platform.as_deref(),
        target: args.target.as_deref(),
    }
    .resume_command(&source.name);
    // An agent-device run that would start its own agent-device daemon runs there too: that
    // daemon ends with the process that started it, so when the run diverges the session
    // daemon keeps its bridge (the daemon, the device session, the app) for the resume the
    // report offers. (A daemon `ad` attaches to keeps the device session itself.)
    // A repair-armed run, or one of a session holding a repair, runs in the daemon too.
    let repairing = args.save_script.is_some()
        || ad_runtime::session::authoring::repair::routes_to_daemon(
            &session.state_dir,
            &args.session,
        );
    let in_daemon = repairing
        || ad_runtime::session::is_handoff(&plan, &options)
        || (kind == ad_runtime::backends::BackendKind::AgentDevice
            && !args.keep_session
            && session.agent_device.starts_own_daemon());
    let mut ran = None;
    if in_daemon {
        let abs = |p: &Path| std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf());
        let request = RunRequest {
            script: abs(&args.file),
            text: source.text.clone(),
            options: options.clone(),
            app_model: session.app_model.as_deref().map(abs),
            artifacts_root: abs(&session.artifacts_root),
            backend: kind.name().into(),
            web: LaunchConfig {
                executable: session.web.executable.as_deref().map(abs),
                ..session.web.clone()
            },
            record_fixture: session.record_fixture.as_deref().map(abs),
            recorded: session.recorded.as_deref().map(abs),
            agent_device: (kind == ad_runtime::backends::BackendKind::AgentDevice)
                .then(|| session.agent_device.resolved()),
            // The daemon's own environment is whichever `ad` started it: the run reads and
            // starts its browser or agent-device in this one, and writes under this umask.
            env: ad_runtime::core::environment::Environment::capture(),
            save_script: args.save_script.as_ref().map(|p| SaveScript {
                path: p.as_deref().map(abs),
                // --overwrite: the healed script may replace an existing file (never the script).
                overwrite: args.backend.overwrite,
            }),
        };
        match super::session::run_in_daemon(request, progress) {
            Err(e) | Ok(Some(Err(e))) => return crate::usage_error(&e),
            Ok(Some(Ok(reply))) => {
                ran = Some(ScriptOutcome {
                    result: reply.result,
                    run_dir: reply.run_dir,
                    session_file: reply.session_file,
                    backend: kind,
                })
            }
            Ok(None) if repairing => {
                return crate::usage_error(
                    "no session daemon could be started, and a repair (--save-script) is held there",
                )
            }
            Ok(None) => eprintln!(
                "warning: no session daemon could be started: the run's live session ends with it (the sim's is kept for --from)"
            ),
        }
    }
    let in_daemon = ran.is_some();
    let outcome = match ran {
        Some(o) => o,
        None => match run_script(&plan, &args.file, &options, &session, progress) {
            Ok(o) => o,
            Err(e) => return crate::usage_error(&e.0),
        },
    };
    let r = &outcome.result;
    let mut html_failed = false;
    if let Some(dir) = &args.report_html {
        if let Err(e) = write_html_report(dir, &source.name, &source.text, &outcome) {
            eprintln!("error: cannot write the HTML report {}: {e}", dir.display());
            html_failed = true;
        }
    }
    let journal = outcome
        .run_dir
        .as_ref()
        .map(|d| d.display().to_string())
        .unwrap_or_default();
    if args.json {
        let mut record = r.record();
        record.run_dir = Some(journal.clone());
        // Per-step timings come from the journal the run wrote, as the HTML report's do.
        record.steps = outcome
            .run_dir
            .as_deref()
            .map(|d| {
                ad_runtime::core::records::result::step_timings(
                    &crate::render::html::AttemptRecords::load(d).events,
                )
            })
            .unwrap_or_default();
        record.session_file = outcome
            .session_file
            .as_ref()
            .map(|f| f.display().to_string());
        println!(
            "{}",
            serde_json::to_string_pretty(&record).unwrap_or_default()
        );
    }
    match &r.error {
        None => {
            if !args.json {
                let device = format!("{:.1} s device time", r.device_ms as f64 / 1000.0);
                println!(
                    "ok: {} — {} step(s) replayed in {:.0} ms ({device}); journal {journal}",
                    source.name, r.replayed, r.wall_ms
                );
                // What a passing run still has to say (a completed repair waits for `ad session
                // close` to commit it), as a failing run's warnings are printed.
                for w in &r.warnings {
                    eprintln!("warning: {}", crate::render::escape_controls(w));
                }
                // A live session is in the session daemon (or kept in a file for `--from`).
                if r.session_active && (in_daemon || outcome.session_file.is_some()) {
                    let loc = &r.location;
                    let named = |k: &str| loc.get(k).and_then(|s| s.as_str());
                    // Only what the backend knows: the sim's screen, else the window title the
                    // last capture showed (agent-device's desktop), else nothing.
                    let place = match (named("screen"), named("window")) {
                        (Some(s), _) => format!(" on screen \"{s}\""),
                        (None, Some(w)) => format!(" in window \"{w}\""),
                        (None, None) => String::new(),
                    };
                    let app = named("app").unwrap_or("no app");
                    let kept = outcome
                        .session_file
                        .as_ref()
                        .map(|f| format!(", kept in {}", f.display()))
                        .unwrap_or_else(|| {
                            format!("; continue it with `ad session --session {} …`", r.session)
                        });
                    // The window title and the app come from the device: escaped.
                    println!(
                        "{}",
                        crate::render::escape_controls(&format!(
                            "session \"{}\" is still active: {app}{place}{kept}",
                            r.session
                        ))
                    );
                }
            }
        }
        Some(e) if e.is_interrupted() => {
            if !args.json {
                eprintln!(
                    "error[INTERRUPTED]: {}",
                    crate::render::escape_controls(&e.message)
                );
                if let Some(h) = &e.hint {
                    eprintln!("  help: {}", crate::render::escape_controls(h));
                }
                eprintln!(
                    "interrupted: {} — {} of {} step(s) replayed; journal {journal}",
                    source.name, r.replayed, r.total
                );
            }
        }
        Some(e) if e.setup().is_some() => {
            if let (false, Some(problem)) = (args.json, e.setup()) {
                let at =
                    e.line.map(
                        |line| match expanded.as_ref().and_then(|x| x.describe(line)) {
                            Some(at) => format!("{at} (plan line {line})"),
                            None => format!("{}:{line}", source.name),
                        },
                    );
                eprint!("{}", render_setup(problem, at.as_deref()));
            }
        }
        Some(e) if e.preflight => {
            if !args.json {
                eprintln!(
                    "error[{}]: {}",
                    e.code,
                    crate::render::escape_controls(&e.message)
                );
                if let Some(h) = &e.hint {
                    eprintln!("  help: {}", crate::render::escape_controls(h));
                }
            }
        }
        Some(e) => {
            if !args.json {
                let code = e.public_code();
                let mut err = std::io::stderr().lock();
                let _ = writeln!(
                    err,
                    "error[{code}]: {}",
                    crate::render::escape_controls(&e.message)
                );
                if let Some(line) = e.line {
                    match expanded.as_ref().and_then(|x| x.describe(line)) {
                        Some(at) => {
                            let _ = writeln!(err, "  --> {at} (plan line {line})");
                        }
                        None => {
                            let _ = writeln!(err, "  --> {}:{line}", source.name);
                        }
                    }
                    let _ = writeln!(
                        err,
                        "   | {}",
                        crate::render::escape_controls(&source_excerpt(&source.text, line))
                    );
                }
                if let Some(h) = &e.hint {
                    let _ = writeln!(err, "  help: {}", crate::render::escape_controls(h));
                }
                if let Some(d) = e.divergence() {
                    let _ = writeln!(err);
                    let _ = writeln!(
                        err,
                        "{}",
                        crate::render::divergence::render(d, &options.resume_command)
                    );
                }
                let _ = writeln!(err);
                for w in &r.warnings {
                    let _ = writeln!(err, "warning: {}", crate::render::escape_controls(w));
                }
                let _ = writeln!(
                    err,
                    "failed: {} — {} of {} step(s) replayed; journal {journal}",
                    source.name, r.replayed, r.total
                );
            }
        }
    }
    // 0 passed, 1 failed, 2 refused before any step, 130 interrupted (the run's own verdict);
    // a passed run whose report could not be written is a usage/I/O error.
    match r.exit().0 {
        0 if html_failed => 2,
        code => code,
    }
}

/// The HTML report of one run: a suite of one script, built from its run folder.
fn write_html_report(
    dir: &std::path::Path,
    name: &str,
    text: &str,
    outcome: &ad_runtime::session::ScriptOutcome,
) -> std::io::Result<()> {
    use ad_runtime::core::records::suite::{
        Attempt, ScriptReport, Status, SuiteCounts, SuiteReport,
    };
    let r = &outcome.result;
    let e = r.error.as_ref();
    let status = match e {
        None => Status::Passed,
        Some(e) if e.setup().is_some() => Status::Error,
        Some(_) => Status::Failed,
    };
    let attempt = Attempt {
        ok: r.ok,
        code: e.map(|e| e.public_code().to_string()),
        kind: e.and_then(|e| e.divergence()).map(|d| d.kind),
        message: e.map(|e| e.message.clone()),
        step: e.and_then(|e| e.step),
        line: e.and_then(|e| e.line),
        replayed: r.replayed,
        total: r.total,
        run_dir: outcome.run_dir.as_ref().map(|d| d.display().to_string()),
        wall_ms: r.wall_ms,
        device_ms: r.device_ms,
        setup: e.and_then(|e| e.setup()).cloned(),
    };
    let suite = SuiteReport {
        version: 1,
        summary: SuiteCounts {
            total: 1,
            passed: usize::from(r.ok),
            flaky: 0,
            failed: usize::from(status == Status::Failed),
            invalid: 0,
            errors: usize::from(status == Status::Error),
            skipped: 0,
            filtered: 0,
            other_shards: 0,
            ok: r.ok,
            wall_ms: r.wall_ms,
        },
        scripts: vec![ScriptReport {
            path: name.to_string(),
            status,
            skip_reason: None,
            retries_allowed: 0,
            timeout_ms: None,
            refused: None,
            static_errors: Vec::new(),
            attempts: vec![attempt],
            wall_ms: r.wall_ms,
        }],
    };
    let texts = [(name.to_string(), text.to_string())].into_iter().collect();
    let scripts = crate::render::html::load(&suite, &texts);
    crate::render::html::build("ad run", &suite, &scripts).write(dir)
}

/// The folder run folders go into: `--artifacts-dir`, else `[run] artifacts-dir` of the
/// `ad.toml` that applies to `near` (a script or a suite's folder), else `ad-artifacts`.
pub fn artifacts_dir(given: Option<&std::path::Path>, near: &std::path::Path) -> PathBuf {
    given.map(PathBuf::from).unwrap_or_else(|| {
        ad_compiler::config::Config::discover(near)
            .ok()
            .and_then(|c| c.run_artifacts_dir)
            .unwrap_or_else(|| PathBuf::from(ad_compiler::config::DEFAULT_ARTIFACTS_DIR))
    })
}
