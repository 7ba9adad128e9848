//! `--format json`: one array of flat diagnostic objects with 1-based positions.

use serde_json::{json, Value};

use super::CheckedFile;

pub fn render(files: &[CheckedFile]) -> Value {
    let mut all = Vec::new();
    for f in files {
        for d in &f.diagnostics {
            let (line, column, end_line, end_column) = f.position(d);
            let mut v = json!({
                "path": f.name,
                "code": d.code,
                "severity": d.severity.as_str(),
                "message": d.message,
                "line": line,
                "column": column,
                "end_line": end_line,
                "end_column": end_column,
                "agent_device_rejects": d.is_parity_error(),
            });
            if let Some(h) = &d.help {
                v["help"] = h.clone().into();
            }
            if let Some(r) = &d.rejection {
                v["agent_device_message"] = r.message.clone().into();
            }
            let labels: Vec<Value> = d
                .labels
                .iter()
                .filter(|l| !l.message.is_empty())
                .map(|l| {
                    let (ll, lc) = f.index.line_col(&f.text, l.span.start);
                    json!({"line": ll, "column": lc, "message": l.message, "primary": l.primary})
                })
                .collect();
            if !labels.is_empty() {
                v["labels"] = labels.into();
            }
            if let Some(fix) = &d.fix {
                v["fix"] = json!({
                    "title": fix.title,
                    "edits": fix.edits.iter().map(|e| {
                        let (l, c) = f.index.line_col(&f.text, e.span.start);
                        let (el, ec) = f.index.line_col(&f.text, e.span.end);
                        json!({"line": l, "column": c, "end_line": el, "end_column": ec, "replacement": e.replacement})
                    }).collect::<Vec<_>>(),
                });
            }
            all.push(v);
        }
    }
    Value::Array(all)
}
