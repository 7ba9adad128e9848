//! What a stopped run shows: the scopes of the stop as trees of variables, numbered for
//! `variablesReference` (0 is a leaf; every container gets the next number).

use serde_json::Value;

use crate::protocol::Variable;

/// One stop's trees. Containers are numbered from 1 in the order they are added.
#[derive(Debug, Clone, Default)]
pub struct VarTree {
    containers: Vec<Vec<Variable>>,
}

impl VarTree {
    /// Adds a container of `entries` and returns its reference.
    pub fn container(&mut self, entries: Vec<Variable>) -> i64 {
        self.containers.push(entries);
        self.containers.len() as i64
    }

    /// A container holding the fields of `value` (an object's members, an array's items).
    pub fn value(&mut self, value: &Value) -> i64 {
        let entries = match value {
            Value::Object(m) => m.iter().map(|(k, v)| self.entry(k, v)).collect(),
            Value::Array(a) => a
                .iter()
                .enumerate()
                .map(|(i, v)| self.entry(&format!("[{i}]"), v))
                .collect(),
            other => vec![self.entry("value", other)],
        };
        self.container(entries)
    }

    /// One named entry: a leaf for a scalar, a container for an object or array.
    pub fn entry(&mut self, name: &str, value: &Value) -> Variable {
        match value {
            Value::Object(m) => {
                let reference = self.value(value);
                Variable {
                    name: name.to_string(),
                    value: format!("{{…}} {} field(s)", m.len()),
                    variables_reference: reference,
                }
            }
            Value::Array(a) => {
                let reference = self.value(value);
                Variable {
                    name: name.to_string(),
                    value: format!("[…] {} item(s)", a.len()),
                    variables_reference: reference,
                }
            }
            scalar => leaf(name, &scalar.to_string()),
        }
    }

    /// The entries of container `reference`, `start`/`count` paging them.
    pub fn children(
        &self,
        reference: i64,
        start: Option<usize>,
        count: Option<usize>,
    ) -> Option<Vec<Variable>> {
        let all = self
            .containers
            .get(usize::try_from(reference).ok()?.checked_sub(1)?)?;
        let start = start.unwrap_or(0).min(all.len());
        let end = match count {
            Some(c) if c > 0 => (start + c).min(all.len()),
            _ => all.len(),
        };
        Some(all[start..end].to_vec())
    }
}

/// A leaf entry.
pub fn leaf(name: &str, value: &str) -> Variable {
    Variable {
        name: name.to_string(),
        value: value.to_string(),
        variables_reference: 0,
    }
}

/// The screen as a tree of its elements: each element named by ref, role and label, holding
/// its fields and its child elements. `nodes` is the flattened capture (document order, each
/// with its `parentIndex`).
pub fn screen_tree(tree: &mut VarTree, nodes: &[Value]) -> i64 {
    fn element(tree: &mut VarTree, nodes: &[Value], children: &[Vec<usize>], i: usize) -> Variable {
        let n = &nodes[i];
        let text = |k: &str| n.get(k).and_then(Value::as_str).unwrap_or("");
        let mut fields: Vec<Variable> = Vec::new();
        if let Value::Object(m) = n {
            for (k, v) in m {
                if matches!(k.as_str(), "index" | "depth" | "parentIndex") {
                    continue;
                }
                fields.push(tree.entry(k, v));
            }
        }
        for &c in &children[i] {
            fields.push(element(tree, nodes, children, c));
        }
        let label = match (text("label"), text("id")) {
            ("", "") => String::new(),
            ("", id) => format!(" #{id}"),
            (label, _) => format!(" {}", serde_json::to_string(label).unwrap_or_default()),
        };
        let reference = tree.container(fields);
        Variable {
            name: format!("@{}", text("ref")),
            value: format!("{}{label}", text("type")),
            variables_reference: reference,
        }
    }
    let mut children = vec![Vec::new(); nodes.len()];
    let mut roots = Vec::new();
    for (i, n) in nodes.iter().enumerate() {
        match n.get("parentIndex").and_then(Value::as_u64) {
            Some(p) if (p as usize) < nodes.len() && (p as usize) != i => {
                children[p as usize].push(i)
            }
            _ => roots.push(i),
        }
    }
    let top: Vec<Variable> = roots
        .iter()
        .map(|&r| element(tree, nodes, &children, r))
        .collect();
    tree.container(top)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nested_values_expand_by_reference() {
        let mut t = VarTree::default();
        let root = t.value(&serde_json::json!({"a": 1, "b": {"c": [true, "x"]}}));
        let top = t.children(root, None, None).unwrap();
        assert_eq!(top[0].value, "1");
        assert_eq!(top[0].variables_reference, 0);
        let b = t.children(top[1].variables_reference, None, None).unwrap();
        let c = t.children(b[0].variables_reference, None, None).unwrap();
        assert_eq!((c[1].name.as_str(), c[1].value.as_str()), ("[1]", "\"x\""));
        assert_eq!(t.children(root, Some(1), Some(1)).unwrap().len(), 1);
        assert!(t.children(0, None, None).is_none());
        assert!(t.children(99, None, None).is_none());
    }

    #[test]
    fn the_screen_nests_elements_under_their_parents() {
        let nodes = vec![
            serde_json::json!({"index": 0, "ref": "e1", "depth": 0, "type": "Window", "label": "Shop"}),
            serde_json::json!({"index": 1, "ref": "e2", "depth": 1, "parentIndex": 0, "type": "Button", "id": "go"}),
        ];
        let mut t = VarTree::default();
        let root = screen_tree(&mut t, &nodes);
        let top = t.children(root, None, None).unwrap();
        assert_eq!(top.len(), 1);
        assert_eq!(
            (top[0].name.as_str(), top[0].value.as_str()),
            ("@e1", "Window \"Shop\"")
        );
        let inside = t.children(top[0].variables_reference, None, None).unwrap();
        let button = inside
            .iter()
            .find(|v| v.name == "@e2")
            .expect("the child element");
        assert_eq!(button.value, "Button #go");
    }
}
