//! `target-v1` / `targets-v1` evidence: the recognition regexes and the field rules of
//! agent-device's annotation serde, with its exact error messages.

use serde::Serialize;
use serde_json::Value;

use crate::json::{parse_js, JsValue};
use unicode_normalization::UnicodeNormalization;

use crate::text::is_js_whitespace;

/// Per-target payload cap (UTF-8 bytes of the trimmed JSON text).
pub const TARGET_PAYLOAD_CAP: usize = 4096;
/// Whole `targets-v1` payload cap.
pub const TARGETS_PAYLOAD_CAP: usize = 8320;
/// Per-string field cap.
pub const FIELD_CAP: usize = 256;
/// Maximum ancestry entries.
pub const ANCESTRY_CAP: usize = 8;

// Always stored boxed (`Annotation::evidence`), so the variants' size difference costs nothing.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Evidence {
    Single(TargetEvidence),
    Dual(DualEvidence),
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DualEvidence {
    pub source: TargetEvidence,
    pub destination: TargetEvidence,
}

/// Canonical field order is the writer's: id, role, label, ancestry, sibling, viewportOrder,
/// scrollRegion, rect, verification.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TargetEvidence {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    pub role: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    pub ancestry: Vec<AncestryEntry>,
    pub sibling: u64,
    pub viewport_order: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scroll_region: Option<ScrollRegion>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rect: Option<Rect>,
    pub verification: VerificationState,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AncestryEntry {
    pub role: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ScrollRegion {
    pub role: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Rect {
    pub x: f64,
    pub y: f64,
    pub width: f64,
    pub height: f64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum VerificationState {
    Verified,
    Unverifiable,
}

/// A rejected payload: agent-device's message and the JSON field path it names (if any).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EvidenceError {
    pub message: String,
    /// e.g. `ancestry[2].role`; empty for whole-payload errors.
    pub field: String,
}

fn fail<T>(message: String, field: &str) -> Result<T, EvidenceError> {
    Err(EvidenceError {
        message,
        field: field.to_string(),
    })
}

/// Matches `^#\s*agent-device:<marker>(\d+)(?:\s+(\S.*))?$` on a trimmed comment line, where `.`
/// excludes ECMAScript line terminators. Returns (version digits range, payload range).
pub fn match_marker(line: &str, marker: &str) -> Option<MarkerMatch> {
    let rest = line.strip_prefix('#')?;
    let after_hash = 1 + rest.len() - rest.trim_start_matches(is_js_whitespace).len();
    let tail = line[after_hash..]
        .strip_prefix("agent-device:")?
        .strip_prefix(marker)?;
    let digits_start = line.len() - tail.len();
    let ndigits = tail.bytes().take_while(u8::is_ascii_digit).count();
    if ndigits == 0 {
        return None;
    }
    let word_start = after_hash;
    let digits_end = digits_start + ndigits;
    let after = &line[digits_end..];
    if after.is_empty() {
        return Some(MarkerMatch {
            word: word_start..digits_end,
            version: digits_start..digits_end,
            payload: None,
        });
    }
    let payload_rel = after.len() - after.trim_start_matches(is_js_whitespace).len();
    if payload_rel == 0 {
        return None; // `target-v1x`: the regex needs whitespace after the digits
    }
    let payload = &after[payload_rel..];
    if payload.is_empty() || payload.contains(['\r', '\n', '\u{2028}', '\u{2029}']) {
        return None;
    }
    let start = digits_end + payload_rel;
    Some(MarkerMatch {
        word: word_start..digits_end,
        version: digits_start..digits_end,
        payload: Some(start..line.len()),
    })
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MarkerMatch {
    /// `agent-device:target-v1`.
    pub word: std::ops::Range<usize>,
    pub version: std::ops::Range<usize>,
    pub payload: Option<std::ops::Range<usize>>,
}

impl MarkerMatch {
    /// `Number(digits) === 1`.
    pub fn is_v1(&self, line: &str) -> bool {
        crate::text::js_number(&line[self.version.clone()]) == 1.0
    }
}

/// `targets-v1` payload → both endpoints.
pub fn parse_targets(payload: &str) -> Result<DualEvidence, EvidenceError> {
    if payload.len() > TARGETS_PAYLOAD_CAP {
        return fail(
            format!("targets-v1 annotation exceeds the {TARGETS_PAYLOAD_CAP}-byte payload cap."),
            "",
        );
    }
    let Some(value) = parse_js(payload) else {
        return fail("targets-v1 annotation is not valid JSON.".into(), "");
    };
    if !matches!(value, JsValue::Object(_)) {
        return fail("targets-v1 annotation must be a JSON object.".into(), "");
    }
    let (Some(source), Some(destination)) = (value.get("source"), value.get("destination")) else {
        return fail(
            "targets-v1 annotation requires source and destination evidence.".into(),
            "",
        );
    };
    let prefix = |side: &str, e: EvidenceError| EvidenceError {
        message: e.message,
        field: if e.field.is_empty() {
            side.to_string()
        } else {
            format!("{side}.{}", e.field)
        },
    };
    // The reference re-serializes each endpoint and applies the target-v1 rules to that text.
    let source = parse_target(&source.stringify()).map_err(|e| prefix("source", e))?;
    let destination =
        parse_target(&destination.stringify()).map_err(|e| prefix("destination", e))?;
    Ok(DualEvidence {
        source,
        destination,
    })
}

/// `target-v1` payload → typed evidence.
pub fn parse_target(payload: &str) -> Result<TargetEvidence, EvidenceError> {
    if payload.len() > TARGET_PAYLOAD_CAP {
        return fail(
            format!("target-v1 annotation exceeds the {TARGET_PAYLOAD_CAP}-byte payload cap."),
            "",
        );
    }
    let Some(value) = parse_js(payload) else {
        return fail("target-v1 annotation is not valid JSON.".into(), "");
    };
    if !matches!(value, JsValue::Object(_)) {
        return fail("target-v1 annotation must be a JSON object.".into(), "");
    }
    let map = &value;
    // Field order of the checks is the reference's: role, id, label, ancestry, sibling,
    // viewportOrder, scrollRegion, rect, verification.
    let role = required_string(map.get("role"), "role")?;
    let id = optional_id(map.get("id"), "id")?;
    let label = optional_label(map.get("label"), "label")?;
    let ancestry = ancestry(map.get("ancestry"))?;
    let sibling = non_negative_integer(map.get("sibling"), "sibling")?;
    let viewport_order = non_negative_integer(map.get("viewportOrder"), "viewportOrder")?;
    let scroll_region = scroll_region(map.get("scrollRegion"))?;
    let rect = rect(map.get("rect"))?;
    let verification = match map.get("verification") {
        Some(JsValue::String(s)) if s == "verified" => VerificationState::Verified,
        Some(JsValue::String(s)) if s == "unverifiable" => VerificationState::Unverifiable,
        _ => {
            return fail(
                "target-v1 \"verification\" must be \"verified\" or \"unverifiable\".".into(),
                "verification",
            )
        }
    };
    Ok(TargetEvidence {
        id,
        role,
        label,
        ancestry,
        sibling,
        viewport_order,
        scroll_region,
        rect,
        verification,
    })
}

fn nfc(s: &str) -> String {
    // ASCII text is already in NFC; most evidence strings are ASCII.
    if s.is_ascii()
        || unicode_normalization::is_nfc_quick(s.chars())
            == unicode_normalization::IsNormalized::Yes
    {
        return s.to_string();
    }
    s.nfc().collect()
}

fn capped(s: String, field: &str) -> Result<String, EvidenceError> {
    if s.len() > FIELD_CAP {
        return fail(
            format!("target-v1 \"{field}\" exceeds the {FIELD_CAP}-byte field cap."),
            field,
        );
    }
    Ok(s)
}

fn as_string<'a>(v: &'a JsValue, field: &str) -> Result<&'a str, EvidenceError> {
    match v {
        JsValue::String(s) => Ok(s),
        _ => fail(format!("target-v1 \"{field}\" must be a string."), field),
    }
}

fn required_string(v: Option<&JsValue>, field: &str) -> Result<String, EvidenceError> {
    let Some(v) = v else {
        return fail(format!("target-v1 \"{field}\" is required."), field);
    };
    capped(nfc(as_string(v, field)?), field)
}

fn optional_id(v: Option<&JsValue>, field: &str) -> Result<Option<String>, EvidenceError> {
    let Some(v) = v else { return Ok(None) };
    let s = nfc(as_string(v, field)?);
    if s.is_empty() {
        return Ok(None);
    }
    capped(s, field).map(Some)
}

/// NFC, trimmed, whitespace runs collapsed to one space; empty → absent.
pub fn normalize_label(s: &str) -> String {
    let n = nfc(s);
    let mut out = String::with_capacity(n.len());
    for word in n.split(is_js_whitespace).filter(|w| !w.is_empty()) {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(word);
    }
    out
}

fn optional_label(v: Option<&JsValue>, field: &str) -> Result<Option<String>, EvidenceError> {
    let Some(v) = v else { return Ok(None) };
    let s = normalize_label(as_string(v, field)?);
    if s.is_empty() {
        return Ok(None);
    }
    capped(s, field).map(Some)
}

fn ancestry(v: Option<&JsValue>) -> Result<Vec<AncestryEntry>, EvidenceError> {
    let Some(v) = v else { return Ok(Vec::new()) };
    let JsValue::Array(items) = v else {
        return fail(
            "target-v1 \"ancestry\" must be an array.".into(),
            "ancestry",
        );
    };
    if items.len() > ANCESTRY_CAP {
        return fail(
            format!("target-v1 \"ancestry\" exceeds the {ANCESTRY_CAP}-entry cap."),
            "ancestry",
        );
    }
    items
        .iter()
        .enumerate()
        .map(|(i, item)| {
            let m = item;
            let JsValue::Object(_) = item else {
                return fail(
                    format!("target-v1 \"ancestry[{i}]\" must be an object."),
                    &format!("ancestry[{i}]"),
                );
            };
            Ok(AncestryEntry {
                role: required_string(m.get("role"), &format!("ancestry[{i}].role"))?,
                label: optional_label(m.get("label"), &format!("ancestry[{i}].label"))?,
            })
        })
        .collect()
}

fn non_negative_integer(v: Option<&JsValue>, field: &str) -> Result<u64, EvidenceError> {
    let Some(v) = v else { return Ok(0) };
    let n = match v {
        JsValue::Number(n) => Some(*n),
        _ => None,
    };
    let n = n.filter(|n| n.fract() == 0.0 && *n >= 0.0 && *n <= 9_007_199_254_740_991.0);
    match n {
        Some(n) => Ok(n as u64),
        None => fail(
            format!("target-v1 \"{field}\" must be a non-negative integer."),
            field,
        ),
    }
}

fn object<'a>(v: &'a JsValue, field: &str) -> Result<&'a JsValue, EvidenceError> {
    match v {
        JsValue::Object(_) => Ok(v),
        _ => fail(format!("target-v1 \"{field}\" must be an object."), field),
    }
}

fn scroll_region(v: Option<&JsValue>) -> Result<Option<ScrollRegion>, EvidenceError> {
    let Some(v) = v else { return Ok(None) };
    let m = object(v, "scrollRegion")?;
    Ok(Some(ScrollRegion {
        role: required_string(m.get("role"), "scrollRegion.role")?,
        // The reference names this field plain "id" in its messages.
        id: optional_id(m.get("id"), "id")?,
        label: optional_label(m.get("label"), "scrollRegion.label")?,
    }))
}

fn rect(v: Option<&JsValue>) -> Result<Option<Rect>, EvidenceError> {
    let Some(v) = v else { return Ok(None) };
    let m = object(v, "rect")?;
    let num = |k: &str| -> Result<f64, EvidenceError> {
        match m.get(k) {
            Some(JsValue::Number(n)) if n.is_finite() => Ok(*n),
            _ => fail(
                format!("target-v1 \"rect.{k}\" must be a finite number."),
                &format!("rect.{k}"),
            ),
        }
    };
    Ok(Some(Rect {
        x: num("x")?,
        y: num("y")?,
        width: num("width")?,
        height: num("height")?,
    }))
}

impl TargetEvidence {
    /// The writer's canonical JSON text for this evidence.
    pub fn to_canonical_json(&self) -> String {
        crate::json::stringify(&self.to_value(), false)
    }
    /// As a JSON value with JavaScript number semantics (integral floats print as integers).
    pub fn to_value(&self) -> Value {
        let mut v = serde_json::to_value(self).expect("evidence serializes");
        if let (Some(rect), Some(obj)) =
            (self.rect, v.get_mut("rect").and_then(Value::as_object_mut))
        {
            for (k, n) in [
                ("x", rect.x),
                ("y", rect.y),
                ("width", rect.width),
                ("height", rect.height),
            ] {
                obj.insert(k.into(), crate::json::js_number_value(n));
            }
        }
        v
    }
}

impl Evidence {
    pub fn to_value(&self) -> Value {
        match self {
            Evidence::Single(t) => t.to_value(),
            Evidence::Dual(d) => serde_json::json!({
                "source": d.source.to_value(),
                "destination": d.destination.to_value(),
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn marker_regex_semantics() {
        let m = match_marker("#agent-device:target-v01 {}", "target-v").unwrap();
        assert!(m.is_v1("#agent-device:target-v01 {}"));
        assert!(match_marker("# agent-device:target-v1{}", "target-v").is_none());
        assert!(match_marker("# agent-device:target-v1 {\"a\":\r1}", "target-v").is_none());
        assert!(match_marker("# agent-device:target-v1", "target-v")
            .unwrap()
            .payload
            .is_none());
        assert!(match_marker("# agent-device:targets-v1 {}", "target-v").is_none());
    }

    #[test]
    fn fields_follow_reference_rules() {
        let e = parse_target(r#"{"role":"  b ","label":"  a   b  ","id":"","x":1,"verification":"verified","sibling":2.0}"#)
            .unwrap();
        assert_eq!(e.role, "  b ");
        assert_eq!(e.label.as_deref(), Some("a b"));
        assert_eq!(e.id, None);
        assert_eq!(e.sibling, 2);
        let err =
            parse_target(r#"{"role":"b","ancestry":[{"label":"x"}],"verification":"verified"}"#)
                .unwrap_err();
        assert_eq!(err.message, "target-v1 \"ancestry[0].role\" is required.");
    }
}
