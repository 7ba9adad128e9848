//! Running one script end to end on its backend (the factory in [`crate::backends`]): model
//! lookup, the run journal, and the live session a sim run leaves behind (handoff scripts,
//! `--keep-session`, divergences), which `--from N --plan-digest SHA` resumes.
//!
//! A live session is the device's state, not a log: it is kept in a per-user state folder
//! ([`default_state_dir`], folders 0700, files 0600), never in `--artifacts-dir` (which CI systems
//! upload), with secure fields masked as the device shows them and injected values redacted from
//! what the screen does not show (the clipboard, the last action).

use std::path::{Path, PathBuf};

use crate::backends::{self, BackendKind, BackendSetup};
use crate::interp::{self, Plan, Progress, RunOptions, RunResult};
use crate::journal::Journal;
use crate::sim::{ModelResolver, Sim};
use crate::web::LaunchConfig;

/// Where and how a script runs.
#[derive(Debug, Clone, Default)]
pub struct SessionConfig {
    /// `--app MODEL`: a model file (or a model name looked up in the apps folders).
    pub app_model: Option<PathBuf>,
    /// `--artifacts-dir`: run folders are created inside it.
    pub artifacts_root: PathBuf,
    /// Keep the live session on disk for a later `--from` resume.
    pub persist_session: bool,
    /// The per-user state folder live sessions are kept in (`<state>/sessions/<name>.json`).
    pub state_dir: PathBuf,
    /// Journal in memory only (benchmarks and tests); no run folder is created.
    pub no_journal: bool,
    /// `--backend`, when given (else the script's `context platform=web`, else
    /// [`SessionConfig::default_backend`], else the sim).
    pub backend: Option<BackendKind>,
    /// The project's default backend (`ad.toml` `[run] backend`).
    pub default_backend: Option<BackendKind>,
    /// How the web backend launches its browser.
    pub web: LaunchConfig,
    /// How the agent-device bridge reaches its daemon and picks the device.
    pub agent_device: crate::agent_device::BridgeConfig,
    /// `--record-fixture DIR`: record the run's backend calls there (docs/recorded.md).
    pub record_fixture: Option<PathBuf>,
    /// `--backend recorded:DIR`: the fixture folder to replay.
    pub recorded: Option<PathBuf>,
}

/// What running a script produced.
pub struct ScriptOutcome {
    pub result: RunResult,
    /// `<artifacts>/<run-id>/`.
    pub run_dir: Option<PathBuf>,
    /// The saved live session, if the run left one.
    pub session_file: Option<PathBuf>,
    /// The backend the script ran on.
    pub backend: BackendKind,
}

/// The run's journal (in memory, or a new run folder under the artifacts root), its folder, and
/// the run options pointing outputs and artifacts at that folder unless the user chose others.
pub(crate) fn open_journal(
    config: &SessionConfig,
    options: &RunOptions,
) -> Result<(Journal, Option<PathBuf>, RunOptions), SetupError> {
    let journal = if config.no_journal {
        Journal::memory(&options.session)
    } else {
        Journal::create(&config.artifacts_root, &options.session).map_err(|e| {
            SetupError(format!(
                "cannot create a run folder in {}: {e} (pass --artifacts-dir DIR)",
                config.artifacts_root.display()
            ))
        })?
    };
    let run_dir = journal.dir().map(Path::to_path_buf);
    let mut opts = options.clone();
    if opts.output_dir.is_none() {
        opts.output_dir = run_dir.clone();
    }
    if opts.artifacts.is_none() {
        opts.artifacts = run_dir.as_ref().map(|d| d.display().to_string());
    }
    Ok((journal, run_dir, opts))
}

/// The per-user state folder: `$AD_STATE_DIR`, else `$XDG_STATE_HOME/ad`, else
/// `~/.local/state/ad`, else a per-user folder under the system temp folder.
pub fn default_state_dir() -> PathBuf {
    let var = |k: &str| {
        std::env::var_os(k)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    if let Some(d) = var("AD_STATE_DIR") {
        return d;
    }
    if let Some(d) = var("XDG_STATE_HOME") {
        return d.join("ad");
    }
    if let Some(home) = var("HOME") {
        return home.join(".local/state/ad");
    }
    let user = std::env::var("USER").unwrap_or_else(|_| "user".into());
    std::env::temp_dir().join(format!("ad-state-{user}"))
}

/// The file a live sim session is kept in.
pub fn session_file(state_dir: &Path, session: &str) -> PathBuf {
    let safe: String = session
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' || c == '.' {
                c
            } else {
                '_'
            }
        })
        .collect();
    state_dir.join("sessions").join(format!("{safe}.json"))
}

/// Loads the `--app` model and the model of every app the plan opens by a literal name (one with
/// a `${VAR}` is resolved when it runs).
fn preflight_models(
    resolver: &ModelResolver,
    plan: &Plan<'_>,
) -> Result<(), crate::sim::ModelError> {
    if resolver.explicit.is_some() {
        resolver.resolve("")?;
        return Ok(());
    }
    let opened = plan
        .steps
        .iter()
        .filter(|s| s.action() == Some(ad_compiler::registry::Action::Open))
        .filter_map(|s| s.positionals.first())
        .map(|a| a.value.as_str())
        .filter(|app| !app.contains("://") && !ad_grammar::placeholder::has_dollar_brace(app));
    for app in opened {
        resolver.resolve(app)?;
    }
    Ok(())
}

/// Does the run start after step 1 of `plan` (a valid `--from N` with N > 1)? An invalid resume is
/// left to the interpreter, which refuses it with the exact reason.
pub(crate) fn resumes_mid_plan(plan: &Plan<'_>, options: &RunOptions) -> bool {
    let digest = ad_compiler::digest::plan_digest(
        plan.steps,
        plan.metadata,
        &ad_compiler::digest::DigestOptions {
            platform: options.platform.clone(),
            target: options.target.clone(),
        },
    );
    interp::resume_preflight(options, &digest, plan.steps.len()).is_ok_and(|from| from > 1)
}

/// A problem before the run could start (exit code 2).
#[derive(Debug, Clone, PartialEq)]
pub struct SetupError(pub String);

/// The backend a script runs on: `--backend`, else the script's `context platform=web`, else the
/// project default (`ad.toml`), else the sim.
pub fn backend_kind(
    plan: &Plan<'_>,
    script: &Path,
    config: &SessionConfig,
) -> Result<BackendKind, SetupError> {
    let project_default = match (config.backend, config.default_backend) {
        (None, None) => backends::project_default(script).map_err(SetupError)?,
        (_, d) => d,
    };
    Ok(BackendKind::choose(
        config.backend,
        plan.metadata,
        project_default,
    ))
}

/// Does the run leave its session live when it ends well (a close-less handoff script, or
/// `--keep-session`)? Such a run is handed to the session daemon, which keeps the session.
pub fn is_handoff(plan: &Plan<'_>, options: &RunOptions) -> bool {
    options.keep_session
        || !plan
            .steps
            .iter()
            .any(|s| s.action() == Some(ad_compiler::registry::Action::Close))
}

/// Runs `plan` (compiled from the script at `script`) on its backend: a fresh simulator, a
/// browser, or a device through agent-device — or, with `--from`, on the session a previous run
/// left live (the sim's saved session, the agent-device daemon's own).
pub fn run_script(
    plan: &Plan<'_>,
    script: &Path,
    options: &RunOptions,
    config: &SessionConfig,
    progress: &mut dyn Progress,
) -> Result<ScriptOutcome, SetupError> {
    let kind = backend_kind(plan, script, config)?;
    // I/O for the web backend's DevTools socket and the agent-device daemon. The browser or
    // daemon a run starts lives on this thread (its parent-death signal is tied to it) and is
    // stopped when the backend drops.
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| SetupError(format!("cannot start the async runtime: {e}")))?;
    rt.block_on(async {
        let mut live = run_live(plan, script, kind, options, config, progress).await?;
        live.persist(config, options);
        let LiveRun {
            mut outcome,
            mut backend,
            ..
        } = live;
        // What the run leaves on a device that outlives `ad` (an agent-device session, and the
        // daemon if the run started it) is ended here when nothing may resume it.
        if backend.release().await {
            outcome.result.session_active = false;
        }
        // The web backend's browser is killed (and its profile removed) here, inside the
        // runtime, whatever way the run ended.
        drop(backend);
        Ok(outcome)
    })
}

/// The run's injected values (`-e`, `AD_VAR_*`): what a persisted session holds as `<var:NAME>`.
fn injected_redactor(options: &RunOptions) -> crate::vars::Redactor {
    crate::vars::Redactor::new(
        options
            .shell_env
            .iter()
            .chain(&options.cli_env)
            .map(|(k, v)| (k.as_str(), v.as_str())),
    )
}

/// A run that ended with its backend still up: the session daemon keeps a handoff's backend
/// as a live session; otherwise [`LiveRun::persist`] saves what a resume needs.
pub struct LiveRun {
    pub outcome: ScriptOutcome,
    pub backend: backends::AnyBackend,
    /// `--record-fixture DIR`: the folder and the recording written there, which the session
    /// daemon continues when it keeps the live session.
    pub recording: Option<(PathBuf, crate::recorded::SharedRecording)>,
}

impl LiveRun {
    /// Keeps the sim's live session in the state folder for a later `--from` resume (a
    /// divergence, an interruption, a handoff nobody holds), or removes a stale one.
    pub fn persist(&mut self, config: &SessionConfig, options: &RunOptions) {
        let result = &self.outcome.result;
        let persist = config.persist_session && self.outcome.backend.resumes_sessions();
        let saved = session_file(&config.state_dir, &options.session);
        if let Some(sim) = self
            .backend
            .as_sim()
            .filter(|_| persist && !result.error.as_ref().is_some_and(|e| e.preflight))
        {
            if result.session_active && sim.state().foreground.is_some() {
                if sim.save(&saved, &injected_redactor(options)).is_ok() {
                    self.outcome.session_file = Some(saved.clone());
                }
            } else if saved.is_file() {
                let _ = std::fs::remove_file(&saved);
            }
        }
    }
}

/// Runs `plan` on a new backend of `kind` (sim, web or the agent-device bridge; on the sim, with `--from`, restored from
/// the session a previous run left) and returns it still up.
pub async fn run_live(
    plan: &Plan<'_>,
    script: &Path,
    kind: BackendKind,
    options: &RunOptions,
    config: &SessionConfig,
    progress: &mut dyn Progress,
) -> Result<LiveRun, SetupError> {
    let resolver = ModelResolver::for_script(script, config.app_model.clone());
    if kind == BackendKind::Sim {
        // A missing or broken app model is an input error, found before the first step (exit
        // 2), not a divergence halfway through the run.
        preflight_models(&resolver, plan).map_err(|e| SetupError(e.0))?;
    } else if options.from.is_some_and(|f| f > 1) && !kind.device_keeps_sessions() {
        return Err(SetupError(format!(
            "the {kind} backend cannot resume at a later step: its session ends with the run; run the whole script again, without --from"
        )));
    }
    let file_env: Vec<(String, String)> = plan
        .metadata
        .env
        .iter()
        .map(|e| (e.key.clone(), e.value.clone()))
        .collect();
    let injected =
        crate::recorded::injected_values(&file_env, &options.shell_env, &options.cli_env);
    let recorded = match (kind, &config.recorded) {
        (BackendKind::Recorded, Some(dir)) => {
            Some(crate::recorded::ReplaySource::open(dir).map_err(SetupError)?)
        }
        _ => None,
    };
    if kind == BackendKind::Recorded && config.record_fixture.is_some() {
        return Err(SetupError(
            "--record-fixture records a device run; a recorded run replays one: drop one of them"
                .into(),
        ));
    }
    let mut backend = backends::create(
        kind,
        BackendSetup {
            models: resolver,
            web: config.web.clone(),
            agent_device: crate::agent_device::BridgeSetup::for_plan(
                &config.agent_device,
                plan,
                options,
            ),
            recorded,
            injected: injected.clone(),
        },
    )
    .map_err(SetupError)?;
    let persist = config.persist_session && kind.resumes_sessions();
    let saved = session_file(&config.state_dir, &options.session);
    if persist && !saved.is_file() && resumes_mid_plan(plan, options) {
        // Resuming on a blank device would replay later steps against the wrong screen.
        return Err(SetupError(format!(
            "no live session \"{}\" to resume: looked for {} (the session a run leaves live after a divergence, a handoff or --keep-session); run the whole script again, without --from",
            options.session,
            saved.display()
        )));
    }
    if let Some(sim) = backend
        .as_sim()
        .filter(|_| options.from.is_some() && saved.is_file())
    {
        let state = Sim::load_state(&saved, &injected_redactor(options)).map_err(|e| {
            SetupError(format!(
                "{}: cannot read the saved session: {e}",
                saved.display()
            ))
        })?;
        sim.restore(state).map_err(|e| SetupError(e.0))?;
    }
    backend.connect().await.map_err(SetupError)?;
    let (mut journal, run_dir, opts) = open_journal(config, options)?;
    if kind == BackendKind::Recorded {
        journal = journal.without_intent_sync();
    }
    // `--record-fixture`: the run's calls are logged as its session's part of a new fixture,
    // written when the run ends (a handoff's session commands append to it in the daemon).
    let recording =
        (config.record_fixture.clone()).map(|dir| (dir, crate::recorded::Recording::shared()));
    if let Some((_, shared)) = &recording {
        let redactor = crate::recorded::redactor(&injected);
        backend = backend.recorded_into(&options.session, redactor, shared.clone());
    }
    let mut result = interp::run(plan, &mut backend, &mut journal, progress, &opts).await;
    if let Some((dir, recording)) = &recording {
        backend = backend.finish_recording();
        let written = recording
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .write(dir);
        if let Err(e) = written {
            let message = format!("could not write the fixture to {}: {e}", dir.display());
            match result.error {
                // The run's own failure stays its verdict.
                Some(_) => result.warnings.push(message),
                // A run whose fixture is missing did not do what was asked: exit 2, never "ok".
                None => {
                    result.ok = false;
                    result.error = Some(crate::interp::RunError {
                        code: "FIXTURE_NOT_WRITTEN".into(),
                        message,
                        hint: Some(
                            "choose a folder ad can write its files into (no link, file or folder in their way), and run again".into(),
                        ),
                        step: None,
                        line: None,
                        preflight: true,
                        details: Default::default(),
                    });
                }
            }
        }
    }
    if let Some(left) = backend.as_recorded().and_then(|r| r.unreplayed()) {
        result.warnings.push(left);
    }
    Ok(LiveRun {
        outcome: ScriptOutcome {
            result,
            run_dir,
            session_file: None,
            backend: kind,
        },
        backend,
        recording,
    })
}
