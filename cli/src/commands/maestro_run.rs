//! `ad run --maestro FLOW.yaml` and `ad test --maestro PATHS`: Maestro flows on any backend,
//! with agent-device's engine semantics (`ad_maestro::run`), the same journal and run folder as
//! `.ad` runs, and a failure reported at the flow's line and column.

use std::path::{Path, PathBuf};

use ad_maestro::run::program::{Program, Refused};
use ad_maestro::run::{self, Options, Outcome};
use ad_runtime::backends::sim::ModelResolver;
use ad_runtime::backends::{BackendKind, BackendSetup};
use ad_runtime::core::interp::Progress;
use ad_runtime::core::records::suite::{Attempt, ScriptReport, Status, SuiteCounts, SuiteReport};
use ad_runtime::core::vars;
use ad_runtime::session::SessionConfig;

use crate::render::CheckedFile;

/// What a Maestro run was asked for.
pub struct MaestroRun<'a> {
    pub env: &'a [String],
    pub session: SessionConfig,
    pub session_name: String,
    pub platform: Option<String>,
    pub target: Option<String>,
    pub json: bool,
    pub quiet: bool,
    /// `--allow-http`: `runScript`'s `http.post` may reach local hosts.
    pub allow_http: bool,
}

/// Why a flow did not run at all.
enum NotRun {
    /// agent-device refuses it before the first step (its reader, its plan).
    Refused(Refused),
    /// The backend could not start, or no run folder could be made.
    Setup(String),
}

struct Ran {
    outcome: Outcome,
    backend: BackendKind,
}

/// `ad run --maestro FLOW.yaml`.
pub fn run(flow: &Path, request: MaestroRun, html: Option<&Path>) -> i32 {
    let cli_env = match vars::parse_cli_entries(request.env) {
        Ok(v) => v,
        Err(e) => return crate::usage_error(&e),
    };
    let display = flow.display().to_string();
    let mut live = crate::render::progress::StderrProgress::new();
    let mut quiet = ad_runtime::core::interp::Quiet;
    let progress: &mut dyn Progress = if request.quiet || request.json {
        &mut quiet
    } else {
        &mut live
    };
    ad_runtime::core::interrupt::install();
    match run_one(flow, &display, &cli_env, &request, None, progress) {
        Err(NotRun::Refused(r)) => print_refused(&r),
        Err(NotRun::Setup(e)) => {
            eprintln!("error: {e}");
            2
        }
        Ok(ran) => {
            let o = &ran.outcome;
            if request.json {
                println!("{}", result_json(&display, &ran));
            } else {
                print_outcome(&display, &ran);
            }
            if let Some(dir) = html {
                let report = ran_report(&display, &ran, o.wall_ms);
                let ok = report.status == Status::Passed;
                let suite = SuiteReport {
                    version: 1,
                    summary: SuiteCounts {
                        total: 1,
                        passed: usize::from(ok),
                        flaky: 0,
                        failed: usize::from(!ok),
                        invalid: 0,
                        errors: 0,
                        skipped: 0,
                        filtered: 0,
                        other_shards: 0,
                        ok,
                        wall_ms: o.wall_ms,
                    },
                    scripts: vec![report],
                };
                if let Err(e) = write_html(dir, &suite, &[(display.clone(), flow.to_path_buf())]) {
                    eprintln!("error: {e}");
                    return 2;
                }
            }
            o.exit_code()
        }
    }
}

/// `fixture`: in a suite, the flow's own subfolder of `--record-fixture DIR` and of
/// `--backend recorded:DIR` (as `.ad` suites keep one recording per script).
fn run_one(
    flow: &Path,
    display: &str,
    cli_env: &[(String, String)],
    request: &MaestroRun,
    fixture: Option<&Path>,
    progress: &mut dyn Progress,
) -> Result<Ran, NotRun> {
    let read = |p: &Path| std::fs::read_to_string(p).ok();
    if !flow.is_file() {
        return Err(NotRun::Setup(format!("{display}: no such flow file")));
    }
    let program = Program::load(flow, display, &read).map_err(NotRun::Refused)?;
    let in_suite = |dir: &Option<PathBuf>| match (dir, fixture) {
        (Some(d), Some(sub)) => Some(d.join(sub)),
        (d, _) => d.clone(),
    };
    let config = &ad_runtime::session::SessionConfig {
        record_fixture: in_suite(&request.session.record_fixture),
        recorded: in_suite(&request.session.recorded),
        ..request.session.clone()
    };
    let kind = config
        .backend
        .or(config.default_backend.flatten())
        .unwrap_or(BackendKind::Sim);
    if kind == BackendKind::Recorded && config.record_fixture.is_some() {
        return Err(NotRun::Setup(
            "--record-fixture records a device run; a recorded run replays one: drop one of them"
                .into(),
        ));
    }
    let setup = BackendSetup {
        models: ModelResolver::for_script(flow, config.app_model.clone()),
        web: ad_runtime::backends::web::LaunchConfig {
            urls: config.web.urls.for_script(flow),
            ..config.web.clone()
        },
        agent_device: ad_runtime::backends::agent_device::BridgeSetup {
            config: config.agent_device.clone(),
            session: request.session_name.clone(),
            platform: request.platform.clone(),
            target: request.target.clone(),
            may_start: true,
        },
        recorded: match (&config.recorded, kind) {
            (Some(dir), BackendKind::Recorded) => Some(
                ad_runtime::backends::recorded::ReplaySource::open(dir)
                    .map_err(|e| NotRun::Setup(format!("{}: {e}", dir.display())))?,
            ),
            _ => None,
        },
        injected: shell_env()
            .into_iter()
            .chain(cli_env.iter().cloned())
            .collect(),
    };
    let options = Options {
        cli_env: cli_env.to_vec(),
        shell_env: shell_env(),
        http: request.allow_http.then(local_http),
        screenshots: None,
        timing: Default::default(),
        session: request.session_name.clone(),
        target: request.target.clone().unwrap_or_else(|| "mobile".into()),
    };
    let outcome = run::run_on_new_backend(
        kind,
        setup,
        &program,
        &options,
        run::RunPlace {
            artifacts: &config.artifacts_root,
            session: &request.session_name,
            record_fixture: config.record_fixture.as_deref(),
        },
        progress,
    )
    .map_err(|e| match e {
        run::SetupError::Backend(p) => {
            NotRun::Setup(crate::render::refusal::render_setup(&p, None))
        }
        run::SetupError::Other(m) => NotRun::Setup(m),
        run::SetupError::Refused(r) => NotRun::Refused(*r),
    })?;
    Ok(Ran {
        outcome,
        backend: kind,
    })
}

fn shell_env() -> Vec<(String, String)> {
    vars::shell_imports(std::env::vars())
}

/// `http.post` for a flow run with `--allow-http`: plain HTTP to this machine only
/// (`localhost`, `127.0.0.0/8`, `::1`), never anywhere else.
fn local_http() -> ad_maestro::script::HttpTransport {
    std::sync::Arc::new(|request: &ad_maestro::script::HttpRequest| http_post_local(request))
}

fn http_post_local(
    request: &ad_maestro::script::HttpRequest,
) -> Result<ad_maestro::script::HttpResponse, String> {
    use std::io::{Read, Write};
    let rest = request
        .url
        .strip_prefix("http://")
        .ok_or("only http:// URLs on this machine are allowed")?;
    let (authority, path) = match rest.find('/') {
        Some(i) => (&rest[..i], &rest[i..]),
        None => (rest, "/"),
    };
    let (host, port) = match authority.rsplit_once(':') {
        Some((h, p)) if !h.ends_with(']') || authority.starts_with('[') => {
            (h, p.parse::<u16>().map_err(|_| "bad port".to_string())?)
        }
        _ => (authority, 80),
    };
    let host = host.trim_start_matches('[').trim_end_matches(']');
    let local = host == "localhost"
        || host
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback());
    if !local {
        return Err(format!(
            "{host} is not this machine: --allow-http allows only localhost"
        ));
    }
    let addr = if host == "localhost" {
        "127.0.0.1"
    } else {
        host
    };
    let mut stream = std::net::TcpStream::connect((addr, port)).map_err(|e| e.to_string())?;
    stream
        .set_read_timeout(Some(std::time::Duration::from_secs(30)))
        .ok();
    let mut headers = String::new();
    if let Ok(serde_json::Value::Object(map)) =
        serde_json::from_str::<serde_json::Value>(&request.headers_json)
    {
        for (k, v) in map {
            let v = v
                .as_str()
                .map(str::to_string)
                .unwrap_or_else(|| v.to_string());
            if !k.contains(['\r', '\n', ':']) && !v.contains(['\r', '\n']) {
                headers.push_str(&format!("{k}: {v}\r\n"));
            }
        }
    }
    let head = format!(
        "{} {path} HTTP/1.0\r\nHost: {authority}\r\nContent-Length: {}\r\nConnection: close\r\n{headers}\r\n",
        request.method,
        request.body.len()
    );
    stream
        .write_all(head.as_bytes())
        .and_then(|_| stream.write_all(request.body.as_bytes()))
        .map_err(|e| e.to_string())?;
    let mut raw = Vec::new();
    stream
        .take(16 << 20)
        .read_to_end(&mut raw)
        .map_err(|e| e.to_string())?;
    let text = String::from_utf8_lossy(&raw);
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    let mut lines = head.lines();
    let status = lines
        .next()
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|s| s.parse().ok())
        .ok_or("not an HTTP response")?;
    let headers = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_lowercase(), v.trim().to_string()))
        .collect();
    Ok(ad_maestro::script::HttpResponse {
        status,
        body: body.to_string(),
        headers,
    })
}

fn print_refused(r: &Refused) -> i32 {
    let file = CheckedFile::new(r.display.clone(), r.text.clone(), r.diagnostics.clone());
    let colour = std::io::IsTerminal::is_terminal(&std::io::stderr());
    let mut out = Vec::new();
    for d in r
        .diagnostics
        .iter()
        .filter(|d| ad_maestro::run::program::stops_the_plan(d))
    {
        crate::render::human::render(&file, d, colour, &mut out);
    }
    if r.diagnostics.is_empty() {
        out.extend_from_slice(format!("error: {}: cannot read the flow\n", r.display).as_bytes());
    }
    eprint!("{}", String::from_utf8_lossy(&out));
    eprintln!(
        "refused: {} — agent-device refuses this flow before its first step; nothing was run",
        r.display
    );
    2
}

fn print_outcome(display: &str, ran: &Ran) {
    let o = &ran.outcome;
    let journal = o
        .run_dir
        .as_ref()
        .map(|d| d.display().to_string())
        .unwrap_or_default();
    for w in &o.warnings {
        eprintln!("warning: {w}");
    }
    if o.interrupted {
        eprintln!(
            "interrupted: {display} — {} step(s) run; journal {journal}",
            o.steps
        );
        return;
    }
    match &o.failure {
        None => eprintln!(
            "ok: {display} — {} step(s) run in {:.0} ms ({}); journal {journal}",
            o.steps,
            o.wall_ms,
            ran.backend.name()
        ),
        Some(f) => {
            eprintln!(
                "error[{}]: {}\n  --> {}:{}:{}  (step {}: {})",
                f.code, f.message, f.file, f.line, f.column, f.step, f.action
            );
            if let Some(h) = &f.hint {
                eprintln!("  = help: {h}");
            }
            if let Some(report) = &f.report {
                // A flow runs from its first command: the report offers the whole run again.
                let rerun = format!(
                    "ad run --maestro {}",
                    ad_runtime::backends::command_line(&[display])
                );
                let text = crate::render::divergence::render(report, &rerun);
                eprint!("{text}");
                if !text.ends_with('\n') {
                    eprintln!();
                }
            }
            eprintln!(
                "failed: {display} — {} step(s) run; journal {journal}",
                o.steps
            );
        }
    }
}

fn result_json(display: &str, ran: &Ran) -> serde_json::Value {
    let o = &ran.outcome;
    serde_json::json!({
        "flow": display,
        "backend": ran.backend.name(),
        "ok": o.ok(),
        "exitCode": o.exit_code(),
        "steps": o.steps,
        "interrupted": o.interrupted,
        "deviceMs": o.device_ms,
        "wallMs": o.wall_ms,
        "runDir": o.run_dir,
        "artifacts": o.artifacts,
        "warnings": o.warnings,
        "error": o.failure.as_ref().map(|f| serde_json::json!({
            "code": f.code,
            "message": f.message,
            "hint": f.hint,
            "file": f.file,
            "line": f.line,
            "column": f.column,
            "step": f.step,
            "action": f.action,
            "divergence": f.report,
        })),
    })
}

/// `ad test --maestro PATHS`: every flow (and nothing else) under the paths, one fresh backend
/// each, a line per flow and a summary; `--report-junit`/`--report-json` as for `.ad` suites.
pub fn test(paths: &[PathBuf], request: MaestroRun, reports: SuiteOutputs) -> i32 {
    let SuiteOutputs {
        junit,
        json,
        html,
        golden,
        suite_root,
    } = reports;
    let cli_env = match vars::parse_cli_entries(request.env) {
        Ok(v) => v,
        Err(e) => return crate::usage_error(&e),
    };
    let mut flows = Vec::new();
    for p in paths {
        collect(p, &mut flows);
    }
    flows.sort();
    flows.dedup();
    if flows.is_empty() {
        return crate::usage_error("no Maestro flows (.yaml, .yml) under the given paths");
    }
    ad_runtime::core::interrupt::install();
    let started = std::time::Instant::now();
    let mut scripts = Vec::new();
    let mut quiet = ad_runtime::core::interp::Quiet;
    for flow in &flows {
        if ad_runtime::core::interrupt::requested().is_some() {
            break;
        }
        let display = flow.display().to_string();
        let t = std::time::Instant::now();
        let fixture = fixture_subfolder(flow, paths);
        let report = match run_one(
            flow,
            &display,
            &cli_env,
            &request,
            Some(&fixture),
            &mut quiet,
        ) {
            Err(NotRun::Refused(r)) => {
                let first = ad_maestro::first_rejection(&r.diagnostics)
                    .or_else(|| {
                        r.diagnostics
                            .iter()
                            .find(|d| ad_maestro::run::program::stops_the_plan(d))
                    })
                    .map(|d| d.message.to_string())
                    .unwrap_or_else(|| "cannot read the flow".into());
                eprintln!("invalid  {display}: {first}");
                ScriptReport {
                    path: display.clone(),
                    status: Status::Invalid,
                    skip_reason: None,
                    retries_allowed: 0,
                    timeout_ms: None,
                    refused: Some(first),
                    static_errors: Vec::new(),
                    attempts: Vec::new(),
                    wall_ms: t.elapsed().as_secs_f64() * 1000.0,
                }
            }
            Err(NotRun::Setup(e)) => {
                eprintln!("error    {display}: {e}");
                ScriptReport {
                    path: display.clone(),
                    status: Status::Error,
                    skip_reason: None,
                    retries_allowed: 0,
                    timeout_ms: None,
                    refused: Some(e),
                    static_errors: Vec::new(),
                    attempts: Vec::new(),
                    wall_ms: t.elapsed().as_secs_f64() * 1000.0,
                }
            }
            Ok(ran) => {
                let o = &ran.outcome;
                match &o.failure {
                    None => eprintln!("passed   {display} ({} steps)", o.steps),
                    Some(f) => eprintln!(
                        "failed   {display}: {}:{}:{}: {} {}",
                        f.file, f.line, f.column, f.code, f.message
                    ),
                }
                ran_report(&display, &ran, t.elapsed().as_secs_f64() * 1000.0)
            }
        };
        scripts.push(report);
    }
    let count = |s: Status| scripts.iter().filter(|r| r.status == s).count();
    let summary = SuiteCounts {
        total: scripts.len(),
        passed: count(Status::Passed),
        flaky: 0,
        failed: count(Status::Failed),
        invalid: count(Status::Invalid),
        errors: count(Status::Error),
        skipped: 0,
        filtered: 0,
        other_shards: 0,
        ok: scripts.iter().all(|r| r.status == Status::Passed),
        wall_ms: started.elapsed().as_secs_f64() * 1000.0,
    };
    let suite = SuiteReport {
        version: 1,
        summary,
        scripts,
    };
    eprintln!(
        "{} flow(s): {} passed, {} failed, {} invalid, {} error(s)",
        suite.summary.total,
        suite.summary.passed,
        suite.summary.failed,
        suite.summary.invalid,
        suite.summary.errors
    );
    if let Some(path) = junit {
        let xml = crate::render::junit::junit_with(&suite, &Default::default());
        if let Err(e) = crate::atomic_write(path, xml.as_bytes()) {
            eprintln!("error: cannot write {}: {e}", path.display());
            return 2;
        }
    }
    if let Some(path) = json {
        let text = serde_json::to_string_pretty(&suite).unwrap_or_default();
        if let Err(e) = crate::atomic_write(path, text.as_bytes()) {
            eprintln!("error: cannot write {}: {e}", path.display());
            return 2;
        }
    }
    if let Some(dir) = html {
        let shown: Vec<(String, PathBuf)> = flows
            .iter()
            .map(|f| (f.display().to_string(), f.clone()))
            .collect();
        if let Err(e) = write_html(dir, &suite, &shown) {
            eprintln!("error: {e}");
            return 2;
        }
    }
    if request.json {
        println!("{}", serde_json::to_string(&suite).unwrap_or_default());
    }
    // The same transcript as a suite of `.ad` scripts: verdicts and journals, normalized.
    let golden_failed = golden.as_ref().and_then(|g| {
        super::golden::finish(
            g,
            &suite.scripts,
            &request.session.artifacts_root,
            suite_root,
        )
        .err()
    });
    if ad_runtime::core::interrupt::requested().is_some() {
        130
    } else if suite.summary.errors > 0 && suite.summary.failed == 0 {
        2
    } else if let Some(code) = golden_failed.filter(|_| suite.summary.ok) {
        code
    } else if suite.summary.ok {
        0
    } else {
        1
    }
}

/// What `ad test --maestro` writes beside its verdict lines.
pub struct SuiteOutputs<'a> {
    pub junit: Option<&'a Path>,
    pub json: Option<&'a Path>,
    pub html: Option<&'a Path>,
    /// `--record-fixture` saves the golden transcript; `--golden`/`--update-golden` check or
    /// rewrite it.
    pub golden: Option<super::golden::Golden>,
    /// The folder the transcript's flow paths are collapsed from (`<suite>`).
    pub suite_root: Option<&'a Path>,
}

/// A flow file, or every `.yaml`/`.yml` under a folder (hidden folders skipped).
/// A flow's fixture subfolder in a suite: its path relative to the folder argument it was found
/// under (a file argument: its name), with only plain parts, so it never points outside.
fn fixture_subfolder(flow: &Path, paths: &[PathBuf]) -> PathBuf {
    let rel = paths
        .iter()
        .filter(|p| p.is_dir())
        .find_map(|p| flow.strip_prefix(p).ok())
        .or_else(|| flow.file_name().map(Path::new))
        .unwrap_or(flow);
    rel.components()
        .filter(|c| matches!(c, std::path::Component::Normal(_)))
        .collect()
}

fn collect(p: &Path, out: &mut Vec<PathBuf>) {
    if p.is_file() {
        out.push(p.to_path_buf());
        return;
    }
    let Ok(entries) = std::fs::read_dir(p) else {
        return;
    };
    for e in entries.flatten() {
        let path = e.path();
        let hidden = path
            .file_name()
            .and_then(|n| n.to_str())
            .is_some_and(|n| n.starts_with('.'));
        if hidden {
            continue;
        }
        if path.is_dir() {
            collect(&path, out);
        } else if matches!(
            path.extension().and_then(|x| x.to_str()),
            Some("yaml" | "yml")
        ) {
            out.push(path);
        }
    }
}

/// The suite record of a flow that ran.
fn ran_report(display: &str, ran: &Ran, wall_ms: f64) -> ScriptReport {
    let o = &ran.outcome;
    let status = if o.ok() {
        Status::Passed
    } else {
        Status::Failed
    };
    ScriptReport {
        path: display.to_string(),
        status,
        skip_reason: None,
        retries_allowed: 0,
        timeout_ms: None,
        refused: None,
        static_errors: Vec::new(),
        attempts: vec![Attempt {
            ok: o.ok(),
            code: o.failure.as_ref().map(|f| f.code.clone()),
            kind: o
                .failure
                .as_ref()
                .and_then(|f| f.report.as_ref().map(|r| r.kind)),
            // The line is the report's; a failure in an included flow names it.
            message: o.failure.as_ref().map(|f| {
                if f.file == display {
                    f.message.clone()
                } else {
                    format!("{} ({}:{}:{})", f.message, f.file, f.line, f.column)
                }
            }),
            step: o.failure.as_ref().map(|f| f.step),
            line: o.failure.as_ref().map(|f| f.line),
            replayed: o.steps,
            total: o.steps,
            run_dir: o.run_dir.as_ref().map(|d| d.display().to_string()),
            wall_ms: o.wall_ms,
            device_ms: o.device_ms,
            setup: None,
        }],
        wall_ms,
    }
}

/// `--report-html DIR`: the static report of `.ad` runs, from the suite record and the flows'
/// text (their steps' lines are the flows' lines).
fn write_html(dir: &Path, suite: &SuiteReport, flows: &[(String, PathBuf)]) -> Result<(), String> {
    let texts = flows
        .iter()
        .map(|(display, path)| {
            (
                display.clone(),
                std::fs::read_to_string(path).unwrap_or_default(),
            )
        })
        .collect();
    let scripts = crate::render::html::load(suite, &texts);
    crate::render::html::build("ad test --maestro", suite, &scripts)
        .write(dir)
        .map_err(|e| format!("cannot write the HTML report {}: {e}", dir.display()))
}
