//! The device interface every backend implements, at the level a real device offers: app
//! lifecycle, accessibility-tree capture, touches at points, text input, scrolling and gestures,
//! system keys, keyboard and alert status/actions, clipboard and screenshots, plus the device
//! clock. Selector resolution, waiting, identity verification, ref frames and journaling live in
//! the interpreter, so every backend gets them for free.

use std::future::Future;

use serde::Serialize;
use serde_json::Value;

use crate::core::records::error_codes;
pub use crate::core::records::SetupProblem;
use crate::core::tree::{Node, Point, Rect, Snapshot};

/// A gesture plan's kind ([`GesturePlan::kind`]), a direction and a system key are the
/// registry's: one type each, from the script's words to the device.
pub use ad_compiler::registry::{Direction, GestureKind, SystemKey};

/// The code a backend rejects a page the run may not show with (the web's URL policy): the
/// script asked for it, so the interpreter reports a script error, not a divergence.
pub const LOCAL_URL_REFUSED: &str = error_codes::LOCAL_URL_REFUSED;

/// A backend call that did not succeed.
#[derive(Debug, Clone, PartialEq)]
pub enum BackendError {
    /// The device definitively refused the request; nothing happened (`action_result: rejected`).
    Rejected {
        code: String,
        message: String,
        hint: Option<String>,
    },
    /// The request may or may not have reached the device (`action_result: unknown`); never
    /// retried automatically.
    Transport { message: String },
    /// The backend could not start (its browser, agent-device, fixture or app model): not a
    /// step failure. The run ends as a set-up error (exit 2) with no divergence report.
    Unavailable(SetupProblem),
    /// A stop request (Ctrl-C, SIGTERM) cancelled the call before it answered.
    Interrupted { message: String },
}

impl BackendError {
    pub fn rejected(code: &str, message: impl Into<String>) -> Self {
        BackendError::Rejected {
            code: code.into(),
            message: message.into(),
            hint: None,
        }
    }
    pub fn with_hint(self, h: impl Into<String>) -> Self {
        match self {
            BackendError::Rejected { code, message, .. } => BackendError::Rejected {
                code,
                message,
                hint: Some(h.into()),
            },
            other => other,
        }
    }
    /// The backend `backend` could not start: `problem`, fixed by `fix`.
    pub fn unavailable(backend: &str, problem: impl Into<String>, fix: Option<&str>) -> Self {
        BackendError::Unavailable(SetupProblem::new(backend, problem, fix))
    }
    /// The call was cancelled by the stop request `signal`.
    pub fn interrupted(signal: &str) -> Self {
        BackendError::Interrupted {
            message: format!("interrupted by {signal} while waiting for the device"),
        }
    }
    pub fn code(&self) -> &str {
        match self {
            BackendError::Rejected { code, .. } => code,
            BackendError::Transport { .. } => error_codes::COMMAND_FAILED,
            BackendError::Unavailable(_) => SetupProblem::CODE,
            BackendError::Interrupted { .. } => error_codes::INTERRUPTED,
        }
    }
    pub fn message(&self) -> &str {
        match self {
            BackendError::Rejected { message, .. }
            | BackendError::Transport { message }
            | BackendError::Interrupted { message } => message,
            BackendError::Unavailable(p) => &p.problem,
        }
    }
    pub fn hint(&self) -> Option<&str> {
        match self {
            BackendError::Rejected { hint, .. } => hint.as_deref(),
            BackendError::Unavailable(p) => p.fix.as_deref(),
            BackendError::Transport { .. } | BackendError::Interrupted { .. } => None,
        }
    }
}

impl From<SetupProblem> for BackendError {
    fn from(problem: SetupProblem) -> Self {
        BackendError::Unavailable(problem)
    }
}

pub type BackendResult<T> = Result<T, BackendError>;

/// One capture of the screen.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Capture {
    /// Top-level nodes (usually one application node).
    pub roots: Vec<Node>,
    pub viewport: Rect,
    /// The foreground app, when one is running.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub app: Option<String>,
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct LaunchOptions {
    pub relaunch: bool,
    /// An optional URL / deep link (`open app url`).
    pub url: Option<String>,
    /// Arguments the app is launched with (a Maestro flow's `launchApp.arguments`; agent-device's
    /// `launchArgs`). Backends that start no app process ignore them.
    pub args: Vec<String>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct TapOptions {
    pub count: u32,
    pub interval_ms: u64,
    pub hold_ms: u64,
    pub double_tap: bool,
    pub button: String,
}

impl Default for TapOptions {
    fn default() -> Self {
        TapOptions {
            count: 1,
            interval_ms: 0,
            hold_ms: 0,
            double_tap: false,
            button: "primary".into(),
        }
    }
}

#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Serialize, serde::Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum KeyboardAction {
    Status,
    Dismiss,
    Enter,
}

#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize, schemars::JsonSchema)]
pub struct KeyboardState {
    pub visible: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum AlertAction {
    Get,
    Accept,
    Dismiss,
}

#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize, schemars::JsonSchema)]
pub struct AlertInfo {
    pub title: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    pub buttons: Vec<String>,
}

/// A structured gesture (`swipe`, `gesture …`): pointer paths in device points.
#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct GesturePlan {
    /// What the backend plays: `swipe` (pans and flings are swipes), `drag`, `pinch`, `rotate`
    /// or `transform`; written as its word.
    #[serde(with = "gesture_word")]
    #[schemars(with = "String")]
    pub kind: GestureKind,
    /// One path per pointer: points visited in order.
    pub pointers: Vec<Vec<Point>>,
    pub duration_ms: u64,
    pub repeat: u32,
    /// What a `gesture` step asked for, for a device that plays gestures by intent rather than
    /// by pointer path (the agent-device bridge). Not journaled: the step's words are.
    #[serde(skip)]
    pub intent: Option<GestureIntent>,
}

/// A `gesture` step in agent-device's terms (its `gesture` request), with the points `ad`
/// resolved; a value the script left out is `None` (the device applies its default or refuses).
#[derive(Debug, Clone, PartialEq)]
pub enum GestureIntent {
    /// `pointers` (1 or 2) fingers moving by `delta` from `origin`.
    Pan {
        origin: Point,
        delta: Point,
        duration_ms: Option<u64>,
        pointers: Option<u32>,
    },
    Fling {
        direction: Direction,
        origin: Point,
        distance: Option<f64>,
    },
    /// A named swipe (`left`, `right`, `left-edge`, `right-edge`).
    Swipe { preset: String },
    Pinch {
        scale: Option<f64>,
        origin: Option<Point>,
    },
    Rotate {
        degrees: Option<f64>,
        origin: Option<Point>,
    },
    Transform {
        origin: Point,
        delta: Point,
        scale: Option<f64>,
        degrees: Option<f64>,
        duration_ms: Option<u64>,
    },
    /// Press at `from` (a resolved and verified element), hold, move to `to`, release.
    Drag {
        from: Point,
        to: Point,
        source_hold_ms: Option<u64>,
        move_ms: Option<u64>,
        destination_hold_ms: Option<u64>,
    },
}

/// The device interface. Methods take `&mut self`: one backend drives one session at a time.
///
/// The device clock (`now_ms`, `sleep`) is the backend's: the simulator's is virtual, so waits
/// and timeouts are exact and instant; a real device's is the wall clock.
pub trait Backend: Send {
    /// Short name for reports (`sim`).
    fn name(&self) -> &str;
    /// The platform the backend presents (`ios`, `android`, …).
    fn platform(&self) -> &str;
    /// Device time in milliseconds since the session started.
    fn now_ms(&self) -> u64;
    /// Lets device time pass (a poll interval, a `wait 500`).
    fn sleep(&mut self, ms: u64) -> impl Future<Output = ()> + Send;
    /// The pause between two looks at the screen while waiting for it: at most `ms`, less when
    /// the device can tell its screen may have changed (the web backend hears the page's own
    /// events); true when it returned for a change. By default a plain [`Backend::sleep`].
    fn poll_wait(&mut self, ms: u64) -> impl Future<Output = bool> + Send {
        async move {
            self.sleep(ms).await;
            false
        }
    }

    fn launch(
        &mut self,
        app: &str,
        options: &LaunchOptions,
    ) -> impl Future<Output = BackendResult<()>> + Send;
    /// Closes `app`, or the foreground app.
    fn close(&mut self, app: Option<&str>) -> impl Future<Output = BackendResult<()>> + Send;
    fn capture(&mut self) -> impl Future<Output = BackendResult<Capture>> + Send;

    fn tap(
        &mut self,
        at: Point,
        options: &TapOptions,
    ) -> impl Future<Output = BackendResult<()>> + Send;
    fn long_press(
        &mut self,
        at: Point,
        duration_ms: u64,
    ) -> impl Future<Output = BackendResult<()>> + Send;
    fn hover(&mut self, at: Point) -> impl Future<Output = BackendResult<()>> + Send;
    /// Focuses the element at a point (`focus x y`).
    fn focus(&mut self, at: Point) -> impl Future<Output = BackendResult<()>> + Send;
    /// Focuses the field at a point and replaces its text.
    fn fill(
        &mut self,
        at: Point,
        text: &str,
        delay_ms: u64,
    ) -> impl Future<Output = BackendResult<()>> + Send;
    /// Types into the focused element.
    fn type_text(
        &mut self,
        text: &str,
        delay_ms: u64,
    ) -> impl Future<Output = BackendResult<()>> + Send;
    /// Scrolls the frontmost scrollable region by a fraction of the viewport (default 0.5).
    fn scroll(
        &mut self,
        direction: Direction,
        amount: Option<f64>,
    ) -> impl Future<Output = BackendResult<()>> + Send;
    fn gesture(&mut self, plan: &GesturePlan) -> impl Future<Output = BackendResult<()>> + Send;
    fn press_key(&mut self, key: SystemKey) -> impl Future<Output = BackendResult<()>> + Send;
    fn keyboard(
        &mut self,
        action: KeyboardAction,
    ) -> impl Future<Output = BackendResult<KeyboardState>> + Send;
    /// The current alert (`Get`), or accept/dismiss it. `None` when no alert is shown.
    fn alert(
        &mut self,
        action: AlertAction,
    ) -> impl Future<Output = BackendResult<Option<AlertInfo>>> + Send;
    fn clipboard_read(&mut self) -> impl Future<Output = BackendResult<String>> + Send;
    fn clipboard_write(&mut self, text: &str) -> impl Future<Output = BackendResult<()>> + Send;
    /// PNG bytes of the screen.
    fn screenshot(&mut self) -> impl Future<Output = BackendResult<Vec<u8>>> + Send;
    /// Anything else the device understands (`orientation`, `settings`, `appstate`, …): the
    /// command word and its interpolated positionals. Unknown commands are `Rejected`.
    fn other(
        &mut self,
        command: &str,
        positionals: &[String],
    ) -> impl Future<Output = BackendResult<Value>> + Send;
    /// Where the session stands, for handoff results (`{app, screen}` for the simulator).
    fn location(&self) -> Value {
        Value::Null
    }
    /// Can a later run continue this run's session at a later step (`--from N`)? The sim keeps
    /// its state in a file and agent-device's daemon keeps the device's session; a browser (and
    /// a replayed fixture) ends with the run, so reports offer no resume there.
    fn resumes_at_step(&self) -> bool {
        false
    }
    /// Why a later run cannot continue this run at a step, when [`Backend::resumes_at_step`]
    /// says it cannot: the divergence report's `resume.reason` (agent-device's own field).
    fn resume_refusal(&self) -> String {
        format!("the {} backend's session ends with the run", self.name())
    }
    /// Does a failed step's report get a screenshot of the screen (`<run>/failure-step-NNN.png`)?
    /// A replayed fixture serves only the calls it recorded, so neither it nor a recording asks.
    fn screenshot_on_failure(&self) -> bool {
        true
    }
    /// The run's current redaction of injected values, given before each capture and action:
    /// a recorded fixture redacts (and a replay compares) with exactly what the journal uses.
    fn use_redactor(&mut self, _redactor: &crate::core::vars::Redactor) {}
    /// Where an action on element `node` of `tree` (resolved and verified) touches it, or why
    /// the device would not act on it: `target` is the step's target as written (`@e4`, a
    /// selector), `action` its command word. By default the centre of its frame; the
    /// agent-device bridge applies agent-device's own rules ([`crate::backends::agent_device::touch`]).
    fn touch_point(
        &self,
        tree: &Snapshot,
        node: usize,
        _target: &str,
        _action: &str,
    ) -> Result<Point, TouchRefusal> {
        Ok(tree.nodes[node]
            .rect
            .map(|r| r.center())
            .unwrap_or(Point { x: 0.0, y: 0.0 }))
    }
}

/// A device's refusal to act on an element (agent-device's `COMMAND_FAILED`): its message, its
/// hint, a reason word, and the nodes (of the same capture) that stand in the way.
#[derive(Debug, Clone, PartialEq)]
pub struct TouchRefusal {
    pub message: String,
    pub hint: String,
    pub reason: &'static str,
    pub competitors: Vec<usize>,
}

/// A [`GesturePlan`]'s kind in records: the registry's word for it.
mod gesture_word {
    use ad_compiler::registry::GestureKind;

    pub fn serialize<S: serde::Serializer>(kind: &GestureKind, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(kind.word())
    }

    pub fn deserialize<'de, D: serde::Deserializer<'de>>(d: D) -> Result<GestureKind, D::Error> {
        let word = <String as serde::Deserialize>::deserialize(d)?;
        GestureKind::from_word(&word)
            .ok_or_else(|| serde::de::Error::custom(format!("unknown gesture kind `{word}`")))
    }
}
