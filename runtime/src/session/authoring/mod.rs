//! Authoring sessions (agent-device ADR 0016 and ADR 0017): named live sessions that run script
//! commands one at a time, record an armed journey with the evidence captured at action time,
//! and publish it as a `.ad` script that replays from a cold start and hands over a live session.
//!
//! - `mod.rs`: the sessions (one lock each), and the commands that open, save and close them;
//! - `protocol.rs`: the request, the session-level flags, the refusal answers;
//! - `steps.rs`: script commands on a live session, checked, run and recorded;
//! - `replay.rs`: `replay FILE` inside a live session;
//! - [`lifecycle`]: ARMED / ABORTED / PUBLISHED, from which recording is derived;
//! - [`evidence`]: `target-v1` capture, the writer's reductions, echo protection;
//! - [`publish`]: the script text, the `ad check` refusals, the atomic publish;
//! - [`handoff`]: a close-less `ad run`, run inside the daemon so its live session stays there;
//! - [`daemon`]: the per-user daemon (Unix socket, one JSON request per line, sessions served
//!   concurrently) and its client.
//!
//! The `--record-as` literals live in the session's variable scope (in memory only) and die with
//! it: they are redacted as `${NAME}` from every record, result and journal entry.
//!
//! Each session has the environment and umask of the command that created it (the client's
//! [`Environment`], sent with the request): its backend reads them and starts its browser or
//! agent-device daemon in them, and its requests write files under that umask. Later commands
//! keep the session's own, whatever environment they are typed in.

pub mod daemon;
pub mod evidence;
pub mod handoff;
pub mod lifecycle;
mod protocol;
pub mod publish;
pub mod repair;
mod replay;
mod steps;

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::time::Instant;

use ad_compiler::registry::{Action, Effect, Targeting, Verification};
use ad_compiler::Step;
use ad_grammar::metadata::is_var_name;
use serde::{Deserialize, Serialize};

use crate::backends::agent_device::BridgeSetup;
use crate::backends::sim::ModelResolver;
use crate::backends::web::LaunchConfig;
use crate::backends::{self, AnyBackend, BackendKind, BackendSetup};
use crate::core::backend::Backend;
use crate::core::environment::Environment;
use crate::core::interp::{self, LiveState, RunOptions};
use crate::core::journal::Journal;
use crate::core::records::error_codes;
pub use crate::core::records::session::{Response, SessionInfo};
use crate::core::tree::Snapshot;
use crate::core::vars::{Redactor, Scope};
use evidence::Mode;
use lifecycle::Lifecycle;
pub use protocol::Request;
use protocol::{line_of, refused, resolve_path, split_words, Words};
use publish::{Recorded, Refusal};
use steps::*;

/// One live session.
struct Session {
    backend: AnyBackend,
    /// The environment and umask of the command that created it, which its requests keep.
    env: Environment,
    live: LiveState,
    journal: Journal,
    lifecycle: Lifecycle,
    recorded: Vec<Recorded>,
    /// The `--record-as` pairs later evidence is scanned for (registration order; empty and
    /// whitespace-only literals stay fill-scoped and are not here).
    echo: Vec<(String, String)>,
    /// The repair transaction a repair-armed run left here (docs/repair.md).
    repair: Option<repair::Transaction>,
    /// The actions performed on the session (every `ad session` command not given
    /// `--no-record`, recorded or not), as agent-device's session log counts them.
    actions: usize,
    /// The corrective-action watermark a plain run's divergence left on this session, which a
    /// repair armed at its resume is held to (agent-device stamps it on every divergence).
    corrective: Option<repair::Watermark>,
}

impl Session {
    fn info(&self, name: &str) -> SessionInfo {
        SessionInfo {
            name: name.to_string(),
            backend: self.backend.kind().name().into(),
            lifecycle: match &self.repair {
                Some(t) => t.status.name().into(),
                None => self.lifecycle.name().into(),
            },
            recorded_actions: self.recorded.len(),
        }
    }

    fn echo_redactor(&self) -> Redactor {
        Redactor::placeholders(self.echo.iter().map(|(k, v)| (k.as_str(), v.as_str())))
    }
}

/// Every live session of one daemon (or of one test, in process). Requests for different
/// sessions proceed concurrently; those for one session run one at a time, in arrival order
/// (each session sits behind its own fair lock).
pub struct Sessions {
    state_dir: PathBuf,
    slots: RefCell<BTreeMap<String, Rc<Slot>>>,
    /// How the web backend launches its browser.
    pub web: LaunchConfig,
    /// Journal in memory only (benchmarks).
    pub no_journal: bool,
    /// Fixture recordings and replays (`--record-fixture DIR`, `--backend recorded:DIR`): one
    /// per folder, shared by the sessions that name it (docs/recorded.md).
    fixtures: RefCell<crate::backends::recorded::sessions::Fixtures>,
}

/// One session name's place in the daemon: the session (None while it is being created, or
/// once it ended) behind its lock, and what `list` shows of it.
#[derive(Default)]
struct Slot {
    session: tokio::sync::Mutex<Option<Session>>,
    /// Updated after each request, so `list` never waits for a busy session.
    info: RefCell<Option<SessionInfo>>,
}

impl Sessions {
    pub fn new(state_dir: PathBuf) -> Sessions {
        Sessions {
            state_dir,
            slots: RefCell::new(BTreeMap::new()),
            web: LaunchConfig::default(),
            no_journal: false,
            fixtures: Default::default(),
        }
    }

    /// No session lives (and none is being created).
    pub fn is_empty(&self) -> bool {
        self.prune();
        self.slots.borrow().is_empty()
    }

    /// Keeps what idle sessions hold on shared devices alive (a lease `ad` allocated, which its
    /// daemon would let expire between `ad session` commands). A busy session is skipped: its
    /// own requests renew the lease as they go.
    pub async fn keep_alive(&self) {
        let slots: Vec<Rc<Slot>> = self.slots.borrow().values().cloned().collect();
        for slot in slots {
            if let Ok(mut session) = slot.session.try_lock() {
                if let Some(s) = session.as_mut() {
                    s.backend.keep_alive().await;
                }
            }
        }
    }

    /// Brings every idle slot up to date: a request dropped midway (its client hung up) may
    /// have left an ended session's slot, or a stale `list` line.
    fn prune(&self) {
        self.slots
            .borrow_mut()
            .retain(|name, slot| match slot.session.try_lock() {
                Ok(session) => {
                    *slot.info.borrow_mut() = session.as_ref().map(|s| s.info(name));
                    session.is_some()
                }
                Err(_) => true,
            });
    }

    pub fn names(&self) -> Vec<String> {
        self.slots.borrow().keys().cloned().collect()
    }

    /// The slot of `name`, made when there is none.
    fn slot(&self, name: &str) -> Rc<Slot> {
        self.slots
            .borrow_mut()
            .entry(name.to_string())
            .or_default()
            .clone()
    }

    /// Is `slot` still the one `name` maps to? (A request that waited on a session that ended
    /// meanwhile must take the name's new slot.)
    fn is_current(&self, name: &str, slot: &Rc<Slot>) -> bool {
        self.slots
            .borrow()
            .get(name)
            .is_some_and(|s| Rc::ptr_eq(s, slot))
    }

    /// After a request on `slot`: what `list` shows, and the name freed when the session is
    /// gone.
    fn settle(&self, name: &str, slot: &Rc<Slot>, session: &Option<Session>) {
        *slot.info.borrow_mut() = session.as_ref().map(|s| s.info(name));
        if session.is_none() && self.is_current(name, slot) {
            self.slots.borrow_mut().remove(name);
        }
    }

    /// Answers one request; the daemon's own time is in `daemon_ms`.
    pub async fn handle(&self, req: Request) -> Response {
        let t0 = Instant::now();
        let command = req.words.first().cloned().unwrap_or_default();
        let mut in_turn = false;
        let mut resp = match split_words(&req.words) {
            Err(r) => refused(&req, &command, r),
            Ok(w) => match command.as_str() {
                "" => refused(
                    &req,
                    "",
                    Refusal::new(
                        error_codes::INVALID_ARGS,
                        "no session command given; try `ad session list`",
                    ),
                ),
                "list" => self.list(&req),
                _ => {
                    in_turn = true;
                    self.on_session(&req, w).await
                }
            },
        };
        resp.session = req.session.clone();
        if resp.command.is_empty() {
            resp.command = command;
        }
        if !in_turn {
            let info = self
                .slots
                .borrow()
                .get(&req.session)
                .and_then(|s| s.info.borrow().clone());
            resp.session_active = info.is_some();
            resp.lifecycle = info.map(|i| i.lifecycle);
        }
        resp.daemon_ms = t0.elapsed().as_secs_f64() * 1000.0;
        resp
    }

    /// A request on one session, in its turn.
    async fn on_session(&self, req: &Request, w: Words) -> Response {
        loop {
            let slot = self.slot(&req.session);
            let mut session = slot.session.lock().await;
            if !self.is_current(&req.session, &slot) {
                continue;
            }
            // `save-script` and `replay` are the session protocol's own verbs; a script command
            // is known by its registry action (`close` ends the session here).
            let script_action = ad_compiler::registry::lookup(&w.words[0]).map(|s| s.action);
            // The session's umask (a new session's: this request's) for the files it writes.
            let env = match session.as_ref() {
                Some(s) => s.env.clone(),
                None => req.env.clone(),
            };
            let mut resp = env
                .scoped(async {
                    match (w.words[0].as_str(), script_action) {
                        ("save-script", _) => self.save_script(req, &w, &mut session),
                        ("replay", _) => self.replay(req, &w, &mut session).await,
                        (_, Some(Action::Close)) => self.close(req, &w, &mut session).await,
                        _ => self.script_command(req, w, &mut session).await,
                    }
                })
                .await;
            self.settle(&req.session, &slot, &session);
            resp.session_active = session.is_some();
            // A repair session says its transaction's state, as `ad session list` does.
            if resp.lifecycle.is_none() {
                resp.lifecycle = session.as_ref().map(|s| s.info(&req.session).lifecycle);
            }
            return resp;
        }
    }

    fn list(&self, req: &Request) -> Response {
        self.prune();
        Response {
            ok: true,
            session: req.session.clone(),
            command: "list".into(),
            sessions: Some(
                self.slots
                    .borrow()
                    .values()
                    .filter_map(|s| s.info.borrow().clone())
                    .collect(),
            ),
            ..Response::default()
        }
    }

    fn new_journal(&self, name: &str) -> Journal {
        if self.no_journal {
            return Journal::memory(name);
        }
        let root = self.state_dir.join("journals");
        let _ = crate::session::authoring::daemon::private_dir(&root);
        Journal::create(&root, name).unwrap_or_else(|_| Journal::memory(name))
    }

    fn new_session(&self, req: &Request, backend: AnyBackend, scope: Scope) -> Session {
        let name = req.session.as_str();
        Session {
            backend,
            env: req.env.clone(),
            live: LiveState::new(name, scope),
            journal: self.new_journal(name),
            lifecycle: Lifecycle::NeverArmed,
            recorded: Vec::new(),
            echo: Vec::new(),
            repair: None,
            actions: 0,
            corrective: None,
        }
    }

    /// A new session's backend, reading and starting its processes in the environment of the
    /// request that creates it (paths resolved against its working folder).
    fn make_backend(
        &self,
        kind: BackendKind,
        script: &Path,
        w: &Words,
        req: &Request,
        mut bridge: BridgeSetup,
    ) -> Result<AnyBackend, String> {
        let (cwd, session) = (&req.cwd, req.session.as_str());
        let mut web = self.web.clone();
        web.env = req.env.clone();
        bridge.config.env = req.env.clone();
        web.offline |= w.offline;
        // Local files of the folder the session was opened (or its script replayed) from.
        web.urls.allow_local |= w.allow_local_urls;
        web.urls = web.urls.for_script(script);
        if let Some(b) = &w.browser {
            web.executable = Some(resolve_path(cwd, b));
        }
        let recorded = self
            .fixtures
            .borrow_mut()
            .replay_for(w.backend.as_deref(), cwd)?;
        let backend = backends::create(
            kind,
            BackendSetup {
                models: ModelResolver::for_script(
                    script,
                    w.app.as_deref().map(|a| resolve_path(cwd, a)),
                ),
                web,
                agent_device: bridge,
                recorded,
                ..BackendSetup::default()
            },
        )
        .map_err(|problem| problem.to_string())?;
        let record = w.record_fixture.as_deref().map(|d| resolve_path(cwd, d));
        Ok(self.fixtures.borrow_mut().record(backend, session, record))
    }

    /// The agent-device bridge of a new live session: its own agent-device session, the apps
    /// and session it leaves ended when it closes.
    fn bridge_setup(session: &str, platform: Option<String>) -> BridgeSetup {
        BridgeSetup {
            config: crate::backends::agent_device::BridgeConfig {
                release_session: true,
                ..Default::default()
            },
            session: session.to_string(),
            platform,
            target: None,
            may_start: true,
        }
    }

    fn base_scope(name: &str) -> Scope {
        let opts = RunOptions {
            session: name.to_string(),
            script_path: "session".into(),
            ..RunOptions::default()
        };
        let builtins = interp::builtin_values(&opts, &ad_grammar::Metadata::default());
        Scope::new(&builtins, &[], &[], &[]).unwrap_or_default()
    }

    /// `save-script [PATH] [--force]`: active-session publication (ADR 0016).
    fn save_script(&self, req: &Request, w: &Words, slot: &mut Option<Session>) -> Response {
        let fail = |r: Refusal| refused(req, "save-script", r);
        let Some(s) = slot.as_mut() else {
            return fail(Refusal::new(error_codes::NO_SESSION, format!("no live session \"{}\" to publish; author one with `ad session open <app> --save-script[=PATH]`", req.session)));
        };
        if s.repair.is_some() {
            // ADR 0016: the transaction is left as it is.
            return fail(Refusal::new(error_codes::COMMAND_FAILED, "This session has an active .ad repair transaction and cannot use ordinary active-session publication; finish it through `ad run FILE --from <n> --plan-digest <sha256>` and `ad session close` (which commits the healed script once a run reached the end, else aborts the repair)"));
        }
        if let Some((code, msg)) = s.lifecycle.publication_refusal() {
            return fail(Refusal::new(code, msg));
        }
        let header = header_of(&s.backend);
        let text = publish::script_text(&header, &s.recorded, false);
        if let Err(mut r) = publish::check_handoff(&s.recorded, &text) {
            // No guard that qualifies: name the ones the screen offers now.
            if [
                ad_grammar::codes::MISSING_DESTINATION_GUARD,
                ad_grammar::codes::GUARD_NOT_QUALIFIED,
            ]
            .map(|c| c.id())
            .contains(&r.code.as_str())
            {
                let waits: Vec<String> = guard_candidates(s)
                    .iter()
                    .map(|sel| session_command(&req.session, &format!("wait {}", shell_word(sel))))
                    .collect();
                if !waits.is_empty() {
                    r.message.push_str(&format!(
                        "; landmarks on the screen now that would qualify: {}",
                        waits.join(", ")
                    ));
                }
            }
            return fail(r);
        }
        let Lifecycle::Armed {
            path: armed,
            force: armed_force,
        } = &s.lifecycle
        else {
            unreachable!("publication_refusal answered for every other state")
        };
        let explicit = w.words.get(1).map(|p| resolve_path(&req.cwd, p));
        let force = w.force || (*armed_force && (explicit.is_none() || explicit == *armed));
        let path = explicit
            .or_else(|| armed.clone())
            .unwrap_or_else(|| default_script_path(&self.state_dir, &req.session));
        if let Err(r) = publish::publish_atomically(&path, &text, force) {
            return fail(r);
        }
        let actions = s.recorded.len();
        s.lifecycle = Lifecycle::Published { path: path.clone() };
        Response {
            ok: true,
            command: "save-script".into(),
            path: Some(path),
            actions: Some(actions),
            ..Response::default()
        }
    }

    /// `close [--save-script[=PATH]]`: ends the session (as a script's `close`), publishing an
    /// unpublished ARMED recording as a closed test flow.
    async fn close(&self, req: &Request, w: &Words, slot: &mut Option<Session>) -> Response {
        let fail = |r: Refusal| refused(req, "close", r);
        let Some(s) = slot.as_mut() else {
            return fail(Refusal::new(
                error_codes::NO_SESSION,
                format!("no live session \"{}\" to close", req.session),
            ));
        };
        if s.repair.is_some() {
            return self.repair_close(req, &w.save_script, w.force, slot).await;
        }
        let mut path = None;
        if w.save_script.is_some() && !s.lifecycle.records() {
            let (_, why) = s.lifecycle.publication_refusal().unwrap_or_default();
            return fail(Refusal::new(error_codes::NOT_RECORDING, format!("close --save-script refused (nothing was closed or written): {why}; a plain `ad session close` ends the session without writing")));
        }
        if let Lifecycle::Armed { path: armed, force } = &s.lifecycle {
            let explicit = w
                .save_script
                .clone()
                .flatten()
                .map(|p| resolve_path(&req.cwd, &p));
            let force = w.force || (*force && (explicit.is_none() || explicit == *armed));
            let target = explicit
                .or_else(|| armed.clone())
                .unwrap_or_else(|| default_script_path(&self.state_dir, &req.session));
            let text = publish::script_text(&header_of(&s.backend), &s.recorded, true);
            if let Err(r) = publish::check_text(&text, ad_compiler::config::ProfileChoice::Flow)
                .and_then(|_| publish::publish_atomically(&target, &text, force))
            {
                // ADR 0016: the recording stays ARMED and the session live; a plain `open`
                // aborts the recording, after which `close` ends the session without writing.
                let message = format!(
                    "{}; nothing was closed: to end the session without writing, abort the recording with {} (a plain open), then {}",
                    r.message,
                    session_command(&req.session, &format!("open {}", app_word(&s.recorded))),
                    session_command(&req.session, "close"),
                );
                return fail(Refusal { message, ..r });
            }
            path = Some(target);
        }
        let step = lower_line("close").expect("close lowers");
        let outcome = interp::run_live_step(
            &mut s.live,
            &mut s.backend,
            &mut s.journal,
            &step,
            "session",
        )
        .await;
        self.end(&req.session, slot).await;
        let mut resp = Response {
            ok: true,
            command: "close".into(),
            path,
            ..Response::default()
        };
        if let Err(f) = outcome.result {
            resp.warnings.push(format!(
                "the app's close failed ({}): {}",
                f.code, f.message
            ));
        }
        resp
    }

    /// Ends every session (daemon shutdown).
    pub async fn shutdown(&self) {
        let slots: Vec<(String, Rc<Slot>)> = std::mem::take(&mut *self.slots.borrow_mut())
            .into_iter()
            .collect();
        for (name, slot) in slots {
            let mut session = slot.session.lock().await;
            // A repair is finalized first: committed when complete, else a tombstone.
            if let Some(s) = session.as_ref() {
                self.finalize_repair(&name, s);
            }
            self.end(&name, &mut session).await;
        }
    }

    /// Ends session `name` without a word to the app (its backend is dropped: the browser is
    /// reaped, inside the runtime). A recorded session's log joins its fixture, written now
    /// under the session's umask; an agent-device session and the apps it opened are ended.
    async fn end(&self, name: &str, slot: &mut Option<Session>) {
        if let Some(mut s) = slot.take() {
            let env = s.env.clone();
            env.scoped(async move {
                s.backend = self.fixtures.borrow_mut().finish(name, s.backend);
                s.backend.release().await;
                drop(s)
            })
            .await;
        }
    }
}

/// `ad session [--session NAME] WORDS`, as a hint spells it.
fn session_command(session: &str, words: &str) -> String {
    if session == "default" {
        format!("`ad session {words}`")
    } else {
        format!("`ad session --session {} {words}`", shell_word(session))
    }
}

/// Selectors of up to three elements on the session's screen that a destination guard may wait
/// on (ADR 0016): shown, with an id or a label that echoes no `--record-as` value (ADR 0017);
/// headings, windows and other titled containers before the rest, each in document order.
fn guard_candidates(s: &Session) -> Vec<String> {
    let Some(snap) = s.live.last_capture() else {
        return Vec::new();
    };
    let echoes = |l: &str| s.echo.iter().any(|(_, v)| l.contains(v.as_str()));
    let named = |n: &&crate::core::tree::FlatNode| {
        let id = n.id.as_deref().is_some_and(|i| !i.trim().is_empty());
        let label = n
            .label
            .as_deref()
            .is_some_and(|l| !l.trim().is_empty() && !echoes(l));
        (id || label) && !n.label.as_deref().is_some_and(echoes)
    };
    let landmark = |n: &crate::core::tree::FlatNode| {
        matches!(
            crate::core::tree::normalize_type(&n.kind).as_str(),
            "heading" | "window" | "navigationbar" | "dialog" | "toolbar" | "tabbar" | "menubar"
        )
    };
    let mut picked: Vec<&crate::core::tree::FlatNode> = snap
        .nodes
        .iter()
        .filter(|n| crate::core::select::is_visible(n) && snap.on_screen(n))
        .filter(|n| crate::core::tree::normalize_type(&n.kind) != "application")
        .filter(named)
        .collect();
    picked.sort_by_key(|n| (!landmark(n), n.index));
    picked
        .into_iter()
        .take(3)
        .map(|n| crate::core::select::selector_for(snap, n))
        .collect()
}

/// The app of a recording's open, as a shell word (`<app>` when there is none).
fn app_word(recorded: &[Recorded]) -> String {
    recorded
        .iter()
        .find(|a| a.is_open)
        .and_then(|a| lower_line(&a.line).ok())
        .and_then(|s| s.positional(0).map(shell_word))
        .unwrap_or_else(|| "<app>".into())
}

/// `s` as one POSIX shell word: bare when it is plain, else single-quoted.
fn shell_word(s: &str) -> String {
    if !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "._-/:@%+=,".contains(c))
    {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', r"'\''"))
    }
}

/// The writer's context header for the session's device.
fn header_of(backend: &AnyBackend) -> String {
    format!(
        "context platform={} device={} theme=unknown",
        backend.platform(),
        serde_json::to_string(backend.name()).unwrap_or_default()
    )
}

/// Where a recording without a path is published: `<state>/scripts/<session>-<time>.ad`.
fn default_script_path(state_dir: &Path, session: &str) -> PathBuf {
    let dir = state_dir.join("scripts");
    let _ = daemon::private_dir(&dir);
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis())
        .unwrap_or(0);
    let file = crate::session::session_file(state_dir, session)
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "session".into());
    dir.join(format!("{file}-{secs}.ad"))
}
