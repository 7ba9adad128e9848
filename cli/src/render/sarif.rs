//! `--format sarif`: SARIF 2.1.0 for code-scanning upload.

use ad_grammar::{codes, Severity};
use serde_json::{json, Value};

use super::CheckedFile;

/// SARIF's name for a severity.
fn level(s: Severity) -> &'static str {
    match s {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Info => "note",
    }
}

pub fn render(files: &[CheckedFile]) -> Value {
    let mut results = Vec::new();
    for f in files {
        for d in &f.diagnostics {
            let (line, column, end_line, end_column) = f.position(d);
            let mut text = d.message.to_string();
            if let Some(h) = &d.help {
                text.push_str(&format!("\nhelp: {h}"));
            }
            let related: Vec<Value> = f
                .related(d)
                .iter()
                .enumerate()
                .map(|(i, r)| {
                    let (l, c, el, ec) = r.position();
                    json!({
                        "id": i,
                        "message": { "text": r.message },
                        "physicalLocation": {
                            "artifactLocation": { "uri": r.name.replace('\\', "/") },
                            "region": { "startLine": l, "startColumn": c, "endLine": el, "endColumn": ec }
                        }
                    })
                })
                .collect();
            let mut result = json!({
                "ruleId": d.code,
                "level": level(d.severity),
                "message": { "text": text },
                "locations": [{
                    "physicalLocation": {
                        "artifactLocation": { "uri": f.name.replace('\\', "/") },
                        "region": { "startLine": line, "startColumn": column, "endLine": end_line, "endColumn": end_column }
                    }
                }],
                "properties": { "agentDeviceRejects": d.is_parity_error() }
            });
            if !related.is_empty() {
                result["relatedLocations"] = related.into();
            }
            results.push(result);
        }
    }
    // Rule metadata comes from the code table, like everything else about a code.
    let rules: Vec<Value> = codes::TABLE
        .iter()
        .map(|c| {
            json!({
                "id": c.id(),
                "name": rule_name(c.title()),
                "shortDescription": { "text": c.title() },
                "defaultConfiguration": { "level": level(c.severity()) },
                "helpUri": format!("https://github.com/ad-tools/ad/blob/main/{}#{}", codes::DOCS, c.anchor()),
                "properties": { "agentDeviceRejects": format!("{:?}", c.rejected()).to_lowercase(), "fixable": c.has_fix() },
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

/// SARIF wants a PascalCase rule name: the title's words, capitalised, without punctuation.
fn rule_name(title: &str) -> String {
    title
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(|w| {
            let mut cs = w.chars();
            cs.next()
                .map(|f| f.to_ascii_uppercase().to_string() + cs.as_str())
                .unwrap_or_default()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rule_names_are_pascal_case() {
        assert_eq!(
            rule_name("`replay` line is skipped at run time"),
            "ReplayLineIsSkippedAtRunTime"
        );
        assert_eq!(
            rule_name("JSON replay payload instead of an .ad script"),
            "JSONReplayPayloadInsteadOfAnAdScript"
        );
    }

    #[test]
    fn every_code_is_a_rule_with_its_default_level() {
        let v = render(&[]);
        let rules = v["runs"][0]["tool"]["driver"]["rules"].as_array().unwrap();
        assert_eq!(rules.len(), codes::TABLE.len());
        for (r, c) in rules.iter().zip(codes::TABLE) {
            assert_eq!(r["id"], c.id());
            assert_eq!(r["defaultConfiguration"]["level"], level(c.severity()));
            assert!(r["helpUri"]
                .as_str()
                .unwrap()
                .ends_with(&format!("#{}", c.id().to_lowercase())));
        }
    }
}
