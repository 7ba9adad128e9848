//! `ad session …`: script commands on a named live session held by the per-user session daemon
//! (started on first use), and the authoring commands around them (`list`, `save-script`,
//! `close`, `replay`). The daemon does the work; this renders its answers.

use std::path::{Path, PathBuf};

use ad_runtime::session::authoring::daemon::{self, Client, Message};
use ad_runtime::session::authoring::handoff::{RunReply, RunRequest};
use ad_runtime::session::authoring::{Request, Response};
use clap::Args;

#[derive(Args, Debug)]
#[command(after_help = "Examples:
  ad session open com.example.app --relaunch --save-script=login.ad   arm a recording
  ad session snapshot -i
  ad session press 'label=\"Sign in\"'
  ad session fill 'id=\"password\"' \"$PW\" --record-as PASSWORD      the script gets ${PASSWORD}
  ad session wait 'role=\"heading\" label=\"Home\"'                    the destination guard
  ad session save-script [PATH] [--force]                             publish, stay live
  ad session close [--save-script[=PATH]]
  ad session replay FILE [-e KEY=VALUE]                               run a script in the session
  ad session list

Every script command works with the same words. --session NAME (default `default`) picks the
session, --json prints the daemon's answer for agents.

Two phases: `open --save-script` arms evidence capture before the first action; `save-script`
publishes without teardown (the script has one open, no close, and must end with a verified
landmark wait). Sensitive fills must use --record-as NAME (replay then reads AD_VAR_NAME or
-e NAME=…): fill and type text without it is written into the script literally.

A second plain `open` in an armed session (a reload, another URL, a relaunch) aborts the
recording for good (ADR 0016): nothing more is recorded and nothing will be written. While
recording, reach other screens through the app (press a link, `back`) instead; to start over,
close and open a new session with --save-script. When close or save-script cannot publish, the
recording stays armed: fix what the error names (record the missing step; another path or
--force) and run it again, or abort with a plain `open` and then `close` without writing.")]
pub struct SessionArgs {
    /// The session command and its words.
    #[arg(trailing_var_arg = true, allow_hyphen_values = true, num_args = 0..)]
    pub words: Vec<String>,
}

/// The state folder the daemon lives in (an error when there is none to use).
fn state_dir() -> std::io::Result<PathBuf> {
    ad_runtime::session::default_state_dir()
        .map_err(|e| std::io::Error::new(std::io::ErrorKind::NotFound, e.0))
}

/// Starts the daemon: this binary, detached into its own process group, in `/`.
fn spawn_daemon(state: &Path) -> std::io::Result<()> {
    use std::os::unix::process::CommandExt;
    use std::process::{Command, Stdio};
    let exe = std::env::current_exe()?;
    let mut cmd = Command::new(exe);
    // The daemon gets each request's variables from its client, never from its environment.
    for (k, _) in std::env::vars_os() {
        if k.to_string_lossy().starts_with("AD_VAR_") {
            cmd.env_remove(k);
        }
    }
    cmd.args(["session", "__daemon"])
        .env("AD_STATE_DIR", state)
        .current_dir("/")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .process_group(0)
        .spawn()
        .map(|_| ())
}

/// Connects to (starting if needed) the session daemon. A state folder, socket or daemon that
/// is not this user's alone is refused (`PermissionDenied`); see `Client::connect`.
pub fn client() -> std::io::Result<Client> {
    let state = state_dir()?;
    Client::connect(&state, || spawn_daemon(&state))
}

/// Runs a close-less script inside the session daemon (starting it if needed), which keeps the
/// live session the run leaves; its progress goes to `progress`. `Ok(None)`: no daemon could be
/// reached, nothing ran.
pub fn run_in_daemon(
    request: RunRequest,
    progress: &mut dyn ad_runtime::core::interp::Progress,
) -> Result<Option<Result<RunReply, String>>, String> {
    let mut c = match client() {
        Ok(c) => c,
        // Refused, not unreachable: nothing of the run may go there, and running it here would
        // hide why.
        Err(e) if e.kind() == std::io::ErrorKind::PermissionDenied => {
            return Err(format!("cannot use the session daemon: {e}"))
        }
        Err(_) => return Ok(None),
    };
    c.run(request, |event| event.report(progress))
        .map(Some)
        .map_err(|e| format!("the run in the session daemon did not finish: {e}"))
}

pub fn run(args: SessionArgs) -> i32 {
    let mut session = "default".to_string();
    let mut json = false;
    let mut words = Vec::new();
    let mut it = args.words.into_iter();
    while let Some(w) = it.next() {
        match w.as_str() {
            "--json" => json = true,
            "--session" => match it.next() {
                Some(s) => session = s,
                None => return crate::usage_error("--session needs a name"),
            },
            s if s.starts_with("--session=") => session = s["--session=".len()..].to_string(),
            _ => words.push(w),
        }
    }
    if words.first().map(String::as_str) == Some("__daemon") {
        let serve = |state: PathBuf| {
            daemon::serve_releasing(
                &state,
                daemon::idle_from_env(),
                ad_alloc::release_free_memory,
            )
        };
        return match state_dir().and_then(serve) {
            Ok(()) => 0,
            Err(e) => crate::usage_error(&format!("session daemon: {e}")),
        };
    }
    if words.is_empty() {
        return crate::usage_error("no session command given: `ad session --help` lists them");
    }
    let request = Request {
        session,
        words,
        cwd: std::env::current_dir().unwrap_or_default(),
        shell_env: ad_runtime::core::vars::shell_imports(std::env::vars()),
        // A session this command creates runs in this environment and umask, not the daemon's.
        env: ad_runtime::core::environment::Environment::capture(),
    };
    let response = match client().and_then(|mut c| c.send(&Message::Command(request))) {
        Ok(r) => r,
        Err(e) => return crate::usage_error(&format!("cannot reach the session daemon: {e}")),
    };
    if json {
        println!(
            "{}",
            serde_json::to_string_pretty(&response).unwrap_or_default()
        );
    } else if !response.findings.is_empty() {
        render_findings(&response);
    } else {
        render(&response);
    }
    if response.ok {
        0
    } else if !response.findings.is_empty() {
        // What `ad check` reports on the line: nothing was sent, as `ad run` refuses a script.
        2
    } else {
        1
    }
}

/// A command refused as `ad check` refuses its line: each diagnostic as `ad check` renders it
/// (code, message, label, help) on the line the readers read, then what happened.
fn render_findings(r: &Response) {
    use std::io::{IsTerminal, Write};
    let line = r.line.clone().unwrap_or_default();
    let diagnostics = r
        .findings
        .iter()
        .filter_map(|f| {
            let code = ad_grammar::codes::Code::from_id(&f.code)?;
            let end = f.end.min(line.len());
            let start = f.start.min(end);
            let span = ad_grammar::Span::new(start, end);
            let mut d = ad_grammar::Diagnostic::new(code, f.message.clone(), span);
            if let Some(l) = &f.label {
                d = d.with_label(l.clone());
            }
            if let Some(h) = &f.help {
                d = d.with_help(h.clone());
            }
            Some(d)
        })
        .collect();
    let file = crate::render::CheckedFile::new(
        format!("ad session {}", r.command),
        line.clone(),
        diagnostics,
    );
    let colour = std::io::stderr().is_terminal() && std::env::var_os("NO_COLOR").is_none();
    let mut out = Vec::new();
    for d in &file.diagnostics {
        crate::render::human::render(&file, d, colour, &mut out);
    }
    let _ = std::io::stderr().write_all(&out);
    eprintln!(
        "error[{}]: the step was not sent (nothing was run or recorded): `ad check` reports the same on a script holding this line",
        crate::render::escape_controls(r.code.as_deref().unwrap_or("FAILED"))
    );
}

/// The answer for people. Its words name paths and quote script lines and device text:
/// escaped (`crate::render::escape_controls`) before they reach the terminal.
fn render(r: &Response) {
    use crate::render::escape_controls as esc;
    for w in &r.warnings {
        eprintln!("warning: {}", esc(w));
    }
    if !r.ok {
        eprintln!(
            "error[{}]: {}",
            esc(r.code.as_deref().unwrap_or("FAILED")),
            esc(r.message.as_deref().unwrap_or(""))
        );
        return;
    }
    if let Some(list) = &r.sessions {
        if list.is_empty() {
            println!("no live sessions");
        }
        for s in list {
            println!(
                "{}\t{}\trecording {}\t{} recorded action(s)",
                esc(&s.name),
                s.backend,
                s.lifecycle,
                s.recorded_actions
            );
        }
        return;
    }
    let state = match (&r.lifecycle, r.session_active) {
        (_, false) => "ended".to_string(),
        (Some(l), true) => format!("live, recording {l}"),
        (None, true) => "live".to_string(),
    };
    let mut line = format!("ok: {} (session \"{}\" {state})", r.command, r.session);
    if let Some(p) = &r.path {
        line.push_str(&format!("; wrote {}", p.display()));
        if let Some(n) = r.actions {
            line.push_str(&format!(" ({n} action(s))"));
        }
    }
    if let Some(n) = r.replayed {
        line.push_str(&format!("; {n} step(s) replayed"));
    }
    println!("{}", esc(&line));
    if let Some(v) = &r.result {
        println!("{}", serde_json::to_string(v).unwrap_or_default());
    }
    // A snapshot: one line per node, indented by depth, with its ref.
    for n in r
        .nodes
        .as_ref()
        .and_then(|n| n.as_array())
        .into_iter()
        .flatten()
    {
        let s = |k: &str| n.get(k).and_then(|v| v.as_str()).unwrap_or("");
        let depth = n.get("depth").and_then(|d| d.as_u64()).unwrap_or(0) as usize;
        let mut line = format!("{}@{} {}", "  ".repeat(depth), s("ref"), s("type"));
        if !s("label").is_empty() {
            line.push_str(&format!(" {:?}", s("label")));
        }
        if !s("id").is_empty() {
            line.push_str(&format!(" id={:?}", s("id")));
        }
        if !s("value").is_empty() {
            line.push_str(&format!(" value={:?}", s("value")));
        }
        println!("{}", esc(&line));
    }
}
