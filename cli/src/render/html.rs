//! The HTML report (`ad test --report-html DIR`, `ad run --report-html DIR`): a static folder
//! a person opens from a CI artifact download. `index.html` summarises the suite (passed,
//! failed, flaky, invalid, skipped, durations); `scripts/NNN-name.html` shows each script's
//! attempts step by step (its source line, result, timings, the observations the journal
//! holds, screenshots) and a failure's divergence report laid out for reading.
//!
//! Built only from the run records (suite report, `events.jsonl`, `run.json`): they are already
//! redacted, so no injected value reaches the report. Self-contained: inline CSS, no script, no
//! network resource; every link is relative and every file it shows is copied under DIR.

use std::collections::{BTreeMap, HashMap};
use std::fmt::Write as _;
use std::path::{Component, Path, PathBuf};

use ad_runtime::core::records::divergence::{Identity, Screen};
use ad_runtime::core::records::journal::{
    Event, JournalEvent, Outcome, Phase, StepResult, StepSource,
};
use ad_runtime::core::records::suite::{Attempt, ScriptReport, Status, SuiteReport};
use ad_runtime::core::records::{DivergenceReport, NodeRef, RunSummary};

/// One script with what its report pages need besides the suite record.
pub struct ScriptRun {
    pub report: ScriptReport,
    /// The text that ran (a composition's expansion): each step's source line is read from it.
    pub text: String,
    /// One per attempt, in order.
    pub attempts: Vec<AttemptRecords>,
}

/// What an attempt's run folder holds.
#[derive(Default)]
pub struct AttemptRecords {
    pub run_dir: Option<PathBuf>,
    pub events: Vec<JournalEvent>,
    pub summary: Option<RunSummary>,
}

impl AttemptRecords {
    /// Reads `events.jsonl` and `run.json` of a run folder; a line a crash cut short is left out.
    pub fn load(run_dir: &Path) -> AttemptRecords {
        let events = std::fs::read_to_string(run_dir.join("events.jsonl"))
            .unwrap_or_default()
            .lines()
            .filter_map(|l| serde_json::from_str(l).ok())
            .collect();
        let summary = std::fs::read_to_string(run_dir.join("run.json"))
            .ok()
            .and_then(|t| serde_json::from_str(&t).ok());
        AttemptRecords {
            run_dir: Some(run_dir.to_path_buf()),
            events,
            summary,
        }
    }
}

/// The suite's scripts with their run folders read; `texts` maps a script's path (as in the
/// suite report) to the text that ran.
pub fn load(suite: &SuiteReport, texts: &HashMap<String, String>) -> Vec<ScriptRun> {
    suite
        .scripts
        .iter()
        .map(|s| ScriptRun {
            report: s.clone(),
            text: texts.get(&s.path).cloned().unwrap_or_default(),
            attempts: s
                .attempts
                .iter()
                .map(|a| match &a.run_dir {
                    Some(d) if !d.is_empty() => AttemptRecords::load(Path::new(d)),
                    _ => AttemptRecords::default(),
                })
                .collect(),
        })
        .collect()
}

/// The report's files: pages (relative path → HTML) and files copied from run folders
/// (relative destination → source).
#[derive(Default)]
pub struct Report {
    pub pages: BTreeMap<String, String>,
    pub copies: BTreeMap<String, PathBuf>,
}

impl Report {
    /// Writes every page and copy under `dir` (created if needed), replacing the files the
    /// previous report there wrote and nothing else, never through a link (the rules of
    /// `ad_runtime::core::output_dir`). A copy whose source is gone is left out (its link then names
    /// a missing file rather than failing the whole report).
    pub fn write(&self, dir: &Path) -> std::io::Result<()> {
        use ad_runtime::core::output_dir::{replace_files, Content, REPORT_LISTING};
        let files: Vec<(String, Content<'_>)> = self
            .pages
            .iter()
            .map(|(rel, html)| (rel.clone(), Content::Bytes(html.as_bytes())))
            .chain(
                self.copies
                    .iter()
                    .map(|(rel, source)| (rel.clone(), Content::CopyOf(source))),
            )
            .collect();
        replace_files(dir, REPORT_LISTING, &files)
    }
}

/// A failed script's heal (`ad test --heal-proposals DIR`): its record, and the `.diff` written
/// for its proven proposals (none when a step needs a human).
pub struct HealListing {
    pub record: ad_runtime::core::records::HealRecord,
    pub diff: Option<PathBuf>,
}

/// Builds the report: the summary page and one page per script.
pub fn build(title: &str, suite: &SuiteReport, scripts: &[ScriptRun]) -> Report {
    build_with_heal(title, suite, scripts, &BTreeMap::new())
}

/// [`build`], with the heal proposals of the failed scripts (keyed by the script's path as
/// shown) listed on the summary page; each `.diff` is copied into the report (`heal/`), so the
/// folder stays whole when it is published alone.
pub fn build_with_heal(
    title: &str,
    suite: &SuiteReport,
    scripts: &[ScriptRun],
    heal: &BTreeMap<String, HealListing>,
) -> Report {
    let mut report = Report::default();
    let slugs: Vec<String> = scripts
        .iter()
        .enumerate()
        .map(|(i, s)| slug(i, &s.report.path))
        .collect();
    let mut index = index_page(title, suite, scripts, &slugs);
    if !heal.is_empty() {
        let section = heal_section(scripts, &slugs, heal, &mut report.copies);
        index = index.replacen("</main>", &format!("{section}</main>"), 1);
    }
    report.pages.insert("index.html".into(), index);
    for (script, slug) in scripts.iter().zip(&slugs) {
        let page = script_page(title, script, slug, &mut report.copies);
        report.pages.insert(format!("scripts/{slug}.html"), page);
    }
    report
}

/// `003-login`: the script's position (names may repeat across folders) and its file stem.
fn slug(index: usize, path: &str) -> String {
    let stem = Path::new(path)
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let clean: String = stem
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '-'
            }
        })
        .take(60)
        .collect();
    format!("{:03}-{clean}", index + 1)
}

/// Escapes text for HTML content and attribute values.
pub fn esc(s: &str) -> String {
    ad_runtime::core::vars::escape_html(s)
}

const STYLE: &str = "\
body{font:14px/1.45 system-ui,-apple-system,'Segoe UI',sans-serif;margin:0;color:#1d2128;background:#f6f7f9}
header{background:#1d2128;color:#fff;padding:12px 24px}header a{color:#9cc3ff}
main{padding:16px 24px;max-width:1200px}
h1{font-size:20px;margin:4px 0}h2{font-size:17px;margin:22px 0 8px}h3{font-size:15px;margin:16px 0 6px}
table{border-collapse:collapse;width:100%;background:#fff;margin:6px 0}
th,td{border:1px solid #d9dde3;padding:4px 8px;text-align:left;vertical-align:top}
th{background:#eef0f3;font-weight:600}
td.num{text-align:right;white-space:nowrap;font-variant-numeric:tabular-nums}
code,pre,.src{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:12.5px}
pre{white-space:pre-wrap;margin:0}
.counts{display:flex;gap:10px;flex-wrap:wrap;margin:10px 0}
.count{background:#fff;border:1px solid #d9dde3;border-radius:6px;padding:8px 14px;min-width:80px}
.count .n{display:block;font-size:22px;font-weight:700}
.status{display:inline-block;border-radius:4px;padding:0 6px;font-weight:600;font-size:12px;text-transform:uppercase}
.status-passed,.status-ok{background:#d8f3df;color:#14622b}.status-failed{background:#fbdcdc;color:#8a1c1c}
.status-flaky{background:#fff0c2;color:#7a5600}.status-invalid,.status-error{background:#eadcfb;color:#51207f}
.status-skipped,.status-not-run{background:#e7e9ed;color:#4a5160}
tr.failed td{background:#fff4f4}tr.skipped td,tr.not-run td{color:#6b7280}
.divergence{background:#fff;border:2px solid #e3a3a3;border-radius:6px;padding:8px 16px;margin:12px 0}
.divergence .cause{font-weight:600}
tr.differs td{background:#fff1cc;font-weight:600}
.resume{display:block;background:#1d2128;color:#e6edf3;padding:8px 10px;border-radius:4px;margin:4px 0}
.muted{color:#6b7280}
figure{margin:6px 0}figure img{max-width:360px;border:1px solid #d9dde3}
figure.failure-shot img{border:2px solid #e3a3a3}figcaption{color:#6b7280;font-size:12px}
";

fn page(title: &str, heading: &str, nav: &str, body: &str) -> String {
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; img-src 'self'\">\n\
<title>{}</title>\n<style>\n{STYLE}</style>\n</head>\n<body>\n<header>{nav}<h1>{}</h1></header>\n<main>\n{body}</main>\n</body>\n</html>\n",
        esc(heading),
        esc(title)
    )
}

fn status_badge(word: &str) -> String {
    format!("<span class=\"status status-{word}\">{word}</span>")
}

fn ms(v: f64) -> String {
    if v >= 1000.0 {
        format!("{:.2} s", v / 1000.0)
    } else {
        format!("{v:.0} ms")
    }
}

fn index_page(title: &str, suite: &SuiteReport, scripts: &[ScriptRun], slugs: &[String]) -> String {
    let c = &suite.summary;
    let mut body = String::new();
    let verdict = if c.ok { "passed" } else { "failed" };
    let _ = writeln!(
        body,
        "<p id=\"verdict\">{} {} script{} in {}{}</p>",
        status_badge(verdict),
        c.total,
        if c.total == 1 { "" } else { "s" },
        ms(c.wall_ms),
        match (c.filtered, c.other_shards) {
            (0, 0) => String::new(),
            (f, o) => format!(
                " <span class=\"muted\">({f} left out by --platform, {o} in other shards)</span>"
            ),
        }
    );
    body.push_str("<div class=\"counts\" id=\"summary\">\n");
    for (key, n) in [
        ("passed", c.passed),
        ("failed", c.failed),
        ("flaky", c.flaky),
        ("invalid", c.invalid),
        ("skipped", c.skipped),
        // Scripts whose backend could not start: shown when there are any.
        ("errors", c.errors),
    ]
    .into_iter()
    .filter(|&(key, n)| key != "errors" || n > 0)
    {
        let _ = writeln!(
            body,
            "<div class=\"count\" data-count=\"{key}\"><span class=\"n\">{n}</span>{key}</div>"
        );
    }
    body.push_str("</div>\n<table id=\"scripts\">\n<thead><tr><th>script</th><th>status</th><th>steps</th><th>attempts</th><th>device time</th><th>wall time</th><th>first problem</th></tr></thead>\n<tbody>\n");
    for (s, slug) in scripts.iter().zip(slugs) {
        let r = &s.report;
        let last = r.attempts.last();
        let steps = last
            .map(|a| format!("{}/{}", a.replayed, a.total))
            .unwrap_or_else(|| "—".into());
        let device = last
            .map(|a| ms(a.device_ms as f64))
            .unwrap_or_else(|| "—".into());
        let problem = first_problem(r);
        let _ = writeln!(
            body,
            "<tr data-status=\"{}\"><td><a href=\"scripts/{slug}.html\">{}</a></td><td>{}</td><td class=\"num\">{steps}</td><td class=\"num\">{}</td><td class=\"num\">{device}</td><td class=\"num\">{}</td><td>{}</td></tr>",
            r.status.word(),
            esc(&r.path),
            status_badge(r.status.word()),
            r.attempts.len(),
            ms(r.wall_ms),
            esc(&problem),
        );
    }
    body.push_str("</tbody>\n</table>\n");
    page(title, title, "", &body)
}

/// The "Heal proposals" section: per failed script, its proven changes with a link to the copied
/// `.diff`, or the step that needs a human with the repair-armed command.
fn heal_section(
    scripts: &[ScriptRun],
    slugs: &[String],
    heal: &BTreeMap<String, HealListing>,
    copies: &mut BTreeMap<String, PathBuf>,
) -> String {
    let mut body = String::from("<section id=\"heal\">\n<h2>Heal proposals</h2>\n");
    for (script, slug) in scripts.iter().zip(slugs) {
        let Some(h) = heal.get(&script.report.path) else {
            continue;
        };
        let _ = write!(
            body,
            "<div class=\"heal\" data-script=\"{}\">\n<h3><a href=\"scripts/{slug}.html\">{}</a></h3>\n",
            esc(&script.report.path),
            esc(&script.report.path)
        );
        if let Some(diff) = &h.diff {
            let rel = format!("heal/{slug}.diff");
            copies.insert(rel.clone(), diff.clone());
            let _ = writeln!(
                body,
                "<p>{} proven change{}: <a class=\"diff\" href=\"{rel}\">{}</a></p>",
                h.record.proposals.len(),
                if h.record.proposals.len() == 1 {
                    ""
                } else {
                    "s"
                },
                esc(&diff.display().to_string())
            );
        }
        if !h.record.proposals.is_empty() {
            body.push_str("<ul>\n");
        }
        for p in &h.record.proposals {
            let change = if p.basis == "evidence-refresh" {
                format!(
                    "<code>{}</code> kept, its annotation refreshed",
                    esc(&p.old_selector)
                )
            } else {
                format!(
                    "<code>{}</code> → <code>{}</code>",
                    esc(&p.old_selector),
                    esc(&p.new_selector)
                )
            };
            let changed: Vec<String> = p
                .changed
                .iter()
                .map(|c| format!("{}: {} → {}", esc(&c.field), esc(&c.was), esc(&c.now)))
                .collect();
            let verdict = match (&p.proof.scope, p.proof.passed) {
                (
                    ad_runtime::core::records::heal::HealProofScope::Recording {
                        replayed_to, ..
                    },
                    _,
                ) => {
                    format!("passed on the recording to step {replayed_to}")
                }
                (_, true) => "passed".to_string(),
                (_, false) => "got past it".to_string(),
            };
            let _ = writeln!(
                body,
                "<li class=\"proposal\">step {} (line {}, {}): {change}{}; proven by a fresh run: {verdict}, {} of {} steps</li>",
                p.step,
                p.line,
                esc(&p.divergence_kind),
                if changed.is_empty() {
                    String::new()
                } else {
                    format!(" <span class=\"muted\">(changed: {})</span>", changed.join(", "))
                },
                p.proof.replayed,
                p.proof.total
            );
        }
        if !h.record.proposals.is_empty() {
            body.push_str("</ul>\n");
        }
        if let Some(n) = &h.record.human {
            let _ = writeln!(
                body,
                "<p class=\"needs-human\">step {} (line {}) needs a human: {}: {}: {}</p>\n<code class=\"resume\">{}</code>",
                n.step,
                n.line,
                esc(&n.repair_hint),
                esc(&n.cause_code),
                esc(&n.message),
                esc(&n.repair_command)
            );
        }
        body.push_str("</div>\n");
    }
    body.push_str("</section>\n");
    body
}

/// The one line that says what went wrong with a script (empty when nothing did).
fn first_problem(r: &ScriptReport) -> String {
    match r.status {
        Status::Invalid => r.refused.clone().unwrap_or_default(),
        Status::Skipped => r.skip_reason.clone().unwrap_or_default(),
        Status::Failed | Status::Flaky => r
            .attempts
            .iter()
            .find(|a| !a.ok)
            .map(|a| {
                let at = a.line.map(|l| format!("line {l}: ")).unwrap_or_default();
                format!("{at}{}", a.message.as_deref().unwrap_or("failed"))
            })
            .unwrap_or_default(),
        Status::Error => r
            .attempts
            .last()
            .and_then(|a| a.setup.as_ref())
            .map(|p| p.to_string())
            .unwrap_or_default(),
        Status::Passed => String::new(),
    }
}

fn script_page(
    title: &str,
    script: &ScriptRun,
    slug: &str,
    copies: &mut BTreeMap<String, PathBuf>,
) -> String {
    let r = &script.report;
    let mut body = String::new();
    let _ = writeln!(
        body,
        "<p id=\"script-status\">{} <code>{}</code> — {} attempt{} (retries allowed: {}){}, {}</p>",
        status_badge(r.status.word()),
        esc(&r.path),
        r.attempts.len(),
        if r.attempts.len() == 1 { "" } else { "s" },
        r.retries_allowed,
        r.timeout_ms
            .map(|t| format!(", timeout {}", ms(t as f64)))
            .unwrap_or_default(),
        ms(r.wall_ms)
    );
    if let Some(why) = &r.skip_reason {
        let _ = writeln!(body, "<p class=\"muted\">skipped: {}</p>", esc(why));
    }
    if r.status == Status::Invalid {
        let _ = writeln!(
            body,
            "<section id=\"static-errors\"><h2>Not run</h2><p>{}</p>",
            esc(r.refused.as_deref().unwrap_or("static errors"))
        );
        if !r.static_errors.is_empty() {
            body.push_str("<table><thead><tr><th>line</th><th>code</th><th>message</th><th>source</th></tr></thead><tbody>\n");
            for e in &r.static_errors {
                let _ = writeln!(
                    body,
                    "<tr><td class=\"num\">{}:{}</td><td><code>{}</code></td><td>{}</td><td><pre class=\"src\">{}</pre></td></tr>",
                    e.line,
                    e.column,
                    esc(&e.code),
                    esc(&e.message),
                    esc(source_line(&script.text, e.line))
                );
            }
            body.push_str("</tbody></table>\n");
        }
        body.push_str("</section>\n");
    }
    for (n, (attempt, records)) in r.attempts.iter().zip(&script.attempts).enumerate() {
        let assets = format!("files/{slug}/attempt-{}", n + 1);
        attempt_section(
            &mut body,
            n + 1,
            r.attempts.len(),
            attempt,
            records,
            script,
            &assets,
            copies,
        );
    }
    let nav = "<a href=\"../index.html\">← all scripts</a>";
    page(&format!("{} — {title}", r.path), &r.path, nav, &body)
}

/// One step as the journal tells it.
#[derive(Default)]
struct StepView {
    line: usize,
    action: String,
    source: Option<StepSource>,
    /// `ok`, `failed`, `skipped` or `not-run`.
    state: &'static str,
    wall_ms: Option<f64>,
    device_ms: Option<u64>,
    code: Option<String>,
    result: Option<StepResult>,
    skipped: Option<String>,
    error: Option<(String, String)>,
    /// (phase, observation id, file in the run folder, the identical earlier capture).
    observations: Vec<(Phase, String, String, Option<String>)>,
    calls: Vec<(String, Option<Outcome>, Option<String>)>,
    divergence: Option<DivergenceReport>,
    /// The screenshot taken at the failure (relative to the run folder).
    failure_shot: Option<String>,
}

fn steps_of(events: &[JournalEvent]) -> BTreeMap<usize, StepView> {
    let mut steps: BTreeMap<usize, StepView> = BTreeMap::new();
    let mut attempt_step: HashMap<String, (usize, usize)> = HashMap::new();
    for e in events {
        match &e.event {
            Event::StepStart(s) => {
                let v = steps.entry(s.step).or_default();
                v.line = s.line;
                v.action = s.action.clone();
                v.source = s.source.clone();
                v.state = "not-run";
            }
            Event::Observation(o) => steps.entry(o.step).or_default().observations.push((
                o.phase,
                o.observation_id.clone(),
                o.path.clone(),
                o.same_as.clone(),
            )),
            Event::ActionAttempt(a) => {
                let v = steps.entry(a.step).or_default();
                attempt_step.insert(a.attempt_id.clone(), (a.step, v.calls.len()));
                v.calls.push((a.command.clone(), None, None));
            }
            Event::ActionResult(a) => {
                if let Some(&(step, i)) = attempt_step.get(&a.attempt_id) {
                    if let Some(call) = steps.get_mut(&step).and_then(|v| v.calls.get_mut(i)) {
                        call.1 = Some(a.result);
                        call.2 = a.message.clone().or_else(|| a.code.clone());
                    }
                }
            }
            Event::StepEnd(s) => {
                let v = steps.entry(s.step).or_default();
                v.line = s.line;
                v.state = match s.status {
                    ad_runtime::core::records::journal::StepStatus::Ok => "ok",
                    ad_runtime::core::records::journal::StepStatus::Failed => "failed",
                };
                v.wall_ms = Some(s.wall_ms);
                v.device_ms = Some(s.device_ms);
                v.code = s.code.clone();
                v.result = s.result.clone();
            }
            Event::StepSkipped(s) => {
                let v = steps.entry(s.step).or_default();
                v.line = s.line;
                v.action = s.action.clone();
                v.state = "skipped";
                v.skipped = Some(s.reason.clone());
            }
            Event::StepError(s) => {
                let v = steps.entry(s.step).or_default();
                v.line = s.line;
                v.state = "failed";
                v.error = Some((s.code.clone(), s.message.clone()));
            }
            Event::Divergence(d) => {
                let v = steps.entry(d.step).or_default();
                v.line = d.line;
                v.state = "failed";
                v.divergence = Some((*d.report).clone());
                v.failure_shot = d.screenshot.clone();
            }
            Event::RunStart(_) | Event::RunEnd(_) => {}
        }
    }
    steps
}

fn source_line(text: &str, line: usize) -> &str {
    line.checked_sub(1)
        .and_then(|l| text.lines().nth(l))
        .map(str::trim)
        .unwrap_or("")
}

/// A file of the run folder relative to it (`observations/000003.json`), from a path relative
/// to the folder (observations) or one that starts with the folder's own path (screenshots);
/// never a path that leaves it.
fn inside_run(run_dir: &Path, path: &str) -> Option<PathBuf> {
    let p = Path::new(path);
    let rel = match p.strip_prefix(run_dir) {
        Ok(rel) => rel.to_path_buf(),
        Err(_) if p.is_absolute() => return None,
        Err(_) => p.to_path_buf(),
    };
    rel.components()
        .all(|c| matches!(c, Component::Normal(_)))
        .then_some(rel)
}

#[allow(clippy::too_many_arguments)]
fn attempt_section(
    body: &mut String,
    number: usize,
    of: usize,
    attempt: &Attempt,
    records: &AttemptRecords,
    script: &ScriptRun,
    assets: &str,
    copies: &mut BTreeMap<String, PathBuf>,
) {
    let word = if attempt.ok { "passed" } else { "failed" };
    let _ = writeln!(
        body,
        "<section class=\"attempt\" id=\"attempt-{number}\" data-ok=\"{}\">\n<h2>Attempt {number} of {of} {}</h2>",
        attempt.ok,
        status_badge(word)
    );
    let run_folder = records
        .run_dir
        .as_ref()
        .and_then(|d| d.file_name())
        .map(|n| n.to_string_lossy().into_owned());
    let _ = writeln!(
        body,
        "<p>{} of {} steps replayed · device {} · wall {}{}{}</p>",
        attempt.replayed,
        attempt.total,
        ms(attempt.device_ms as f64),
        ms(attempt.wall_ms),
        records
            .summary
            .as_ref()
            .map(|s| format!(" · backend {}", esc(&s.backend)))
            .unwrap_or_default(),
        run_folder
            .map(|f| format!(" · run folder <code>{}</code>", esc(&f)))
            .unwrap_or_default(),
    );
    if let (false, Some(m)) = (attempt.ok, &attempt.message) {
        let _ = writeln!(
            body,
            "<p class=\"cause\">{}{}</p>",
            attempt
                .code
                .as_deref()
                .map(|c| format!("<code>{}</code> ", esc(c)))
                .unwrap_or_default(),
            esc(m)
        );
    }
    let steps = steps_of(&records.events);
    if steps.is_empty() {
        body.push_str(
            "<p class=\"muted\">No journal: the run did not start a step.</p>\n</section>\n",
        );
        return;
    }
    body.push_str("<table class=\"steps\">\n<thead><tr><th>#</th><th>line</th><th>source</th><th>result</th><th>device</th><th>wall</th><th>observations</th></tr></thead>\n<tbody>\n");
    let mut divergences = Vec::new();
    for (index, v) in &steps {
        let mut source = format!(
            "<pre class=\"src\">{}</pre>",
            esc(source_line(&script.text, v.line))
        );
        if let Some(s) = &v.source {
            let _ = write!(source, "<div class=\"muted\">{}</div>", esc(&s.to_string()));
        }
        let mut result = status_badge(v.state);
        if let Some(c) = &v.code {
            let _ = write!(result, " <code>{}</code>", esc(c));
        }
        if let Some(why) = &v.skipped {
            let _ = write!(result, " {}", esc(why));
        }
        if let Some((code, message)) = &v.error {
            let _ = write!(result, " <code>{}</code> {}", esc(code), esc(message));
        }
        if let Some(r) = &v.result {
            let _ = write!(
                result,
                "<div class=\"muted\">{}</div>",
                esc(&describe_result(r))
            );
        }
        for (command, outcome, message) in &v.calls {
            if matches!(outcome, Some(Outcome::Accepted)) {
                continue;
            }
            let _ = write!(
                result,
                "<div>{} {}{}</div>",
                esc(command),
                match outcome {
                    Some(Outcome::Rejected) => "rejected",
                    Some(Outcome::Unknown) => "outcome unknown",
                    _ => "no answer",
                },
                message
                    .as_deref()
                    .map(|m| format!(": {}", esc(m)))
                    .unwrap_or_default()
            );
        }
        if v.divergence.is_some() {
            let _ = write!(
                result,
                " <a href=\"#divergence-step-{index}\">divergence report</a>"
            );
        }
        let mut shots = String::new();
        if let (Some(dir), Some(StepResult::Screenshot { path: Some(p), .. })) =
            (&records.run_dir, &v.result)
        {
            if let Some(rel) = inside_run(dir, p) {
                let dest = format!("{assets}/{}", rel.display());
                let _ = write!(
                    shots,
                    "<figure><a href=\"../{0}\"><img src=\"../{0}\" alt=\"screenshot of step {index}\"></a></figure>",
                    esc(&dest)
                );
                copies.insert(dest, dir.join(&rel));
            }
        }
        // The screen at the failure, shown at the failing step and in its divergence section.
        let mut failure_figure = None;
        if let (Some(dir), Some(p)) = (&records.run_dir, &v.failure_shot) {
            if let Some(rel) = inside_run(dir, p) {
                let dest = format!("{assets}/{}", rel.display());
                let figure = format!(
                    "<figure class=\"failure-shot\"><a href=\"../{0}\"><img src=\"../{0}\" alt=\"the screen when step {index} failed\"></a><figcaption>the screen when the step failed</figcaption></figure>",
                    esc(&dest)
                );
                shots.push_str(&figure);
                failure_figure = Some(figure);
                copies.insert(dest, dir.join(&rel));
            }
        }
        for (phase, id, path, same_as) in &v.observations {
            let Some(dir) = &records.run_dir else { break };
            let Some(rel) = inside_run(dir, path) else {
                continue;
            };
            let dest = format!("{assets}/{}", rel.display());
            let _ = write!(
                shots,
                "<div><a class=\"observation\" href=\"../{}\">{} {}</a>{}</div>",
                esc(&dest),
                phase_word(*phase),
                esc(id),
                same_as
                    .as_deref()
                    .map(|s| format!(" <span class=\"muted\">(same screen as {})</span>", esc(s)))
                    .unwrap_or_default()
            );
            copies.insert(dest, dir.join(&rel));
        }
        if let Some(d) = &v.divergence {
            divergences.push((*index, d, failure_figure));
        }
        let _ = writeln!(
            body,
            "<tr class=\"{}\" id=\"step-{index}-{number}\"><td class=\"num\">{index}</td><td class=\"num\">{}</td><td>{source}</td><td>{result}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td>{shots}</td></tr>",
            v.state,
            v.line,
            v.device_ms.map(|d| ms(d as f64)).unwrap_or_default(),
            v.wall_ms.map(ms).unwrap_or_default(),
        );
    }
    body.push_str("</tbody>\n</table>\n");
    let last = steps.keys().next_back().copied().unwrap_or(0);
    if last < attempt.total {
        let _ = writeln!(
            body,
            "<p class=\"muted\" id=\"not-run-{number}\">Step{} {} of {} did not run.</p>",
            if last + 1 == attempt.total { "" } else { "s" },
            if last + 1 == attempt.total {
                attempt.total.to_string()
            } else {
                format!("{}–{}", last + 1, attempt.total)
            },
            attempt.total
        );
    }
    // The command the run itself offered (with the options that chose its backend and
    // device), without the `--from … --plan-digest …` the section adds; a run folder from
    // before it was recorded gets the bare `ad run FILE`.
    let recorded = records
        .summary
        .as_ref()
        .and_then(|s| s.error.as_ref())
        .and_then(|e| e.resume_command.as_deref());
    for (index, d, figure) in divergences {
        let resume_command = base_command(recorded, &d.resume)
            .unwrap_or_else(|| format!("ad run {}", script.report.path));
        divergence_section(body, index, d, figure.as_deref(), &resume_command);
    }
    body.push_str("</section>\n");
}

/// A run's offered command without the resume suffix it carries when the resume is allowed.
fn base_command(
    offered: Option<&str>,
    resume: &ad_runtime::core::records::divergence::Resume,
) -> Option<String> {
    let offered = offered?;
    if !resume.allowed {
        return Some(offered.to_string());
    }
    let suffix = format!(
        " --from {} --plan-digest {}",
        resume.from, resume.plan_digest
    );
    offered.strip_suffix(&suffix).map(str::to_string)
}

fn phase_word(p: Phase) -> &'static str {
    match p {
        Phase::Resolve => "resolve",
        Phase::Wait => "wait",
        Phase::Assert => "assert",
        Phase::Snapshot => "snapshot",
        Phase::Find => "find",
        Phase::Divergence => "divergence",
    }
}

/// A passed step's result in a few words.
fn describe_result(r: &StepResult) -> String {
    let node = |n: &NodeRef| {
        let mut s = format!("@{} {}", n.reference, n.role);
        if let Some(id) = &n.id {
            let _ = write!(s, " id={id}");
        }
        if let Some(l) = &n.label {
            let _ = write!(s, " \"{l}\"");
        }
        s
    };
    match r {
        StepResult::Predicate {
            predicate,
            pass,
            matches,
            ..
        } => format!("{predicate}: {pass} ({matches} match(es))"),
        StepResult::Snapshot { refs, .. } => format!("{refs} refs"),
        StepResult::Find {
            target, matches, ..
        } => match target {
            Some(t) => format!("found {} ({matches} match(es))", node(t)),
            None => format!("{matches} match(es)"),
        },
        StepResult::Waited {
            waited_ms, target, ..
        } => match target {
            Some(t) => format!("waited {waited_ms} ms for {}", node(t)),
            None => format!("waited {waited_ms} ms"),
        },
        StepResult::Targeted {
            target,
            verification,
            ..
        } => {
            let on = match target {
                ad_runtime::core::records::common::Target::Node(n) => node(n),
                ad_runtime::core::records::common::Target::Point(p) => {
                    format!("point {} {}", p.point.x, p.point.y)
                }
            };
            match verification {
                Some(v) => format!("{on} ({v})"),
                None => on,
            }
        }
        StepResult::Read { target, .. } => format!("read {}", node(target)),
        StepResult::Screenshot { bytes, .. } => format!("screenshot, {bytes} bytes"),
        StepResult::Keyboard { .. } => "keyboard".into(),
        StepResult::Alert { alert, .. } => match alert {
            Some(_) => "alert shown".into(),
            None => "no alert".into(),
        },
        StepResult::Drag { .. } => "dragged".into(),
        StepResult::Clipboard { .. } => "clipboard read".into(),
        StepResult::Response { .. } => String::new(),
    }
}

fn ref_row(r: &NodeRef) -> String {
    format!(
        "<tr><td><code>@{}</code></td><td>{}</td><td>{}</td><td>{}</td></tr>",
        esc(&r.reference),
        esc(&r.role),
        esc(r.id.as_deref().unwrap_or("")),
        esc(r.label.as_deref().unwrap_or(""))
    )
}

/// One identity field: its name, the recorded value, and the value on screen (`None`: no element
/// matched).
type IdentityField<'a> = (&'static str, Option<&'a str>, Option<Option<&'a str>>);

fn identity_rows(recorded: &Identity, observed: Option<&Identity>) -> String {
    let mut out = String::new();
    let fields: [IdentityField<'_>; 3] = [
        (
            "id",
            recorded.id.as_deref(),
            observed.map(|o| o.id.as_deref()),
        ),
        (
            "role",
            Some(recorded.role.as_str()),
            observed.map(|o| Some(o.role.as_str())),
        ),
        (
            "label",
            recorded.label.as_deref(),
            observed.map(|o| o.label.as_deref()),
        ),
    ];
    for (field, rec, obs) in fields {
        let differs = obs.is_some_and(|o| o != rec);
        let _ = writeln!(
            out,
            "<tr class=\"{}\" data-field=\"{field}\"><th>{field}</th><td>{}</td><td>{}</td></tr>",
            if differs { "differs" } else { "same" },
            esc(rec.unwrap_or("—")),
            match obs {
                Some(o) => esc(o.unwrap_or("—")),
                None => "<span class=\"muted\">no element</span>".into(),
            }
        );
    }
    out
}

/// The mismatches beyond id, role and label (`ancestry[0]: recorded=form/Sign in observed=other`)
/// as highlighted rows of the identity table (id, role and label have rows of their own).
fn mismatch_rows(mismatches: &[String]) -> String {
    let mut out = String::new();
    for m in mismatches {
        let (field, rest) = m.split_once(": ").unwrap_or((m.as_str(), ""));
        if matches!(field, "id" | "role" | "label") {
            continue;
        }
        let (recorded, observed) = rest
            .strip_prefix("recorded=")
            .and_then(|r| r.split_once(" observed="))
            .unwrap_or((rest, ""));
        let _ = writeln!(
            out,
            "<tr class=\"differs\" data-field=\"{0}\"><th>{0}</th><td>{1}</td><td>{2}</td></tr>",
            esc(field),
            esc(recorded),
            esc(observed)
        );
    }
    out
}

fn divergence_section(
    body: &mut String,
    index: usize,
    d: &DivergenceReport,
    figure: Option<&str>,
    resume_command: &str,
) {
    let _ = writeln!(
        body,
        "<section class=\"divergence\" id=\"divergence-step-{index}\" data-kind=\"{}\">\n<h3>Divergence at step {index} — {}</h3>",
        d.kind.as_str(),
        d.kind.as_str()
    );
    let _ = writeln!(
        body,
        "<p><code>{}:{}</code> <code>{}</code></p>\n<p class=\"cause\"><code>{}</code> {}</p>",
        esc(&d.step.source.path),
        d.step.source.line,
        esc(&d.action),
        esc(&d.cause.code),
        esc(&d.cause.message)
    );
    if let Some(h) = &d.cause.hint {
        let _ = writeln!(body, "<p class=\"muted\">{}</p>", esc(h));
    }
    if let Some(f) = figure {
        body.push_str(f);
        body.push('\n');
    }
    if let Some(tb) = &d.target_binding {
        // Nothing matched: the element the other evidence fields point at (a renamed one) is
        // compared instead, so what changed is the highlighted row.
        let closest = d
            .suggestions
            .iter()
            .find(|s| s.basis == "evidence")
            .filter(|_| tb.observed.is_none());
        let closest_identity = closest.map(|s| Identity {
            id: s.id.clone(),
            role: s.role.clone(),
            label: s.label.clone(),
        });
        let column = match closest {
            Some(s) => format!(
                "closest on screen <code>@{}</code> <span class=\"muted\">(same {})</span>",
                esc(&s.reference),
                esc(&s.agrees.join(", "))
            ),
            None => "on screen".into(),
        };
        // Every differing field is a highlighted row: id, role and label, then the others
        // (ancestry) the mismatches name.
        let _ = writeln!(
            body,
            "<h4>Identity{}</h4>\n<table class=\"identity\"><thead><tr><th></th><th>recorded</th><th>{column}</th></tr></thead><tbody>\n{}{}</tbody></table>",
            tb.match_count
                .map(|c| format!(" ({c} match{})", if c == 1 { "" } else { "es" }))
                .unwrap_or_default(),
            identity_rows(&tb.recorded, tb.observed.as_ref().or(closest_identity.as_ref())),
            mismatch_rows(&tb.mismatches)
        );
        if !tb.candidates.is_empty() {
            body.push_str("<p>Elements sharing the recorded identity:</p><table><tbody>\n");
            for c in &tb.candidates {
                body.push_str(&ref_row(c));
                body.push('\n');
            }
            body.push_str("</tbody></table>\n");
        }
    }
    match &d.screen {
        Screen::Available {
            refs_generation,
            refs,
            truncated,
            omitted,
        } => {
            let cut = match omitted {
                Some(n) => format!(", … and {n} more"),
                None if *truncated == Some(true) => ", truncated".to_string(),
                None => String::new(),
            };
            let _ = writeln!(
                body,
                "<h4>Screen ({} ref{}, refsGeneration {refs_generation}{cut})</h4>\n<table class=\"screen\"><thead><tr><th>ref</th><th>role</th><th>id</th><th>label</th></tr></thead><tbody>",
                refs.len(),
                if refs.len() == 1 { "" } else { "s" },
            );
            for r in refs {
                body.push_str(&ref_row(r));
                body.push('\n');
            }
            body.push_str("</tbody></table>\n");
        }
        Screen::Unavailable { reason, hint } => {
            let _ = writeln!(
                body,
                "<h4>Screen</h4><p class=\"muted\">unavailable ({}) {}</p>",
                esc(reason),
                esc(hint)
            );
        }
    }
    if !d.suggestions.is_empty() {
        body.push_str("<h4>Suggestions</h4>\n<ol class=\"suggestions\">\n");
        for s in &d.suggestions {
            let _ = writeln!(
                body,
                "<li data-basis=\"{1}\"><code>{0}</code> <span class=\"muted\">[{1}] @{2} {3}{4}{5}</span></li>",
                esc(&s.selector),
                esc(&s.basis),
                esc(&s.reference),
                esc(&s.role),
                s.label
                    .as_deref()
                    .map(|l| format!(" \"{}\"", esc(l)))
                    .unwrap_or_default(),
                esc(&super::divergence::evidence_note(s))
            );
        }
        body.push_str("</ol>\n");
    } else if d.suggestion_count > 0 {
        let _ = writeln!(
            body,
            "<p class=\"muted\">{} suggestion(s) left out at this report level.</p>",
            d.suggestion_count
        );
    }
    let _ = writeln!(
        body,
        "<h4>Next</h4>\n<p>Repair hint <strong>{}</strong>: {}</p>",
        super::divergence::hint_word(d.repair_hint),
        esc(&super::divergence::guidance(
            d.repair_hint,
            &d.resume,
            resume_command
        ))
    );
    if d.resume.allowed {
        let _ = writeln!(
            body,
            "<code class=\"resume\">{} --from {} --plan-digest {}</code>",
            esc(resume_command),
            d.resume.from,
            esc(&d.resume.plan_digest)
        );
    }
    if let Some(o) = &d.overflow {
        let _ = writeln!(
            body,
            "<p class=\"muted\">The full report is in the run folder: <code>{}</code></p>",
            esc(&o.artifact_path)
        );
    }
    body.push_str("</section>\n");
}

#[cfg(test)]
mod tests {
    use super::*;

    fn event(sequence: u64, body: serde_json::Value) -> JournalEvent {
        let mut v = serde_json::json!({
            "schema_version": 1,
            "session": "s",
            "sequence": sequence,
            "recorded_at": "2026-01-01T00:00:00.000Z",
        });
        v.as_object_mut()
            .unwrap()
            .extend(body.as_object().unwrap().clone());
        serde_json::from_value(v).expect("a journal event")
    }

    fn attempt(ok: bool, message: Option<&str>, replayed: usize) -> Attempt {
        Attempt {
            ok,
            code: message.map(|_| "COMMAND_FAILED".into()),
            kind: None,
            message: message.map(str::to_string),
            step: None,
            line: None,
            replayed,
            total: 3,
            run_dir: None,
            wall_ms: 12.5,
            device_ms: 1500,
            setup: None,
        }
    }

    /// A flaky script: the first attempt's tap is rejected and its step fails without a
    /// divergence report, the second passes with a skipped step. Every part of an attempt's
    /// section, in memory (no run folder: nothing to copy).
    #[test]
    fn a_flaky_script_page_shows_each_attempt() {
        use serde_json::json;
        let first = vec![
            event(
                1,
                json!({"event": "step_start", "step": 1, "line": 3, "command": "open", "action": "open \"app\""}),
            ),
            event(
                2,
                json!({"event": "step_end", "step": 1, "line": 3, "status": "ok", "wall_ms": 4.25, "device_ms": 0}),
            ),
            event(
                3,
                json!({"event": "step_start", "step": 2, "line": 4, "command": "click", "action": "click \"id=go\""}),
            ),
            event(
                4,
                json!({"event": "action_attempt", "step": 2, "line": 4, "action": "click \"id=go\"", "command": "click", "args": {"point": {"x": 1.0, "y": 2.0}, "count": 1, "target": null}, "attempt_id": "att-000001"}),
            ),
            event(
                5,
                json!({"event": "action_result", "attempt_id": "att-000001", "result": "rejected", "code": "COMMAND_FAILED", "message": "the <button> is busy"}),
            ),
            event(
                6,
                json!({"event": "step_error", "step": 2, "line": 4, "code": "COMMAND_FAILED", "message": "the <button> is busy"}),
            ),
        ];
        let second = vec![
            event(
                1,
                json!({"event": "step_start", "step": 1, "line": 3, "command": "open", "action": "open \"app\""}),
            ),
            event(
                2,
                json!({"event": "step_end", "step": 1, "line": 3, "status": "ok", "wall_ms": 3.0, "device_ms": 0}),
            ),
            event(
                3,
                json!({"event": "step_start", "step": 2, "line": 4, "command": "click", "action": "click \"id=go\""}),
            ),
            event(
                4,
                json!({"event": "step_end", "step": 2, "line": 4, "status": "ok", "wall_ms": 2.0, "device_ms": 1500, "result": {"target": {"ref": "e2", "role": "button", "id": "go", "label": "Go"}, "verification": "unannotated"}}),
            ),
            event(
                5,
                json!({"event": "step_skipped", "step": 3, "line": 5, "action": "close", "reason": "--keep-session"}),
            ),
        ];
        let report = ScriptReport {
            path: "flows/<go>.ad".into(),
            status: Status::Flaky,
            skip_reason: None,
            retries_allowed: 1,
            timeout_ms: Some(60000),
            refused: None,
            static_errors: Vec::new(),
            attempts: vec![
                attempt(false, Some("the <button> is busy"), 1),
                attempt(true, None, 3),
            ],
            wall_ms: 30.0,
        };
        let script = ScriptRun {
            report: report.clone(),
            text: "# go\ncontext platform=ios\nopen \"app\"\nclick \"id=go\"\nclose\n".into(),
            attempts: vec![
                AttemptRecords {
                    events: first,
                    ..AttemptRecords::default()
                },
                AttemptRecords {
                    events: second,
                    ..AttemptRecords::default()
                },
            ],
        };
        let mut copies = BTreeMap::new();
        let page = script_page("ad test", &script, "001-go", &mut copies);
        assert!(copies.is_empty());
        let main = &page[page.find("<main>").unwrap()..page.find("</main>").unwrap()];
        insta::assert_snapshot!(main);
        assert!(first_problem(&report).starts_with("the <button> is busy"));
    }

    #[test]
    fn a_new_report_removes_the_files_of_the_last_one_and_nothing_else() {
        let dir = std::env::temp_dir().join(format!("ad-html-manifest-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let mut first = Report::default();
        first.pages.insert("index.html".into(), "1".into());
        first.pages.insert("scripts/001-a.html".into(), "a".into());
        first.write(&dir).unwrap();
        std::fs::write(dir.join("notes.txt"), "mine").unwrap();
        let mut second = Report::default();
        second.pages.insert("index.html".into(), "2".into());
        second.write(&dir).unwrap();
        assert_eq!(
            std::fs::read_to_string(dir.join("index.html")).unwrap(),
            "2"
        );
        assert!(
            !dir.join("scripts/001-a.html").exists(),
            "stale page removed"
        );
        assert_eq!(
            std::fs::read_to_string(dir.join("notes.txt")).unwrap(),
            "mine"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn text_is_escaped_for_content_and_attributes() {
        assert_eq!(
            esc(r#"<a href="x">'&'</a>"#),
            "&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;"
        );
    }

    #[test]
    fn slugs_are_numbered_file_safe_stems() {
        assert_eq!(slug(0, "flows/log in.ad"), "001-log-in");
        assert_eq!(slug(11, "a/../é.ad"), "012--");
    }

    #[test]
    fn run_folder_paths_never_leave_it() {
        let dir = Path::new("/runs/r1");
        assert_eq!(
            inside_run(dir, "observations/000001.json"),
            Some(PathBuf::from("observations/000001.json"))
        );
        assert_eq!(
            inside_run(dir, "/runs/r1/shot.png"),
            Some(PathBuf::from("shot.png"))
        );
        assert_eq!(
            inside_run(Path::new("ad-artifacts/r1"), "ad-artifacts/r1/shots/a.png"),
            Some(PathBuf::from("shots/a.png"))
        );
        assert_eq!(inside_run(dir, "../other/x.json"), None);
        assert_eq!(inside_run(dir, "/etc/passwd"), None);
    }
}
