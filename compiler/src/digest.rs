//! The replay plan digest (spec §19): SHA-256 over canonical JSON (keys sorted recursively) of
//! `{platform, target, steps:[{command, positionals, flags, runtime, targetEvidence,
//! targetEvidences, source:{path:null, line}}]}`, with `${VAR}` text hashed unresolved.

use ad_grammar::json::stringify;
use ad_grammar::Metadata;
use serde_json::{json, Value};
use sha2::{Digest, Sha256};

use crate::lower::Step;

/// CLI overrides that enter the digest (`--platform` / `--target` of the replay request).
#[derive(Debug, Clone, Default)]
pub struct DigestOptions {
    pub platform: Option<String>,
    pub target: Option<String>,
}

/// The platform that enters the plan: the first `open`'s runtime `--platform`, else the last
/// preceding `runtime --platform`.
pub fn first_open_platform(steps: &[Step]) -> Option<String> {
    let mut from_runtime = None;
    for s in steps {
        if s.command == "runtime" {
            if let Some(Value::String(p)) = s.flags.get("platform") {
                from_runtime = Some(p.clone());
                continue;
            }
        }
        if s.command == "open" {
            return match s.runtime.as_ref().and_then(|r| r.get("platform")) {
                Some(Value::String(p)) => Some(p.clone()),
                _ => from_runtime,
            };
        }
    }
    from_runtime
}

pub fn plan_digest(steps: &[Step], metadata: &Metadata, options: &DigestOptions) -> String {
    let platform = options
        .platform
        .clone()
        .or_else(|| first_open_platform(steps))
        .or_else(|| metadata.platform.as_ref().map(|p| p.value.clone()));
    let target = options
        .target
        .clone()
        .or_else(|| metadata.target.as_ref().map(|t| t.value.clone()));
    let steps: Vec<Value> = steps
        .iter()
        .map(|s| {
            let action = s.to_agent_device_json();
            json!({
                "command": s.command,
                "positionals": action["positionals"],
                "flags": action["flags"],
                "runtime": action.get("runtime").cloned().unwrap_or(Value::Null),
                "targetEvidence": action.get("targetEvidence").cloned().unwrap_or(Value::Null),
                "targetEvidences": action.get("targetEvidences").cloned().unwrap_or(Value::Null),
                "source": { "path": Value::Null, "line": s.line + 1 },
            })
        })
        .collect();
    let plan = json!({ "platform": platform, "target": target, "steps": steps });
    let canonical = stringify(&plan, true);
    let hash = Sha256::digest(canonical.as_bytes());
    hash.iter().map(|b| format!("{b:02x}")).collect()
}
