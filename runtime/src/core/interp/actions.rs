//! The commands that act on the device: open, tap, long-press, fill, gestures, keyboard, alerts,
//! screenshots. (`close`, `hover`, `focus`, `type`, `scroll`, system keys and `clipboard` are
//! small enough to live in the dispatch.)

use ad_compiler::registry::{AlertOp, Direction, GestureKind, KeyboardOp};
use ad_compiler::Step;
use serde_json::{Map, Value};

use super::exec::{flag_u64, num};
use super::failure::{Fail, Outcome};
use super::targets::Resolved;
use super::{Exec, APPEAR_TIMEOUT_MS, LONGPRESS_MS, POLL_INTERVAL_MS, WAIT_TIMEOUT_MS};
use crate::core::backend::{
    AlertAction, AlertInfo, Backend, GestureIntent, GesturePlan, KeyboardAction, LaunchOptions,
    TapOptions,
};
use crate::core::records::error_codes;
use crate::core::records::journal::{ActionArgs, StepResult};
use crate::core::select::Policy;
use crate::core::tree::Point;

impl<B: Backend> Exec<'_, B> {
    pub(super) async fn open(&mut self, p: &[String], flags: &Map<String, Value>) -> Outcome {
        let relaunch = flags
            .get("relaunch")
            .and_then(Value::as_bool)
            .unwrap_or(false);
        // A bare `open` is accepted by the reader: agent-device opens the session (booting
        // the device when needed) and launches nothing, so the screen stays as it is.
        let Some(first) = p.first().cloned() else {
            return Ok(None);
        };
        let (app, url) = if first.contains("://") && p.len() == 1 {
            // A bare URL opens in the foreground app of the device.
            let fg = self
                .backend
                .location()
                .get("app")
                .and_then(Value::as_str)
                .map(str::to_string);
            match fg {
                Some(a) => (a, Some(first.clone())),
                None => (first.clone(), None),
            }
        } else {
            (first.clone(), p.get(1).cloned())
        };
        let opts = LaunchOptions {
            relaunch,
            url,
            args: Vec::new(),
        };
        let app2 = app.clone();
        self.act(
            "open",
            ActionArgs::Launch {
                app,
                relaunch,
                url: opts.url.clone(),
                args: Vec::new(),
            },
            async move |b: &mut B| b.launch(&app2, &opts).await,
        )
        .await?;
        Ok(None)
    }

    pub(super) async fn click(
        &mut self,
        step: &Step<'_>,
        p: &[String],
        flags: &Map<String, Value>,
    ) -> Outcome {
        let t = self.target(step, p, 0, true).await?;
        let opts = TapOptions {
            count: flags
                .get("count")
                .and_then(Value::as_f64)
                .map(|c| c.clamp(1.0, 200.0) as u32)
                .unwrap_or(1),
            interval_ms: flags
                .get("intervalMs")
                .and_then(Value::as_f64)
                .unwrap_or(0.0) as u64,
            hold_ms: flags.get("holdMs").and_then(Value::as_f64).unwrap_or(0.0) as u64,
            double_tap: flags
                .get("doubleTap")
                .and_then(Value::as_bool)
                .unwrap_or(false),
            button: flags
                .get("clickButton")
                .and_then(Value::as_str)
                .unwrap_or("primary")
                .to_string(),
        };
        let pt = t.point;
        let o2 = opts.clone();
        self.act(
            step.command(),
            ActionArgs::Tap {
                point: pt,
                count: opts.count,
                target: t.target.clone(),
            },
            async move |b: &mut B| b.tap(pt, &o2).await,
        )
        .await?;
        let _ = (&t.node, &t.tree);
        Ok(t.result())
    }

    pub(super) async fn longpress(&mut self, step: &Step<'_>, p: &[String]) -> Outcome {
        // A trailing number after a non-point target is the duration.
        let mut args = p.to_vec();
        let mut duration = LONGPRESS_MS;
        let point = num(p.first()).is_some() && num(p.get(1)).is_some();
        if (point && p.len() >= 3) || (!point && p.len() > 1) {
            if let Some(d) = num(p.last()) {
                duration = d.max(0.0) as u64;
                args.pop();
            }
        }
        let t = self.target(step, &args, 0, true).await?;
        let pt = t.point;
        self.act(
            "longpress",
            ActionArgs::LongPress {
                point: pt,
                duration_ms: duration,
            },
            async move |b: &mut B| b.long_press(pt, duration).await,
        )
        .await?;
        Ok(t.result())
    }

    pub(super) async fn fill(
        &mut self,
        step: &Step<'_>,
        p: &[String],
        _flags: &Map<String, Value>,
    ) -> Outcome {
        let values: Vec<&str> = p.iter().map(String::as_str).collect();
        let Some(text_at) = ad_compiler::fill_text_at(&values) else {
            return Err(Fail::misread("fill"));
        };
        let text = p[text_at..].join(" ");
        let t = self.target(step, p, 0, true).await?;
        let pt = t.point;
        let delay = flag_u64(step, "delayMs").unwrap_or(0);
        let args = ActionArgs::Fill {
            point: pt,
            text: text.clone(),
            target: t.target.clone(),
            record_as: step
                .positionals
                .get(text_at)
                .and_then(|a| ad_grammar::placeholder::whole_token_variable(&a.value))
                .map(Into::into),
        };
        self.act("fill", args, async move |b: &mut B| {
            b.fill(pt, &text, delay).await
        })
        .await?;
        Ok(t.result())
    }

    pub(super) async fn swipe(&mut self, step: &Step<'_>, p: &[String]) -> Outcome {
        let c: Vec<Option<f64>> = (0..4).map(|i| num(p.get(i))).collect();
        let [Some(x1), Some(y1), Some(x2), Some(y2)] = [c[0], c[1], c[2], c[3]] else {
            return Err(Fail::misread("swipe"));
        };
        let plan = GesturePlan {
            kind: GestureKind::Swipe,
            pointers: vec![vec![Point { x: x1, y: y1 }, Point { x: x2, y: y2 }]],
            duration_ms: 300,
            repeat: flag_u64(step, "count").unwrap_or(1).max(1) as u32,
            intent: None,
        };
        let args = ActionArgs::Gesture { plan: plan.clone() };
        self.act("swipe", args, async move |b: &mut B| b.gesture(&plan).await)
            .await?;
        Ok(None)
    }

    pub(super) async fn gesture(
        &mut self,
        step: &Step<'_>,
        kind: GestureKind,
        p: &[String],
    ) -> Outcome {
        let n = |i: usize| num(p.get(i));
        let pt = |x: Option<f64>, y: Option<f64>| Point {
            x: x.unwrap_or(195.0),
            y: y.unwrap_or(422.0),
        };
        let mut info = None;
        let plan = match kind {
            GestureKind::Pan => {
                let a = pt(n(1), n(2));
                let b = Point {
                    x: a.x + n(3).unwrap_or(0.0),
                    y: a.y + n(4).unwrap_or(0.0),
                };
                GesturePlan {
                    kind: GestureKind::Swipe,
                    pointers: vec![vec![a, b]],
                    duration_ms: n(5).unwrap_or(300.0) as u64,
                    repeat: 1,
                    intent: Some(GestureIntent::Pan {
                        origin: a,
                        delta: Point {
                            x: b.x - a.x,
                            y: b.y - a.y,
                        },
                        duration_ms: n(5).map(|d| d as u64),
                        pointers: flag_u64(step, "pointerCount").map(|c| c as u32),
                    }),
                }
            }
            GestureKind::Fling(direction) => {
                let a = pt(n(2), n(3));
                let d = n(4).unwrap_or(400.0);
                let b = match direction {
                    Some(Direction::Up) => Point { x: a.x, y: a.y - d },
                    Some(Direction::Down) => Point { x: a.x, y: a.y + d },
                    Some(Direction::Left) => Point { x: a.x - d, y: a.y },
                    Some(Direction::Right) => Point { x: a.x + d, y: a.y },
                    Some(Direction::Top | Direction::Bottom) | None => {
                        return Err(Fail::misread("gesture"));
                    }
                };
                GesturePlan {
                    kind: GestureKind::Swipe,
                    pointers: vec![vec![a, b]],
                    duration_ms: 120,
                    repeat: 1,
                    intent: direction.map(|direction| GestureIntent::Fling {
                        direction,
                        origin: a,
                        distance: n(4),
                    }),
                }
            }
            GestureKind::Drag => {
                let src = self.drag_endpoint(step, p.get(1), "source").await?;
                let dst = self.drag_endpoint(step, p.get(2), "destination").await?;
                info = Some(StepResult::Drag {
                    source: src.target.clone(),
                    destination: dst.target.clone(),
                });
                GesturePlan {
                    kind: GestureKind::Drag,
                    pointers: vec![vec![src.point, dst.point]],
                    duration_ms: n(4).unwrap_or(300.0) as u64,
                    repeat: 1,
                    intent: Some(GestureIntent::Drag {
                        from: src.point,
                        to: dst.point,
                        source_hold_ms: n(3).map(|d| d as u64),
                        move_ms: n(4).map(|d| d as u64),
                        destination_hold_ms: n(5).map(|d| d as u64),
                    }),
                }
            }
            GestureKind::Swipe
            | GestureKind::Pinch
            | GestureKind::Rotate
            | GestureKind::Transform => GesturePlan {
                // The backend plays these by name.
                kind,
                pointers: vec![],
                duration_ms: 300,
                repeat: 1,
                intent: Some(match kind {
                    GestureKind::Swipe => GestureIntent::Swipe {
                        preset: p.get(1).cloned().unwrap_or_default(),
                    },
                    GestureKind::Pinch => GestureIntent::Pinch {
                        scale: n(1),
                        origin: n(2).zip(n(3)).map(|(x, y)| Point { x, y }),
                    },
                    GestureKind::Rotate => GestureIntent::Rotate {
                        degrees: n(1),
                        origin: n(2).zip(n(3)).map(|(x, y)| Point { x, y }),
                    },
                    _ => GestureIntent::Transform {
                        origin: pt(n(1), n(2)),
                        delta: Point {
                            x: n(3).unwrap_or(0.0),
                            y: n(4).unwrap_or(0.0),
                        },
                        scale: n(5),
                        degrees: n(6),
                        duration_ms: n(7).map(|d| d as u64),
                    },
                }),
            },
            GestureKind::Unknown => return Err(Fail::misread("gesture")),
        };
        let args = ActionArgs::Gesture { plan: plan.clone() };
        self.act("gesture", args, async move |b: &mut B| {
            b.gesture(&plan).await
        })
        .await?;
        Ok(info)
    }

    pub(super) async fn drag_endpoint(
        &mut self,
        step: &Step<'_>,
        t: Option<&String>,
        which: &str,
    ) -> Result<Resolved, Fail> {
        let Some(t) = t else {
            return Err(Fail::misread("gesture"));
        };
        let evidence = step.target_evidences().map(|d| {
            if which == "source" {
                &d.source
            } else {
                &d.destination
            }
        });
        if t.starts_with('@') {
            let mut r = self.ref_target(step, t, evidence).await?;
            return match self.refused_touch("drag", t, &mut r) {
                Some(f) => Err(f),
                None => Ok(r),
            };
        }
        if let Some((x, y)) = t.split_once(',').and_then(|(a, b)| {
            Some((
                num(Some(&a.trim().to_string()))?,
                num(Some(&b.trim().to_string()))?,
            ))
        }) {
            return Ok(Resolved {
                point: Point { x, y },
                node: None,
                tree: None,
                target: None,
                resolution: None,
                verification: None,
            });
        }
        let mut r = self
            .selector_target(step, t, Policy::ACT, evidence, true)
            .await?;
        // Each endpoint is touched where agent-device's own drag would touch it.
        match self.refused_touch("drag", t, &mut r) {
            Some(f) => Err(f),
            None => Ok(r),
        }
    }

    pub(super) async fn keyboard(&mut self, op: KeyboardOp, mutates: bool) -> Outcome {
        let action = match op {
            KeyboardOp::Status => KeyboardAction::Status,
            KeyboardOp::Dismiss => KeyboardAction::Dismiss,
            KeyboardOp::Enter => KeyboardAction::Enter,
            KeyboardOp::Unknown => return Err(Fail::misread("keyboard")),
        };
        let st = if mutates {
            self.act(
                "keyboard",
                ActionArgs::Keyboard { action },
                async move |b: &mut B| b.keyboard(action).await,
            )
            .await?
        } else {
            self.backend
                .keyboard(action)
                .await
                .map_err(Fail::from_backend)?
        };
        Ok(Some(StepResult::Keyboard { keyboard: st }))
    }

    pub(super) async fn alert(&mut self, op: AlertOp, p: &[String]) -> Outcome {
        match op {
            // The daemon reads a word it does not know as the default, `get` (the registry's
            // `Dispatch::Lenient`).
            AlertOp::Get | AlertOp::Unknown => {
                let a = self
                    .backend
                    .alert(AlertAction::Get)
                    .await
                    .map_err(Fail::from_backend)?;
                Ok(Some(StepResult::Alert {
                    alert: a,
                    waited_ms: None,
                }))
            }
            AlertOp::Wait => {
                let timeout =
                    self.remaining(num(p.get(1)).map(|t| t as u64).unwrap_or(WAIT_TIMEOUT_MS));
                match self.poll_alert(timeout).await? {
                    (Some(a), waited) => Ok(Some(StepResult::Alert {
                        alert: Some(a),
                        waited_ms: Some(waited),
                    })),
                    (None, _) => Err(Fail::new(
                        error_codes::COMMAND_FAILED,
                        format!("alert wait timed out after {timeout} ms: no alert appeared"),
                    )
                    .reason("wait_target_absent")),
                }
            }
            AlertOp::Accept | AlertOp::Dismiss => {
                let (action, sub) = if op == AlertOp::Accept {
                    (AlertAction::Accept, "accept")
                } else {
                    (AlertAction::Dismiss, "dismiss")
                };
                // As agent-device's handlers: answered at once when an alert is shown; else the
                // alert may be about to open (the next dialog after one just answered), so it
                // is given APPEAR_TIMEOUT_MS to show, then answered. (A backend whose device
                // waits itself, the agent-device bridge, fails the first call instead.)
                let (start, timeout) = (self.backend.now_ms(), self.remaining(APPEAR_TIMEOUT_MS));
                let mut answered = self.answer_alert(action, sub).await?;
                if answered.is_none() {
                    let left = timeout.saturating_sub(self.backend.now_ms() - start);
                    if self.poll_alert(left).await?.0.is_some() {
                        answered = self.answer_alert(action, sub).await?;
                    }
                }
                match answered {
                    Some(a) => Ok(Some(StepResult::Alert {
                        alert: Some(a),
                        waited_ms: None,
                    })),
                    None => Err(Fail::new(
                        error_codes::COMMAND_FAILED,
                        format!("alert {sub}: no alert appeared within {timeout} ms"),
                    )
                    .hint("an alert that takes longer to open needs `alert wait` first (`alert wait 10000`)")),
                }
            }
        }
    }

    /// `alert accept|dismiss` sent to the device: the alert it answered (`None`: none shown).
    async fn answer_alert(
        &mut self,
        action: AlertAction,
        sub: &str,
    ) -> Result<Option<AlertInfo>, Fail> {
        self.act(
            "alert",
            ActionArgs::Alert {
                action: sub.to_string(),
            },
            async move |b: &mut B| b.alert(action).await,
        )
        .await
    }

    /// Polls the alert every [`POLL_INTERVAL_MS`] of the device's clock until one is shown or
    /// `timeout` ms passed: the alert (if any) and how long it took.
    async fn poll_alert(&mut self, timeout: u64) -> Result<(Option<AlertInfo>, u64), Fail> {
        let start = self.backend.now_ms();
        loop {
            let shown = self
                .backend
                .alert(AlertAction::Get)
                .await
                .map_err(Fail::from_backend)?;
            let waited = self.backend.now_ms() - start;
            if shown.is_some() || waited >= timeout {
                return Ok((shown, waited));
            }
            self.nap(POLL_INTERVAL_MS.min(timeout - waited)).await?;
        }
    }

    pub(super) async fn screenshot(&mut self, p: &[String]) -> Outcome {
        let bytes = self
            .backend
            .screenshot()
            .await
            .map_err(Fail::from_backend)?;
        self.screenshots += 1;
        let named = p.iter().find(|x| !x.starts_with('-'));
        // A path a script names resolves inside its folder (a run's artifacts folder, the
        // folder a live session replays it from); one that escapes it (absolute, or `..` above
        // it) is refused: a script never writes over other files. One typed in a live session
        // is relative to the folder it was typed in.
        let confined = match (&self.live_files, &self.output_dir) {
            (Some(live), _) if live.typed => None,
            (Some(live), _) => Some((&live.dir, "the folder the script is replayed from")),
            (None, Some(dir)) => Some((dir, "the run's artifacts folder")),
            (None, None) => None,
        };
        let path = match (named, &self.live_files, confined) {
            (Some(named), Some(live), None) => live.dir.join(named),
            (Some(named), _, Some((dir, what))) => ad_compiler::paths::inside(dir, named)
                .ok_or_else(|| {
                    let mut f = Fail::new(
                        error_codes::INVALID_ARGS,
                        format!("screenshot path {named} is outside {what}"),
                    )
                    .hint(format!("name the file relative to {what} (`shots/login.png`); `ad check` reports such paths as AD735"))
                    .reason("artifact_path_outside");
                    // A script error, not a screen that diverged: no divergence report.
                    f.bare = true;
                    f
                })?,
            (None, None, Some((dir, _))) => {
                dir.join(format!("screenshot-{:03}.png", self.screenshots))
            }
            // Typed bare in a live session: agent-device's client names the file
            // `screenshot-<epoch ms>.png` in the folder the command was typed in.
            (None, Some(live), None) => {
                let ms = std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .map(|d| d.as_millis())
                    .unwrap_or_default();
                live.dir.join(format!("screenshot-{ms}.png"))
            }
            // Nowhere to write (a bare screenshot of a script replayed in a live session): the
            // size only.
            _ => {
                return Ok(Some(StepResult::Screenshot {
                    path: None,
                    bytes: bytes.len(),
                }))
            }
        };
        if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
            let _ = std::fs::create_dir_all(parent);
        }
        std::fs::write(&path, &bytes).map_err(|e| {
            Fail::new(
                error_codes::COMMAND_FAILED,
                format!("could not write {}: {e}", path.display()),
            )
        })?;
        Ok(Some(StepResult::Screenshot {
            path: Some(path.display().to_string()),
            bytes: bytes.len(),
        }))
    }
}
