//! `ad test`: runs many scripts — static check first (a script with errors never touches a
//! device), `context platform` filtering, shards, per-script timeout and retries (a pass after a
//! retry is *flaky*, never hidden), fail-fast, parallel jobs with results in discovery order.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Instant;

use crate::backends::agent_device::daemon::{default_state_dir, OwnedDaemon};
use crate::backends::agent_device::run::connect;
use crate::backends::agent_device::BridgeConfig;
use crate::backends::web::launcher::SharedBrowser;
use crate::core::gate::{self, Refusal};
use crate::core::interp::results::round3;
use crate::core::interp::{Plan, Quiet, RunOptions};
use crate::core::records::suite::{ScriptReport, StaticError, SuiteCounts, SuiteReport};
use crate::session::{run_script, SessionConfig};

pub use crate::core::records::suite::{Attempt, Status};

/// One script to test.
#[derive(Debug, Clone, Default)]
pub struct Case {
    pub path: PathBuf,
    /// As shown in output.
    pub display: String,
    pub text: String,
    /// A composition's expansion: the source of each plan line (see `RunOptions::sources`).
    pub sources: Vec<Option<crate::core::records::journal::StepSource>>,
    /// The `ad.toml` that applies, as the caller's one lookup found it (`ad test` reads it to
    /// cap and compose the script); `None`: the suite looks it up.
    pub config: Option<Result<ad_compiler::config::Config, ad_compiler::config::ConfigError>>,
}

#[derive(Debug, Clone, Default)]
pub struct SuiteOptions {
    /// `--platform`: keep scripts whose context platform matches.
    pub platform: Option<String>,
    /// `--timeout` (ms, device clock): overrides `context timeout=`.
    pub timeout_ms: Option<u64>,
    /// `--retries`: overrides `context retries=` (clamped to 0..3).
    pub retries: Option<u64>,
    pub fail_fast: bool,
    pub jobs: usize,
    /// (one-based index, count).
    pub shard: Option<(usize, usize)>,
    pub session: SessionConfig,
    pub cli_env: Vec<(String, String)>,
    pub shell_env: Vec<(String, String)>,
    pub level: String,
    /// `--backend agent-device`: run each script through the agent-device daemon instead of the
    /// simulator.
    pub agent_device: Option<crate::backends::agent_device::BridgeConfig>,
    /// The folder the scripts were found in: `--record-fixture DIR` and `--backend recorded:DIR`
    /// use one subfolder of DIR per script, named by its path relative to this folder.
    pub suite_root: Option<PathBuf>,
    /// The options that chose the suite's backend and device, as `ad run` arguments (quoted for
    /// a shell): a divergence report's resume command is `ad run SCRIPT` with them.
    pub run_options: String,
}

/// A script's fixture subfolder name: its path relative to the suite root (else as shown,
/// without leading `/`, `.` or `..` parts), so a fixture never points outside its folder.
pub fn fixture_subfolder(case: &Case, root: Option<&std::path::Path>) -> PathBuf {
    let rel = root
        .and_then(|r| case.path.strip_prefix(r).ok())
        .unwrap_or(std::path::Path::new(&case.display));
    rel.components()
        .filter(|c| matches!(c, std::path::Component::Normal(_)))
        .collect()
}

/// Where attempt `attempt` (0-based) of a script records and replays: the script's fixture for
/// the first, `attempt-N/` inside it for a retry. A replay then fails and retries as the
/// recorded suite did, each attempt on its own recording.
fn attempt_fixture(script: &std::path::Path, attempt: u64) -> PathBuf {
    match attempt {
        0 => script.to_path_buf(),
        n => script.join(format!("attempt-{}", n + 1)),
    }
}

/// Removes the retries' fixtures an earlier recording of this script left (its first attempt
/// is recorded anew; its retries, if any, are written after it).
fn clear_attempt_fixtures(script: &std::path::Path) {
    let Ok(entries) = std::fs::read_dir(script) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let is_attempt = name
            .strip_prefix("attempt-")
            .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()));
        if is_attempt && entry.file_type().is_ok_and(|t| t.is_dir()) {
            // Only the files the recording wrote there: a user's file (or a link) stays.
            crate::core::output_dir::remove_files(
                &entry.path(),
                crate::core::output_dir::FIXTURE_LISTING,
            );
        }
    }
}

#[derive(Debug, Clone)]
pub struct CaseResult {
    pub display: String,
    pub status: Status,
    pub skip_reason: Option<String>,
    /// Why an invalid script was not run (the run gate's diagnostics).
    pub refusal: Option<Refusal>,
    pub attempts: Vec<Attempt>,
    pub retries_allowed: u64,
    pub timeout_ms: Option<u64>,
    pub wall_ms: f64,
}

#[derive(Debug, Clone, Default)]
pub struct Summary {
    pub results: Vec<CaseResult>,
    /// Scripts dropped by `--platform` (different platform).
    pub filtered: usize,
    /// Scripts outside this shard.
    pub other_shards: usize,
    pub wall_ms: f64,
}

impl Summary {
    pub fn count(&self, s: Status) -> usize {
        self.results.iter().filter(|r| r.status == s).count()
    }
    pub fn ok(&self) -> bool {
        self.count(Status::Failed) == 0
            && self.count(Status::Invalid) == 0
            && self.count(Status::Error) == 0
    }

    /// The distinct set-up problems the suite met (a backend that could not start), in the
    /// order first met: the environment's errors, said once however many scripts met them.
    pub fn setup_problems(&self) -> Vec<&crate::core::records::SetupProblem> {
        let mut seen: Vec<&crate::core::records::SetupProblem> = Vec::new();
        let met = self
            .results
            .iter()
            .filter(|r| r.status == Status::Error)
            .filter_map(|r| r.attempts.last()?.setup.as_ref());
        for p in met {
            if !seen.contains(&p) {
                seen.push(p);
            }
        }
        seen
    }
}

/// Does a context platform satisfy `--platform`? (`apple` matches Apple platforms.)
pub fn platform_matches(wanted: &str, script: &str) -> bool {
    wanted == script || (wanted == "apple" && matches!(script, "ios" | "macos" | "apple"))
}

/// The case's per-script settings and plan, or why it is not run.
enum Prepared {
    Run { retries: u64, timeout: Option<u64> },
    Skip(String),

    Filtered,
}

fn prepare(analysis: &ad_compiler::Analysis, opts: &SuiteOptions) -> Prepared {
    let md = analysis.metadata();
    if let Some(want) = &opts.platform {
        // agent-device's reader drops `platform=web`; the raw context line still says it.
        let platform = md
            .platform
            .as_ref()
            .map(|p| p.value.as_str())
            .or(md.platform_web.map(|_| "web"));
        match platform {
            None => {
                return Prepared::Skip(format!("missing platform metadata for --platform {want}"))
            }
            Some(p) if !platform_matches(want, p) => return Prepared::Filtered,
            _ => {}
        }
    }
    let retries = opts
        .retries
        .or_else(|| md.retries.as_ref().map(|r| r.value as u64))
        .unwrap_or(0)
        .min(3);
    let timeout = opts
        .timeout_ms
        .or_else(|| md.timeout_ms.as_ref().map(|t| t.value as u64));
    Prepared::Run { retries, timeout }
}

fn stem(display: &str) -> String {
    std::path::Path::new(display)
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "script".into())
}

fn run_case(
    index: usize,
    case: &Case,
    opts: &SuiteOptions,
    stop: &AtomicBool,
    browser: &SharedBrowser,
) -> Option<CaseResult> {
    let started = Instant::now();
    let base = |status, skip_reason, refusal| CaseResult {
        display: case.display.clone(),
        status,
        skip_reason,
        refusal,
        attempts: Vec::new(),
        retries_allowed: 0,
        timeout_ms: None,
        wall_ms: started.elapsed().as_secs_f64() * 1000.0,
    };
    // The run gate `ad run` uses: the same ad.toml (read once for the case: the gate and the
    // backend's project default take it), diagnostics and refusals.
    let project = match &case.config {
        Some(project) => project.clone(),
        None => ad_compiler::check_file::discover_config(&case.path),
    };
    let gated = match &project {
        Ok(config) => gate::analyze(config, &case.display, &case.text, false),
        Err(e) => Err(gate::config_refusal(e, &case.text)),
    };
    let analysis = match gated {
        Ok(a) => a,
        Err(refusal) => return Some(base(Status::Invalid, None, Some(refusal))),
    };
    // A `[run] backend` the factory refuses is left for the run to report, as a set-up error.
    let project_default = project
        .ok()
        .and_then(|c| crate::backends::project_default(&c).ok());
    let (retries, timeout) = match prepare(&analysis, opts) {
        Prepared::Filtered => return None,
        Prepared::Skip(r) => return Some(base(Status::Skipped, Some(r), None)),
        Prepared::Run { retries, timeout } => (retries, timeout),
    };
    let run_options = |attempt: u64| RunOptions {
        script_path: case.display.clone(),
        cli_env: opts.cli_env.clone(),
        shell_env: opts.shell_env.clone(),
        session: format!("test-{}-{}-{}", index + 1, stem(&case.display), attempt + 1),
        shard: opts.shard.map(|(i, c)| (i - 1, c)),
        timeout_ms: timeout,
        level: opts.level.clone(),
        resume_command: [
            crate::backends::command_line(&["ad", "run", case.display.as_str()]),
            opts.run_options.clone(),
        ]
        .join(" ")
        .trim_end()
        .to_string(),
        sources: case.sources.clone(),
        ..RunOptions::default()
    };
    if let Err(refusal) = gate::missing_variables(&analysis, &case.display, &run_options(0)) {
        return Some(base(Status::Invalid, None, Some(refusal)));
    }
    if let Some(signal) = crate::core::interrupt::requested() {
        return Some(base(
            Status::Skipped,
            Some(format!("not run: {signal} interrupted the suite")),
            None,
        ));
    }
    if stop.load(Ordering::SeqCst) {
        return Some(base(
            Status::Skipped,
            Some("not run: --fail-fast stopped the suite".into()),
            None,
        ));
    }
    let plan = Plan {
        steps: analysis.steps(),
        metadata: analysis.metadata(),
    };
    let mut attempts = Vec::new();
    let mut status = Status::Failed;
    for attempt in 0..=retries {
        let opts_run = run_options(attempt);
        let mut config = opts.session.clone();
        config.persist_session = false;
        if config.default_backend.is_none() {
            config.default_backend = project_default;
        }
        // A web script opens a fresh browser context in its worker's browser.
        config.web.shared = Some(browser.clone());
        let sub = attempt_fixture(
            &fixture_subfolder(case, opts.suite_root.as_deref()),
            attempt,
        );
        if let (0, Some(dir)) = (attempt, &config.record_fixture) {
            clear_attempt_fixtures(&dir.join(&sub));
        }
        for dir in [&mut config.record_fixture, &mut config.recorded]
            .into_iter()
            .flatten()
        {
            *dir = dir.join(&sub);
        }
        let t0 = Instant::now();
        if let Some(bridge) = &opts.agent_device {
            config.backend = Some(crate::backends::BackendKind::AgentDevice);
            config.agent_device = bridge.clone();
        }
        let outcome = run_script(&plan, &case.path, &opts_run, &config, &mut Quiet);
        let a = match outcome {
            Ok(out) => {
                let e = out.result.error.as_ref();
                Attempt {
                    ok: out.result.ok,
                    code: e.map(|e| e.public_code().to_string()),
                    kind: e.and_then(|e| e.divergence()).map(|d| d.kind),
                    message: e.map(|e| e.message.clone()),
                    step: e.and_then(|e| e.step),
                    line: e.and_then(|e| e.line),
                    run_dir: out.run_dir.map(|d| d.display().to_string()),
                    replayed: out.result.replayed,
                    total: out.result.total,
                    wall_ms: round3(t0.elapsed().as_secs_f64() * 1000.0),
                    device_ms: out.result.device_ms,
                    setup: e.and_then(|e| e.setup()).cloned(),
                }
            }
            Err(e) => Attempt {
                ok: false,
                code: Some("SETUP".into()),
                kind: None,
                message: Some(e.0),
                step: None,
                line: None,
                run_dir: None,
                replayed: 0,
                total: analysis.steps().len(),
                wall_ms: round3(t0.elapsed().as_secs_f64() * 1000.0),
                device_ms: 0,
                setup: None,
            },
        };
        let ok = a.ok;
        let unavailable = a.setup.is_some();
        attempts.push(a);
        if unavailable {
            // The environment lacks the backend: a retry would meet the same, and the script
            // did not fail.
            status = Status::Error;
            break;
        }
        if ok {
            status = if attempt == 0 {
                Status::Passed
            } else {
                Status::Flaky
            };
            break;
        }
    }
    Some(CaseResult {
        display: case.display.clone(),
        status,
        skip_reason: None,
        refusal: None,
        attempts,
        retries_allowed: retries,
        timeout_ms: timeout,
        wall_ms: started.elapsed().as_secs_f64() * 1000.0,
    })
}

/// For a suite: when no daemon answers (and none is remote), start one that every script of
/// the suite attaches to (a daemon per script costs its start-up each time); `None` when one
/// is there already. Dropping it stops it.
pub fn shared_daemon(bridge: &BridgeConfig) -> Result<Option<OwnedDaemon>, String> {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start the async runtime: {e}"))?;
    let state_dir = bridge
        .state_dir
        .clone()
        .unwrap_or_else(|| default_state_dir(&bridge.env));
    let connection = rt.block_on(connect(&state_dir, true))?;
    Ok(connection.owned)
}

/// Runs the suite. `report` is called once per script, in discovery order, as soon as that
/// script and every one before it have finished.
pub fn run_suite(
    cases: &[Case],
    opts: &SuiteOptions,
    report: &mut (dyn FnMut(&CaseResult) + Send),
) -> Summary {
    let started = Instant::now();
    let mut summary = Summary::default();
    let mut selected: Vec<(usize, &Case)> = cases.iter().enumerate().collect();
    if let Some((i, c)) = opts.shard {
        let before = selected.len();
        selected = selected
            .into_iter()
            .enumerate()
            .filter(|(k, _)| k % c == i - 1)
            .map(|(_, x)| x)
            .collect();
        summary.other_shards = before - selected.len();
    }
    let n = selected.len();
    let next = AtomicUsize::new(0);
    let stop = AtomicBool::new(false);
    let slots: Mutex<(Vec<Option<Option<CaseResult>>>, usize)> = Mutex::new((vec![None; n], 0));
    let filtered = AtomicUsize::new(0);
    let report = Mutex::new(report);
    let out: Mutex<Vec<CaseResult>> = Mutex::new(Vec::new());
    let jobs = opts.jobs.clamp(1, 64).min(n.max(1));
    // A worker: takes the next script until none is left.
    let work = |browser: &SharedBrowser| loop {
        let k = next.fetch_add(1, Ordering::SeqCst);
        if k >= n {
            break;
        }
        let (index, case) = selected[k];
        let r = run_case(index, case, opts, &stop, browser);
        if opts.fail_fast
            && r.as_ref().is_some_and(|r| {
                matches!(r.status, Status::Failed | Status::Invalid | Status::Error)
            })
        {
            stop.store(true, Ordering::SeqCst);
        }
        let mut g = slots.lock().expect("slots");
        g.0[k] = Some(r);
        // Emit every finished result in order.
        while g.1 < n {
            let cursor = g.1;
            let Some(slot) = g.0[cursor].take() else {
                break;
            };
            g.1 += 1;
            match slot {
                None => {
                    filtered.fetch_add(1, Ordering::SeqCst);
                }
                Some(r) => {
                    (report.lock().expect("report"))(&r);
                    out.lock().expect("out").push(r);
                }
            }
        }
    };
    std::thread::scope(|s| {
        for _ in 0..jobs {
            s.spawn(|| {
                // One browser per worker, launched on this thread by its first web script (its
                // parent-death signal is tied to the thread, which outlives every script).
                let browser = SharedBrowser::default();
                work(&browser);
                browser.shutdown();
            });
        }
    });
    summary.results = out.into_inner().expect("out");
    summary.filtered = filtered.load(Ordering::SeqCst);
    summary.wall_ms = started.elapsed().as_secs_f64() * 1000.0;
    summary
}

/// The suite report (`--report-json`, and what the JUnit report is rendered from).
pub fn report(s: &Summary) -> SuiteReport {
    SuiteReport {
        version: 1,
        summary: SuiteCounts {
            total: s.results.len(),
            passed: s.count(Status::Passed),
            flaky: s.count(Status::Flaky),
            failed: s.count(Status::Failed),
            invalid: s.count(Status::Invalid),
            errors: s.count(Status::Error),
            skipped: s.count(Status::Skipped),
            filtered: s.filtered,
            other_shards: s.other_shards,
            ok: s.ok(),
            wall_ms: round3(s.wall_ms),
        },
        scripts: s
            .results
            .iter()
            .map(|r| ScriptReport {
                path: r.display.clone(),
                status: r.status,
                skip_reason: r.skip_reason.clone(),
                retries_allowed: r.retries_allowed,
                timeout_ms: r.timeout_ms,
                refused: r.refusal.as_ref().map(|f| f.summary.clone()),
                static_errors: r
                    .refusal
                    .iter()
                    .flat_map(|f| f.diagnostics.iter().zip(&f.positions))
                    .map(|(d, &(line, column))| StaticError {
                        line,
                        column,
                        code: d.code.to_string(),
                        message: d.message.to_string(),
                    })
                    .collect(),
                attempts: r.attempts.clone(),
                wall_ms: round3(r.wall_ms),
            })
            .collect(),
    }
}
