//! `ad run FILE`: run one script on a device backend (the simulated device, or a web app in
//! headless Chromium), with live progress, a
//! divergence report on failure and a crash-safe run journal.

use std::path::{Path, PathBuf};

use ad_compiler::check_file::{self, Checked, ScriptKind};
use ad_compiler::config::Config;
use ad_grammar::Severity;
use ad_runtime::backends::web::LaunchConfig;
use ad_runtime::core::gate;
use ad_runtime::core::interp::{Plan, Progress, RunOptions};
use ad_runtime::core::vars;
use ad_runtime::session::authoring::handoff::{RunRequest, SaveScript};
use ad_runtime::session::{run_script, ScriptOutcome, SessionConfig};
use clap::{Args, ValueEnum};

use super::backend_args::artifacts_dir_in;
use crate::files;
use crate::render::progress::StderrProgress;
use crate::render::refusal::print_refusal;
use crate::render::run as run_report;

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

/// `--maestro`: the flow runs on the Maestro engine; what only an `.ad` run has is refused.
fn run_maestro(args: &RunArgs) -> i32 {
    let refused = [
        (args.from.is_some(), "--from: a Maestro flow runs from its first command"),
        (args.keep_session, "--keep-session is supported only for native .ad replay; Maestro YAML owns its lifecycle"),
        (args.save_script.is_some(), "--save-script: Maestro YAML does not support repair recording (ADR 0012)"),
        (args.force, "--force: a flow agent-device refuses cannot run"),
    ];
    if let Some((_, why)) = refused.iter().find(|(given, _)| *given) {
        return crate::usage_error(why);
    }
    let state_dir = match ad_runtime::session::default_state_dir() {
        Ok(d) => d,
        Err(e) => return crate::usage_error(&e.0),
    };
    // The flow's ad.toml, read once: the artifacts folder and the project's default backend.
    let project = check_file::discover_config(&args.file).ok();
    let mut session = SessionConfig {
        app_model: args.app.clone(),
        artifacts_root: artifacts_dir_in(args.artifacts_dir.as_deref(), project.as_ref()),
        state_dir,
        ..SessionConfig::default()
    };
    args.backend.apply(&mut session);
    session.agent_device = args.devices.bridge();
    // Not found (or refused by the factory): left for the run to read and report.
    session.default_backend = project
        .as_ref()
        .and_then(|c| ad_runtime::backends::project_default(c).ok().flatten())
        .map(Some);
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

/// A `fragment-v1` file run on its own: it has no `open` and its values come from a parent, so
/// it runs only inside a composition; the compositions of the project that include it are named.
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

pub fn run(args: RunArgs) -> i32 {
    if args.maestro {
        return run_maestro(&args);
    }
    let gated = match read_and_gate(&args) {
        Ok(g) => g,
        Err(code) => return code,
    };
    let plan = Plan {
        steps: gated.analysis.steps(),
        metadata: gated.analysis.metadata(),
    };
    let mut options = run_options(&args, &gated);
    if let Err(refusal) = gate::missing_variables(&gated.analysis, &gated.name, &options) {
        return print_refusal(&gated.name, gated.text(), &refusal);
    }
    let mut session = match session_config(&args, &gated.config) {
        Ok(s) => s,
        Err(code) => return code,
    };
    // Ctrl-C / SIGTERM stop the run at the next step and still write the journal's end.
    ad_runtime::core::interrupt::install();
    let mut quiet = ad_runtime::core::interp::Quiet;
    let mut live = StderrProgress::new();
    let progress: &mut dyn Progress = if args.quiet || args.json {
        &mut quiet
    } else {
        &mut live
    };
    if session.backend.is_none() {
        // The project's default backend, from the run's one ad.toml: the run never reads it
        // again.
        match ad_runtime::backends::project_default(&gated.config) {
            Ok(default) => session.default_backend = Some(default),
            Err(e) => return crate::usage_error(&e),
        }
    }
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
    .resume_command(&gated.name);
    let (outcome, in_daemon) =
        match execute(&args, &gated, &plan, &options, &session, kind, progress) {
            Ok(ran) => ran,
            Err(code) => return code,
        };
    let mut html_failed = false;
    if let Some(dir) = &args.report_html {
        let report = run_report::write_html(dir, &gated.name, gated.text(), &outcome);
        if let Err(e) = report {
            eprintln!("error: cannot write the HTML report {}: {e}", dir.display());
            html_failed = true;
        }
    }
    run_report::print(
        &run_report::Shown {
            name: &gated.name,
            text: gated.text(),
            expanded: gated.expanded.as_ref(),
            resume_command: &options.resume_command,
            in_daemon,
            json: args.json,
        },
        &outcome,
    );
    // 0 passed, 1 failed, 2 refused before any step, 130 interrupted (the run's own verdict);
    // a passed run whose report could not be written is a usage/I/O error.
    match outcome.result.exit().0 {
        0 if html_failed => 2,
        code => code,
    }
}

/// A script read, expanded when it is a composition, and past the static gate.
struct Gated {
    /// The script's name as shown.
    name: String,
    /// The `ad.toml` that applies, read once for the whole run.
    config: Config,
    /// A composition's expansion: each plan line's source file, line and includes.
    expanded: Option<super::compose::Expanded>,
    /// The analysis of the text that runs (a composition's expansion), which it holds.
    analysis: ad_compiler::Analysis,
    cli_env: Vec<(String, String)>,
    shell_env: Vec<(String, String)>,
}

impl Gated {
    /// The text that runs: the script's, or a composition's expansion.
    fn text(&self) -> &str {
        self.analysis.text()
    }
}

/// Reads the script, checks it through the one entry (`ad_compiler::check_file`: a composition
/// is expanded and runs as its expansion) and passes it through the static gate; `Err` is the
/// exit code of a refusal already printed.
fn read_and_gate(args: &RunArgs) -> Result<Gated, i32> {
    // The one lookup of the ad.toml for this run: the cap, the composition, the gate, the
    // backend's project default and the artifacts folder all take what it found.
    let project = check_file::discover_config(&args.file);
    let limit = args
        .input
        .limit_in(&project)
        .map_err(|e| crate::usage_error(&e.0))?;
    let source = files::read_with_limit(&args.file, limit).map_err(|e| crate::usage_error(&e.0))?;
    let kind = check_file::kind_of(&source.text);
    if kind == ScriptKind::Fragment {
        return Err(refuse_fragment(&args.file, &source.name));
    }
    let cli_env = vars::parse_cli_entries(&args.env).map_err(|e| crate::usage_error(&e))?;
    let shell_env = vars::shell_imports(std::env::vars());
    let config = match project {
        Ok(config) => config,
        // Not said yet only when --max-file-size spared the read its lookup.
        Err(e) if kind != ScriptKind::Plain => return Err(crate::usage_error(&e.0)),
        Err(e) => {
            let refusal = gate::config_refusal(&e, &source.text);
            return Err(print_refusal(&source.name, &source.text, &refusal));
        }
    };
    let options = check_file::Options {
        max_file_size: args.input.max_file_size,
        supplied: cli_env
            .iter()
            .chain(&shell_env)
            .map(|(k, _)| k.clone())
            .collect(),
        dispatch_notes: false,
    };
    let name = source.name.clone();
    let check =
        check_file::check_decoded(Some(&args.file), source.into_decoded(), config, &options);
    let config = check.config;
    let (expanded, analysis) = match check.checked {
        Checked::Composed(composition) => {
            let e = super::compose::expansion(&args.file, composition)
                .map_err(super::compose::print_composition_refusal)?;
            let text = &e.composition.flattened;
            let analysis = gate::analyze(&config, &name, text, args.force)
                .map_err(|refusal| print_refusal(&name, text, &refusal))?;
            (Some(e), analysis)
        }
        Checked::Plain(analysis) => {
            gate::refuse_static_errors(&analysis, &name, args.force)
                .map_err(|refusal| print_refusal(&name, analysis.text(), &refusal))?;
            (None, analysis)
        }
        Checked::NotRead => unreachable!("read above, through the cap"),
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
    Ok(Gated {
        name,
        config,
        expanded,
        analysis,
        cli_env,
        shell_env,
    })
}

/// The interpreter's options for this run, from the command line and the gated script.
fn run_options(args: &RunArgs, gated: &Gated) -> RunOptions {
    RunOptions {
        script_path: gated.name.clone(),
        cli_env: gated.cli_env.clone(),
        shell_env: gated.shell_env.clone(),
        from: args.from,
        plan_digest: args.plan_digest.clone(),
        keep_session: args.keep_session,
        session: args.session.clone(),
        platform: args.platform.clone(),
        target: args.target.clone(),
        level: args.level.word().into(),
        device: args.devices.device.clone(),
        sources: gated
            .expanded
            .as_ref()
            .map(|e| e.sources.clone())
            .unwrap_or_default(),
        ..RunOptions::default()
    }
}

/// Where and on what the script runs: app model, artifacts, state folder, backend and bridge,
/// under the run's `ad.toml` (`project`).
fn session_config(args: &RunArgs, project: &Config) -> Result<SessionConfig, i32> {
    let state_dir =
        ad_runtime::session::default_state_dir().map_err(|e| crate::usage_error(&e.0))?;
    let mut session = SessionConfig {
        app_model: args.app.clone(),
        artifacts_root: artifacts_dir_in(args.artifacts_dir.as_deref(), Some(project)),
        persist_session: true,
        state_dir,
        no_journal: false,
        ..SessionConfig::default()
    };
    args.backend.apply(&mut session);
    session.agent_device = args.devices.bridge();
    args.backend
        .prepare_outputs(args.report_html.as_deref())
        .map_err(|e| crate::usage_error(&e))?;
    Ok(session)
}

/// Runs the plan, in the session daemon when its live session must outlive the run, else in
/// this process; also says whether it ran in the daemon.
fn execute(
    args: &RunArgs,
    gated: &Gated,
    plan: &Plan<'_>,
    options: &RunOptions,
    session: &SessionConfig,
    kind: ad_runtime::backends::BackendKind,
    progress: &mut dyn Progress,
) -> Result<(ScriptOutcome, bool), i32> {
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
        || ad_runtime::session::is_handoff(plan, options)
        || (kind == ad_runtime::backends::BackendKind::AgentDevice
            && !args.keep_session
            && session.agent_device.starts_own_daemon());
    let mut ran = None;
    if in_daemon {
        let abs = |p: &Path| std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf());
        let request = RunRequest {
            script: abs(&args.file),
            text: gated.text().to_string(),
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
            Err(e) | Ok(Some(Err(e))) => return Err(crate::usage_error(&e)),
            Ok(Some(Ok(reply))) => {
                ran = Some(ScriptOutcome {
                    result: reply.result,
                    run_dir: reply.run_dir,
                    session_file: reply.session_file,
                    backend: kind,
                })
            }
            Ok(None) if repairing => {
                return Err(crate::usage_error(
                    "no session daemon could be started, and a repair (--save-script) is held there",
                ))
            }
            Ok(None) => eprintln!(
                "warning: no session daemon could be started: the run's live session ends with it (the sim's is kept for --from)"
            ),
        }
    }
    let in_daemon = ran.is_some();
    let outcome = match ran {
        Some(o) => o,
        None => run_script(plan, &args.file, options, session, progress)
            .map_err(|e| crate::usage_error(&e.0))?,
    };
    Ok((outcome, in_daemon))
}
