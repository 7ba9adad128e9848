//! The session daemon's answer to a request (`ad session … --json`), a run record like the
//! others so that the session layer above and its clients share one schema.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The daemon's answer (`ad session … --json`; schema `docs/schemas/session-response`).
#[derive(Debug, Clone, Default, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Response {
    pub ok: bool,
    pub session: String,
    pub command: String,
    /// Does the session still exist (in the daemon's store) after this request?
    pub session_active: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lifecycle: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<Value>,
    /// The published script.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<PathBuf>,
    /// How many actions the published script holds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub actions: Option<usize>,
    /// `replay`: how many steps ran.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replayed: Option<usize>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sessions: Option<Vec<SessionInfo>>,
    /// `snapshot`: the captured nodes with their refs (redacted like every record).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nodes: Option<Value>,
    /// A script command refused as `ad check` would refuse its line: the line as the readers
    /// read it (the command's words, quoted as the writer quotes them) ...
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line: Option<String>,
    /// ... and each error on it (code, message, label, help, place in `line`). Nothing was sent.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub findings: Vec<LineFinding>,
    /// The daemon's own time on this request, in ms.
    #[serde(default)]
    pub daemon_ms: f64,
}

/// A session as `list` shows it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SessionInfo {
    pub name: String,
    pub backend: String,
    pub lifecycle: String,
    pub recorded_actions: usize,
}

/// One error `ad check` reports on a session command's line: its code, message, label and help
/// as `ad check` words them, placed by byte offsets in the line's text.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct LineFinding {
    pub code: String,
    pub message: String,
    /// The primary span, in bytes of the line.
    pub start: usize,
    pub end: usize,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub help: Option<String>,
}
