//! agent-device's snapshot nodes (flat, in document order, `parentIndex` links) to the
//! interpreter's nested [`Node`]s. Flattening them again yields the same order, so the refs `ad`
//! assigns (`e1`, `e2`, …) are the daemon's refs for that capture.

use serde_json::Value;

use super::touch::NodeExtra;
use crate::core::backend::Capture;
use crate::core::tree::{normalize_type, Node, Rect};

fn text(v: &Value, key: &str) -> Option<String> {
    v.get(key)
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty())
        .map(str::to_string)
}

fn flag(v: &Value, key: &str) -> Option<bool> {
    v.get(key).and_then(Value::as_bool)
}

fn rect(v: &Value) -> Option<Rect> {
    let r = v.get("rect")?;
    let n = |k: &str| r.get(k).and_then(Value::as_f64);
    Some(Rect {
        x: n("x")?,
        y: n("y")?,
        width: n("width")?,
        height: n("height")?,
    })
}

/// agent-device's notion of a text input (its `editable` selector key) when the node does not
/// say.
fn editable_type(kind: &str) -> bool {
    let t = normalize_type(kind);
    [
        "textfield",
        "securetextfield",
        "searchfield",
        "edittext",
        "textview",
        "textarea",
    ]
    .iter()
    .any(|k| t.contains(k))
}

fn node(v: &Value) -> Node {
    let kind = text(v, "type")
        .or_else(|| text(v, "role"))
        .unwrap_or_default();
    Node {
        id: text(v, "identifier").or_else(|| text(v, "id")),
        label: text(v, "label"),
        value: text(v, "value"),
        rect: rect(v),
        enabled: flag(v, "enabled").unwrap_or(true),
        selected: flag(v, "selected").unwrap_or(false),
        focused: flag(v, "focused").unwrap_or(false),
        editable: flag(v, "editable").unwrap_or_else(|| editable_type(&kind)),
        hittable: flag(v, "hittable").unwrap_or(false),
        visible_to_user: flag(v, "visibleToUser"),
        kind,
        children: Vec::new(),
    }
}

fn raw_nodes(data: &Value) -> &[Value] {
    data.get("nodes")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or(&[])
}

/// The roots and children lists (by position) of the daemon's flat nodes; a parent always
/// precedes its children in document order.
fn forest(raw: &[Value]) -> (Vec<usize>, Vec<Vec<usize>>) {
    let mut children: Vec<Vec<usize>> = vec![Vec::new(); raw.len()];
    let mut roots = Vec::new();
    let position_of = |index: u64| {
        raw.iter()
            .position(|n| n.get("index").and_then(Value::as_u64) == Some(index))
    };
    for (i, v) in raw.iter().enumerate() {
        match v
            .get("parentIndex")
            .and_then(Value::as_u64)
            .and_then(position_of)
            .filter(|&p| p < i)
        {
            Some(p) => children[p].push(i),
            None => roots.push(i),
        }
    }
    (roots, children)
}

/// The snapshot response's `data` as a capture. The viewport is the first window's rect (the
/// frame agent-device measures taps against), else the first rect, else empty.
pub fn capture(data: &Value) -> Capture {
    let raw = raw_nodes(data);
    let (roots, children) = forest(raw);
    fn build(i: usize, raw: &[Value], children: &[Vec<usize>]) -> Node {
        let mut n = node(&raw[i]);
        n.children = children[i]
            .iter()
            .map(|&c| build(c, raw, children))
            .collect();
        n
    }
    let viewport = raw
        .iter()
        .filter(|v| normalize_type(&text(v, "type").unwrap_or_default()) == "window")
        .find_map(rect)
        .or_else(|| raw.iter().find_map(rect))
        .unwrap_or_default();
    let app = raw.iter().find_map(|v| text(v, "appName"));
    Capture {
        roots: roots.iter().map(|&r| build(r, raw, &children)).collect(),
        viewport,
        app,
    }
}

/// What the capture's nodes carry beyond the interpreter's [`Node`] (role, subrole, whether
/// agent-device marks them blocked), in the order the capture flattens to: agent-device's
/// touch-point rules read them ([`super::touch`]).
pub fn extras(data: &Value) -> Vec<NodeExtra> {
    let raw = raw_nodes(data);
    let (roots, children) = forest(raw);
    let mut out = Vec::with_capacity(raw.len());
    fn walk(i: usize, raw: &[Value], children: &[Vec<usize>], out: &mut Vec<NodeExtra>) {
        let v = &raw[i];
        out.push(NodeExtra {
            role: text(v, "role"),
            subrole: text(v, "subrole"),
            blocked: v.get("interactionBlocked").is_some_and(|b| !b.is_null()),
        });
        for &c in &children[i] {
            walk(c, raw, children, out);
        }
    }
    for &r in &roots {
        walk(r, raw, &children, &mut out);
    }
    out
}

/// The node types of a capture, in the order it flattens to (what [`extras`] belongs to).
pub fn kinds(c: &Capture) -> Vec<String> {
    let mut out = Vec::new();
    fn walk(n: &Node, out: &mut Vec<String>) {
        out.push(n.kind.clone());
        for c in &n.children {
            walk(c, out);
        }
    }
    for r in &c.roots {
        walk(r, &mut out);
    }
    out
}

/// The `(appName, pid)` pairs a snapshot names (AT-SPI and macOS nodes carry them), so an app
/// the run opened can be ended by its PID when agent-device's `close` leaves it running.
pub fn app_pids(data: &Value) -> Vec<(String, u32)> {
    let mut out: Vec<(String, u32)> = Vec::new();
    for n in data
        .get("nodes")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        if let (Some(app), Some(pid)) = (
            text(n, "appName"),
            n.get("pid")
                .and_then(Value::as_u64)
                .and_then(|p| u32::try_from(p).ok()),
        ) {
            if !out.iter().any(|(a, p)| *a == app && *p == pid) {
                out.push((app, pid));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::tree::Snapshot;
    use serde_json::json;

    #[test]
    fn refs_follow_the_daemons_order() {
        let data = json!({"nodes": [
            {"index": 0, "type": "Application", "label": "app", "depth": 0, "appName": "app", "ref": "e1"},
            {"index": 1, "type": "Window", "label": "W", "rect": {"x": 0, "y": 0, "width": 400, "height": 500}, "depth": 1, "parentIndex": 0, "hittable": true, "ref": "e2"},
            {"index": 2, "type": "TextField", "label": "Username", "rect": {"x": 16, "y": 41, "width": 388, "height": 34}, "depth": 2, "parentIndex": 1, "enabled": true, "ref": "e3"},
            {"index": 3, "type": "Button", "label": "Sign In", "depth": 2, "parentIndex": 1, "enabled": false, "ref": "e4"}
        ]});
        let c = capture(&data);
        assert_eq!(c.viewport.width, 400.0);
        assert_eq!(c.app.as_deref(), Some("app"));
        let s = Snapshot::flatten(&c.roots, c.viewport);
        let refs: Vec<_> = s
            .nodes
            .iter()
            .map(|n| (n.reference.as_str(), n.parent_index))
            .collect();
        assert_eq!(
            refs,
            [
                ("e1", None),
                ("e2", Some(0)),
                ("e3", Some(1)),
                ("e4", Some(1))
            ]
        );
        assert!(s.nodes[2].editable && !s.nodes[3].enabled);
    }
}
