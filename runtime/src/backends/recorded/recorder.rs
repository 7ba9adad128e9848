//! Recording: [`Recorder`] wraps any backend and logs each trait call (arguments redacted as the
//! journal redacts them), its result, the observations it returned (stored by SHA-256) and the
//! device clock, including every clock reading between calls, so a replay polls exactly as the
//! recorded run did. Several sessions share one [`Recording`] (the authoring daemon's sessions):
//! each call takes the next order number, and a session's first one orders the logs.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::path::Path;
use std::sync::{Arc, Mutex};

use serde_json::{json, Value};

use crate::core::backend::*;
use crate::core::records::common::sha256_hex;
use crate::core::records::recorded::*;
use crate::core::tree::Point;
use crate::core::vars::Redactor;

/// One session's log as it is recorded.
#[derive(Debug, Clone)]
pub struct SessionLog {
    pub header: SessionHeader,
    pub calls: Vec<CallRecord>,
}

/// What the sessions of one recording share: the call order counter, the finished logs and the
/// observation files.
#[derive(Debug, Default)]
pub struct Recording {
    calls: u64,
    sessions: Vec<SessionLog>,
    observations: BTreeMap<String, Vec<u8>>,
    backend: String,
    platform: String,
}

/// A recording several sessions write to.
pub type SharedRecording = Arc<Mutex<Recording>>;

impl Recording {
    pub fn shared() -> SharedRecording {
        Arc::new(Mutex::new(Recording::default()))
    }

    /// Writes the fixture into `dir` (created if needed), replacing the fixture an earlier
    /// recording wrote there: only the files it wrote are replaced or removed, and never
    /// through a link ([`crate::core::output_dir`]).
    pub fn write(&self, dir: &Path) -> std::io::Result<()> {
        use crate::core::output_dir::{replace_files, Content, FIXTURE_LISTING};
        let mut sessions: Vec<&SessionLog> = self.sessions.iter().collect();
        // First-call order; a session that never called its backend goes last.
        sessions.sort_by_key(|s| (s.header.first_call == 0, s.header.first_call));
        let mut manifest = Manifest {
            fixture_version: FIXTURE_VERSION,
            backend: self.backend.clone(),
            platform: self.platform.clone(),
            sessions: Vec::new(),
        };
        let mut logs = Vec::new();
        for (i, s) in sessions.iter().enumerate() {
            let file = session_file_name(i + 1);
            let mut text = serde_json::to_string(&s.header).map_err(std::io::Error::other)?;
            text.push('\n');
            for c in &s.calls {
                text.push_str(&serde_json::to_string(c).map_err(std::io::Error::other)?);
                text.push('\n');
            }
            manifest.sessions.push(ManifestSession {
                file: file.clone(),
                session: s.header.session.clone(),
                first_call: s.header.first_call,
                calls: s.calls.len() as u64,
            });
            logs.push((file, text));
        }
        let mut text = serde_json::to_string_pretty(&manifest).map_err(std::io::Error::other)?;
        text.push('\n');
        let mut files: Vec<(String, Content<'_>)> = self
            .observations
            .iter()
            .map(|(path, bytes)| (path.clone(), Content::Bytes(bytes)))
            .collect();
        files.extend(
            logs.iter()
                .map(|(file, text)| (file.clone(), Content::Bytes(text.as_bytes()))),
        );
        files.push(("manifest.json".into(), Content::Bytes(text.as_bytes())));
        replace_files(dir, FIXTURE_LISTING, &files)
    }

    pub fn sessions(&self) -> &[SessionLog] {
        &self.sessions
    }

    /// Takes session `session`'s finished log back out, to be continued.
    fn reopen(&mut self, session: &str) -> Option<SessionLog> {
        let i = self
            .sessions
            .iter()
            .position(|s| s.header.session == session)?;
        Some(self.sessions.remove(i))
    }
}

/// A backend whose calls are logged into a [`Recording`].
pub struct Recorder<B> {
    inner: B,
    recording: SharedRecording,
    redactor: Redactor,
    log: SessionLog,
    /// Clock readings since the last call (`now_ms` takes `&self`).
    reads: RefCell<Vec<u64>>,
    /// The last call, kept until the clock readings after it are known.
    pending: Option<CallRecord>,
    location: Value,
}

/// Redacts every string of a call, result or capture but the keys that name what a record is
/// ([`Redactor::redact_data`]): an app or URL opened from a variable is data here, and a fixture
/// is committed.
pub(super) fn redact_data(redactor: &Redactor, v: &mut Value) {
    redactor.redact_data(v);
}

/// A record with [`redact_data`] applied (the record itself if the result no longer fits it).
pub(super) fn redact_as<T: serde::Serialize + serde::de::DeserializeOwned + Clone>(
    redactor: &Redactor,
    value: &T,
) -> T {
    let Ok(mut v) = serde_json::to_value(value) else {
        return value.clone();
    };
    redact_data(redactor, &mut v);
    serde_json::from_value(v).unwrap_or_else(|_| value.clone())
}

impl<B: Backend> Recorder<B> {
    /// Records `inner`'s calls as session `session`; `redactor` holds the run's injected values.
    pub fn new(inner: B, session: &str, redactor: Redactor, recording: SharedRecording) -> Self {
        let start_clock = inner.now_ms();
        let location = inner.location();
        let header = SessionHeader {
            fixture_version: FIXTURE_VERSION,
            session: session.to_string(),
            first_call: 0,
            created_at: crate::core::journal::utc_now(),
            backend: inner.name().to_string(),
            platform: inner.platform().to_string(),
            start_clock,
            reads: Vec::new(),
            resumes_at_step: inner.resumes_at_step(),
        };
        Recorder {
            inner,
            recording,
            redactor,
            log: SessionLog {
                header,
                calls: Vec::new(),
            },
            reads: RefCell::new(Vec::new()),
            pending: None,
            location,
        }
    }

    /// Continues session `session` of `recording` (a handoff run's log, continued by the
    /// session commands that adopted its device); a new log when it has none.
    pub fn resume(inner: B, session: &str, redactor: Redactor, recording: SharedRecording) -> Self {
        let log = recording
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .reopen(session);
        let mut r = Recorder::new(inner, session, redactor, recording);
        if let Some(mut log) = log {
            // The last call takes the clock readings until the next one.
            r.pending = log.calls.pop();
            r.log = log;
        }
        r
    }

    pub fn inner(&self) -> &B {
        &self.inner
    }

    pub fn inner_mut(&mut self) -> &mut B {
        &mut self.inner
    }

    /// Ends the session: its log joins the recording; the backend is handed back.
    pub fn finish(mut self) -> B {
        self.flush_pending();
        let mut rec = self.recording.lock().unwrap_or_else(|e| e.into_inner());
        if rec.backend.is_empty() {
            rec.backend = self.log.header.backend.clone();
            rec.platform = self.log.header.platform.clone();
        }
        rec.sessions.push(self.log);
        drop(rec);
        self.inner
    }

    /// The readings since the last call, or none when each equals `clock`.
    fn take_reads(&self, clock: u64) -> Vec<u64> {
        let reads = std::mem::take(&mut *self.reads.borrow_mut());
        if reads.iter().all(|&r| r == clock) {
            Vec::new()
        } else {
            reads
        }
    }

    fn flush_pending(&mut self) {
        if let Some(mut c) = self.pending.take() {
            let reads = self.take_reads(c.clock);
            c.reads_after.extend(reads);
            self.log.calls.push(c);
        }
    }

    /// A call is about to reach the device: closes the previous one and takes an order number.
    fn begin(&mut self) {
        match self.pending.is_some() {
            true => self.flush_pending(),
            false if self.log.calls.is_empty() => {
                self.log.header.reads = self.take_reads(self.log.header.start_clock);
            }
            false => {}
        }
        let mut rec = self.recording.lock().unwrap_or_else(|e| e.into_inner());
        rec.calls += 1;
        if self.log.header.first_call == 0 {
            self.log.header.first_call = rec.calls;
        }
    }

    fn end(&mut self, call: Call, result: CallResult) {
        let location = self.inner.location();
        let changed = (location != self.location).then(|| {
            self.location = location.clone();
            let mut l = location;
            redact_data(&self.redactor, &mut l);
            l
        });
        self.pending = Some(CallRecord {
            n: self.log.calls.len() as u64 + 1,
            call: redact_as(&self.redactor, &call),
            result,
            clock: self.inner.now_ms(),
            reads_after: Vec::new(),
            location: changed,
        });
    }

    fn error(&self, e: &BackendError) -> CallResult {
        CallResult::Error(CallError {
            code: e.code().to_string(),
            message: self.redactor.redact(e.message()),
            hint: e.hint().map(|h| self.redactor.redact(h)),
            transport: matches!(e, BackendError::Transport { .. }),
        })
    }

    fn outcome<T>(&self, r: &BackendResult<T>, ok: impl FnOnce(&T) -> Value) -> CallResult {
        match r {
            Ok(v) => {
                let mut v = ok(v);
                redact_data(&self.redactor, &mut v);
                CallResult::Ok(v)
            }
            Err(e) => self.error(e),
        }
    }

    /// Stores an observation's bytes under their SHA-256; returns the result naming it.
    fn store(&mut self, bytes: Vec<u8>, png: bool) -> Value {
        let sha = sha256_hex(&bytes);
        let path = observation_path(&sha, png);
        let mut rec = self.recording.lock().unwrap_or_else(|e| e.into_inner());
        rec.observations.entry(path).or_insert(bytes);
        json!({ "observation": sha })
    }

    async fn unit(
        &mut self,
        call: Call,
        run: impl AsyncFnOnce(&mut B) -> BackendResult<()>,
    ) -> BackendResult<()> {
        self.begin();
        let r = run(&mut self.inner).await;
        let result = self.outcome(&r, |_| Value::Null);
        self.end(call, result);
        r
    }
}

impl<B: Backend> Backend for Recorder<B> {
    fn name(&self) -> &str {
        self.inner.name()
    }
    fn platform(&self) -> &str {
        self.inner.platform()
    }
    fn now_ms(&self) -> u64 {
        let t = self.inner.now_ms();
        self.reads.borrow_mut().push(t);
        t
    }
    async fn sleep(&mut self, ms: u64) {
        self.begin();
        self.inner.sleep(ms).await;
        self.end(Call::Sleep { ms }, CallResult::Ok(Value::Null));
    }
    async fn launch(&mut self, app: &str, options: &LaunchOptions) -> BackendResult<()> {
        let call = Call::Launch {
            app: app.to_string(),
            relaunch: options.relaunch,
            url: options.url.clone(),
            args: options.args.clone(),
        };
        self.unit(call, async |b| b.launch(app, options).await)
            .await
    }
    async fn close(&mut self, app: Option<&str>) -> BackendResult<()> {
        let call = Call::Close {
            app: app.map(str::to_string),
        };
        self.unit(call, async |b| b.close(app).await).await
    }
    async fn capture(&mut self) -> BackendResult<Capture> {
        self.begin();
        let r = self.inner.capture().await;
        let result = match &r {
            Ok(cap) => {
                let mut v = serde_json::to_value(RecordedCapture {
                    roots: cap.roots.clone(),
                    viewport: cap.viewport,
                    app: cap.app.clone(),
                })
                .unwrap_or(Value::Null);
                redact_data(&self.redactor, &mut v);
                let bytes = serde_json::to_vec(&v).unwrap_or_default();
                CallResult::Ok(self.store(bytes, false))
            }
            Err(e) => self.error(e),
        };
        self.end(Call::Capture, result);
        r
    }
    async fn tap(&mut self, at: Point, options: &TapOptions) -> BackendResult<()> {
        let call = Call::Tap {
            at,
            count: options.count,
            interval_ms: options.interval_ms,
            hold_ms: options.hold_ms,
            double_tap: options.double_tap,
            button: options.button.clone(),
        };
        self.unit(call, async |b| b.tap(at, options).await).await
    }
    async fn long_press(&mut self, at: Point, duration_ms: u64) -> BackendResult<()> {
        let call = Call::LongPress { at, duration_ms };
        self.unit(call, async |b| b.long_press(at, duration_ms).await)
            .await
    }
    async fn hover(&mut self, at: Point) -> BackendResult<()> {
        self.unit(Call::Hover { at }, async |b| b.hover(at).await)
            .await
    }
    async fn focus(&mut self, at: Point) -> BackendResult<()> {
        self.unit(Call::Focus { at }, async |b| b.focus(at).await)
            .await
    }
    async fn fill(&mut self, at: Point, text: &str, delay_ms: u64) -> BackendResult<()> {
        let call = Call::Fill {
            at,
            text: text.to_string(),
            delay_ms,
        };
        self.unit(call, async |b| b.fill(at, text, delay_ms).await)
            .await
    }
    async fn type_text(&mut self, text: &str, delay_ms: u64) -> BackendResult<()> {
        let call = Call::TypeText {
            text: text.to_string(),
            delay_ms,
        };
        self.unit(call, async |b| b.type_text(text, delay_ms).await)
            .await
    }
    async fn scroll(&mut self, direction: Direction, amount: Option<f64>) -> BackendResult<()> {
        let call = Call::Scroll { direction, amount };
        self.unit(call, async |b| b.scroll(direction, amount).await)
            .await
    }
    async fn gesture(&mut self, plan: &GesturePlan) -> BackendResult<()> {
        let call = Call::Gesture { plan: plan.clone() };
        self.unit(call, async |b| b.gesture(plan).await).await
    }
    async fn press_key(&mut self, key: SystemKey) -> BackendResult<()> {
        let call = Call::PressKey { key: word(&key) };
        self.unit(call, async |b| b.press_key(key).await).await
    }
    async fn keyboard(&mut self, action: KeyboardAction) -> BackendResult<KeyboardState> {
        self.begin();
        let r = self.inner.keyboard(action).await;
        let result = self.outcome(&r, |s| serde_json::to_value(s).unwrap_or(Value::Null));
        self.end(Call::Keyboard { action }, result);
        r
    }
    async fn alert(&mut self, action: AlertAction) -> BackendResult<Option<AlertInfo>> {
        self.begin();
        let r = self.inner.alert(action).await;
        let result = self.outcome(&r, |s| serde_json::to_value(s).unwrap_or(Value::Null));
        self.end(
            Call::Alert {
                action: word(&action),
            },
            result,
        );
        r
    }
    async fn clipboard_read(&mut self) -> BackendResult<String> {
        self.begin();
        let r = self.inner.clipboard_read().await;
        let result = self.outcome(&r, |s| Value::String(s.clone()));
        self.end(Call::ClipboardRead, result);
        r
    }
    async fn clipboard_write(&mut self, text: &str) -> BackendResult<()> {
        let call = Call::ClipboardWrite {
            text: text.to_string(),
        };
        self.unit(call, async |b| b.clipboard_write(text).await)
            .await
    }
    async fn screenshot(&mut self) -> BackendResult<Vec<u8>> {
        self.begin();
        let r = self.inner.screenshot().await;
        let result = match &r {
            Ok(png) => CallResult::Ok(self.store(png.clone(), true)),
            Err(e) => self.error(e),
        };
        self.end(Call::Screenshot, result);
        r
    }
    async fn other(&mut self, command: &str, positionals: &[String]) -> BackendResult<Value> {
        self.begin();
        let r = self.inner.other(command, positionals).await;
        let result = self.outcome(&r, Value::clone);
        let call = Call::Other {
            command: command.to_string(),
            positionals: positionals.to_vec(),
        };
        self.end(call, result);
        r
    }
    fn location(&self) -> Value {
        self.inner.location()
    }
    fn resumes_at_step(&self) -> bool {
        self.inner.resumes_at_step()
    }
    fn resume_refusal(&self) -> String {
        self.inner.resume_refusal()
    }
    /// The replay of this recording would not ask for it.
    fn screenshot_on_failure(&self) -> bool {
        false
    }
    fn use_redactor(&mut self, redactor: &Redactor) {
        if self.redactor != *redactor {
            self.redactor = redactor.clone();
        }
        self.inner.use_redactor(redactor);
    }
    fn touch_point(
        &self,
        tree: &crate::core::tree::Snapshot,
        node: usize,
        target: &str,
        action: &str,
    ) -> Result<Point, crate::core::backend::TouchRefusal> {
        self.inner.touch_point(tree, node, target, action)
    }
}

/// A unit enum's serde name (`app-switcher`, `accept`).
pub(super) fn word<T: serde::Serialize>(v: &T) -> String {
    serde_json::to_value(v)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default()
}
