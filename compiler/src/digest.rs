//! The replay plan digest (spec §19): SHA-256 over canonical JSON (keys sorted recursively) of
//! `{platform, target, steps:[{command, positionals, flags, runtime, targetEvidence,
//! targetEvidences, source:{path:null, line}}]}`, with `${VAR}` text hashed unresolved.

use ad_grammar::annotation::Evidence;
use ad_grammar::json::{stringify, write_string};
use ad_grammar::Metadata;
use serde_json::Value;
use sha2::{Digest, Sha256};

use crate::lower::Step;
use crate::registry::Action;

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
        if s.action() == Some(Action::Runtime) {
            if let Some(Value::String(p)) = s.flags().get("platform") {
                from_runtime = Some(p.clone());
                continue;
            }
        }
        if s.action() == Some(Action::Open) {
            return match s.runtime().and_then(|r| r.get("platform")) {
                Some(Value::String(p)) => Some(p.clone()),
                _ => from_runtime,
            };
        }
    }
    from_runtime
}

pub fn plan_digest(steps: &[Step], metadata: &Metadata, options: &DigestOptions) -> String {
    let hash = Sha256::digest(canonical_plan(steps, metadata, options).as_bytes());
    hash.iter().map(|b| format!("{b:02x}")).collect()
}

/// The canonical JSON the digest hashes: `JSON.stringify` with object keys sorted recursively,
/// written straight into one string (no intermediate JSON tree: this runs on every resume check
/// and every `fmt` verification).
pub fn canonical_plan(steps: &[Step], metadata: &Metadata, options: &DigestOptions) -> String {
    let platform = options
        .platform
        .clone()
        .or_else(|| first_open_platform(steps))
        .or_else(|| metadata.platform.as_ref().map(|p| p.value.clone()));
    let target = options
        .target
        .clone()
        .or_else(|| metadata.target.as_ref().map(|t| t.value.clone()));
    let opt = |out: &mut String, v: &Option<String>| match v {
        Some(s) => write_string(out, s),
        None => out.push_str("null"),
    };
    let mut out = String::with_capacity(steps.len() * 160 + 64);
    out.push_str("{\"platform\":");
    opt(&mut out, &platform);
    out.push_str(",\"steps\":[");
    for (i, s) in steps.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        // Keys in sorted order: command, flags, positionals, runtime, source, targetEvidence(s).
        out.push_str("{\"command\":");
        write_string(&mut out, s.command());
        out.push_str(",\"flags\":");
        out.push_str(&stringify(&Value::Object(s.flags().to_map()), true));
        out.push_str(",\"positionals\":[");
        for (k, a) in s.positionals.iter().enumerate() {
            if k > 0 {
                out.push(',');
            }
            write_string(&mut out, &a.value);
        }
        out.push_str("],\"runtime\":");
        match s.runtime() {
            Some(r) => out.push_str(&stringify(&Value::Object(r.to_map()), true)),
            None => out.push_str("null"),
        }
        out.push_str(&format!(
            ",\"source\":{{\"line\":{},\"path\":null}}",
            s.line() + 1
        ));
        out.push_str(",\"targetEvidence\":");
        match &s.target_evidence {
            Some(e) => out.push_str(&stringify(&e.to_value(), true)),
            None => out.push_str("null"),
        }
        out.push_str(",\"targetEvidences\":");
        match s.target_evidences() {
            Some(d) => out.push_str(&stringify(&Evidence::Dual(d.clone()).to_value(), true)),
            None => out.push_str("null"),
        }
        out.push('}');
    }
    out.push_str("],\"target\":");
    opt(&mut out, &target);
    out.push('}');
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// The streaming writer equals sorting a full JSON tree, for a step with everything set.
    #[test]
    fn canonical_plan_matches_a_sorted_json_tree() {
        let text = "context platform=ios target=mobile\n# agent-device:target-v1 {\"id\":\"a\",\"role\":\"button\",\"rect\":{\"x\":1.5,\"y\":2,\"width\":3,\"height\":4},\"verification\":\"verified\"}\nclick \"id=a\" --count 2 --double-tap\nopen app --platform android --metro-port 8081\n";
        let a = crate::analyze(text);
        let steps: Vec<Value> = a
            .steps()
            .iter()
            .map(|s| {
                let j = s.to_agent_device_json();
                json!({
                    "command": s.command(), "positionals": j["positionals"], "flags": j["flags"],
                    "runtime": j.get("runtime").cloned().unwrap_or(Value::Null),
                    "targetEvidence": j.get("targetEvidence").cloned().unwrap_or(Value::Null),
                    "targetEvidences": j.get("targetEvidences").cloned().unwrap_or(Value::Null),
                    "source": {"path": Value::Null, "line": s.line() + 1},
                })
            })
            .collect();
        let tree = json!({"platform": "android", "target": "mobile", "steps": steps});
        assert_eq!(
            canonical_plan(a.steps(), a.metadata(), &DigestOptions::default()),
            stringify(&tree, true)
        );
    }
}
