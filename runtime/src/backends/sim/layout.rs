//! Laying out a screen: the model's elements become the accessibility tree a capture returns,
//! with frames, scrolling, clipping, the keyboard and alerts, plus the list hit tests use.

use std::collections::BTreeMap;

use super::model::{AppModel, Element};
use super::*;
use crate::core::tree::{normalize_type, Node, Rect};

const STATUS_BAR: f64 = 47.0;
const NAV_BAR: f64 = 44.0;
const ROW: f64 = 44.0;
const KEYBOARD: f64 = 291.0;

/// What one capture laid out: nodes plus the hit-test list.
pub(super) struct Laid {
    pub(super) roots: Vec<Node>,
    pub(super) hits: Vec<Hit>,
    pub(super) keyboard: Option<Rect>,
    pub(super) alert: Option<Rect>,
}

#[derive(Debug, Clone)]
pub(super) struct Hit {
    pub(super) rect: Rect,
    pub(super) clip: Option<Rect>,
    pub(super) depth: usize,
    pub(super) parent: Option<usize>,
    /// Element path from the screen (`None` for chrome: nav bar, alert, keyboard).
    pub(super) path: Option<Vec<usize>>,
    pub(super) key: String,
    pub(super) editable: bool,
    /// A secure text field (its text is never exposed).
    pub(super) secure: bool,
    pub(super) enabled: bool,
    /// Alert button index.
    pub(super) alert_button: Option<usize>,
}

pub(super) fn is_editable_type(kind: &str) -> bool {
    let n = normalize_type(kind);
    n.contains("textfield")
        || n.contains("securetextfield")
        || n.contains("searchfield")
        || n.contains("textview")
        || n.contains("textarea")
        || n == "search"
        || n.contains("edittext")
}

pub(super) fn is_interactive_type(kind: &str) -> bool {
    matches!(
        normalize_type(kind).as_str(),
        "button"
            | "link"
            | "cell"
            | "switch"
            | "tab"
            | "menuitem"
            | "checkbox"
            | "radiobutton"
            | "slider"
            | "combobox"
            | "listbox"
            | "option"
    ) || is_editable_type(kind)
}

pub(super) fn template(s: &str, vars: &BTreeMap<String, String>) -> String {
    if !s.contains("{{") {
        return s.to_string();
    }
    let mut out = String::new();
    let mut rest = s;
    while let Some(i) = rest.find("{{") {
        out.push_str(&rest[..i]);
        match rest[i + 2..].find("}}") {
            Some(j) => {
                let name = rest[i + 2..i + 2 + j].trim();
                out.push_str(vars.get(name).map(String::as_str).unwrap_or(""));
                rest = &rest[i + 2 + j + 2..];
            }
            None => {
                out.push_str(&rest[i..]);
                rest = "";
            }
        }
    }
    out.push_str(rest);
    out
}

pub(super) fn intersects(a: &Rect, b: &Rect) -> bool {
    a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height
}

impl Sim {
    pub(super) fn element_visible(
        &self,
        model: &AppModel,
        app: &str,
        e: &Element,
        key: &str,
        entered: u64,
    ) -> bool {
        let a = &self.state.apps[app];
        let now = self.state.now_ms;
        if let Some(explicit) = a.shown.get(key) {
            if !explicit {
                return false;
            }
        } else {
            if e.hidden {
                return false;
            }
            if let Some(t) = e.appear_after_ms {
                if now < entered + t {
                    return false;
                }
            }
            if let Some(t) = e.disappear_after_ms {
                if now >= entered + t {
                    return false;
                }
            }
        }
        match &e.when {
            Some(c) => self.holds(model, app, c),
            None => true,
        }
    }

    pub(super) fn layout(&self, model: &AppModel, app: &str) -> Laid {
        let a = &self.state.apps[app];
        let w = model.screen.width;
        let h = model.screen.height;
        let viewport = Rect {
            x: 0.0,
            y: 0.0,
            width: w,
            height: h,
        };
        let mut hits: Vec<Hit> = Vec::new();
        let mut root = Node {
            kind: "Application".into(),
            label: Some(model.display_name().to_string()),
            rect: Some(viewport),
            enabled: true,
            ..Node::default()
        };
        hits.push(Hit {
            secure: false,
            rect: viewport,
            clip: None,
            depth: 0,
            parent: None,
            path: None,
            key: "#app".into(),
            editable: false,
            enabled: true,
            alert_button: None,
        });
        let Some(inst) = a.stack.last() else {
            return Laid {
                roots: vec![root],
                hits,
                keyboard: None,
                alert: None,
            };
        };
        let screen = model.screens.get(&inst.screen).cloned().unwrap_or_default();
        let mut top = STATUS_BAR;
        if let Some(t) = &screen.title {
            root.children.push(Node {
                kind: "NavigationBar".into(),
                label: Some(template(t, &a.vars)),
                rect: Some(Rect {
                    x: 0.0,
                    y: top,
                    width: w,
                    height: NAV_BAR,
                }),
                enabled: true,
                ..Node::default()
            });
            hits.push(Hit {
                secure: false,
                rect: Rect {
                    x: 0.0,
                    y: top,
                    width: w,
                    height: NAV_BAR,
                },
                clip: None,
                depth: 1,
                parent: Some(0),
                path: None,
                key: "#navbar".into(),
                editable: false,
                enabled: true,
                alert_button: None,
            });
            top += NAV_BAR;
        }
        // Docked elements first (positions only), then everything in model order.
        let mut bottom = h;
        let mut docked: BTreeMap<usize, f64> = BTreeMap::new();
        for (i, e) in screen.elements.iter().enumerate() {
            let e = resolve_include(model, e);
            let key = element_key(e, &inst.screen, &[i]);
            if !self.element_visible(model, app, e, &key, inst.entered_at) {
                continue;
            }
            match e.dock.as_deref() {
                Some("bottom") => {
                    let eh = self.measure(model, app, e, &inst.screen, &[i], inst.entered_at);
                    bottom -= eh;
                    docked.insert(i, bottom);
                }
                Some("top") => {
                    let eh = self.measure(model, app, e, &inst.screen, &[i], inst.entered_at);
                    docked.insert(i, top);
                    top += eh;
                }
                _ => {}
            }
        }
        let mut cx = Cx {
            sim: self,
            model,
            app,
            screen: &inst.screen,
            entered: inst.entered_at,
            hits: &mut hits,
            viewport,
        };
        let mut y = top;
        for (i, e) in screen.elements.iter().enumerate() {
            let el = resolve_include(model, e);
            let (ey, avail) = match docked.get(&i) {
                Some(dy) => (*dy, h),
                None => (y, bottom),
            };
            let (node, used) = cx.element(el, vec![i], 0.0, ey, w, avail, None, 1, Some(0));
            if let Some(n) = node {
                root.children.push(n);
            }
            if !docked.contains_key(&i) {
                y += used;
            }
        }
        let mut alert_rect = None;
        if let Some(name) = &a.alert {
            if let Some(al) = model.alerts.get(name) {
                let ar = Rect {
                    x: w * 0.1,
                    y: h / 2.0 - 100.0,
                    width: w * 0.8,
                    height: 200.0,
                };
                alert_rect = Some(ar);
                let alert_index = hits.len();
                hits.push(Hit {
                    secure: false,
                    rect: ar,
                    clip: None,
                    depth: 1,
                    parent: Some(0),
                    path: None,
                    key: format!("#alert:{name}"),
                    editable: false,
                    enabled: true,
                    alert_button: None,
                });
                let mut node = Node {
                    kind: "Alert".into(),
                    label: Some(al.title.clone()),
                    rect: Some(ar),
                    enabled: true,
                    ..Node::default()
                };
                if let Some(m) = &al.message {
                    node.children.push(Node {
                        kind: "StaticText".into(),
                        label: Some(m.clone()),
                        rect: Some(Rect {
                            x: ar.x + 16.0,
                            y: ar.y + 56.0,
                            width: ar.width - 32.0,
                            height: 60.0,
                        }),
                        enabled: true,
                        ..Node::default()
                    });
                    hits.push(Hit {
                        secure: false,
                        rect: Rect {
                            x: ar.x + 16.0,
                            y: ar.y + 56.0,
                            width: ar.width - 32.0,
                            height: 60.0,
                        },
                        clip: None,
                        depth: 2,
                        parent: Some(alert_index),
                        path: None,
                        key: "#alert-message".into(),
                        editable: false,
                        enabled: true,
                        alert_button: None,
                    });
                }
                let n = al.buttons.len().max(1) as f64;
                let bw = ar.width / n;
                for (bi, b) in al.buttons.iter().enumerate() {
                    let br = Rect {
                        x: ar.x + bw * bi as f64,
                        y: ar.y + ar.height - ROW,
                        width: bw,
                        height: ROW,
                    };
                    node.children.push(Node {
                        kind: "Button".into(),
                        label: Some(b.label.clone()),
                        rect: Some(br),
                        enabled: true,
                        hittable: true,
                        ..Node::default()
                    });
                    hits.push(Hit {
                        secure: false,
                        rect: br,
                        clip: None,
                        depth: 2,
                        parent: Some(alert_index),
                        path: None,
                        key: format!("#alert-button:{bi}"),
                        editable: false,
                        enabled: true,
                        alert_button: Some(bi),
                    });
                }
                root.children.push(node);
            }
        }
        let mut keyboard = None;
        if a.keyboard {
            let kr = Rect {
                x: 0.0,
                y: h - KEYBOARD,
                width: w,
                height: KEYBOARD,
            };
            keyboard = Some(kr);
            root.children.push(Node {
                kind: "Keyboard".into(),
                rect: Some(kr),
                enabled: true,
                ..Node::default()
            });
            hits.push(Hit {
                secure: false,
                rect: kr,
                clip: None,
                depth: 1,
                parent: Some(0),
                path: None,
                key: "#keyboard".into(),
                editable: false,
                enabled: true,
                alert_button: None,
            });
        }
        // Covered content is not hittable.
        if alert_rect.is_some() || keyboard.is_some() {
            fn uncover(n: &mut Node, alert: bool, kb: Option<Rect>) {
                let k = normalize_type(&n.kind);
                if k == "alert" || k == "keyboard" {
                    return;
                }
                if alert {
                    n.hittable = false;
                } else if let (Some(kb), Some(r)) = (kb, n.rect) {
                    if kb.contains(r.center()) {
                        n.hittable = false;
                    }
                }
                for c in &mut n.children {
                    uncover(c, alert, kb);
                }
            }
            for c in &mut root.children {
                uncover(c, alert_rect.is_some(), keyboard);
            }
        }
        Laid {
            roots: vec![root],
            hits,
            keyboard,
            alert: alert_rect,
        }
    }

    pub(super) fn measure(
        &self,
        model: &AppModel,
        app: &str,
        e: &Element,
        screen: &str,
        path: &[usize],
        entered: u64,
    ) -> f64 {
        if let Some(h) = e.height {
            return h;
        }
        if let Some(r) = e.rect {
            return r.height;
        }
        if e.children.is_empty() {
            return ROW;
        }
        let row = e.layout.as_deref() == Some("row");
        let spacing = e.spacing.unwrap_or(0.0);
        let mut total: f64 = 0.0;
        let mut count = 0;
        for (i, c) in e.children.iter().enumerate() {
            let c = resolve_include(model, c);
            let mut p = path.to_vec();
            p.push(i);
            let key = element_key(c, screen, &p);
            if !self.element_visible(model, app, c, &key, entered) {
                continue;
            }
            let ch = self.measure(model, app, c, screen, &p, entered);
            if row {
                total = total.max(ch);
            } else {
                total += ch;
            }
            count += 1;
        }
        if !row && count > 1 {
            total += spacing * (count - 1) as f64;
        }
        total
    }
}

pub(super) fn resolve_include<'m>(model: &'m AppModel, e: &'m Element) -> &'m Element {
    match &e.include {
        Some(c) => model.components.get(c).unwrap_or(e),
        None => e,
    }
}

pub(super) fn element_key(e: &Element, screen: &str, path: &[usize]) -> String {
    match &e.id {
        Some(id) => id.clone(),
        None => format!(
            "#{screen}/{}",
            path.iter()
                .map(|i| i.to_string())
                .collect::<Vec<_>>()
                .join("/")
        ),
    }
}

pub(super) struct Cx<'a> {
    pub(super) sim: &'a Sim,
    pub(super) model: &'a AppModel,
    pub(super) app: &'a str,
    pub(super) screen: &'a str,
    pub(super) entered: u64,
    pub(super) hits: &'a mut Vec<Hit>,
    pub(super) viewport: Rect,
}

impl Cx<'_> {
    /// Lays out one element at (x, y) with width w; returns the node (None when hidden or
    /// clipped away) and the height it takes in the flow.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn element(
        &mut self,
        e: &Element,
        path: Vec<usize>,
        x: f64,
        y: f64,
        w: f64,
        avail_bottom: f64,
        clip: Option<Rect>,
        depth: usize,
        parent: Option<usize>,
    ) -> (Option<Node>, f64) {
        let key = element_key(e, self.screen, &path);
        if !self
            .sim
            .element_visible(self.model, self.app, e, &key, self.entered)
        {
            return (None, 0.0);
        }
        let a = &self.sim.state.apps[self.app];
        let kind = e.kind.clone().unwrap_or_else(|| "Other".into());
        let measured = self
            .sim
            .measure(self.model, self.app, e, self.screen, &path, self.entered);
        let height = if e.scroll && e.height.is_none() && e.rect.is_none() {
            (avail_bottom - y).max(0.0)
        } else {
            measured
        };
        let rect = e.rect.unwrap_or(Rect {
            x,
            y,
            width: e.width.unwrap_or(w),
            height,
        });
        let visible_area = clip.unwrap_or(self.viewport);
        if !intersects(&rect, &visible_area) && clip.is_some() {
            return (None, height);
        }
        let editable = e.editable.unwrap_or_else(|| is_editable_type(&kind));
        let enabled = e.enabled.unwrap_or(true);
        let secure = normalize_type(&kind).contains("secure");
        let value = a
            .values
            .get(&key)
            .cloned()
            .or_else(|| e.value.as_ref().map(|v| template(v, &a.vars)))
            .map(|v| {
                if secure {
                    "•".repeat(v.chars().count())
                } else {
                    v
                }
            });
        let on_screen = {
            let c = rect.center();
            visible_area.contains(c) && self.viewport.contains(c)
        };
        let interactive = is_interactive_type(&kind) || !e.on.is_empty() || e.group.is_some();
        let hittable = e.hittable.unwrap_or(interactive) && on_screen;
        let me = self.hits.len();
        self.hits.push(Hit {
            secure,
            rect,
            clip,
            depth,
            parent,
            path: Some(path.clone()),
            key: key.clone(),
            editable,
            enabled,
            alert_button: None,
        });
        let mut node = Node {
            kind,
            id: e.id.clone(),
            label: e.label.as_ref().map(|l| template(l, &a.vars)),
            value,
            rect: Some(rect),
            enabled,
            selected: a
                .selected
                .get(&key)
                .copied()
                .unwrap_or(e.selected.unwrap_or(false)),
            focused: a.focused.as_deref() == Some(key.as_str()),
            editable,
            hittable,
            visible_to_user: None,
            children: Vec::new(),
        };
        let row = e.layout.as_deref() == Some("row");
        let spacing = e.spacing.unwrap_or(0.0);
        let (child_clip, offset) = if e.scroll {
            let c = match clip {
                Some(outer) => intersect(&outer, &rect),
                None => rect,
            };
            (Some(c), a.scroll.get(&key).copied().unwrap_or(0.0))
        } else {
            (clip, 0.0)
        };
        let visible_children: Vec<(usize, &Element)> = e
            .children
            .iter()
            .enumerate()
            .map(|(i, c)| (i, resolve_include(self.model, c)))
            .filter(|(i, c)| {
                let mut p = path.clone();
                p.push(*i);
                self.sim.element_visible(
                    self.model,
                    self.app,
                    c,
                    &element_key(c, self.screen, &p),
                    self.entered,
                )
            })
            .collect();
        let n = visible_children.len().max(1) as f64;
        let mut cy = rect.y - offset;
        let mut cxp = rect.x;
        for (i, c) in visible_children {
            let mut p = path.clone();
            p.push(i);
            let cw = if row {
                c.width.unwrap_or(rect.width / n)
            } else {
                rect.width
            };
            let (child, used) = self.element(
                c,
                p,
                cxp,
                cy,
                cw,
                rect.y + rect.height,
                child_clip,
                depth + 1,
                Some(me),
            );
            if let Some(ch) = child {
                node.children.push(ch);
            }
            if row {
                cxp += cw;
            } else {
                cy += used + spacing;
            }
        }
        (Some(node), height)
    }
}

pub(super) fn intersect(a: &Rect, b: &Rect) -> Rect {
    let x = a.x.max(b.x);
    let y = a.y.max(b.y);
    let r = (a.x + a.width).min(b.x + b.width);
    let btm = (a.y + a.height).min(b.y + b.height);
    Rect {
        x,
        y,
        width: (r - x).max(0.0),
        height: (btm - y).max(0.0),
    }
}
