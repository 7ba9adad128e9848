//! `ad check`'s diagnostics as LSP diagnostics: same codes, severities and ranges; secondary
//! labels become related information.

use ad_grammar::codes;
use ad_grammar::Severity;
use lsp_types::{
    DiagnosticRelatedInformation, DiagnosticSeverity, DiagnosticTag, Location, NumberOrString,
};

use crate::document::{Document, NoAnalysis};

/// The `source` of every diagnostic the server publishes.
pub const SOURCE: &str = "ad";

pub fn severity(s: Severity) -> DiagnosticSeverity {
    match s {
        Severity::Error => DiagnosticSeverity::ERROR,
        Severity::Warning => DiagnosticSeverity::WARNING,
        Severity::Info => DiagnosticSeverity::INFORMATION,
    }
}

/// The message shown in the editor: the diagnostic, its label, its help and, for a script
/// agent-device rejects, agent-device's own words.
pub fn message(d: &ad_grammar::Diagnostic) -> String {
    let mut m = d.message.to_string();
    if let Some(label) = d.labels.iter().find(|l| l.primary) {
        if !label.message.is_empty() && label.message != d.message {
            m.push('\n');
            m.push_str(&label.message);
        }
    }
    if let Some(help) = &d.help {
        m.push_str("\nhelp: ");
        m.push_str(help);
    }
    if let Some(r) = &d.rejection {
        m.push_str("\nagent-device 0.21.5 rejects the script: ");
        m.push_str(&r.message);
    }
    m
}

/// The editor tags of `code`, from the code table: faded text for what does nothing, struck
/// through for what agent-device removed.
fn tags(code: codes::Code) -> Option<Vec<DiagnosticTag>> {
    let mut tags = Vec::new();
    if code.unnecessary() {
        tags.push(DiagnosticTag::UNNECESSARY);
    }
    if code.deprecated() {
        tags.push(DiagnosticTag::DEPRECATED);
    }
    (!tags.is_empty()).then_some(tags)
}

pub fn convert(doc: &Document, d: &ad_grammar::Diagnostic) -> lsp_types::Diagnostic {
    let text = doc.text.as_str();
    let related: Vec<DiagnosticRelatedInformation> = d
        .labels
        .iter()
        .filter(|l| !l.primary)
        .map(|l| DiagnosticRelatedInformation {
            location: Location::new(doc.uri.clone(), doc.lines.range(text, l.span)),
            message: if l.message.is_empty() {
                "related".into()
            } else {
                l.message.to_string()
            },
        })
        .collect();
    lsp_types::Diagnostic {
        range: doc.lines.range(text, d.primary_span()),
        severity: Some(severity(d.severity)),
        code: Some(NumberOrString::String(d.code.to_string())),
        code_description: None,
        source: Some(SOURCE.into()),
        message: message(d),
        related_information: (!related.is_empty()).then_some(related),
        tags: tags(d.code),
        data: None,
    }
}

/// Everything to publish for a document.
pub fn publish(doc: &Document) -> Vec<lsp_types::Diagnostic> {
    if doc.kind == crate::document::Kind::Maestro {
        return crate::maestro::diagnostics(doc);
    }
    if let (Some(c), Some(path)) = (doc.composition(), doc.path.as_ref()) {
        // A composition's findings in this file, each with the include chain that reached it.
        let path = ad_compiler::compose::normalize(path);
        return c
            .diagnostics_in(&path)
            .map(|fd| {
                let mut d = convert(doc, &fd.diagnostic);
                if !fd.chain.is_empty() {
                    let via: Vec<String> = fd
                        .chain
                        .iter()
                        .map(|s| {
                            format!("{}:{} [{}]", s.file.display(), s.line + 1, s.call_site_id)
                        })
                        .collect();
                    d.message
                        .push_str(&format!("\nincluded via {}", via.join(" → ")));
                    // Each include on the way, as a location in its own file.
                    let related = d.related_information.get_or_insert_with(Vec::new);
                    for s in &fd.chain {
                        let (Some(uri), Some(text)) =
                            (crate::compose::file_uri(&s.file), c.files.get(&s.file))
                        else {
                            continue;
                        };
                        let map = crate::lines::LineMap::new(text, doc.lines.encoding());
                        related.push(DiagnosticRelatedInformation {
                            location: Location::new(uri, map.range(text, s.span)),
                            message: format!("included here (call site `{}`)", s.call_site_id),
                        });
                    }
                }
                d
            })
            .collect();
    }
    match doc.analysis() {
        Ok(a) => a
            .diagnostics
            .iter()
            .map(|d| convert(doc, d))
            // The last run of this plan, when it diverged (from the artifacts folder).
            .chain(crate::runs::diagnostics(doc))
            .collect(),
        Err(NoAnalysis::TooLarge | NoAnalysis::NotAScript) => Vec::new(),
        Err(NoAnalysis::Crashed) => vec![lsp_types::Diagnostic {
            range: lsp_types::Range::default(),
            severity: Some(DiagnosticSeverity::ERROR),
            code: Some(NumberOrString::String("internal".into())),
            source: Some(SOURCE.into()),
            message: "ad crashed while analysing this text, so nothing else is reported for this \
                      version (a bug in ad: please report it with the script); the language \
                      server keeps running"
                .into(),
            ..Default::default()
        }],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tags_come_from_the_code_table() {
        let cases: &[(codes::Code, Option<Vec<DiagnosticTag>>)] = &[
            (
                codes::DROPPED_ARGUMENT,
                Some(vec![DiagnosticTag::UNNECESSARY]),
            ),
            (codes::UNUSED_ENV, Some(vec![DiagnosticTag::UNNECESSARY])),
            (
                codes::RETIRED_COMMAND,
                Some(vec![DiagnosticTag::DEPRECATED]),
            ),
            (codes::REMOVED_FLAG, Some(vec![DiagnosticTag::DEPRECATED])),
            (codes::UNKNOWN_COMMAND, None),
        ];
        for (code, want) in cases {
            assert_eq!(&tags(*code), want, "{code}");
        }
    }
}
