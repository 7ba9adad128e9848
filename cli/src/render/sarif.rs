//! `--format sarif`: SARIF 2.1.0 for code-scanning upload.

use ad_grammar::Severity;
use serde_json::{json, Value};

use super::CheckedFile;

pub fn render(files: &[CheckedFile], rules: &[(&str, &str)]) -> Value {
    let mut results = Vec::new();
    for f in files {
        for d in &f.diagnostics {
            let (line, column, end_line, end_column) = f.position(d);
            let level = match d.severity {
                Severity::Error => "error",
                Severity::Warning => "warning",
                Severity::Info => "note",
            };
            let mut text = d.message.to_string();
            if let Some(h) = &d.help {
                text.push_str(&format!("\nhelp: {h}"));
            }
            results.push(json!({
                "ruleId": d.code,
                "level": level,
                "message": { "text": text },
                "locations": [{
                    "physicalLocation": {
                        "artifactLocation": { "uri": f.name.replace('\\', "/") },
                        "region": { "startLine": line, "startColumn": column, "endLine": end_line, "endColumn": end_column }
                    }
                }],
                "properties": { "agentDeviceRejects": d.is_parity_error() }
            }));
        }
    }
    let rules: Vec<Value> = rules
        .iter()
        .map(|(code, title)| {
            json!({
                "id": code,
                "shortDescription": { "text": title },
                "helpUri": format!("https://github.com/ad-tools/ad/blob/main/docs/diagnostics.md#{}", code.to_lowercase()),
            })
        })
        .collect();
    json!({
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": { "driver": { "name": "ad", "informationUri": "https://github.com/ad-tools/ad", "version": env!("CARGO_PKG_VERSION"), "rules": rules } },
            "results": results
        }]
    })
}
