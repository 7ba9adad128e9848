//! `find`: a text search over the screen that reads (`exists`, `get`, `list`, publishing a
//! partial ref frame) or acts on the first match (`click`, `focus`, `fill`, `type`).

use ad_compiler::registry::FindAction;

use super::exec::num;
use super::failure::{Fail, Outcome};
use super::targets::node_ref;
use super::{Exec, POLL_INTERVAL_MS, WAIT_TIMEOUT_MS};
use crate::core::backend::{Backend, TapOptions};
use crate::core::frame::FrameScope;
use crate::core::records::error_codes;
use crate::core::records::journal::{ActionArgs, Phase, StepResult};
use crate::core::tree::FlatNode;

impl<B: Backend> Exec<'_, B> {
    pub(super) async fn find(
        &mut self,
        action: FindAction,
        p: &[String],
        mutates: bool,
    ) -> Outcome {
        let call = ad_compiler::registry::FindCall::parse(p);
        let rest = call.rest;
        let locator = call.locator.map_or("any", String::as_str);
        let Some(query) = call.query().cloned() else {
            return Err(Fail::misread("find"));
        };
        let timeout = if action == FindAction::Wait {
            self.remaining(
                num(rest.get(2))
                    .map(|t| t as u64)
                    .unwrap_or(WAIT_TIMEOUT_MS),
            )
        } else {
            0
        };
        let start = self.backend.now_ms();
        let q = crate::core::tree::normalize_text(&query);
        let rendered = self.backend.platform() == "web";
        let (snap, found) = loop {
            let snap = self.observe(Phase::Find).await?;
            let matches = |n: &FlatNode| -> bool {
                let f = |v: Option<&str>| {
                    v.is_some_and(|v| crate::core::tree::normalize_text(v).contains(&q))
                };
                match locator {
                    "text" if rendered => crate::core::select::searched_text(n, true)
                        .into_iter()
                        .any(&f),
                    "text" => f(Some(crate::core::tree::display_text(n))),
                    "label" => f(n.label.as_deref()),
                    "value" => f(n.value.as_deref()),
                    "role" => crate::core::tree::normalize_type(&n.kind) == q,
                    "id" => f(n.id.as_deref()),
                    _ => f(n.label.as_deref()) || f(n.value.as_deref()) || f(n.id.as_deref()),
                }
            };
            let found: Vec<usize> = snap
                .nodes
                .iter()
                .filter(|n| matches(n))
                .map(|n| n.index)
                .collect();
            let waited = self.backend.now_ms() - start;
            if !found.is_empty() || waited >= timeout {
                break (snap, found);
            }
            self.nap(POLL_INTERVAL_MS.min(timeout - waited)).await?;
        };
        if !mutates && !found.is_empty() {
            // A read-only find publishes a partial frame with the refs it returned.
            let issued = found
                .iter()
                .map(|&i| snap.nodes[i].reference.clone())
                .collect();
            self.frames
                .activate(snap.clone(), FrameScope::Issued(issued));
        }
        if action == FindAction::Exists {
            if found.is_empty() {
                return Err(Fail::new(
                    error_codes::COMMAND_FAILED,
                    format!("find did not match {query}"),
                )
                .reason("predicate_failed"));
            }
            return Ok(Some(StepResult::Find {
                target: None,
                matches: found.len(),
                refs_generation: None,
                text: None,
                list: None,
            }));
        }
        let Some(&first) = found.first() else {
            return Err(Fail::new(
                error_codes::COMMAND_FAILED,
                format!("find did not match {query}"),
            )
            .reason("wait_target_absent"));
        };
        let n = snap.nodes[first].clone();
        let info = StepResult::Find {
            target: Some(node_ref(&n)),
            matches: found.len(),
            refs_generation: None,
            text: None,
            list: None,
        };
        if !mutates {
            return Ok(Some(StepResult::Find {
                target: Some(node_ref(&n)),
                matches: found.len(),
                refs_generation: self.frames.current().map(|f| f.generation),
                text: (action == FindAction::Get)
                    .then(|| crate::core::tree::display_text(&n).to_string()),
                list: (action == FindAction::List).then(|| {
                    found
                        .iter()
                        .take(50)
                        .map(|&i| node_ref(&snap.nodes[i]))
                        .collect()
                }),
            }));
        }
        let point = n.rect.map(|r| r.center()).ok_or_else(|| {
            Fail::new(
                error_codes::COMMAND_FAILED,
                "find matched an element without bounds",
            )
        })?;
        match action {
            FindAction::Click => {
                self.act(
                    "find",
                    ActionArgs::Find {
                        action: "click".into(),
                        point,
                        text: None,
                    },
                    async move |b: &mut B| b.tap(point, &TapOptions::default()).await,
                )
                .await?;
            }
            FindAction::Focus => {
                self.act(
                    "find",
                    ActionArgs::Find {
                        action: "focus".into(),
                        point,
                        text: None,
                    },
                    async move |b: &mut B| b.focus(point).await,
                )
                .await?;
            }
            FindAction::Fill => {
                let text = rest[2..].join(" ");
                self.act(
                    "find",
                    ActionArgs::Find {
                        action: "fill".into(),
                        point,
                        text: Some(text.clone()),
                    },
                    async move |b: &mut B| b.fill(point, &text, 0).await,
                )
                .await?;
            }
            FindAction::Type => {
                let text = rest[2..].join(" ");
                self.act(
                    "find",
                    ActionArgs::Find {
                        action: "type".into(),
                        point,
                        text: Some(text.clone()),
                    },
                    async move |b: &mut B| {
                        b.focus(point).await?;
                        b.type_text(&text, 0).await
                    },
                )
                .await?;
            }
            // An unknown word, or a read-only action on a step taken as mutating (its action
            // came from a `${VAR}`): nothing to act with.
            FindAction::Exists
            | FindAction::Wait
            | FindAction::Get
            | FindAction::List
            | FindAction::Unknown => {
                let other = call.action().unwrap_or_default();
                return Err(Fail::new(
                    error_codes::INVALID_ARGS,
                    format!("Unsupported find action: {other}"),
                ));
            }
        }
        Ok(Some(info))
    }
}
