//! `ad test PATHS…`: run a suite of scripts on the simulator and report (human, JUnit, JSON).

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};

use ad_compiler::check_file::ScriptKind;
use ad_runtime::core::vars;
use ad_runtime::session::suite::{self, Case, CaseResult, Status, SuiteOptions};
use ad_runtime::session::SessionConfig;
use clap::Args;

use crate::files;

pub const TEST_AFTER_HELP: &str = "\
Examples:
  ad test examples/ -e PASSWORD=hunter2          every *.ad under examples/ (recursively)
  ad test flows/ --platform ios --jobs 4         only scripts whose `context platform=` is ios, 4 at a time
  ad test examples/web --backend web             every script on a web app in headless Chromium
  ad test flows/ --shard 2/3 --report-junit junit.xml
                                                 the second third of the suite, JUnit for CI
  ad test flows/ --retries 2 --fail-fast         retry failures twice (a later pass is reported
                                                 as flaky), stop at the first failure
  ad test flows/ --report-html report/           a static HTML report: open report/index.html
  ad test flows/ --watch                         re-run each script you save (Ctrl-C stops)

Every script passes the same gate as `ad run` first: a broken ad.toml, static errors or a ${VAR}
with no value make it INVALID (its diagnostics shown as `ad check` shows them) and it never runs. Per-script `context timeout=` (device-clock ms) and `retries=` apply unless --timeout /
--retries override them (retries are clamped to 0..3). With --platform, scripts without a context
platform are skipped and scripts for another platform are left out. Output is in discovery order
whatever --jobs is.

With --watch, every script runs once, then each save re-runs the saved script and the
compositions that include it (debounced: --debounce MS), one `[watch #N]` summary line per cycle,
the terminal cleared between cycles; Ctrl-C ends the watch (exit 0). See docs/run.md.

Report destinations (--report-junit, --report-json, --report-html) are checked before anything
runs; if a write still fails at the end, the other reports are written and the verdict stays on
screen.

A script whose backend cannot start (no browser, agent-device not installed, …) is an error of
the environment (ERROR, never retried), not a failure: the problem is said once, after the results.

Exit codes: 0 every script passed (flaky passes included); 1 a script failed or was invalid;
2 usage or I/O error (a report that could not be written after a passing suite included), or a
script's backend could not start; 130 interrupted.";

#[derive(Args)]
#[command(after_help = TEST_AFTER_HELP)]
pub struct TestArgs {
    /// Scripts or folders (searched recursively for *.ad).
    #[arg(default_value = ".")]
    paths: Vec<PathBuf>,
    /// Set a script variable for every script (repeatable).
    #[arg(short = 'e', long = "env", value_name = "KEY=VALUE")]
    env: Vec<String>,
    /// Keep only scripts whose `context platform=` matches (`apple` matches ios and macos).
    #[arg(long)]
    platform: Option<String>,
    /// Per-script timeout in device-clock milliseconds (overrides `context timeout=`).
    #[arg(long, value_name = "MS")]
    timeout: Option<u64>,
    /// Retries per failing script, 0..3 (overrides `context retries=`).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(0..=3))]
    retries: Option<u64>,
    /// Stop starting scripts after the first failure (the rest are reported as not run).
    #[arg(long)]
    fail_fast: bool,
    /// Scripts run in parallel, each in its own session.
    #[arg(long, short = 'j', value_name = "N", default_value_t = 1, value_parser = parse_jobs)]
    jobs: usize,
    /// Run only this part of the suite: INDEX/COUNT, 1-based (`--shard 2/4`).
    #[arg(long, value_name = "INDEX/COUNT", value_parser = parse_shard)]
    shard: Option<(usize, usize)>,
    /// The simulator's app model (default: found by app id; see `ad run --help`).
    #[arg(long, value_name = "MODEL")]
    app: Option<PathBuf>,
    /// Where run folders are written [default: `[run] artifacts-dir` of the ad.toml that
    /// applies to the first path, else ad-artifacts].
    #[arg(long, value_name = "DIR")]
    artifacts_dir: Option<PathBuf>,
    /// Write a JUnit XML report (one testcase per script).
    #[arg(long, value_name = "FILE")]
    report_junit: Option<PathBuf>,
    /// Write a JSON report.
    #[arg(long, value_name = "FILE")]
    report_json: Option<PathBuf>,
    /// For each script that failed, write DIR/<script>.diff: the change `ad heal` proposes and
    /// proves by a fresh run of the whole changed script (none when a step needs a human, whose
    /// repair-armed command is printed instead). Listed after the result line (docs/repair.md).
    #[arg(long, value_name = "DIR")]
    heal_proposals: Option<PathBuf>,
    /// Write a static HTML report into DIR (index.html, a page per script, the screenshots and
    /// observations it shows): open DIR/index.html from a CI artifact download. See docs/run.md.
    #[arg(long, value_name = "DIR")]
    report_html: Option<PathBuf>,
    /// Keep testing: after the first run, re-run each script you save (and the compositions
    /// that include it), one summary line per cycle, until Ctrl-C. Reports are rewritten each
    /// cycle with the scripts it ran.
    #[arg(long)]
    watch: bool,
    /// With --watch: how long a file must stay unchanged before it is re-run.
    #[arg(long, value_name = "MS", default_value_t = super::watch::DEFAULT_DEBOUNCE_MS, requires = "watch")]
    debounce: u64,
    #[command(flatten)]
    devices: super::agent_device::DeviceArgs,
    #[command(flatten)]
    backend: super::backend_args::BackendArgs,
    /// With --backend recorded:DIR: diff the run's normalized transcript against DIR/golden.txt
    /// (saved by --record-fixture DIR); a difference fails the suite.
    #[arg(long, conflicts_with = "update_golden")]
    golden: bool,
    /// With --backend recorded:DIR: rewrite DIR/golden.txt from this run.
    #[arg(long)]
    update_golden: bool,
    /// Run the Maestro flows (.yaml, .yml) under PATHS with agent-device's Maestro engine
    /// semantics (as `agent-device test DIR --maestro`), one fresh backend each: see
    /// `ad run --maestro` and docs/maestro.md.
    #[arg(long)]
    maestro: bool,
    /// With --maestro: let a runScript's http.post reach this machine (localhost only).
    #[arg(long, requires = "maestro")]
    allow_http: bool,
    /// Print the suite report (JSON) on stdout (with --maestro).
    #[arg(long, requires = "maestro")]
    json: bool,
    #[command(flatten)]
    input: files::InputArgs,
}

/// `--maestro`: every flow under the paths on the Maestro engine.
fn run_maestro(args: &TestArgs) -> i32 {
    if let Err(e) = args.backend.prepare_outputs(args.report_html.as_deref()) {
        return crate::usage_error(&e);
    }
    let golden = match golden_mode(args) {
        Ok(g) => g,
        Err(e) => return crate::usage_error(&e),
    };
    let near = args
        .paths
        .first()
        .cloned()
        .unwrap_or_else(|| PathBuf::from("."));
    let state_dir = match ad_runtime::session::default_state_dir() {
        Ok(d) => d,
        Err(e) => return crate::usage_error(&e.0),
    };
    // The ad.toml near the flows, read once: the artifacts folder and the default backend.
    let project = ad_compiler::config::Config::discover(&near).ok();
    let mut session = ad_runtime::session::SessionConfig {
        app_model: args.app.clone(),
        artifacts_root: super::backend_args::artifacts_dir_in(
            args.artifacts_dir.as_deref(),
            project.as_ref(),
        ),
        state_dir,
        ..Default::default()
    };
    args.backend.apply(&mut session);
    session.agent_device = args.devices.bridge();
    // Not found (or refused by the factory): left for each run to read and report.
    session.default_backend = project
        .as_ref()
        .and_then(|c| ad_runtime::backends::project_default(c).ok().flatten())
        .map(Some);
    super::maestro_run::test(
        &args.paths,
        super::maestro_run::MaestroRun {
            env: &args.env,
            session,
            session_name: "default".into(),
            platform: args.platform.clone(),
            target: None,
            json: args.json,
            quiet: true,
            allow_http: args.allow_http,
        },
        super::maestro_run::SuiteOutputs {
            junit: args.report_junit.as_deref(),
            json: args.report_json.as_deref(),
            html: args.report_html.as_deref(),
            golden,
            suite_root: suite_root(&args.paths).as_deref(),
        },
    )
}

/// Can a report be written at `path`? Its folder exists and takes a new file, and `path` is not
/// a folder. (Creates and removes a probe file beside it.)
fn writable_destination(path: &std::path::Path) -> Result<(), String> {
    if path.is_dir() {
        return Err("it is a folder".into());
    }
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => std::path::Path::new("."),
    };
    if !dir.is_dir() {
        return Err(format!("the folder {} does not exist", dir.display()));
    }
    let probe = dir.join(format!(".ad-report-probe-{}", std::process::id()));
    std::fs::write(&probe, b"").map_err(|e| e.to_string())?;
    let _ = std::fs::remove_file(&probe);
    Ok(())
}

/// Writes every report; returns one message per report that could not be written.
fn write_reports(reports: &[(PathBuf, Vec<u8>)]) -> Vec<String> {
    reports
        .iter()
        .filter_map(|(path, bytes)| {
            crate::atomic_write(path, bytes)
                .err()
                .map(|e| format!("{}: {e}", path.display()))
        })
        .collect()
}

/// What `--record-fixture`, `--golden` and `--update-golden` ask of the golden transcript.
fn golden_mode(args: &TestArgs) -> Result<Option<super::golden::Golden>, String> {
    use super::golden::Golden;
    let recorded = args
        .backend
        .backend
        .as_deref()
        .and_then(|b| b.strip_prefix("recorded:"))
        .map(PathBuf::from);
    match (&args.backend.record_fixture, recorded) {
        (Some(_), _) if args.golden || args.update_golden => {
            Err("--golden and --update-golden replay a fixture (--backend recorded:DIR); --record-fixture saves its golden transcript already".into())
        }
        (Some(dir), _) => Ok(Some(Golden::Save(dir.clone()))),
        (None, Some(dir)) if args.update_golden => Ok(Some(Golden::Update(dir))),
        (None, Some(dir)) if args.golden => Ok(Some(Golden::Check(dir))),
        (None, None) if args.golden || args.update_golden => {
            Err("--golden and --update-golden need --backend recorded:DIR".into())
        }
        _ => Ok(None),
    }
}

/// The folder fixture subfolders are named relative to: the one folder given, else the folder
/// of the one script given, else the working directory.
fn suite_root(paths: &[PathBuf]) -> Option<PathBuf> {
    match paths {
        [one] if one.is_dir() => Some(one.clone()),
        [one] => one.parent().map(PathBuf::from),
        _ => None,
    }
}

fn parse_jobs(s: &str) -> Result<usize, String> {
    match s.trim().parse::<usize>() {
        Ok(0) => Err("must be at least 1 (the number of scripts run at once)".into()),
        Ok(n) if n > 64 => Err(format!("{n} is more than 64 scripts at once")),
        Ok(n) => Ok(n),
        Err(_) => Err(format!("\"{s}\" is not a number of jobs (1 to 64)")),
    }
}

fn parse_shard(s: &str) -> Result<(usize, usize), String> {
    let (i, c) = s
        .split_once('/')
        .ok_or_else(|| format!("expected INDEX/COUNT (e.g. 2/4), got \"{s}\""))?;
    let i: usize = i
        .trim()
        .parse()
        .map_err(|_| format!("shard index \"{i}\" is not a number"))?;
    let c: usize = c
        .trim()
        .parse()
        .map_err(|_| format!("shard count \"{c}\" is not a number"))?;
    if c == 0 {
        return Err(format!("shard {i}/{c}: COUNT must be at least 1"));
    }
    if i == 0 || i > c {
        return Err(format!(
            "shard {i}/{c}: INDEX must be between 1 and COUNT ({c})"
        ));
    }
    Ok((i, c))
}

/// One script's result; `text` is the script (for rendering an invalid script's diagnostics),
/// `sources` a composition's source of each plan line (a failure names the fragment line).
fn describe(
    r: &CaseResult,
    text: &str,
    sources: &[Option<ad_runtime::core::records::journal::StepSource>],
    colour: bool,
) -> String {
    // Names and messages quote paths, script lines and device text: escaped.
    let mut line = format!(
        "{:<8} {}",
        r.status.word().to_uppercase(),
        crate::render::escape_controls(&r.display)
    );
    let last = r.attempts.last();
    match r.status {
        Status::Passed | Status::Flaky => {
            if let Some(a) = last {
                line.push_str(&format!(
                    "  ({} steps, {:.1} s device time)",
                    a.replayed,
                    a.device_ms as f64 / 1000.0
                ));
            }
            if r.status == Status::Flaky {
                line.push_str(&format!(
                    "  passed on attempt {} of {}",
                    r.attempts.len(),
                    r.retries_allowed + 1
                ));
                for (i, a) in r.attempts.iter().enumerate().filter(|(_, a)| !a.ok) {
                    line.push_str(&format!(
                        "\n           attempt {}: {}",
                        i + 1,
                        crate::render::escape_controls(a.message.as_deref().unwrap_or("failed"))
                    ));
                }
            }
        }
        Status::Failed => {
            if let Some(a) = last {
                if let Some(l) = a.line {
                    match l
                        .checked_sub(1)
                        .and_then(|i| sources.get(i))
                        .and_then(Option::as_ref)
                    {
                        Some(at) => line.push_str(&format!("\n           {at} (plan line {l})")),
                        None => line.push_str(&format!("\n           {}:{l}", r.display)),
                    }
                }
                line.push_str(&format!(
                    "\n           {}",
                    crate::render::escape_controls(a.message.as_deref().unwrap_or("failed"))
                ));
                if r.attempts.len() > 1 {
                    line.push_str(&format!("\n           ({} attempts)", r.attempts.len()));
                }
                if let Some(d) = &a.run_dir {
                    line.push_str(&format!("\n           journal {d}"));
                }
            }
        }
        Status::Invalid => {
            // The diagnostics as `ad check` renders them, then the gate's one-line reason.
            if let Some(refusal) = &r.refusal {
                let mut rendered = Vec::new();
                crate::render::refusal::render_refusal(
                    &r.display,
                    text,
                    refusal,
                    colour,
                    &mut rendered,
                );
                if !rendered.is_empty() {
                    line.push('\n');
                    line.push_str(String::from_utf8_lossy(&rendered).trim_end());
                }
                line.push_str(&format!("\n           not run: {}", refusal.summary));
            }
        }
        Status::Skipped => {
            if let Some(why) = &r.skip_reason {
                line.push_str(&format!("  ({why})"));
            }
        }
        // The problem itself is said once, after the results (every script met the same).
        Status::Error => {
            if let Some(p) = last.and_then(|a| a.setup.as_ref()) {
                line.push_str(&format!(
                    "  (not run: the {} backend cannot start)",
                    p.backend
                ));
            }
        }
    }
    line
}

pub fn run(args: TestArgs) -> i32 {
    if args.maestro {
        return run_maestro(&args);
    }
    if args.watch {
        let debounce = std::time::Duration::from_millis(args.debounce);
        return super::watch::watch(&args.paths, debounce, false, |paths| {
            let (_, verdict) = test_paths(&args, paths);
            super::watch::CycleOutcome { verdict }
        });
    }
    let paths = match files::collect(&args.paths) {
        Ok(p) => p,
        Err(e) => return crate::usage_error(&e.0),
    };
    test_paths(&args, &paths).0
}

/// Runs the scripts at `paths` as a suite, prints the results and writes the reports; returns
/// the exit code and the verdict (`ok. 2 passed, 0 failed`).
fn test_paths(args: &TestArgs, paths: &[PathBuf]) -> (i32, String) {
    let paths: Vec<PathBuf> = paths
        .iter()
        .filter(|p| p.as_os_str() != "-")
        .cloned()
        .collect();
    let usage = |m: &str| {
        (
            crate::usage_error(m),
            "could not run (see above)".to_string(),
        )
    };
    if paths.is_empty() {
        return usage("no .ad scripts found in the given paths");
    }
    let mut cases = Vec::new();
    for p in &paths {
        // A broken ad.toml makes its scripts INVALID (the run gate says why), not the suite
        // abort: read them through the default cap.
        let project = ad_compiler::check_file::discover_config(p);
        let limit = args
            .input
            .limit_in(&project)
            .unwrap_or_else(|_| args.input.limit(&Default::default()));
        match files::read_with_limit(p, limit) {
            // A fragment runs only from a composition that includes it.
            Ok(s) if ad_compiler::check_file::kind_of(&s.text) == ScriptKind::Fragment => {}
            Ok(s) => {
                let (text, sources) = super::compose::text_for_suite(
                    p,
                    s.text,
                    &project,
                    &args.env,
                    args.input.max_file_size,
                );
                cases.push(Case {
                    path: p.clone(),
                    display: s.name,
                    text,
                    sources,
                    config: Some(project),
                })
            }
            Err(e) => return usage(&e.0),
        }
    }
    let golden = match golden_mode(args) {
        Ok(g) => g,
        Err(e) => return usage(&e),
    };
    let cli_env = match vars::parse_cli_entries(&args.env) {
        Ok(v) => v,
        Err(e) => return usage(&e),
    };
    // Report destinations are checked before anything runs: a typo must not cost a whole suite.
    for report in [&args.report_junit, &args.report_json]
        .into_iter()
        .flatten()
    {
        if let Err(e) = writable_destination(report) {
            return usage(&format!(
                "{}: cannot write the report there: {e} (nothing was run)",
                report.display()
            ));
        }
    }
    if let Err(e) = args.backend.prepare_outputs(args.report_html.as_deref()) {
        return usage(&e);
    }
    // --backend agent-device (issue 15): one daemon for the whole suite, started here when
    // none runs (and stopped when `_shared_daemon` drops); each script's session and apps are
    // released after it.
    let (bridge, _shared_daemon) = if args.backend.is_agent_device() {
        if args.jobs > 1 {
            return usage(
                "--backend agent-device runs one script at a time on its device: drop --jobs",
            );
        }
        let mut bridge = args.devices.bridge();
        bridge.release_session = true;
        match ad_runtime::session::suite::shared_daemon(&bridge) {
            Ok(shared) => {
                if let Some(d) = &shared {
                    bridge.state_dir = Some(d.state_dir.clone());
                }
                (Some(bridge), shared)
            }
            // The suite's daemon cannot start: a set-up error, said once, before any script.
            Err(e) => {
                let problem = ad_runtime::core::records::SetupProblem::new("agent-device", e, None);
                eprint!("{}", crate::render::refusal::render_setup(&problem, None));
                return (2, "could not run (see above)".to_string());
            }
        }
    } else {
        (None, None)
    };
    let opts = SuiteOptions {
        platform: args.platform.clone(),
        timeout_ms: args.timeout,
        retries: args.retries,
        fail_fast: args.fail_fast,
        jobs: args.jobs.max(1),
        shard: args.shard,
        session: {
            let mut session = SessionConfig {
                app_model: args.app.clone(),
                artifacts_root: super::backend_args::artifacts_dir(
                    args.artifacts_dir.as_deref(),
                    args.paths.first().map_or(Path::new("."), PathBuf::as_path),
                ),
                persist_session: false,
                // Nothing is kept there (persist_session is off): a missing one is no error.
                state_dir: ad_runtime::session::default_state_dir().unwrap_or_default(),
                no_journal: false,
                ..SessionConfig::default()
            };
            args.backend.apply(&mut session);
            session
        },
        cli_env,
        shell_env: vars::shell_imports(std::env::vars()),
        level: "default".into(),
        // --backend agent-device: one daemon for the suite (above).
        agent_device: bridge,
        suite_root: suite_root(&args.paths),
        // `ad run SCRIPT` with these is what a divergence report offers (`ad run FILE` spells
        // them; the leading `ad run FILE` is dropped, each script names itself).
        run_options: super::backend_args::RunChoice {
            backend: &args.backend,
            devices: &args.devices,
            kind: None,
            app: args.app.as_deref(),
            session: None,
            platform: None,
            target: None,
        }
        .resume_command("FILE")
        .trim_start_matches("ad run FILE")
        .trim()
        .to_string(),
    };
    let colour = std::io::stdout().is_terminal();
    let texts: std::collections::HashMap<&str, &Case> =
        cases.iter().map(|c| (c.display.as_str(), c)).collect();
    let mut print = |r: &CaseResult| {
        let case = texts.get(r.display.as_str());
        let text = case.map_or("", |c| c.text.as_str());
        let sources = case.map_or(&[][..], |c| c.sources.as_slice());
        let mut out = std::io::stdout().lock();
        let _ = writeln!(out, "{}", describe(r, text, sources, colour));
        let _ = out.flush();
    };
    // Ctrl-C / SIGTERM: the running scripts stop at their next step, no new one starts, and the
    // reports are still written.
    if !super::watch::watching() {
        ad_runtime::core::interrupt::install();
    }
    let summary = suite::run_suite(&cases, &opts, &mut print);
    let mut parts = vec![
        format!(
            "{} passed",
            summary.count(Status::Passed) + summary.count(Status::Flaky)
        ),
        format!("{} failed", summary.count(Status::Failed)),
    ];
    if summary.count(Status::Flaky) > 0 {
        parts.push(format!("{} flaky", summary.count(Status::Flaky)));
    }
    if summary.count(Status::Invalid) > 0 {
        parts.push(format!("{} invalid", summary.count(Status::Invalid)));
    }
    if summary.count(Status::Skipped) > 0 {
        parts.push(format!("{} skipped", summary.count(Status::Skipped)));
    }
    let setup_errors = summary.count(Status::Error);
    if setup_errors > 0 {
        parts.push(format!("{setup_errors} not run (set-up error)"));
    }
    let mut extra = Vec::new();
    if summary.filtered > 0 {
        extra.push(format!(
            "{} left out by --platform {}",
            summary.filtered,
            args.platform.as_deref().unwrap_or("")
        ));
    }
    if summary.other_shards > 0 {
        extra.push(format!("{} in other shards", summary.other_shards));
    }
    let extra = if extra.is_empty() {
        String::new()
    } else {
        format!(" ({})", extra.join(", "))
    };
    println!();
    // Each set-up problem once, with the scripts it kept from running: an error of the
    // environment, not of the scripts.
    for problem in summary.setup_problems() {
        let scripts: Vec<&str> = summary
            .results
            .iter()
            .filter(|r| r.attempts.last().and_then(|a| a.setup.as_ref()) == Some(problem))
            .map(|r| r.display.as_str())
            .collect();
        eprint!("{}", crate::render::refusal::render_setup(problem, None));
        eprintln!(
            "  {} script(s) not run: {}\n",
            scripts.len(),
            scripts.join(", ")
        );
    }
    println!(
        "test result: {}. {}{extra}; finished in {:.2} s",
        if summary.ok() { "ok" } else { "FAILED" },
        parts.join(", "),
        summary.wall_ms / 1000.0
    );
    let proposals = match &args.heal_proposals {
        Some(dir) => heal_proposals(dir, &summary, &cases, &opts),
        None => Default::default(),
    };
    // Every report is attempted; a failed write is reported after the verdict, never instead of it.
    let record = suite::report(&summary);
    let mut reports = Vec::new();
    if let Some(p) = &args.report_junit {
        reports.push((
            p.clone(),
            crate::render::junit::junit_with(
                &record,
                &proposals
                    .iter()
                    .filter_map(|(k, l)| Some((k.clone(), l.diff.as_ref()?.display().to_string())))
                    .collect(),
            )
            .into_bytes(),
        ));
    }
    if let Some(p) = &args.report_json {
        let text = serde_json::to_string_pretty(&record).unwrap_or_default() + "\n";
        reports.push((p.clone(), text.into_bytes()));
    }
    let golden_failed = golden.as_ref().and_then(|g| {
        let root = opts.suite_root.as_deref();
        let scripts = &suite::report(&summary).scripts;
        super::golden::finish(g, scripts, &opts.session.artifacts_root, root).err()
    });
    let mut write_failures = write_reports(&reports);
    if let Some(dir) = &args.report_html {
        let texts = cases
            .iter()
            .map(|c| (c.display.clone(), c.text.clone()))
            .collect();
        let scripts = crate::render::html::load(&record, &texts);
        let report = crate::render::html::build_with_heal("ad test", &record, &scripts, &proposals);
        if let Err(e) = report.write(dir) {
            write_failures.push(format!("{}: {e}", dir.display()));
        }
    }
    let verdict = format!(
        "{}. {}",
        if summary.ok() { "ok" } else { "FAILED" },
        parts.join(", ")
    );
    if !write_failures.is_empty() {
        for f in &write_failures {
            eprintln!("error: cannot write the report {f}");
        }
        let word = if summary.ok() { "passed" } else { "FAILED" };
        eprintln!("(the suite {word}; see the result line above)");
        return (if summary.ok() { 2 } else { 1 }, verdict);
    }
    let code = if ad_runtime::core::interrupt::requested().is_some() {
        130
    } else if setup_errors > 0 {
        // The environment must be fixed before the suite's verdict means anything.
        2
    } else if let Some(code) = golden_failed.filter(|_| summary.ok()) {
        code
    } else if summary.ok() {
        0
    } else {
        1
    };
    (code, verdict)
}

/// `--heal-proposals DIR`: `ad heal` on each failed script (plain scripts only: a composition's
/// plan lines are its expansion's), one `.diff` per script that got proven proposals; returns
/// each written file by the script's path as shown (for the JUnit report).
fn heal_proposals(
    dir: &Path,
    summary: &suite::Summary,
    cases: &[Case],
    opts: &SuiteOptions,
) -> std::collections::BTreeMap<String, crate::render::html::HealListing> {
    let mut listings = std::collections::BTreeMap::new();
    use ad_runtime::session::heal;
    let redactor = vars::Redactor::new(
        opts.shell_env
            .iter()
            .chain(&opts.cli_env)
            .map(|(k, v)| (k.as_str(), v.as_str())),
    );
    for r in summary
        .results
        .iter()
        .filter(|r| r.status == Status::Failed)
    {
        let Some(case) = cases.iter().find(|c| c.display == r.display) else {
            continue;
        };
        if !case.sources.is_empty() {
            println!(
                "heal: {}: a composition is not healed (heal its fragments' scripts)",
                case.display
            );
            continue;
        }
        let mut config = opts.session.clone();
        if let Some(b) = &opts.agent_device {
            config.agent_device = b.clone();
        }
        // `--backend recorded:DIR` names the suite's fixture root: each script heals from its
        // own subfolder, as its run replayed it.
        if let Some(root) = &mut config.recorded {
            *root = root.join(suite::fixture_subfolder(case, opts.suite_root.as_deref()));
        }
        let request = heal::Request {
            script: &case.path,
            text: case.text.clone(),
            options: ad_runtime::core::interp::RunOptions {
                script_path: case.display.clone(),
                cli_env: opts.cli_env.clone(),
                shell_env: opts.shell_env.clone(),
                session: "heal".into(),
                level: "full".into(),
                ..Default::default()
            },
            config,
        };
        let outcome = match heal::heal(&request, &mut ad_runtime::core::interp::Quiet) {
            Ok(o) => o,
            Err(heal::Refused(m)) => {
                println!("heal: {}: {}", case.display, redactor.redact(&m));
                continue;
            }
        };
        // A repair needs the device: from a recording, the one it was recorded on.
        let repair_command = match &outcome.recording {
            Some(rec) => format!(
                "ad run {} --backend {} --save-script",
                case.display, rec.backend
            ),
            None => format!("ad run {} --save-script", case.display),
        };
        let scope = match outcome.recording_end() {
            Some((_, end)) => format!(
                "change(s) for {}, proven on the recording up to step {} of {}; prove the rest on a device",
                case.display,
                end.step,
                outcome.proposals.last().map_or(0, |p| p.proof.total)
            ),
            None => format!("proven change(s) for {}", case.display),
        };
        let record = super::heal::record(&case.display, &outcome, &repair_command, &redactor);
        // Where `ad heal` keeps it: the editor offers the proposal from there.
        let record_path = ad_runtime::core::records::heal::record_path(
            &opts.session.artifacts_root,
            &case.display,
        );
        let json = serde_json::to_string_pretty(&record).unwrap_or_default() + "\n";
        if let Err(e) = record_path
            .parent()
            .map_or(Ok(()), std::fs::create_dir_all)
            .and_then(|_| crate::atomic_write(&record_path, json.as_bytes()))
        {
            eprintln!(
                "warning: cannot write the heal record {}: {e}",
                record_path.display()
            );
        }
        if let Some(h) = &outcome.human {
            println!(
                "heal: {}: step {} (line {}) needs a human: {} (`{repair_command}`)",
                case.display, h.step, h.line, h.repair_hint
            );
            listings.insert(
                case.display.clone(),
                crate::render::html::HealListing { record, diff: None },
            );
            continue;
        }
        if outcome.proposals.is_empty() {
            continue;
        }
        // DIR/<script as shown>.diff, kept inside DIR.
        let relative: PathBuf = Path::new(&case.display)
            .components()
            .filter_map(|c| match c {
                std::path::Component::Normal(n) => Some(n),
                _ => None,
            })
            .collect();
        let target = dir.join(format!("{}.diff", relative.display()));
        let diff = redactor.redact(&super::heal::unified_diff(&case.display, &outcome));
        let written = target
            .parent()
            .map_or(Ok(()), std::fs::create_dir_all)
            .and_then(|_| crate::atomic_write(&target, diff.as_bytes()));
        match written {
            Ok(()) => {
                println!(
                    "heal proposal: {} ({} {scope})",
                    target.display(),
                    outcome.proposals.len(),
                );
                listings.insert(
                    case.display.clone(),
                    crate::render::html::HealListing {
                        record,
                        diff: Some(target.clone()),
                    },
                );
            }
            Err(e) => eprintln!(
                "error: cannot write the heal proposal {}: {e}",
                target.display()
            ),
        }
    }
    listings
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_report_that_cannot_be_written_does_not_stop_the_others() {
        let dir = std::env::temp_dir().join(format!("ad-reports-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let good = dir.join("good.json");
        let bad = dir.join("missing-folder/j.xml");
        let failures = write_reports(&[
            (bad.clone(), b"<x/>".to_vec()),
            (good.clone(), b"{}".to_vec()),
        ]);
        assert_eq!(failures.len(), 1);
        assert!(
            failures[0].starts_with(&bad.display().to_string()),
            "{failures:?}"
        );
        assert_eq!(std::fs::read(&good).unwrap(), b"{}");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn report_destinations_are_checked() {
        assert!(writable_destination(std::path::Path::new("/nonexistent/j.xml")).is_err());
        assert!(
            writable_destination(&std::env::temp_dir()).is_err(),
            "a folder"
        );
        assert!(writable_destination(&std::env::temp_dir().join("r.xml")).is_ok());
    }
}
