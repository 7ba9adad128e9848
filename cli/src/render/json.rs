//! `--format json`: one array of flat diagnostic objects with 1-based positions.

use serde_json::{json, Value};

use super::CheckedFile;

/// Writes the array of every file's diagnostics, pretty-printed, one object at a time: the
/// objects are built as they are written, so memory does not grow with the number of findings.
pub fn write(files: &[CheckedFile], out: impl std::io::Write) -> serde_json::Result<()> {
    struct All<'a>(&'a [CheckedFile]);
    impl serde::Serialize for All<'_> {
        fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            use serde::ser::SerializeSeq;
            let n = self.0.iter().map(|f| f.diagnostics.len()).sum();
            let mut seq = s.serialize_seq(Some(n))?;
            for f in self.0 {
                for d in &f.diagnostics {
                    seq.serialize_element(&diagnostic(f, d))?;
                }
            }
            seq.end()
        }
    }
    serde::Serialize::serialize(&All(files), &mut serde_json::Serializer::pretty(out))
}

/// All diagnostics as one JSON array.
#[cfg(test)]
pub fn render(files: &[CheckedFile]) -> Value {
    Value::Array(
        files
            .iter()
            .flat_map(|f| f.diagnostics.iter().map(move |d| diagnostic(f, d)))
            .collect(),
    )
}

/// One diagnostic as a flat JSON object.
fn diagnostic(f: &CheckedFile, d: &ad_grammar::Diagnostic) -> Value {
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
            let (ll, lc) = f.index().line_col(&f.text, l.span.start());
            json!({"line": ll, "column": lc, "message": l.message, "primary": l.primary})
        })
        .collect();
    if !labels.is_empty() {
        v["labels"] = labels.into();
    }
    // The includes that reached the file, outermost first, each a location in its own file.
    let related: Vec<Value> = f
        .related(d)
        .iter()
        .map(|r| {
            let (l, c, el, ec) = r.position();
            json!({"path": r.name, "line": l, "column": c, "end_line": el, "end_column": ec, "message": r.message})
        })
        .collect();
    if !related.is_empty() {
        v["related"] = related.into();
    }
    if let Some(fix) = &d.fix {
        v["fix"] = json!({
            "title": fix.title,
            "edits": fix.edits.iter().map(|e| {
                let (l, c) = f.index().line_col(&f.text, e.span.start());
                let (el, ec) = f.index().line_col(&f.text, e.span.end());
                json!({"line": l, "column": c, "end_line": el, "end_column": ec, "replacement": e.replacement})
            }).collect::<Vec<_>>(),
        });
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn streamed_output_is_the_pretty_array() {
        let text = "open \"x\"\nbogus\ntap \"label=Ok\"\n".to_string();
        let diagnostics = ad_compiler::analyze(&text).diagnostics;
        assert!(diagnostics.len() >= 2);
        let files = [
            CheckedFile::new("a.ad".into(), text.clone(), diagnostics),
            CheckedFile::new("empty.ad".into(), String::new(), Vec::new()),
        ];
        let mut streamed = Vec::new();
        write(&files, &mut streamed).unwrap();
        let whole = serde_json::to_string_pretty(&render(&files)).unwrap();
        assert_eq!(String::from_utf8(streamed).unwrap(), whole);
        let mut empty = Vec::new();
        write(&files[1..], &mut empty).unwrap();
        assert_eq!(empty, b"[]");
    }
}
