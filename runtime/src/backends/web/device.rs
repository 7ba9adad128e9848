//! The web backend as a device: the [`Backend`] calls on a live Chromium page. What the
//! browser cannot do fails with a typed `UNSUPPORTED_OPERATION` naming the backend and the
//! command, never silently.

use std::time::Duration;

use serde_json::{json, Value};

use super::{ax, protocol, Live, Web};
use crate::core::backend::*;
use crate::core::records::error_codes;
use crate::core::tree::{Node, Point, Rect};

fn unsupported(command: &str) -> BackendError {
    BackendError::rejected(
        error_codes::UNSUPPORTED_OPERATION,
        format!("the web backend does not support `{command}`"),
    )
    .with_hint("run this script on a backend that has the command (docs/web.md lists what the web backend carries out)")
}

/// Does `open` get something a browser can load?
fn is_url(s: &str) -> bool {
    s.contains("://") || s.starts_with("about:") || s.starts_with("data:")
}

fn no_page() -> BackendError {
    BackendError::rejected(error_codes::COMMAND_FAILED, "no page is open")
        .with_hint("open a URL first (`open \"https://…\"`)")
}

impl Web {
    fn live(&mut self) -> BackendResult<&mut Live> {
        self.live.as_mut().ok_or_else(no_page)
    }

    /// Refuses input while a dialog blocks the page, as a device refuses taps under an alert.
    fn page_for_input(&mut self, at: Option<Point>) -> BackendResult<&mut Live> {
        let live = self.live.as_mut().ok_or_else(no_page)?;
        live.pump();
        if live.dialog.is_some() {
            let where_ = at
                .map(|p| format!("the point ({}, {}) is covered by", p.x, p.y))
                .unwrap_or_else(|| "the page is blocked by".into());
            return Err(BackendError::rejected(
                error_codes::ELEMENT_OCCLUDED,
                format!("{where_} a browser dialog"),
            )
            .with_hint("handle the alert first (`alert accept` or `alert dismiss`)"));
        }
        Ok(live)
    }

    fn dialog_tree(&self, message: &str, kind: &str) -> Vec<Node> {
        let mut buttons = vec![Node {
            kind: "button".into(),
            label: Some("OK".into()),
            hittable: true,
            ..Node::default()
        }];
        if kind != "alert" {
            buttons.push(Node {
                kind: "button".into(),
                label: Some("Cancel".into()),
                hittable: true,
                ..Node::default()
            });
        }
        vec![Node {
            kind: "document".into(),
            rect: Some(self.viewport),
            children: vec![Node {
                kind: "alert".into(),
                label: Some(message.to_string()),
                children: buttons,
                ..Node::default()
            }],
            ..Node::default()
        }]
    }
}

impl Backend for Web {
    fn name(&self) -> &str {
        "web"
    }

    fn platform(&self) -> &str {
        "web"
    }

    fn now_ms(&self) -> u64 {
        self.started.elapsed().as_millis() as u64
    }

    async fn sleep(&mut self, ms: u64) {
        self.forget_capture();
        // Wall-clock time, in slices, so Ctrl-C stops a long `wait 60000` at once.
        let end = std::time::Instant::now() + Duration::from_millis(ms);
        while crate::core::interrupt::requested().is_none() {
            let left = end.saturating_duration_since(std::time::Instant::now());
            if left.is_zero() {
                break;
            }
            tokio::time::sleep(left.min(Duration::from_millis(100))).await;
        }
    }

    async fn poll_wait(&mut self, ms: u64) -> bool {
        self.forget_capture();
        match self.live.as_mut() {
            Some(live) => live.wait_for_change(Duration::from_millis(ms)).await,
            None => {
                self.sleep(ms).await;
                false
            }
        }
    }

    async fn launch(&mut self, app: &str, options: &LaunchOptions) -> BackendResult<()> {
        self.forget_capture();
        let url = options.url.clone().unwrap_or_else(|| app.to_string());
        if !is_url(&url) {
            return Err(BackendError::rejected(
                error_codes::APP_NOT_INSTALLED,
                format!("the web backend opens URLs; `{app}` is not one"),
            )
            .with_hint("open \"https://…\" (or http://127.0.0.1:… for a local app), or run this script on --backend sim"));
        }
        // Before the browser is asked: what it would show lands in the run's records.
        self.config.urls.check(&url).map_err(|why| {
            BackendError::rejected(
                crate::core::backend::LOCAL_URL_REFUSED,
                format!("open refused: {why}"),
            )
            .with_hint(super::urls::ALLOW_HINT)
        })?;
        if options.relaunch {
            // A fresh browser: no cookies, storage or history of the previous run.
            self.shut_down();
        }
        let live = self.ensure_live().await?;
        self.arrival = Some(live.navigate(&url).await?);
        self.url = Some(url);
        self.elements.clear();
        Ok(())
    }

    async fn close(&mut self, _app: Option<&str>) -> BackendResult<()> {
        self.shut_down();
        Ok(())
    }

    async fn capture(&mut self) -> BackendResult<Capture> {
        let viewport = self.viewport;
        let Some(live) = self.live.as_mut() else {
            return Ok(Capture {
                roots: vec![Node {
                    kind: "document".into(),
                    label: Some("No page".into()),
                    rect: Some(viewport),
                    ..Node::default()
                }],
                viewport,
                app: None,
            });
        };
        // Events the connection has read but not handed over yet are handled first: one that
        // says the page changed makes this capture a fresh one.
        tokio::task::yield_now().await;
        live.pump();
        if let Some(d) = live.dialog.clone() {
            self.kept = None;
            self.elements.clear();
            return Ok(Capture {
                roots: self.dialog_tree(&d.message, &d.kind),
                viewport,
                app: self.url.clone(),
            });
        }
        // Nothing acted on the page, no pause, no change reported, moments ago: the page is
        // the one the last capture read (its elements are still the backend's).
        let within = self.reuse_within;
        if let Some((_, kept)) = self
            .kept
            .as_ref()
            .filter(|(at, _)| !live.changed && at.elapsed() < within)
        {
            return Ok(kept.clone());
        }
        self.kept = None;
        // A document still loading (a navigation the page started) is captured once loaded.
        live.document_loaded(super::DOCUMENT_LOAD_BOUND).await;
        // What changes from now on may be missing from this capture: the next wait looks again.
        live.changed = false;
        // Three calls in flight at once: the tree, the layout and the viewport.
        let ax_rx = live.send(&protocol::GetFullAxTree {});
        let dom_rx = live.send(&protocol::CaptureSnapshot {
            computed_styles: Vec::new(),
            include_dom_rects: true,
        });
        let vp_rx = live.send(&protocol::GetLayoutMetrics {});
        let mut results = Vec::with_capacity(3);
        for (rx, method) in [
            (ax_rx, "Accessibility.getFullAXTree"),
            (dom_rx, "DOMSnapshot.captureSnapshot"),
            (vp_rx, "Page.getLayoutMetrics"),
        ] {
            match live.wait_reply(rx, method, true).await {
                Ok(v) => results.push(v),
                Err(super::PageError::Dialog) => {
                    let d = live.dialog.clone().unwrap_or(super::Dialog {
                        kind: "alert".into(),
                        message: String::new(),
                    });
                    self.elements.clear();
                    return Ok(Capture {
                        roots: self.dialog_tree(&d.message, &d.kind),
                        viewport,
                        app: self.url.clone(),
                    });
                }
                Err(e) => return Err(e.into_backend("cannot capture the page")),
            }
        }
        let (Some(vp), Some(dom), Some(tree)) = (results.pop(), results.pop(), results.pop())
        else {
            return Err(BackendError::Transport {
                message: "cannot capture the page: an answer is missing".into(),
            });
        };
        let tree = Live::decode::<protocol::GetFullAxTree>(&tree)
            .map_err(|e| e.into_backend("cannot read the accessibility tree"))?;
        let dom = Live::decode::<protocol::CaptureSnapshot>(&dom)
            .map_err(|e| e.into_backend("cannot read the page layout"))?;
        if let Ok(m) = Live::decode::<protocol::GetLayoutMetrics>(&vp) {
            self.viewport = Rect {
                x: 0.0,
                y: 0.0,
                width: m.css_layout_viewport.client_width,
                height: m.css_layout_viewport.client_height,
            };
        }
        if let Some(url) = dom
            .documents
            .first()
            .and_then(|d| dom.strings.get(d.document_url as usize))
        {
            self.url = Some(url.clone());
        }
        let answered = std::time::Instant::now();
        self.captures_taken += 1;
        let facts = ax::dom_facts(&dom);
        let (roots, elements) = ax::map_tree(&tree.nodes, &facts);
        self.elements = elements;
        let capture = Capture {
            roots,
            viewport: self.viewport,
            app: self.url.clone(),
        };
        self.kept = Some((answered, capture.clone()));
        Ok(capture)
    }

    async fn tap(&mut self, at: Point, options: &TapOptions) -> BackendResult<()> {
        self.forget_capture();
        let el = self.element_at(at).cloned();
        let button = match options.button.as_str() {
            "secondary" | "right" => "right",
            "middle" => "middle",
            _ => "left",
        };
        let live = self.page_for_input(Some(at))?;
        if let Some(row) = el.as_ref().filter(|e| e.choice == Some(ax::Choice::Row)) {
            return live.choose(row, at, None).await;
        }
        let p = match &el {
            Some(el) => live.point_at(el, at).await?,
            None => at,
        };
        for i in 0..options.count.max(1) {
            if i > 0 && options.interval_ms > 0 {
                tokio::time::sleep(Duration::from_millis(options.interval_ms)).await;
            }
            if options.double_tap {
                // A double click on each press iteration: the second press carries click count
                // 2, so the page gets `click`, `click`, `dblclick` as from a user.
                live.click_at(p, 1, 0, button).await?;
                live.click_at(p, 2, 0, button).await?;
            } else {
                live.click_at(p, 1, options.hold_ms, button).await?;
            }
        }
        Ok(())
    }

    async fn long_press(&mut self, at: Point, duration_ms: u64) -> BackendResult<()> {
        self.forget_capture();
        let el = self.element_at(at).cloned();
        let live = self.page_for_input(Some(at))?;
        let p = match &el {
            Some(el) => live.point_at(el, at).await?,
            None => at,
        };
        live.click_at(p, 1, duration_ms, "left").await
    }

    async fn hover(&mut self, at: Point) -> BackendResult<()> {
        self.forget_capture();
        let el = self.element_at(at).cloned();
        let live = self.page_for_input(Some(at))?;
        match &el {
            Some(el) => live.point_at(el, at).await.map(|_| ()),
            None => live.move_to(at).await,
        }
    }

    async fn focus(&mut self, at: Point) -> BackendResult<()> {
        self.forget_capture();
        let el = self.element_at(at).cloned();
        let live = self.page_for_input(Some(at))?;
        let Some(el) = el else {
            return Err(BackendError::rejected(
                error_codes::COMMAND_FAILED,
                format!("there is no element at ({}, {})", at.x, at.y),
            ));
        };
        live.bring_into_view(&el, at).await?;
        live.call(&protocol::Focus {
            backend_node_id: el.backend_id,
        })
        .await
        .map(|_| ())
        .map_err(|e| e.into_backend("cannot focus the element"))
    }

    async fn fill(&mut self, at: Point, text: &str, delay_ms: u64) -> BackendResult<()> {
        self.forget_capture();
        let el = self.field_at(at).cloned();
        let live = self.page_for_input(Some(at))?;
        let Some(el) = el.filter(|e| e.editable || e.choice.is_some()) else {
            return Err(BackendError::rejected(
                error_codes::COMMAND_FAILED,
                format!("the element at ({}, {}) is not editable", at.x, at.y),
            )
            .with_hint("fill targets a text field or a select; use click for buttons"));
        };
        live.replace_text(&el, at, text, delay_ms).await
    }

    async fn type_text(&mut self, text: &str, delay_ms: u64) -> BackendResult<()> {
        self.forget_capture();
        let live = self.page_for_input(None)?;
        if live.eval(super::input::FOCUS_EDITABLE).await? != Value::Bool(true) {
            return Err(BackendError::rejected(
                error_codes::COMMAND_FAILED,
                "no element has focus to type into",
            )
            .with_hint("tap or fill a text field first"));
        }
        live.insert_text(text, delay_ms).await
    }

    async fn scroll(&mut self, direction: Direction, amount: Option<f64>) -> BackendResult<()> {
        self.forget_capture();
        let viewport = self.viewport;
        let live = self.page_for_input(None)?;
        // A document still loading (a navigation the page started) has no layout to measure.
        live.document_loaded(super::DOCUMENT_LOAD_BOUND).await;
        // The region is looked up now, not in the last capture: the page may have changed.
        let region = match live.eval(super::input::LARGEST_SCROLLER).await? {
            Value::Array(v) if v.len() == 4 => Rect {
                x: v[0].as_f64().unwrap_or(0.0),
                y: v[1].as_f64().unwrap_or(0.0),
                width: v[2].as_f64().unwrap_or(0.0),
                height: v[3].as_f64().unwrap_or(0.0),
            },
            _ => viewport,
        };
        let at = region.center();
        let fraction = amount.unwrap_or(0.5);
        let (dx, dy) = match direction {
            Direction::Down => (0.0, region.height * fraction),
            Direction::Up => (0.0, -region.height * fraction),
            Direction::Right => (region.width * fraction, 0.0),
            Direction::Left => (-region.width * fraction, 0.0),
            Direction::Bottom => (0.0, 1.0e7),
            Direction::Top => (0.0, -1.0e7),
        };
        live.wheel(at, dx, dy).await
    }

    async fn gesture(&mut self, plan: &GesturePlan) -> BackendResult<()> {
        self.forget_capture();
        if plan.pointers.len() != 1 {
            return Err(unsupported(&format!("gesture {}", plan.kind.word())));
        }
        let path = plan.pointers[0].clone();
        let live = self.page_for_input(path.first().copied())?;
        if plan.kind == GestureKind::Swipe {
            // A finger stroke scrolls the content the other way: wheel turns of its length.
            if let (Some(a), Some(b)) = (path.first(), path.last()) {
                for _ in 0..plan.repeat.max(1) {
                    live.wheel(*a, a.x - b.x, a.y - b.y).await?;
                }
            }
            return Ok(());
        }
        for _ in 0..plan.repeat.max(1) {
            live.drag(&path, plan.duration_ms).await?;
        }
        Ok(())
    }

    async fn press_key(&mut self, key: SystemKey) -> BackendResult<()> {
        self.forget_capture();
        match key {
            SystemKey::Back => {
                let live = self.live()?;
                live.pump();
                if live.dialog.is_some() {
                    // Back on a dialog closes it, as on a device.
                    return live
                        .call_through_dialog(&protocol::HandleJavaScriptDialog { accept: false })
                        .await
                        .map(|_| {
                            live.dialog = None;
                        })
                        .map_err(|e| e.into_backend("cannot close the dialog"));
                }
                let history = live
                    .call(&protocol::GetNavigationHistory {})
                    .await
                    .map_err(|e| e.into_backend("cannot read the history"))?;
                if history.current_index == 0 {
                    return Ok(());
                }
                let entry = &history.entries[history.current_index - 1];
                let (url, id) = (entry.url.clone(), entry.id);
                self.arrival = Some(live.go_to_history_entry(id).await?);
                self.url = Some(url);
                self.elements.clear();
                Ok(())
            }
            SystemKey::Home => Err(unsupported("home")),
            SystemKey::AppSwitcher => Err(unsupported("app-switcher")),
        }
    }

    async fn keyboard(&mut self, action: KeyboardAction) -> BackendResult<KeyboardState> {
        self.forget_capture();
        let live = self.page_for_input(None)?;
        let editing = live.eval(super::input::FOCUS_EDITABLE).await? == Value::Bool(true);
        match action {
            KeyboardAction::Status => {}
            KeyboardAction::Dismiss => {
                live.eval("document.activeElement && document.activeElement.blur()")
                    .await?;
            }
            KeyboardAction::Enter => {
                if !editing {
                    return Err(BackendError::rejected(
                        error_codes::COMMAND_FAILED,
                        "the keyboard is not shown",
                    )
                    .with_hint("focus a text field first"));
                }
                live.key("Enter").await?;
            }
        }
        // A browser has no on-screen keyboard: it is "shown" while a text field has focus.
        let visible = match live.eval(super::input::FOCUS_EDITABLE).await {
            Ok(v) => v == Value::Bool(true),
            Err(_) => false,
        };
        Ok(KeyboardState { visible })
    }

    async fn alert(&mut self, action: AlertAction) -> BackendResult<Option<AlertInfo>> {
        self.forget_capture();
        let live = self.live()?;
        live.pump();
        let Some(d) = live.dialog.clone() else {
            return Ok(None);
        };
        let mut buttons = vec!["OK".to_string()];
        if d.kind != "alert" {
            buttons.push("Cancel".into());
        }
        let info = AlertInfo {
            title: d.message.clone(),
            message: None,
            buttons,
        };
        if action != AlertAction::Get {
            let accept = action == AlertAction::Accept;
            live.call_through_dialog(&protocol::HandleJavaScriptDialog { accept })
                .await
                .map_err(|e| e.into_backend("cannot answer the dialog"))?;
            live.dialog = None;
        }
        Ok(Some(info))
    }

    async fn clipboard_read(&mut self) -> BackendResult<String> {
        Err(unsupported("clipboard read"))
    }

    async fn clipboard_write(&mut self, _text: &str) -> BackendResult<()> {
        Err(unsupported("clipboard write"))
    }

    async fn screenshot(&mut self) -> BackendResult<Vec<u8>> {
        let live = self.page_for_input(None)?;
        let shot = live
            .call(&protocol::CaptureScreenshot { format: "png" })
            .await
            .map_err(|e| e.into_backend("cannot take a screenshot"))?;
        data_encoding::BASE64
            .decode(shot.data.as_bytes())
            .map_err(|e| {
                BackendError::rejected(
                    error_codes::COMMAND_FAILED,
                    format!("the screenshot is not base64: {e}"),
                )
            })
    }

    async fn other(&mut self, command: &str, _positionals: &[String]) -> BackendResult<Value> {
        match command {
            "appstate" => Ok(self.location()),
            "devices" | "capabilities" | "doctor" => {
                Ok(json!({"device": "web", "platform": "web"}))
            }
            _ => Err(unsupported(command)),
        }
    }

    fn location(&self) -> Value {
        json!({ "app": self.url, "url": self.url })
    }
}
