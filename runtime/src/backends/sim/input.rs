//! Input: what is at a point (hit testing), which handler a tap reaches, taps on alert buttons,
//! and scrolling.

use std::sync::Arc;

use super::layout::{element_key, resolve_include, Hit, Laid};
use super::model::{AppModel, Effect, Effects, Element};
use super::*;
use crate::core::backend::*;
use crate::core::records::error_codes;
use crate::core::tree::{normalize_type, Point};

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
                    error_codes::ELEMENT_OCCLUDED,
                    format!("the point ({}, {}) is covered by the keyboard", p.x, p.y),
                )
                .with_hint("dismiss the keyboard first (`keyboard dismiss`)"));
            }
        }
        let Some(i) = self.hit_test(&laid, p) else {
            return Err(BackendError::rejected(
                error_codes::COMMAND_FAILED,
                format!("the point ({}, {}) is outside the screen", p.x, p.y),
            ));
        };
        if let Some(ar) = laid.alert {
            if !ar.contains(p) {
                return Err(BackendError::rejected(
                    error_codes::ELEMENT_OCCLUDED,
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
        if event == "tap" {
            if let Some((select, option)) = self.option_at(&model, &app, &hit) {
                return self.choose(&model, &app, &laid, &select, Choose::Option(option));
            }
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

    /// The select (its path) and option index of a hit on an option of a `combobox`/`listbox`.
    fn option_at(&self, model: &AppModel, app: &str, hit: &Hit) -> Option<(Vec<usize>, usize)> {
        let path = hit.path.as_ref()?;
        let (&option, select) = path.split_last()?;
        let screen = &self.state.apps[app].stack.last()?.screen;
        let e = Self::element_at(model, screen, path)?;
        let parent = Self::element_at(model, screen, select)?;
        (normalize_type(e.kind.as_deref().unwrap_or("")) == "option"
            && is_choice_type(parent.kind.as_deref().unwrap_or("")))
        .then(|| (select.to_vec(), option))
    }

    /// A choice in a select (`combobox`/`listbox`), as on the web: `fill` names the option by its
    /// label (else its value), a tap picks it. The option is selected (its siblings deselected),
    /// the select's value becomes the option's label, and, when that changed the selection, the
    /// select's `on.change` runs. A text no option has fails, listing the options.
    pub(super) fn choose(
        &mut self,
        model: &AppModel,
        app: &str,
        laid: &Laid,
        select: &[usize],
        how: Choose<'_>,
    ) -> BackendResult<()> {
        let screen = self.state.apps[app]
            .stack
            .last()
            .map(|s| s.screen.clone())
            .unwrap_or_default();
        let Some(sel) = Self::element_at(model, &screen, select) else {
            return Ok(());
        };
        let select_key = element_key(sel, &screen, select);
        let vars = self.state.apps[app].vars.clone();
        let options: Vec<(String, String, Option<String>)> = sel
            .children
            .iter()
            .enumerate()
            .map(|(i, c)| (i, resolve_include(model, c)))
            .filter(|(_, c)| normalize_type(c.kind.as_deref().unwrap_or("")) == "option")
            .map(|(i, c)| {
                let mut p = select.to_vec();
                p.push(i);
                let label = c
                    .label
                    .as_deref()
                    .map(|l| super::layout::template(l, &vars))
                    .unwrap_or_default();
                (element_key(c, &screen, &p), label, c.value.clone())
            })
            .collect();
        let norm = |s: &str| s.split_whitespace().collect::<Vec<_>>().join(" ");
        let chosen = match how {
            Choose::Option(i) => {
                let mut p = select.to_vec();
                p.push(i);
                let key = sel
                    .children
                    .get(i)
                    .map(|c| element_key(resolve_include(model, c), &screen, &p));
                options.iter().position(|(k, _, _)| Some(k) == key.as_ref())
            }
            Choose::Text(text) => options
                .iter()
                .position(|(_, l, _)| norm(l) == norm(text))
                .or_else(|| {
                    options
                        .iter()
                        .position(|(_, _, v)| v.as_deref() == Some(text))
                }),
        };
        let Some(chosen) = chosen else {
            let names: Vec<String> = options
                .iter()
                .map(|(_, l, _)| format!("\"{}\"", norm(l)))
                .collect();
            return Err(BackendError::rejected(
                error_codes::COMMAND_FAILED,
                format!(
                    "the select has no option with that label or value; its options: {}",
                    names.join(", ")
                ),
            )
            .with_hint("fill a select with one of its options' labels (or values)"));
        };
        if sel.enabled == Some(false) {
            self.state.last_action = Some(format!("choose in {select_key} (disabled)"));
            return Ok(());
        }
        let label = options[chosen].1.clone();
        let a = self.app_mut(app);
        let changed = options
            .iter()
            .enumerate()
            .any(|(i, (k, _, _))| a.selected.get(k).copied().unwrap_or(false) != (i == chosen))
            || a.values.get(&select_key) != Some(&label);
        for (i, (k, _, _)) in options.iter().enumerate() {
            a.selected.insert(k.clone(), i == chosen);
        }
        a.values.insert(select_key.clone(), label);
        a.focused = Some(select_key.clone());
        let mut log = Vec::new();
        if changed {
            if let Some(fx) = sel.on.get("change") {
                self.run_effects(model, app, &fx.clone(), &mut log)?;
            }
        }
        let _ = laid;
        self.state.last_action = Some(format!("choose {} in {select_key}", options[chosen].0));
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

/// How a choice names its option.
pub(super) enum Choose<'a> {
    /// By its label, else its value (`fill`).
    Text(&'a str),
    /// The select's child at this index (a tap on it).
    Option(usize),
}

/// A select: `fill` chooses one of its `option` children.
pub(super) fn is_choice_type(kind: &str) -> bool {
    matches!(normalize_type(kind).as_str(), "combobox" | "listbox")
}
