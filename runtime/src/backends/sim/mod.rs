//! The embedded simulated device ("sim"): runs hand-written app models (docs/sim-model.md)
//! deterministically on a virtual clock. Waits and timeouts cost no wall time; only an explicit
//! `stallMs` effect blocks for real.
//!
//! - `mod.rs`: the device's state (running apps, screens, timers, clipboard) and the [`Sim`];
//! - [`model`]: the JSON app model and how it is found;
//! - `clock.rs`: the virtual clock and the timers it fires;
//! - `effects.rs`: the model's conditions and effects;
//! - `layout.rs`: a screen laid out as the accessibility tree a capture returns;
//! - `input.rs`: hit testing, handlers, taps and scrolling;
//! - `device.rs`: the [`Backend`] calls;
//! - `persist.rs`: a live session saved between runs (owner-only, secrets masked);
//! - `png.rs`: screenshots.

mod clock;
mod device;
mod effects;
mod input;
mod layout;
pub mod model;
mod persist;
mod png;

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use crate::core::records::error_codes;
use model::Effects;
pub use model::{AppModel, ModelError, ModelResolver};

/// How to give the sim an app model it lacks (a set-up error of the sim).
pub const MODEL_HINT: &str = "the sim runs app models: pass --app FILE, or put <name>.json with \"app\": \"<id>\" in an apps/ folder beside the script (docs/sim-model.md)";

use crate::core::backend::*;

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

    pub(super) fn fg(&self) -> BackendResult<(Arc<AppModel>, String)> {
        let app = self.state.foreground.clone().ok_or_else(|| {
            BackendError::rejected(error_codes::COMMAND_FAILED, "no app is in the foreground")
                .with_hint("open the app first (`open \"<app id>\"`)")
        })?;
        let model = self.models.get(&app).cloned().ok_or_else(|| {
            BackendError::rejected(
                error_codes::COMMAND_FAILED,
                format!("app {app} is not loaded"),
            )
        })?;
        Ok((model, app))
    }

    pub(super) fn app_mut(&mut self, app: &str) -> &mut AppState {
        self.state.apps.get_mut(app).expect("running app")
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

    pub(super) fn model_paths_insert(&mut self, app: &str, path: PathBuf) {
        self.paths.insert(app.to_string(), path);
    }

    pub(super) fn model_path(&self, app: &str) -> PathBuf {
        self.paths.get(app).cloned().unwrap_or_default()
    }
}
