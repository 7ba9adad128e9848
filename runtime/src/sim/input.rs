//! Input: what is at a point (hit testing), which handler a tap reaches, taps on alert buttons,
//! and scrolling.

use std::sync::Arc;

use super::layout::{resolve_include, Hit, Laid};
use super::model::{AppModel, Effect, Effects, Element};
use super::*;
use crate::backend::*;
use crate::tree::{normalize_type, Point};

impl Sim {
    pub(super) fn hit_test(&self, laid: &Laid, p: Point) -> Option<usize> {
        let mut best: Option<usize> = None;
        for (i, h) in laid.hits.iter().enumerate() {
            if !h.rect.contains(p) || h.clip.is_some_and(|c| !c.contains(p)) {
                continue;
            }
            if best.is_none_or(|b| h.depth >= laid.hits[b].depth) {
                best = Some(i);
            }
        }
        best
    }

    pub(super) fn element_at<'m>(
        model: &'m AppModel,
        screen: &str,
        path: &[usize],
    ) -> Option<&'m Element> {
        let s = model.screens.get(screen)?;
        let mut e = resolve_include(model, s.elements.get(*path.first()?)?);
        for i in &path[1..] {
            e = resolve_include(model, e.children.get(*i)?);
        }
        Some(e)
    }

    /// Finds the handler for `event` at hit `i`, walking up to ancestors.
    pub(super) fn handler(
        &self,
        model: &AppModel,
        app: &str,
        laid: &Laid,
        mut i: usize,
        event: &str,
    ) -> Option<Effects> {
        let screen = self.state.apps[app].stack.last()?.screen.clone();
        loop {
            let h = &laid.hits[i];
            if let Some(path) = &h.path {
                if let Some(e) = Self::element_at(model, &screen, path) {
                    if let Some(fx) = e.on.get(event) {
                        return Some(fx.clone());
                    }
                }
            }
            i = h.parent?;
        }
    }

    /// Checks what is at a point and returns the hit index.
    pub(super) fn target_at(
        &mut self,
        p: Point,
    ) -> BackendResult<(Arc<AppModel>, String, Laid, usize)> {
        self.sync();
        let (model, app) = self.fg()?;
        let laid = self.layout(&model, &app);
        if let Some(kb) = laid.keyboard {
            if kb.contains(p) {
                return Err(BackendError::rejected(
                    "ELEMENT_OCCLUDED",
                    format!("the point ({}, {}) is covered by the keyboard", p.x, p.y),
                )
                .with_hint("dismiss the keyboard first (`keyboard dismiss`)"));
            }
        }
        let Some(i) = self.hit_test(&laid, p) else {
            return Err(BackendError::rejected(
                "COMMAND_FAILED",
                format!("the point ({}, {}) is outside the screen", p.x, p.y),
            ));
        };
        if let Some(ar) = laid.alert {
            if !ar.contains(p) {
                return Err(BackendError::rejected(
                    "ELEMENT_OCCLUDED",
                    format!("the point ({}, {}) is covered by an alert", p.x, p.y),
                )
                .with_hint("handle the alert first (`alert accept` or `alert dismiss`)"));
            }
        }
        Ok((model, app, laid, i))
    }

    pub(super) fn press_alert_button(
        &mut self,
        model: &AppModel,
        app: &str,
        bi: usize,
        log: &mut Vec<String>,
    ) -> BackendResult<()> {
        let Some(name) = self.state.apps[app].alert.clone() else {
            return Ok(());
        };
        let Some(al) = model.alerts.get(&name) else {
            return Ok(());
        };
        let fx = al.buttons.get(bi).and_then(|b| b.effects.clone());
        self.app_mut(app).alert = None;
        log.push(format!("alert button {bi}"));
        if let Some(fx) = fx {
            self.run_effects(model, app, &fx, log)?;
        }
        Ok(())
    }

    pub(super) fn do_tap(&mut self, p: Point, event: &str) -> BackendResult<()> {
        let (model, app, laid, i) = self.target_at(p)?;
        let hit = laid.hits[i].clone();
        let mut log = Vec::new();
        if let Some(bi) = hit.alert_button {
            self.press_alert_button(&model, &app, bi, &mut log)?;
            self.state.last_action = Some(format!("{event} alert button"));
            return Ok(());
        }
        if !hit.enabled {
            self.state.last_action = Some(format!("{event} {} (disabled)", hit.key));
            return Ok(());
        }
        if hit.editable && event == "tap" {
            let a = self.app_mut(&app);
            a.focused = Some(hit.key.clone());
            a.keyboard = true;
        }
        if let Some(fx) = self.handler(&model, &app, &laid, i, event) {
            self.run_effects(&model, &app, &fx, &mut log)?;
        } else if event == "tap" {
            // Default behaviours: switches toggle; grouped elements select.
            if let Some(path) = &hit.path {
                let screen = self.state.apps[&app]
                    .stack
                    .last()
                    .map(|s| s.screen.clone())
                    .unwrap_or_default();
                if let Some(e) = Self::element_at(&model, &screen, path) {
                    let k = normalize_type(e.kind.as_deref().unwrap_or(""));
                    if e.group.is_some() {
                        let fx = Effect {
                            select: Some(model::IdList::One(hit.key.clone())),
                            ..Effect::default()
                        };
                        self.run_effect(&model, &app, &fx, &mut log)?;
                    } else if matches!(k.as_str(), "switch" | "checkbox") {
                        let fx = Effect {
                            toggle: Some(model::IdList::One(hit.key.clone())),
                            ..Effect::default()
                        };
                        self.run_effect(&model, &app, &fx, &mut log)?;
                    }
                }
            }
        }
        self.state.last_action = Some(format!("{event} {}", hit.key));
        Ok(())
    }

    pub(super) fn scroll_by(&mut self, dir: Direction, amount: Option<f64>) -> BackendResult<()> {
        self.sync();
        let (model, app) = self.fg()?;
        let laid = self.layout(&model, &app);
        // The largest scroll container on screen.
        let mut best: Option<&Hit> = None;
        let screen = self.state.apps[&app]
            .stack
            .last()
            .map(|s| s.screen.clone())
            .unwrap_or_default();
        for h in &laid.hits {
            let Some(path) = &h.path else { continue };
            let Some(e) = Self::element_at(&model, &screen, path) else {
                continue;
            };
            if e.scroll && best.is_none_or(|b| h.rect.area() > b.rect.area()) {
                best = Some(h);
            }
        }
        let Some(h) = best.cloned() else {
            self.state.last_action = Some("scroll (nothing scrollable)".into());
            return Ok(());
        };
        let path = h.path.clone().unwrap_or_default();
        let e = Self::element_at(&model, &screen, &path)
            .expect("element")
            .clone();
        let a = &self.state.apps[&app];
        let entered = a.stack.last().map(|s| s.entered_at).unwrap_or(0);
        let content = self.measure(
            &model,
            &app,
            &Element {
                height: None,
                rect: None,
                ..e.clone()
            },
            &screen,
            &path,
            entered,
        );
        let max = (content - h.rect.height).max(0.0);
        let step = h.rect.height * amount.unwrap_or(0.5).clamp(0.0, 1.0);
        let cur = a.scroll.get(&h.key).copied().unwrap_or(0.0);
        let next = match dir {
            Direction::Down | Direction::Right => (cur + step).min(max),
            Direction::Up | Direction::Left => (cur - step).max(0.0),
            Direction::Top => 0.0,
            Direction::Bottom => max,
        };
        self.app_mut(&app).scroll.insert(h.key.clone(), next);
        self.state.last_action = Some(format!("scroll {} to {next}", h.key));
        Ok(())
    }
}
