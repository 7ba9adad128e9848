//! An app model's conditions and effects: what holds on screen, and what a tap, fill or timer
//! changes (navigation, values, alerts, the keyboard, failures).

use std::collections::BTreeMap;

use super::layout::resolve_include;
use super::model::{AppModel, Condition, Effect, Effects, Element};
use super::persist::text_digest;
use super::*;
use crate::core::backend::*;
use crate::core::records::error_codes;

impl Sim {
    pub(super) fn holds(&self, model: &AppModel, app: &str, c: &Condition) -> bool {
        let a = &self.state.apps[app];
        if let Some(v) = &c.values {
            for (k, want) in v {
                let holds = match a.secure_digests.get(k) {
                    // A resumed session's masked secure field: compare digests.
                    Some(digest) => *digest == text_digest(want),
                    None => a.values.get(k).map(String::as_str).unwrap_or("") == want,
                };
                if !holds {
                    return false;
                }
            }
        }
        if let Some(f) = &c.filled {
            if f.ids()
                .iter()
                .any(|k| a.values.get(*k).is_none_or(|v| v.is_empty()))
            {
                return false;
            }
        }
        if let Some(s) = &c.selected {
            if s.ids().iter().any(|k| a.selected.get(*k) != Some(&true)) {
                return false;
            }
        }
        if let Some(s) = &c.state {
            for (k, want) in s {
                if a.vars.get(k) != Some(want) {
                    return false;
                }
            }
        }
        if let Some(ids) = &c.shown {
            if ids.ids().iter().any(|k| !self.shown(model, app, k)) {
                return false;
            }
        }
        if let Some(n) = &c.not {
            if self.holds(model, app, n) {
                return false;
            }
        }
        if let Some(any) = &c.any {
            if !any.iter().any(|x| self.holds(model, app, x)) {
                return false;
            }
        }
        true
    }

    /// Is the element with this id (and every ancestor) shown on the current screen?
    pub(super) fn shown(&self, model: &AppModel, app: &str, id: &str) -> bool {
        thread_local!(static DEPTH: std::cell::Cell<u32> = const { std::cell::Cell::new(0) });
        let depth = DEPTH.with(|d| d.get());
        if depth > 8 {
            return false;
        }
        DEPTH.with(|d| d.set(depth + 1));
        let result = (|| {
            let inst = self.state.apps[app].stack.last()?;
            let screen = model.screens.get(&inst.screen)?;
            fn find<'m>(
                model: &'m AppModel,
                els: &'m [Element],
                id: &str,
                path: &mut Vec<&'m Element>,
            ) -> bool {
                for e in els {
                    let e = resolve_include(model, e);
                    path.push(e);
                    if e.id.as_deref() == Some(id) || find(model, &e.children, id, path) {
                        return true;
                    }
                    path.pop();
                }
                false
            }
            let mut chain = Vec::new();
            if !find(model, &screen.elements, id, &mut chain) {
                return Some(false);
            }
            Some(chain.iter().all(|e| {
                let key = e.id.clone().unwrap_or_default();
                self.element_visible(model, app, e, &key, inst.entered_at)
            }))
        })()
        .unwrap_or(false);
        DEPTH.with(|d| d.set(depth));
        result
    }

    pub(super) fn enter(
        &mut self,
        model: &AppModel,
        app: &str,
        screen: &str,
        mode: &str,
        log: &mut Vec<String>,
    ) -> BackendResult<()> {
        let now = self.state.now_ms;
        let a = self.app_mut(app);
        let inst = ScreenInstance {
            screen: screen.to_string(),
            entered_at: now,
        };
        match mode {
            "go" => a.stack.push(inst),
            "replace" => {
                a.stack.pop();
                a.stack.push(inst);
            }
            _ => a.stack = vec![inst],
        }
        a.focused = None;
        a.keyboard = false;
        log.push(format!("{mode} {screen}"));
        if let Some(fx) = model.screens.get(screen).and_then(|s| s.on.get("appear")) {
            let fx = fx.clone();
            self.run_effects(model, app, &fx, log)?;
        }
        Ok(())
    }

    pub(super) fn group_of(
        model: &AppModel,
        screen: &str,
        key: &str,
    ) -> Option<(String, Vec<String>)> {
        fn walk(
            model: &AppModel,
            els: &[Element],
            key: &str,
            groups: &mut BTreeMap<String, Vec<String>>,
            found: &mut Option<String>,
        ) {
            for e in els {
                let e = resolve_include(model, e);
                if let (Some(g), Some(id)) = (&e.group, &e.id) {
                    groups.entry(g.clone()).or_default().push(id.clone());
                    if id == key {
                        *found = Some(g.clone());
                    }
                }
                walk(model, &e.children, key, groups, found);
            }
        }
        let s = model.screens.get(screen)?;
        let mut groups = BTreeMap::new();
        let mut found = None;
        walk(model, &s.elements, key, &mut groups, &mut found);
        let g = found?;
        let members = groups.remove(&g).unwrap_or_default();
        Some((g, members))
    }

    pub(super) fn run_effects(
        &mut self,
        model: &AppModel,
        app: &str,
        fx: &Effects,
        log: &mut Vec<String>,
    ) -> BackendResult<()> {
        for e in fx.list() {
            self.run_effect(model, app, e, log)?;
        }
        Ok(())
    }

    pub(super) fn run_effect(
        &mut self,
        model: &AppModel,
        app: &str,
        e: &Effect,
        log: &mut Vec<String>,
    ) -> BackendResult<()> {
        if let Some(msg) = &e.fail {
            return Err(BackendError::rejected(
                error_codes::COMMAND_FAILED,
                msg.clone(),
            ));
        }
        if let Some(msg) = &e.transport_error {
            return Err(BackendError::Transport {
                message: msg.clone(),
            });
        }
        if let Some(ms) = e.stall_ms {
            std::thread::sleep(std::time::Duration::from_millis(ms));
        }
        if let Some(c) = &e.condition {
            let branch = if self.holds(model, app, c) {
                &e.then
            } else {
                &e.otherwise
            };
            if let Some(b) = branch {
                let b = b.clone();
                self.run_effects(model, app, &b, log)?;
            }
        }
        if let Some(delay) = e.after {
            if let Some(d) = &e.then_do {
                self.state.seq += 1;
                let seq = self.state.seq;
                let due = self.state.now_ms + delay;
                let d = d.clone();
                self.app_mut(app).timers.push(Timer {
                    due,
                    seq,
                    effects: d,
                });
            }
        } else if let Some(d) = &e.then_do {
            let d = d.clone();
            self.run_effects(model, app, &d, log)?;
        }
        if let Some(s) = &e.go {
            self.enter(model, app, s, "go", log)?;
        }
        if let Some(s) = &e.replace {
            self.enter(model, app, s, "replace", log)?;
        }
        if let Some(s) = &e.reset {
            self.enter(model, app, s, "reset", log)?;
        }
        if e.back == Some(true) {
            let a = self.app_mut(app);
            if a.stack.len() > 1 {
                a.stack.pop();
                a.focused = None;
                a.keyboard = false;
            }
            log.push("back".into());
        }
        if let Some(set) = &e.set {
            let a = self.app_mut(app);
            for (k, v) in set {
                a.vars.insert(k.clone(), v.clone());
            }
        }
        if let Some(ids) = &e.show {
            let a = self.app_mut(app);
            for id in ids.ids() {
                a.shown.insert(id.to_string(), true);
            }
        }
        if let Some(ids) = &e.hide {
            let a = self.app_mut(app);
            for id in ids.ids() {
                a.shown.insert(id.to_string(), false);
            }
        }
        if let Some(ids) = &e.select {
            let screen = self.state.apps[app]
                .stack
                .last()
                .map(|s| s.screen.clone())
                .unwrap_or_default();
            for id in ids.ids() {
                if let Some((_, members)) = Self::group_of(model, &screen, id) {
                    let a = self.app_mut(app);
                    for m in members {
                        a.selected.insert(m, false);
                    }
                }
                self.app_mut(app).selected.insert(id.to_string(), true);
            }
        }
        if let Some(ids) = &e.deselect {
            let a = self.app_mut(app);
            for id in ids.ids() {
                a.selected.insert(id.to_string(), false);
            }
        }
        if let Some(ids) = &e.toggle {
            let a = self.app_mut(app);
            for id in ids.ids() {
                let v = a.selected.get(id).copied().unwrap_or(false);
                a.selected.insert(id.to_string(), !v);
            }
        }
        if let Some(vals) = &e.values {
            let a = self.app_mut(app);
            for (k, v) in vals {
                a.values.insert(k.clone(), v.clone());
            }
        }
        if let Some(al) = &e.alert {
            self.app_mut(app).alert = Some(al.clone());
            log.push(format!("alert {al}"));
        }
        if e.dismiss_alert == Some(true) {
            self.app_mut(app).alert = None;
        }
        if e.hide_keyboard == Some(true) {
            let a = self.app_mut(app);
            a.keyboard = false;
            a.focused = None;
        }
        Ok(())
    }
}
