//! Chromium's accessibility tree mapped to the interpreter's node model: roles normalised to the
//! names agent-device uses for web (ARIA role names, docs/web.md has the table), names, values,
//! states, rects from the page's layout, and element ids (the DOM `id`, else `data-testid`).
//!
//! Nodes Chromium marks ignored, layout-only wrappers (an unnamed `generic` without an id) and
//! text boxes are left out and their children lifted to the parent; the static text that only
//! repeats its parent's name (a button's caption) is left out too, so `label="Sign in"` finds
//! the button once, as on a device.

use std::collections::HashMap;

use super::protocol::{AxNode, DomSnapshot};
use crate::core::tree::{Node, Rect};

/// What the page's layout says about one DOM node.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct DomFacts {
    pub id: Option<String>,
    pub test_id: Option<String>,
    /// In viewport coordinates.
    pub rect: Option<Rect>,
    /// Its content is larger than its box in a scrollable direction.
    pub scrolls: bool,
}

/// A node of the capture the backend can act on: where it is and which DOM node it is.
#[derive(Debug, Clone, PartialEq)]
pub struct Element {
    pub backend_id: i64,
    pub rect: Rect,
    pub depth: usize,
    pub hittable: bool,
    pub editable: bool,
    pub scrolls: bool,
    /// A native `<select>` or an option of its drop-down: acting on it chooses an option.
    pub choice: Option<Choice>,
}

/// What choosing means for an element of a native `<select>`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Choice {
    /// The select: `fill` chooses the option its text names.
    Select,
    /// An option of a closed drop-down. The page draws it nowhere (the browser's list is not
    /// part of the page), so it is given the place the list opens at: one row per option
    /// directly below the select, each as high as the select. A click aimed at a row's centre
    /// chooses it; any other point acts on what the page shows there.
    Row,
}

/// Layout facts per backend node id, from one `DOMSnapshot.captureSnapshot`.
pub fn dom_facts(snap: &DomSnapshot) -> HashMap<i64, DomFacts> {
    let mut out = HashMap::new();
    let Some(doc) = snap.documents.first() else {
        return out;
    };
    let s = |i: i64| {
        snap.strings
            .get(i as usize)
            .map(String::as_str)
            .unwrap_or("")
    };
    for (i, backend) in doc.nodes.backend_node_id.iter().enumerate() {
        let mut f = DomFacts::default();
        if let Some(attrs) = doc.nodes.attributes.get(i) {
            for pair in attrs.chunks(2) {
                if let [k, v] = pair {
                    match s(*k) {
                        "id" if !s(*v).is_empty() => f.id = Some(s(*v).to_string()),
                        "data-testid" if !s(*v).is_empty() => f.test_id = Some(s(*v).to_string()),
                        _ => {}
                    }
                }
            }
        }
        if f.id.is_some() || f.test_id.is_some() {
            out.insert(*backend, f);
        }
    }
    for (li, &ni) in doc.layout.node_index.iter().enumerate() {
        let Some(backend) = doc.nodes.backend_node_id.get(ni) else {
            continue;
        };
        let f = out.entry(*backend).or_default();
        if let Some([x, y, w, h]) = doc
            .layout
            .bounds
            .get(li)
            .and_then(|b| b.get(..4))
            .map(|b| [b[0], b[1], b[2], b[3]])
        {
            f.rect = Some(Rect {
                x: x - doc.scroll_offset_x,
                y: y - doc.scroll_offset_y,
                width: w,
                height: h,
            });
        }
        if let (Some(sr), Some(cr)) = (
            doc.layout.scroll_rects.get(li),
            doc.layout.client_rects.get(li),
        ) {
            if sr.len() >= 4 && cr.len() >= 4 && cr[2] > 0.0 && cr[3] > 0.0 {
                f.scrolls = sr[3] > cr[3] + 1.0 || sr[2] > cr[2] + 1.0;
            }
        }
    }
    out
}

/// The role name a Chromium accessibility role goes by in selectors (`role=textbox`).
pub fn role_name(chromium: &str) -> String {
    let mapped = match chromium {
        "RootWebArea" | "WebArea" => "document",
        "StaticText" => "text",
        "image" | "Image" => "img",
        "LabelText" => "label",
        "MenuListPopup" => "listbox",
        "MenuListOption" => "option",
        "PopUpButton" => "combobox",
        "DisclosureTriangle" => "button",
        "Iframe" | "IframePresentational" => "iframe",
        "Section" => "region",
        "Pre" | "Div" | "Span" => "generic",
        "ListMarker" => "listmarker",
        "Canvas" => "canvas",
        "Video" => "video",
        "Audio" => "audio",
        other => return other.to_ascii_lowercase(),
    };
    mapped.to_string()
}

/// Roles a user acts on (taps, fills): `hittable` in the tree.
const INTERACTIVE: &[&str] = &[
    "button",
    "link",
    "textbox",
    "searchbox",
    "checkbox",
    "radio",
    "switch",
    "combobox",
    "menuitem",
    "menuitemcheckbox",
    "menuitemradio",
    "tab",
    "option",
    "slider",
    "spinbutton",
    "listbox",
    "treeitem",
];

/// Chromium roles that are never part of the tree. The page itself (`RootWebArea`, and a
/// frame's `WebArea`) is not a node either: its name is the document's `<title>`, which is not
/// shown in the page, and as every element's outermost ancestor it would put the title into
/// each recorded ancestry, so a cosmetic title change would fail every step. agent-device's web
/// tree (agent-browser's snapshot) starts at the page's top-level elements as well.
fn dropped_role(role: &str) -> bool {
    matches!(
        role,
        "InlineTextBox"
            | "LineBreak"
            | "ListMarker"
            | "none"
            | "presentation"
            | "RootWebArea"
            | "WebArea"
    )
}

/// Text-level roles (`<strong>`, `<em>`, `<code>`, …): part of the text of the element around
/// them, as `innerText` reads it.
const TEXT_LEVEL: &[&str] = &[
    "text",
    "strong",
    "emphasis",
    "code",
    "mark",
    "subscript",
    "superscript",
    "time",
    "deletion",
    "insertion",
    "abbr",
    "generic",
];

/// Collapses whitespace runs to one space and trims, as rendered text reads.
fn collapse_ws(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn prop<'a>(n: &'a AxNode, name: &str) -> Option<&'a serde_json::Value> {
    n.properties
        .iter()
        .find(|p| p.name == name)
        .and_then(|p| p.value.value.as_ref())
}

fn prop_true(n: &AxNode, name: &str) -> bool {
    match prop(n, name) {
        Some(serde_json::Value::Bool(b)) => *b,
        Some(serde_json::Value::String(s)) => s == "true" || s == "mixed",
        _ => false,
    }
}

/// The page's tree as nested [`Node`]s, and the elements the backend can act on, in document
/// order.
pub fn map_tree(ax: &[AxNode], facts: &HashMap<i64, DomFacts>) -> (Vec<Node>, Vec<Element>) {
    let index: HashMap<&str, usize> = ax
        .iter()
        .enumerate()
        .map(|(i, n)| (n.node_id.as_str(), i))
        .collect();
    let roots: Vec<usize> = ax
        .iter()
        .enumerate()
        .filter(|(_, n)| {
            n.parent_id
                .as_deref()
                .is_none_or(|p| !index.contains_key(p))
        })
        .map(|(i, _)| i)
        .collect();
    let mut mapper = Mapper {
        ax,
        index,
        facts,
        elements: Vec::new(),
        parent_rect: None,
        rows: None,
    };
    let mut out = Vec::new();
    for r in roots {
        mapper.map(r, 0, None, &mut out, 0);
    }
    (out, mapper.elements)
}

struct Mapper<'a> {
    ax: &'a [AxNode],
    index: HashMap<&'a str, usize>,
    facts: &'a HashMap<i64, DomFacts>,
    elements: Vec<Element>,
    /// The rect of the node whose children are being mapped.
    parent_rect: Option<Rect>,
    /// While mapping a closed drop-down's options: its select's rect and the last row.
    rows: Option<(Rect, usize)>,
}

impl Mapper<'_> {
    /// Maps node `i` into `out`: one node, or its children when it is left out.
    fn map(
        &mut self,
        i: usize,
        depth: usize,
        parent_label: Option<&str>,
        out: &mut Vec<Node>,
        guard: usize,
    ) {
        if guard > 512 {
            return;
        }
        let n = &self.ax[i];
        let chromium_role = n.role.as_ref().and_then(|r| r.text()).unwrap_or_default();
        let facts = n
            .backend_dom_node_id
            .and_then(|b| self.facts.get(&b))
            .cloned()
            .unwrap_or_default();
        let id = facts.id.clone().or(facts.test_id.clone());
        let name = n
            .name
            .as_ref()
            .and_then(|v| v.text())
            .map(|s| s.trim().to_string())
            .filter(|s| !s.is_empty());
        let role = role_name(&chromium_role);
        let lifted = n.ignored
            || dropped_role(&chromium_role)
            || (role == "generic" && name.is_none() && id.is_none() && !facts.scrolls);
        // A caption that repeats its parent's name adds nothing a selector could use.
        if role == "text"
            && name.as_deref().is_some_and(|t| {
                parent_label.is_some_and(|p| {
                    crate::core::tree::normalize_text(p)
                        .contains(&crate::core::tree::normalize_text(t))
                })
            })
        {
            return;
        }
        if lifted {
            for c in n.child_ids.clone() {
                if let Some(&ci) = self.index.get(c.as_str()) {
                    self.map(ci, depth, parent_label, out, guard + 1);
                }
            }
            return;
        }
        let editable = prop(n, "editable").is_some();
        let mut rect = facts.rect;
        let mut choice = match chromium_role.as_str() {
            "combobox" | "PopUpButton" | "listbox" if !editable => Some(Choice::Select),
            _ => None,
        };
        if matches!(chromium_role.as_str(), "option" | "MenuListOption") && rect.is_none() {
            if let Some((select, row)) = self.rows.as_mut() {
                *row += 1;
                rect = Some(Rect {
                    y: select.y + select.height * *row as f64,
                    ..*select
                });
                choice = Some(Choice::Row);
            }
        }
        let disabled = prop_true(n, "disabled");
        let kind = if role == "generic" && facts.scrolls {
            "scrollarea".to_string()
        } else {
            role.clone()
        };
        let hittable = !disabled
            && rect.is_some_and(|r| !r.is_empty())
            && (INTERACTIVE.contains(&role.as_str())
                || editable
                || prop_true(n, "focusable") && role != "document");
        let value = n
            .value
            .as_ref()
            .and_then(|v| v.text())
            .filter(|s| !s.is_empty());
        let mut node = Node {
            kind,
            id,
            label: name.clone(),
            value,
            rect,
            enabled: !disabled,
            selected: prop_true(n, "selected")
                || prop_true(n, "checked")
                || prop_true(n, "pressed"),
            focused: prop_true(n, "focused"),
            editable,
            hittable,
            visible_to_user: None,
            children: Vec::new(),
        };
        if let (Some(b), Some(rect)) = (n.backend_dom_node_id, rect) {
            self.elements.push(Element {
                backend_id: b,
                rect,
                depth,
                hittable,
                editable,
                scrolls: facts.scrolls,
                choice,
            });
        }
        let label_for_children = name.clone();
        let outer = (self.parent_rect, self.rows);
        self.parent_rect = rect;
        if chromium_role == "MenuListPopup" {
            self.rows = outer.0.map(|select| (select, 0));
        }
        let first_child_element = self.elements.len();
        let mut children = Vec::new();
        // A text field's content is its value, not text on the page: what was typed into it
        // is not a node a text search could find.
        let field = editable && matches!(role.as_str(), "textbox" | "searchbox" | "combobox");
        for c in n.child_ids.clone().into_iter().filter(|_| !field) {
            if let Some(&ci) = self.index.get(c.as_str()) {
                self.map(
                    ci,
                    depth + 1,
                    label_for_children.as_deref(),
                    &mut children,
                    guard + 1,
                );
            }
        }
        // `<p>Welcome, Demo</p>`, `<span id="count"><strong>5</strong> items left</span>`: a node
        // whose only content is text (inline formatting included) reads as its rendered text (as
        // the accessibility snapshot writes `- paragraph: Welcome, Demo`), so the text split
        // across the inline elements matches, and `get text` reads it instead of the DOM id.
        if node.label.is_none()
            && !editable
            && !children.is_empty()
            && children.iter().all(|c| {
                TEXT_LEVEL.contains(&c.kind.as_str())
                    && c.id.is_none()
                    && c.children.is_empty()
                    && !c.hittable
            })
        {
            let mut raw = String::new();
            self.rendered_text(i, &mut raw, 0);
            let text = collapse_ws(&raw);
            node.label = if text.is_empty() {
                let parts: Vec<&str> = children.iter().filter_map(|c| c.label.as_deref()).collect();
                Some(parts.join(" "))
            } else {
                Some(text)
            };
            children.clear();
            let dropped = self.elements.len() - first_child_element;
            self.elements.truncate(self.elements.len() - dropped);
        }
        (self.parent_rect, self.rows) = outer;
        // A drop-down's list is where its rows are.
        if chromium_role == "MenuListPopup" && node.rect.is_none() {
            node.rect = children.iter().filter_map(|c| c.rect).reduce(|a, b| Rect {
                height: b.y + b.height - a.y,
                ..a
            });
        }
        node.children = children;
        out.push(node);
    }

    /// The text of node `i`'s static text descendants, as rendered (untrimmed, so `<b>5</b>
    /// items` keeps its space); hidden text is ignored in Chromium's tree and left out.
    fn rendered_text(&self, i: usize, out: &mut String, guard: usize) {
        if guard > 512 {
            return;
        }
        let n = &self.ax[i];
        let role = n.role.as_ref().and_then(|r| r.text()).unwrap_or_default();
        match role.as_str() {
            "StaticText" => {
                if let Some(t) = n
                    .name
                    .as_ref()
                    .and_then(|v| v.text())
                    .filter(|_| !n.ignored)
                {
                    out.push_str(&t);
                }
                return;
            }
            "LineBreak" => {
                out.push(' ');
                return;
            }
            _ => {}
        }
        for c in &n.child_ids {
            if let Some(&ci) = self.index.get(c.as_str()) {
                self.rendered_text(ci, out, guard + 1);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn roles_are_the_names_selectors_use() {
        for (chromium, ours) in [
            ("button", "button"),
            ("textbox", "textbox"),
            ("link", "link"),
            ("heading", "heading"),
            ("checkbox", "checkbox"),
            ("StaticText", "text"),
            ("RootWebArea", "document"),
            ("image", "img"),
            ("LabelText", "label"),
            ("PopUpButton", "combobox"),
        ] {
            assert_eq!(role_name(chromium), ours, "{chromium}");
        }
    }

    fn ax(json: serde_json::Value) -> Vec<AxNode> {
        serde_json::from_value(json).unwrap()
    }

    #[test]
    fn wrappers_are_lifted_and_captions_folded_into_their_control() {
        let nodes = ax(serde_json::json!([
            {"nodeId": "1", "role": {"value": "RootWebArea"}, "name": {"value": "Login"}, "childIds": ["2"], "backendDOMNodeId": 10},
            {"nodeId": "2", "parentId": "1", "role": {"value": "generic"}, "childIds": ["3", "5"], "backendDOMNodeId": 11},
            {"nodeId": "3", "parentId": "2", "role": {"value": "button"}, "name": {"value": "Sign in"}, "childIds": ["4"], "backendDOMNodeId": 12,
             "properties": [{"name": "focusable", "value": {"value": true}}]},
            {"nodeId": "4", "parentId": "3", "role": {"value": "StaticText"}, "name": {"value": "Sign in"}, "backendDOMNodeId": 13},
            {"nodeId": "5", "parentId": "2", "role": {"value": "StaticText"}, "name": {"value": "Welcome"}, "backendDOMNodeId": 14}
        ]));
        let mut facts = HashMap::new();
        let rect = Rect {
            x: 1.0,
            y: 2.0,
            width: 30.0,
            height: 10.0,
        };
        facts.insert(
            12,
            DomFacts {
                id: Some("signin".into()),
                rect: Some(rect),
                ..DomFacts::default()
            },
        );
        facts.insert(
            14,
            DomFacts {
                test_id: Some("greeting".into()),
                rect: Some(rect),
                ..DomFacts::default()
            },
        );
        let (roots, elements) = map_tree(&nodes, &facts);
        // The page is not a node: its name (the title) is in no ancestry.
        assert_eq!(roots.len(), 2, "{roots:#?}");
        let button = &roots[0];
        assert_eq!(
            (button.kind.as_str(), button.id.as_deref()),
            ("button", Some("signin"))
        );
        assert!(
            button.children.is_empty(),
            "the caption is folded into the button"
        );
        assert!(button.hittable);
        let text = &roots[1];
        assert_eq!(
            (
                text.kind.as_str(),
                text.id.as_deref(),
                text.label.as_deref()
            ),
            ("text", Some("greeting"), Some("Welcome"))
        );
        assert_eq!(
            elements.iter().map(|e| e.backend_id).collect::<Vec<_>>(),
            vec![12, 14]
        );
    }

    #[test]
    fn inline_text_is_one_text_and_a_fields_content_is_its_value() {
        let nodes = ax(serde_json::json!([
            {"nodeId": "1", "role": {"value": "RootWebArea"}, "name": {"value": "1,000 rows"}, "childIds": ["2", "6"], "backendDOMNodeId": 10},
            {"nodeId": "2", "parentId": "1", "role": {"value": "generic"}, "childIds": ["3", "5"], "backendDOMNodeId": 11},
            {"nodeId": "3", "parentId": "2", "role": {"value": "strong"}, "childIds": ["4"], "backendDOMNodeId": 12},
            {"nodeId": "4", "parentId": "3", "role": {"value": "StaticText"}, "name": {"value": "5"}, "backendDOMNodeId": 13},
            {"nodeId": "5", "parentId": "2", "role": {"value": "StaticText"}, "name": {"value": " items left"}, "backendDOMNodeId": 14},
            {"nodeId": "6", "parentId": "1", "role": {"value": "textbox"}, "value": {"value": "Office"}, "childIds": ["7"], "backendDOMNodeId": 15,
             "properties": [{"name": "editable", "value": {"value": "plaintext"}}]},
            {"nodeId": "7", "parentId": "6", "role": {"value": "StaticText"}, "name": {"value": "Office"}, "backendDOMNodeId": 16}
        ]));
        let mut facts = HashMap::new();
        facts.insert(
            11,
            DomFacts {
                id: Some("todo-count".into()),
                ..DomFacts::default()
            },
        );
        let (roots, _) = map_tree(&nodes, &facts);
        assert_eq!(roots.len(), 2, "{roots:#?}");
        assert_eq!(roots[0].label.as_deref(), Some("5 items left"));
        assert!(roots[0].children.is_empty());
        assert_eq!(roots[1].value.as_deref(), Some("Office"));
        assert!(roots[1].children.is_empty(), "{:#?}", roots[1]);
        let all = format!("{roots:?}");
        assert!(!all.contains("1,000 rows"), "{all}");
    }
}
