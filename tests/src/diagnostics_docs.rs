//! `docs/diagnostics.md`, read as the tests read it: one entry per code with its stated severity,
//! agent-device verdict, example and fix, and the bytes each example stands for.

use crate::repo_dir;

/// The text of `docs/diagnostics.md`.
pub fn read_docs() -> String {
    let path = repo_dir().join(ad_grammar::codes::DOCS);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()))
}

/// The `### ADxxx` entries of `docs/diagnostics.md`, in order.
pub fn doc_entries() -> Vec<DocEntry> {
    parse_entries(&read_docs())
}

/// One `### ADxxx` section of docs/diagnostics.md.
#[derive(Default)]
pub struct DocEntry {
    pub code: String,
    /// The heading's title, after `### ADxxx — `.
    pub title: String,
    /// The `**Severity:**` line, without its label.
    pub severity: Option<String>,
    /// `yes`, `no` or `depends`, from the `**Rejected by agent-device 0.21.5:**` line.
    pub rejected: Option<String>,
    /// The ```ad blocks, in order: the example, then the fix.
    pub blocks: Vec<String>,
    /// The ```yaml blocks (Maestro flow codes), in order: the example, then the fix.
    pub yaml: Vec<String>,
    /// Extra `ad check` arguments, from a `<!-- check-args: … -->` line in the section.
    pub args: Vec<String>,
}

fn parse_entries(docs: &str) -> Vec<DocEntry> {
    let mut entries: Vec<DocEntry> = Vec::new();
    let mut block: Option<String> = None;
    let mut yaml = false;
    for line in docs.lines() {
        if let Some(b) = block.as_mut() {
            if line.trim_start() == "```" {
                let text = block.take().unwrap_or_default();
                if let Some(e) = entries.last_mut() {
                    if yaml {
                        e.yaml.push(text);
                    } else {
                        e.blocks.push(text);
                    }
                }
            } else {
                b.push_str(line);
                b.push('\n');
            }
            continue;
        }
        if let Some(h) = line.strip_prefix("### AD") {
            let (code, title) = h.split_once(" — ").unwrap_or((h, ""));
            entries.push(DocEntry {
                code: format!("AD{code}"),
                title: title.to_string(),
                ..DocEntry::default()
            });
        } else if line.starts_with("## ") {
            // A new chapter ends the current code's section.
            entries.push(DocEntry::default());
        } else if let Some(rest) = line.strip_prefix("**Severity:**") {
            if let Some(e) = entries.last_mut() {
                e.severity = Some(rest.trim().to_string());
            }
        } else if let Some(rest) = line.strip_prefix("**Rejected by agent-device 0.21.5:**") {
            if let Some(e) = entries.last_mut() {
                e.rejected = rest.split_whitespace().next().map(str::to_string);
            }
        } else if let Some(rest) = line
            .strip_prefix("<!-- check-args:")
            .and_then(|r| r.strip_suffix("-->"))
        {
            if let Some(e) = entries.last_mut() {
                e.args = rest.split_whitespace().map(str::to_string).collect();
            }
        } else if line.trim_start() == "```ad" || line.trim_start() == "```yaml" {
            yaml = line.trim_start() == "```yaml";
            block = Some(String::new());
        }
    }
    entries.retain(|e| !e.code.is_empty());
    entries
}

/// Docs show a NUL as ␀, a lone carriage return as ␍ and a byte that is not UTF-8 as `⟨e9⟩`;
/// the scripts contain the real bytes.
pub fn script_from_docs(block: &str) -> Vec<u8> {
    let text = block.replace('␀', "\0").replace('␍', "\r");
    let mut bytes = Vec::with_capacity(text.len());
    let mut rest = text.as_str();
    while let Some(at) = rest.find('⟨') {
        bytes.extend_from_slice(&rest.as_bytes()[..at]);
        let after = &rest[at + '⟨'.len_utf8()..];
        let byte = after
            .split_once('⟩')
            .and_then(|(hex, _)| u8::from_str_radix(hex, 16).ok());
        match byte {
            Some(b) => {
                bytes.push(b);
                rest = &after[after.find('⟩').unwrap_or(0) + '⟩'.len_utf8()..];
            }
            None => {
                bytes.extend_from_slice("⟨".as_bytes());
                rest = after;
            }
        }
    }
    bytes.extend_from_slice(rest.as_bytes());
    bytes
}
