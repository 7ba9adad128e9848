//! Input as a user gives it: the element a point was resolved to is scrolled into view, and
//! real mouse events go to its centre after checking that it is still the element under the
//! pointer (an element that disappeared or was covered between resolve and act is refused, not
//! clicked through); keys and text through `Input.dispatchKeyEvent`, one key press per
//! character as agent-device's web `fill` and `type` (agent-browser's `keyboard type`) do;
//! scrolling through wheel events.

use serde::Serialize;
use serde_json::{json, Value};

use super::ax::{Choice, Element};
use super::protocol::{self, CallArgument, DispatchMouseEvent};
use super::{Live, PageError};
use crate::core::backend::{BackendError, BackendResult};
use crate::core::records::error_codes;
use crate::core::tree::{Point, Rect};

/// Is the element still in the page, and is it (or its content) what the pointer is over?
const HIT_CHECK: &str = "function(x, y) {
  if (!this.isConnected) return 'gone';
  const hit = document.elementFromPoint(x, y);
  if (!hit) return 'covered';
  if (hit === this || this.contains(hit) || (this.nodeType !== 1 && hit.contains(this))) return 'ok';
  return 'covered';
}";

/// A user's choice in a native `<select>` (`this` is the select or one of its options; `text`
/// names the option by its label, else its value, when `this` is the select). As a choice in
/// the browser's own list does, it focuses the select and fires `input` and `change` only when
/// the selection changed.
const CHOOSE: &str = "function(text) {
  const sel = this.tagName === 'SELECT' ? this : (this.tagName === 'OPTION' ? this.closest('select') : null);
  if (!sel) return { error: 'not-select' };
  const norm = s => s.replace(/\\s+/g, ' ').trim();
  const options = Array.from(sel.options);
  const opt = this.tagName === 'OPTION' ? this
    : options.find(o => norm(o.label) === norm(text)) || options.find(o => o.value === text);
  if (!opt) return { error: 'no-option', options: options.map(o => norm(o.label)) };
  if (sel.disabled || opt.disabled) return { error: 'disabled', option: norm(opt.label) };
  sel.focus();
  const before = options.map(o => o.selected).join();
  if (sel.multiple) { for (const o of options) o.selected = o === opt; } else { opt.selected = true; }
  if (options.map(o => o.selected).join() !== before) {
    sel.dispatchEvent(new Event('input', { bubbles: true, composed: true }));
    sel.dispatchEvent(new Event('change', { bubbles: true }));
  }
  return { chosen: norm(opt.label) };
}";

/// One `Input.dispatchKeyEvent` for a typed character or a chord (the protocol module's
/// `DispatchKeyEvent` holds only the named keys).
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct KeyEvent<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    key: &'a str,
    code: &'a str,
    modifiers: u32,
    windows_virtual_key_code: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    text: Option<&'a str>,
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    commands: &'a [&'a str],
}

impl protocol::Command for KeyEvent<'_> {
    const METHOD: &'static str = "Input.dispatchKeyEvent";
    type Response = protocol::Empty;
}

/// The `Ctrl` modifier bit of `Input.dispatchKeyEvent`.
const CTRL: u32 = 2;

/// The box of the largest element the user could scroll now (its content overflows and its
/// style lets it scroll), or null for the page itself.
pub(super) const LARGEST_SCROLLER: &str = "(() => {
  let best = null, area = 0;
  for (const e of document.querySelectorAll('*')) {
    if (e === document.documentElement || e === document.body) continue;
    if (e.scrollHeight <= e.clientHeight + 1 && e.scrollWidth <= e.clientWidth + 1) continue;
    const s = getComputedStyle(e);
    if (!/(auto|scroll)/.test(s.overflowY + ' ' + s.overflowX)) continue;
    const r = e.getBoundingClientRect();
    const w = Math.min(r.right, innerWidth) - Math.max(r.left, 0);
    const h = Math.min(r.bottom, innerHeight) - Math.max(r.top, 0);
    if (w > 0 && h > 0 && w * h > area) { area = w * h; best = [Math.max(r.left, 0), Math.max(r.top, 0), w, h]; }
  }
  return best;
})()";

/// Is the focused element one that takes text?
pub(super) const FOCUS_EDITABLE: &str = "(() => { const e = document.activeElement; return !!e && (e.isContentEditable || e.tagName === 'TEXTAREA' || (e.tagName === 'INPUT' && !['button','submit','reset','checkbox','radio','file','image','range','color'].includes(e.type))); })()";

pub(super) fn gone(at: Point) -> BackendError {
    BackendError::rejected(
        error_codes::COMMAND_FAILED,
        format!(
            "the element resolved at ({}, {}) is no longer on the page",
            at.x, at.y
        ),
    )
    .with_hint("the page changed between resolving the target and acting on it; wait for it to settle (`wait stable`) and retry")
}

fn covered(at: Point) -> BackendError {
    BackendError::rejected(
        error_codes::ELEMENT_OCCLUDED,
        format!(
            "another element is now under the pointer at ({}, {}): the target moved or was covered",
            at.x, at.y
        ),
    )
    .with_hint(
        "the page changed between resolving the target and acting on it; nothing was clicked",
    )
}

fn mouse(kind: &'static str, at: Point) -> DispatchMouseEvent {
    DispatchMouseEvent {
        kind,
        x: at.x,
        y: at.y,
        button: None,
        buttons: None,
        click_count: None,
        delta_x: None,
        delta_y: None,
    }
}

impl Live {
    /// Scrolls the element into view and returns the point to act at: the same spot of the
    /// element as `at` was in the capture (its centre for selector and ref targets).
    pub(super) async fn bring_into_view(
        &mut self,
        el: &Element,
        at: Point,
    ) -> BackendResult<Point> {
        self.call(&protocol::ScrollIntoViewIfNeeded {
            backend_node_id: el.backend_id,
        })
        .await
        .map_err(|e| match e {
            PageError::Call(super::CallError::Protocol { .. }) => gone(at),
            other => other.into_backend("cannot scroll the element into view"),
        })?;
        let model = self
            .call(&protocol::GetBoxModel {
                backend_node_id: el.backend_id,
            })
            .await
            .map_err(|e| match e {
                PageError::Call(super::CallError::Protocol { .. }) => gone(at),
                other => other.into_backend("cannot measure the element"),
            })?;
        let q = &model.model.border;
        if q.len() < 8 {
            return Err(gone(at));
        }
        let xs = [q[0], q[2], q[4], q[6]];
        let ys = [q[1], q[3], q[5], q[7]];
        let min = |v: [f64; 4]| v.iter().copied().fold(f64::INFINITY, f64::min);
        let max = |v: [f64; 4]| v.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let now = Rect {
            x: min(xs),
            y: min(ys),
            width: max(xs) - min(xs),
            height: max(ys) - min(ys),
        };
        if now.is_empty() {
            return Err(gone(at));
        }
        let p = Point {
            x: at.x - el.rect.x + now.x,
            y: at.y - el.rect.y + now.y,
        };
        Ok(if now.contains(p) { p } else { now.center() })
    }

    async fn object_id(&mut self, el: &Element, at: Point) -> BackendResult<String> {
        let r = self
            .call(&protocol::ResolveNode {
                backend_node_id: el.backend_id,
            })
            .await
            .map_err(|e| match e {
                PageError::Call(super::CallError::Protocol { .. }) => gone(at),
                other => other.into_backend("cannot find the element"),
            })?;
        r.object.object_id.ok_or_else(|| gone(at))
    }

    /// Calls a function on the element (`this`) and returns its value.
    pub(super) async fn call_on(
        &mut self,
        object_id: &str,
        function: &str,
        args: Vec<Value>,
    ) -> BackendResult<Value> {
        let r = self
            .call(&protocol::CallFunctionOn {
                function_declaration: function,
                object_id,
                arguments: args
                    .into_iter()
                    .map(|value| CallArgument { value })
                    .collect(),
                return_by_value: true,
            })
            .await
            .map_err(|e| e.into_backend("the page refused a script call"))?;
        if let Some(ex) = r.exception_details {
            return Err(BackendError::rejected(
                error_codes::COMMAND_FAILED,
                format!(
                    "the page threw: {}",
                    ex.get("text")
                        .and_then(Value::as_str)
                        .unwrap_or("an exception")
                ),
            ));
        }
        Ok(r.result.value.unwrap_or(Value::Null))
    }

    /// Evaluates an expression in the page.
    pub(super) async fn eval(&mut self, expression: &str) -> BackendResult<Value> {
        let r = self
            .call(&protocol::Evaluate {
                expression,
                return_by_value: true,
                await_promise: false,
            })
            .await
            .map_err(|e| e.into_backend("the page refused a script call"))?;
        Ok(r.result.value.unwrap_or(Value::Null))
    }

    /// Lets the page render a frame (a wheel scroll lands before the next capture).
    pub(super) async fn next_frame(&mut self) {
        let _ = self
            .call(&protocol::Evaluate {
                expression: "new Promise(r => requestAnimationFrame(() => requestAnimationFrame(() => r(true))))",
                return_by_value: true,
                await_promise: true,
            })
            .await;
    }

    /// Moves the pointer to a point.
    pub(super) async fn move_to(&mut self, p: Point) -> BackendResult<()> {
        self.call(&mouse("mouseMoved", p))
            .await
            .map(|_| ())
            .map_err(|e| e.into_backend("cannot move the pointer"))
    }

    /// Moves the pointer onto the element and checks it is what the pointer is over.
    pub(super) async fn point_at(&mut self, el: &Element, at: Point) -> BackendResult<Point> {
        let p = self.bring_into_view(el, at).await?;
        let object = self.object_id(el, at).await?;
        self.call(&mouse("mouseMoved", p))
            .await
            .map_err(|e| e.into_backend("cannot move the pointer"))?;
        match self
            .call_on(&object, HIT_CHECK, vec![json!(p.x), json!(p.y)])
            .await?
            .as_str()
        {
            Some("ok") => Ok(p),
            Some("gone") => Err(gone(at)),
            _ => Err(covered(at)),
        }
    }

    /// One press and release of the primary button at `p` (`click_count` for double clicks),
    /// holding it `hold_ms`.
    pub(super) async fn click_at(
        &mut self,
        p: Point,
        click_count: u32,
        hold_ms: u64,
        button: &'static str,
    ) -> BackendResult<()> {
        let mut down = mouse("mousePressed", p);
        down.button = Some(button);
        down.buttons = Some(1);
        down.click_count = Some(click_count);
        self.call(&down)
            .await
            .map_err(|e| e.into_backend("cannot press the mouse button"))?;
        if hold_ms > 0 {
            tokio::time::sleep(std::time::Duration::from_millis(hold_ms)).await;
        }
        let mut up = mouse("mouseReleased", p);
        up.button = Some(button);
        up.buttons = Some(0);
        up.click_count = Some(click_count);
        match self.call(&up).await {
            Ok(_) => Ok(()),
            // The click opened a dialog: the release is answered only once it is handled.
            Err(PageError::Dialog) => Ok(()),
            Err(e) => Err(e.into_backend("cannot release the mouse button")),
        }
    }

    /// A press, a path of moves and a release (a one-finger drag with the mouse).
    pub(super) async fn drag(&mut self, path: &[Point], duration_ms: u64) -> BackendResult<()> {
        let (Some(first), Some(last)) = (path.first(), path.last()) else {
            return Ok(());
        };
        self.call(&mouse("mouseMoved", *first))
            .await
            .map_err(|e| e.into_backend("cannot move the pointer"))?;
        let mut down = mouse("mousePressed", *first);
        down.button = Some("left");
        down.buttons = Some(1);
        down.click_count = Some(1);
        self.call(&down)
            .await
            .map_err(|e| e.into_backend("cannot press the mouse button"))?;
        let step = duration_ms / path.len().max(1) as u64;
        for p in &path[1..] {
            let mut m = mouse("mouseMoved", *p);
            m.button = Some("left");
            m.buttons = Some(1);
            self.call(&m)
                .await
                .map_err(|e| e.into_backend("cannot move the pointer"))?;
            if step > 0 {
                tokio::time::sleep(std::time::Duration::from_millis(step.min(100))).await;
            }
        }
        let mut up = mouse("mouseReleased", *last);
        up.button = Some("left");
        up.click_count = Some(1);
        match self.call(&up).await {
            Ok(_) | Err(PageError::Dialog) => Ok(()),
            Err(e) => Err(e.into_backend("cannot release the mouse button")),
        }
    }

    /// A wheel turn at `at` (positive `dy` scrolls the content up, as a finger moving up does).
    pub(super) async fn wheel(&mut self, at: Point, dx: f64, dy: f64) -> BackendResult<()> {
        let mut w = mouse("mouseWheel", at);
        w.delta_x = Some(dx);
        w.delta_y = Some(dy);
        self.call(&w)
            .await
            .map_err(|e| e.into_backend("cannot scroll"))?;
        self.next_frame().await;
        Ok(())
    }

    /// `fill`, as agent-device 0.21.5's web provider does it: a click on the field (which
    /// focuses it), `Control+A` (selects its content), then the text typed one key press per
    /// character (`keydown`, `keypress`, `beforeinput`, `input`, `keyup` each), or `Backspace`
    /// for an empty text. No `change` is fired: the page gets it when the field loses focus, and
    /// a form that acts on Enter acts only when Enter is pressed. A native `<select>` (or one of
    /// its options) is chosen instead, as [`Live::choose`] says.
    pub(super) async fn replace_text(
        &mut self,
        el: &Element,
        at: Point,
        text: &str,
        delay_ms: u64,
    ) -> BackendResult<()> {
        if el.choice.is_some() {
            return self.choose(el, at, Some(text)).await;
        }
        let p = self.point_at(el, at).await?;
        self.click_at(p, 1, 0, "left").await?;
        self.select_all().await?;
        if text.is_empty() {
            self.key("Backspace").await
        } else {
            self.insert_text(text, delay_ms).await
        }
    }

    /// Chooses an option of a native `<select>`: `el` is the select (`text` names the option by
    /// its label, else its value) or the option itself. A text no option has fails, listing the
    /// options.
    pub(super) async fn choose(
        &mut self,
        el: &Element,
        at: Point,
        text: Option<&str>,
    ) -> BackendResult<()> {
        if el.choice == Some(Choice::Select) {
            self.bring_into_view(el, at).await?;
        }
        let object = self.object_id(el, at).await?;
        let r = self
            .call_on(&object, CHOOSE, vec![json!(text.unwrap_or(""))])
            .await?;
        match r.get("error").and_then(Value::as_str) {
            None => Ok(()),
            Some("no-option") => {
                let options: Vec<String> = r["options"]
                    .as_array()
                    .map(|a| {
                        a.iter()
                            .filter_map(Value::as_str)
                            .map(|o| format!("\"{o}\""))
                            .collect()
                    })
                    .unwrap_or_default();
                Err(BackendError::rejected(
                    error_codes::COMMAND_FAILED,
                    format!(
                        "the select has no option with that label or value; its options: {}",
                        options.join(", ")
                    ),
                )
                .with_hint("fill a select with one of its options' labels (or values)"))
            }
            Some("disabled") => Err(BackendError::rejected(
                error_codes::COMMAND_FAILED,
                format!(
                    "the option \"{}\" (or its select) is disabled",
                    r["option"].as_str().unwrap_or("")
                ),
            )),
            Some(_) => Err(BackendError::rejected(
                error_codes::COMMAND_FAILED,
                format!("the element at ({}, {}) is not editable", at.x, at.y),
            )
            .with_hint("fill targets a text field or a select; use click for buttons")),
        }
    }

    /// `Control+A`, as a keyboard gives it: the field's whole content is selected, so the next
    /// text replaces it.
    async fn select_all(&mut self) -> BackendResult<()> {
        let fail = |e: PageError| e.into_backend("cannot press a key");
        let control = |kind| KeyEvent {
            kind,
            key: "Control",
            code: "ControlLeft",
            modifiers: if kind == "keyUp" { 0 } else { CTRL },
            windows_virtual_key_code: 17,
            text: None,
            commands: &[],
        };
        let a = |kind| KeyEvent {
            kind,
            key: "a",
            code: "KeyA",
            modifiers: CTRL,
            windows_virtual_key_code: 65,
            text: None,
            commands: if kind == "keyUp" { &[] } else { &["selectAll"] },
        };
        self.call(&control("rawKeyDown")).await.map_err(fail)?;
        self.call(&a("rawKeyDown")).await.map_err(fail)?;
        self.call(&a("keyUp")).await.map_err(fail)?;
        self.call(&control("keyUp")).await.map_err(fail)?;
        Ok(())
    }

    /// Types text at the focus, one key press per character (a line break presses Enter), with
    /// `delay_ms` between characters.
    pub(super) async fn insert_text(&mut self, text: &str, delay_ms: u64) -> BackendResult<()> {
        let mut buf = [0u8; 4];
        for (i, c) in text.chars().enumerate() {
            if i > 0 && delay_ms > 0 {
                tokio::time::sleep(std::time::Duration::from_millis(delay_ms)).await;
            }
            if c == '\n' || c == '\r' {
                self.key("Enter").await?;
                continue;
            }
            let ch: &str = c.encode_utf8(&mut buf);
            let code = key_code(c);
            let vk = if c.is_ascii_alphanumeric() {
                c.to_ascii_uppercase() as u32
            } else if c == ' ' {
                32
            } else {
                0
            };
            let down = KeyEvent {
                kind: "keyDown",
                key: ch,
                code: &code,
                modifiers: 0,
                windows_virtual_key_code: vk,
                text: Some(ch),
                commands: &[],
            };
            match self.call(&down).await {
                Ok(_) => {}
                Err(PageError::Dialog) => return Ok(()),
                Err(e) => return Err(e.into_backend("cannot type")),
            }
            let up = KeyEvent {
                kind: "keyUp",
                text: None,
                ..down
            };
            match self.call(&up).await {
                Ok(_) | Err(PageError::Dialog) => {}
                Err(e) => return Err(e.into_backend("cannot type")),
            }
        }
        Ok(())
    }

    /// Presses and releases a key (`Enter`, `Backspace`, `Escape`, `Tab`).
    pub(super) async fn key(&mut self, key: &'static str) -> BackendResult<()> {
        let (code, vk, text) = match key {
            "Enter" => ("Enter", 13, Some("\r")),
            "Backspace" => ("Backspace", 8, None),
            "Escape" => ("Escape", 27, None),
            "Tab" => ("Tab", 9, None),
            _ => (key, 0, None),
        };
        let down = protocol::DispatchKeyEvent {
            kind: if text.is_some() {
                "keyDown"
            } else {
                "rawKeyDown"
            },
            key,
            code,
            windows_virtual_key_code: vk,
            text,
        };
        match self.call(&down).await {
            Ok(_) => {}
            Err(PageError::Dialog) => return Ok(()),
            Err(e) => return Err(e.into_backend("cannot press a key")),
        }
        let up = protocol::DispatchKeyEvent {
            kind: "keyUp",
            key,
            code,
            windows_virtual_key_code: vk,
            text: None,
        };
        match self.call(&up).await {
            Ok(_) | Err(PageError::Dialog) => Ok(()),
            Err(e) => Err(e.into_backend("cannot press a key")),
        }
    }
}

/// The physical key (`KeyboardEvent.code`) of a character on a US keyboard, empty for the
/// characters it has no key for.
fn key_code(c: char) -> String {
    match c {
        'a'..='z' | 'A'..='Z' => format!("Key{}", c.to_ascii_uppercase()),
        '0'..='9' => format!("Digit{c}"),
        ' ' => "Space".into(),
        _ => String::new(),
    }
}
