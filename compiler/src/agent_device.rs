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
                "actions": analysis.steps().iter().map(|s| s.to_agent_device_json()).collect::<Vec<_>>(),
                "actionLines": analysis.steps().iter().map(|s| s.line() + 1).collect::<Vec<_>>(),
            }),
        ),
    };
    let readers_ok = metadata_error.is_none() && parse_error.is_none();
    out.insert("ok".into(), (readers_ok && preflight.is_none()).into());
    if let (Some(options), true) = (digest, readers_ok) {
        out.insert(
            "planDigest".into(),
            plan_digest(analysis.steps(), analysis.metadata(), options).into(),
        );
    }
    Value::Object(out)
}

/// The same report as [`report`], serialized straight from the analysis (`ad parse` writes a
/// 2 MiB script's report without building a JSON tree of it first). Keys and their order are
/// [`report`]'s; `file` (when given) comes last.
pub struct ReportRef<'a> {
    pub analysis: &'a Analysis,
    pub digest: Option<&'a DigestOptions>,
    pub file: Option<&'a str>,
}

impl serde::Serialize for ReportRef<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let analysis = self.analysis;
        let diagnostics = &analysis.diagnostics;
        let mut map = serializer.serialize_map(None)?;
        let preflight = first_rejection(diagnostics, Reader::Daemon);
        if let Some(p) = preflight {
            map.serialize_entry("daemonPreflightError", &error_json(p))?;
        }
        let metadata_error = first_rejection(diagnostics, Reader::Metadata);
        match metadata_error {
            Some(d) => map.serialize_entry("metadataError", &error_json(d))?,
            None => map.serialize_entry("metadata", &analysis.metadata().to_json())?,
        }
        let parse_error = first_rejection(diagnostics, Reader::Parser);
        match parse_error {
            Some(d) => map.serialize_entry("parseError", &error_json(d))?,
            None => map.serialize_entry("parse", &Actions(analysis))?,
        }
        let readers_ok = metadata_error.is_none() && parse_error.is_none();
        map.serialize_entry("ok", &(readers_ok && preflight.is_none()))?;
        if let (Some(options), true) = (self.digest, readers_ok) {
            let digest = plan_digest(analysis.steps(), analysis.metadata(), options);
            map.serialize_entry("planDigest", &digest)?;
        }
        if let Some(file) = self.file {
            map.serialize_entry("file", file)?;
        }
        map.end()
    }
}

/// `{"actions": […], "actionLines": […]}`, one step at a time.
struct Actions<'a>(&'a Analysis);

impl serde::Serialize for Actions<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let steps = &self.0.steps();
        let mut map = serializer.serialize_map(Some(2))?;
        map.serialize_entry("actions", &Each(steps))?;
        let lines: Vec<usize> = steps.iter().map(|s| s.line() + 1).collect();
        map.serialize_entry("actionLines", &lines)?;
        map.end()
    }
}

struct Each<'a>(&'a [crate::Step<'a>]);

impl serde::Serialize for Each<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        // Each step serialized from its own fields: no JSON tree, not even of one step.
        serializer.collect_seq(self.0.iter().map(StepRef))
    }
}

/// [`crate::Step::to_agent_device_json`]'s object (the same keys in the same order), written
/// from the step's fields.
struct StepRef<'a>(&'a crate::Step<'a>);

impl serde::Serialize for StepRef<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let step = self.0;
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("command", &step.command())?;
        map.serialize_entry("positionals", &Values(&step.positionals))?;
        map.serialize_entry("flags", &FlagsRef(step.flags()))?;
        if let Some(r) = step.runtime() {
            map.serialize_entry("runtime", &FlagsRef(r))?;
        }
        if let Some(l) = step.ref_label() {
            map.serialize_entry("result", &RefLabel(&l.value))?;
        }
        if let Some(e) = &step.target_evidence {
            if e.rect.is_none() {
                map.serialize_entry("targetEvidence", &**e)?;
            } else {
                // A rect's numbers are written as JavaScript prints them: `to_value` knows how.
                map.serialize_entry("targetEvidence", &e.to_value())?;
            }
        }
        if let Some(e) = step.target_evidences() {
            let value = ad_grammar::annotation::Evidence::Dual(e.clone()).to_value();
            map.serialize_entry("targetEvidences", &value)?;
        }
        map.end()
    }
}

/// The positionals' values, as a JSON array of strings.
struct Values<'a>(&'a [crate::Arg<'a>]);

impl serde::Serialize for Values<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.0.iter().map(|a| a.value.as_str()))
    }
}

/// A flags object in the reader's key order.
struct FlagsRef<'a>(&'a crate::Flags);

impl serde::Serialize for FlagsRef<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_map(self.0.iter())
    }
}

/// `{"refLabel": …}`.
struct RefLabel<'a>(&'a str);

impl serde::Serialize for RefLabel<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = serializer.serialize_map(Some(1))?;
        map.serialize_entry("refLabel", self.0)?;
        map.end()
    }
}
