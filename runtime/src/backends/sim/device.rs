//! The sim as a device backend: the [`Backend`] calls on top of the model, clock, layout and
//! input.

use std::collections::BTreeMap;
use std::sync::Arc;

use serde_json::{json, Value};

use super::model::AppModel;
use super::*;
use crate::core::backend::*;
use crate::core::records::error_codes;
use crate::core::tree::{Node, Point, Rect};

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
                // A missing or invalid model is what the sim lacks, not what the script did.
                let (path, m) = self
                    .resolver
                    .resolve(app)
                    .map_err(|e| BackendError::unavailable("sim", e.0, Some(super::MODEL_HINT)))?;
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
                    error_codes::COMMAND_FAILED,
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
        // `--double-tap` doubles each of the `--count` taps, as the web backend does.
        let n = options.count.max(1) * if options.double_tap { 2 } else { 1 };
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
            // A select, or one of its options (the centre of a list box is over an option).
            let screen = self.state.apps[&app].stack.last().map(|s| s.screen.clone());
            let is_select = |p: &Vec<usize>| {
                screen
                    .as_deref()
                    .and_then(|s| Self::element_at(&model, s, p))
                    .is_some_and(|e| input::is_choice_type(e.kind.as_deref().unwrap_or("")))
            };
            let select = std::iter::successors(Some(i), |&j| laid.hits[j].parent)
                .take(2)
                .find_map(|j| laid.hits[j].path.clone().filter(is_select));
            if let Some(select) = select {
                return self.choose(&model, &app, &laid, &select, input::Choose::Text(text));
            }
            return Err(BackendError::rejected(
                error_codes::COMMAND_FAILED,
                format!("the element at ({}, {}) is not editable", at.x, at.y),
            )
            .with_hint("fill targets a text field or a select; use click for buttons"));
        }
        if !h.enabled {
            return Err(BackendError::rejected(
                error_codes::COMMAND_FAILED,
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
                error_codes::COMMAND_FAILED,
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
        let value = a.values.entry(key.clone()).or_default();
        // A backspace deletes the character before it, as a keyboard's does (agent-device's
        // `type "\b\b"`, Maestro's eraseText).
        for ch in text.chars() {
            if ch == '\u{8}' {
                value.pop();
            } else {
                value.push(ch);
            }
        }
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
                if plan.kind == GestureKind::Swipe && (dx.abs() > 1.0 || dy.abs() > 1.0) {
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
        self.state.last_action = Some(format!("gesture {}", plan.kind.word()));
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
                        error_codes::COMMAND_FAILED,
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
                        error_codes::INVALID_ARGS,
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
            // Every other device command (`record`, `trace`, `perf`, `logs`, …): a typed refusal
            // naming the backend, never a silent success.
            _ => Err(BackendError::rejected(
                error_codes::UNSUPPORTED_OPERATION,
                format!("the sim backend does not support `{command}`"),
            )
            .with_hint("run this script on a backend that has the command (docs/sim-model.md lists what the sim carries out)")),
        }
    }

    fn location(&self) -> Value {
        self.describe()
    }

    /// `ad run` keeps the sim's state in the state folder for `--from`.
    fn resumes_at_step(&self) -> bool {
        true
    }
}
