//! [`AgentDevice`]: the [`Backend`] that forwards device-level requests to the agent-device
//! daemon. Element actions arrive as the point of the element the interpreter resolved and
//! verified; the bridge never hands agent-device a selector to resolve again (that would bypass
//! `ad`'s identity verification).

use std::path::PathBuf;
use std::time::{Duration, Instant};

use serde_json::{json, Map, Value};

use super::client::{Client, Endpoint};
use super::nodes;
use crate::backend::*;
use crate::tree::Point;

/// The bridge to one agent-device session.
#[derive(Debug)]
pub struct AgentDevice {
    client: Client,
    platform: String,
    started: Instant,
    /// The foreground app as the last capture or open saw it.
    app: Option<String>,
    /// Apps this run opened, and the PIDs captures showed for them.
    opened: Vec<String>,
    opened_pids: Vec<u32>,
}

fn coord(v: f64) -> String {
    // agent-device reads integers; rect centres can be half points.
    format!("{}", v.round() as i64)
}

fn at(p: Point) -> Vec<String> {
    vec![coord(p.x), coord(p.y)]
}

fn flags(pairs: &[(&str, Value)]) -> Map<String, Value> {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.clone()))
        .collect()
}

impl AgentDevice {
    pub fn new(client: Client, platform: impl Into<String>) -> AgentDevice {
        AgentDevice {
            client,
            platform: platform.into(),
            started: Instant::now(),
            app: None,
            opened: Vec::new(),
            opened_pids: Vec::new(),
        }
    }

    pub fn client(&self) -> &Client {
        &self.client
    }

    /// Ends what this run left on a daemon `ad` does not own: its agent-device session (so the
    /// device is free for the next script) and, on a local daemon, the apps it opened, by PID
    /// (agent-device's `close` does not always quit a desktop app).
    pub async fn release(&mut self) {
        let _ = self
            .client
            .send("close", &[], &Map::new(), Some(Duration::from_secs(20)))
            .await;
        if matches!(self.client.endpoint, Endpoint::Remote { .. }) {
            return;
        }
        for pid in self.opened_pids.drain(..) {
            #[cfg(unix)]
            // SAFETY: a signal to a PID the daemon reported for an app this run opened.
            unsafe {
                libc::kill(pid as i32, libc::SIGTERM);
            }
        }
    }

    /// One request; an `UNSUPPORTED_OPERATION` names the platform that cannot do it.
    async fn send(
        &mut self,
        command: &str,
        positionals: Vec<String>,
        flags: Map<String, Value>,
        timeout: Option<Duration>,
    ) -> BackendResult<Value> {
        let r = self
            .client
            .send(command, &positionals, &flags, timeout)
            .await;
        r.map_err(|e| match e {
            BackendError::Rejected {
                code,
                message,
                hint,
            } if code == "UNSUPPORTED_OPERATION" && !message.contains(&self.platform) => {
                BackendError::Rejected {
                    code,
                    message: format!("{message} (platform {})", self.platform),
                    hint,
                }
            }
            other => other,
        })
    }

    async fn unit(
        &mut self,
        command: &str,
        positionals: Vec<String>,
        flags: Map<String, Value>,
    ) -> BackendResult<()> {
        self.send(command, positionals, flags, None)
            .await
            .map(|_| ())
    }

    fn unsupported(&self, what: &str) -> BackendError {
        BackendError::rejected(
            "UNSUPPORTED_OPERATION",
            format!(
                "{what} through agent-device is not supported on platform {}",
                self.platform
            ),
        )
    }
}

impl Backend for AgentDevice {
    fn name(&self) -> &str {
        "agent-device"
    }

    fn platform(&self) -> &str {
        &self.platform
    }

    fn now_ms(&self) -> u64 {
        self.started.elapsed().as_millis() as u64
    }

    async fn sleep(&mut self, ms: u64) {
        tokio::time::sleep(Duration::from_millis(ms)).await;
    }

    async fn launch(&mut self, app: &str, options: &LaunchOptions) -> BackendResult<()> {
        let mut p = vec![app.to_string()];
        p.extend(options.url.clone());
        let f = if options.relaunch {
            flags(&[("relaunch", json!(true))])
        } else {
            Map::new()
        };
        // Opening may boot a simulator or an emulator first.
        self.send("open", p, f, Some(Duration::from_secs(180)))
            .await?;
        self.app = Some(app.to_string());
        Ok(())
    }

    async fn close(&mut self, app: Option<&str>) -> BackendResult<()> {
        let p = app.map(|a| vec![a.to_string()]).unwrap_or_default();
        self.unit("close", p, Map::new()).await?;
        self.app = None;
        Ok(())
    }

    async fn capture(&mut self) -> BackendResult<Capture> {
        let data = self.send("snapshot", Vec::new(), Map::new(), None).await?;
        let c = nodes::capture(&data);
        for (app, pid) in nodes::app_pids(&data) {
            if self.opened.contains(&app) && !self.opened_pids.contains(&pid) {
                self.opened_pids.push(pid);
            }
        }
        if c.app.is_some() {
            self.app.clone_from(&c.app);
        }
        Ok(c)
    }

    async fn tap(&mut self, point: Point, options: &TapOptions) -> BackendResult<()> {
        let mut f = Map::new();
        if options.count > 1 {
            f.insert("count".into(), json!(options.count));
        }
        if options.interval_ms > 0 {
            f.insert("intervalMs".into(), json!(options.interval_ms));
        }
        if options.hold_ms > 0 {
            f.insert("holdMs".into(), json!(options.hold_ms));
        }
        if options.double_tap {
            f.insert("doubleTap".into(), json!(true));
        }
        let command = if options.button == "primary" {
            "press"
        } else {
            f.insert("clickButton".into(), json!(options.button));
            "click"
        };
        self.unit(command, at(point), f).await
    }

    async fn long_press(&mut self, point: Point, duration_ms: u64) -> BackendResult<()> {
        let mut p = at(point);
        p.push(duration_ms.to_string());
        self.unit("longpress", p, Map::new()).await
    }

    async fn hover(&mut self, point: Point) -> BackendResult<()> {
        self.unit("hover", at(point), Map::new()).await
    }

    async fn focus(&mut self, point: Point) -> BackendResult<()> {
        self.unit("focus", at(point), Map::new()).await
    }

    async fn fill(&mut self, point: Point, text: &str, delay_ms: u64) -> BackendResult<()> {
        let mut p = at(point);
        p.push(text.to_string());
        let f = if delay_ms > 0 {
            flags(&[("delayMs", json!(delay_ms))])
        } else {
            Map::new()
        };
        self.unit("fill", p, f).await
    }

    async fn type_text(&mut self, text: &str, delay_ms: u64) -> BackendResult<()> {
        let f = if delay_ms > 0 {
            flags(&[("delayMs", json!(delay_ms))])
        } else {
            Map::new()
        };
        self.unit("type", vec![text.to_string()], f).await
    }

    async fn scroll(&mut self, direction: Direction, amount: Option<f64>) -> BackendResult<()> {
        let word = serde_json::to_value(direction)
            .ok()
            .and_then(|v| v.as_str().map(str::to_string))
            .unwrap_or_default();
        let mut p = vec![word];
        p.extend(amount.map(|a| a.to_string()));
        self.unit("scroll", p, Map::new()).await
    }

    async fn gesture(&mut self, plan: &GesturePlan) -> BackendResult<()> {
        // A one-pointer swipe is agent-device's `swipe` (a fling: it takes no duration). Timed
        // and multi-pointer gestures (`pan`, `pinch`, `rotate`, `drag`) have no point-path
        // request in agent-device, so the bridge does not map them yet.
        match plan.pointers.as_slice() {
            [path] if path.len() >= 2 && plan.kind == GestureKind::Swipe => {
                let (a, b) = (path[0], path[path.len() - 1]);
                let point = |p: Point| json!({"x": p.x.round(), "y": p.y.round()});
                let mut input = json!({"from": point(a), "to": point(b)});
                if plan.repeat > 1 {
                    input["count"] = json!(plan.repeat);
                }
                self.client
                    .send_input("swipe", input, &Map::new(), None)
                    .await
                    .map(|_| ())
            }
            _ => Err(BackendError::rejected(
                "UNSUPPORTED_OPERATION",
                format!(
                    "a {}-pointer {} gesture is not mapped by ad's agent-device bridge yet (platform {})",
                    plan.pointers.len(),
                    plan.kind.word(),
                    self.platform
                ),
            )),
        }
    }

    async fn press_key(&mut self, key: SystemKey) -> BackendResult<()> {
        let command = match key {
            SystemKey::Back => "back",
            SystemKey::Home => "home",
            SystemKey::AppSwitcher => "app-switcher",
        };
        self.unit(command, Vec::new(), Map::new()).await
    }

    async fn keyboard(&mut self, action: KeyboardAction) -> BackendResult<KeyboardState> {
        let word = match action {
            KeyboardAction::Status => "status",
            KeyboardAction::Dismiss => "dismiss",
            KeyboardAction::Enter => "enter",
        };
        let data = self
            .send("keyboard", vec![word.into()], Map::new(), None)
            .await?;
        let visible = data
            .get("visible")
            .or_else(|| data.get("keyboardVisible"))
            .and_then(Value::as_bool)
            .unwrap_or(false);
        Ok(KeyboardState { visible })
    }

    async fn alert(&mut self, action: AlertAction) -> BackendResult<Option<AlertInfo>> {
        let word = match action {
            AlertAction::Get => "get",
            AlertAction::Accept => "accept",
            AlertAction::Dismiss => "dismiss",
        };
        let data = self
            .send("alert", vec![word.into()], Map::new(), None)
            .await?;
        let alert = data.get("alert").unwrap_or(&data);
        let title = alert.get("title").and_then(Value::as_str);
        Ok(title.map(|t| AlertInfo {
            title: t.to_string(),
            message: alert
                .get("message")
                .and_then(Value::as_str)
                .map(str::to_string),
            buttons: alert
                .get("buttons")
                .and_then(Value::as_array)
                .map(|b| {
                    b.iter()
                        .filter_map(|x| x.as_str().map(str::to_string))
                        .collect()
                })
                .unwrap_or_default(),
        }))
    }

    async fn clipboard_read(&mut self) -> BackendResult<String> {
        let data = self
            .send("clipboard", vec!["read".into()], Map::new(), None)
            .await?;
        Ok(data
            .get("text")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string())
    }

    async fn clipboard_write(&mut self, text: &str) -> BackendResult<()> {
        self.unit(
            "clipboard",
            vec!["write".into(), text.to_string()],
            Map::new(),
        )
        .await
    }

    async fn screenshot(&mut self) -> BackendResult<Vec<u8>> {
        if matches!(self.client.endpoint, Endpoint::Remote { .. }) {
            // The file is written on the daemon's host.
            return Err(self.unsupported("a screenshot from a remote daemon"));
        }
        let path = temp_png();
        let result = self
            .send(
                "screenshot",
                vec![path.display().to_string()],
                Map::new(),
                None,
            )
            .await;
        let bytes = result.and_then(|data| {
            let written = data
                .get("path")
                .and_then(Value::as_str)
                .map(PathBuf::from)
                .unwrap_or_else(|| path.clone());
            std::fs::read(&written).map_err(|e| BackendError::Transport {
                message: format!("cannot read the screenshot agent-device wrote: {e}"),
            })
        });
        let _ = std::fs::remove_file(&path);
        bytes
    }

    async fn other(&mut self, command: &str, positionals: &[String]) -> BackendResult<Value> {
        // Platform commands (`settings`, `react-native`, `tv-remote`, …) pass through as written.
        self.send(command, positionals.to_vec(), Map::new(), None)
            .await
    }

    fn location(&self) -> Value {
        json!({"app": self.app, "platform": self.platform})
    }
}

/// A fresh path under the temp dir for one screenshot (removed once read).
fn temp_png() -> PathBuf {
    use std::sync::atomic::{AtomicU32, Ordering};
    static N: AtomicU32 = AtomicU32::new(0);
    std::env::temp_dir().join(format!(
        "ad-shot-{}-{}.png",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    ))
}
