//! The fixture's files as serde records (schemas in docs/schemas/recorded-*.schema.json):
//!
//! ```text
//! DIR/manifest.json                the backend recorded on, and the session logs, primary first
//! DIR/session-<n>.jsonl            line 1: SessionHeader; then one CallRecord per backend call
//! DIR/observations/<sha256>.json   a tree capture (RecordedCapture), redacted as the journal is
//! DIR/observations/<sha256>.png    a screenshot
//! DIR/golden.txt                   `ad test --record-fixture`: the normalized transcript
//! ```
//!
//! Everything a replay compares (calls, results, observation hashes, device clock) is a pure
//! function of what the device did; the only wall-clock time is the header's `createdAt`.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::core::backend::{Direction, GesturePlan, KeyboardAction};
use crate::core::tree::{Node, Point, Rect};

/// The fixture format's version (`manifest.json`, every session header).
pub const FIXTURE_VERSION: u32 = 1;

/// `manifest.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Manifest {
    pub fixture_version: u32,
    /// The backend the fixture was recorded on (`sim`, `web`, …): what a replay reports.
    pub backend: String,
    /// The platform that backend presented.
    pub platform: String,
    /// One entry per recorded session, ordered by first-call order (the primary session first).
    pub sessions: Vec<ManifestSession>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ManifestSession {
    /// The log file, relative to the fixture folder (`session-1.jsonl`).
    pub file: String,
    /// The session name when recorded (live names may differ: replay binds by first-call order).
    pub session: String,
    pub first_call: u64,
    pub calls: u64,
}

/// The first line of a session log.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SessionHeader {
    pub fixture_version: u32,
    /// The session name when recorded.
    pub session: String,
    /// The order number, across all sessions of the recording, of this session's first backend
    /// call: replay binds live sessions to logs in this order.
    pub first_call: u64,
    /// When the session was created (UTC, RFC 3339). Informative only: never compared.
    pub created_at: String,
    pub backend: String,
    pub platform: String,
    /// The device clock (ms) when the session was created.
    pub start_clock: u64,
    /// Device clock readings taken before the first call, in order (omitted when every one was
    /// `startClock`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub reads: Vec<u64>,
    /// Whether the recorded backend can resume a run at a later step: a replay reports the
    /// divergence's resume as the recorded run did (omitted when it cannot).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub resumes_at_step: bool,
}

/// One backend call of a session log.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CallRecord {
    /// 1-based position in its session.
    pub n: u64,
    pub call: Call,
    pub result: CallResult,
    /// The device clock (ms) right after the call returned.
    pub clock: u64,
    /// Device clock readings taken after this call and before the next, in order (omitted when
    /// every one was `clock`, as on the simulator's virtual clock).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub reads_after: Vec<u64>,
    /// Where the session stood after the call, when that changed (`{app, screen}` on the sim).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub location: Option<Value>,
}

/// A backend call and its arguments (texts redacted as the journal redacts them).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(
    tag = "kind",
    rename_all = "camelCase",
    rename_all_fields = "camelCase",
    deny_unknown_fields
)]
pub enum Call {
    Launch {
        app: String,
        relaunch: bool,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        url: Option<String>,
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        args: Vec<String>,
    },
    Close {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        app: Option<String>,
    },
    Capture,
    Tap {
        at: Point,
        count: u32,
        interval_ms: u64,
        hold_ms: u64,
        double_tap: bool,
        button: String,
    },
    LongPress {
        at: Point,
        duration_ms: u64,
    },
    Hover {
        at: Point,
    },
    Focus {
        at: Point,
    },
    Fill {
        at: Point,
        text: String,
        delay_ms: u64,
    },
    TypeText {
        text: String,
        delay_ms: u64,
    },
    Scroll {
        direction: Direction,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        amount: Option<f64>,
    },
    Gesture {
        plan: GesturePlan,
    },
    /// `back`, `home`, `app-switcher`.
    PressKey {
        key: String,
    },
    Keyboard {
        action: KeyboardAction,
    },
    /// `get`, `accept`, `dismiss`.
    Alert {
        action: String,
    },
    ClipboardRead,
    ClipboardWrite {
        text: String,
    },
    Screenshot,
    Other {
        command: String,
        positionals: Vec<String>,
    },
    /// Device time let pass (a poll interval, `wait 500`).
    Sleep {
        ms: u64,
    },
}

impl Call {
    /// A call that only looks at the device or lets time pass (a capture, a screenshot, a
    /// sleep): it never changes what the app shows, so a recording that makes only such calls
    /// after a point holds no answer of the app to anything done after that point.
    pub fn only_observes(&self) -> bool {
        matches!(self, Call::Capture | Call::Screenshot | Call::Sleep { .. })
    }

    /// One line for messages: the kind and its arguments as JSON.
    pub fn describe(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }
}

/// What the device answered.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub enum CallResult {
    /// The call's value (`null` for none; `{"observation": sha256}` for a capture or a
    /// screenshot, whose bytes are in `observations/`).
    Ok(Value),
    Error(CallError),
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CallError {
    pub code: String,
    pub message: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hint: Option<String>,
    /// The request may or may not have reached the device (`action_result: unknown`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub transport: bool,
}

/// `observations/<sha256>.json`: one tree capture as the backend returned it (node texts
/// redacted).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RecordedCapture {
    pub roots: Vec<Node>,
    pub viewport: Rect,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub app: Option<String>,
}

/// The log file of the `n`th session (1-based, in first-call order).
pub fn session_file_name(n: usize) -> String {
    format!("session-{n}.jsonl")
}

/// An observation's file, relative to the fixture folder.
pub fn observation_path(sha256: &str, png: bool) -> String {
    format!("observations/{sha256}.{}", if png { "png" } else { "json" })
}
