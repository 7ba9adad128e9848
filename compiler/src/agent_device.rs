//! agent-device 0.21.5's view of a script, in the shape `ref-parse.mjs` prints: `ok`, `metadata`
//! or `metadataError`, `parse` (`actions`, `actionLines`) or `parseError`, optional `planDigest`.
//! `ok` is decided by parity diagnostics only; `ad`'s stricter findings never change it.

use ad_grammar::{Diagnostic, Reader};
use serde_json::{json, Map, Value};

use crate::digest::{plan_digest, DigestOptions};
use crate::Analysis;

fn first_rejection(diagnostics: &[Diagnostic], reader: Reader) -> Option<&Diagnostic> {
    diagnostics
        .iter()
        .filter(|d| d.rejection.as_ref().is_some_and(|r| r.reader == reader))
        .min_by_key(|d| d.rejection.as_ref().map(|r| r.order))
}

fn error_json(d: &Diagnostic) -> Value {
    let r = d.rejection.as_ref().expect("a rejection");
    let mut e = json!({ "code": "INVALID_ARGS", "message": r.message });
    if let Some(hint) = &r.hint {
        e["details"] = json!({ "hint": hint });
    }
    e
}

/// The oracle-shaped object for one analysed file (without `file`/`agentDeviceVersion`).
pub fn report(analysis: &Analysis, digest: Option<&DigestOptions>) -> Value {
    let mut out = Map::new();
    let diagnostics = &analysis.diagnostics;
    let preflight = first_rejection(diagnostics, Reader::Daemon);
    if let Some(p) = preflight {
        out.insert("daemonPreflightError".into(), error_json(p));
    }
    let metadata_error = first_rejection(diagnostics, Reader::Metadata);
    match metadata_error {
        Some(d) => out.insert("metadataError".into(), error_json(d)),
        None => out.insert("metadata".into(), analysis.metadata().to_json()),
    };
    let parse_error = first_rejection(diagnostics, Reader::Parser);
    match parse_error {
        Some(d) => out.insert("parseError".into(), error_json(d)),
        None => out.insert(
            "parse".into(),
            json!({
                "actions": analysis.steps.iter().map(|s| s.to_agent_device_json()).collect::<Vec<_>>(),
                "actionLines": analysis.steps.iter().map(|s| s.line + 1).collect::<Vec<_>>(),
            }),
        ),
    };
    let readers_ok = metadata_error.is_none() && parse_error.is_none();
    out.insert("ok".into(), (readers_ok && preflight.is_none()).into());
    if let (Some(options), true) = (digest, readers_ok) {
        out.insert(
            "planDigest".into(),
            plan_digest(&analysis.steps, analysis.metadata(), options).into(),
        );
    }
    Value::Object(out)
}
