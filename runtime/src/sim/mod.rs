//! The embedded simulated device ("sim"): runs hand-written app models (docs/sim-model.md)
//! deterministically on a virtual clock. Waits and timeouts cost no wall time; only an explicit
//! `stallMs` effect blocks for real.

pub mod model;
mod png;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

pub use model::{AppModel, ModelError, ModelResolver};
use model::{Condition, Effect, Effects, Element};

use crate::backend::*;
use crate::tree::{normalize_type, Node, Point, Rect};

const STATUS_BAR: f64 = 47.0;
const NAV_BAR: f64 = 44.0;
const ROW: f64 = 44.0;
const KEYBOARD: f64 = 291.0;

/// One screen on the navigation stack.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct ScreenInstance {
    pub screen: String,
    pub entered_at: u64,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Timer {
    pub due: u64,
    pub seq: u64,
    pub effects: Effects,
}

/// A running app.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct AppState {
    pub model_path: PathBuf,
    pub stack: Vec<ScreenInstance>,
    pub values: BTreeMap<String, String>,
    pub selected: BTreeMap<String, bool>,
    pub shown: BTreeMap<String, bool>,
    pub vars: BTreeMap<String, String>,
    pub scroll: BTreeMap<String, f64>,
    /// Keys of secure text fields the session has focused or filled (masked when persisted).
    #[serde(default)]
    pub secure: std::collections::BTreeSet<String>,
    /// In a persisted session: the SHA-256 of each masked secure field's text, so a resumed
    /// session still evaluates the model's conditions on it without holding it in clear.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub secure_digests: BTreeMap<String, String>,
    pub focused: Option<String>,
    pub keyboard: bool,
    pub alert: Option<String>,
    pub timers: Vec<Timer>,
    pub background: bool,
}

/// Everything the device holds (serializable, so a live session survives between runs).
#[derive(Debug, Clone, Serialize, Deserialize, Default)]
pub struct SimState {
    pub now_ms: u64,
    pub foreground: Option<String>,
    pub apps: BTreeMap<String, AppState>,
    pub clipboard: String,
    pub orientation: Option<String>,
    pub seq: u64,
    /// Actions the device performed, oldest first (bounded), for tests and `location`.
    pub last_action: Option<String>,
}

/// The simulated device.
pub struct Sim {
    resolver: ModelResolver,
    models: BTreeMap<String, Arc<AppModel>>,
    paths: BTreeMap<String, PathBuf>,
    state: SimState,
    platform: String,
}

/// What one capture laid out: nodes plus the hit-test list.
struct Laid {
    roots: Vec<Node>,
    hits: Vec<Hit>,
    keyboard: Option<Rect>,
    alert: Option<Rect>,
}

#[derive(Debug, Clone)]
struct Hit {
    rect: Rect,
    clip: Option<Rect>,
    depth: usize,
    parent: Option<usize>,
    /// Element path from the screen (`None` for chrome: nav bar, alert, keyboard).
    path: Option<Vec<usize>>,
    key: String,
    editable: bool,
    /// A secure text field (its text is never exposed).
    secure: bool,
    enabled: bool,
    /// Alert button index.
    alert_button: Option<usize>,
}

fn is_editable_type(kind: &str) -> bool {
    let n = normalize_type(kind);
    n.contains("textfield")
        || n.contains("securetextfield")
        || n.contains("searchfield")
        || n.contains("textview")
        || n.contains("textarea")
        || n == "search"
        || n.contains("edittext")
}

fn is_interactive_type(kind: &str) -> bool {
    matches!(
        normalize_type(kind).as_str(),
        "button"
            | "link"
            | "cell"
            | "switch"
            | "tab"
            | "menuitem"
            | "checkbox"
            | "radiobutton"
            | "slider"
    ) || is_editable_type(kind)
}

fn template(s: &str, vars: &BTreeMap<String, String>) -> String {
    if !s.contains("{{") {
        return s.to_string();
    }
    let mut out = String::new();
    let mut rest = s;
    while let Some(i) = rest.find("{{") {
        out.push_str(&rest[..i]);
        match rest[i + 2..].find("}}") {
            Some(j) => {
                let name = rest[i + 2..i + 2 + j].trim();
                out.push_str(vars.get(name).map(String::as_str).unwrap_or(""));
                rest = &rest[i + 2 + j + 2..];
            }
            None => {
                out.push_str(&rest[i..]);
                rest = "";
            }
        }
    }
    out.push_str(rest);
    out
}

/// `sha256:<hex>` of a secure field's text.
fn text_digest(text: &str) -> String {
    use sha2::Digest;
    let hash = sha2::Sha256::digest(text.as_bytes());
    let hex: String = hash.iter().map(|b| format!("{b:02x}")).collect();
    format!("sha256:{hex}")
}

/// Creates `dir` (and its parents); the last folder is owner-only.
fn create_private_dir(dir: &Path) -> std::io::Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::{DirBuilderExt, PermissionsExt};
        std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(dir)?;
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700))
    }
    #[cfg(not(unix))]
    std::fs::create_dir_all(dir)
}

/// Writes a new owner-only file (0600 from its creation: never readable by others, not even
/// briefly).
fn write_private(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    use std::io::Write;
    let _ = std::fs::remove_file(path);
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    let mut f = options.open(path)?;
    f.write_all(bytes)?;
    f.sync_all()
}

fn intersects(a: &Rect, b: &Rect) -> bool {
    a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height
}

impl Sim {
    pub fn new(resolver: ModelResolver) -> Sim {
        Sim {
            resolver,
            models: BTreeMap::new(),
            paths: BTreeMap::new(),
            state: SimState::default(),
            platform: "ios".into(),
        }
    }

    /// A sim with one model already known (tests, benchmarks).
    pub fn with_model(model: AppModel) -> Sim {
        let mut s = Sim::new(ModelResolver::default());
        if let Some(p) = &model.platform {
            s.platform = p.clone();
        }
        s.models.insert(model.app.clone(), Arc::new(model));
        s
    }

    pub fn state(&self) -> &SimState {
        &self.state
    }

    /// Restores a saved session (models are reloaded from their files).
    pub fn restore(&mut self, state: SimState) -> Result<(), ModelError> {
        for (app, a) in &state.apps {
            if !self.models.contains_key(app) {
                let m = AppModel::load(&a.model_path)?;
                self.models.insert(app.clone(), Arc::new(m));
                self.paths.insert(app.clone(), a.model_path.clone());
            }
        }
        self.state = state;
        Ok(())
    }

    /// The state as it may be persisted: secure fields masked as the device shows them (a
    /// device never exposes their text), and `redact` applied to what the screen does not show
    /// (the clipboard, the last action).
    pub fn persisted_state(&self, redact: &dyn Fn(&str) -> String) -> SimState {
        let mut state = self.state.clone();
        for app in state.apps.values_mut() {
            for key in &app.secure {
                if let Some(v) = app.values.get_mut(key) {
                    if !app.secure_digests.contains_key(key) {
                        app.secure_digests.insert(key.clone(), text_digest(v));
                    }
                    *v = "•".repeat(v.chars().count());
                }
            }
        }
        state.clipboard = redact(&state.clipboard);
        state.last_action = state.last_action.as_deref().map(redact);
        state
    }

    /// Saves the persisted form of the session state ([`Sim::persisted_state`]) to `path`:
    /// owner-only (folder 0700, file 0600), written to a temp file and renamed into place.
    pub fn save(&self, path: &Path, redact: &dyn Fn(&str) -> String) -> std::io::Result<()> {
        if let Some(d) = path.parent() {
            create_private_dir(d)?;
        }
        let tmp = path.with_extension("json.tmp");
        let bytes = serde_json::to_vec_pretty(&self.persisted_state(redact))?;
        write_private(&tmp, &bytes)?;
        std::fs::rename(tmp, path)
    }

    pub fn load_state(path: &Path) -> std::io::Result<SimState> {
        let bytes = std::fs::read(path)?;
        serde_json::from_slice(&bytes).map_err(std::io::Error::other)
    }

    fn fg(&self) -> BackendResult<(Arc<AppModel>, String)> {
        let app = self.state.foreground.clone().ok_or_else(|| {
            BackendError::rejected("COMMAND_FAILED", "no app is in the foreground")
                .with_hint("open the app first (`open \"<app id>\"`)")
        })?;
        let model = self.models.get(&app).cloned().ok_or_else(|| {
            BackendError::rejected("COMMAND_FAILED", format!("app {app} is not loaded"))
        })?;
        Ok((model, app))
    }

    fn app_mut(&mut self, app: &str) -> &mut AppState {
        self.state.apps.get_mut(app).expect("running app")
    }

    // ---- clock and timers -------------------------------------------------------------

    fn advance_to(&mut self, t: u64) -> BackendResult<()> {
        loop {
            let mut next: Option<(String, u64, u64)> = None;
            for (app, a) in &self.state.apps {
                for tm in &a.timers {
                    if tm.due <= t && next.as_ref().is_none_or(|n| (tm.due, tm.seq) < (n.1, n.2)) {
                        next = Some((app.clone(), tm.due, tm.seq));
                    }
                }
            }
            let Some((app, due, seq)) = next else { break };
            let a = self.app_mut(&app);
            let pos = a
                .timers
                .iter()
                .position(|tm| tm.due == due && tm.seq == seq)
                .expect("timer");
            let timer = a.timers.remove(pos);
            self.state.now_ms = self.state.now_ms.max(due);
            let model = self.models.get(&app).cloned().expect("model");
            // Effects from timers never fail the caller.
            let _ = self.run_effects(&model, &app, &timer.effects, &mut Vec::new());
        }
        self.state.now_ms = self.state.now_ms.max(t);
        Ok(())
    }

    fn sync(&mut self) {
        let now = self.state.now_ms;
        let _ = self.advance_to(now);
    }

    // ---- conditions and effects -------------------------------------------------------

    fn holds(&self, model: &AppModel, app: &str, c: &Condition) -> bool {
        let a = &self.state.apps[app];
        if let Some(v) = &c.values {
            for (k, want) in v {
                let holds = match a.secure_digests.get(k) {
                    // A resumed session's masked secure field: compare digests.
                    Some(digest) => *digest == text_digest(want),
                    None => a.values.get(k).map(String::as_str).unwrap_or("") == want,
                };
                if !holds {
                    return false;
                }
            }
        }
        if let Some(f) = &c.filled {
            if f.ids()
                .iter()
                .any(|k| a.values.get(*k).is_none_or(|v| v.is_empty()))
            {
                return false;
            }
        }
        if let Some(s) = &c.selected {
            if s.ids().iter().any(|k| a.selected.get(*k) != Some(&true)) {
                return false;
            }
        }
        if let Some(s) = &c.state {
            for (k, want) in s {
                if a.vars.get(k) != Some(want) {
                    return false;
                }
            }
        }
        if let Some(ids) = &c.shown {
            if ids.ids().iter().any(|k| !self.shown(model, app, k)) {
                return false;
            }
        }
        if let Some(n) = &c.not {
            if self.holds(model, app, n) {
                return false;
            }
        }
        if let Some(any) = &c.any {
            if !any.iter().any(|x| self.holds(model, app, x)) {
                return false;
            }
        }
        true
    }

    /// Is the element with this id (and every ancestor) shown on the current screen?
    fn shown(&self, model: &AppModel, app: &str, id: &str) -> bool {
        thread_local!(static DEPTH: std::cell::Cell<u32> = const { std::cell::Cell::new(0) });
        let depth = DEPTH.with(|d| d.get());
        if depth > 8 {
            return false;
        }
        DEPTH.with(|d| d.set(depth + 1));
        let result = (|| {
            let inst = self.state.apps[app].stack.last()?;
            let screen = model.screens.get(&inst.screen)?;
            fn find<'m>(
                model: &'m AppModel,
                els: &'m [Element],
                id: &str,
                path: &mut Vec<&'m Element>,
            ) -> bool {
                for e in els {
                    let e = resolve_include(model, e);
                    path.push(e);
                    if e.id.as_deref() == Some(id) || find(model, &e.children, id, path) {
                        return true;
                    }
                    path.pop();
                }
                false
            }
            let mut chain = Vec::new();
            if !find(model, &screen.elements, id, &mut chain) {
                return Some(false);
            }
            Some(chain.iter().all(|e| {
                let key = e.id.clone().unwrap_or_default();
                self.element_visible(model, app, e, &key, inst.entered_at)
            }))
        })()
        .unwrap_or(false);
        DEPTH.with(|d| d.set(depth));
        result
    }

    fn enter(
        &mut self,
        model: &AppModel,
        app: &str,
        screen: &str,
        mode: &str,
        log: &mut Vec<String>,
    ) -> BackendResult<()> {
        let now = self.state.now_ms;
        let a = self.app_mut(app);
        let inst = ScreenInstance {
            screen: screen.to_string(),
            entered_at: now,
        };
        match mode {
            "go" => a.stack.push(inst),
            "replace" => {
                a.stack.pop();
                a.stack.push(inst);
            }
            _ => a.stack = vec![inst],
        }
        a.focused = None;
        a.keyboard = false;
        log.push(format!("{mode} {screen}"));
        if let Some(fx) = model.screens.get(screen).and_then(|s| s.on.get("appear")) {
            let fx = fx.clone();
            self.run_effects(model, app, &fx, log)?;
        }
        Ok(())
    }

    fn group_of(model: &AppModel, screen: &str, key: &str) -> Option<(String, Vec<String>)> {
        fn walk(
            model: &AppModel,
            els: &[Element],
            key: &str,
            groups: &mut BTreeMap<String, Vec<String>>,
            found: &mut Option<String>,
        ) {
            for e in els {
                let e = resolve_include(model, e);
                if let (Some(g), Some(id)) = (&e.group, &e.id) {
                    groups.entry(g.clone()).or_default().push(id.clone());
                    if id == key {
                        *found = Some(g.clone());
                    }
                }
                walk(model, &e.children, key, groups, found);
            }
        }
        let s = model.screens.get(screen)?;
        let mut groups = BTreeMap::new();
        let mut found = None;
        walk(model, &s.elements, key, &mut groups, &mut found);
        let g = found?;
        let members = groups.remove(&g).unwrap_or_default();
        Some((g, members))
    }

    fn run_effects(
        &mut self,
        model: &AppModel,
        app: &str,
        fx: &Effects,
        log: &mut Vec<String>,
    ) -> BackendResult<()> {
        for e in fx.list() {
            self.run_effect(model, app, e, log)?;
        }
        Ok(())
    }

    fn run_effect(
        &mut self,
        model: &AppModel,
        app: &str,
        e: &Effect,
        log: &mut Vec<String>,
    ) -> BackendResult<()> {
        if let Some(msg) = &e.fail {
            return Err(BackendError::rejected("COMMAND_FAILED", msg.clone()));
        }
        if let Some(msg) = &e.transport_error {
            return Err(BackendError::Transport {
                message: msg.clone(),
            });
        }
        if let Some(ms) = e.stall_ms {
            std::thread::sleep(std::time::Duration::from_millis(ms));
        }
        if let Some(c) = &e.condition {
            let branch = if self.holds(model, app, c) {
                &e.then
            } else {
                &e.otherwise
            };
            if let Some(b) = branch {
                let b = b.clone();
                self.run_effects(model, app, &b, log)?;
            }
        }
        if let Some(delay) = e.after {
            if let Some(d) = &e.then_do {
                self.state.seq += 1;
                let seq = self.state.seq;
                let due = self.state.now_ms + delay;
                let d = d.clone();
                self.app_mut(app).timers.push(Timer {
                    due,
                    seq,
                    effects: d,
                });
            }
        } else if let Some(d) = &e.then_do {
            let d = d.clone();
            self.run_effects(model, app, &d, log)?;
        }
        if let Some(s) = &e.go {
            self.enter(model, app, s, "go", log)?;
        }
        if let Some(s) = &e.replace {
            self.enter(model, app, s, "replace", log)?;
        }
        if let Some(s) = &e.reset {
            self.enter(model, app, s, "reset", log)?;
        }
        if e.back == Some(true) {
            let a = self.app_mut(app);
            if a.stack.len() > 1 {
                a.stack.pop();
                a.focused = None;
                a.keyboard = false;
            }
            log.push("back".into());
        }
        if let Some(set) = &e.set {
            let a = self.app_mut(app);
            for (k, v) in set {
                a.vars.insert(k.clone(), v.clone());
            }
        }
        if let Some(ids) = &e.show {
            let a = self.app_mut(app);
            for id in ids.ids() {
                a.shown.insert(id.to_string(), true);
            }
        }
        if let Some(ids) = &e.hide {
            let a = self.app_mut(app);
            for id in ids.ids() {
                a.shown.insert(id.to_string(), false);
            }
        }
        if let Some(ids) = &e.select {
            let screen = self.state.apps[app]
                .stack
                .last()
                .map(|s| s.screen.clone())
                .unwrap_or_default();
            for id in ids.ids() {
                if let Some((_, members)) = Self::group_of(model, &screen, id) {
                    let a = self.app_mut(app);
                    for m in members {
                        a.selected.insert(m, false);
                    }
                }
                self.app_mut(app).selected.insert(id.to_string(), true);
            }
        }
        if let Some(ids) = &e.deselect {
            let a = self.app_mut(app);
            for id in ids.ids() {
                a.selected.insert(id.to_string(), false);
            }
        }
        if let Some(ids) = &e.toggle {
            let a = self.app_mut(app);
            for id in ids.ids() {
                let v = a.selected.get(id).copied().unwrap_or(false);
                a.selected.insert(id.to_string(), !v);
            }
        }
        if let Some(vals) = &e.values {
            let a = self.app_mut(app);
            for (k, v) in vals {
                a.values.insert(k.clone(), v.clone());
            }
        }
        if let Some(al) = &e.alert {
            self.app_mut(app).alert = Some(al.clone());
            log.push(format!("alert {al}"));
        }
        if e.dismiss_alert == Some(true) {
            self.app_mut(app).alert = None;
        }
        if e.hide_keyboard == Some(true) {
            let a = self.app_mut(app);
            a.keyboard = false;
            a.focused = None;
        }
        Ok(())
    }

    // ---- layout ----------------------------------------------------------------------

    fn element_visible(
        &self,
        model: &AppModel,
        app: &str,
        e: &Element,
        key: &str,
        entered: u64,
    ) -> bool {
        let a = &self.state.apps[app];
        let now = self.state.now_ms;
        if let Some(explicit) = a.shown.get(key) {
            if !explicit {
                return false;
            }
        } else {
            if e.hidden {
                return false;
            }
            if let Some(t) = e.appear_after_ms {
                if now < entered + t {
                    return false;
                }
            }
            if let Some(t) = e.disappear_after_ms {
                if now >= entered + t {
                    return false;
                }
            }
        }
        match &e.when {
            Some(c) => self.holds(model, app, c),
            None => true,
        }
    }

    fn layout(&self, model: &AppModel, app: &str) -> Laid {
        let a = &self.state.apps[app];
        let w = model.screen.width;
        let h = model.screen.height;
        let viewport = Rect {
            x: 0.0,
            y: 0.0,
            width: w,
            height: h,
        };
        let mut hits: Vec<Hit> = Vec::new();
        let mut root = Node {
            kind: "Application".into(),
            label: Some(model.display_name().to_string()),
            rect: Some(viewport),
            enabled: true,
            ..Node::default()
        };
        hits.push(Hit {
            secure: false,
            rect: viewport,
            clip: None,
            depth: 0,
            parent: None,
            path: None,
            key: "#app".into(),
            editable: false,
            enabled: true,
            alert_button: None,
        });
        let Some(inst) = a.stack.last() else {
            return Laid {
                roots: vec![root],
                hits,
                keyboard: None,
                alert: None,
            };
        };
        let screen = model.screens.get(&inst.screen).cloned().unwrap_or_default();
        let mut top = STATUS_BAR;
        if let Some(t) = &screen.title {
            root.children.push(Node {
                kind: "NavigationBar".into(),
                label: Some(template(t, &a.vars)),
                rect: Some(Rect {
                    x: 0.0,
                    y: top,
                    width: w,
                    height: NAV_BAR,
                }),
                enabled: true,
                ..Node::default()
            });
            hits.push(Hit {
                secure: false,
                rect: Rect {
                    x: 0.0,
                    y: top,
                    width: w,
                    height: NAV_BAR,
                },
                clip: None,
                depth: 1,
                parent: Some(0),
                path: None,
                key: "#navbar".into(),
                editable: false,
                enabled: true,
                alert_button: None,
            });
            top += NAV_BAR;
        }
        // Docked elements first (positions only), then everything in model order.
        let mut bottom = h;
        let mut docked: BTreeMap<usize, f64> = BTreeMap::new();
        for (i, e) in screen.elements.iter().enumerate() {
            let e = resolve_include(model, e);
            let key = element_key(e, &inst.screen, &[i]);
            if !self.element_visible(model, app, e, &key, inst.entered_at) {
                continue;
            }
            match e.dock.as_deref() {
                Some("bottom") => {
                    let eh = self.measure(model, app, e, &inst.screen, &[i], inst.entered_at);
                    bottom -= eh;
                    docked.insert(i, bottom);
                }
                Some("top") => {
                    let eh = self.measure(model, app, e, &inst.screen, &[i], inst.entered_at);
                    docked.insert(i, top);
                    top += eh;
                }
                _ => {}
            }
        }
        let mut cx = Cx {
            sim: self,
            model,
            app,
            screen: &inst.screen,
            entered: inst.entered_at,
            hits: &mut hits,
            viewport,
        };
        let mut y = top;
        for (i, e) in screen.elements.iter().enumerate() {
            let el = resolve_include(model, e);
            let (ey, avail) = match docked.get(&i) {
                Some(dy) => (*dy, h),
                None => (y, bottom),
            };
            let (node, used) = cx.element(el, vec![i], 0.0, ey, w, avail, None, 1, Some(0));
            if let Some(n) = node {
                root.children.push(n);
            }
            if !docked.contains_key(&i) {
                y += used;
            }
        }
        let mut alert_rect = None;
        if let Some(name) = &a.alert {
            if let Some(al) = model.alerts.get(name) {
                let ar = Rect {
                    x: w * 0.1,
                    y: h / 2.0 - 100.0,
                    width: w * 0.8,
                    height: 200.0,
                };
                alert_rect = Some(ar);
                let alert_index = hits.len();
                hits.push(Hit {
                    secure: false,
                    rect: ar,
                    clip: None,
                    depth: 1,
                    parent: Some(0),
                    path: None,
                    key: format!("#alert:{name}"),
                    editable: false,
                    enabled: true,
                    alert_button: None,
                });
                let mut node = Node {
                    kind: "Alert".into(),
                    label: Some(al.title.clone()),
                    rect: Some(ar),
                    enabled: true,
                    ..Node::default()
                };
                if let Some(m) = &al.message {
                    node.children.push(Node {
                        kind: "StaticText".into(),
                        label: Some(m.clone()),
                        rect: Some(Rect {
                            x: ar.x + 16.0,
                            y: ar.y + 56.0,
                            width: ar.width - 32.0,
                            height: 60.0,
                        }),
                        enabled: true,
                        ..Node::default()
                    });
                    hits.push(Hit {
                        secure: false,
                        rect: Rect {
                            x: ar.x + 16.0,
                            y: ar.y + 56.0,
                            width: ar.width - 32.0,
                            height: 60.0,
                        },
                        clip: None,
                        depth: 2,
                        parent: Some(alert_index),
                        path: None,
                        key: "#alert-message".into(),
                        editable: false,
                        enabled: true,
                        alert_button: None,
                    });
                }
                let n = al.buttons.len().max(1) as f64;
                let bw = ar.width / n;
                for (bi, b) in al.buttons.iter().enumerate() {
                    let br = Rect {
                        x: ar.x + bw * bi as f64,
                        y: ar.y + ar.height - ROW,
                        width: bw,
                        height: ROW,
                    };
                    node.children.push(Node {
                        kind: "Button".into(),
                        label: Some(b.label.clone()),
                        rect: Some(br),
                        enabled: true,
                        hittable: true,
                        ..Node::default()
                    });
                    hits.push(Hit {
                        secure: false,
                        rect: br,
                        clip: None,
                        depth: 2,
                        parent: Some(alert_index),
                        path: None,
                        key: format!("#alert-button:{bi}"),
                        editable: false,
                        enabled: true,
                        alert_button: Some(bi),
                    });
                }
                root.children.push(node);
            }
        }
        let mut keyboard = None;
        if a.keyboard {
            let kr = Rect {
                x: 0.0,
                y: h - KEYBOARD,
                width: w,
                height: KEYBOARD,
            };
            keyboard = Some(kr);
            root.children.push(Node {
                kind: "Keyboard".into(),
                rect: Some(kr),
                enabled: true,
                ..Node::default()
            });
            hits.push(Hit {
                secure: false,
                rect: kr,
                clip: None,
                depth: 1,
                parent: Some(0),
                path: None,
                key: "#keyboard".into(),
                editable: false,
                enabled: true,
                alert_button: None,
            });
        }
        // Covered content is not hittable.
        if alert_rect.is_some() || keyboard.is_some() {
            fn uncover(n: &mut Node, alert: bool, kb: Option<Rect>) {
                let k = normalize_type(&n.kind);
                if k == "alert" || k == "keyboard" {
                    return;
                }
                if alert {
                    n.hittable = false;
                } else if let (Some(kb), Some(r)) = (kb, n.rect) {
                    if kb.contains(r.center()) {
                        n.hittable = false;
                    }
                }
                for c in &mut n.children {
                    uncover(c, alert, kb);
                }
            }
            for c in &mut root.children {
                uncover(c, alert_rect.is_some(), keyboard);
            }
        }
        Laid {
            roots: vec![root],
            hits,
            keyboard,
            alert: alert_rect,
        }
    }

    fn measure(
        &self,
        model: &AppModel,
        app: &str,
        e: &Element,
        screen: &str,
        path: &[usize],
        entered: u64,
    ) -> f64 {
        if let Some(h) = e.height {
            return h;
        }
        if let Some(r) = e.rect {
            return r.height;
        }
        if e.children.is_empty() {
            return ROW;
        }
        let row = e.layout.as_deref() == Some("row");
        let spacing = e.spacing.unwrap_or(0.0);
        let mut total: f64 = 0.0;
        let mut count = 0;
        for (i, c) in e.children.iter().enumerate() {
            let c = resolve_include(model, c);
            let mut p = path.to_vec();
            p.push(i);
            let key = element_key(c, screen, &p);
            if !self.element_visible(model, app, c, &key, entered) {
                continue;
            }
            let ch = self.measure(model, app, c, screen, &p, entered);
            if row {
                total = total.max(ch);
            } else {
                total += ch;
            }
            count += 1;
        }
        if !row && count > 1 {
            total += spacing * (count - 1) as f64;
        }
        total
    }

    fn hit_test(&self, laid: &Laid, p: Point) -> Option<usize> {
        let mut best: Option<usize> = None;
        for (i, h) in laid.hits.iter().enumerate() {
            if !h.rect.contains(p) || h.clip.is_some_and(|c| !c.contains(p)) {
                continue;
            }
            if best.is_none_or(|b| h.depth >= laid.hits[b].depth) {
                best = Some(i);
            }
        }
        best
    }

    fn element_at<'m>(model: &'m AppModel, screen: &str, path: &[usize]) -> Option<&'m Element> {
        let s = model.screens.get(screen)?;
        let mut e = resolve_include(model, s.elements.get(*path.first()?)?);
        for i in &path[1..] {
            e = resolve_include(model, e.children.get(*i)?);
        }
        Some(e)
    }

    /// Finds the handler for `event` at hit `i`, walking up to ancestors.
    fn handler(
        &self,
        model: &AppModel,
        app: &str,
        laid: &Laid,
        mut i: usize,
        event: &str,
    ) -> Option<Effects> {
        let screen = self.state.apps[app].stack.last()?.screen.clone();
        loop {
            let h = &laid.hits[i];
            if let Some(path) = &h.path {
                if let Some(e) = Self::element_at(model, &screen, path) {
                    if let Some(fx) = e.on.get(event) {
                        return Some(fx.clone());
                    }
                }
            }
            i = h.parent?;
        }
    }

    /// Checks what is at a point and returns the hit index.
    fn target_at(&mut self, p: Point) -> BackendResult<(Arc<AppModel>, String, Laid, usize)> {
        self.sync();
        let (model, app) = self.fg()?;
        let laid = self.layout(&model, &app);
        if let Some(kb) = laid.keyboard {
            if kb.contains(p) {
                return Err(BackendError::rejected(
                    "ELEMENT_OCCLUDED",
                    format!("the point ({}, {}) is covered by the keyboard", p.x, p.y),
                )
                .with_hint("dismiss the keyboard first (`keyboard dismiss`)"));
            }
        }
        let Some(i) = self.hit_test(&laid, p) else {
            return Err(BackendError::rejected(
                "COMMAND_FAILED",
                format!("the point ({}, {}) is outside the screen", p.x, p.y),
            ));
        };
        if let Some(ar) = laid.alert {
            if !ar.contains(p) {
                return Err(BackendError::rejected(
                    "ELEMENT_OCCLUDED",
                    format!("the point ({}, {}) is covered by an alert", p.x, p.y),
                )
                .with_hint("handle the alert first (`alert accept` or `alert dismiss`)"));
            }
        }
        Ok((model, app, laid, i))
    }

    fn press_alert_button(
        &mut self,
        model: &AppModel,
        app: &str,
        bi: usize,
        log: &mut Vec<String>,
    ) -> BackendResult<()> {
        let Some(name) = self.state.apps[app].alert.clone() else {
            return Ok(());
        };
        let Some(al) = model.alerts.get(&name) else {
            return Ok(());
        };
        let fx = al.buttons.get(bi).and_then(|b| b.effects.clone());
        self.app_mut(app).alert = None;
        log.push(format!("alert button {bi}"));
        if let Some(fx) = fx {
            self.run_effects(model, app, &fx, log)?;
        }
        Ok(())
    }

    fn do_tap(&mut self, p: Point, event: &str) -> BackendResult<()> {
        let (model, app, laid, i) = self.target_at(p)?;
        let hit = laid.hits[i].clone();
        let mut log = Vec::new();
        if let Some(bi) = hit.alert_button {
            self.press_alert_button(&model, &app, bi, &mut log)?;
            self.state.last_action = Some(format!("{event} alert button"));
            return Ok(());
        }
        if !hit.enabled {
            self.state.last_action = Some(format!("{event} {} (disabled)", hit.key));
            return Ok(());
        }
        if hit.editable && event == "tap" {
            let a = self.app_mut(&app);
            a.focused = Some(hit.key.clone());
            a.keyboard = true;
        }
        if let Some(fx) = self.handler(&model, &app, &laid, i, event) {
            self.run_effects(&model, &app, &fx, &mut log)?;
        } else if event == "tap" {
            // Default behaviours: switches toggle; grouped elements select.
            if let Some(path) = &hit.path {
                let screen = self.state.apps[&app]
                    .stack
                    .last()
                    .map(|s| s.screen.clone())
                    .unwrap_or_default();
                if let Some(e) = Self::element_at(&model, &screen, path) {
                    let k = normalize_type(e.kind.as_deref().unwrap_or(""));
                    if e.group.is_some() {
                        let fx = Effect {
                            select: Some(model::IdList::One(hit.key.clone())),
                            ..Effect::default()
                        };
                        self.run_effect(&model, &app, &fx, &mut log)?;
                    } else if matches!(k.as_str(), "switch" | "checkbox") {
                        let fx = Effect {
                            toggle: Some(model::IdList::One(hit.key.clone())),
                            ..Effect::default()
                        };
                        self.run_effect(&model, &app, &fx, &mut log)?;
                    }
                }
            }
        }
        self.state.last_action = Some(format!("{event} {}", hit.key));
        Ok(())
    }

    /// Where the device stands: app, screen, navigation stack.
    pub fn describe(&self) -> Value {
        match &self.state.foreground {
            None => json!({"app": null}),
            Some(app) => {
                let a = &self.state.apps[app];
                json!({
                    "app": app,
                    "screen": a.stack.last().map(|s| s.screen.clone()),
                    "stack": a.stack.iter().map(|s| s.screen.clone()).collect::<Vec<_>>(),
                    "alert": a.alert,
                    "keyboard": a.keyboard,
                    "deviceTimeMs": self.state.now_ms,
                })
            }
        }
    }

    fn scroll_by(&mut self, dir: Direction, amount: Option<f64>) -> BackendResult<()> {
        self.sync();
        let (model, app) = self.fg()?;
        let laid = self.layout(&model, &app);
        // The largest scroll container on screen.
        let mut best: Option<&Hit> = None;
        let screen = self.state.apps[&app]
            .stack
            .last()
            .map(|s| s.screen.clone())
            .unwrap_or_default();
        for h in &laid.hits {
            let Some(path) = &h.path else { continue };
            let Some(e) = Self::element_at(&model, &screen, path) else {
                continue;
            };
            if e.scroll && best.is_none_or(|b| h.rect.area() > b.rect.area()) {
                best = Some(h);
            }
        }
        let Some(h) = best.cloned() else {
            self.state.last_action = Some("scroll (nothing scrollable)".into());
            return Ok(());
        };
        let path = h.path.clone().unwrap_or_default();
        let e = Self::element_at(&model, &screen, &path)
            .expect("element")
            .clone();
        let a = &self.state.apps[&app];
        let entered = a.stack.last().map(|s| s.entered_at).unwrap_or(0);
        let content = self.measure(
            &model,
            &app,
            &Element {
                height: None,
                rect: None,
                ..e.clone()
            },
            &screen,
            &path,
            entered,
        );
        let max = (content - h.rect.height).max(0.0);
        let step = h.rect.height * amount.unwrap_or(0.5).clamp(0.0, 1.0);
        let cur = a.scroll.get(&h.key).copied().unwrap_or(0.0);
        let next = match dir {
            Direction::Down | Direction::Right => (cur + step).min(max),
            Direction::Up | Direction::Left => (cur - step).max(0.0),
            Direction::Top => 0.0,
            Direction::Bottom => max,
        };
        self.app_mut(&app).scroll.insert(h.key.clone(), next);
        self.state.last_action = Some(format!("scroll {} to {next}", h.key));
        Ok(())
    }
}

fn resolve_include<'m>(model: &'m AppModel, e: &'m Element) -> &'m Element {
    match &e.include {
        Some(c) => model.components.get(c).unwrap_or(e),
        None => e,
    }
}

fn element_key(e: &Element, screen: &str, path: &[usize]) -> String {
    match &e.id {
        Some(id) => id.clone(),
        None => format!(
            "#{screen}/{}",
            path.iter()
                .map(|i| i.to_string())
                .collect::<Vec<_>>()
                .join("/")
        ),
    }
}

struct Cx<'a> {
    sim: &'a Sim,
    model: &'a AppModel,
    app: &'a str,
    screen: &'a str,
    entered: u64,
    hits: &'a mut Vec<Hit>,
    viewport: Rect,
}

impl Cx<'_> {
    /// Lays out one element at (x, y) with width w; returns the node (None when hidden or
    /// clipped away) and the height it takes in the flow.
    #[allow(clippy::too_many_arguments)]
    fn element(
        &mut self,
        e: &Element,
        path: Vec<usize>,
        x: f64,
        y: f64,
        w: f64,
        avail_bottom: f64,
        clip: Option<Rect>,
        depth: usize,
        parent: Option<usize>,
    ) -> (Option<Node>, f64) {
        let key = element_key(e, self.screen, &path);
        if !self
            .sim
            .element_visible(self.model, self.app, e, &key, self.entered)
        {
            return (None, 0.0);
        }
        let a = &self.sim.state.apps[self.app];
        let kind = e.kind.clone().unwrap_or_else(|| "Other".into());
        let measured = self
            .sim
            .measure(self.model, self.app, e, self.screen, &path, self.entered);
        let height = if e.scroll && e.height.is_none() && e.rect.is_none() {
            (avail_bottom - y).max(0.0)
        } else {
            measured
        };
        let rect = e.rect.unwrap_or(Rect {
            x,
            y,
            width: e.width.unwrap_or(w),
            height,
        });
        let visible_area = clip.unwrap_or(self.viewport);
        if !intersects(&rect, &visible_area) && clip.is_some() {
            return (None, height);
        }
        let editable = e.editable.unwrap_or_else(|| is_editable_type(&kind));
        let enabled = e.enabled.unwrap_or(true);
        let secure = normalize_type(&kind).contains("secure");
        let value = a
            .values
            .get(&key)
            .cloned()
            .or_else(|| e.value.as_ref().map(|v| template(v, &a.vars)))
            .map(|v| {
                if secure {
                    "•".repeat(v.chars().count())
                } else {
                    v
                }
            });
        let on_screen = {
            let c = rect.center();
            visible_area.contains(c) && self.viewport.contains(c)
        };
        let interactive = is_interactive_type(&kind) || !e.on.is_empty() || e.group.is_some();
        let hittable = e.hittable.unwrap_or(interactive) && on_screen;
        let me = self.hits.len();
        self.hits.push(Hit {
            secure,
            rect,
            clip,
            depth,
            parent,
            path: Some(path.clone()),
            key: key.clone(),
            editable,
            enabled,
            alert_button: None,
        });
        let mut node = Node {
            kind,
            id: e.id.clone(),
            label: e.label.as_ref().map(|l| template(l, &a.vars)),
            value,
            rect: Some(rect),
            enabled,
            selected: a
                .selected
                .get(&key)
                .copied()
                .unwrap_or(e.selected.unwrap_or(false)),
            focused: a.focused.as_deref() == Some(key.as_str()),
            editable,
            hittable,
            children: Vec::new(),
        };
        let row = e.layout.as_deref() == Some("row");
        let spacing = e.spacing.unwrap_or(0.0);
        let (child_clip, offset) = if e.scroll {
            let c = match clip {
                Some(outer) => intersect(&outer, &rect),
                None => rect,
            };
            (Some(c), a.scroll.get(&key).copied().unwrap_or(0.0))
        } else {
            (clip, 0.0)
        };
        let visible_children: Vec<(usize, &Element)> = e
            .children
            .iter()
            .enumerate()
            .map(|(i, c)| (i, resolve_include(self.model, c)))
            .filter(|(i, c)| {
                let mut p = path.clone();
                p.push(*i);
                self.sim.element_visible(
                    self.model,
                    self.app,
                    c,
                    &element_key(c, self.screen, &p),
                    self.entered,
                )
            })
            .collect();
        let n = visible_children.len().max(1) as f64;
        let mut cy = rect.y - offset;
        let mut cxp = rect.x;
        for (i, c) in visible_children {
            let mut p = path.clone();
            p.push(i);
            let cw = if row {
                c.width.unwrap_or(rect.width / n)
            } else {
                rect.width
            };
            let (child, used) = self.element(
                c,
                p,
                cxp,
                cy,
                cw,
                rect.y + rect.height,
                child_clip,
                depth + 1,
                Some(me),
            );
            if let Some(ch) = child {
                node.children.push(ch);
            }
            if row {
                cxp += cw;
            } else {
                cy += used + spacing;
            }
        }
        (Some(node), height)
    }
}

fn intersect(a: &Rect, b: &Rect) -> Rect {
    let x = a.x.max(b.x);
    let y = a.y.max(b.y);
    let r = (a.x + a.width).min(b.x + b.width);
    let btm = (a.y + a.height).min(b.y + b.height);
    Rect {
        x,
        y,
        width: (r - x).max(0.0),
        height: (btm - y).max(0.0),
    }
}

impl Backend for Sim {
    fn name(&self) -> &str {
        "sim"
    }

    fn platform(&self) -> &str {
        &self.platform
    }

    fn now_ms(&self) -> u64 {
        self.state.now_ms
    }

    async fn sleep(&mut self, ms: u64) {
        let t = self.state.now_ms + ms;
        let _ = self.advance_to(t);
    }

    async fn launch(&mut self, app: &str, options: &LaunchOptions) -> BackendResult<()> {
        self.sync();
        let (app_id, model) = match self.models.values().find(|m| m.answers_to(app)).cloned() {
            Some(m) if self.resolver.explicit.is_none() || self.state.apps.contains_key(&m.app) => {
                (m.app.clone(), m)
            }
            _ => {
                let (path, m) = self.resolver.resolve(app).map_err(|e| {
                    BackendError::rejected("APP_NOT_INSTALLED", e.0).with_hint(
                        "the sim runs app models: pass --app FILE, or put <name>.json with \"app\": \"<id>\" in an apps/ folder beside the script",
                    )
                })?;
                let id = m.app.clone();
                if let Some(p) = &m.platform {
                    self.platform = p.clone();
                }
                let m = Arc::new(m);
                self.models.insert(id.clone(), m.clone());
                self.model_paths_insert(&id, path);
                (id, m)
            }
        };
        let running = self.state.apps.contains_key(&app_id);
        if options.relaunch || !running {
            let path = self.model_path(&app_id);
            self.state.apps.insert(
                app_id.clone(),
                AppState {
                    model_path: path,
                    stack: Vec::new(),
                    values: BTreeMap::new(),
                    selected: BTreeMap::new(),
                    shown: BTreeMap::new(),
                    vars: model.state.clone(),
                    scroll: BTreeMap::new(),
                    secure: Default::default(),
                    secure_digests: BTreeMap::new(),
                    focused: None,
                    keyboard: false,
                    alert: None,
                    timers: Vec::new(),
                    background: false,
                },
            );
            let mut log = Vec::new();
            self.enter(&model, &app_id, &model.start.clone(), "reset", &mut log)?;
        }
        self.app_mut(&app_id).background = false;
        self.state.foreground = Some(app_id.clone());
        if let Some(url) = &options.url {
            if let Some(screen) = model.links.get(url).cloned() {
                let mut log = Vec::new();
                self.enter(&model, &app_id, &screen, "go", &mut log)?;
            } else {
                return Err(BackendError::rejected(
                    "COMMAND_FAILED",
                    format!("{app_id} does not handle the link {url}"),
                ));
            }
        }
        self.state.last_action = Some(format!("launch {app_id}"));
        Ok(())
    }

    async fn close(&mut self, app: Option<&str>) -> BackendResult<()> {
        self.sync();
        let target = match app {
            Some(a) => self
                .models
                .values()
                .find(|m| m.answers_to(a))
                .map(|m| m.app.clone())
                .unwrap_or_else(|| a.to_string()),
            None => match &self.state.foreground {
                Some(f) => f.clone(),
                None => return Ok(()),
            },
        };
        self.state.apps.remove(&target);
        if self.state.foreground.as_deref() == Some(target.as_str()) {
            self.state.foreground = None;
        }
        self.state.last_action = Some(format!("close {target}"));
        Ok(())
    }

    async fn capture(&mut self) -> BackendResult<Capture> {
        self.sync();
        let viewport = |m: Option<&AppModel>| {
            let s = m.map(|m| m.screen).unwrap_or_default();
            Rect {
                x: 0.0,
                y: 0.0,
                width: s.width,
                height: s.height,
            }
        };
        match self.fg() {
            Err(_) => Ok(Capture {
                roots: vec![Node {
                    kind: "Application".into(),
                    label: Some("Home screen".into()),
                    rect: Some(viewport(None)),
                    enabled: true,
                    ..Node::default()
                }],
                viewport: viewport(None),
                app: None,
            }),
            Ok((model, app)) => {
                let laid = self.layout(&model, &app);
                Ok(Capture {
                    roots: laid.roots,
                    viewport: viewport(Some(&model)),
                    app: Some(app),
                })
            }
        }
    }

    async fn tap(&mut self, at: Point, options: &TapOptions) -> BackendResult<()> {
        let n = if options.double_tap {
            2
        } else {
            options.count.max(1)
        };
        for i in 0..n {
            if i > 0 && options.interval_ms > 0 {
                self.sleep(options.interval_ms).await;
            }
            self.do_tap(at, "tap")?;
        }
        Ok(())
    }

    async fn long_press(&mut self, at: Point, duration_ms: u64) -> BackendResult<()> {
        self.sleep(duration_ms).await;
        self.do_tap(at, "longpress")
    }

    async fn hover(&mut self, at: Point) -> BackendResult<()> {
        self.target_at(at)?;
        self.state.last_action = Some("hover".into());
        Ok(())
    }

    async fn focus(&mut self, at: Point) -> BackendResult<()> {
        let (_, app, laid, i) = self.target_at(at)?;
        let h = laid.hits[i].clone();
        let a = self.app_mut(&app);
        a.focused = Some(h.key.clone());
        a.keyboard = h.editable;
        if h.secure {
            a.secure.insert(h.key.clone());
        }
        Ok(())
    }

    async fn fill(&mut self, at: Point, text: &str, delay_ms: u64) -> BackendResult<()> {
        let (model, app, laid, i) = self.target_at(at)?;
        let h = laid.hits[i].clone();
        if !h.editable {
            return Err(BackendError::rejected(
                "COMMAND_FAILED",
                format!("the element at ({}, {}) is not editable", at.x, at.y),
            )
            .with_hint("fill targets a text field; use click for buttons"));
        }
        if !h.enabled {
            return Err(BackendError::rejected(
                "COMMAND_FAILED",
                "the text field is disabled",
            ));
        }
        if delay_ms > 0 {
            self.sleep(delay_ms * text.chars().count() as u64).await;
        }
        let a = self.app_mut(&app);
        a.focused = Some(h.key.clone());
        a.keyboard = true;
        if h.secure {
            a.secure.insert(h.key.clone());
        }
        a.secure_digests.remove(&h.key);
        a.values.insert(h.key.clone(), text.to_string());
        let mut log = Vec::new();
        if let Some(fx) = self.handler(&model, &app, &laid, i, "fill") {
            self.run_effects(&model, &app, &fx, &mut log)?;
        }
        self.state.last_action = Some(format!("fill {}", h.key));
        Ok(())
    }

    async fn type_text(&mut self, text: &str, delay_ms: u64) -> BackendResult<()> {
        self.sync();
        let (_, app) = self.fg()?;
        let Some(key) = self.state.apps[&app].focused.clone() else {
            return Err(BackendError::rejected(
                "COMMAND_FAILED",
                "no element has focus to type into",
            )
            .with_hint("tap or fill a text field first"));
        };
        if delay_ms > 0 {
            self.sleep(delay_ms * text.chars().count() as u64).await;
        }
        let a = self.app_mut(&app);
        if a.secure_digests.remove(&key).is_some() {
            // Typing into a resumed, masked secure field: its old text is unknown.
            a.values.remove(&key);
        }
        a.values.entry(key.clone()).or_default().push_str(text);
        self.state.last_action = Some(format!("type into {key}"));
        Ok(())
    }

    async fn scroll(&mut self, direction: Direction, amount: Option<f64>) -> BackendResult<()> {
        self.scroll_by(direction, amount)
    }

    async fn gesture(&mut self, plan: &GesturePlan) -> BackendResult<()> {
        self.sync();
        self.fg()?;
        if plan.duration_ms > 0 {
            self.sleep(plan.duration_ms).await;
        }
        // A one-finger vertical or horizontal stroke scrolls the largest scroll region.
        if let Some(path) = plan.pointers.first() {
            if let (Some(a), Some(b)) = (path.first(), path.last()) {
                let (dx, dy) = (b.x - a.x, b.y - a.y);
                if plan.kind == "swipe" && (dx.abs() > 1.0 || dy.abs() > 1.0) {
                    let height = self
                        .models
                        .get(self.state.foreground.as_deref().unwrap_or(""))
                        .map(|m| m.screen.height)
                        .unwrap_or(844.0);
                    let (dir, dist) = if dy.abs() >= dx.abs() {
                        (
                            if dy < 0.0 {
                                Direction::Down
                            } else {
                                Direction::Up
                            },
                            dy.abs(),
                        )
                    } else {
                        (
                            if dx < 0.0 {
                                Direction::Right
                            } else {
                                Direction::Left
                            },
                            dx.abs(),
                        )
                    };
                    for _ in 0..plan.repeat.max(1) {
                        self.scroll_by(dir, Some(dist / height))?;
                    }
                    return Ok(());
                }
            }
        }
        self.state.last_action = Some(format!("gesture {}", plan.kind));
        Ok(())
    }

    async fn press_key(&mut self, key: SystemKey) -> BackendResult<()> {
        self.sync();
        match key {
            SystemKey::Back => {
                let (model, app) = self.fg()?;
                let a = &self.state.apps[&app];
                if a.alert.is_some() {
                    self.app_mut(&app).alert = None;
                } else {
                    let screen = a.stack.last().map(|s| s.screen.clone()).unwrap_or_default();
                    let mut log = Vec::new();
                    match model
                        .screens
                        .get(&screen)
                        .and_then(|s| s.on.get("back"))
                        .cloned()
                    {
                        Some(fx) => self.run_effects(&model, &app, &fx, &mut log)?,
                        None => {
                            let a = self.app_mut(&app);
                            if a.stack.len() > 1 {
                                a.stack.pop();
                                a.focused = None;
                                a.keyboard = false;
                            }
                        }
                    }
                }
                self.state.last_action = Some("back".into());
            }
            SystemKey::Home | SystemKey::AppSwitcher => {
                if let Some(app) = self.state.foreground.take() {
                    self.app_mut(&app).background = true;
                }
                self.state.last_action = Some(format!("{key:?}").to_lowercase());
            }
        }
        Ok(())
    }

    async fn keyboard(&mut self, action: KeyboardAction) -> BackendResult<KeyboardState> {
        self.sync();
        let (model, app) = self.fg()?;
        match action {
            KeyboardAction::Status => {}
            KeyboardAction::Dismiss => {
                let a = self.app_mut(&app);
                a.keyboard = false;
                a.focused = None;
            }
            KeyboardAction::Enter => {
                if !self.state.apps[&app].keyboard {
                    return Err(BackendError::rejected(
                        "COMMAND_FAILED",
                        "the keyboard is not shown",
                    )
                    .with_hint("focus a text field first"));
                }
                let laid = self.layout(&model, &app);
                let focused = self.state.apps[&app].focused.clone();
                let hit = laid
                    .hits
                    .iter()
                    .position(|h| Some(&h.key) == focused.as_ref());
                let mut log = Vec::new();
                match hit.and_then(|i| self.handler(&model, &app, &laid, i, "submit")) {
                    Some(fx) => self.run_effects(&model, &app, &fx, &mut log)?,
                    None => {
                        let a = self.app_mut(&app);
                        a.keyboard = false;
                        a.focused = None;
                    }
                }
            }
        }
        Ok(KeyboardState {
            visible: self.state.apps.get(&app).is_some_and(|a| a.keyboard),
        })
    }

    async fn alert(&mut self, action: AlertAction) -> BackendResult<Option<AlertInfo>> {
        self.sync();
        let (model, app) = self.fg()?;
        let Some(name) = self.state.apps[&app].alert.clone() else {
            return Ok(None);
        };
        let Some(al) = model.alerts.get(&name).cloned() else {
            return Ok(None);
        };
        let info = AlertInfo {
            title: al.title.clone(),
            message: al.message.clone(),
            buttons: al.buttons.iter().map(|b| b.label.clone()).collect(),
        };
        let pick = |role: &str| {
            al.buttons.iter().position(|b| {
                b.role.as_deref() == Some(role)
                    || (role == "dismiss" && b.role.as_deref() == Some("cancel"))
            })
        };
        let mut log = Vec::new();
        match action {
            AlertAction::Get => {}
            AlertAction::Accept => {
                let bi = pick("accept").unwrap_or(0);
                self.press_alert_button(&model, &app, bi, &mut log)?;
            }
            AlertAction::Dismiss => {
                let bi = pick("dismiss").unwrap_or(al.buttons.len().saturating_sub(1));
                self.press_alert_button(&model, &app, bi, &mut log)?;
            }
        }
        Ok(Some(info))
    }

    async fn clipboard_read(&mut self) -> BackendResult<String> {
        Ok(self.state.clipboard.clone())
    }

    async fn clipboard_write(&mut self, text: &str) -> BackendResult<()> {
        self.state.clipboard = text.to_string();
        Ok(())
    }

    async fn screenshot(&mut self) -> BackendResult<Vec<u8>> {
        let cap = self.capture().await?;
        Ok(png::render(&cap))
    }

    async fn other(&mut self, command: &str, positionals: &[String]) -> BackendResult<Value> {
        self.sync();
        match command {
            "orientation" => {
                let o = positionals.first().cloned().unwrap_or_default();
                if !matches!(
                    o.as_str(),
                    "portrait" | "portrait-upside-down" | "landscape-left" | "landscape-right"
                ) {
                    return Err(BackendError::rejected(
                        "INVALID_ARGS",
                        format!("unknown orientation \"{o}\""),
                    ));
                }
                self.state.orientation = Some(o.clone());
                Ok(json!({"orientation": o}))
            }
            "appstate" => Ok(self.describe()),
            "settings" | "install" | "reinstall" | "push" | "trigger-app-event" | "viewport"
            | "tv-remote" => Ok(json!({"accepted": true, "simulated": true})),
            "devices" | "capabilities" | "doctor" | "apps" | "boot" => {
                Ok(json!({"device": "sim", "platform": self.platform}))
            }
            _ => Err(BackendError::rejected(
                "COMMAND_FAILED",
                format!("{command} has no runtime execution on the generic route"),
            )
            .with_hint("the sim does not implement this command")),
        }
    }

    fn location(&self) -> Value {
        self.describe()
    }
}

impl Sim {
    fn model_paths_insert(&mut self, app: &str, path: PathBuf) {
        self.paths.insert(app.to_string(), path);
    }

    fn model_path(&self, app: &str) -> PathBuf {
        self.paths.get(app).cloned().unwrap_or_default()
    }
}
