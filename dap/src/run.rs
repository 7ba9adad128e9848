//! One launch's run: a thread of its own with a current-thread async runtime, the interpreter
//! driving the backend, and the debugger hook the interpreter awaits at each step boundary.
//!
//! At a stop the hook sends the main loop everything the client may ask about (the stack, the
//! scopes as trees), then waits for the client's command: go on, step, or run a console command
//! against the live session (the stop is then sent again, refreshed).

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU8};
use std::sync::{mpsc, Arc, Mutex};

use ad_runtime::core::interp::debug::{Debugger, Pause, PausedRun, Pending};
use ad_runtime::core::interp::{Plan, Progress, RunError, StepEnd, StepInfo};
use ad_runtime::session::{run_live, StartError};
use serde_json::Value;
use tokio::sync::mpsc::UnboundedReceiver;

use crate::breakpoints::{Breakpoints, Place, PlanMap};
use crate::inspect::{leaf, screen_tree, VarTree};
use crate::protocol::Scope;
use crate::{Input, Prepared};

/// The exception breakpoint filters.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Filters {
    /// Stop when a step diverges (a divergence report): on by default.
    pub divergence: bool,
    /// Stop when any step fails.
    pub failed: bool,
}

impl Default for Filters {
    fn default() -> Self {
        Filters {
            divergence: true,
            failed: false,
        }
    }
}

/// What the main loop and a run's hook share.
#[derive(Debug, Default)]
pub struct Shared {
    pub breakpoints: Mutex<Breakpoints>,
    pub filters: Mutex<Filters>,
    /// `pause`: stop at the next step boundary.
    pub pause: AtomicBool,
}

/// What the client tells a stopped run.
#[derive(Debug)]
pub enum Command {
    Continue,
    /// `next` and `stepIn`: stop at the next step (a step inside an `include` too).
    Step,
    /// Stop at the next step outside the current step's innermost `include`.
    StepOut,
    /// Run a script command against the live session.
    Evaluate {
        seq: i64,
        command: String,
        line: String,
    },
    /// Disconnect, terminate or restart: the run is ending (its stop flag is set).
    End,
}

/// Why and where a run stopped, and what the client can ask about it.
#[derive(Debug, Clone)]
pub struct Stopped {
    /// `entry`, `step`, `breakpoint`, `pause`, `exception` or `restart`.
    pub reason: &'static str,
    /// The step (1-based plan index) the run stopped at.
    pub index: usize,
    pub description: String,
    pub text: Option<String>,
    pub hit: Vec<i64>,
    /// Innermost first.
    pub frames: Vec<Place>,
    pub scopes: Vec<Scope>,
    pub tree: VarTree,
    /// The run's variables as shown (redacted), for hovers.
    pub variables: Vec<(String, String)>,
    /// The failure of an `exception` stop: (code, message, details).
    pub exception: Option<(String, String, Option<String>)>,
}

/// What a run tells the main loop.
#[derive(Debug)]
pub enum RunEvent {
    Output {
        category: &'static str,
        text: String,
    },
    Stopped(Box<Stopped>),
    /// The stop, described again once its screenshot is written (the client refreshes).
    Refreshed(Box<Stopped>),
    Evaluated {
        seq: i64,
        command: String,
        result: Result<(String, Option<Value>), String>,
        refreshed: Box<Stopped>,
    },
    Finished {
        exit_code: i32,
        summary: String,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    Run,
    Step,
    /// Stop at the next step shallower than this include depth.
    StepOut(usize),
}

/// The interpreter's debugger: decides where to stop and serves the client while stopped.
pub struct Hook {
    shared: Arc<Shared>,
    plan: Arc<PlanMap>,
    commands: UnboundedReceiver<Command>,
    events: mpsc::Sender<Input>,
    mode: Mode,
    no_debug: bool,
    /// The reason of the first stop when it is not the usual one (`restart`: a run resumed at
    /// the step the client restarted).
    first_stop: Option<&'static str>,
}

impl Hook {
    fn send(&self, e: RunEvent) {
        let _ = self.events.send(Input::Run(e));
    }

    /// Why the run stops before this step, if it does.
    fn stop_reason(
        &mut self,
        run: &mut dyn PausedRun,
    ) -> Option<(&'static str, Vec<i64>, Option<String>)> {
        if self.no_debug {
            return None;
        }
        let index = run.info().index.checked_sub(1)?;
        let places = self.plan.steps.get(index)?;
        let mut hit = Vec::new();
        let mut notes = Vec::new();
        {
            let breakpoints = self
                .shared
                .breakpoints
                .lock()
                .unwrap_or_else(|e| e.into_inner());
            for b in breakpoints.hits(places) {
                match &b.condition {
                    Some(Ok(c)) => match c.holds(|t| run.expand(t)) {
                        Ok(true) => hit.push(b.id),
                        Ok(false) => {}
                        // An error stops: the author learns the condition cannot be evaluated.
                        Err(e) => {
                            hit.push(b.id);
                            notes.push(format!("breakpoint condition could not be evaluated: {e}"));
                        }
                    },
                    _ => hit.push(b.id),
                }
            }
        }
        let note = (!notes.is_empty()).then(|| notes.join("; "));
        if self
            .shared
            .pause
            .swap(false, std::sync::atomic::Ordering::SeqCst)
        {
            return Some(("pause", hit, note));
        }
        let stepped = match self.mode {
            Mode::Run => false,
            Mode::Step => true,
            Mode::StepOut(depth) => places.depth() < depth,
        };
        if stepped {
            let reason = if run.info().index == 1 && hit.is_empty() {
                "entry"
            } else {
                "step"
            };
            return Some((
                if hit.is_empty() { reason } else { "breakpoint" },
                hit,
                note,
            ));
        }
        (!hit.is_empty()).then_some(("breakpoint", hit, note))
    }

    /// Does a failed step stop the run (the exception filters)?
    fn stops_on(&self, error: &RunError) -> bool {
        if self.no_debug || error.is_interrupted() || error.setup().is_some() || error.preflight {
            return false;
        }
        let filters = *self
            .shared
            .filters
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        filters.failed || (filters.divergence && error.divergence().is_some())
    }

    /// Serves the client until it lets the run go on.
    async fn stopped(
        &mut self,
        run: &mut dyn PausedRun,
        mut stop: Stopped,
        failure: Option<&RunError>,
    ) {
        self.send(RunEvent::Stopped(Box::new(stop.clone())));
        // The screen at this stop, as a file the client can open, taken after `stopped` is
        // sent (a failure has its own). Not after a `next`: a device screenshot makes the next
        // step several times slower (sim ~1.5 → 7 ms, web ~2 → 49 ms per step), and stepping
        // should stay instant; `screenshot FILE` in the console takes one there. None when the
        // device has nothing to show yet, as before `open` on some backends.
        if failure.is_none() && stop.reason != "step" {
            if let Some(dir) = run.run_dir() {
                let shot = dir.join(format!("stop-step-{:03}.png", run.info().index));
                if run.screenshot(&shot).await.is_ok() {
                    stop = describe(
                        run,
                        stop.reason,
                        stop.description.clone(),
                        stop.text.clone(),
                        stop.hit.clone(),
                        &self.plan,
                        None,
                    );
                    self.send(RunEvent::Refreshed(Box::new(stop.clone())));
                    self.send(RunEvent::Output {
                        category: "console",
                        text: format!("the screen at this stop: {}\n", shot.display()),
                    });
                }
            }
        }
        loop {
            // A stop request (Ctrl-C, or the end the client asked for) ends the wait too.
            let command = tokio::select! {
                c = self.commands.recv() => c,
                _ = ad_runtime::core::interrupt::stopped() => None,
            };
            let Some(command) = command else {
                return;
            };
            match command {
                Command::Continue => self.mode = Mode::Run,
                Command::Step => self.mode = Mode::Step,
                Command::StepOut => {
                    let depth = run
                        .info()
                        .index
                        .checked_sub(1)
                        .and_then(|i| self.plan.steps.get(i))
                        .map_or(0, |p| p.depth());
                    self.mode = if depth == 0 {
                        Mode::Run
                    } else {
                        Mode::StepOut(depth)
                    };
                }
                Command::End => self.mode = Mode::Run,
                Command::Evaluate { seq, command, line } => {
                    let result = run.evaluate(&line).await.map(|value| {
                        let text = match &value {
                            None => "ok".to_string(),
                            Some(v) => v
                                .get("text")
                                .and_then(Value::as_str)
                                .map(str::to_string)
                                .unwrap_or_else(|| v.to_string()),
                        };
                        (text, value)
                    });
                    stop = describe(
                        run,
                        stop.reason,
                        stop.description.clone(),
                        stop.text.clone(),
                        stop.hit.clone(),
                        &self.plan,
                        failure,
                    );
                    self.send(RunEvent::Evaluated {
                        seq,
                        command,
                        result,
                        refreshed: Box::new(stop.clone()),
                    });
                    continue;
                }
            }
            return;
        }
    }
}

impl Debugger for Hook {
    fn pause<'a>(&'a mut self, at: Pause<'a>, run: &'a mut dyn PausedRun) -> Pending<'a, ()> {
        Box::pin(async move {
            match at {
                Pause::Step => {
                    let Some((reason, hit, note)) = self.stop_reason(run) else {
                        return;
                    };
                    let reason = match (self.first_stop.take(), reason) {
                        (Some(first), "entry" | "step") => first,
                        _ => reason,
                    };
                    let description = match reason {
                        "entry" => "stopped before the first step".to_string(),
                        "restart" => format!(
                            "restarted at step {}/{}",
                            run.info().index,
                            run.info().total
                        ),
                        "breakpoint" => format!("breakpoint at line {}", run.info().line),
                        "pause" => "paused before the next step".to_string(),
                        _ => format!("before step {}/{}", run.info().index, run.info().total),
                    };
                    let stop = describe(run, reason, description, note, hit, &self.plan, None);
                    self.stopped(run, stop, None).await;
                }
                Pause::Failed(error) => {
                    if !self.stops_on(error) {
                        return;
                    }
                    let what = if error.divergence().is_some() {
                        "divergence"
                    } else {
                        "failed step"
                    };
                    let text = Some(format!("{}: {}", error.public_code(), error.message));
                    let description = format!("{what} at step {}", run.info().index);
                    let stop = describe(
                        run,
                        "exception",
                        description,
                        text,
                        Vec::new(),
                        &self.plan,
                        Some(error),
                    );
                    if let Some(shot) = stop_screenshot(&stop) {
                        self.send(RunEvent::Output {
                            category: "console",
                            text: format!("the screen at the failure: {shot}\n"),
                        });
                    }
                    self.stopped(run, stop, Some(error)).await;
                }
            }
        })
    }
}

/// Everything the client may ask about this stop.
fn describe(
    run: &mut dyn PausedRun,
    reason: &'static str,
    description: String,
    text: Option<String>,
    hit: Vec<i64>,
    plan: &PlanMap,
    failure: Option<&RunError>,
) -> Stopped {
    let info = run.info().clone();
    let frames = info
        .index
        .checked_sub(1)
        .and_then(|i| plan.steps.get(i))
        .map(|p| p.frames.clone())
        .unwrap_or_default();
    let mut tree = VarTree::default();
    let mut scopes = Vec::new();
    // The script's variables: injected values (`-e`, `AD_VAR_*`) as `<var:NAME>`.
    let shown = run.variables();
    let variables: Vec<(String, String)> = shown
        .iter()
        .map(|v| (v.name.clone(), v.value.clone()))
        .collect();
    let vars = shown.iter().map(|v| leaf(&v.name, &v.value)).collect();
    scopes.push(scope("Variables", tree.container(vars), false));
    // The step about to run (or the failed one): as written, resolved, and its recorded target;
    // the screen at this stop (for a failure, the screenshot the run took of it), a file the
    // client can open.
    let mut step_value = step_view(run, &info);
    if let Some(dir) = run.run_dir() {
        let kind = if failure.is_some() { "failure" } else { "stop" };
        let shot = dir.join(format!("{kind}-step-{:03}.png", info.index));
        if shot.is_file() {
            step_value["screenshot"] = Value::String(shot.display().to_string());
        }
    }
    let reference = tree.value(&step_value);
    scopes.push(scope("Step", reference, false));
    // The divergence report of a failure, laid out as variables (suggestions included).
    if let Some(error) = failure {
        let value = serde_json::to_value(error).unwrap_or(Value::Null);
        let reference = tree.value(&value);
        scopes.push(scope(
            if error.divergence().is_some() {
                "Divergence"
            } else {
                "Failure"
            },
            reference,
            false,
        ));
    }
    // The last screen capture, as a tree of elements.
    if let Some(screen) = run.screen() {
        let v = serde_json::to_value(&screen).unwrap_or(Value::Null);
        let nodes = v
            .get("nodes")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        let reference = screen_tree(&mut tree, &nodes);
        scopes.push(scope("Screen", reference, true));
    }
    // The journal so far (the run folder's events.jsonl): its latest events, so a stop late in
    // a long run costs no more than one early on (the file has them all).
    if let Some(dir) = run.run_dir() {
        let events =
            ad_runtime::core::journal::read_events(&dir.join("events.jsonl")).unwrap_or_default();
        let entries = events[events.len().saturating_sub(JOURNAL_SHOWN)..]
            .iter()
            .map(|e| {
                let kind = e.get("event").and_then(Value::as_str).unwrap_or("event");
                let name = format!(
                    "#{} {kind}",
                    e.get("sequence").and_then(Value::as_u64).unwrap_or(0)
                );
                tree.entry(&name, e)
            })
            .collect();
        let reference = tree.container(entries);
        scopes.push(scope("Journal", reference, true));
    }
    let exception = failure.map(|e| {
        (
            e.public_code().to_string(),
            e.message.clone(),
            e.hint.clone(),
        )
    });
    Stopped {
        reason,
        index: info.index,
        description,
        text,
        hit,
        frames,
        scopes,
        tree,
        variables,
        exception,
    }
}

/// The failure screenshot a stop's Step scope names.
fn stop_screenshot(stop: &Stopped) -> Option<String> {
    let step = stop.scopes.iter().find(|s| s.name == "Step")?;
    let entries = stop.tree.children(step.variables_reference, None, None)?;
    let shot = entries.into_iter().find(|v| v.name == "screenshot")?;
    serde_json::from_str::<String>(&shot.value).ok()
}

/// How many of the journal's latest events a stop shows.
const JOURNAL_SHOWN: usize = 200;

fn scope(name: &str, variables_reference: i64, expensive: bool) -> Scope {
    Scope {
        name: name.to_string(),
        variables_reference,
        expensive,
    }
}

/// The step as written, its arguments resolved with the run's variables (redacted), and the
/// target its annotation recorded.
fn step_view(run: &mut dyn PausedRun, info: &StepInfo) -> Value {
    let (command, written, evidence) = {
        let step = run.step();
        (
            step.command().to_string(),
            step.positional_values(),
            step.target_evidence
                .as_deref()
                .and_then(|e| serde_json::to_value(e).ok()),
        )
    };
    let resolved: Vec<Value> = written
        .iter()
        .map(|w| match run.expand(w) {
            Ok(v) => Value::String(run.redact(&v)),
            Err(e) => Value::String(format!("<unresolved: {e}>")),
        })
        .collect();
    let mut v = serde_json::json!({
        "step": format!("{}/{}", info.index, info.total),
        "line": info.line,
        "label": info.label,
        "command": command,
        "arguments": written,
        "resolved": resolved,
    });
    if let Some(e) = evidence {
        v["recordedTarget"] = e;
    }
    v
}

/// Live progress as output events, one line per finished step.
struct DapProgress {
    hook: Hook,
}

impl Progress for DapProgress {
    fn step_end(&mut self, s: &StepInfo, end: &StepEnd) {
        let note = end
            .note
            .as_ref()
            .map(|n| format!(" — {n}"))
            .unwrap_or_default();
        self.hook.send(RunEvent::Output {
            category: "console",
            text: format!(
                "  {} {}/{}  line {}  {}  ({:.1} ms){note}\n",
                end.status, s.index, s.total, s.line, s.label, end.wall_ms
            ),
        });
    }

    fn debugger(&mut self) -> Option<&mut dyn Debugger> {
        Some(&mut self.hook)
    }
}

/// What the main loop keeps of a started run.
pub struct RunHandle {
    pub commands: tokio::sync::mpsc::UnboundedSender<Command>,
    pub stop: Arc<AtomicU8>,
    /// Keep the sim's live session when the run ends (a restarted frame resumes on it).
    pub keep: Arc<AtomicBool>,
    pub thread: std::thread::JoinHandle<()>,
}

impl RunHandle {
    /// Asks the run to end at once (a disconnect, terminate or restart): its journal is ended
    /// and its backend closed as an interrupted `ad run`'s are.
    pub fn end(&self) {
        ad_runtime::core::interrupt::request_on(&self.stop, "SIGTERM");
        let _ = self.commands.send(Command::End);
    }
}

/// How a run starts: where it stops first.
#[derive(Debug, Clone, Copy, Default)]
pub struct StartMode {
    pub stop_on_entry: bool,
    pub no_debug: bool,
    /// The reason of the first stop instead of `entry`/`step` (`restart`).
    pub first_stop: Option<&'static str>,
}

/// Starts `prepared` on a thread of its own.
pub fn start(
    prepared: Prepared,
    plan: Arc<PlanMap>,
    shared: Arc<Shared>,
    events: mpsc::Sender<Input>,
    how: StartMode,
) -> std::io::Result<RunHandle> {
    let (commands, receiver) = tokio::sync::mpsc::unbounded_channel();
    let stop = Arc::new(AtomicU8::new(0));
    let flag = stop.clone();
    let keep = Arc::new(AtomicBool::new(false));
    let keep_session = keep.clone();
    let thread = std::thread::Builder::new()
        .name("ad-dap-run".into())
        .spawn(move || {
            let hook = Hook {
                shared,
                plan,
                commands: receiver,
                events: events.clone(),
                mode: if how.stop_on_entry || how.first_stop.is_some() {
                    Mode::Step
                } else {
                    Mode::Run
                },
                no_debug: how.no_debug,
                first_stop: how.first_stop,
            };
            let (exit_code, summary) = run_to_end(prepared, hook, flag, keep_session);
            let _ = events.send(Input::Run(RunEvent::Finished { exit_code, summary }));
        })?;
    Ok(RunHandle {
        commands,
        stop,
        keep,
        thread,
    })
}

/// Runs the plan to its end; the exit code and summary `ad run` would give.
fn run_to_end(
    prepared: Prepared,
    hook: Hook,
    stop: Arc<AtomicU8>,
    keep: Arc<AtomicBool>,
) -> (i32, String) {
    let rt = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => return (2, format!("cannot start the async runtime: {e}")),
    };
    let Prepared {
        analysis,
        script,
        name,
        options,
        mut config,
        kind,
        ..
    } = prepared;
    let mut progress = DapProgress { hook };
    rt.block_on(ad_runtime::core::interrupt::scoped(stop, async {
        let plan = Plan {
            steps: analysis.steps(),
            metadata: analysis.metadata(),
        };
        match run_live(&plan, &script, kind, &options, &config, &mut progress).await {
            Ok(mut live) => {
                // Ended for a restarted frame: the sim's session is kept for the resumed run,
                // as `ad run` keeps one for `--from`.
                if keep.load(std::sync::atomic::Ordering::SeqCst) {
                    config.persist_session = true;
                    live.persist(&config, &options);
                }
                let ad_runtime::session::LiveRun {
                    outcome,
                    mut backend,
                    ..
                } = live;
                // What the run leaves on a device that outlives `ad` is ended, and the browser
                // is killed inside the runtime, as `ad run` does.
                backend.release().await;
                drop(backend);
                summarize(&name, &outcome.result, outcome.run_dir)
            }
            Err(StartError::Refused(e)) => (2, format!("error: {}\n", e.0)),
            Err(StartError::Backend(problem)) => (
                2,
                format!(
                    "error: the {} backend cannot start: {}\n{}",
                    problem.backend,
                    problem.problem,
                    problem
                        .fix
                        .as_ref()
                        .map(|f| format!("  help: {f}\n"))
                        .unwrap_or_default()
                ),
            ),
        }
    }))
}

fn summarize(
    name: &str,
    r: &ad_runtime::core::interp::RunResult,
    run_dir: Option<PathBuf>,
) -> (i32, String) {
    let journal = run_dir.map(|d| d.display().to_string()).unwrap_or_default();
    let text = match &r.error {
        None => format!(
            "ok: {name} — {} step(s) replayed in {:.0} ms; journal {journal}\n",
            r.replayed, r.wall_ms
        ),
        Some(e) => {
            let mut t = format!("error[{}]: {}\n", e.public_code(), e.message);
            if let Some(h) = &e.hint {
                t.push_str(&format!("  help: {h}\n"));
            }
            t.push_str(&format!(
                "{}: {name} — {} of {} step(s) replayed; journal {journal}\n",
                if e.is_interrupted() {
                    "ended"
                } else {
                    "failed"
                },
                r.replayed,
                r.total
            ));
            t
        }
    };
    (r.exit().0, text)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::breakpoints::SetBreakpoint;
    use crate::condition::Condition;
    use ad_compiler::Step;
    use ad_runtime::core::interp::debug::ShownVariable;
    use ad_runtime::core::records::journal::{IncludeSite, StepSource};
    use ad_runtime::core::tree::Snapshot;
    use std::path::Path;

    /// A paused run at step `index` with the variable USER.
    struct Fake {
        info: StepInfo,
        analysis: ad_compiler::Analysis,
        user: &'static str,
    }

    impl PausedRun for Fake {
        fn info(&self) -> &StepInfo {
            &self.info
        }
        fn step(&self) -> &Step<'_> {
            &self.analysis.steps()[0]
        }
        fn variables(&self) -> Vec<ShownVariable> {
            Vec::new()
        }
        fn expand(&mut self, text: &str) -> Result<String, String> {
            let user = self.user;
            ad_grammar::placeholder::interpolate(text, |n| (n == "USER").then_some(user))
                .map_err(|u| format!("${{{}}} has no value", u.name))
        }
        fn redact(&self, text: &str) -> String {
            text.to_string()
        }
        fn screen(&self) -> Option<Snapshot> {
            None
        }
        fn run_dir(&self) -> Option<PathBuf> {
            None
        }
        fn evaluate<'a>(&'a mut self, _: &'a str) -> Pending<'a, Result<Option<Value>, String>> {
            Box::pin(async { Ok(None) })
        }
        fn screenshot<'a>(&'a mut self, _: &'a std::path::Path) -> Pending<'a, Result<(), String>> {
            Box::pin(async { Err("no device".into()) })
        }
    }

    fn at(index: usize) -> Fake {
        Fake {
            info: StepInfo {
                index,
                total: 3,
                line: index,
                label: "snapshot".into(),
            },
            analysis: ad_compiler::read("snapshot"),
            user: "alice",
        }
    }

    /// Three steps of main.ad; the second comes from a fragment included at line 2.
    fn hook() -> (Hook, Arc<Shared>) {
        let base = Path::new("/nowhere");
        let steps: Vec<(usize, String)> = (0..3).map(|i| (i, format!("s{i}"))).collect();
        let sources = vec![
            None,
            Some(StepSource {
                file: "frag.ad".into(),
                line: 4,
                includes: vec![IncludeSite {
                    file: "main.ad".into(),
                    line: 2,
                    call_site_id: "a".into(),
                    digest: "sha256:0".into(),
                }],
            }),
            None,
        ];
        let plan = Arc::new(PlanMap::new(Path::new("main.ad"), &steps, &sources, base));
        let shared = Arc::new(Shared::default());
        let (_commands, receiver) = tokio::sync::mpsc::unbounded_channel();
        let (events, _) = mpsc::channel();
        let hook = Hook {
            shared: shared.clone(),
            plan,
            commands: receiver,
            events,
            mode: Mode::Run,
            no_debug: false,
            first_stop: None,
        };
        (hook, shared)
    }

    fn reason(hook: &mut Hook, index: usize) -> Option<&'static str> {
        hook.stop_reason(&mut at(index)).map(|(r, _, _)| r)
    }

    #[test]
    fn stepping_pausing_and_stepping_out_decide_where_the_run_stops() {
        let (mut hook, shared) = hook();
        assert_eq!(reason(&mut hook, 1), None);
        hook.mode = Mode::Step;
        assert_eq!(reason(&mut hook, 1), Some("entry"));
        assert_eq!(reason(&mut hook, 2), Some("step"));
        // Out of the fragment (depth 1): not at its own step, at the parent's next one.
        hook.mode = Mode::StepOut(1);
        assert_eq!(reason(&mut hook, 2), None);
        assert_eq!(reason(&mut hook, 3), Some("step"));
        hook.mode = Mode::Run;
        shared
            .pause
            .store(true, std::sync::atomic::Ordering::SeqCst);
        assert_eq!(reason(&mut hook, 2), Some("pause"));
        assert_eq!(reason(&mut hook, 3), None, "a pause stops once");
    }

    #[test]
    fn breakpoints_stop_when_their_condition_holds_and_not_without_debugging() {
        let (mut hook, shared) = hook();
        let bp = |id: i64, line: usize, condition: Option<&str>| SetBreakpoint {
            id,
            path: PathBuf::from("/nowhere/main.ad"),
            requested: line,
            condition: condition.map(Condition::parse),
            line: Some(line),
        };
        shared.breakpoints.lock().unwrap().replace(
            Path::new("/nowhere/main.ad"),
            vec![
                bp(1, 1, Some("${USER} == bob")),
                bp(2, 3, Some("${USER} == alice")),
                bp(3, 2, Some("${NOPE} == x")),
            ],
        );
        assert_eq!(reason(&mut hook, 1), None);
        let (r, hit, _) = hook.stop_reason(&mut at(3)).unwrap();
        assert_eq!((r, hit), ("breakpoint", vec![2]));
        // The include line stops its first step; the condition cannot be evaluated: it says so.
        let (r, hit, note) = hook.stop_reason(&mut at(2)).unwrap();
        assert_eq!((r, hit), ("breakpoint", vec![3]));
        assert!(note.unwrap().contains("NOPE"));
        hook.no_debug = true;
        assert_eq!(reason(&mut hook, 3), None);
    }

    #[test]
    fn the_exception_filters_choose_which_failures_stop() {
        let (mut hook, shared) = hook();
        let failed = RunError {
            code: "ASSERTION_FAILED".into(),
            message: "not visible".into(),
            hint: None,
            step: Some(2),
            line: Some(2),
            preflight: false,
            details: Default::default(),
        };
        // Divergence only (the default): a failure without a report does not stop.
        assert!(!hook.stops_on(&failed));
        *shared.filters.lock().unwrap() = Filters {
            divergence: false,
            failed: true,
        };
        assert!(hook.stops_on(&failed));
        let mut interrupted = failed.clone();
        interrupted.code = "INTERRUPTED".into();
        assert!(!hook.stops_on(&interrupted), "an ended run never stops");
        hook.no_debug = true;
        assert!(!hook.stops_on(&failed));
    }
}
