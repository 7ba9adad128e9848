//! The app model format the simulator loads (a hand-written JSON file; see docs/sim-model.md).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::core::tree::Rect;

/// One app.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct AppModel {
    /// The id scripts open (`open "com.example.shop"`).
    pub app: String,
    /// Display name (the application node's label). Defaults to the id.
    #[serde(default)]
    pub name: Option<String>,
    /// Other names `open` accepts for this app.
    #[serde(default)]
    pub aliases: Vec<String>,
    #[serde(default)]
    pub platform: Option<String>,
    #[serde(default)]
    pub screen: ScreenSize,
    /// The first screen after launch.
    pub start: String,
    /// Named string variables effects can set and conditions can test.
    #[serde(default)]
    pub state: BTreeMap<String, String>,
    /// Reusable elements (`{"include": "tabbar"}`).
    #[serde(default)]
    pub components: BTreeMap<String, Element>,
    #[serde(default)]
    pub alerts: BTreeMap<String, AlertModel>,
    /// Deep links: URL → screen.
    #[serde(default)]
    pub links: BTreeMap<String, String>,
    pub screens: BTreeMap<String, ScreenModel>,
    /// Free-form notes for people reading the model.
    #[serde(default, rename = "$comment")]
    pub comment: Option<Value>,
}

#[derive(Debug, Clone, Copy, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct ScreenSize {
    pub width: f64,
    pub height: f64,
}

impl Default for ScreenSize {
    fn default() -> Self {
        ScreenSize {
            width: 390.0,
            height: 844.0,
        }
    }
}

#[derive(Debug, Clone, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct ScreenModel {
    /// A navigation bar with this title is shown at the top.
    #[serde(default)]
    pub title: Option<String>,
    #[serde(default)]
    pub elements: Vec<Element>,
    /// Screen events: `appear` (on entry), `back` (instead of popping).
    #[serde(default)]
    pub on: BTreeMap<String, Effects>,
    #[serde(default, rename = "$comment")]
    pub comment: Option<Value>,
}

#[derive(Debug, Clone, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Element {
    /// The element type (`button`, `textfield`, `statictext`, `table`, …); becomes the node type.
    #[serde(default, rename = "type")]
    pub kind: Option<String>,
    #[serde(default)]
    pub id: Option<String>,
    /// May use `{{state}}` templates.
    #[serde(default)]
    pub label: Option<String>,
    /// Initial value / displayed text.
    #[serde(default)]
    pub value: Option<String>,
    /// Replace this element with a component.
    #[serde(default)]
    pub include: Option<String>,
    #[serde(default)]
    pub height: Option<f64>,
    #[serde(default)]
    pub width: Option<f64>,
    /// Absolute rectangle (overrides the layout).
    #[serde(default)]
    pub rect: Option<Rect>,
    /// `column` (default) or `row` for the children.
    #[serde(default)]
    pub layout: Option<String>,
    #[serde(default)]
    pub spacing: Option<f64>,
    /// `top` or `bottom`: pinned to a screen edge (top-level elements only).
    #[serde(default)]
    pub dock: Option<String>,
    /// A scroll container: children outside its viewport are not in the tree.
    #[serde(default)]
    pub scroll: bool,
    #[serde(default)]
    pub hidden: bool,
    #[serde(default)]
    pub appear_after_ms: Option<u64>,
    #[serde(default)]
    pub disappear_after_ms: Option<u64>,
    /// Present only while the condition holds.
    #[serde(default)]
    pub when: Option<Condition>,
    #[serde(default)]
    pub enabled: Option<bool>,
    #[serde(default)]
    pub selected: Option<bool>,
    #[serde(default)]
    pub editable: Option<bool>,
    #[serde(default)]
    pub hittable: Option<bool>,
    /// Selecting this element deselects the others of its group.
    #[serde(default)]
    pub group: Option<String>,
    #[serde(default)]
    pub children: Vec<Element>,
    /// Element events: `tap`, `longpress`, `fill`, `submit`, `change` (a select's choice).
    #[serde(default)]
    pub on: BTreeMap<String, Effects>,
    #[serde(default, rename = "$comment")]
    pub comment: Option<Value>,
}

#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct AlertModel {
    pub title: String,
    #[serde(default)]
    pub message: Option<String>,
    pub buttons: Vec<AlertButton>,
}

#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct AlertButton {
    pub label: String,
    /// `accept` or `dismiss` (`alert accept` / `alert dismiss` press it).
    #[serde(default)]
    pub role: Option<String>,
    #[serde(default, rename = "do")]
    pub effects: Option<Effects>,
}

/// One effect or a list of them.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(untagged)]
pub enum Effects {
    One(Box<Effect>),
    Many(Vec<Effect>),
}

impl Effects {
    pub fn list(&self) -> Vec<&Effect> {
        match self {
            Effects::One(e) => vec![e],
            Effects::Many(v) => v.iter().collect(),
        }
    }
}

/// What happens. Exactly one key per effect object (except `if`/`then`/`else` and
/// `after`/`do`).
#[derive(Debug, Clone, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Effect {
    /// Push a screen.
    #[serde(default)]
    pub go: Option<String>,
    /// Replace the top screen.
    #[serde(default)]
    pub replace: Option<String>,
    /// Replace the whole stack with one screen.
    #[serde(default)]
    pub reset: Option<String>,
    /// Pop the top screen.
    #[serde(default)]
    pub back: Option<bool>,
    #[serde(default)]
    pub set: Option<BTreeMap<String, String>>,
    #[serde(default)]
    pub show: Option<IdList>,
    #[serde(default)]
    pub hide: Option<IdList>,
    #[serde(default)]
    pub select: Option<IdList>,
    #[serde(default)]
    pub deselect: Option<IdList>,
    #[serde(default)]
    pub toggle: Option<IdList>,
    /// Set element values.
    #[serde(default)]
    pub values: Option<BTreeMap<String, String>>,
    /// Show a named alert.
    #[serde(default)]
    pub alert: Option<String>,
    #[serde(default)]
    pub dismiss_alert: Option<bool>,
    #[serde(default)]
    pub hide_keyboard: Option<bool>,
    /// Refuse the action with this message (`action_result: rejected`).
    #[serde(default)]
    pub fail: Option<String>,
    /// Lose the connection (`action_result: unknown`).
    #[serde(default)]
    pub transport_error: Option<String>,
    /// Block for this many *wall-clock* milliseconds (crash and progress demos).
    #[serde(default)]
    pub stall_ms: Option<u64>,
    /// Run `do` after this many device milliseconds.
    #[serde(default)]
    pub after: Option<u64>,
    #[serde(default, rename = "do")]
    pub then_do: Option<Effects>,
    #[serde(default, rename = "if")]
    pub condition: Option<Condition>,
    #[serde(default)]
    pub then: Option<Effects>,
    #[serde(default, rename = "else")]
    pub otherwise: Option<Effects>,
}

#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(untagged)]
pub enum IdList {
    One(String),
    Many(Vec<String>),
}

impl IdList {
    pub fn ids(&self) -> Vec<&str> {
        match self {
            IdList::One(s) => vec![s.as_str()],
            IdList::Many(v) => v.iter().map(String::as_str).collect(),
        }
    }
}

/// All keys must hold.
#[derive(Debug, Clone, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Condition {
    /// Element values equal these texts.
    #[serde(default)]
    pub values: Option<BTreeMap<String, String>>,
    /// These elements hold non-empty values.
    #[serde(default)]
    pub filled: Option<IdList>,
    #[serde(default)]
    pub selected: Option<IdList>,
    #[serde(default)]
    pub state: Option<BTreeMap<String, String>>,
    /// These elements are currently shown.
    #[serde(default)]
    pub shown: Option<IdList>,
    #[serde(default)]
    pub not: Option<Box<Condition>>,
    #[serde(default)]
    pub any: Option<Vec<Condition>>,
}

/// A problem loading a model, with the file and what to fix.
#[derive(Debug, Clone, PartialEq)]
pub struct ModelError(pub String);

impl std::fmt::Display for ModelError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl AppModel {
    pub fn load(path: &Path) -> Result<AppModel, ModelError> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| ModelError(format!("{}: {e}", path.display())))?;
        let model: AppModel = serde_json::from_str(&text).map_err(|e| {
            ModelError(format!(
                "{}:{}:{}: invalid app model: {e}",
                path.display(),
                e.line(),
                e.column()
            ))
        })?;
        model
            .validate()
            .map_err(|e| ModelError(format!("{}: {e}", path.display())))?;
        Ok(model)
    }

    pub fn display_name(&self) -> &str {
        self.name.as_deref().unwrap_or(&self.app)
    }

    pub fn answers_to(&self, app: &str) -> bool {
        self.app == app
            || self.aliases.iter().any(|a| a == app)
            || self.name.as_deref() == Some(app)
    }

    /// Cross-references: screens, components and alerts that effects and includes name.
    pub fn validate(&self) -> Result<(), String> {
        if !self.screens.contains_key(&self.start) {
            return Err(format!(
                "\"start\" names an unknown screen \"{}\"",
                self.start
            ));
        }
        let mut problems = Vec::new();
        for (name, s) in &self.screens {
            for e in &s.elements {
                self.check_element(e, &format!("screens.{name}"), &mut problems);
            }
            for (event, fx) in &s.on {
                self.check_effects(fx, &format!("screens.{name}.on.{event}"), &mut problems);
            }
        }
        for (name, c) in &self.components {
            self.check_element(c, &format!("components.{name}"), &mut problems);
        }
        for (name, a) in &self.alerts {
            for b in &a.buttons {
                if let Some(fx) = &b.effects {
                    self.check_effects(fx, &format!("alerts.{name}"), &mut problems);
                }
            }
        }
        for (url, screen) in &self.links {
            if !self.screens.contains_key(screen) {
                problems.push(format!("links.{url}: unknown screen \"{screen}\""));
            }
        }
        match problems.first() {
            Some(p) => Err(p.clone()),
            None => Ok(()),
        }
    }

    fn check_element(&self, e: &Element, at: &str, out: &mut Vec<String>) {
        if let Some(c) = &e.include {
            if !self.components.contains_key(c) {
                out.push(format!("{at}: include names an unknown component \"{c}\""));
            }
        } else if e.kind.is_none() {
            out.push(format!(
                "{at}: element {} needs a \"type\"",
                e.id.as_deref().unwrap_or("(no id)")
            ));
        }
        for (event, fx) in &e.on {
            if !matches!(
                event.as_str(),
                "tap" | "longpress" | "fill" | "submit" | "change"
            ) {
                out.push(format!(
                    "{at}: unknown event \"{event}\" (tap, longpress, fill, submit, change)"
                ));
            }
            self.check_effects(fx, &format!("{at}.on.{event}"), out);
        }
        for c in &e.children {
            self.check_element(c, at, out);
        }
    }

    fn check_effects(&self, fx: &Effects, at: &str, out: &mut Vec<String>) {
        for e in fx.list() {
            for s in [&e.go, &e.replace, &e.reset].into_iter().flatten() {
                if !self.screens.contains_key(s) {
                    out.push(format!("{at}: unknown screen \"{s}\""));
                }
            }
            if let Some(a) = &e.alert {
                if !self.alerts.contains_key(a) {
                    out.push(format!("{at}: unknown alert \"{a}\""));
                }
            }
            for sub in [&e.then_do, &e.then, &e.otherwise].into_iter().flatten() {
                self.check_effects(sub, at, out);
            }
        }
    }
}

/// Finds app models: an explicit `--app` file, else `apps/*.json` beside the script or in any
/// folder above it (then `examples/apps` of those folders).
#[derive(Debug, Clone, Default)]
pub struct ModelResolver {
    pub explicit: Option<PathBuf>,
    pub search_dirs: Vec<PathBuf>,
}

impl ModelResolver {
    /// The search path for a script at `script`.
    pub fn for_script(script: &Path, explicit: Option<PathBuf>) -> ModelResolver {
        let mut dirs = Vec::new();
        let start = script
            .parent()
            .map(Path::to_path_buf)
            .unwrap_or_else(|| PathBuf::from("."));
        let start = if start.as_os_str().is_empty() {
            PathBuf::from(".")
        } else {
            start
        };
        let abs = std::fs::canonicalize(&start).unwrap_or(start);
        for dir in abs.ancestors() {
            dirs.push(dir.join("apps"));
            dirs.push(dir.join("examples").join("apps"));
        }
        let mut search_dirs: Vec<PathBuf> = Vec::new();
        for d in dirs.into_iter().filter(|d| d.is_dir()) {
            // `<x>/examples/apps` and `<x>/examples` + `apps` are the same folder.
            let canonical = std::fs::canonicalize(&d).unwrap_or(d);
            if !search_dirs.contains(&canonical) {
                search_dirs.push(canonical);
            }
        }
        ModelResolver {
            explicit,
            search_dirs,
        }
    }

    /// The model to launch for `app`.
    pub fn resolve(&self, app: &str) -> Result<(PathBuf, AppModel), ModelError> {
        if let Some(p) = &self.explicit {
            if p.is_dir() {
                return Err(ModelError(format!(
                    "--app {}: is a folder, not an app model file (docs/sim-model.md)",
                    p.display()
                )));
            }
            let path = if p.is_file() {
                p.clone()
            } else {
                self.search_dirs
                    .iter()
                    .map(|d| d.join(format!("{}.json", p.display())))
                    .find(|c| c.is_file())
                    .ok_or_else(|| {
                        ModelError(format!(
                            "--app {}: no such model file (also looked for {}.json in {})",
                            p.display(),
                            p.display(),
                            self.describe_dirs()
                        ))
                    })?
            };
            let m = AppModel::load(&path)?;
            return Ok((path, m));
        }
        for dir in &self.search_dirs {
            let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
                .map(|rd| {
                    rd.filter_map(|e| e.ok().map(|e| e.path()))
                        .filter(|p| p.extension().is_some_and(|x| x == "json"))
                        .collect()
                })
                .unwrap_or_default();
            entries.sort();
            for path in entries {
                let stem_match = path.file_stem().is_some_and(|s| s == app);
                let model = AppModel::load(&path)?;
                if stem_match || model.answers_to(app) {
                    return Ok((path, model));
                }
            }
        }
        Err(ModelError(format!(
            "no app model for \"{app}\": looked for a model whose \"app\" is \"{app}\" in {}; write one (docs/sim-model.md) or pass --app FILE",
            self.describe_dirs()
        )))
    }

    fn describe_dirs(&self) -> String {
        if self.search_dirs.is_empty() {
            "no apps/ folder beside the script or above it".into()
        } else {
            self.search_dirs
                .iter()
                .map(|d| d.display().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        }
    }
}
