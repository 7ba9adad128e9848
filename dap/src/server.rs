//! The adapter's main loop: one client, one launch at a time. Requests are answered in order;
//! a request that needs the run (a console command while stopped) is answered when the run
//! replies. Every request gets a response: an unknown or malformed one an error response, and
//! the adapter goes on.

use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::sync::Arc;

use serde_json::{json, Value};

use crate::breakpoints::{normal_path, PlanMap, SetBreakpoint};
use crate::condition::Condition;
use crate::protocol::*;
use crate::run::{self, Command, RunEvent, RunHandle, Shared, Stopped};
use crate::transport::{read_frame, write_frame, Frame};
use crate::{Host, Input, Prepared};

/// The one thread a script runs on.
const THREAD_ID: i64 = 1;

/// Serves one client on `input`/`output` until it disconnects or closes the stream; returns
/// the process exit code.
pub fn serve(input: impl BufRead + Send + 'static, output: impl Write, host: Arc<dyn Host>) -> i32 {
    let (tx, rx) = mpsc::channel();
    let reader_tx = tx.clone();
    let _ = std::thread::Builder::new()
        .name("ad-dap-reader".into())
        .spawn(move || {
            let mut input = input;
            while let Some(frame) = read_frame(&mut input) {
                if reader_tx.send(Input::Frame(frame)).is_err() {
                    return;
                }
            }
            let _ = reader_tx.send(Input::Closed);
        });
    let mut server = Server {
        out: output,
        seq: 0,
        host,
        tx,
        shared: Arc::new(Shared::default()),
        base: std::env::current_dir().unwrap_or_else(|_| PathBuf::from("/")),
        launch: None,
        plan: None,
        prepared: None,
        configured: false,
        run: None,
        stopped: None,
        ending: None,
        next_breakpoint: 1,
        digest: None,
        kind: None,
        first_stop: None,
        attached: None,
    };
    while let Ok(input) = rx.recv() {
        match input {
            Input::Frame(Frame::Message(m)) => match Request::parse(&m) {
                Ok(request) => server.request(request),
                Err((seq, why)) => {
                    let command = m.get("command").and_then(Value::as_str).unwrap_or("");
                    server.send(Outgoing::error(seq, command, why));
                }
            },
            Input::Frame(Frame::Malformed(why)) => {
                server.send(Outgoing::error(0, "", why));
            }
            Input::Closed => {
                // The client went away: end the run as a disconnect does, then stop.
                if let Some(handle) = server.run.take() {
                    handle.end();
                    let _ = handle.thread.join();
                }
                return 0;
            }
            Input::Run(event) => {
                if server.run_event(event) {
                    return 0;
                }
            }
        }
    }
    0
}

/// Serves one client that connects to `127.0.0.1:port` (`ad dap --port N`).
pub fn serve_tcp(port: u16, host: Arc<dyn Host>, ready: impl FnOnce(u16)) -> std::io::Result<i32> {
    let listener = std::net::TcpListener::bind(("127.0.0.1", port))?;
    ready(listener.local_addr()?.port());
    let (stream, _) = listener.accept()?;
    let input = std::io::BufReader::new(stream.try_clone()?);
    Ok(serve(input, stream, host))
}

/// What ends when the current run has finished.
enum Ending {
    /// `disconnect`: answer it, then stop serving.
    Disconnect(Request),
    /// `restart`: answer it, and launch again with these arguments.
    Restart(Request, Box<LaunchArguments>),
    /// `terminate`: the run ends; the client disconnects next.
    Terminate,
    /// `restartFrame`: the run resumes at this step (1-based) on the session it left.
    RestartFrame(Request, usize),
}

struct Server<W: Write> {
    out: W,
    seq: i64,
    host: Arc<dyn Host>,
    tx: mpsc::Sender<Input>,
    shared: Arc<Shared>,
    /// The folder relative paths are read from.
    base: PathBuf,
    launch: Option<LaunchArguments>,
    plan: Option<Arc<PlanMap>>,
    /// Launched, waiting for `configurationDone`.
    prepared: Option<Prepared>,
    configured: bool,
    run: Option<RunHandle>,
    stopped: Option<Box<Stopped>>,
    ending: Option<Ending>,
    next_breakpoint: i64,
    /// The plan digest of the launched script (what a restarted frame's resume is checked
    /// against) and the backend it runs on.
    digest: Option<String>,
    kind: Option<ad_runtime::backends::BackendKind>,
    /// The next run's first stop reason (`restart`).
    first_stop: Option<&'static str>,
    /// `attach`: the live `ad session` the console talks to (no script runs).
    attached: Option<String>,
}

impl<W: Write> Server<W> {
    fn send(&mut self, message: Outgoing) {
        self.seq += 1;
        let _ = write_frame(&mut self.out, &message.to_json(self.seq));
    }

    fn output(&mut self, category: &str, text: impl Into<String>) {
        self.send(Outgoing::event(
            "output",
            json!({"category": category, "output": text.into()}),
        ));
    }

    fn request(&mut self, r: Request) {
        let reply = match r.command.as_str() {
            "initialize" => Ok(Some(self.initialize())),
            "launch" => return self.launch(r),
            "attach" => return self.attach(r),
            "setBreakpoints" => self.set_breakpoints(&r).map(Some),
            "setExceptionBreakpoints" => self.set_exception_breakpoints(&r).map(Some),
            "configurationDone" => {
                self.configured = true;
                self.send(Outgoing::ok(&r, Value::Null));
                if let Some(name) = self.attached.clone() {
                    return self.stop_attached(&name, None, "entry");
                }
                self.start_if_ready();
                return;
            }
            "threads" => Ok(Some(
                json!({"threads": [{"id": THREAD_ID, "name": self.thread_name()}]}),
            )),
            "stackTrace" => self.stack_trace(&r).map(Some),
            "scopes" => self.scopes(&r).map(Some),
            "variables" => self.variables(&r).map(Some),
            "continue" => self
                .resume(&r, Command::Continue)
                .map(|()| Some(json!({"allThreadsContinued": true}))),
            "next" | "stepIn" => self.resume(&r, Command::Step).map(|()| None),
            "stepOut" => self.resume(&r, Command::StepOut).map(|()| None),
            "pause" => self.pause().map(|()| None),
            "evaluate" => return self.evaluate(r),
            "exceptionInfo" => self.exception_info(),
            "restart" => return self.restart(r),
            "restartFrame" => return self.restart_frame(r),
            "terminate" => return self.terminate(r),
            "disconnect" => return self.disconnect(r),
            other => Err(format!("`{other}` is not supported by ad dap")),
        };
        self.send(match reply {
            Ok(body) => Outgoing::ok(&r, body),
            Err(message) => Outgoing::error(r.seq, &r.command, message),
        });
    }

    fn initialize(&self) -> Value {
        let caps = Capabilities {
            supports_configuration_done_request: true,
            supports_conditional_breakpoints: true,
            supports_evaluate_for_hovers: true,
            supports_restart_request: true,
            supports_restart_frame: true,
            supports_terminate_request: true,
            supports_exception_info_request: true,
            supports_single_thread_execution_requests: false,
            exception_breakpoint_filters: vec![
                ExceptionFilter {
                    filter: "divergence",
                    label: "On divergence",
                    description: "Stop when a step diverges (its divergence report is shown)",
                    default: true,
                },
                ExceptionFilter {
                    filter: "failed",
                    label: "On any failed step",
                    description: "Stop when any step fails (a wait that times out, an assertion, a refused dispatch)",
                    default: false,
                },
            ],
        };
        serde_json::to_value(caps).unwrap_or(Value::Null)
    }

    fn thread_name(&self) -> String {
        if let Some(name) = &self.attached {
            return format!("session {name}");
        }
        self.launch
            .as_ref()
            .and_then(|l| l.program.clone())
            .unwrap_or_else(|| "script".into())
    }

    /// Attaches the debug console to a live `ad session`: no script runs; the console's
    /// commands go to the session (as `ad session --session NAME …`), and a `snapshot` there
    /// fills the Screen scope.
    fn attach(&mut self, r: Request) {
        if self.launch.is_some() || self.attached.is_some() {
            return self.send(Outgoing::error(
                r.seq,
                &r.command,
                "already launched or attached",
            ));
        }
        let args: AttachArguments = match r.arguments() {
            Ok(a) => a,
            Err(e) => return self.send(Outgoing::error(r.seq, &r.command, e)),
        };
        if let Some(cwd) = &args.cwd {
            self.base = normal_path(Path::new(cwd), &self.base);
        }
        let name = args.session.unwrap_or_else(|| "default".into());
        let live = match self.session_info(&name) {
            Ok(info) => !info.is_null(),
            Err(e) => return self.send(Outgoing::error(r.seq, &r.command, e)),
        };
        if !live {
            return self.send(Outgoing::error(
                r.seq,
                &r.command,
                format!("no live session `{name}`: start one with `ad session --session {name} open …` (`ad session list` lists them)"),
            ));
        }
        self.attached = Some(name);
        self.send(Outgoing::ok(&r, Value::Null));
        self.send(Outgoing::event("initialized", Value::Null));
    }

    /// The session daemon's `list` entry of `name` (null when it holds no such session).
    fn session_info(&self, name: &str) -> Result<Value, String> {
        let listed = self
            .host
            .session_command(name, vec!["list".into()], &self.base)?;
        Ok(listed["sessions"]
            .as_array()
            .and_then(|l| l.iter().find(|s| s["name"] == name).cloned())
            .unwrap_or(Value::Null))
    }

    /// The stop an attached session shows: the session, and the screen its last `snapshot`
    /// answered with.
    fn stop_attached(&mut self, name: &str, nodes: Option<&Value>, reason: &'static str) {
        let mut tree = crate::inspect::VarTree::default();
        let info = self.session_info(name).unwrap_or(Value::Null);
        let mut scopes = vec![Scope {
            name: "Session".into(),
            variables_reference: tree.value(&info),
            expensive: false,
        }];
        if let Some(Value::Array(nodes)) = nodes {
            scopes.push(Scope {
                name: "Screen".into(),
                variables_reference: crate::inspect::screen_tree(&mut tree, nodes),
                expensive: true,
            });
        }
        let description = format!("attached to session {name}");
        let stop = Stopped {
            reason,
            index: 0,
            description: description.clone(),
            text: None,
            hit: Vec::new(),
            frames: vec![crate::breakpoints::Place {
                path: PathBuf::new(),
                line: 0,
                name: format!("session {name}"),
            }],
            scopes,
            tree,
            variables: Vec::new(),
            exception: None,
        };
        let first = self.stopped.is_none();
        self.stopped = Some(Box::new(stop));
        if first {
            self.send(Outgoing::event(
                "stopped",
                json!({"reason": reason, "description": description, "threadId": THREAD_ID, "allThreadsStopped": true}),
            ));
        }
    }

    /// A console command on the attached session.
    fn evaluate_attached(&mut self, r: &Request, name: &str, line: &str) {
        let words = match split_words(line) {
            Ok(w) if !w.is_empty() => w,
            Ok(_) => {
                return self.send(Outgoing::error(
                    r.seq,
                    &r.command,
                    "type a session command (`snapshot`, `get text \"id=…\"`)",
                ))
            }
            Err(e) => return self.send(Outgoing::error(r.seq, &r.command, e)),
        };
        let answer = match self.host.session_command(name, words, &self.base) {
            Ok(v) => v,
            Err(e) => return self.send(Outgoing::error(r.seq, &r.command, e)),
        };
        if answer["ok"] != true {
            let code = answer["code"].as_str().unwrap_or("ERROR");
            let message = answer["message"].as_str().unwrap_or("the command failed");
            return self.send(Outgoing::error(
                r.seq,
                &r.command,
                format!("{code}: {message}"),
            ));
        }
        if answer.get("nodes").is_some() {
            self.stop_attached(name, answer.get("nodes"), "entry");
            self.send(Outgoing::event(
                "invalidated",
                json!({"areas": ["variables"], "threadId": THREAD_ID}),
            ));
        }
        let text = match (&answer["result"], answer["message"].as_str()) {
            (Value::Object(m), _) if m.get("text").is_some_and(Value::is_string) => {
                m["text"].as_str().unwrap_or("").to_string()
            }
            (Value::Null, Some(message)) => message.to_string(),
            (Value::Null, None) => "ok".to_string(),
            (result, _) => result.to_string(),
        };
        let reference = match (&answer["result"], self.stopped.as_deref_mut()) {
            (v @ (Value::Object(_) | Value::Array(_)), Some(stop)) => stop.tree.value(v),
            _ => 0,
        };
        self.send(Outgoing::ok(
            r,
            json!({"result": text, "variablesReference": reference}),
        ));
    }

    fn launch(&mut self, r: Request) {
        if self.launch.is_some() || self.attached.is_some() {
            return self.send(Outgoing::error(
                r.seq,
                &r.command,
                "already launched: one script per session (use restart)",
            ));
        }
        let args: LaunchArguments = match r.arguments() {
            Ok(a) => a,
            Err(e) => return self.send(Outgoing::error(r.seq, &r.command, e)),
        };
        if args.program.as_deref().is_none_or(str::is_empty) {
            return self.send(Outgoing::error(
                r.seq,
                &r.command,
                "`program` is required: the script to run",
            ));
        }
        if let Some(cwd) = &args.cwd {
            self.base = normal_path(Path::new(cwd), &self.base);
        }
        match self.prepare(&args) {
            Ok(()) => {
                self.launch = Some(args);
                self.send(Outgoing::ok(&r, Value::Null));
                // Configuration (breakpoints, exception filters) comes now; the run starts at
                // `configurationDone`.
                self.send(Outgoing::event("initialized", Value::Null));
                self.start_if_ready();
            }
            Err(summary) => {
                self.send(Outgoing::error(r.seq, &r.command, summary));
                self.send(Outgoing::event("terminated", Value::Null));
            }
        }
    }

    /// Gates the script; a refusal is said as an output event (the rendered diagnostics) and
    /// returned as the one-line summary.
    fn prepare(&mut self, args: &LaunchArguments) -> Result<(), String> {
        let mut args = args.clone();
        // The host reads paths as given: relative ones are the launch's `cwd`'s.
        args.program = args
            .program
            .map(|p| self.base.join(p).display().to_string());
        match self.host.prepare(&args) {
            Ok(prepared) => {
                let steps: Vec<(usize, String)> = prepared
                    .analysis
                    .steps()
                    .iter()
                    .map(|s| {
                        (
                            s.line(),
                            ad_runtime::core::interp::action_label(
                                s.command(),
                                &s.positional_values(),
                            ),
                        )
                    })
                    .collect();
                // A composition's sources are named relative to this process's folder (as
                // `ad run` shows them), whatever the launch's `cwd`.
                let here = std::env::current_dir().unwrap_or_else(|_| self.base.clone());
                let plan = PlanMap::new(&prepared.script, &steps, &prepared.options.sources, &here);
                for w in &prepared.warnings {
                    self.output("console", format!("warning: {w}\n"));
                }
                self.plan = Some(Arc::new(plan));
                self.digest = Some(
                    ad_runtime::core::interp::Plan {
                        steps: prepared.analysis.steps(),
                        metadata: prepared.analysis.metadata(),
                    }
                    .digest(&prepared.options),
                );
                self.kind = Some(prepared.kind);
                self.resolve_breakpoints();
                self.prepared = Some(prepared);
                Ok(())
            }
            Err(refused) => {
                let mut text = refused.rendered.clone();
                if !text.is_empty() && !text.ends_with('\n') {
                    text.push('\n');
                }
                text.push_str(&format!("error: {}\n", refused.summary));
                self.output("stderr", text);
                Err(refused.summary)
            }
        }
    }

    /// Resolves every breakpoint against the new plan and tells the client where each stops.
    fn resolve_breakpoints(&mut self) {
        let Some(plan) = self.plan.clone() else {
            return;
        };
        let shown: Vec<Breakpoint> = {
            let mut b = self
                .shared
                .breakpoints
                .lock()
                .unwrap_or_else(|e| e.into_inner());
            b.resolve(&plan);
            b.set.iter().map(|b| b.shown(true)).collect()
        };
        for breakpoint in shown {
            self.send(Outgoing::event(
                "breakpoint",
                json!({"reason": "changed", "breakpoint": breakpoint}),
            ));
        }
    }

    fn start_if_ready(&mut self) {
        if !self.configured || self.run.is_some() {
            return;
        }
        let Some(prepared) = self.prepared.take() else {
            return;
        };
        let launch = self.launch.clone().unwrap_or_default();
        let plan = self.plan.clone().unwrap_or_default();
        let how = run::StartMode {
            stop_on_entry: launch.stop_on_entry,
            no_debug: launch.no_debug,
            first_stop: self.first_stop.take(),
        };
        match run::start(prepared, plan, self.shared.clone(), self.tx.clone(), how) {
            Ok(handle) => {
                self.run = Some(handle);
                self.send(Outgoing::event(
                    "process",
                    json!({"name": self.thread_name(), "isLocalProcess": true, "startMethod": "launch"}),
                ));
                self.send(Outgoing::event(
                    "thread",
                    json!({"reason": "started", "threadId": THREAD_ID}),
                ));
            }
            Err(e) => {
                self.output("stderr", format!("error: cannot start the run: {e}\n"));
                self.send(Outgoing::event("terminated", Value::Null));
            }
        }
    }

    fn set_breakpoints(&mut self, r: &Request) -> Result<Value, String> {
        let args: SetBreakpointsArguments = r.arguments()?;
        let Some(path) = args.source.path.as_deref() else {
            return Err("setBreakpoints needs `source.path`".into());
        };
        let path = normal_path(Path::new(path), &self.base);
        let requested: Vec<SourceBreakpoint> = match (args.breakpoints, args.lines) {
            (Some(b), _) => b,
            (None, Some(lines)) => lines
                .into_iter()
                .map(|line| SourceBreakpoint {
                    line,
                    condition: None,
                })
                .collect(),
            (None, None) => Vec::new(),
        };
        let mut set = Vec::new();
        for b in requested {
            let id = self.next_breakpoint;
            self.next_breakpoint += 1;
            let requested = usize::try_from(b.line).unwrap_or(0).max(1);
            let condition = b
                .condition
                .filter(|c| !c.trim().is_empty())
                .map(|c| Condition::parse(&c));
            set.push(SetBreakpoint {
                id,
                path: path.clone(),
                requested,
                condition,
                line: self.plan.as_ref().and_then(|p| p.resolve(&path, requested)),
            });
        }
        let planned = self.plan.is_some();
        let shown: Vec<Breakpoint> = set.iter().map(|b| b.shown(planned)).collect();
        self.shared
            .breakpoints
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .replace(&path, set);
        Ok(json!({"breakpoints": shown}))
    }

    fn set_exception_breakpoints(&mut self, r: &Request) -> Result<Value, String> {
        let args: SetExceptionBreakpointsArguments = r.arguments()?;
        if let Some(unknown) = args
            .filters
            .iter()
            .find(|f| !matches!(f.as_str(), "divergence" | "failed"))
        {
            return Err(format!(
                "unknown exception filter `{unknown}`: the filters are `divergence` and `failed`"
            ));
        }
        let filters = run::Filters {
            divergence: args.filters.iter().any(|f| f == "divergence"),
            failed: args.filters.iter().any(|f| f == "failed"),
        };
        *self
            .shared
            .filters
            .lock()
            .unwrap_or_else(|e| e.into_inner()) = filters;
        let verified: Vec<Value> = args
            .filters
            .iter()
            .map(|_| json!({"verified": true}))
            .collect();
        Ok(json!({"breakpoints": verified}))
    }

    fn stopped(&self) -> Result<&Stopped, String> {
        self.stopped
            .as_deref()
            .ok_or_else(|| "the run is not stopped".to_string())
    }

    fn stack_trace(&self, r: &Request) -> Result<Value, String> {
        let args: StackTraceArguments = r.arguments()?;
        let stop = self.stopped()?;
        let frames: Vec<StackFrame> = stop
            .frames
            .iter()
            .enumerate()
            .map(|(i, p)| StackFrame {
                id: i as i64 + 1,
                name: p.name.clone(),
                // An attached session's frame has no file.
                source: (!p.path.as_os_str().is_empty()).then(|| Source {
                    name: p.path.file_name().map(|n| n.to_string_lossy().into_owned()),
                    path: Some(p.path.display().to_string()),
                }),
                line: p.line as i64,
                column: 1,
            })
            .collect();
        let total = frames.len();
        let start = args.start_frame.unwrap_or(0).min(total);
        let end = match args.levels {
            Some(l) if l > 0 => (start + l).min(total),
            _ => total,
        };
        Ok(json!({"stackFrames": frames[start..end], "totalFrames": total}))
    }

    fn scopes(&self, r: &Request) -> Result<Value, String> {
        let args: FrameArguments = r.arguments()?;
        let stop = self.stopped()?;
        if args.frame_id < 1 || args.frame_id as usize > stop.frames.len().max(1) {
            return Err(format!("no frame {}", args.frame_id));
        }
        Ok(json!({"scopes": stop.scopes}))
    }

    fn variables(&self, r: &Request) -> Result<Value, String> {
        let args: VariablesArguments = r.arguments()?;
        let stop = self.stopped()?;
        let variables = stop
            .tree
            .children(args.variables_reference, args.start, args.count)
            .ok_or_else(|| format!("no variables reference {}", args.variables_reference))?;
        Ok(json!({"variables": variables}))
    }

    fn resume(&mut self, _r: &Request, command: Command) -> Result<(), String> {
        self.stopped()?;
        if self.attached.is_some() {
            return Err("attached to a live session: no script runs here; type session commands in the debug console".into());
        }
        let Some(run) = &self.run else {
            return Err("no run".into());
        };
        run.commands
            .send(command)
            .map_err(|_| "the run has ended".to_string())?;
        self.stopped = None;
        Ok(())
    }

    fn pause(&mut self) -> Result<(), String> {
        if self.run.is_none() {
            return Err("no run to pause".into());
        }
        if self.stopped.is_none() {
            self.shared
                .pause
                .store(true, std::sync::atomic::Ordering::SeqCst);
        }
        Ok(())
    }

    /// A console command runs against the live session while stopped; a hover or watch of a
    /// variable (`NAME` or `${NAME}`) shows its value as the Variables scope does.
    fn evaluate(&mut self, r: Request) {
        let args: EvaluateArguments = match r.arguments() {
            Ok(a) => a,
            Err(e) => return self.send(Outgoing::error(r.seq, &r.command, e)),
        };
        let expression = args.expression.trim().to_string();
        let Some(stop) = self.stopped.as_deref() else {
            return self.send(Outgoing::error(
                r.seq,
                &r.command,
                "the run is not stopped: console commands run while it is",
            ));
        };
        let name = expression
            .strip_prefix("${")
            .and_then(|e| e.strip_suffix('}'))
            .unwrap_or(&expression);
        if let Some((_, value)) = stop.variables.iter().find(|(n, _)| n == name) {
            let body = json!({"result": value, "variablesReference": 0});
            return self.send(Outgoing::ok(&r, body));
        }
        if args
            .context
            .as_deref()
            .is_some_and(|c| c == "hover" || c == "watch")
        {
            return self.send(Outgoing::error(
                r.seq,
                &r.command,
                format!("no variable `{name}`"),
            ));
        }
        if let Some(session) = self.attached.clone() {
            return self.evaluate_attached(&r, &session, &expression);
        }
        if expression.is_empty() {
            return self.send(Outgoing::error(
                r.seq,
                &r.command,
                "type a script command (`snapshot`, `get text \"id=…\"`)",
            ));
        }
        let Some(run) = &self.run else {
            return self.send(Outgoing::error(r.seq, &r.command, "no run"));
        };
        let sent = run.commands.send(Command::Evaluate {
            seq: r.seq,
            command: r.command.clone(),
            line: expression,
        });
        if sent.is_err() {
            self.send(Outgoing::error(r.seq, &r.command, "the run has ended"));
        }
    }

    fn exception_info(&self) -> Result<Option<Value>, String> {
        let stop = self.stopped()?;
        let Some((code, message, hint)) = &stop.exception else {
            return Err("the run did not stop on a failure".into());
        };
        Ok(Some(json!({
            "exceptionId": code,
            "description": message,
            "breakMode": "always",
            "details": {"message": message, "typeName": code, "stackTrace": hint},
        })))
    }

    fn restart(&mut self, r: Request) {
        let args: RestartArguments = match r.arguments() {
            Ok(a) => a,
            Err(e) => return self.send(Outgoing::error(r.seq, &r.command, e)),
        };
        let Some(launch) = args.arguments.or_else(|| self.launch.clone()) else {
            return self.send(Outgoing::error(r.seq, &r.command, "nothing was launched"));
        };
        match &self.run {
            Some(run) => {
                run.end();
                self.ending = Some(Ending::Restart(r, Box::new(launch)));
            }
            None => self.relaunch(r, launch),
        }
    }

    fn relaunch(&mut self, r: Request, launch: LaunchArguments) {
        self.stopped = None;
        match self.prepare(&launch) {
            Ok(()) => {
                self.launch = Some(launch);
                self.send(Outgoing::ok(&r, Value::Null));
                self.start_if_ready();
            }
            Err(summary) => {
                self.send(Outgoing::error(r.seq, &r.command, summary));
                self.send(Outgoing::event("terminated", Value::Null));
            }
        }
    }

    /// Runs the stopped step again: the run ends keeping the sim's session, and a new run
    /// resumes at the step on it (`ad run --from N --plan-digest`, the digest of the launched
    /// script: an edited script is refused). Any frame restarts the step the run stopped at.
    fn restart_frame(&mut self, r: Request) {
        let index = match self.stopped() {
            Ok(stop) => stop.index,
            Err(e) => return self.send(Outgoing::error(r.seq, &r.command, e)),
        };
        if !self.kind.is_some_and(|k| k.resumes_sessions()) {
            return self.send(Outgoing::error(
                r.seq,
                &r.command,
                "restarting a frame resumes the run at its step on the session the run leaves (`--from`), which only the sim keeps: use restart to run the script again",
            ));
        }
        let Some(run) = &self.run else {
            return self.send(Outgoing::error(r.seq, &r.command, "no run"));
        };
        run.keep.store(true, std::sync::atomic::Ordering::SeqCst);
        run.end();
        self.ending = Some(Ending::RestartFrame(r, index));
    }

    fn relaunch_at(&mut self, r: Request, index: usize) {
        let launch = self.launch.clone().unwrap_or_default();
        let digest = self.digest.clone();
        self.stopped = None;
        match self.prepare(&launch) {
            Ok(()) => {
                if let Some(p) = &mut self.prepared {
                    p.options.from = Some(index);
                    // The launched script's digest: the interpreter refuses an edited one.
                    p.options.plan_digest = digest;
                    p.config.persist_session = true;
                }
                self.first_stop = Some("restart");
                self.send(Outgoing::ok(&r, Value::Null));
                self.start_if_ready();
            }
            Err(summary) => {
                self.send(Outgoing::error(r.seq, &r.command, summary));
                self.send(Outgoing::event("terminated", Value::Null));
            }
        }
    }

    fn terminate(&mut self, r: Request) {
        match &self.run {
            Some(run) => {
                run.end();
                self.ending = Some(Ending::Terminate);
                self.send(Outgoing::ok(&r, Value::Null));
            }
            None => {
                self.send(Outgoing::ok(&r, Value::Null));
                self.send(Outgoing::event("terminated", Value::Null));
            }
        }
    }

    fn disconnect(&mut self, r: Request) {
        if let Some(name) = self.attached.clone() {
            // Detaching leaves the session live, unless the client ends it.
            let args: DisconnectArguments = r.arguments().unwrap_or_default();
            if args.terminate_debuggee == Some(true) {
                let _ = self
                    .host
                    .session_command(&name, vec!["close".into()], &self.base);
                self.output("console", format!("session {name} closed\n"));
            } else {
                self.output(
                    "console",
                    format!("session {name} is still live (`ad session --session {name} …`)\n"),
                );
            }
            self.send(Outgoing::ok(&r, Value::Null));
            let _ = self.tx.send(Input::Closed);
            return;
        }
        match &self.run {
            Some(run) => {
                run.end();
                self.ending = Some(Ending::Disconnect(r));
            }
            None => {
                self.send(Outgoing::ok(&r, Value::Null));
                // The stream stays open until the client closes it; nothing more is served.
                let _ = self.tx.send(Input::Closed);
            }
        }
    }

    /// Handles news from the run; `true` when the adapter is done.
    fn run_event(&mut self, event: RunEvent) -> bool {
        match event {
            RunEvent::Output { category, text } => self.output(category, text),
            RunEvent::Stopped(stop) => {
                let mut body = json!({
                    "reason": stop.reason,
                    "description": stop.description,
                    "threadId": THREAD_ID,
                    "allThreadsStopped": true,
                });
                if let Some(text) = &stop.text {
                    body["text"] = json!(text);
                }
                if !stop.hit.is_empty() {
                    body["hitBreakpointIds"] = json!(stop.hit);
                }
                self.stopped = Some(stop);
                self.send(Outgoing::event("stopped", body));
            }
            RunEvent::Refreshed(stop) => {
                // Still the same stop: the scopes the client read before are stale.
                if self.stopped.is_some() {
                    self.stopped = Some(stop);
                    self.send(Outgoing::event(
                        "invalidated",
                        json!({"areas": ["variables"], "threadId": THREAD_ID}),
                    ));
                }
            }
            RunEvent::Evaluated {
                seq,
                command,
                result,
                refreshed,
            } => {
                // The command may have changed the screen: the stop shows the new state.
                if self.stopped.is_some() {
                    self.stopped = Some(refreshed);
                }
                let response = match result {
                    Ok((text, value)) => {
                        let reference = match (&value, self.stopped.as_deref_mut()) {
                            (Some(v @ (Value::Object(_) | Value::Array(_))), Some(stop)) => {
                                stop.tree.value(v)
                            }
                            _ => 0,
                        };
                        Outgoing::Response {
                            request_seq: seq,
                            command,
                            result: Ok(Some(
                                json!({"result": text, "variablesReference": reference}),
                            )),
                        }
                    }
                    Err(message) => Outgoing::error(seq, &command, message),
                };
                self.send(response);
                // Variables shown before are stale: the client asks again.
                self.send(Outgoing::event(
                    "invalidated",
                    json!({"areas": ["variables"], "threadId": THREAD_ID}),
                ));
            }
            RunEvent::Finished { exit_code, summary } => {
                self.stopped = None;
                if let Some(run) = self.run.take() {
                    let _ = run.thread.join();
                }
                self.output(if exit_code == 0 { "console" } else { "stderr" }, summary);
                match self.ending.take() {
                    Some(Ending::Restart(r, launch)) => {
                        self.relaunch(r, *launch);
                        return false;
                    }
                    Some(Ending::RestartFrame(r, index)) => {
                        self.relaunch_at(r, index);
                        return false;
                    }
                    Some(Ending::Disconnect(r)) => {
                        self.send(Outgoing::event("exited", json!({"exitCode": exit_code})));
                        self.send(Outgoing::event("terminated", Value::Null));
                        self.send(Outgoing::ok(&r, Value::Null));
                        return true;
                    }
                    Some(Ending::Terminate) | None => {
                        self.send(Outgoing::event("exited", json!({"exitCode": exit_code})));
                        self.send(Outgoing::event("terminated", Value::Null));
                    }
                }
            }
        }
        false
    }
}
