//! Authoring sessions (agent-device ADR 0016 and ADR 0017): named live sessions that run script
//! commands one at a time, record an armed journey with the evidence captured at action time,
//! and publish it as a `.ad` script that replays from a cold start and hands over a live session.
//!
//! - `mod.rs`: the sessions, the request/response types and what each command does;
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
pub mod publish;
pub mod repair;

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
pub use crate::core::records::session::{Response, SessionInfo};
use crate::core::tree::Snapshot;
use crate::core::vars::{Redactor, Scope};
use evidence::Mode;
use lifecycle::Lifecycle;
use publish::{Recorded, Refusal};

/// One request to the daemon: a session command's words, as typed after `ad session`.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Request {
    pub session: String,
    pub words: Vec<String>,
    /// The client's working folder: relative paths are resolved against it.
    #[serde(default)]
    pub cwd: PathBuf,
    /// The client's `AD_VAR_*` imports (prefix stripped), for `replay`.
    #[serde(default)]
    pub shell_env: Vec<(String, String)>,
    /// The client's environment and umask ([`Environment::capture`]): a session this request
    /// creates runs in them. Crosses only the daemon's socket; written nowhere.
    #[serde(default)]
    pub env: Environment,
}

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

/// The words of a session command with the session-level flags taken out.
#[derive(Debug, Default)]
struct Words {
    words: Vec<String>,
    save_script: Option<Option<String>>,
    record_as: Option<String>,
    force: bool,
    no_record: bool,
    /// `--record`: a read (`snapshot`, `get`, `is`, `find`) enters a repair's healed script.
    record: bool,
    app: Option<String>,
    backend: Option<String>,
    /// `--platform` (with `--backend agent-device`): the device platform agent-device drives.
    platform: Option<String>,
    offline: bool,
    /// `--allow-local-urls`: the web may show local files and the browser's own pages.
    allow_local_urls: bool,
    browser: Option<String>,
    env: Vec<String>,
    record_fixture: Option<String>,
    /// Words from this index on came after `--`: positionals, whatever they look like.
    literal_from: usize,
}

fn split_words(raw: &[String]) -> Result<Words, Refusal> {
    let mut w = Words {
        literal_from: usize::MAX,
        ..Words::default()
    };
    let replay = raw.first().is_some_and(|c| c == "replay");
    let mut it = raw.iter().peekable();
    let value = |it: &mut std::iter::Peekable<std::slice::Iter<String>>, flag: &str| {
        it.next()
            .cloned()
            .ok_or_else(|| Refusal::new("INVALID_ARGS", format!("{flag} needs a value")))
    };
    while let Some(word) = it.next() {
        if w.literal_from != usize::MAX {
            w.words.push(word.clone());
            continue;
        }
        match word.as_str() {
            // As agent-device's CLI: `--` ends the flags (`fill 'id="x"' -- --force`).
            "--" => w.literal_from = w.words.len(),
            "--save-script" => w.save_script = Some(None),
            s if s.starts_with("--save-script=") => {
                w.save_script = Some(Some(s["--save-script=".len()..].to_string()))
            }
            "--record-as" => w.record_as = Some(value(&mut it, "--record-as")?),
            s if s.starts_with("--record-as=") => {
                w.record_as = Some(s["--record-as=".len()..].to_string())
            }
            "--force" => w.force = true,
            "--no-record" => w.no_record = true,
            "--record" => w.record = true,
            "--app" => w.app = Some(value(&mut it, "--app")?),
            "--backend" => w.backend = Some(value(&mut it, "--backend")?),
            "--platform" => w.platform = Some(value(&mut it, "--platform")?),
            "--browser" => w.browser = Some(value(&mut it, "--browser")?),
            "--offline" => w.offline = true,
            "--allow-local-urls" => w.allow_local_urls = true,
            "--record-fixture" => w.record_fixture = Some(value(&mut it, "--record-fixture")?),
            "-e" | "--env" if replay => w.env.push(value(&mut it, "-e")?),
            _ => w.words.push(word.clone()),
        }
    }
    Ok(w)
}

/// A command word's line: the command bare, flags bare, every other word (and every word from
/// `literal_from` on) quoted as the writer quotes it. A quoted word that is not one of the
/// command's flags is a positional to the reader, even when it starts with `-`.
fn line_of(words: &[String], literal_from: usize) -> String {
    let mut out = String::new();
    for (i, w) in words.iter().enumerate() {
        if i > 0 {
            out.push(' ');
        }
        let bare = i == 0
            || (i < literal_from
                && w.starts_with('-')
                && w.len() > 1
                && !w.contains(|c: char| c.is_whitespace() || c == '"' || c == '\\'));
        if bare {
            out.push_str(w);
        } else {
            out.push_str(&ad_grammar::printer::format_arg(w));
        }
    }
    out
}

/// Lowers one command line; refuses what agent-device's reader would reject.
fn lower_line(line: &str) -> Result<Step<'static>, Refusal> {
    let analysis = ad_compiler::read(line);
    if let Some(d) = analysis
        .diagnostics
        .iter()
        .find(|d| d.is_parity_error() || d.severity == ad_grammar::Severity::Error)
    {
        return Err(Refusal::new("INVALID_ARGS", d.message.to_string()));
    }
    analysis
        .steps()
        .first()
        .map(|step| step.clone().into_owned())
        .ok_or_else(|| Refusal::new("INVALID_ARGS", "no command given"))
}

/// A selector chain for a resolved node (refs are published as selectors): its id, then its
/// label.
fn selector_chain(snap: &Snapshot, node: usize) -> Option<String> {
    let n = snap.nodes.get(node)?;
    let q = |s: &str| serde_json::to_string(s).unwrap_or_default();
    let mut parts = Vec::new();
    if let Some(id) = n.id.as_deref().filter(|s| !s.is_empty()) {
        parts.push(format!("id={}", q(id)));
    }
    if let Some(l) = n.label.as_deref().filter(|s| !s.trim().is_empty()) {
        parts.push(format!("label={}", q(l)));
    }
    (!parts.is_empty()).then(|| parts.join(" || "))
}

/// Does a step enter the recording? Recordable commands, not `snapshot` (the writer drops it).
fn recordable(step: &Step) -> bool {
    step.spec.is_some_and(|s| {
        !matches!(s.effect, Effect::NotRecorded | Effect::Skipped)
            && !matches!(s.action, Action::Snapshot | Action::Close)
    })
}

/// The position of the step's element target among its positionals.
fn target_at(step: &Step) -> Option<usize> {
    match step.spec?.targeting {
        Targeting::Element => Some(0),
        Targeting::ElementAfterSubcommand | Targeting::Predicate => Some(1),
        _ => None,
    }
}

fn refused(req: &Request, command: &str, r: Refusal) -> Response {
    Response {
        ok: false,
        session: req.session.clone(),
        command: command.into(),
        code: Some(r.code),
        message: Some(r.message),
        line: r.line,
        findings: r.findings,
        ..Response::default()
    }
}

fn resolve_path(cwd: &Path, p: &str) -> PathBuf {
    let p = Path::new(p);
    if p.is_absolute() {
        p.to_path_buf()
    } else {
        cwd.join(p)
    }
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
                        "INVALID_ARGS",
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

    /// The errors publication would report on `step` were it recorded next in `session` (its
    /// recording so far, when armed, is the context).
    fn check_step(session: Option<&Session>, step: &Step) -> Result<(), Refusal> {
        Self::check_line(session, &ad_compiler::format::write_step(step))
    }

    /// The same on a command line as typed.
    fn check_line(session: Option<&Session>, line: &str) -> Result<(), Refusal> {
        let header = session.map(|s| header_of(&s.backend)).unwrap_or_default();
        let recorded = session
            .filter(|s| s.records())
            .map_or(&[][..], |s| s.recorded.as_slice());
        publish::check_step(&header, recorded, line)
    }

    /// Any script command (`open`, `press`, `fill`, `wait`, …), on the named session.
    async fn script_command(
        &self,
        req: &Request,
        mut w: Words,
        slot: &mut Option<Session>,
    ) -> Response {
        let command = w.words[0].clone();
        let fail = |r: Refusal| refused(req, &command, r);
        // The line goes through the readers and rules a script line goes through, first: a
        // step `ad check` reports is refused with its diagnostics, whatever the session's state,
        // before anything reaches the device. A `--record-as` fill is checked once its text is
        // the placeholder (below), so the literal is never quoted back.
        let typed = line_of(&w.words, w.literal_from);
        if w.record_as.is_none() {
            if let Err(r) = Self::check_line(slot.as_ref(), &typed) {
                return fail(r);
            }
        }
        let mut step = match lower_line(&typed) {
            Ok(s) => s,
            Err(r) => return fail(r),
        };
        let action = step.action();
        let exists = slot.is_some();
        if w.save_script.is_some() && action != Some(Action::Open) {
            return fail(Refusal::new("INVALID_ARGS", "--save-script is taken by open (to arm a recording) and close; publish a live recording with `ad session save-script [PATH]`"));
        }
        if exists && w.save_script.is_some() {
            return fail(Refusal::new("ALREADY_OPEN", format!("open --save-script only arms a new session, and session \"{}\" already exists (nothing was sent to the app); close it with `ad session close`, or author in a fresh session with --session NAME", req.session)));
        }
        if !exists && action != Some(Action::Open) {
            return fail(Refusal::new("NO_SESSION", format!("no live session \"{}\"; start one with `ad session open <app> [--save-script[=PATH]]`", req.session)));
        }
        if w.record && w.no_record {
            return fail(Refusal::new(
                "INVALID_ARGS",
                "--record cannot be combined with --no-record",
            ));
        }
        if w.record && !repair::out_of_band_read(&step) {
            return fail(Refusal::new(
                "INVALID_ARGS",
                "--record is supported only by snapshot, get, is and find (the reads a repair leaves out of the healed script by default)",
            ));
        }
        // `--record-as` (ADR 0017): checked before any app work.
        let mut record_as: Option<(String, String)> = None;
        if let Some(name) = &w.record_as {
            if action != Some(Action::Fill) {
                return fail(Refusal::new(
                    "INVALID_ARGS",
                    "--record-as is supported only by fill.",
                ));
            }
            if w.no_record {
                return fail(Refusal::new("INVALID_ARGS", "--record-as cannot be combined with --no-record: an unrecorded fill has nothing to parameterize"));
            }
            if name.trim() != name || !is_var_name(name) || name.starts_with("AD_") {
                return fail(Refusal::new("INVALID_ARGS", format!("--record-as {name:?} is not a variable name: use [A-Z_][A-Z0-9_]* and not AD_* (reserved for built-ins)")));
            }
            if !slot.as_ref().is_some_and(|s| s.records()) {
                return fail(Refusal::new("NOT_ARMED", "--record-as needs an armed recording: start the session with `ad session open <app> --save-script[=PATH]` (an unrecorded fill's text is not written anywhere anyway)"));
            }
            let text_at = if step.positional(0).is_some_and(ad_grammar::text::is_numeric)
                && step.positional(1).is_some_and(ad_grammar::text::is_numeric)
            {
                2
            } else {
                1
            };
            let Some(literal) = step.positional(text_at).map(str::to_string) else {
                return fail(Refusal::new(
                    "INVALID_ARGS",
                    "fill requires a target and its text",
                ));
            };
            let Some(j) = w.words.iter().rposition(|x| *x == literal) else {
                return fail(Refusal::new(
                    "INVALID_ARGS",
                    "--record-as needs the fill's text as one word",
                ));
            };
            w.words[j] = format!("${{{name}}}");
            let typed = line_of(&w.words, w.literal_from);
            if let Err(r) = Self::check_line(slot.as_ref(), &typed) {
                return fail(r);
            }
            step = match lower_line(&typed) {
                Ok(s) => s,
                Err(r) => return fail(r),
            };
            record_as = Some((name.clone(), literal));
        }
        // Checked as close-time publication will read it, before any app work: a step that
        // could never be published (or that agent-device refuses at dispatch) is not sent.
        if let Err(r) = Self::check_step(slot.as_ref(), &step) {
            return fail(r);
        }
        // A new session: its backend, from `--backend`, else web for an http(s) URL.
        if !exists {
            let first = step.positional(0).unwrap_or("");
            let kind = match w.backend.as_deref() {
                Some(b) => match BackendKind::parse_choice(b) {
                    Ok((k, _)) => k,
                    Err(e) => return fail(Refusal::new("INVALID_ARGS", e)),
                },
                None if first.starts_with("http://") || first.starts_with("https://") => {
                    BackendKind::Web
                }
                None => BackendKind::Sim,
            };
            let bridge = Self::bridge_setup(&req.session, w.platform.clone());
            let script = req.cwd.join("session.ad");
            let backend = match self.make_backend(kind, &script, &w, req, bridge) {
                Ok(b) => b,
                Err(e) => return fail(Refusal::new("UNSUPPORTED_OPERATION", e)),
            };
            *slot = Some(self.new_session(req, backend, Self::base_scope(&req.session)));
        }
        let s = slot.as_mut().expect("present");
        if let Some((name, literal)) = &record_as {
            s.live.scope.record_literal(name, literal);
        }
        // A path typed here (`screenshot shot.png`) is the client's, relative to its folder.
        s.live.files = Some(interp::LiveFiles {
            dir: req.cwd.clone(),
            typed: true,
        });
        // A pinned ref typed here (`click @e5~s3`) is admitted with its pin, as agent-device's
        // CLI sends it (the line reader strips it from the step).
        s.live.typed_pins = w
            .words
            .iter()
            .filter(|t| t.starts_with('@') && crate::core::frame::RefToken::parse(t).pin.is_some())
            .cloned()
            .collect();
        let outcome = interp::run_live_step(
            &mut s.live,
            &mut s.backend,
            &mut s.journal,
            &step,
            "session",
        )
        .await;
        if let Some((name, _)) = &record_as {
            s.live.scope.end_fill_scope(name);
        }
        let result = match outcome.result {
            Ok(r) => r,
            Err(f) => {
                if !exists {
                    self.end(&req.session, slot).await;
                }
                let mut r = fail(Refusal::new(&f.code, f.message));
                if let Some(h) = f.hint {
                    r.message = r.message.map(|m| format!("{m} ({h})"));
                }
                return r;
            }
        };
        let mut warnings = Vec::new();
        if action == Some(Action::Open) {
            if !exists {
                if let Some(path) = &w.save_script {
                    s.lifecycle = Lifecycle::Armed {
                        path: path.as_deref().map(|p| resolve_path(&req.cwd, p)),
                        force: w.force,
                    };
                }
            } else if s.lifecycle.records() {
                s.lifecycle = Lifecycle::Aborted;
                warnings.push("a second open aborted the recording: it can no longer be published (a fresh session is required to author another script)".to_string());
            }
        }
        if !w.no_record {
            s.actions += 1;
        }
        // A repair records its out-of-band reads only with `--record` (spec §18).
        let oob = s.repair.is_some() && repair::out_of_band_read(&step) && !w.record;
        if s.records() && !w.no_record && !oob && recordable(&step) {
            let echo = s.echo_redactor();
            let exact = record_as.as_ref().map(|(k, v)| (k.as_str(), v.as_str()));
            let recorded = record(
                &step,
                (&w.words, w.literal_from),
                &outcome.resolved,
                &echo,
                exact,
            );
            if let Some(n) = &recorded.note {
                warnings.push(format!("recorded as `{}`, but {n}", recorded.line));
            }
            s.recorded.push(recorded);
        }
        if let Some((name, literal)) = record_as {
            // Added only after the fill's own entry was recorded (ADR 0017 #1398).
            if !literal.trim().is_empty() {
                s.echo.push((name, literal));
            }
        }
        let result = result.and_then(|r| serde_json::to_value(r).ok());
        let nodes = (action == Some(Action::Snapshot))
            .then(|| s.live.last_capture())
            .flatten()
            .and_then(|snap| serde_json::to_value(&snap.nodes).ok())
            .map(|mut v| {
                s.live.scope.redact_value(&mut v);
                v
            });
        Response {
            ok: true,
            command,
            result,
            nodes,
            warnings,
            ..Response::default()
        }
    }

    /// `save-script [PATH] [--force]`: active-session publication (ADR 0016).
    fn save_script(&self, req: &Request, w: &Words, slot: &mut Option<Session>) -> Response {
        let fail = |r: Refusal| refused(req, "save-script", r);
        let Some(s) = slot.as_mut() else {
            return fail(Refusal::new("NO_SESSION", format!("no live session \"{}\" to publish; author one with `ad session open <app> --save-script[=PATH]`", req.session)));
        };
        if s.repair.is_some() {
            // ADR 0016: the transaction is left as it is.
            return fail(Refusal::new("COMMAND_FAILED", "This session has an active .ad repair transaction and cannot use ordinary active-session publication; finish it through `ad run FILE --from <n> --plan-digest <sha256>` and `ad session close` (which commits the healed script once a run reached the end, else aborts the repair)"));
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
                "NO_SESSION",
                format!("no live session \"{}\" to close", req.session),
            ));
        };
        if s.repair.is_some() {
            return self.repair_close(req, &w.save_script, w.force, slot).await;
        }
        let mut path = None;
        if w.save_script.is_some() && !s.lifecycle.records() {
            let (_, why) = s.lifecycle.publication_refusal().unwrap_or_default();
            return fail(Refusal::new("NOT_RECORDING", format!("close --save-script refused (nothing was closed or written): {why}; a plain `ad session close` ends the session without writing")));
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

    /// `replay FILE [-e K=V]…`: runs a script inside the live session (a new one when the
    /// session does not exist yet), recording its steps when the session is armed.
    async fn replay(&self, req: &Request, w: &Words, slot: &mut Option<Session>) -> Response {
        let fail = |r: Refusal| refused(req, "replay", r);
        let Some(file) = w.words.get(1) else {
            return fail(Refusal::new(
                "INVALID_ARGS",
                "replay needs a script: `ad session replay FILE`",
            ));
        };
        // A repair session continues only through `ad run FILE --from` (agent-device refuses a
        // fresh replay on it), and nothing else is replayed into its transaction.
        if slot.as_ref().is_some_and(|s| s.repair.is_some()) {
            return fail(Refusal::new(
                "INVALID_ARGS",
                repair::active_repair_refusal(file, &req.session),
            ));
        }
        let path = resolve_path(&req.cwd, file);
        // Read (checked and capped as `ad run` reads a script) and analysed off the daemon's
        // thread.
        let analysis = match daemon::read_script(path.clone()).await {
            Ok(a) => a,
            Err(e) => return fail(Refusal::new("INVALID_ARGS", e)),
        };
        if let Some(d) = analysis.diagnostics.iter().find(|d| d.is_parity_error()) {
            return fail(Refusal::new(
                "INVALID_ARGS",
                format!(
                    "{}: agent-device would reject this script: {} ({})",
                    path.display(),
                    d.message,
                    d.code
                ),
            ));
        }
        let cli = match crate::core::vars::parse_cli_entries(&w.env) {
            Ok(c) => c,
            Err(e) => return fail(Refusal::new("INVALID_ARGS", e)),
        };
        let opts = RunOptions {
            session: req.session.clone(),
            script_path: file.clone(),
            ..RunOptions::default()
        };
        let builtins = interp::builtin_values(&opts, analysis.metadata());
        let file_env: Vec<(String, String)> = analysis
            .metadata()
            .env
            .iter()
            .map(|e| (e.key.clone(), e.value.clone()))
            .collect();
        let scope = match Scope::new(&builtins, &file_env, &req.shell_env, &cli) {
            Ok(s) => s,
            Err(e) => return fail(Refusal::new("INVALID_ARGS", e)),
        };
        if slot.is_none() {
            let kind = match w.backend.as_deref() {
                Some(b) => BackendKind::parse_choice(b)
                    .map(|c| c.0)
                    .unwrap_or(BackendKind::Sim),
                None => BackendKind::choose(None, analysis.metadata(), None),
            };
            let platform = w.platform.clone().or_else(|| {
                analysis
                    .metadata()
                    .platform
                    .as_ref()
                    .map(|p| p.value.clone())
            });
            let bridge = Self::bridge_setup(&req.session, platform);
            let backend = match self.make_backend(kind, &path, w, req, bridge) {
                Ok(b) => b,
                Err(e) => return fail(Refusal::new("UNSUPPORTED_OPERATION", e)),
            };
            *slot = Some(self.new_session(req, backend, Self::base_scope(&req.session)));
        }
        let s = slot.as_mut().expect("present");
        // The script's variables for its steps; the session's parameterized literals stay
        // redacted as `${NAME}` throughout.
        let mut scope = scope;
        for (k, v) in &s.echo {
            scope.protect_literal(k, v);
        }
        let session_scope = std::mem::replace(&mut s.live.scope, scope);
        // The script's paths stay inside the folder it is replayed from.
        s.live.files = Some(interp::LiveFiles {
            dir: req.cwd.clone(),
            typed: false,
        });
        let mut replayed = 0;
        let mut closed = false;
        let mut failure = None;
        let mut warnings = Vec::new();
        for step in analysis.steps() {
            if step.spec.is_some_and(|sp| sp.effect == Effect::Skipped) {
                continue;
            }
            // Armed: a step whose recorded form could never be published is not sent, as for a
            // typed one.
            if s.lifecycle.records() && recordable(step) {
                let protect = replay_protect(&s.echo, &req.shell_env, &cli);
                let keep_text = whole_placeholder_fill(step).is_some();
                let dispatched = dispatched_step(step, keep_text, &mut s.live.scope, &protect);
                if let Err(r) = Self::check_step(Some(&*s), &dispatched) {
                    failure = Some(Refusal::new(
                        &r.code,
                        format!(
                            "Replay stopped at step {} (line {}): {}",
                            replayed + 1,
                            step.line() + 1,
                            r.message
                        ),
                    ));
                    break;
                }
            }
            let outcome =
                interp::run_live_step(&mut s.live, &mut s.backend, &mut s.journal, step, file)
                    .await;
            if let Err(f) = outcome.result {
                failure = Some(Refusal::new(
                    &f.code,
                    format!(
                        "Replay failed at step {} (line {}): {}",
                        replayed + 1,
                        step.line() + 1,
                        f.message
                    ),
                ));
                break;
            }
            replayed += 1;
            s.actions += 1;
            if step.action() == Some(Action::Close) {
                closed = true;
                break;
            }
            if step.action() == Some(Action::Open)
                && s.lifecycle.records()
                && !s.recorded.is_empty()
            {
                s.lifecycle = Lifecycle::Aborted;
                warnings.push("a second open aborted the recording".to_string());
            }
            if s.lifecycle.records() && recordable(step) {
                // A fill whose whole text is `${NAME}` keeps its placeholder, and its value is
                // protected in later evidence (ADR 0017's replay provenance).
                let var = whole_placeholder_fill(step);
                let echo = s.echo_redactor();
                let value =
                    var.and_then(|v| s.live.scope.get(v).map(|x| (v.to_string(), x.to_string())));
                let exact = value.as_ref().map(|(k, v)| (k.as_str(), v.as_str()));
                // Every other placeholder is recorded as the value it dispatched (agent-device
                // records the resolved request), with the session's parameterized literals and
                // this replay's injected values put back as their `${NAME}`.
                let protect = replay_protect(&s.echo, &req.shell_env, &cli);
                let dispatched = dispatched_step(step, var.is_some(), &mut s.live.scope, &protect);
                let words = words_of(&dispatched);
                let recorded = record(&dispatched, (&words, 1), &outcome.resolved, &echo, exact);
                if let Some(n) = &recorded.note {
                    warnings.push(format!(
                        "line {}: recorded as `{}`, but {n}",
                        step.line() + 1,
                        recorded.line
                    ));
                }
                s.recorded.push(recorded);
                if let Some((k, v)) = value {
                    if !v.trim().is_empty() && !s.echo.iter().any(|(_, x)| *x == v) {
                        s.echo.push((k, v));
                    }
                }
            }
        }
        // Back to the session's own scope, with the literals registered meanwhile.
        s.live.scope = session_scope;
        for (k, v) in &s.echo {
            s.live.scope.protect_literal(k, v);
        }
        if closed {
            self.end(&req.session, slot).await;
        }
        let mut resp = match failure {
            Some(r) => fail(r),
            None => Response {
                ok: true,
                command: "replay".into(),
                ..Response::default()
            },
        };
        resp.replayed = Some(replayed);
        resp.warnings = warnings;
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

/// Where a fill's text starts among its positionals (after `x y`, `@ref [label]` or the
/// selector), as agent-device reads it.
fn fill_text_at(step: &Step) -> usize {
    let p = |i| step.positional(i);
    if p(0).is_some_and(|r| r.starts_with('@')) {
        if step.positionals.len() >= 3 {
            2
        } else {
            1
        }
    } else if step.positionals.len() >= 3
        && p(0).is_some_and(ad_grammar::text::is_numeric)
        && p(1).is_some_and(ad_grammar::text::is_numeric)
    {
        2
    } else {
        1
    }
}

/// The variable of a fill whose whole text is one `${NAME}` placeholder (ADR 0017's replay
/// provenance: such a fill is recorded as `${NAME}`, never as its value).
fn whole_placeholder_fill<'s>(step: &'s Step<'s>) -> Option<&'s str> {
    if step.action() != Some(Action::Fill) {
        return None;
    }
    let at = fill_text_at(step);
    match &step.positionals.get(at..)? {
        [text] => ad_grammar::placeholder::whole_token_variable(&text.value)
            .filter(|v| !v.starts_with("AD_")),
        _ => None,
    }
}

/// What a replay's recorded steps put back as `${NAME}`: the session's parameterized literals
/// and the replay's injected values (`AD_VAR_*`, `-e`).
fn replay_protect(
    echo: &[(String, String)],
    shell_env: &[(String, String)],
    cli: &[(String, String)],
) -> Redactor {
    Redactor::placeholders(
        echo.iter()
            .chain(shell_env)
            .chain(cli)
            .filter(|(_, v)| !v.trim().is_empty())
            .map(|(k, v)| (k.as_str(), v.as_str())),
    )
}

/// A step's words (its command, then its positionals), as the recorder reads them.
fn words_of(step: &Step) -> Vec<String> {
    std::iter::once(step.command().to_string())
        .chain(step.positional_values())
        .collect()
}

/// A replayed step as it was dispatched: each positional holding a placeholder expanded (but a
/// whole-placeholder fill's text), then `protect` puts parameterized values back as `${NAME}`.
fn dispatched_step<'s>(
    step: &Step<'s>,
    keep_text: bool,
    scope: &mut Scope,
    protect: &Redactor,
) -> Step<'s> {
    let mut out = step.clone();
    let text_at = keep_text.then(|| fill_text_at(step));
    for (i, arg) in out.positionals.iter_mut().enumerate() {
        if Some(i) == text_at || !ad_grammar::placeholder::has_dollar_brace(&arg.value) {
            continue;
        }
        if let Ok(v) = scope.expand(&arg.value) {
            arg.value = protect.redact(&v).into();
        }
    }
    out
}

/// The recorded form of a step that ran: refs become selector chains from the resolved node,
/// with the evidence captured now. An acted step's selector is checked under the replay's own
/// rules on the screen it was recorded on ([`evidence::writable_target`]): one that would not
/// single out the acted element gets more terms, and when none can, the step carries a note
/// (the session's answer and a comment in the published script say so).
fn record(
    step: &Step,
    (words, literal_from): (&[String], usize),
    resolved_all: &[(std::sync::Arc<Snapshot>, usize)],
    echo: &Redactor,
    exact: Option<(&str, &str)>,
) -> Recorded {
    use ad_grammar::annotation::{DualEvidence, Evidence};
    use std::sync::Arc;
    let resolved = resolved_all.last().map(|(t, i)| (&**t, *i));
    let mode = step.spec.map(|s| s.verification);
    let single = |e: Option<_>| e.map(|e| Evidence::Single(Arc::new(e)));
    let captured = match (mode, resolved) {
        (Some(Verification::PreDispatch), Some((snap, node))) => {
            single(evidence::capture(snap, node, Mode::Action, echo, exact))
        }
        (Some(Verification::PostResolution), Some((snap, node))) => {
            single(evidence::capture(snap, node, Mode::Landmark, echo, exact))
        }
        // Both endpoints resolved to elements: `targets-v1`.
        (Some(Verification::DragEndpoints), _) => match resolved_all {
            [(s1, n1), (s2, n2)] => evidence::capture(s1, *n1, Mode::Action, echo, None)
                .zip(evidence::capture(s2, *n2, Mode::Action, echo, None))
                .map(|(source, destination)| {
                    Evidence::Dual(Arc::new(DualEvidence {
                        source,
                        destination,
                    }))
                }),
            _ => None,
        },
        _ => None,
    };
    let mut line = ad_compiler::format::write_step(step);
    let mut note = None;
    if let (Some(at), Some((snap, node))) = (target_at(step), resolved) {
        if let Some(typed) = step.positional(at) {
            let is_ref = typed.starts_with('@');
            let chain = if is_ref {
                selector_chain(snap, node)
            } else {
                None
            };
            let current = if is_ref {
                chain.clone()
            } else {
                crate::core::select::Selector::parse(typed)
                    .ok()
                    .map(|_| typed.to_string())
            };
            let mut replacement = chain;
            let acted = match (&captured, mode) {
                (Some(Evidence::Single(e)), Some(Verification::PreDispatch)) => Some(e),
                _ => None,
            };
            // A selector holding a `${NAME}` stays as typed: a rewrite from the element's terms
            // could spell the value it stands for.
            let placeholder = ad_grammar::placeholder::has_dollar_brace(typed);
            if let (Some(e), true, false) = (acted, is_ref || current.is_some(), placeholder) {
                let policy = crate::core::select::Policy::for_step(step, &step.positional_values());
                match evidence::writable_target(snap, node, e, policy, current.as_deref()) {
                    evidence::Written::Keep => {}
                    // Never a parameterized literal in the script (ADR 0017).
                    evidence::Written::Selector(s) if echo.redact(&s) == s => replacement = Some(s),
                    evidence::Written::Selector(_) => {}
                    evidence::Written::Unresolvable(m) => note = Some(m),
                }
            }
            if let Some(new) = replacement {
                let mut words = words.to_vec();
                // A typed pinned ref (`@e5~s3`) is the step's ref without its pin.
                let unpinned = |x: &str| {
                    x.starts_with('@')
                        && format!("@{}", crate::core::frame::RefToken::parse(x).body) == typed
                };
                if let Some(j) = words.iter().position(|x| x == typed || unpinned(x)) {
                    words[j] = new;
                    let mut literal_from = literal_from;
                    if is_ref && step.ref_label().is_some() && j + 1 < words.len() {
                        words.remove(j + 1);
                        if j + 1 < literal_from && literal_from != usize::MAX {
                            literal_from -= 1;
                        }
                    }
                    if let Ok(s) = lower_line(&line_of(&words, literal_from)) {
                        line = ad_compiler::format::write_step(&s);
                    }
                }
            }
        }
    }
    Recorded {
        line,
        evidence: captured,
        is_open: step.action() == Some(Action::Open),
        note,
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
