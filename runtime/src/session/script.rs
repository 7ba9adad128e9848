//! Running one script end to end on its backend (the factory in [`crate::backends`]): model
//! lookup, the run journal, and the live session a sim run leaves behind (handoff scripts,
//! `--keep-session`, divergences), which `--from N --plan-digest SHA` resumes.
//!
//! A live session is the device's state, not a log: it is kept in a per-user state folder
//! ([`default_state_dir`], folders 0700, files 0600), never in `--artifacts-dir` (which CI systems
//! upload), with secure fields masked as the device shows them and injected values redacted from
//! what the screen does not show (the clipboard, the last action).

use std::path::{Path, PathBuf};

use crate::backends::sim::{ModelResolver, Sim};
use crate::backends::web::LaunchConfig;
use crate::backends::{self, BackendKind, BackendSetup};
use crate::core::interp::{self, Plan, Progress, RunOptions, RunResult};
use crate::core::journal::Journal;
use crate::core::records::error_codes;
use crate::core::records::SetupProblem;

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
    /// The project's default backend (`ad.toml` `[run] backend`) when the caller read the
    /// `ad.toml` already (`Some(None)`: it names none), so the run does not read it again.
    /// `None`: not read, so the run reads the `ad.toml` beside the script.
    pub default_backend: Option<Option<BackendKind>>,
    /// How the web backend launches its browser.
    pub web: LaunchConfig,
    /// How the agent-device bridge reaches its daemon and picks the device.
    pub agent_device: crate::backends::agent_device::BridgeConfig,
    /// `--record-fixture DIR`: record the run's backend calls there (docs/recorded.md).
    pub record_fixture: Option<PathBuf>,
    /// `--backend recorded:DIR`: the fixture folder to replay.
    pub recorded: Option<PathBuf>,
    /// Replay `recorded` with an open tail (`ad heal` on a recording of a failing run:
    /// [`crate::backends::recorded::ReplaySource::with_open_tail`]).
    pub replay_open_tail: bool,
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
/// `<home>/.local/state/ad` with the home from `$HOME` or, when that is unset, the password
/// database. There is no shared fallback (a folder under the temp folder named after the user
/// is one anybody can make first): with none of them it is an error. A relative path is made
/// absolute (the daemon runs in `/`).
pub fn default_state_dir() -> Result<PathBuf, SetupError> {
    state_dir_from(|k| std::env::var_os(k), passwd_home)
}

/// [`default_state_dir`] over given variables and home lookup.
fn state_dir_from(
    var: impl Fn(&str) -> Option<std::ffi::OsString>,
    home: impl FnOnce() -> Option<PathBuf>,
) -> Result<PathBuf, SetupError> {
    let var = |k: &str| var(k).filter(|v| !v.is_empty()).map(PathBuf::from);
    let dir = var("AD_STATE_DIR")
        .or_else(|| var("XDG_STATE_HOME").map(|d| d.join("ad")))
        .or_else(|| {
            var("HOME")
                .or_else(home)
                .map(|h| h.join(".local/state/ad"))
        })
        .ok_or_else(|| {
            SetupError(format!(
                "cannot tell where to keep live sessions: AD_STATE_DIR, XDG_STATE_HOME and HOME are unset and user {} has no home folder in the password database; set AD_STATE_DIR to a folder of your own",
                current_uid()
            ))
        })?;
    Ok(std::path::absolute(&dir).unwrap_or(dir))
}

/// The effective user id: whose state folder, socket and daemon `ad` may use.
pub fn current_uid() -> u32 {
    // SAFETY: geteuid has no preconditions and cannot fail.
    unsafe { libc::geteuid() }
}

/// This user's home folder as the password database has it (`getpwuid_r`).
fn passwd_home() -> Option<PathBuf> {
    use std::os::unix::ffi::OsStrExt;
    let mut buf = vec![0u8; 1024];
    loop {
        // SAFETY: `pwd` and `buf` outlive the call; `result` is set to null or to `&pwd`, whose
        // strings point into `buf`, which is read before it is dropped or reused.
        let mut pwd: libc::passwd = unsafe { std::mem::zeroed() };
        let mut result: *mut libc::passwd = std::ptr::null_mut();
        let rc = unsafe {
            libc::getpwuid_r(
                current_uid(),
                &mut pwd,
                buf.as_mut_ptr().cast(),
                buf.len(),
                &mut result,
            )
        };
        if rc == libc::ERANGE && buf.len() < 1 << 20 {
            buf.resize(buf.len() * 4, 0);
            continue;
        }
        if rc != 0 || result.is_null() || pwd.pw_dir.is_null() {
            return None;
        }
        let dir = unsafe { std::ffi::CStr::from_ptr(pwd.pw_dir) };
        let dir = std::ffi::OsStr::from_bytes(dir.to_bytes());
        return (!dir.is_empty()).then(|| PathBuf::from(dir));
    }
}

/// Makes `dir` a folder only this user can use, or says why it is not one. A missing folder is
/// created 0700 (its missing parents as any folder is). An existing one is never changed (it
/// may be `.`, `$HOME` or `/tmp`): it must be owned by this user and not writable by group or
/// others, else it is refused — another user's folder could hold their socket, or let them swap
/// the files in it. The error names the path and the reason.
pub fn private_dir(dir: &Path) -> std::io::Result<()> {
    use std::os::unix::fs::{DirBuilderExt, PermissionsExt};
    if let Some(parent) = dir.parent().filter(|p| !p.as_os_str().is_empty()) {
        if !parent.exists() {
            std::fs::create_dir_all(parent)?;
        }
    }
    match std::fs::DirBuilder::new().mode(0o700).create(dir) {
        // Ours, just made: 0700 whatever the umask.
        Ok(()) => std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700)),
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
            check_private(dir, "folder", current_uid())?;
            if !dir.is_dir() {
                return Err(std::io::Error::new(
                    std::io::ErrorKind::AlreadyExists,
                    format!("{}: not a folder", dir.display()),
                ));
            }
            Ok(())
        }
        Err(e) => Err(std::io::Error::new(
            e.kind(),
            format!("{}: cannot create the folder: {e}", dir.display()),
        )),
    }
}

/// Is `path` (a folder, or the daemon's socket; `what` says which) owned by `uid` and not
/// writable by group or others? A symbolic link is judged by what it leads to, and must itself
/// be `uid`'s or root's (whoever owns a link can point it elsewhere). The error is
/// `PermissionDenied` with the path and the reason.
pub fn check_private(path: &Path, what: &str, uid: u32) -> std::io::Result<()> {
    use std::os::unix::fs::MetadataExt;
    let refuse = |why: String| {
        Err(std::io::Error::new(
            std::io::ErrorKind::PermissionDenied,
            format!(
                "{}: {why}; ad keeps live sessions and the secrets runs send them there, so it will not use it (nor change it): set AD_STATE_DIR to a folder of your own (ad creates a missing one 0700)",
                path.display()
            ),
        ))
    };
    let link = std::fs::symlink_metadata(path)?;
    if link.file_type().is_symlink() && link.uid() != uid && link.uid() != 0 {
        return refuse(format!(
            "this {what} is a symbolic link owned by user {}, not by you (user {uid})",
            link.uid()
        ));
    }
    let meta = std::fs::metadata(path)?;
    if meta.uid() != uid {
        return refuse(format!(
            "this {what} is owned by user {}, not by you (user {uid})",
            meta.uid()
        ));
    }
    if meta.mode() & 0o022 != 0 {
        return refuse(format!(
            "this {what} is writable by {} (mode {:o})",
            if meta.mode() & 0o002 != 0 {
                "others"
            } else {
                "its group"
            },
            meta.mode() & 0o7777
        ));
    }
    Ok(())
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
) -> Result<(), crate::backends::sim::ModelError> {
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

/// A problem before the run could start (exit code 2).
#[derive(Debug, Clone, PartialEq)]
pub struct SetupError(pub String);

/// Why [`run_live`] did not run the script: a refusal (a bad resume, an unreadable saved
/// session, no run folder), or a backend that could not start, which the callers report as the
/// run's result (a set-up error: `BACKEND_UNAVAILABLE`, exit 2, no journal).
#[derive(Debug, Clone, PartialEq)]
pub enum StartError {
    Refused(SetupError),
    Backend(SetupProblem),
}

impl From<SetupError> for StartError {
    fn from(e: SetupError) -> StartError {
        StartError::Refused(e)
    }
}

impl From<SetupProblem> for StartError {
    fn from(p: SetupProblem) -> StartError {
        StartError::Backend(p)
    }
}

/// The result of a run whose backend could not start: nothing ran and no run folder was made.
pub fn unavailable_result(
    plan: &Plan<'_>,
    options: &RunOptions,
    problem: SetupProblem,
) -> RunResult {
    let digest = plan.digest(options);
    RunResult::unavailable(problem, plan.steps.len(), &options.session, digest)
}

/// A missing or broken app model: the sim has nothing to run (a set-up error). A script whose
/// header names a platform a real device serves is told which `--backend` to pass.
fn model_problem(e: crate::backends::sim::ModelError, plan: &Plan<'_>) -> SetupProblem {
    match platform_tooling(plan) {
        Some((platform, tooling)) => {
            let lacks = match tooling {
                Ok(()) => String::new(),
                Err(needs) => {
                    format!(" (agent-device needs {needs} for it, which this machine lacks)")
                }
            };
            SetupProblem::new(
                BackendKind::Sim.name(),
                e.0,
                Some(&format!(
                    "the script's header says `context platform={platform}`: pass --backend agent-device to run it on a real device{lacks} where one is reachable (or on a remote daemon: AGENT_DEVICE_DAEMON_BASE_URL), or {}",
                    crate::backends::sim::MODEL_HINT
                )),
            )
        }
        None => SetupProblem::new(
            BackendKind::Sim.name(),
            e.0,
            Some(crate::backends::sim::MODEL_HINT),
        ),
    }
}

/// The backend a script runs on: `--backend`, else the script's `context platform=web`, else the
/// project default (`ad.toml`), else the sim.
pub fn backend_kind(
    plan: &Plan<'_>,
    script: &Path,
    config: &SessionConfig,
) -> Result<BackendKind, SetupError> {
    let project_default = match (config.backend, config.default_backend) {
        (None, None) => {
            let project =
                ad_compiler::check_file::discover_config(script).map_err(|e| SetupError(e.0))?;
            backends::project_default(&project).map_err(SetupError)?
        }
        (_, d) => d.flatten(),
    };
    let kind = BackendKind::choose(config.backend, plan.metadata, project_default);
    if config.backend.is_some() || project_default.is_some() || kind != BackendKind::Sim {
        return Ok(kind);
    }
    header_backend(plan, script, config)
}

/// The backend a script's header chooses when nothing else did: a `context platform=` the sim
/// cannot serve (no app model for the app it opens) goes to the real device through
/// agent-device when this machine has that platform's tooling; otherwise it stays on the sim,
/// whose missing model is then a set-up error naming the `--backend` to pass
/// ([`model_problem`]).
fn header_backend(
    plan: &Plan<'_>,
    script: &Path,
    config: &SessionConfig,
) -> Result<BackendKind, SetupError> {
    let resolver = ModelResolver::for_script(script, config.app_model.clone());
    if platform_tooling(plan).is_some_and(|(_, t)| t.is_ok())
        && preflight_models(&resolver, plan).is_err()
    {
        return Ok(BackendKind::AgentDevice);
    }
    Ok(BackendKind::Sim)
}

/// The header's platform when only a real device serves it without an app model, and whether
/// this machine has what agent-device needs to drive it (`Err`: what it lacks).
fn platform_tooling<'a>(plan: &'a Plan<'a>) -> Option<(&'a str, Result<(), &'static str>)> {
    let platform = plan.metadata.platform.as_ref()?.value.as_str();
    let tooling = match platform {
        "linux" => cfg!(target_os = "linux")
            .then_some(())
            .ok_or("a Linux desktop"),
        "macos" | "ios" | "apple" => cfg!(target_os = "macos")
            .then_some(())
            .ok_or("a Mac with Xcode"),
        "android" => on_path("adb")
            .then_some(())
            .ok_or("the Android platform tools (adb on PATH)"),
        _ => return None,
    };
    Some((platform, tooling))
}

/// Is `program` an executable file in one of `PATH`'s folders?
fn on_path(program: &str) -> bool {
    std::env::var_os("PATH").is_some_and(|path| {
        std::env::split_paths(&path).any(|dir| {
            let f = dir.join(program);
            #[cfg(unix)]
            {
                use std::os::unix::fs::PermissionsExt;
                f.metadata()
                    .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
            }
            #[cfg(not(unix))]
            f.is_file()
        })
    })
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
        let mut live = match run_live(plan, script, kind, options, config, progress).await {
            Ok(live) => live,
            Err(StartError::Refused(e)) => return Err(e),
            Err(StartError::Backend(problem)) => {
                return Ok(ScriptOutcome {
                    result: unavailable_result(plan, options, problem),
                    run_dir: None,
                    session_file: None,
                    backend: kind,
                })
            }
        };
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
fn injected_redactor(options: &RunOptions) -> crate::core::vars::Redactor {
    crate::core::vars::Redactor::new(
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
    pub recording: Option<(PathBuf, crate::backends::recorded::SharedRecording)>,
    /// The run's ref frames at its end (a divergence's partial frame included): a session the
    /// daemon holds after the run continues with them (a held repair).
    pub frames: crate::core::frame::Frames,
}

impl LiveRun {
    /// Keeps the sim's live session in the state folder for a later `--from` resume (a
    /// divergence, an interruption, a handoff nobody holds), or removes a stale one.
    pub fn persist(&mut self, config: &SessionConfig, options: &RunOptions) {
        let result = &self.outcome.result;
        let persist = config.persist_session && self.outcome.backend.resumes_sessions();
        let saved = session_file(&config.state_dir, &options.session);
        let Some(sim) = self.backend.as_sim().filter(|_| {
            // Nothing to resume after a refusal or a backend that could not start.
            persist
                && !result
                    .error
                    .as_ref()
                    .is_some_and(|e| e.preflight || e.setup().is_some())
        }) else {
            return;
        };
        let keep = result.session_active && sim.state().foreground.is_some();
        if !keep && !saved.is_file() {
            return;
        }
        // The state folder must be this user's alone before a session is saved or removed there.
        if let Err(e) = private_dir(&config.state_dir) {
            self.outcome
                .result
                .warnings
                .push(format!("the live session was not kept: {e}"));
            return;
        }
        if !keep {
            let _ = std::fs::remove_file(&saved);
        } else if sim.save(&saved, &injected_redactor(options)).is_ok() {
            self.outcome.session_file = Some(saved.clone());
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
) -> Result<LiveRun, StartError> {
    run_live_on(plan, script, kind, options, config, progress, None).await
}

/// [`run_live`], on `kept` when given: the live backend an earlier run left (a resume continuing
/// on the agent-device bridge ad's session daemon kept), already connected.
pub async fn run_live_on(
    plan: &Plan<'_>,
    script: &Path,
    kind: BackendKind,
    options: &RunOptions,
    config: &SessionConfig,
    progress: &mut dyn Progress,
    kept: Option<backends::AnyBackend>,
) -> Result<LiveRun, StartError> {
    let resumed = kept.is_some();
    let resolver = ModelResolver::for_script(script, config.app_model.clone());
    if kind == BackendKind::Sim {
        // A missing or broken app model is a set-up error of the sim, found before the first
        // step (exit 2), not a divergence halfway through the run.
        preflight_models(&resolver, plan).map_err(|e| model_problem(e, plan))?;
    } else if options.from.is_some_and(|f| f > 1) && !kind.device_keeps_sessions() && !resumed {
        return Err(SetupError(format!(
            "the {kind} backend cannot resume at a later step: its session ends with the run; run the whole script again, without --from"
        ))
        .into());
    }
    let file_env: Vec<(String, String)> = plan
        .metadata
        .env
        .iter()
        .map(|e| (e.key.clone(), e.value.clone()))
        .collect();
    let injected =
        crate::backends::recorded::injected_values(&file_env, &options.shell_env, &options.cli_env);
    let recorded = match (kind, &config.recorded) {
        (BackendKind::Recorded, Some(dir)) => {
            let source = crate::backends::recorded::ReplaySource::open(dir).map_err(|e| {
                SetupProblem::new(
                    BackendKind::Recorded.name(),
                    e,
                    Some(crate::backends::recorded::FIXTURE_HINT),
                )
            })?;
            Some(if config.replay_open_tail {
                source.with_open_tail()
            } else {
                source
            })
        }
        _ => None,
    };
    if kind == BackendKind::Recorded && config.record_fixture.is_some() {
        return Err(SetupError(
            "--record-fixture records a device run; a recorded run replays one: drop one of them"
                .into(),
        )
        .into());
    }
    let created = match kept {
        Some(backend) => Ok(backend),
        None => backends::create(
            kind,
            BackendSetup {
                models: resolver,
                // The web shows local files of the script's own folder only (docs/web.md).
                web: crate::backends::web::LaunchConfig {
                    urls: config.web.urls.for_script(script),
                    ..config.web.clone()
                },
                agent_device: crate::backends::agent_device::BridgeSetup::for_plan(
                    &config.agent_device,
                    plan,
                    options,
                ),
                recorded,
                injected: injected.clone(),
            },
        ),
    };
    let mut backend = created?;
    let persist = config.persist_session && kind.resumes_sessions();
    let saved = session_file(&config.state_dir, &options.session);
    if persist && options.from.is_some() {
        // A saved session is only read from a state folder nobody else can write.
        private_dir(&config.state_dir).map_err(|e| SetupError(e.to_string()))?;
    }
    if persist && !saved.is_file() && plan.resumes_mid_plan(options) {
        // Resuming on a blank device would replay later steps against the wrong screen.
        return Err(SetupError(format!(
            "no live session \"{}\" to resume: looked for {} (the session a run leaves live after a divergence, a handoff or --keep-session); run the whole script again, without --from",
            options.session,
            saved.display()
        ))
        .into());
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
    if !resumed {
        backend.connect().await?;
    }
    let (mut journal, run_dir, opts) = open_journal(config, options)?;
    if kind == BackendKind::Recorded {
        journal = journal.without_intent_sync();
    }
    // `--record-fixture`: the run's calls are logged as its session's part of a new fixture,
    // written when the run ends (a handoff's session commands append to it in the daemon).
    let recording = (config.record_fixture.clone())
        .map(|dir| (dir, crate::backends::recorded::Recording::shared()));
    if let Some((_, shared)) = &recording {
        let redactor = crate::backends::recorded::redactor(&injected);
        backend = backend.recorded_into(&options.session, redactor, shared.clone());
    }
    let (mut result, frames) =
        interp::run_keeping_frames(plan, &mut backend, &mut journal, progress, &opts).await;
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
                    result.error = Some(crate::core::interp::RunError {
                        code: error_codes::FIXTURE_NOT_WRITTEN.into(),
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
        frames,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vars(set: &[(&str, &str)]) -> impl Fn(&str) -> Option<std::ffi::OsString> {
        let set: Vec<(String, String)> = set
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        move |k| set.iter().find(|(n, _)| n == k).map(|(_, v)| v.into())
    }

    /// Issue 29, item 6: without AD_STATE_DIR, XDG_STATE_HOME and HOME the state folder is
    /// under the home the password database gives, and without that it is an error, never a
    /// folder under the temp folder that another user could have made first.
    #[test]
    fn the_state_folder_has_no_shared_fallback() {
        let none = || None;
        let home = || Some(PathBuf::from("/home/me"));
        let d = |set: &[(&str, &str)], home: &dyn Fn() -> Option<PathBuf>| {
            state_dir_from(vars(set), home)
        };
        assert_eq!(
            d(&[("USER", "me")], &home).unwrap(),
            Path::new("/home/me/.local/state/ad")
        );
        let e = d(&[("USER", "me"), ("HOME", "")], &none).unwrap_err();
        assert!(
            e.0.contains("set AD_STATE_DIR") && e.0.contains("password database"),
            "{e:?}"
        );
        assert_eq!(
            d(&[("HOME", "/h")], &home).unwrap(),
            Path::new("/h/.local/state/ad")
        );
        assert_eq!(
            d(&[("HOME", "/h"), ("XDG_STATE_HOME", "/x")], &none).unwrap(),
            Path::new("/x/ad")
        );
        assert_eq!(
            d(&[("AD_STATE_DIR", "/s"), ("XDG_STATE_HOME", "/x")], &none).unwrap(),
            Path::new("/s")
        );
        // Relative: made absolute here, since the daemon runs in `/`.
        let rel = d(&[("AD_STATE_DIR", "shared")], &none).unwrap();
        assert_eq!(rel, std::env::current_dir().unwrap().join("shared"));
    }
}
