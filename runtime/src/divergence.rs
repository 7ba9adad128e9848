//! The version-1 divergence report (spec §20): what failed, where, the screen at the time,
//! ranked suggestions, a repair hint and how to resume, within a byte budget; and its human
//! rendering.

use ad_grammar::annotation::TargetEvidence;
use serde_json::{json, Map, Value};

use crate::identity::{ancestry, identity, BindingFailure};
use crate::select::{basis, resolve, Policy, Selector};
use crate::tree::{display_label, display_role, FlatNode, Snapshot};
use crate::vars::Scope;

/// Byte budgets of the serialized report (`--level`).
pub const DIGEST_BYTES: usize = 8192;
pub const DEFAULT_BYTES: usize = 24_576;
pub const FULL_BYTES: usize = 65_536;
/// Strings in the report are cut to this many UTF-8 bytes.
pub const FIELD_BYTES: usize = 256;

/// Cuts a string to `max` UTF-8 bytes, marking the cut with `…<truncated>`.
pub fn truncate(s: &str, max: usize) -> String {
    if s.len() <= max {
        return s.to_string();
    }
    let marker = "…<truncated>";
    let mut end = max.saturating_sub(marker.len());
    while end > 0 && !s.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}{marker}", &s[..end])
}

/// The screen at the time of the failure.
pub enum ScreenEvidence<'a> {
    Available {
        snapshot: &'a Snapshot,
        generation: u64,
    },
    Unavailable {
        reason: String,
        hint: String,
    },
}

/// Everything the report is built from.
pub struct Input<'a> {
    pub kind: &'static str,
    /// 1-based plan index.
    pub step: usize,
    pub path: String,
    /// 1-based source line.
    pub line: usize,
    pub action: String,
    pub cause_code: String,
    pub cause_message: String,
    pub cause_hint: Option<String>,
    pub screen: ScreenEvidence<'a>,
    pub evidence: Option<&'a TargetEvidence>,
    pub binding: Option<&'a BindingFailure>,
    /// The binding's node indices refer to this snapshot.
    pub binding_snapshot: Option<&'a Snapshot>,
    /// The step's own selector expression, if it has one.
    pub selector: Option<String>,
    pub policy: Policy,
    pub total_steps: usize,
    pub plan_digest: String,
    /// Whether the session stays live after the failure.
    pub session_exists: bool,
    /// How resume commands are spelled in guidance (`ad run flow.ad`).
    pub resume_command: String,
}

fn ref_entry(n: &FlatNode, scope: &Scope) -> Value {
    let mut m = Map::new();
    m.insert("ref".into(), n.reference.clone().into());
    m.insert("role".into(), clip_plain(&display_role(n)).into());
    if let Some(l) = display_label(n) {
        m.insert("label".into(), clip(scope, &l).into());
    }
    Value::Object(m)
}

/// Data a run observed or built from its arguments: redacted, then cut to the field budget.
fn clip(scope: &Scope, s: &str) -> String {
    truncate(&scope.redact(s), FIELD_BYTES)
}

/// Structure (roles, paths): cut to the field budget, never redacted.
fn clip_plain(s: &str) -> String {
    truncate(s, FIELD_BYTES)
}

/// The refs a divergence screen shows (and so issues, as a partial frame).
pub fn issued_refs(s: &Snapshot) -> std::collections::BTreeSet<String> {
    let mut picked: Vec<&FlatNode> = s
        .nodes
        .iter()
        .filter(|n| n.hittable || display_label(n).is_some())
        .collect();
    if picked.is_empty() {
        picked = s.nodes.iter().filter(|n| n.hittable).collect();
    }
    picked
        .iter()
        .take(20)
        .map(|n| n.reference.clone())
        .collect()
}

/// Actionable refs (labelled or hittable), at most 20.
fn screen_refs(s: &Snapshot, scope: &Scope) -> (Vec<Value>, bool) {
    let mut picked: Vec<&FlatNode> = s
        .nodes
        .iter()
        .filter(|n| n.hittable || display_label(n).is_some())
        .collect();
    if picked.is_empty() {
        picked = s.nodes.iter().filter(|n| n.hittable).collect();
    }
    let truncated = picked.len() > 20;
    (
        picked
            .iter()
            .take(20)
            .map(|n| ref_entry(n, scope))
            .collect(),
        truncated,
    )
}

/// Is the recorded container (ancestry / scroll region) present in the capture (`Md`)?
fn container_present(e: &TargetEvidence, s: &Snapshot) -> bool {
    let ancestry_ok = if e.ancestry.is_empty() {
        !s.nodes.is_empty()
    } else {
        s.nodes.iter().any(|n| {
            let (chain, broken) = ancestry(s, n, e.ancestry.len());
            !broken
                && chain.len() >= e.ancestry.len()
                && e.ancestry
                    .iter()
                    .zip(&chain)
                    .all(|(r, o)| o.role == r.role && (r.label.is_none() || o.label == r.label))
        })
    };
    match &e.scroll_region {
        Some(r) if r.id.is_some() || r.label.is_some() => {
            ancestry_ok
                && s.nodes.iter().any(|n| {
                    let id = identity(n);
                    id.role == r.role
                        && match &r.id {
                            Some(i) => id.id.as_ref() == Some(i),
                            None => id.label == r.label,
                        }
                })
        }
        _ => ancestry_ok,
    }
}

fn has_container(e: &TargetEvidence) -> bool {
    !e.ancestry.is_empty()
        || e.scroll_region
            .as_ref()
            .is_some_and(|r| r.id.is_some() || r.label.is_some())
}

/// `Ad`: the repair hint for a divergence.
pub fn repair_hint(
    kind: &str,
    evidence: Option<&TargetEvidence>,
    screen: Option<&Snapshot>,
) -> &'static str {
    if kind == "identity-mismatch" {
        return "caution";
    }
    let (Some(e), Some(s)) = (evidence, screen) else {
        return "manual";
    };
    if kind == "identity-unverifiable" || !has_container(e) {
        return "manual";
    }
    let present = container_present(e, s);
    match (kind, present) {
        ("selector-miss", true) => "record-and-heal",
        ("selector-miss", false) => "state-repair",
        (_, true) => "record-and-heal",
        _ => "manual",
    }
}

fn candidate_selectors(input: &Input) -> Vec<String> {
    let mut out = Vec::new();
    if input.binding.is_none() {
        if let Some(s) = &input.selector {
            if let Ok(sel) = Selector::parse(s) {
                out.extend(sel.alternatives.iter().map(|a| a.raw.clone()));
            }
        }
    }
    if let Some(e) = input.evidence {
        let q = ad_grammar::json::quote;
        if let Some(id) = &e.id {
            out.push(format!("id={}", q(id)));
        }
        if let Some(l) = &e.label {
            if !e.role.is_empty() {
                out.push(format!("role={} label={}", q(&e.role), q(l)));
            }
            out.push(format!("label={}", q(l)));
        }
    }
    out
}

fn basis_rank(b: &str) -> u8 {
    match b {
        "id" => 0,
        "role-label" => 1,
        "label" => 2,
        _ => 3,
    }
}

/// Ranked suggestions: more identity components first, then the recorded scroll region, then
/// document order (ADR 0012). The element a binding failure refused is never suggested.
fn suggestions(input: &Input, s: &Snapshot, scope: &Scope) -> Vec<Value> {
    let refused = input.binding.and_then(|b| b.observed);
    let mut found: Vec<(u8, u8, usize, Value)> = Vec::new();
    for cand in candidate_selectors(input) {
        let Ok(sel) = Selector::parse(&cand) else {
            continue;
        };
        let r = resolve(s, &sel, input.policy);
        let (Some(w), Some(ai)) = (r.winner, r.alternative) else {
            continue;
        };
        if Some(w) == refused && input.binding_snapshot.is_some_and(|b| std::ptr::eq(b, s)) {
            continue;
        }
        let b = basis(&sel.alternatives[ai]);
        let n = &s.nodes[w];
        let region_rank = match input.evidence.and_then(|e| e.scroll_region.as_ref()) {
            Some(rec) => {
                let here = s.scroll_region(n).map(identity);
                u8::from(!here.is_some_and(|h| {
                    h.role == rec.role
                        && (rec.id.is_some() && h.id == rec.id
                            || rec.id.is_none() && h.label == rec.label)
                }))
            }
            None => 0,
        };
        let mut m = Map::new();
        m.insert(
            "selector".into(),
            clip(scope, &crate::select::selector_for(s, n)).into(),
        );
        m.insert("basis".into(), b.into());
        m.insert("ref".into(), n.reference.clone().into());
        m.insert("role".into(), clip_plain(&display_role(n)).into());
        if let Some(l) = display_label(n) {
            m.insert("label".into(), clip(scope, &l).into());
        }
        match found.iter_mut().find(|f| f.2 == w) {
            Some(f) if basis_rank(b) < f.0 => {
                *f = (basis_rank(b), region_rank, w, Value::Object(m))
            }
            Some(_) => {}
            None => found.push((basis_rank(b), region_rank, w, Value::Object(m))),
        }
    }
    found.sort_by_key(|f| (f.0, f.1, f.2));
    found.into_iter().map(|f| f.3).collect()
}

/// Builds the full (uncapped) report.
pub fn build(input: &Input, scope: &Scope) -> Value {
    let snapshot = match &input.screen {
        ScreenEvidence::Available { snapshot, .. } => Some(*snapshot),
        _ => None,
    };
    let screen = match &input.screen {
        ScreenEvidence::Available {
            snapshot,
            generation,
        } => {
            let (refs, truncated) = screen_refs(snapshot, scope);
            let mut m = Map::new();
            m.insert("state".into(), "available".into());
            m.insert("refsGeneration".into(), (*generation).into());
            m.insert("refs".into(), Value::Array(refs));
            if truncated {
                m.insert("truncated".into(), true.into());
            }
            Value::Object(m)
        }
        ScreenEvidence::Unavailable { reason, hint } => json!({
            "state": "unavailable", "reason": clip(scope, reason), "hint": clip(scope, hint),
        }),
    };
    let sugg = snapshot
        .map(|s| suggestions(input, s, scope))
        .unwrap_or_default();
    let hint = repair_hint(input.kind, input.evidence, snapshot);
    let n = input.step;
    let from = if hint == "record-and-heal" { n + 1 } else { n };
    let mut resume = Map::new();
    resume.insert("allowed".into(), true.into());
    resume.insert("from".into(), from.into());
    resume.insert("planDigest".into(), input.plan_digest.clone().into());
    if matches!(hint, "caution" | "manual") && (input.session_exists || n < input.total_steps) {
        resume.insert("alternateFrom".into(), (n + 1).into());
    }
    let mut cause = Map::new();
    cause.insert("code".into(), input.cause_code.clone().into());
    cause.insert("message".into(), clip(scope, &input.cause_message).into());
    if let Some(h) = &input.cause_hint {
        cause.insert("hint".into(), clip(scope, h).into());
    }
    let mut d = Map::new();
    d.insert("version".into(), 1.into());
    d.insert("kind".into(), input.kind.into());
    d.insert(
        "step".into(),
        json!({"index": n, "source": {"path": clip_plain(&input.path), "line": input.line}}),
    );
    d.insert("action".into(), clip(scope, &input.action).into());
    d.insert("cause".into(), Value::Object(cause));
    d.insert("screen".into(), screen);
    let count = sugg.len();
    d.insert("suggestions".into(), Value::Array(sugg));
    d.insert("suggestionCount".into(), count.into());
    d.insert("resume".into(), Value::Object(resume));
    d.insert("repairHint".into(), hint.into());
    if let (Some(b), Some(e)) = (input.binding, input.evidence) {
        let bs = input.binding_snapshot;
        let mut tb = Map::new();
        tb.insert("classification".into(), b.kind.into());
        if let Some(c) = b.match_count {
            tb.insert("matchCount".into(), c.into());
        }
        let mut rec = Map::new();
        if let Some(id) = &e.id {
            rec.insert("id".into(), clip(scope, id).into());
        }
        rec.insert("role".into(), clip_plain(&e.role).into());
        if let Some(l) = &e.label {
            rec.insert("label".into(), clip(scope, l).into());
        }
        tb.insert("recorded".into(), Value::Object(rec));
        if let (Some(o), Some(s)) = (b.observed, bs) {
            let id = identity(&s.nodes[o]);
            let mut m = Map::new();
            if let Some(i) = id.id {
                m.insert("id".into(), clip(scope, &i).into());
            }
            m.insert("role".into(), clip_plain(&id.role).into());
            if let Some(l) = id.label {
                m.insert("label".into(), clip(scope, &l).into());
            }
            tb.insert("observed".into(), Value::Object(m));
        }
        tb.insert(
            "mismatches".into(),
            b.mismatches
                .iter()
                .take(5)
                .map(|m| Value::from(clip(scope, m)))
                .collect(),
        );
        tb.insert(
            "candidates".into(),
            b.candidates
                .iter()
                .take(5)
                .filter_map(|&i| bs.map(|s| ref_entry(&s.nodes[i], scope)))
                .collect(),
        );
        d.insert("targetBinding".into(), Value::Object(tb));
    }
    Value::Object(d)
}

/// Applies a response level's caps (`digest`, `default`, `full`). When the report is still over
/// budget, the screen is replaced and the full report is handed to `write_overflow`, which
/// returns where it was written.
pub fn cap(
    full: &Value,
    level: &str,
    write_overflow: &mut dyn FnMut(&Value) -> Option<String>,
) -> Value {
    let (budget, max_refs, max_sugg) = match level {
        "digest" => (DIGEST_BYTES, 8, 0),
        "full" => (FULL_BYTES, 20, 5),
        _ => (DEFAULT_BYTES, 20, 5),
    };
    let mut d = full.clone();
    if let Some(refs) = d.pointer_mut("/screen/refs").and_then(Value::as_array_mut) {
        if refs.len() > max_refs {
            refs.truncate(max_refs);
            d["screen"]["truncated"] = true.into();
        }
    }
    if let Some(s) = d.get_mut("suggestions").and_then(Value::as_array_mut) {
        s.truncate(max_sugg);
    }
    let size = serde_json::to_vec(&d).map(|v| v.len()).unwrap_or(0);
    if size <= budget {
        return d;
    }
    let omitted = size - budget;
    d["screen"] = json!({
        "state": "unavailable",
        "reason": "omitted-for-size",
        "hint": "The screen digest and suggestions were omitted to stay within the report byte budget. See overflow.artifactPath for the complete report.",
    });
    d["suggestions"] = json!([]);
    match write_overflow(full) {
        Some(path) => {
            d["overflow"] = json!({"omittedBytes": omitted, "artifactPath": path});
        }
        None => {
            d["artifactUnavailable"] = true.into();
        }
    }
    d
}

fn resume_line(cmd: &str, from: u64, digest: &str) -> String {
    format!("`{cmd} --from {from} --plan-digest {digest}`")
}

fn guidance(hint: &str, resume: &Value, cmd: &str) -> Option<String> {
    let allowed = resume["allowed"].as_bool() == Some(true);
    let from = resume["from"].as_u64().unwrap_or(1);
    let digest = resume["planDigest"].as_str().unwrap_or("");
    let alt = resume["alternateFrom"].as_u64();
    let not_resumable =
        "This step cannot currently be resumed automatically — run a fresh full replay instead.";
    let two_way = |lead: &str| {
        if !allowed {
            return format!("{lead} {not_resumable}");
        }
        let first = format!(
            "if you fixed app state by hand: {}",
            resume_line(cmd, from, digest)
        );
        match alt {
            Some(a) => format!(
                "{lead} {first}; if you performed the step's intent yourself: {}.",
                resume_line(cmd, a, digest)
            ),
            None => format!("{lead} {first}."),
        }
    };
    Some(match hint {
        "record-and-heal" if allowed => format!(
            "perform this step by hand on the device (the recorded container is on screen), then {}.",
            resume_line(cmd, from, digest)
        ),
        "record-and-heal" => format!("perform this step by hand on the device. {not_resumable}"),
        "state-repair" if allowed => format!(
            "bring the app to the state this step expects, then {} to re-run it.",
            resume_line(cmd, from, digest)
        ),
        "state-repair" => format!("bring the app to the state this step expects. {not_resumable}"),
        "caution" => two_way("something already matches the recorded selector; a blind re-press may repeat the mistake."),
        "manual" => two_way("no safe automated repair could be proven; inspect the screen and repair by hand."),
        _ => return None,
    })
}

fn describe_ref(v: &Value) -> String {
    let label = v["label"]
        .as_str()
        .map(|l| format!(" \"{l}\""))
        .unwrap_or_default();
    format!(
        "  @{} [{}]{label}",
        v["ref"].as_str().unwrap_or("?"),
        v["role"].as_str().unwrap_or("?")
    )
}

/// The text rendering (replay-divergence.js `p`), with resume commands spelled for `ad`.
pub fn render(d: &Value, resume_command: &str) -> String {
    let mut lines = Vec::new();
    let step = &d["step"];
    let src = &step["source"];
    lines.push(format!(
        "Divergence at step {} ({}:{})",
        step["index"],
        src["path"].as_str().unwrap_or("?"),
        src["line"]
    ));
    let kind = d["kind"].as_str().unwrap_or("");
    if kind != "action-failure" {
        if let Some(tb) = d.get("targetBinding") {
            let mc = tb["matchCount"]
                .as_u64()
                .map(|c| format!(" (matchCount {c})"))
                .unwrap_or_default();
            lines.push(format!(
                "Target binding: {kind}{mc} — recorded target evidence did not verify."
            ));
            if let Some(m) = tb["mismatches"].as_array().filter(|m| !m.is_empty()) {
                let parts: Vec<&str> = m.iter().take(5).filter_map(Value::as_str).collect();
                lines.push(format!("  mismatches: {}", parts.join("; ")));
            }
            if let Some(c) = tb["candidates"].as_array().filter(|c| !c.is_empty()) {
                lines.push(format!(
                    "  {} candidate(s) shared the recorded identity:",
                    c.len()
                ));
                for x in c.iter().take(5) {
                    lines.push(format!("    {}", describe_ref(x)));
                }
            }
        }
    }
    if let Some(h) = d["repairHint"].as_str() {
        match guidance(h, &d["resume"], resume_command) {
            Some(g) => lines.push(format!("Repair hint: {h} — {g}")),
            None => lines.push(format!("Repair hint: {h}")),
        }
    }
    let screen = &d["screen"];
    match screen["state"].as_str() {
        Some("available") => {
            let refs = screen["refs"].as_array().cloned().unwrap_or_default();
            lines.push(format!(
                "Screen: {} actionable ref(s) captured (refsGeneration {}).",
                refs.len(),
                screen["refsGeneration"]
            ));
            for r in refs.iter().take(8) {
                lines.push(describe_ref(r));
            }
            if refs.len() > 8 {
                lines.push(format!("  ... {} more", refs.len() - 8));
            }
        }
        Some("unavailable") => {
            let hint = screen["hint"]
                .as_str()
                .filter(|h| !h.is_empty())
                .map(|h| format!(" {h}"))
                .unwrap_or_default();
            lines.push(format!(
                "Screen: unavailable ({}).{hint}",
                screen["reason"].as_str().unwrap_or("unknown")
            ));
        }
        _ => {}
    }
    let sugg = d["suggestions"].as_array().cloned().unwrap_or_default();
    if !sugg.is_empty() {
        lines.push("Suggestions:".into());
        for s in sugg.iter().take(5) {
            let label = s["label"]
                .as_str()
                .map(|l| format!(" \"{l}\""))
                .unwrap_or_default();
            lines.push(format!(
                "  - [{}]{label} {}",
                s["basis"].as_str().unwrap_or("?"),
                s["selector"].as_str().unwrap_or("?")
            ));
        }
    } else if let Some(c) = d["suggestionCount"].as_u64().filter(|c| *c > 0) {
        lines.push(format!(
            "Suggestions: {c} available (omitted at this report level; rerun with --json for the full report)."
        ));
    }
    if let Some(p) = d.pointer("/overflow/artifactPath").and_then(Value::as_str) {
        lines.push(format!("Full report written to {p}."));
    } else if d.get("artifactUnavailable") == Some(&Value::Bool(true)) {
        lines.push(
            "Full report exceeded the report budget and the overflow artifact could not be written."
                .into(),
        );
    }
    lines.join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn truncation_marks_the_cut() {
        let s = "é".repeat(200);
        let t = truncate(&s, 256);
        assert!(t.len() <= 256);
        assert!(t.ends_with("…<truncated>"));
        assert_eq!(truncate("short", 256), "short");
    }

    #[test]
    fn over_budget_reports_overflow() {
        let big = json!({
            "version": 1, "kind": "action-failure",
            "screen": {"state": "available", "refsGeneration": 1,
                "refs": (0..20).map(|i| json!({"ref": format!("e{i}"), "role": "x".repeat(250), "label": "y".repeat(1500)})).collect::<Vec<_>>()},
            "suggestions": [], "suggestionCount": 0,
        });
        let mut written = None;
        let capped = cap(&big, "digest", &mut |v| {
            written = Some(v.clone());
            Some("divergence-full.json".into())
        });
        assert_eq!(capped["screen"]["reason"], "omitted-for-size");
        assert_eq!(capped["overflow"]["artifactPath"], "divergence-full.json");
        assert!(written.is_some());
    }
}
