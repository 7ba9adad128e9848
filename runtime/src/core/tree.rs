//! The accessibility tree as the interpreter sees it: a backend's nested [`Node`]s flattened in
//! document order into [`Snapshot`] nodes with agent-device's bookkeeping (`index`, `ref` `eN`,
//! `depth`, `parentIndex`), plus the normalisations every comparison uses.

use ad_grammar::text::is_js_whitespace;
use serde::{Deserialize, Serialize};

/// A rectangle in device points.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, Default, schemars::JsonSchema)]
pub struct Rect {
    pub x: f64,
    pub y: f64,
    pub width: f64,
    pub height: f64,
}

impl Rect {
    pub fn center(&self) -> Point {
        Point {
            x: self.x + self.width / 2.0,
            y: self.y + self.height / 2.0,
        }
    }
    pub fn contains(&self, p: Point) -> bool {
        p.x >= self.x && p.x < self.x + self.width && p.y >= self.y && p.y < self.y + self.height
    }
    pub fn is_empty(&self) -> bool {
        self.width <= 0.0 || self.height <= 0.0
    }
    pub fn area(&self) -> f64 {
        self.width * self.height
    }
}

/// A point in device points.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Point {
    pub x: f64,
    pub y: f64,
}

/// One accessibility node as a backend reports it (nested).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(rename_all = "camelCase")]
pub struct Node {
    /// The platform element type (`Button`, `XCUIElementTypeButton`, `android.widget.Button`).
    #[serde(rename = "type")]
    pub kind: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    /// Value or displayed text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rect: Option<Rect>,
    #[serde(default = "yes", skip_serializing_if = "is_true")]
    pub enabled: bool,
    #[serde(default, skip_serializing_if = "is_false")]
    pub selected: bool,
    #[serde(default, skip_serializing_if = "is_false")]
    pub focused: bool,
    #[serde(default, skip_serializing_if = "is_false")]
    pub editable: bool,
    #[serde(default, skip_serializing_if = "is_false")]
    pub hittable: bool,
    /// Android's `visibleToUser` as the device reports it (`None` elsewhere): a node the device
    /// says is not shown to the user is not visible, whatever its rect (agent-device's rule).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub visible_to_user: Option<bool>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub children: Vec<Node>,
}

fn yes() -> bool {
    true
}
fn is_true(b: &bool) -> bool {
    *b
}
fn is_false(b: &bool) -> bool {
    !*b
}

/// A flattened node: the backend's fields plus document-order bookkeeping.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct FlatNode {
    pub index: usize,
    /// `e1`, `e2`, … in document order.
    #[serde(rename = "ref")]
    pub reference: String,
    pub depth: usize,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent_index: Option<usize>,
    #[serde(rename = "type")]
    pub kind: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rect: Option<Rect>,
    #[serde(default = "yes", skip_serializing_if = "is_true")]
    pub enabled: bool,
    #[serde(default, skip_serializing_if = "is_false")]
    pub selected: bool,
    #[serde(default, skip_serializing_if = "is_false")]
    pub focused: bool,
    #[serde(default, skip_serializing_if = "is_false")]
    pub editable: bool,
    #[serde(default, skip_serializing_if = "is_false")]
    pub hittable: bool,
    /// Android's `visibleToUser`, when the device reports it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub visible_to_user: Option<bool>,
}

/// One capture of the screen, flattened.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Snapshot {
    pub nodes: Vec<FlatNode>,
    /// The screen (viewport) rectangle.
    pub viewport: Rect,
}

impl Snapshot {
    pub fn flatten(root: &[Node], viewport: Rect) -> Snapshot {
        Snapshot::flatten_owned(root.to_vec(), viewport)
    }

    /// Flattens, moving the backend's strings instead of copying them.
    pub fn flatten_owned(root: Vec<Node>, viewport: Rect) -> Snapshot {
        let mut nodes = Vec::new();
        fn walk(n: Node, depth: usize, parent: Option<usize>, out: &mut Vec<FlatNode>) {
            let index = out.len();
            out.push(FlatNode {
                index,
                reference: format!("e{}", index + 1),
                depth,
                parent_index: parent,
                kind: n.kind,
                id: n.id,
                label: n.label,
                value: n.value,
                rect: n.rect,
                enabled: n.enabled,
                selected: n.selected,
                focused: n.focused,
                editable: n.editable,
                hittable: n.hittable,
                visible_to_user: n.visible_to_user,
            });
            for c in n.children {
                walk(c, depth + 1, Some(index), out);
            }
        }
        for n in root {
            walk(n, 0, None, &mut nodes);
        }
        Snapshot { nodes, viewport }
    }

    pub fn by_ref(&self, reference: &str) -> Option<&FlatNode> {
        let body = reference.strip_prefix('@').unwrap_or(reference);
        let n: usize = body.strip_prefix('e')?.parse().ok()?;
        self.nodes
            .get(n.checked_sub(1)?)
            .filter(|x| x.reference == body)
    }

    pub fn parent(&self, n: &FlatNode) -> Option<&FlatNode> {
        n.parent_index.and_then(|i| self.nodes.get(i))
    }

    /// Index among the parent's children.
    pub fn sibling_index(&self, n: &FlatNode) -> u64 {
        let mut k = 0;
        for other in &self.nodes {
            if other.parent_index == n.parent_index {
                if other.index == n.index {
                    return k;
                }
                k += 1;
            }
        }
        0
    }

    /// The nearest scroll container ancestor (`collectionview`, `table`, `scrollview`,
    /// `scrollarea`).
    pub fn scroll_region(&self, n: &FlatNode) -> Option<&FlatNode> {
        let mut cur = self.parent(n);
        let mut guard = 0;
        while let Some(p) = cur {
            if is_scroll_container(&p.kind) {
                return Some(p);
            }
            guard += 1;
            if guard > self.nodes.len() {
                return None;
            }
            cur = self.parent(p);
        }
        None
    }

    /// Is the node's centre inside the screen and its rect non-empty (`isVisibleOnScreen`)?
    pub fn on_screen(&self, n: &FlatNode) -> bool {
        match n.rect {
            None => true,
            Some(r) => !r.is_empty() && self.viewport.contains(r.center()),
        }
    }

    /// A short hash-friendly fingerprint of what is on screen (stable waits).
    pub fn fingerprint(&self) -> String {
        let mut s = String::new();
        for n in &self.nodes {
            use std::fmt::Write;
            let _ = writeln!(
                s,
                "{}|{}|{}|{}|{}|{}|{}",
                n.depth,
                n.kind,
                n.label.as_deref().unwrap_or(""),
                n.value.as_deref().unwrap_or(""),
                n.id.as_deref().unwrap_or(""),
                n.enabled,
                n.hittable
            );
        }
        s
    }
}

pub fn is_scroll_container(kind: &str) -> bool {
    matches!(
        normalize_type(kind).as_str(),
        "collectionview" | "table" | "scrollview" | "scrollarea"
    )
}

/// agent-device's node type normalisation: trim, drop `XCUIElementType` (any case) and a
/// leading `AX`, lowercase, keep the last `.`/`/` segment.
pub fn normalize_type(kind: &str) -> String {
    let t = kind.trim();
    let needle = "xcuielementtype";
    let mut removed = String::with_capacity(t.len());
    let mut i = 0;
    while i < t.len() {
        if t.len() - i >= needle.len()
            && t.as_bytes()[i..i + needle.len()].eq_ignore_ascii_case(needle.as_bytes())
        {
            i += needle.len();
            continue;
        }
        let c = t[i..].chars().next().unwrap_or(' ');
        removed.push(c);
        i += c.len_utf8();
    }
    let stripped = removed
        .strip_prefix("AX")
        .unwrap_or(&removed)
        .to_lowercase();
    match stripped.rfind(['.', '/']) {
        Some(pos) => stripped[pos + 1..].to_string(),
        None => stripped,
    }
}

/// `k()`: trim, lowercase, collapse whitespace runs to one space.
pub fn normalize_text(s: &str) -> String {
    let lower = s.to_lowercase();
    let mut out = String::with_capacity(lower.len());
    for w in lower.split(is_js_whitespace).filter(|w| !w.is_empty()) {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(w);
    }
    out
}

/// The node's displayed text: first non-empty of label, value, identifier (trimmed).
pub fn display_text(n: &FlatNode) -> &str {
    [n.label.as_deref(), n.value.as_deref(), n.id.as_deref()]
        .into_iter()
        .flatten()
        .map(str::trim)
        .find(|s| !s.is_empty())
        .unwrap_or("")
}

/// The role a report shows for a node (normalised type, `element` when empty).
pub fn display_role(n: &FlatNode) -> String {
    let r = normalize_type(&n.kind);
    if r.is_empty() {
        "element".into()
    } else {
        r
    }
}

/// The label a report shows for a node: label, else value, else none.
pub fn display_label(n: &FlatNode) -> Option<String> {
    [n.label.as_deref(), n.value.as_deref()]
        .into_iter()
        .flatten()
        .map(|s| s.trim())
        .find(|s| !s.is_empty())
        .map(str::to_string)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn types_normalise() {
        assert_eq!(normalize_type("XCUIElementTypeButton"), "button");
        assert_eq!(normalize_type("android.widget.Button"), "button");
        assert_eq!(normalize_type("AXButton"), "button");
        assert_eq!(normalize_type(" SecureTextField "), "securetextfield");
    }

    #[test]
    fn text_normalises() {
        assert_eq!(normalize_text("  Sign   In "), "sign in");
    }
}
