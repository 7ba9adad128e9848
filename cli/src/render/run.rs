//! What `ad run` shows of a finished run: the human lines (verdict, failure at its line with
//! the divergence report, the live session left behind), the `--json` record, and the HTML
//! report of a run as a suite of one script.

use std::io::Write;

use ad_runtime::session::ScriptOutcome;

use super::escape_controls;
use super::refusal::render_setup;

/// What the run's output names besides the outcome.
pub struct Shown<'a> {
    pub name: &'a str,
    pub text: &'a str,
    /// A composition's expansion, to place a plan line in its source file.
    pub expanded: Option<&'a crate::commands::compose::Expanded>,
    pub resume_command: &'a str,
    /// The run ran in the session daemon (its live session is there).
    pub in_daemon: bool,
    pub json: bool,
}

/// Prints the outcome: the `--json` record on stdout, or the human lines.
pub fn print(shown: &Shown<'_>, outcome: &ScriptOutcome) {
    let r = &outcome.result;
    let journal = outcome
        .run_dir
        .as_ref()
        .map(|d| d.display().to_string())
        .unwrap_or_default();
    if shown.json {
        let mut record = r.record();
        record.run_dir = Some(journal.clone());
        // Per-step timings come from the journal the run wrote, as the HTML report's do.
        record.steps = outcome
            .run_dir
            .as_deref()
            .map(|d| {
                ad_runtime::core::records::result::step_timings(
                    &super::html::AttemptRecords::load(d).events,
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
            if !shown.json {
                let device = format!("{:.1} s device time", r.device_ms as f64 / 1000.0);
                println!(
                    "ok: {} — {} step(s) replayed in {:.0} ms ({device}); journal {journal}",
                    shown.name, r.replayed, r.wall_ms
                );
                // What a passing run still has to say (a completed repair waits for `ad session
                // close` to commit it), as a failing run's warnings are printed.
                for w in &r.warnings {
                    eprintln!("warning: {}", escape_controls(w));
                }
                // A live session is in the session daemon (or kept in a file for `--from`).
                if r.session_active && (shown.in_daemon || outcome.session_file.is_some()) {
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
                        escape_controls(&format!(
                            "session \"{}\" is still active: {app}{place}{kept}",
                            r.session
                        ))
                    );
                }
            }
        }
        Some(e) if e.is_interrupted() => {
            if !shown.json {
                eprintln!("error[INTERRUPTED]: {}", escape_controls(&e.message));
                if let Some(h) = &e.hint {
                    eprintln!("  help: {}", escape_controls(h));
                }
                eprintln!(
                    "interrupted: {} — {} of {} step(s) replayed; journal {journal}",
                    shown.name, r.replayed, r.total
                );
            }
        }
        Some(e) if e.setup().is_some() => {
            if let (false, Some(problem)) = (shown.json, e.setup()) {
                let at = e
                    .line
                    .map(|line| match shown.expanded.and_then(|x| x.describe(line)) {
                        Some(at) => format!("{at} (plan line {line})"),
                        None => format!("{}:{line}", shown.name),
                    });
                eprint!("{}", render_setup(problem, at.as_deref()));
            }
        }
        Some(e) if e.preflight => {
            if !shown.json {
                eprintln!("error[{}]: {}", e.code, escape_controls(&e.message));
                if let Some(h) = &e.hint {
                    eprintln!("  help: {}", escape_controls(h));
                }
            }
        }
        Some(e) => {
            if !shown.json {
                let code = e.public_code();
                let mut err = std::io::stderr().lock();
                let _ = writeln!(err, "error[{code}]: {}", escape_controls(&e.message));
                if let Some(line) = e.line {
                    match shown.expanded.and_then(|x| x.describe(line)) {
                        Some(at) => {
                            let _ = writeln!(err, "  --> {at} (plan line {line})");
                        }
                        None => {
                            let _ = writeln!(err, "  --> {}:{line}", shown.name);
                        }
                    }
                    let _ = writeln!(
                        err,
                        "   | {}",
                        escape_controls(&source_excerpt(shown.text, line))
                    );
                }
                if let Some(h) = &e.hint {
                    let _ = writeln!(err, "  help: {}", escape_controls(h));
                }
                if let Some(d) = e.divergence() {
                    let _ = writeln!(err);
                    let _ = writeln!(
                        err,
                        "{}",
                        super::divergence::render(d, shown.resume_command)
                    );
                }
                let _ = writeln!(err);
                for w in &r.warnings {
                    let _ = writeln!(err, "warning: {}", escape_controls(w));
                }
                let _ = writeln!(
                    err,
                    "failed: {} — {} of {} step(s) replayed; journal {journal}",
                    shown.name, r.replayed, r.total
                );
            }
        }
    }
}

/// `path:line` and the line's text, for failure headers.
fn source_excerpt(text: &str, line: usize) -> String {
    text.split('\n')
        .nth(line.saturating_sub(1))
        .map(|l| l.trim_end_matches('\r').to_string())
        .unwrap_or_default()
}

/// The HTML report of one run: a suite of one script, built from its run folder.
pub fn write_html(
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
    let scripts = super::html::load(&suite, &texts);
    super::html::build("ad run", &suite, &scripts).write(dir)
}
