//! Typed requests and responses for the few DevTools domains the web backend uses (Target,
//! Page, Accessibility, DOMSnapshot, DOM, Runtime, Input). Each request names its method and the
//! shape of its result; fields the backend does not read are left out.

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// A protocol command: its method name and the result it answers with.
pub trait Command: Serialize {
    const METHOD: &'static str;
    type Response: DeserializeOwned;
}

/// A result with no fields the backend reads.
#[derive(Debug, Deserialize)]
pub struct Empty {}

macro_rules! command {
    ($ty:ty, $method:literal, $resp:ty) => {
        impl Command for $ty {
            const METHOD: &'static str = $method;
            type Response = $resp;
        }
    };
}

// ── Target ──────────────────────────────────────────────────────────────────────────────────

/// An off-the-record context: cookies, storage and history stay in memory, never in the
/// profile on disk.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CreateBrowserContext {
    pub dispose_on_detach: bool,
}
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CreatedBrowserContext {
    pub browser_context_id: String,
}
command!(
    CreateBrowserContext,
    "Target.createBrowserContext",
    CreatedBrowserContext
);

/// Ends a context made by [`CreateBrowserContext`]: its pages close, its cookies and storage go.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DisposeBrowserContext<'a> {
    pub browser_context_id: &'a str,
}
command!(
    DisposeBrowserContext<'_>,
    "Target.disposeBrowserContext",
    Empty
);

/// The contexts made by [`CreateBrowserContext`] that still exist.
#[derive(Serialize)]
pub struct GetBrowserContexts {}
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BrowserContexts {
    pub browser_context_ids: Vec<String>,
}
command!(
    GetBrowserContexts,
    "Target.getBrowserContexts",
    BrowserContexts
);

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CreateTarget<'a> {
    pub url: &'a str,
    pub browser_context_id: &'a str,
}
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CreatedTarget {
    pub target_id: String,
}
command!(CreateTarget<'_>, "Target.createTarget", CreatedTarget);

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AttachToTarget<'a> {
    pub target_id: &'a str,
    /// One connection, sessions told apart by `sessionId`.
    pub flatten: bool,
}
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Attached {
    pub session_id: String,
}
command!(AttachToTarget<'_>, "Target.attachToTarget", Attached);

// ── Page ────────────────────────────────────────────────────────────────────────────────────

#[derive(Serialize)]
pub struct PageEnable {}
command!(PageEnable, "Page.enable", Empty);

#[derive(Serialize)]
pub struct NetworkEnable {}
command!(NetworkEnable, "Network.enable", Empty);

#[derive(Serialize)]
pub struct SetLifecycleEventsEnabled {
    pub enabled: bool,
}
command!(
    SetLifecycleEventsEnabled,
    "Page.setLifecycleEventsEnabled",
    Empty
);

#[derive(Serialize)]
pub struct Navigate<'a> {
    pub url: &'a str,
}
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Navigated {
    pub frame_id: String,
    #[serde(default)]
    pub loader_id: Option<String>,
    #[serde(default)]
    pub error_text: Option<String>,
}
command!(Navigate<'_>, "Page.navigate", Navigated);

#[derive(Serialize)]
pub struct GetNavigationHistory {}
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct NavigationHistory {
    pub current_index: usize,
    pub entries: Vec<NavigationEntry>,
}
#[derive(Deserialize)]
pub struct NavigationEntry {
    pub id: i64,
    pub url: String,
}
command!(
    GetNavigationHistory,
    "Page.getNavigationHistory",
    NavigationHistory
);

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct NavigateToHistoryEntry {
    pub entry_id: i64,
}
command!(NavigateToHistoryEntry, "Page.navigateToHistoryEntry", Empty);

#[derive(Serialize)]
pub struct HandleJavaScriptDialog {
    pub accept: bool,
}
command!(HandleJavaScriptDialog, "Page.handleJavaScriptDialog", Empty);

#[derive(Serialize)]
pub struct CaptureScreenshot {
    pub format: &'static str,
}
#[derive(Deserialize)]
pub struct Screenshot {
    /// Base64 PNG.
    pub data: String,
}
command!(CaptureScreenshot, "Page.captureScreenshot", Screenshot);

#[derive(Serialize)]
pub struct GetLayoutMetrics {}
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LayoutMetrics {
    pub css_layout_viewport: LayoutViewport,
}
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LayoutViewport {
    pub client_width: f64,
    pub client_height: f64,
}
command!(GetLayoutMetrics, "Page.getLayoutMetrics", LayoutMetrics);

// ── Accessibility ───────────────────────────────────────────────────────────────────────────

#[derive(Serialize)]
pub struct GetFullAxTree {}
#[derive(Deserialize)]
pub struct FullAxTree {
    pub nodes: Vec<AxNode>,
}
command!(GetFullAxTree, "Accessibility.getFullAXTree", FullAxTree);

/// One accessibility node as Chromium reports it.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AxNode {
    pub node_id: String,
    #[serde(default)]
    pub ignored: bool,
    #[serde(default)]
    pub role: Option<AxValue>,
    #[serde(default)]
    pub name: Option<AxValue>,
    #[serde(default)]
    pub value: Option<AxValue>,
    #[serde(default)]
    pub properties: Vec<AxProperty>,
    #[serde(default)]
    pub child_ids: Vec<String>,
    #[serde(default)]
    pub parent_id: Option<String>,
    #[serde(default, rename = "backendDOMNodeId")]
    pub backend_dom_node_id: Option<i64>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct AxValue {
    #[serde(default)]
    pub value: Option<Value>,
}

impl AxValue {
    /// The value as text (strings as they are, numbers and booleans printed).
    pub fn text(&self) -> Option<String> {
        match self.value.as_ref()? {
            Value::String(s) => Some(s.clone()),
            Value::Null => None,
            other => Some(other.to_string()),
        }
    }
}

#[derive(Debug, Clone, Deserialize)]
pub struct AxProperty {
    pub name: String,
    pub value: AxValue,
}

// ── DOMSnapshot ─────────────────────────────────────────────────────────────────────────────

/// The whole document's layout in one call: every node's attributes and box, instead of one
/// `DOM.getBoxModel` per node.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CaptureSnapshot {
    pub computed_styles: Vec<String>,
    #[serde(rename = "includeDOMRects")]
    pub include_dom_rects: bool,
}
#[derive(Deserialize)]
pub struct DomSnapshot {
    pub documents: Vec<SnapshotDocument>,
    pub strings: Vec<String>,
}
command!(CaptureSnapshot, "DOMSnapshot.captureSnapshot", DomSnapshot);

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SnapshotDocument {
    pub nodes: SnapshotNodes,
    pub layout: SnapshotLayout,
    #[serde(default)]
    pub scroll_offset_x: f64,
    #[serde(default)]
    pub scroll_offset_y: f64,
    /// The document URL (a string-table index).
    #[serde(rename = "documentURL", default)]
    pub document_url: i64,
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
pub struct SnapshotNodes {
    #[serde(default)]
    pub backend_node_id: Vec<i64>,
    /// Per node: name, value, name, value… as string-table indices.
    #[serde(default)]
    pub attributes: Vec<Vec<i64>>,
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
pub struct SnapshotLayout {
    #[serde(default)]
    pub node_index: Vec<usize>,
    /// `[x, y, width, height]` in document coordinates.
    #[serde(default)]
    pub bounds: Vec<Vec<f64>>,
    /// The scrollable size (present with `includeDOMRects`).
    #[serde(default)]
    pub scroll_rects: Vec<Vec<f64>>,
    /// The client (visible) size.
    #[serde(default)]
    pub client_rects: Vec<Vec<f64>>,
}

// ── DOM ─────────────────────────────────────────────────────────────────────────────────────

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ScrollIntoViewIfNeeded {
    pub backend_node_id: i64,
}
command!(ScrollIntoViewIfNeeded, "DOM.scrollIntoViewIfNeeded", Empty);

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct GetBoxModel {
    pub backend_node_id: i64,
}
#[derive(Deserialize)]
pub struct BoxModelResult {
    pub model: BoxModel,
}
#[derive(Deserialize)]
pub struct BoxModel {
    /// The border quad: four corners, x y each, in viewport coordinates.
    pub border: Vec<f64>,
}
command!(GetBoxModel, "DOM.getBoxModel", BoxModelResult);

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Focus {
    pub backend_node_id: i64,
}
command!(Focus, "DOM.focus", Empty);

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ResolveNode {
    pub backend_node_id: i64,
}
#[derive(Deserialize)]
pub struct Resolved {
    pub object: RemoteObject,
}
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RemoteObject {
    #[serde(default)]
    pub object_id: Option<String>,
    #[serde(default)]
    pub value: Option<Value>,
}
command!(ResolveNode, "DOM.resolveNode", Resolved);

// ── Runtime ─────────────────────────────────────────────────────────────────────────────────

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CallFunctionOn<'a> {
    pub function_declaration: &'a str,
    pub object_id: &'a str,
    pub arguments: Vec<CallArgument>,
    pub return_by_value: bool,
}
#[derive(Serialize)]
pub struct CallArgument {
    pub value: Value,
}
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Evaluated {
    pub result: RemoteObject,
    #[serde(default)]
    pub exception_details: Option<Value>,
}
command!(CallFunctionOn<'_>, "Runtime.callFunctionOn", Evaluated);

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Evaluate<'a> {
    pub expression: &'a str,
    pub return_by_value: bool,
    pub await_promise: bool,
}
command!(Evaluate<'_>, "Runtime.evaluate", Evaluated);

// ── Input ───────────────────────────────────────────────────────────────────────────────────

#[derive(Serialize, Clone)]
#[serde(rename_all = "camelCase")]
pub struct DispatchMouseEvent {
    #[serde(rename = "type")]
    pub kind: &'static str,
    pub x: f64,
    pub y: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub button: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub buttons: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub click_count: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub delta_x: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub delta_y: Option<f64>,
}
command!(DispatchMouseEvent, "Input.dispatchMouseEvent", Empty);

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DispatchKeyEvent {
    #[serde(rename = "type")]
    pub kind: &'static str,
    pub key: &'static str,
    pub code: &'static str,
    pub windows_virtual_key_code: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub text: Option<&'static str>,
}
command!(DispatchKeyEvent, "Input.dispatchKeyEvent", Empty);

#[derive(Serialize)]
pub struct InsertText<'a> {
    pub text: &'a str,
}
command!(InsertText<'_>, "Input.insertText", Empty);
