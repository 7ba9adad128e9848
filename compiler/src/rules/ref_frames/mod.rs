//! Ref-frame lifetime (agent-device ADR 0014): a bare or pinned `@ref` is only valid after an
//! explicit complete `snapshot` step earlier in the same script, and only until the next step
//! that may invalidate the frame (a mutating step expires it at the side-effect seam, before it
//! dispatches). Pins the reader keeps never match a new session.
//!
//! This file tracks the frame and reports AD710–AD713; `pins_kept.rs` reports AD714 for each ref
//! the frame walk meets.

use ad_grammar::{Diagnostic, Edit, Span};

use super::{At, Context, Family};
use crate::codes;
use crate::lower::{Arg, Step};
use crate::profile::mutates;
use crate::registry::ReaderRule;

mod pins_kept;

#[derive(Default)]
enum Frame<'s> {
    #[default]
    None,
    Active {
        scope: Option<String>,
        snapshot: &'s Step<'s>,
    },
    Expired {
        snapshot: &'s Step<'s>,
        by: &'s Step<'s>,
    },
}

/// The family at work: the frame the walk is in.
#[derive(Default)]
pub(super) struct RefFrames<'s> {
    frame: Frame<'s>,
}

impl<'s> Family<'s> for RefFrames<'s> {
    fn step(&mut self, cx: &Context<'s>, at: &At<'s>, out: &mut Vec<Diagnostic>) {
        let step = at.step;
        let is_snapshot = step
            .spec()
            .is_some_and(|s| s.reader == ReaderRule::Snapshot);
        let mutating = mutates(step);
        for (arg, value) in refs(step) {
            pins_kept::check(cx, step, arg, &value, out);
            let span = step.arg_span(cx.file(), arg);
            match &self.frame {
            Frame::None => out.push(
                Diagnostic::new(codes::REF_WITHOUT_SNAPSHOT, format!("`{value}` is used before any `snapshot` issued refs"), span)
                    .with_label("replay starts a new session: no ref exists until a snapshot step issues it")
                    .with_help("add a `snapshot` step before it, or target the element with a selector (refs from the recording session never resolve)"),
            ),
            Frame::Expired { snapshot, by } => {
                let (d, what) = if mutating {
                    (Diagnostic::new(codes::REF_FRAME_EXPIRED, format!("`{value}` is stale: agent-device rejects it with ref_frame_expired"), span), "mutation")
                } else {
                    (Diagnostic::new(codes::STALE_REF_READ, format!("`{value}` is read after its frame expired"), span), "read")
                };
                let mut d = d
                    .with_secondary(by.line_span(cx.file()), "this step may have changed the screen, expiring the frame")
                    .with_secondary(snapshot.command_span(cx.file()), "refs were issued here")
                    .with_help(if what == "mutation" {
                        "take a fresh `snapshot` before this step, or target the element with a selector"
                    } else {
                        "the read may see a different element than the ref named; take a fresh `snapshot` or use a selector"
                    });
                let line_start = step.token_spans(cx.file()).at(0).start();
                let indent_start = cx.text()[..line_start].rfind('\n').map_or(0, |i| i + 1);
                d = d.with_fix("Insert a fresh `snapshot` before this step", vec![Edit { span: Span::new(indent_start, indent_start), replacement: "snapshot\n".into() }]);
                out.push(d);
            }
            Frame::Active { scope: Some(scope), snapshot } => out.push(
                Diagnostic::new(codes::SCOPED_REF, format!("`{value}` must come from the scoped snapshot `-s {scope}`"), span)
                    .with_secondary(snapshot.line_span(cx.file()), "this snapshot issued only the refs inside its scope")
                    .with_help("a scoped snapshot authorizes exactly the refs it returned; refs outside that scope are not issued"),
            ),
            Frame::Active { scope: None, .. } => {}
        }
        }
        if is_snapshot {
            let scope = step
                .flags()
                .get("snapshotScope")
                .and_then(|v| v.as_str())
                .map(str::to_string);
            self.frame = Frame::Active {
                scope,
                snapshot: step,
            };
        } else if mutating {
            if let Frame::Active { snapshot, .. } = self.frame {
                self.frame = Frame::Expired { snapshot, by: step };
            }
        }
    }
}

/// The `@ref` arguments of a step (and a `snapshot -s @ref` scope).
fn refs<'s>(step: &'s Step<'s>) -> Vec<(&'s Arg<'s>, String)> {
    step.positionals
        .iter()
        .filter(|a| a.value.starts_with('@') && a.value.len() > 1 && !a.has_dollar_brace())
        .map(|a| (a, a.value.to_string()))
        .collect()
}
