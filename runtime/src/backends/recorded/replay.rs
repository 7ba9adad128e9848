//! Replaying: [`Replay`] serves each backend call from a recorded fixture instead of a device.
//!
//! Calls are keyed per session, never by one global cursor: a live session binds to a recorded
//! log by first-call order (the first live session to reach its backend claims the log with the
//! lowest first-call number, the next new one the next) and advances its own cursor. A call that
//! is not the session's next recorded call (compared after the same redaction) fails as a replay
//! divergence naming the expected call and the one that came ([`DIVERGED`]: the run contradicts
//! the recording); a call after the session's last recorded call fails as [`EXHAUSTED`] (the
//! recording ran out). The device clock is the recorded one, reading by reading.
//!
//! With an open tail ([`ReplaySource::with_open_tail`], `ad heal` on a recording of a failing
//! run) the end of a recording is where the recorded run last acted: a run that leaves the
//! recording where the recording only observes (the failing step's polls) is not contradicting
//! it. From there the replay answers what the recording knows, the screens the app showed after
//! that last action, by device time, and lets time pass; anything else (an action the recorded
//! run never made, a screen past the recording's last moment) is [`EXHAUSTED`].

use std::cell::{Cell, OnceCell};
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use ad_compiler::input_file::{self, Accept};
use serde_json::Value;

use super::recorder::word;
use crate::core::backend::*;
use crate::core::records::common::sha256_hex;
use crate::core::records::error_codes;
use crate::core::records::recorded::*;
use crate::core::tree::Point;
use crate::core::vars::Redactor;

/// The code of a step that did not match the recording: the run contradicts it.
pub const DIVERGED: &str = error_codes::REPLAY_DIVERGED;
/// The code of a call the recording holds no answer to: the recording ran out (a call after the
/// session's last recorded call; with an open tail, an action after the recorded run's last one,
/// or a screen past the recording's last moment). Not a contradiction of the recording.
pub const EXHAUSTED: &str = error_codes::REPLAY_EXHAUSTED;
/// The code of a live session the recording has no log for.
pub const UNRECORDED_SESSION: &str = error_codes::REPLAY_UNRECORDED_SESSION;

/// One session log, loaded.
#[derive(Debug)]
pub struct LoadedLog {
    pub file: String,
    pub header: SessionHeader,
    pub calls: Vec<CallRecord>,
}

/// A fixture folder, loaded and verified.
#[derive(Debug)]
pub struct Fixture {
    pub dir: PathBuf,
    pub manifest: Manifest,
    /// In first-call order.
    pub logs: Vec<Arc<LoadedLog>>,
    /// Observation bytes by SHA-256, each checked against its hash when loaded.
    observations: HashMap<String, Vec<u8>>,
}

impl Fixture {
    /// Reads `dir`: the manifest, every session log, and every observation they reference,
    /// each verified against its SHA-256 (a changed file is refused, naming it and the hash).
    pub fn load(dir: &Path) -> Result<Fixture, String> {
        let shown = dir.display();
        // Every file through the script reader's checks: a regular file (a FIFO or a link to
        // a device is refused unopened), at most FIXTURE_FILE_MAX_BYTES.
        let read = |rel: &str| {
            input_file::read(&dir.join(rel), FIXTURE_FILE_MAX_BYTES, Accept::RegularFile)
                .map_err(|e| format!("{shown}/{rel}: cannot read it: {e}"))
        };
        let manifest: Manifest = serde_json::from_slice(&read("manifest.json")?).map_err(|e| {
            format!("{shown}/manifest.json: not a fixture manifest: {e} (record one with --record-fixture {shown})")
        })?;
        if manifest.fixture_version != FIXTURE_VERSION {
            return Err(format!(
                "{shown}/manifest.json: fixture version {} is not supported (this ad reads version {FIXTURE_VERSION}); record it again",
                manifest.fixture_version
            ));
        }
        let mut logs = Vec::new();
        let mut observations = HashMap::new();
        for s in &manifest.sessions {
            if s.file.contains('/') || s.file.contains('\\') || s.file.starts_with('.') {
                return Err(format!("{shown}/manifest.json: session file {:?} must be a plain file name in the fixture folder", s.file));
            }
            let text = String::from_utf8(read(&s.file)?)
                .map_err(|_| format!("{shown}/{}: not UTF-8", s.file))?;
            let mut lines = text
                .lines()
                .enumerate()
                .filter(|(_, l)| !l.trim().is_empty());
            let bad = |n: usize, e: serde_json::Error| format!("{shown}/{}:{}: {e}", s.file, n + 1);
            let header: SessionHeader = match lines.next() {
                Some((n, l)) => serde_json::from_str(l).map_err(|e| bad(n, e))?,
                None => return Err(format!("{shown}/{}: empty session log", s.file)),
            };
            let mut calls = Vec::new();
            for (n, l) in lines {
                let call: CallRecord = serde_json::from_str(l).map_err(|e| bad(n, e))?;
                if let CallResult::Ok(v) = &call.result {
                    if let Some(sha) = v.get("observation").and_then(Value::as_str) {
                        if !is_sha256_hex(sha) {
                            return Err(format!(
                                "{shown}/{}:{}: the observation name {sha:?} is not a SHA-256 (64 lowercase hex digits): the fixture was changed after it was recorded; record it again",
                                s.file,
                                n + 1
                            ));
                        }
                        if !observations.contains_key(sha) {
                            let png = matches!(call.call, Call::Screenshot);
                            let rel = observation_path(sha, png);
                            let bytes = read(&rel)?;
                            let actual = sha256_hex(&bytes);
                            if actual != sha {
                                return Err(format!(
                                    "{shown}/{rel}: the observation does not match its SHA-256 {sha} (the file hashes to {actual}): the fixture was changed after it was recorded; record it again"
                                ));
                            }
                            observations.insert(sha.to_string(), bytes);
                        }
                    }
                }
                calls.push(call);
            }
            logs.push(Arc::new(LoadedLog {
                file: s.file.clone(),
                header,
                calls,
            }));
        }
        logs.sort_by_key(|l| (l.header.first_call == 0, l.header.first_call));
        Ok(Fixture {
            dir: dir.to_path_buf(),
            manifest,
            logs,
            observations,
        })
    }
}

/// A fixture folder's manifest alone (what it was recorded on), read as [`Fixture::load`] reads it.
pub fn read_manifest(dir: &Path) -> Result<Manifest, String> {
    let bytes = input_file::read(
        &dir.join("manifest.json"),
        FIXTURE_FILE_MAX_BYTES,
        Accept::RegularFile,
    )
    .map_err(|e| format!("{}/manifest.json: cannot read it: {e}", dir.display()))?;
    serde_json::from_slice(&bytes).map_err(|e| {
        format!(
            "{}/manifest.json: not a fixture manifest: {e}",
            dir.display()
        )
    })
}

/// The most bytes read from one file of a fixture: the largest script `ad` reads (a session
/// log of a long run, a screenshot are far below it).
pub const FIXTURE_FILE_MAX_BYTES: u64 = ad_grammar::Span::MAX_SOURCE as u64;

/// An observation's name as the recorder writes it: its SHA-256 in lowercase hex (so a name is
/// never a path, checked before anything is read).
fn is_sha256_hex(name: &str) -> bool {
    name.len() == 64 && name.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

impl Fixture {
    /// An observation's verified bytes.
    pub fn observation(&self, sha256: &str) -> Option<&[u8]> {
        self.observations.get(sha256).map(Vec::as_slice)
    }
}

/// A loaded fixture and which of its logs live sessions have claimed; clones share both.
#[derive(Debug, Clone)]
pub struct ReplaySource {
    fixture: Arc<Fixture>,
    claimed: Arc<Mutex<usize>>,
    /// See [`ReplaySource::with_open_tail`].
    open_tail: bool,
}

impl ReplaySource {
    pub fn open(dir: &Path) -> Result<ReplaySource, String> {
        Ok(ReplaySource {
            fixture: Arc::new(Fixture::load(dir)?),
            claimed: Arc::new(Mutex::new(0)),
            open_tail: false,
        })
    }

    /// Its sessions end where their recorded run last acted (the module doc): a run that leaves
    /// a recording where it only observes sees the screens recorded after that last action, by
    /// device time; an action it never saw is [`EXHAUSTED`], never a contradiction. For proofs on
    /// a recording of a failing run (`ad heal --backend recorded:DIR`), not for `ad run`.
    pub fn with_open_tail(mut self) -> ReplaySource {
        self.open_tail = true;
        self
    }

    pub fn fixture(&self) -> &Fixture {
        &self.fixture
    }

    /// A live session's backend. `values` are its injected values (`-e`, `AD_VAR_*`, `env`):
    /// live arguments are redacted with them before comparing, and the recorded observations'
    /// `<var:NAME>` markers show them again.
    pub fn backend(&self, values: &[(String, String)]) -> Replay {
        let redactor = Redactor::new(values.iter().map(|(k, v)| (k.as_str(), v.as_str())));
        Replay {
            source: self.clone(),
            values: markers(&redactor),
            redactor,
            bound: OnceCell::new(),
            cursor: 0,
            read_index: Cell::new(0),
            clock: Cell::new(0),
            failure: None,
            failure_reported: false,
            last_capture: None,
            captures: HashMap::new(),
            location: Value::Null,
            left_at: None,
        }
    }

    /// The next unclaimed log, or why there is none.
    fn claim(&self) -> Result<Arc<LoadedLog>, String> {
        let mut claimed = self.claimed.lock().unwrap_or_else(|e| e.into_inner());
        match self.fixture.logs.get(*claimed) {
            Some(log) => {
                *claimed += 1;
                Ok(log.clone())
            }
            None => Err(format!(
                "an unrecorded session appeared: the fixture {} holds {} recorded session(s) ({}), each already bound to a live session in first-call order",
                self.fixture.dir.display(),
                self.fixture.logs.len(),
                self.fixture
                    .logs
                    .iter()
                    .map(|l| format!("\"{}\"", l.header.session))
                    .collect::<Vec<_>>()
                    .join(", ")
            )),
        }
    }
}

/// `<var:NAME>` markers replaced by the live value of NAME (`values`: marker → value; markers
/// it does not know stay).
fn unredact(s: &str, values: &BTreeMap<String, String>) -> String {
    if !s.contains("<var:") {
        return s.to_string();
    }
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(i) = rest.find("<var:") {
        out.push_str(&rest[..i]);
        let after = &rest[i + 5..];
        let marker = after
            .find('>')
            .and_then(|j| Some((j, values.get(&rest[i..i + 5 + j + 1])?)));
        match marker {
            Some((j, v)) => {
                out.push_str(v);
                rest = &after[j + 1..];
            }
            None => {
                out.push_str("<var:");
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

fn unredact_value(v: &mut Value, values: &BTreeMap<String, String>) {
    match v {
        Value::String(s) if s.contains("<var:") => *s = unredact(s, values),
        Value::Array(a) => a.iter_mut().for_each(|x| unredact_value(x, values)),
        Value::Object(m) => m.values_mut().for_each(|x| unredact_value(x, values)),
        _ => {}
    }
}

/// A backend that serves one live session from its recorded log.
pub struct Replay {
    source: ReplaySource,
    redactor: Redactor,
    values: BTreeMap<String, String>,
    /// The log this session claimed at its first call (or clock reading).
    bound: OnceCell<Result<Arc<LoadedLog>, String>>,
    /// The next recorded call.
    cursor: usize,
    /// Clock readings served since the last call, and the last value served.
    read_index: Cell<usize>,
    clock: Cell<u64>,
    /// The divergence: every later call fails with it (but captures, below).
    failure: Option<BackendError>,
    /// Whether a step has failed with it yet; after that, captures (the divergence report's
    /// screen) show the last screen served: the diverging call never ran.
    failure_reported: bool,
    last_capture: Option<Capture>,
    /// Parsed captures by hash (a script re-reads the same screens).
    captures: HashMap<String, Capture>,
    location: Value,
    /// With an open tail: the recorded call at which the run left the recording, after which
    /// the recorded run only observed (calls are then answered by [`Replay::serve_tail`]).
    left_at: Option<usize>,
}

impl Replay {
    fn log(&self) -> Result<&Arc<LoadedLog>, &String> {
        self.bound
            .get_or_init(|| {
                let log = self.source.claim()?;
                self.clock.set(log.header.start_clock);
                Ok(log)
            })
            .as_ref()
    }

    /// The session's log and name, for messages.
    fn session_name(&self) -> String {
        self.log()
            .map(|l| format!("session \"{}\" ({})", l.header.session, l.file))
            .unwrap_or_default()
    }

    /// The readings served between the previous call and the next.
    fn reads(&self) -> &[u64] {
        match self.log() {
            Ok(log) if self.cursor == 0 => &log.header.reads,
            Ok(log) => &log.calls[self.cursor - 1].reads_after,
            Err(_) => &[],
        }
    }

    /// Recorded calls this session did not replay (after a run that ended without diverging).
    pub fn unreplayed(&self) -> Option<String> {
        let log = self.log().ok()?;
        let left = log
            .calls
            .len()
            .checked_sub(self.cursor)
            .filter(|n| *n > 0)?;
        if self.failure.is_some() || self.left_at.is_some() {
            return None;
        }
        Some(format!(
            "the recording of {} has {left} call(s) this run did not make (the next: {})",
            self.session_name(),
            log.calls[self.cursor].call.describe()
        ))
    }

    fn diverge(&mut self, message: String) -> BackendError {
        let e = BackendError::rejected(DIVERGED, message).with_hint(format!(
            "the script or ad no longer does what the recording in {} did: check the change, or record the fixture again with --record-fixture",
            self.source.fixture.dir.display()
        ));
        self.fail(e)
    }

    /// The recording holds no answer to the call: it ran out, nothing was contradicted.
    fn exhausted(&mut self, message: String) -> BackendError {
        let e = BackendError::rejected(EXHAUSTED, message).with_hint(format!(
            "the recording in {} ends here: run on a device to go further (or record a longer run with --record-fixture)",
            self.source.fixture.dir.display()
        ));
        self.fail(e)
    }

    fn fail(&mut self, e: BackendError) -> BackendError {
        self.failure = Some(e.clone());
        self.failure_reported = true;
        e
    }

    /// Whether the run has left the recording (open tail): see [`Replay::serve_tail`].
    pub fn left_recording_at(&self) -> Option<usize> {
        self.left_at
    }

    /// The session's next recorded call, if `live` is it.
    fn serve(&mut self, live: Call) -> Result<CallRecord, BackendError> {
        if let Some(e) = &self.failure {
            self.failure_reported = true;
            return Err(e.clone());
        }
        let log = match self.log() {
            Ok(l) => l.clone(),
            Err(m) => return Err(BackendError::rejected(UNRECORDED_SESSION, m.clone())),
        };
        let live = live_redacted(&self.redactor, &live);
        if self.left_at.is_some() {
            return self.serve_tail(&log, live);
        }
        let next = log.calls.get(self.cursor).filter(|r| r.call == live);
        let Some(rec) = next else {
            // The run leaves the recording here. It contradicts it when the recorded run acted
            // again from here on; else (open tail) the recording only observed from here.
            let acts_again = log.calls[self.cursor..]
                .iter()
                .find(|c| !c.call.only_observes());
            if self.source.open_tail && acts_again.is_none() {
                self.left_at = Some(self.cursor);
                return self.serve_tail(&log, live);
            }
            let Some(rec) = log.calls.get(self.cursor) else {
                let m = format!(
                    "the recording of {} ended after {} call(s), but the run made another: {}",
                    self.session_name(),
                    log.calls.len(),
                    live.describe()
                );
                return Err(self.exhausted(m));
            };
            let mut m = format!(
                "expected recorded call {} of {}: {}; got {}",
                rec.n,
                self.session_name(),
                rec.call.describe(),
                live.describe()
            );
            if let Some(a) = acts_again.filter(|_| self.source.open_tail) {
                m.push_str(&format!(
                    " (the recorded run acts again at call {}: this run contradicts it)",
                    a.n
                ));
            }
            return Err(self.diverge(m));
        };
        self.cursor += 1;
        self.read_index.set(0);
        self.clock.set(rec.clock);
        if let Some(l) = &rec.location {
            let mut l = l.clone();
            unredact_value(&mut l, &self.values);
            self.location = l;
        }
        Ok(rec.clone())
    }

    /// A call after the run left the recording where the recorded run only observed (open
    /// tail): time passes; a capture or a screenshot shows the last one the recording took after
    /// its last action at or before this device time; anything else (an action, a screen past
    /// the recording's last moment) is [`EXHAUSTED`].
    fn serve_tail(&mut self, log: &LoadedLog, live: Call) -> Result<CallRecord, BackendError> {
        let now = self.clock.get();
        let end = log.calls.last().map_or(log.header.start_clock, |c| c.clock);
        let settled = log
            .calls
            .iter()
            .rposition(|c| !c.call.only_observes())
            .map_or(0, |i| i + 1);
        let answer = |call: Call, clock: u64| CallRecord {
            n: 0,
            call,
            result: CallResult::Ok(Value::Null),
            clock,
            reads_after: Vec::new(),
            location: None,
        };
        match live {
            Call::Sleep { ms } => {
                let t = now.saturating_add(ms);
                self.clock.set(t);
                return Ok(answer(live, t));
            }
            Call::Capture | Call::Screenshot if now <= end => {
                let seen = log.calls[settled..].iter().rev().find(|c| {
                    c.call == live && c.clock <= now && matches!(c.result, CallResult::Ok(_))
                });
                if let Some(rec) = seen {
                    return Ok(CallRecord {
                        clock: now,
                        ..rec.clone()
                    });
                }
            }
            _ => {}
        }
        let m = if live.only_observes() {
            format!(
                "the recording of {} ends at device time {end} ms: it holds no {} at {now} ms, after its last action",
                self.session_name(),
                live.describe()
            )
        } else {
            let last = settled
                .checked_sub(1)
                .and_then(|i| log.calls.get(i))
                .map(|c| {
                    let kind = serde_json::to_value(&c.call)
                        .ok()
                        .and_then(|v| v["kind"].as_str().map(str::to_string))
                        .unwrap_or_default();
                    format!("its call {}, a {kind}", c.n)
                })
                .unwrap_or_else(|| "its start".into());
            format!(
                "the recording of {} holds no answer to {}: the recorded run did not act after {last}, so how the app answers this is known only on a device",
                self.session_name(),
                live.describe()
            )
        };
        Err(self.exhausted(m))
    }

    /// The recorded result as the call's value.
    fn value(&self, rec: &CallRecord) -> BackendResult<Value> {
        match &rec.result {
            CallResult::Ok(v) => {
                let mut v = v.clone();
                unredact_value(&mut v, &self.values);
                Ok(v)
            }
            CallResult::Error(e) => {
                let message = unredact(&e.message, &self.values);
                Err(if e.transport {
                    BackendError::Transport { message }
                } else {
                    BackendError::Rejected {
                        code: e.code.clone(),
                        message,
                        hint: e.hint.clone(),
                    }
                })
            }
        }
    }

    async fn unit(&mut self, call: Call) -> BackendResult<()> {
        let rec = self.serve(call)?;
        self.value(&rec).map(|_| ())
    }

    fn typed<T: serde::de::DeserializeOwned>(&self, rec: &CallRecord) -> BackendResult<T> {
        let v = self.value(rec)?;
        serde_json::from_value(v).map_err(|e| {
            BackendError::rejected(
                DIVERGED,
                format!(
                    "recorded call {} of {} has a result this call cannot read: {e}",
                    rec.n,
                    self.session_name()
                ),
            )
        })
    }

    fn observation(&self, v: &Value) -> Result<(String, &[u8]), BackendError> {
        let sha = v.get("observation").and_then(Value::as_str).unwrap_or("");
        self.source
            .fixture
            .observations
            .get(sha)
            .map(|b| (sha.to_string(), b.as_slice()))
            .ok_or_else(|| {
                BackendError::rejected(DIVERGED, format!("the fixture has no observation {sha}"))
            })
    }
}

/// A live call as the recorder would have written it: the same redaction, through JSON as it
/// was stored.
fn live_redacted(redactor: &Redactor, call: &Call) -> Call {
    super::recorder::redact_as(redactor, call)
}

impl Backend for Replay {
    fn name(&self) -> &str {
        &self.source.fixture.manifest.backend
    }
    fn platform(&self) -> &str {
        &self.source.fixture.manifest.platform
    }
    fn now_ms(&self) -> u64 {
        if self.log().is_err() {
            return 0;
        }
        if self.failure.is_none() && self.left_at.is_none() {
            let i = self.read_index.get();
            if let Some(&t) = self.reads().get(i) {
                self.read_index.set(i + 1);
                self.clock.set(t);
            }
        }
        self.clock.get()
    }
    async fn sleep(&mut self, ms: u64) {
        if self.failure.is_none() && self.serve(Call::Sleep { ms }).is_err() {
            // Sleeping cannot fail: the step fails at its next device call.
            self.failure_reported = false;
        }
        if self.failure.is_some() {
            // Time still passes after a divergence, so a wait ends.
            self.clock.set(self.clock.get() + ms);
        }
    }
    async fn launch(&mut self, app: &str, options: &LaunchOptions) -> BackendResult<()> {
        self.unit(Call::Launch {
            app: app.to_string(),
            relaunch: options.relaunch,
            url: options.url.clone(),
            args: options.args.clone(),
        })
        .await
    }
    async fn close(&mut self, app: Option<&str>) -> BackendResult<()> {
        self.unit(Call::Close {
            app: app.map(str::to_string),
        })
        .await
    }
    async fn capture(&mut self) -> BackendResult<Capture> {
        if self.failure.is_some() && self.failure_reported {
            if let Some(c) = &self.last_capture {
                return Ok(c.clone());
            }
        }
        let rec = self.serve(Call::Capture)?;
        let v = self.value(&rec)?;
        let (sha, bytes) = self.observation(&v)?;
        if let Some(c) = self.captures.get(&sha) {
            let c = c.clone();
            self.last_capture = Some(c.clone());
            return Ok(c);
        }
        let mut tree: Value = serde_json::from_slice(bytes)
            .map_err(|e| BackendError::rejected(DIVERGED, format!("observation {sha}: {e}")))?;
        unredact_value(&mut tree, &self.values);
        let rc: RecordedCapture = serde_json::from_value(tree)
            .map_err(|e| BackendError::rejected(DIVERGED, format!("observation {sha}: {e}")))?;
        let cap = Capture {
            roots: rc.roots,
            viewport: rc.viewport,
            app: rc.app,
        };
        self.captures.insert(sha, cap.clone());
        self.last_capture = Some(cap.clone());
        Ok(cap)
    }
    async fn tap(&mut self, at: Point, options: &TapOptions) -> BackendResult<()> {
        self.unit(Call::Tap {
            at,
            count: options.count,
            interval_ms: options.interval_ms,
            hold_ms: options.hold_ms,
            double_tap: options.double_tap,
            button: options.button.clone(),
        })
        .await
    }
    async fn long_press(&mut self, at: Point, duration_ms: u64) -> BackendResult<()> {
        self.unit(Call::LongPress { at, duration_ms }).await
    }
    async fn hover(&mut self, at: Point) -> BackendResult<()> {
        self.unit(Call::Hover { at }).await
    }
    async fn focus(&mut self, at: Point) -> BackendResult<()> {
        self.unit(Call::Focus { at }).await
    }
    async fn fill(&mut self, at: Point, text: &str, delay_ms: u64) -> BackendResult<()> {
        self.unit(Call::Fill {
            at,
            text: text.to_string(),
            delay_ms,
        })
        .await
    }
    async fn type_text(&mut self, text: &str, delay_ms: u64) -> BackendResult<()> {
        self.unit(Call::TypeText {
            text: text.to_string(),
            delay_ms,
        })
        .await
    }
    async fn scroll(&mut self, direction: Direction, amount: Option<f64>) -> BackendResult<()> {
        self.unit(Call::Scroll { direction, amount }).await
    }
    async fn gesture(&mut self, plan: &GesturePlan) -> BackendResult<()> {
        self.unit(Call::Gesture { plan: plan.clone() }).await
    }
    async fn press_key(&mut self, key: SystemKey) -> BackendResult<()> {
        self.unit(Call::PressKey { key: word(&key) }).await
    }
    async fn keyboard(&mut self, action: KeyboardAction) -> BackendResult<KeyboardState> {
        let rec = self.serve(Call::Keyboard { action })?;
        self.typed(&rec)
    }
    async fn alert(&mut self, action: AlertAction) -> BackendResult<Option<AlertInfo>> {
        let rec = self.serve(Call::Alert {
            action: word(&action),
        })?;
        self.typed(&rec)
    }
    async fn clipboard_read(&mut self) -> BackendResult<String> {
        let rec = self.serve(Call::ClipboardRead)?;
        self.typed(&rec)
    }
    async fn clipboard_write(&mut self, text: &str) -> BackendResult<()> {
        self.unit(Call::ClipboardWrite {
            text: text.to_string(),
        })
        .await
    }
    async fn screenshot(&mut self) -> BackendResult<Vec<u8>> {
        let rec = self.serve(Call::Screenshot)?;
        let v = self.value(&rec)?;
        Ok(self.observation(&v)?.1.to_vec())
    }
    async fn other(&mut self, command: &str, positionals: &[String]) -> BackendResult<Value> {
        let rec = self.serve(Call::Other {
            command: command.to_string(),
            positionals: positionals.to_vec(),
        })?;
        self.value(&rec)
    }
    fn location(&self) -> Value {
        self.location.clone()
    }
    /// The recording has no such call to serve.
    fn screenshot_on_failure(&self) -> bool {
        false
    }
    /// As the recorded backend could: the replay's divergence report is the recorded run's.
    fn resumes_at_step(&self) -> bool {
        self.log().is_ok_and(|log| log.header.resumes_at_step)
    }
    fn use_redactor(&mut self, redactor: &Redactor) {
        if self.redactor != *redactor {
            self.values = markers(redactor);
            self.redactor = redactor.clone();
            // Cached captures show the previous values.
            self.captures.clear();
        }
    }
    /// A recording of the agent-device bridge touches elements as the bridge did (its rules
    /// without the node facts a recording does not keep: role, subrole, blocked).
    fn touch_point(
        &self,
        tree: &crate::core::tree::Snapshot,
        node: usize,
        target: &str,
        action: &str,
    ) -> Result<Point, crate::core::backend::TouchRefusal> {
        if self.name() == "agent-device" {
            return crate::backends::agent_device::touch::touch_point(
                tree,
                node,
                &[],
                target,
                action,
                self.platform(),
            );
        }
        Ok(tree.nodes[node]
            .rect
            .map(|r| r.center())
            .unwrap_or(Point { x: 0.0, y: 0.0 }))
    }
}

/// What each `<var:NAME>` marker of a redactor stands for.
fn markers(redactor: &Redactor) -> BTreeMap<String, String> {
    redactor
        .replacements()
        .filter(|(r, _)| r.starts_with("<var:"))
        .map(|(r, v)| (r.to_string(), v.to_string()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A fixture of a failing run: it launches, looks, fills (its last action), then only
    /// observes (a step polling for an element that never came: capture, sleep, capture).
    fn failing_run(dir: &Path) {
        let obs = br#"{"roots":[],"viewport":{"x":0.0,"y":0.0,"width":390.0,"height":844.0}}"#;
        let sha = sha256_hex(obs);
        std::fs::create_dir_all(dir.join("observations")).unwrap();
        std::fs::write(dir.join(observation_path(&sha, false)), obs).unwrap();
        let capture = |n: u64, clock: u64| {
            format!(
                r#"{{"n":{n},"call":{{"kind":"capture"}},"result":{{"ok":{{"observation":"{sha}"}}}},"clock":{clock}}}"#
            )
        };
        let lines = [
            r#"{"fixtureVersion":1,"session":"default","firstCall":1,"createdAt":"2026-01-01T00:00:00.000Z","backend":"sim","platform":"ios","startClock":0}"#.to_string(),
            r#"{"n":1,"call":{"kind":"launch","app":"com.example.shop","relaunch":true},"result":{"ok":null},"clock":0}"#.to_string(),
            capture(2, 0),
            r#"{"n":3,"call":{"kind":"fill","at":{"x":1.0,"y":2.0},"text":"hi","delayMs":0},"result":{"ok":null},"clock":0}"#.to_string(),
            capture(4, 0),
            r#"{"n":5,"call":{"kind":"sleep","ms":300},"result":{"ok":null},"clock":300}"#.to_string(),
            capture(6, 300),
        ];
        std::fs::write(dir.join("session-1.jsonl"), lines.join("\n") + "\n").unwrap();
        std::fs::write(
            dir.join("manifest.json"),
            r#"{"fixtureVersion":1,"backend":"sim","platform":"ios","sessions":[{"file":"session-1.jsonl","session":"default","firstCall":1,"calls":6}]}"#,
        )
        .unwrap();
    }

    fn block_on<F: std::future::Future>(f: F) -> F::Output {
        tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap()
            .block_on(f)
    }

    fn code(r: BackendResult<impl Sized>) -> String {
        match r {
            Ok(_) => "ok".into(),
            Err(e) => e.code().to_string(),
        }
    }

    const TAP: TapOptions = TapOptions {
        count: 1,
        interval_ms: 0,
        hold_ms: 0,
        double_tap: false,
        button: String::new(),
    };

    /// Up to the recorded run's last action, on an open tail too.
    async fn prefix(r: &mut Replay) {
        let launch = LaunchOptions {
            relaunch: true,
            ..LaunchOptions::default()
        };
        assert_eq!(code(r.launch("com.example.shop", &launch).await), "ok");
        assert_eq!(code(r.capture().await), "ok");
        let at = Point { x: 1.0, y: 2.0 };
        assert_eq!(code(r.fill(at, "hi", 0).await), "ok");
    }

    #[test]
    fn a_call_past_the_recording_is_exhausted_and_a_call_against_it_diverged() {
        let tmp = tempfile::tempdir().unwrap();
        failing_run(tmp.path());
        let source = ReplaySource::open(tmp.path()).unwrap();
        // Past the last recorded call: the recording ran out.
        let mut r = source.backend(&[]);
        block_on(async {
            prefix(&mut r).await;
            assert_eq!(code(r.capture().await), "ok");
            r.sleep(300).await;
            assert_eq!(code(r.capture().await), "ok");
            let e = r.tap(Point { x: 5.0, y: 5.0 }, &TAP).await.unwrap_err();
            assert_eq!(e.code(), EXHAUSTED);
            assert!(
                e.message().contains("ended after 6 call(s)"),
                "{}",
                e.message()
            );
        });
        // Another call where one is recorded: a contradiction, even where the recording only
        // observes from there on (an ordinary replay compares every call).
        let source = ReplaySource::open(tmp.path()).unwrap();
        let mut r = source.backend(&[]);
        block_on(async {
            prefix(&mut r).await;
            let e = r.tap(Point { x: 5.0, y: 5.0 }, &TAP).await.unwrap_err();
            assert_eq!(e.code(), DIVERGED);
            assert!(
                e.message().contains("expected recorded call 4"),
                "{}",
                e.message()
            );
        });
        // Where the recorded run acts again (its fill), another call contradicts it.
        let source = ReplaySource::open(tmp.path()).unwrap();
        let mut r = source.backend(&[]);
        block_on(async {
            let launch = LaunchOptions {
                relaunch: true,
                ..LaunchOptions::default()
            };
            r.launch("com.example.shop", &launch).await.unwrap();
            r.capture().await.unwrap();
            let e = r
                .fill(Point { x: 1.0, y: 2.0 }, "bye", 0)
                .await
                .unwrap_err();
            assert_eq!(e.code(), DIVERGED);
        });
    }

    #[test]
    fn an_open_tail_answers_what_the_recording_saw_and_nothing_it_did_not() {
        let tmp = tempfile::tempdir().unwrap();
        failing_run(tmp.path());
        // Before the recorded run's last action, leaving the recording contradicts it.
        let source = ReplaySource::open(tmp.path()).unwrap().with_open_tail();
        let mut r = source.backend(&[]);
        block_on(async {
            let launch = LaunchOptions {
                relaunch: true,
                ..LaunchOptions::default()
            };
            r.launch("com.example.shop", &launch).await.unwrap();
            let e = r.tap(Point { x: 5.0, y: 5.0 }, &TAP).await.unwrap_err();
            assert_eq!(e.code(), DIVERGED);
            assert!(
                e.message().contains("acts again at call 3"),
                "{}",
                e.message()
            );
        });
        // After it, an action the recorded run never made is past what it knows.
        let source = ReplaySource::open(tmp.path()).unwrap().with_open_tail();
        let mut r = source.backend(&[]);
        block_on(async {
            prefix(&mut r).await;
            assert_eq!(code(r.capture().await), "ok");
            let e = r.tap(Point { x: 5.0, y: 5.0 }, &TAP).await.unwrap_err();
            assert_eq!(e.code(), EXHAUSTED);
            assert!(
                e.message().contains("did not act after its call 3, a fill"),
                "{}",
                e.message()
            );
            assert_eq!(r.left_recording_at(), Some(4));
        });
        // Reads after it see the recorded screens by device time, until the recording's end.
        let source = ReplaySource::open(tmp.path()).unwrap().with_open_tail();
        let mut r = source.backend(&[]);
        block_on(async {
            prefix(&mut r).await;
            r.sleep(100).await;
            assert_eq!(r.now_ms(), 100);
            assert_eq!(code(r.capture().await), "ok");
            r.sleep(200).await;
            assert_eq!(code(r.capture().await), "ok");
            assert_eq!(code(r.capture().await), "ok");
            r.sleep(1).await;
            let e = r.capture().await.unwrap_err();
            assert_eq!(e.code(), EXHAUSTED);
            assert!(
                e.message().contains("ends at device time 300 ms"),
                "{}",
                e.message()
            );
            assert!(r.unreplayed().is_none());
        });
    }

    #[test]
    fn markers_show_live_values_and_unknown_names_stay() {
        let values = markers(&Redactor::new([("USER", "bob")]));
        assert_eq!(unredact("hi <var:USER>!", &values), "hi bob!");
        assert_eq!(unredact("<var:X> <var:USER", &values), "<var:X> <var:USER");
    }
}
