//! Which command does what: the dispatch from a step's command to its implementation.

use ad_compiler::registry::{self, ClipboardOp, StepAction};
use ad_compiler::Step;

use super::exec::{flag_u64, num};
use super::failure::{Fail, Outcome};
use super::Exec;
use crate::core::backend::Backend;
use crate::core::records::error_codes;
use crate::core::records::journal::{ActionArgs, StepResult};
use crate::core::tree::Point;

impl<B: Backend> Exec<'_, B> {
    /// Runs one step. Its words are read by the reader `ad check` runs: what the reader refuses,
    /// the run refuses in agent-device's words, and what it takes is what the code reads.
    pub(super) async fn step(&mut self, step: &Step<'_>, path: &str) -> Outcome {
        let (p, flags, _runtime) = self.interpolate(step, path).await?;
        // A step as written was read when the run was gated; one with a `${VAR}` is read again,
        // filled in (its value can change how the daemon reads it).
        let filled_in = step
            .positionals
            .iter()
            .any(|a| ad_grammar::placeholder::has_dollar_brace(&a.value));
        if filled_in {
            if let Some(refused) = reader_refusal(step, &p) {
                return Err(refused);
            }
        }
        match self.act_on(step, &p, &flags).await {
            // A step the gate let through (`--force`, a library caller) that the code cannot
            // read: the reader says why.
            Err(f) if f.is_misread() => Err(reader_refusal(step, &p).unwrap_or(f)),
            outcome => outcome,
        }
    }

    async fn act_on(
        &mut self,
        step: &Step<'_>,
        p: &[String],
        flags: &serde_json::Map<String, serde_json::Value>,
    ) -> Outcome {
        let cmd = step.command();
        let mutates = ad_compiler::profile::mutates(step);
        let Some(action) = step.action() else {
            return Err(unknown_command(cmd));
        };
        // The sub-command is read from the interpolated words: a `${VAR}` may supply it.
        // Exhaustive over the registry's step actions: a new one cannot go unhandled.
        match registry::step_action(action, |i| p.get(i).map(String::as_str)) {
            StepAction::Open => self.open(p, flags).await,
            StepAction::Close => {
                let app = p.first().cloned();
                let args = ActionArgs::Close { app: app.clone() };
                self.act("close", args, async move |b: &mut B| {
                    b.close(app.as_deref()).await
                })
                .await?;
                // The app is gone: an accepted close is done, with no screen left to observe.
                self.journal.settle_attempt();
                Ok(None)
            }
            StepAction::Tap => self.click(step, p, flags).await,
            StepAction::LongPress => self.longpress(step, p).await,
            StepAction::Hover => {
                let t = self.target(step, p, 0, true).await?;
                let pt = t.point;
                self.act(
                    "hover",
                    ActionArgs::AtPoint { point: pt },
                    async move |b: &mut B| b.hover(pt).await,
                )
                .await?;
                Ok(t.result())
            }
            StepAction::Focus => {
                let (Some(x), Some(y)) = (num(p.first()), num(p.get(1))) else {
                    return Err(Fail::misread(cmd));
                };
                let pt = Point { x, y };
                self.act(
                    "focus",
                    ActionArgs::AtPoint { point: pt },
                    async move |b: &mut B| b.focus(pt).await,
                )
                .await?;
                Ok(None)
            }
            StepAction::Fill => self.fill(step, p, flags).await,
            StepAction::Type => {
                let text = p.join(" ");
                let delay = flag_u64(step, "delayMs").unwrap_or(0);
                let args = ActionArgs::Text { text: text.clone() };
                self.act("type", args, async move |b: &mut B| {
                    b.type_text(&text, delay).await
                })
                .await?;
                Ok(None)
            }
            StepAction::Swipe => self.swipe(step, p).await,
            StepAction::Gesture(kind) => self.gesture(step, kind, p).await,
            StepAction::Scroll(direction) => {
                let Some(dir) = direction else {
                    return Err(Fail::misread(cmd));
                };
                let amount = num(p.get(1)).map(|a| a.min(0.8));
                self.act(
                    "scroll",
                    ActionArgs::Scroll {
                        direction: dir,
                        amount,
                    },
                    async move |b: &mut B| b.scroll(dir, amount).await,
                )
                .await?;
                Ok(None)
            }
            StepAction::Key(key) => {
                self.act(cmd, ActionArgs::None {}, async move |b: &mut B| {
                    b.press_key(key).await
                })
                .await?;
                Ok(None)
            }
            StepAction::Keyboard(op) => self.keyboard(op, mutates).await,
            StepAction::Alert(op) => self.alert(op, p).await,
            StepAction::Clipboard(op) => match op {
                ClipboardOp::Read => {
                    let t = self
                        .backend
                        .clipboard_read()
                        .await
                        .map_err(Fail::from_backend)?;
                    Ok(Some(StepResult::Clipboard { text: t }))
                }
                ClipboardOp::Write => {
                    let text = p[1..].join(" ");
                    self.act(
                        "clipboard",
                        ActionArgs::ClipboardWrite {
                            write: text.clone(),
                        },
                        async move |b: &mut B| b.clipboard_write(&text).await,
                    )
                    .await?;
                    Ok(None)
                }
                ClipboardOp::Unknown => Err(Fail::misread(cmd)),
            },
            StepAction::Wait => self.wait(step, p).await,
            StepAction::Is => self.is(step, p).await,
            StepAction::Get(op) => self.get(step, op, p).await,
            StepAction::Snapshot => self.snapshot(flags).await,
            StepAction::Find(find) => self.find(find, p, mutates).await,
            StepAction::Screenshot => self.screenshot(p).await,
            // The run loop skips `replay` lines; `runtime` settings were read into the plan.
            StepAction::Replay | StepAction::Runtime => Ok(None),
            StepAction::Context | StepAction::Unavailable => Err(unknown_command(cmd)),
            StepAction::Device => {
                let cmd_s = cmd.to_string();
                let p2 = p.to_vec();
                let v = if mutates {
                    let args = ActionArgs::Other {
                        positionals: p.to_vec(),
                    };
                    self.act(cmd, args, async move |b: &mut B| b.other(&cmd_s, &p2).await)
                        .await?
                } else {
                    self.backend
                        .other(&cmd_s, &p2)
                        .await
                        .map_err(Fail::from_backend)?
                };
                Ok(Some(StepResult::Response { response: v }))
            }
        }
    }
}

/// The dispatch reader's refusal of `step` with its filled-in words `p`.
fn reader_refusal(step: &Step<'_>, p: &[String]) -> Option<Fail> {
    ad_compiler::refusal_when_filled(step, p)
        .map(|r| Fail::new(error_codes::INVALID_ARGS, r.message).hint(r.usage))
}

/// A word no daemon route executes (the static gate refuses such scripts unless `--force`).
fn unknown_command(cmd: &str) -> Fail {
    Fail::new(
        error_codes::UNKNOWN_COMMAND,
        format!("{cmd} is not a command a script can run"),
    )
    .hint("`ad commands` lists the commands scripts can use")
}
