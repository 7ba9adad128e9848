//! agent-device's touch-point rules (0.21.5), so the bridge taps an element where agent-device
//! would, and refuses where agent-device refuses, on the capture `ad` resolved and verified.
//!
//! agent-device, acting on an element (`click`/`press`/`fill`/`focus`/`longpress`/`hover` by
//! ref or selector):
//! - refuses a node its snapshot marks `interactionBlocked` (covered by another element);
//! - refuses a node whose frame lies outside its viewport (off-screen: a closed menu's items);
//! - taps the centre of the node's frame, unless interactive descendants (buttons, menu items,
//!   fields, …) overlap that frame: then the nearest point of the frame, inside the viewport, at
//!   least 12 points clear of every such descendant and a margin clear of the frame's edge
//!   ("parent-owned"); with no such point it refuses ("no parent-owned touch point outside its
//!   interactive descendants").
//!
//! The viewport is agent-device's: the nearest scrolling ancestor's frame, else the largest
//! application/window frame holding the node's centre; coordinates round as JavaScript rounds.
//!
//! One rule is `ad`'s own, on Linux only: agent-device's AT-SPI snapshot gives the items of a
//! GTK popup menu positions relative to the popup's own window, so a tap at such an item lands
//! on whatever the main window has there (another item, the menu bar). The evidence is in the
//! frames: an open menu's items sit over their own menu title, where a real drop-down never
//! is. `ad` refuses that tap before sending it (agent-device sends it).

use crate::core::backend::TouchRefusal;
use crate::core::tree::{normalize_type, FlatNode, Point, Rect, Snapshot};

/// What agent-device's snapshot says of a node beyond [`FlatNode`]: its role and subrole (the
/// node's `type` is [`FlatNode::kind`]) and whether it is blocked (`interactionBlocked`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct NodeExtra {
    pub role: Option<String>,
    pub subrole: Option<String>,
    pub blocked: bool,
}

/// Interactive types (agent-device's list): a descendant of one of these kinds owns its area.
const INTERACTIVE: [&str; 11] = [
    "button",
    "link",
    "menuitem",
    "tabitem",
    "textfield",
    "searchfield",
    "securetextfield",
    "checkbox",
    "radio",
    "switch",
    "cell",
];

/// The clearance a parent-owned point keeps from every interactive descendant.
const CLEARANCE: f64 = 12.0;

/// JavaScript's `Math.round`: halves round up (towards +∞).
fn js_round(v: f64) -> f64 {
    (v + 0.5).floor()
}

fn centre(r: &Rect) -> Point {
    Point {
        x: js_round(r.x + r.width / 2.0),
        y: js_round(r.y + r.height / 2.0),
    }
}

/// A usable frame: finite, not negative in size.
fn frame(r: Option<&Rect>) -> Option<Rect> {
    let r = r?;
    let ok = [r.x, r.y, r.width, r.height].iter().all(|v| v.is_finite())
        && r.width >= 0.0
        && r.height >= 0.0;
    ok.then_some(*r)
}

/// A frame with an area.
fn solid(r: Option<&Rect>) -> Option<Rect> {
    frame(r).filter(|r| r.width > 0.0 && r.height > 0.0)
}

/// The point inside `r`, edges included.
fn holds(r: &Rect, x: f64, y: f64) -> bool {
    x >= r.x && x <= r.x + r.width && y >= r.y && y <= r.y + r.height
}

fn intersection(a: &Rect, b: &Rect) -> Option<Rect> {
    let x = a.x.max(b.x);
    let y = a.y.max(b.y);
    let right = (a.x + a.width).min(b.x + b.width);
    let bottom = (a.y + a.height).min(b.y + b.height);
    (right > x && bottom > y).then_some(Rect {
        x,
        y,
        width: right - x,
        height: bottom - y,
    })
}

/// Two frames touch or overlap (edges count).
fn meet(a: &Rect, b: &Rect) -> bool {
    a.x.max(b.x) <= (a.x + a.width).min(b.x + b.width)
        && a.y.max(b.y) <= (a.y + a.height).min(b.y + b.height)
}

fn same_frame(a: &Rect, b: &Rect) -> bool {
    (a.x - b.x).abs() <= 0.5
        && (a.y - b.y).abs() <= 0.5
        && (a.width - b.width).abs() <= 0.5
        && (a.height - b.height).abs() <= 0.5
}

/// The first of the largest frames.
fn largest<'r>(rects: impl Iterator<Item = &'r Rect>) -> Option<Rect> {
    let mut best: Option<Rect> = None;
    let mut area = -1.0;
    for r in rects {
        if r.area() > area {
            area = r.area();
            best = Some(*r);
        }
    }
    best
}

/// One capture with agent-device's extra node facts.
struct View<'a> {
    nodes: &'a [FlatNode],
    extras: &'a [NodeExtra],
}

impl View<'_> {
    fn extra(&self, i: usize) -> Option<&NodeExtra> {
        self.extras.get(i)
    }

    /// The node's type, role and subrole, each as agent-device normalises types.
    fn kinds(&self, i: usize) -> Vec<String> {
        let n = &self.nodes[i];
        let e = self.extra(i);
        [
            Some(n.kind.as_str()),
            e.and_then(|e| e.role.as_deref()),
            e.and_then(|e| e.subrole.as_deref()),
        ]
        .into_iter()
        .map(|k| normalize_type(k.unwrap_or("")))
        .collect()
    }

    fn interactive(&self, i: usize) -> bool {
        self.kinds(i)
            .iter()
            .any(|k| k == "tab" || INTERACTIVE.iter().any(|t| k.contains(t)))
    }

    /// An application or window: a frame taps are measured against.
    fn is_root(&self, i: usize) -> bool {
        let k = self.kinds(i).join(" ");
        k.contains("application") || k.contains("window")
    }

    /// A scrolling container: its frame is the viewport of what it holds.
    fn is_scroller(&self, i: usize) -> bool {
        let t = self.nodes[i].kind.to_lowercase();
        let by_type = [
            "scroll",
            "recyclerview",
            "listview",
            "gridview",
            "collectionview",
        ]
        .iter()
        .any(|k| t.contains(k))
            || t == "table";
        let e = self.extra(i);
        let role = format!(
            "{} {}",
            e.and_then(|e| e.role.as_deref()).unwrap_or(""),
            e.and_then(|e| e.subrole.as_deref()).unwrap_or("")
        )
        .to_lowercase();
        by_type || role.contains("scroll")
    }

    fn blocked(&self, i: usize) -> bool {
        self.extra(i).is_some_and(|e| e.blocked)
    }

    /// The node's ancestors, nearest first (a flattened capture's parents precede their
    /// children).
    fn ancestors(&self, i: usize) -> impl Iterator<Item = usize> + '_ {
        let mut at = i;
        std::iter::from_fn(move || {
            let p = self.nodes.get(at)?.parent_index.filter(|&p| p < at)?;
            at = p;
            Some(p)
        })
    }

    /// The node's descendants: the nodes after it, in document order, until one as shallow.
    fn descendants(&self, i: usize) -> std::ops::Range<usize> {
        let depth = self.nodes[i].depth;
        let end = self.nodes[i + 1..]
            .iter()
            .position(|n| n.depth <= depth)
            .map_or(self.nodes.len(), |k| i + 1 + k);
        i + 1..end
    }

    fn root_frames(&self) -> Vec<Rect> {
        (0..self.nodes.len())
            .filter(|&i| self.is_root(i))
            .filter_map(|i| solid(self.nodes[i].rect.as_ref()))
            .collect()
    }

    /// The viewport of a frame: the largest root frame holding its centre, else the largest root
    /// frame, else (no roots) the largest frame of any node holding its centre.
    fn viewport_of(&self, r: &Rect, roots: &[Rect]) -> Option<Rect> {
        let c = centre(r);
        largest(roots.iter().filter(|v| holds(v, c.x, c.y)))
            .or_else(|| largest(roots.iter()))
            .or_else(|| {
                let all: Vec<Rect> = self
                    .nodes
                    .iter()
                    .filter_map(|n| n.rect)
                    .filter(|r| [r.x, r.y, r.width, r.height].iter().all(|v| v.is_finite()))
                    .filter(|v| holds(v, c.x, c.y))
                    .collect();
                largest(all.iter())
            })
    }

    /// The viewport a node is seen through: its nearest scrolling ancestor's frame, else the
    /// viewport of its frame.
    fn effective_viewport(&self, i: usize, roots: &[Rect]) -> Option<Rect> {
        if let Some(r) = self
            .ancestors(i)
            .find(|&a| self.nodes[a].rect.is_some() && self.is_scroller(a))
            .and_then(|a| self.nodes[a].rect)
        {
            return Some(r);
        }
        if roots.is_empty() {
            return None;
        }
        self.viewport_of(&self.nodes[i].rect.unwrap_or_default(), roots)
    }

    /// On screen: in its effective viewport, and its centre inside its viewport.
    fn on_screen(&self, i: usize, roots: &[Rect]) -> bool {
        let Some(r) = self.nodes[i].rect else {
            return true;
        };
        if let Some(v) = self.effective_viewport(i, roots) {
            if !meet(&r, &v) {
                return false;
            }
        }
        match self.viewport_of(&r, roots) {
            Some(v) if v.width > 0.0 && v.height > 0.0 => {
                holds(&v, r.x + r.width / 2.0, r.y + r.height / 2.0)
            }
            _ => true,
        }
    }
}

/// agent-device's verb for a refused action ("cannot be tapped safely").
fn passive(action: &str) -> &'static str {
    match action {
        "fill" => "be filled",
        "focus" => "be focused",
        "longpress" | "longPress" => "be long-pressed",
        "hover" => "be hovered",
        _ => "be tapped",
    }
}

/// How agent-device names the target in a refusal: `Ref @e4`, `Selector label=File`.
fn target_label(target: &str) -> String {
    if target.starts_with('@') {
        format!("Ref {target}")
    } else {
        format!("Selector {target}")
    }
}

/// The point agent-device taps for node `i` of `tree`, or its refusal. `extras` are the
/// capture's [`NodeExtra`]s by node (empty when unknown); `target` is the step's target as
/// written, `action` its command word, `platform` the bridge's platform.
pub fn touch_point(
    tree: &Snapshot,
    i: usize,
    extras: &[NodeExtra],
    target: &str,
    action: &str,
    platform: &str,
) -> Result<Point, TouchRefusal> {
    let view = View {
        nodes: &tree.nodes,
        extras,
    };
    let node = &tree.nodes[i];
    let label = target_label(target);
    let Some(rect) = node.rect else {
        // Without a frame the interpreter reports its own failure.
        return Ok(Point { x: 0.0, y: 0.0 });
    };
    if view.blocked(i) {
        return Err(TouchRefusal {
            message: format!(
                "{label} is covered by another visible element and cannot {} safely",
                passive(action)
            ),
            hint: "Use a different visible target, scroll it clear of the overlay, or inspect with snapshot/screenshot before retrying.".into(),
            reason: "covered",
            competitors: Vec::new(),
        });
    }
    let roots = view.root_frames();
    if view.effective_viewport(i, &roots).is_some() && !view.on_screen(i, &roots) {
        let message = if target.starts_with('@') {
            format!("{label} is off-screen and not safe to {action}")
        } else {
            format!("{label} resolved to an off-screen element and is not safe to {action}")
        };
        return Err(TouchRefusal {
            message,
            hint: "Scroll toward it, or open the container that holds it (a menu, a drawer, another tab) first, then retry.".into(),
            reason: if target.starts_with('@') {
                "offscreen_ref"
            } else {
                "offscreen_selector"
            },
            competitors: Vec::new(),
        });
    }
    if platform == "linux" {
        if let Some(title) = misplaced_popup_item(&view, i) {
            return Err(popup_refusal(&view, &label, i, title));
        }
    }
    let Some(r) = frame(Some(&rect)) else {
        return Err(invalid(&label, target));
    };
    let c = centre(&r);
    let competitors: Vec<(usize, Rect)> = view
        .descendants(i)
        .filter(|&d| view.interactive(d))
        .filter_map(|d| {
            let dr = frame(tree.nodes[d].rect.as_ref())?;
            if same_frame(&dr, &r) {
                return None;
            }
            intersection(&dr, &r).map(|x| (d, x))
        })
        .collect();
    if competitors.is_empty() {
        return Ok(c);
    }
    let mut bounds = Vec::new();
    bounds.extend(view.effective_viewport(i, &roots));
    bounds.extend(view.viewport_of(&rect, &roots));
    let bounded = bounds.iter().try_fold(r, |acc, b| intersection(&acc, b));
    if let Some(p) = bounded.and_then(|b| parent_owned(&r, &b, c, &competitors)) {
        return Ok(p);
    }
    Err(TouchRefusal {
        message: format!(
            "{label} has no parent-owned touch point outside its interactive descendants"
        ),
        hint: "Tap the specific interactive child you intend, or use a more specific selector. Every safely tappable region of the parent belongs to one of its child controls.".into(),
        reason: "covered_by_interactive_descendants",
        competitors: competitors.iter().map(|(d, _)| *d).collect(),
    })
}

fn invalid(label: &str, target: &str) -> TouchRefusal {
    TouchRefusal {
        message: if target.starts_with('@') {
            format!("{label} not found or has invalid bounds")
        } else {
            format!("{label} resolved to invalid bounds")
        },
        hint: "Take a fresh snapshot and target an element with a frame.".into(),
        reason: "invalid_bounds",
        competitors: Vec::new(),
    }
}

/// The nearest point of `bounded` (the target's frame inside its viewports) to the centre that
/// keeps a margin from the frame's edge and [`CLEARANCE`] from every competitor.
fn parent_owned(
    r: &Rect,
    bounded: &Rect,
    c: Point,
    competitors: &[(usize, Rect)],
) -> Option<Point> {
    let margin = ((r.width.min(r.height) / 2.0).floor() - 1.0).clamp(0.0, CLEARANCE);
    let xs = candidates(
        bounded.x,
        bounded.width,
        c.x,
        competitors
            .iter()
            .flat_map(|(_, x)| [x.x, x.x + x.width])
            .collect(),
        margin,
    );
    let ys = candidates(
        bounded.y,
        bounded.height,
        c.y,
        competitors
            .iter()
            .flat_map(|(_, x)| [x.y, x.y + x.height])
            .collect(),
        margin,
    );
    // (point, squared distance to the centre, clearance)
    let mut best: Vec<(Point, f64, f64)> = Vec::new();
    for &x in &xs {
        for &y in &ys {
            let p = Point {
                x: js_round(x),
                y: js_round(y),
            };
            if !holds(bounded, p.x, p.y) {
                continue;
            }
            let edge = (p.x - r.x)
                .min(r.x + r.width - p.x)
                .min(p.y - r.y)
                .min(r.y + r.height - p.y);
            let clear = competitors
                .iter()
                .map(|(_, k)| {
                    let dx = if p.x < k.x {
                        k.x - p.x
                    } else {
                        (p.x - (k.x + k.width)).max(0.0)
                    };
                    let dy = if p.y < k.y {
                        k.y - p.y
                    } else {
                        (p.y - (k.y + k.height)).max(0.0)
                    };
                    dx.max(dy)
                })
                .fold(f64::INFINITY, f64::min);
            if edge < margin || clear < CLEARANCE {
                continue;
            }
            best.push((
                p,
                (p.x - c.x).powi(2) + (p.y - c.y).powi(2),
                edge.min(clear),
            ));
        }
    }
    best.sort_by(|a, b| {
        a.1.total_cmp(&b.1)
            .then(b.2.total_cmp(&a.2))
            .then(a.0.y.total_cmp(&b.0.y))
            .then(a.0.x.total_cmp(&b.0.x))
    });
    best.first().map(|b| b.0)
}

/// The coordinates worth trying along one axis: the centre, the span's ends (less the margin),
/// each competitor edge ± the clearance, and the middles between consecutive edges.
fn candidates(start: f64, len: f64, centre: f64, edges: Vec<f64>, margin: f64) -> Vec<f64> {
    let lo = start + margin;
    let hi = start + len - margin;
    if lo > hi {
        return Vec::new();
    }
    let mut stops: Vec<f64> = vec![start, start + len];
    stops.extend(edges.iter().copied());
    stops.sort_by(f64::total_cmp);
    stops.dedup();
    let mut out = vec![centre, lo, hi];
    for e in &edges {
        out.push(e - CLEARANCE);
        out.push(e + CLEARANCE);
    }
    for w in stops.windows(2) {
        out.push((w[0] + w[1]) / 2.0);
    }
    out.retain(|v| *v >= lo && *v <= hi);
    out.sort_by(f64::total_cmp);
    out.dedup();
    out
}

/// The menu title (a `Menu` ancestor with a frame) whose open items, `i` among them, sit over
/// the title itself: positions relative to the popup's window, not the screen.
fn misplaced_popup_item(view: &View<'_>, i: usize) -> Option<usize> {
    let is_menu = |k: usize| view.kinds(k).iter().any(|t| t == "menu");
    let title = view.ancestors(i).find(|&a| is_menu(a))?;
    let t = solid(view.nodes[title].rect.as_ref())?;
    // The title's own open items (its descendants that are not inside a nested menu).
    let items: Vec<usize> = view
        .descendants(title)
        .filter(|&d| view.ancestors(d).find(|&a| is_menu(a)) == Some(title))
        .collect();
    items
        .iter()
        .filter_map(|&d| solid(view.nodes[d].rect.as_ref()))
        .any(|r| intersection(&r, &t).is_some())
        .then_some(title)
}

fn popup_refusal(view: &View<'_>, label: &str, i: usize, title: usize) -> TouchRefusal {
    let name = |k: usize| {
        let n = &view.nodes[k];
        n.label
            .clone()
            .or_else(|| n.value.clone())
            .unwrap_or_else(|| n.kind.clone())
    };
    let t = view.nodes[title].rect.unwrap_or_default();
    let r = view.nodes[i].rect.unwrap_or_default();
    let guess = centre(&Rect {
        x: r.x + t.x,
        y: r.y + t.y + t.height,
        ..r
    });
    TouchRefusal {
        message: format!(
            "{label} is an item of the popup menu \"{}\" at a window-relative position (the items overlap their menu title), so a tap there would hit another element; the action was not sent",
            name(title)
        ),
        hint: format!(
            "A known limit of agent-device's Linux platform: it places a GTK popup menu's items relative to the popup's own window. Tap the item where it is on screen (a drop-down opens below its title: about `click {} {}` for \"{}\"), then wait for its effect; see docs/agent-device.md",
            guess.x,
            guess.y,
            name(i)
        ),
        reason: "popup_item_position_unreliable",
        competitors: Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backends::agent_device::nodes;
    use serde_json::{json, Value};

    /// The GTK test app's menu bar as agent-device 0.21.5 reported it, "File" closed or open
    /// (its items then at the popup's window-relative positions, "New" covered).
    fn menu(open: bool) -> Value {
        let hidden = json!({"x": -2147483648i64, "y": -2147483648i64, "width": 1, "height": 1});
        let item = |i: u64, label: &str, y: i64| {
            let mut n = json!({"index": i, "parentIndex": 3, "type": "MenuItem", "role": "menu item", "label": label,
                "rect": if open { json!({"x": 0, "y": y, "width": 104, "height": 25}) } else { hidden.clone() },
                "hittable": open && y > 0});
            if open && y == 0 {
                n["interactionBlocked"] = json!("covered");
            }
            n
        };
        json!({"nodes": [
            {"index": 0, "type": "Application", "role": "application", "label": "ad-gtk-login"},
            {"index": 1, "parentIndex": 0, "type": "Window", "role": "frame", "label": "AD Login", "rect": {"x": 0, "y": 0, "width": 420, "height": 520}, "hittable": true},
            {"index": 2, "parentIndex": 1, "type": "MenuBar", "role": "menu bar", "rect": {"x": 0, "y": 0, "width": 420, "height": 25}, "hittable": true},
            {"index": 3, "parentIndex": 2, "type": "Menu", "role": "menu", "label": "File", "rect": {"x": 0, "y": 0, "width": 39, "height": 25}, "hittable": true, "selected": open},
            item(4, "New", 0), item(5, "Open", 25), item(6, "Export", 50),
            {"index": 7, "parentIndex": 2, "type": "Menu", "role": "menu", "label": "Help", "rect": {"x": 39, "y": 0, "width": 46, "height": 25}, "hittable": true},
            {"index": 8, "parentIndex": 7, "type": "MenuItem", "role": "menu item", "label": "About", "rect": hidden},
            {"index": 9, "parentIndex": 1, "type": "Button", "role": "push button", "label": "Sign In", "rect": {"x": 16, "y": 180, "width": 388, "height": 34}, "hittable": true}
        ]})
    }

    fn point(data: &Value, i: usize, target: &str) -> Result<Point, TouchRefusal> {
        let c = nodes::capture(data);
        let s = Snapshot::flatten(&c.roots, c.viewport);
        touch_point(&s, i, &nodes::extras(data), target, "click", "linux")
    }

    #[test]
    fn a_closed_menu_title_is_tapped_at_its_centre_as_agent_device_does() {
        // agent-device: "Tapped label=File (20, 13)": 19.5 and 12.5 round up.
        let p = point(&menu(false), 3, "label=File").unwrap();
        assert_eq!((p.x, p.y), (20.0, 13.0));
        let p = point(&menu(false), 9, "@e10").unwrap();
        assert_eq!((p.x, p.y), (210.0, 197.0));
    }

    #[test]
    fn an_open_menu_title_has_no_parent_owned_point() {
        let e = point(&menu(true), 3, "label=File").unwrap_err();
        assert_eq!(
            e.message,
            "Selector label=File has no parent-owned touch point outside its interactive descendants"
        );
        assert_eq!(e.reason, "covered_by_interactive_descendants");
        // agent-device names @e5 ("New"): the only item overlapping the title.
        assert_eq!(e.competitors, [4]);
        let e = point(&menu(true), 3, "@e4").unwrap_err();
        assert!(
            e.message.starts_with("Ref @e4 has no parent-owned"),
            "{}",
            e.message
        );
    }

    #[test]
    fn a_parent_keeps_a_point_clear_of_its_children() {
        // A 200×100 cell with a 40×40 button at its centre: the nearest point 12 clear of it.
        let data = json!({"nodes": [
            {"index": 0, "type": "Window", "rect": {"x": 0, "y": 0, "width": 400, "height": 400}},
            {"index": 1, "parentIndex": 0, "type": "Cell", "rect": {"x": 0, "y": 0, "width": 200, "height": 100}},
            {"index": 2, "parentIndex": 1, "type": "Button", "rect": {"x": 80, "y": 30, "width": 40, "height": 40}}
        ]});
        let p = point(&data, 1, "@e2").unwrap();
        // (100, 18) and (68, 50) are as near the centre and as clear: the higher one wins.
        assert_eq!((p.x, p.y), (100.0, 18.0));
        // A wide button across the middle leaves the bands above and below it.
        let data = json!({"nodes": [
            {"index": 0, "type": "Window", "rect": {"x": 0, "y": 0, "width": 400, "height": 400}},
            {"index": 1, "parentIndex": 0, "type": "Cell", "rect": {"x": 0, "y": 0, "width": 200, "height": 100}},
            {"index": 2, "parentIndex": 1, "type": "Button", "rect": {"x": 0, "y": 40, "width": 200, "height": 20}}
        ]});
        let p = point(&data, 1, "@e2").unwrap();
        assert_eq!((p.x, p.y), (100.0, 28.0));
        // A child with the parent's own frame does not compete.
        let data = json!({"nodes": [
            {"index": 0, "type": "Window", "rect": {"x": 0, "y": 0, "width": 400, "height": 400}},
            {"index": 1, "parentIndex": 0, "type": "Cell", "rect": {"x": 0, "y": 0, "width": 200, "height": 100}},
            {"index": 2, "parentIndex": 1, "type": "Button", "rect": {"x": 0, "y": 0, "width": 200, "height": 100}}
        ]});
        assert_eq!(point(&data, 1, "@e2").unwrap(), Point { x: 100.0, y: 50.0 });
    }

    #[test]
    fn covered_and_off_screen_nodes_are_refused() {
        let e = point(&menu(true), 4, "@e5").unwrap_err();
        assert_eq!(
            e.message,
            "Ref @e5 is covered by another visible element and cannot be tapped safely"
        );
        let e = point(&menu(false), 5, "label=Open").unwrap_err();
        assert_eq!(
            e.message,
            "Selector label=Open resolved to an off-screen element and is not safe to click"
        );
    }

    #[test]
    fn an_open_popup_item_over_its_title_is_refused_on_linux_only() {
        let e = point(&menu(true), 5, "label=Open").unwrap_err();
        assert_eq!(e.reason, "popup_item_position_unreliable");
        assert!(e.hint.contains("click 52 63"), "{}", e.hint);
        let c = nodes::capture(&menu(true));
        let s = Snapshot::flatten(&c.roots, c.viewport);
        let p = touch_point(&s, 5, &[], "label=Open", "click", "macos").unwrap();
        assert_eq!((p.x, p.y), (52.0, 38.0));
    }
}
