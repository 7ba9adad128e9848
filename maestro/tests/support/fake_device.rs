//! A scripted device serving a DEVICE.json of tests/fixtures/maestro-run/ (the format
//! oracle/maestro-run.mjs documents), behind `ad`'s `Backend` trait, recording each device
//! request in the oracle's vocabulary so the two engines' requests can be compared.

use std::collections::HashMap;

use ad_runtime::core::backend::{
    AlertAction, AlertInfo, Backend, BackendError, BackendResult, Capture, Direction, GesturePlan,
    KeyboardAction, KeyboardState, LaunchOptions, SystemKey, TapOptions,
};
use ad_runtime::core::tree::{Node, Point, Rect};
use serde_json::{json, Value};

pub struct FakeDevice {
    spec: Value,
    platform: String,
    viewport: Rect,
    screen: String,
    /// Snapshots taken since the screen was entered.
    polls: u64,
    /// Per screen: node key → typed value.
    values: HashMap<(String, String), String>,
    fails: Vec<Value>,
    clock: u64,
    pub ops: Vec<Value>,
}

fn rect_of(v: &Value) -> Option<Rect> {
    let r = v.get("rect")?;
    Some(Rect {
        x: r["x"].as_f64()?,
        y: r["y"].as_f64()?,
        width: r["width"].as_f64()?,
        height: r["height"].as_f64()?,
    })
}

fn key_of(v: &Value) -> Option<String> {
    v.get("key")
        .or_else(|| v.get("id"))
        .or_else(|| v.get("label"))
        .and_then(Value::as_str)
        .map(str::to_string)
}

impl FakeDevice {
    pub fn new(spec: Value) -> FakeDevice {
        let platform = if spec["platform"] == "android" {
            "android"
        } else {
            "ios"
        };
        let v = &spec["viewport"];
        let viewport = Rect {
            x: v["x"].as_f64().unwrap_or(0.0),
            y: v["y"].as_f64().unwrap_or(0.0),
            width: v["width"].as_f64().unwrap_or(390.0),
            height: v["height"].as_f64().unwrap_or(844.0),
        };
        let screen = spec["start"]
            .as_str()
            .map(str::to_string)
            .or_else(|| {
                spec["screens"]
                    .as_object()
                    .and_then(|m| m.keys().next().cloned())
            })
            .unwrap_or_default();
        let fails = spec["fail"].as_array().cloned().unwrap_or_default();
        FakeDevice {
            spec,
            platform: platform.into(),
            viewport,
            screen,
            polls: 0,
            values: HashMap::new(),
            fails,
            clock: 0,
            ops: Vec::new(),
        }
    }

    /// Records a request, then fails it when the device is scripted to (the request was made).
    fn record(&mut self, op: Value) -> BackendResult<()> {
        let name = op["op"].as_str().unwrap_or("").to_string();
        self.ops.push(op);
        self.failure(&name)
    }

    /// The injected failure of `op`, once.
    fn failure(&mut self, op: &str) -> BackendResult<()> {
        if let Some(i) = self.fails.iter().position(|f| f["op"] == op) {
            let f = self.fails.remove(i);
            return Err(BackendError::rejected(
                f["code"].as_str().unwrap_or("COMMAND_FAILED"),
                f["message"].as_str().unwrap_or("failed"),
            ));
        }
        Ok(())
    }

    fn nodes(&self) -> Vec<Value> {
        self.spec["screens"][&self.screen]
            .as_array()
            .cloned()
            .unwrap_or_default()
    }

    fn find_node(nodes: &[Value], key: &str) -> Option<Value> {
        for n in nodes {
            if key_of(n).as_deref() == Some(key) {
                return Some(n.clone());
            }
            if let Some(c) = n["children"].as_array() {
                if let Some(found) = Self::find_node(c, key) {
                    return Some(found);
                }
            }
        }
        None
    }

    fn focused_key(nodes: &[Value]) -> Option<String> {
        for n in nodes {
            if n["focused"] == true {
                return key_of(n);
            }
            if let Some(c) = n["children"].as_array() {
                if let Some(k) = Self::focused_key(c) {
                    return Some(k);
                }
            }
        }
        None
    }

    /// Applies the first rule on this screen that `matches`.
    fn transition(&mut self, matches: impl Fn(&Value, &FakeDevice) -> bool) {
        let rules = self.spec["on"].as_array().cloned().unwrap_or_default();
        for r in rules {
            if let Some(s) = r["screen"].as_str() {
                if s != self.screen {
                    continue;
                }
            }
            if matches(&r, self) {
                if let Some(go) = r["go"].as_str() {
                    self.screen = go.to_string();
                    self.polls = 0;
                }
                return;
            }
        }
    }

    fn convert(&self, v: &Value) -> Node {
        let key = key_of(v).unwrap_or_default();
        let typed = self.values.get(&(self.screen.clone(), key));
        Node {
            kind: v["type"].as_str().unwrap_or("Other").to_string(),
            id: v["id"].as_str().map(str::to_string),
            label: v["label"].as_str().map(str::to_string),
            value: typed
                .cloned()
                .or_else(|| v["value"].as_str().map(str::to_string)),
            rect: rect_of(v),
            enabled: v["enabled"].as_bool().unwrap_or(true),
            selected: v["selected"].as_bool().unwrap_or(false),
            focused: v["focused"].as_bool().unwrap_or(false),
            editable: false,
            hittable: v["hittable"].as_bool().unwrap_or(false),
            visible_to_user: v["visible"].as_bool(),
            children: v["children"]
                .as_array()
                .map(|c| c.iter().map(|n| self.convert(n)).collect())
                .unwrap_or_default(),
        }
    }

    fn point_op(&self, name: &str, at: Point) -> Value {
        json!({"op": name, "x": at.x, "y": at.y})
    }

    fn tapped(&mut self, at: Point) {
        self.transition(|r, d| {
            let Some(key) = r["tap"].as_str() else {
                return false;
            };
            FakeDevice::find_node(&d.nodes(), key)
                .and_then(|n| rect_of(&n))
                .is_some_and(|rect| rect.contains(at))
        });
    }
}

fn direction_word(d: Direction) -> &'static str {
    match d {
        Direction::Up | Direction::Top => "up",
        Direction::Down | Direction::Bottom => "down",
        Direction::Left => "left",
        Direction::Right => "right",
    }
}

impl Backend for FakeDevice {
    fn name(&self) -> &str {
        "fake"
    }
    fn platform(&self) -> &str {
        &self.platform
    }
    fn now_ms(&self) -> u64 {
        self.clock
    }
    async fn sleep(&mut self, ms: u64) {
        self.clock += ms;
    }
    async fn launch(&mut self, app: &str, options: &LaunchOptions) -> BackendResult<()> {
        let op = match &options.url {
            Some(url) => json!({"op": "openLink", "link": url, "appId": app}),
            None if options.args.is_empty() => {
                json!({"op": "launchApp", "appId": app, "relaunch": options.relaunch})
            }
            None => json!({
                "op": "launchApp", "appId": app, "relaunch": options.relaunch, "args": options.args
            }),
        };
        let is_link = options.url.is_some();
        self.record(op)?;
        let (app, url) = (app.to_string(), options.url.clone());
        self.transition(move |r, _| {
            if is_link {
                r["openLink"] == true || url.as_deref().is_some_and(|u| r["openLink"] == u)
            } else {
                r["launch"] == true || r["launch"] == app.as_str()
            }
        });
        Ok(())
    }
    async fn close(&mut self, app: Option<&str>) -> BackendResult<()> {
        self.record(match app {
            Some(a) => json!({"op": "stopApp", "appId": a}),
            None => json!({"op": "stopApp"}),
        })?;
        self.transition(|r, _| r["stop"] == true);
        Ok(())
    }
    async fn capture(&mut self) -> BackendResult<Capture> {
        self.record(json!({"op": "snapshot"}))?;
        self.polls += 1;
        let polls = self.polls;
        self.transition(|r, _| r["polls"].as_u64().is_some_and(|n| polls >= n));
        let nodes = self.nodes();
        let mut roots: Vec<Node> = nodes.iter().map(|n| self.convert(n)).collect();
        // A real snapshot's root: the application, as big as the screen (the oracle adds it
        // unless the screen has one).
        let has_root = nodes
            .iter()
            .any(|n| matches!(n["type"].as_str(), Some("Application" | "Window")));
        if !has_root {
            roots = vec![Node {
                kind: "Application".into(),
                id: None,
                label: None,
                value: None,
                rect: Some(self.viewport),
                enabled: true,
                selected: false,
                focused: false,
                editable: false,
                hittable: false,
                visible_to_user: None,
                children: roots,
            }];
        }
        Ok(Capture {
            roots,
            viewport: self.viewport,
            app: None,
        })
    }
    async fn tap(&mut self, at: Point, options: &TapOptions) -> BackendResult<()> {
        let name = if options.double_tap {
            "doubleTap"
        } else {
            "tap"
        };
        let mut op = self.point_op(name, at);
        if !options.double_tap && options.count > 1 {
            op["count"] = json!(options.count);
        }
        if options.interval_ms > 0 {
            op["intervalMs"] = json!(options.interval_ms);
        }
        self.record(op)?;
        self.tapped(at);
        Ok(())
    }
    async fn long_press(&mut self, at: Point, duration_ms: u64) -> BackendResult<()> {
        let mut op = self.point_op("longPress", at);
        op["holdMs"] = json!(duration_ms);
        self.record(op)?;
        self.tapped(at);
        Ok(())
    }
    async fn hover(&mut self, at: Point) -> BackendResult<()> {
        self.record(self.point_op("hover", at))?;
        Ok(())
    }
    async fn focus(&mut self, at: Point) -> BackendResult<()> {
        self.record(self.point_op("focus", at))?;
        Ok(())
    }
    async fn fill(&mut self, at: Point, text: &str, _delay: u64) -> BackendResult<()> {
        let mut op = self.point_op("fill", at);
        op["text"] = json!(text);
        self.record(op)?;
        Ok(())
    }
    async fn type_text(&mut self, text: &str, _delay: u64) -> BackendResult<()> {
        let erase = !text.is_empty() && text.chars().all(|c| c == '\u{8}');
        if erase {
            self.record(json!({"op": "erase", "count": text.chars().count()}))?;
        } else {
            self.record(json!({"op": "type", "text": text}))?;
        }
        if let Some(key) = Self::focused_key(&self.nodes()) {
            let slot = (self.screen.clone(), key.clone());
            let start = self.values.get(&slot).cloned().unwrap_or_else(|| {
                Self::find_node(&self.nodes(), &key)
                    .and_then(|n| n["value"].as_str().map(str::to_string))
                    .unwrap_or_default()
            });
            let mut value = start;
            for c in text.chars() {
                if c == '\u{8}' {
                    value.pop();
                } else {
                    value.push(c);
                }
            }
            self.values.insert(slot, value);
        }
        let typed = text.to_string();
        self.transition(move |r, _| {
            if erase {
                r["erase"] == true
            } else {
                r["type"] == true || r["type"] == typed.as_str()
            }
        });
        Ok(())
    }
    async fn scroll(&mut self, direction: Direction, _amount: Option<f64>) -> BackendResult<()> {
        let word = direction_word(direction);
        self.record(json!({"op": "scroll", "direction": word}))?;
        self.transition(|r, _| r["scroll"] == word || r["scroll"] == "any");
        Ok(())
    }
    async fn gesture(&mut self, plan: &GesturePlan) -> BackendResult<()> {
        let path = &plan.pointers[0];
        let (from, to) = (path[0], path[path.len() - 1]);
        self.record(json!({
            "op": "swipe",
            "from": {"x": from.x, "y": from.y},
            "to": {"x": to.x, "y": to.y},
            "durationMs": plan.duration_ms,
        }))?;
        let (dx, dy) = (to.x - from.x, to.y - from.y);
        let word = if dy.abs() >= dx.abs() {
            if dy < 0.0 {
                "up"
            } else {
                "down"
            }
        } else if dx < 0.0 {
            "left"
        } else {
            "right"
        };
        self.transition(|r, _| r["swipe"] == word || r["swipe"] == "any");
        Ok(())
    }
    async fn press_key(&mut self, key: SystemKey) -> BackendResult<()> {
        let name = match key {
            SystemKey::Back => "back",
            SystemKey::Home => "home",
            SystemKey::AppSwitcher => "app-switcher",
        };
        self.record(json!({"op": name}))?;
        self.transition(|r, _| r["key"] == name);
        Ok(())
    }
    async fn keyboard(&mut self, action: KeyboardAction) -> BackendResult<KeyboardState> {
        let name = match action {
            KeyboardAction::Dismiss => "dismiss",
            KeyboardAction::Enter => "enter",
            KeyboardAction::Status => "status",
        };
        self.record(json!({"op": "key", "key": name}))?;
        self.transition(|r, _| r["key"] == name);
        Ok(KeyboardState { visible: false })
    }
    async fn alert(&mut self, _action: AlertAction) -> BackendResult<Option<AlertInfo>> {
        Ok(None)
    }
    async fn clipboard_read(&mut self) -> BackendResult<String> {
        Ok(String::new())
    }
    async fn clipboard_write(&mut self, _text: &str) -> BackendResult<()> {
        Ok(())
    }
    async fn screenshot(&mut self) -> BackendResult<Vec<u8>> {
        self.record(json!({"op": "screenshot"}))?;
        Ok(vec![0x89, b'P', b'N', b'G'])
    }
    async fn other(&mut self, command: &str, positionals: &[String]) -> BackendResult<Value> {
        if command == "settings"
            && positionals.first().map(String::as_str) == Some("clear-app-state")
        {
            self.record(json!({"op": "clearState", "appId": positionals.get(1)}))?;
            self.transition(|r, _| r["clearState"] == true);
            return Ok(Value::Null);
        }
        self.record(json!({"op": command, "args": positionals}))?;
        Ok(Value::Null)
    }
}
