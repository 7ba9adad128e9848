//! `target-v1` / `targets-v1` evidence: the recognition regexes and the field rules of
//! agent-device's annotation serde, with its exact error messages.

pub use compact_str::CompactString;
use serde::Serialize;
use serde_json::Value;
use std::sync::Arc;

use crate::json::{parse_js, JsValue, RawKind, RawValue, SpanReader};
use std::borrow::Cow;
use unicode_normalization::UnicodeNormalization;

use crate::text::is_js_whitespace;

mod canonical;

/// Per-target payload cap (UTF-8 bytes of the trimmed JSON text).
pub const TARGET_PAYLOAD_CAP: usize = 4096;
/// Whole `targets-v1` payload cap.
pub const TARGETS_PAYLOAD_CAP: usize = 8320;
/// Per-string field cap.
pub const FIELD_CAP: usize = 256;
/// Maximum ancestry entries.
pub const ANCESTRY_CAP: usize = 8;

/// Shared, not copied: the tree keeps the evidence and every step lowered from the action it
/// annotates holds the same allocation.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Evidence {
    Single(Arc<TargetEvidence>),
    Dual(Arc<DualEvidence>),
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
    pub id: Option<CompactString>,
    pub role: CompactString,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub label: Option<CompactString>,
    pub ancestry: Vec<AncestryEntry>,
    pub sibling: u64,
    pub viewport_order: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    /// Boxed, like `rect`: rare, and every annotation is stored at the size of its struct.
    pub scroll_region: Option<Box<ScrollRegion>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rect: Option<Box<Rect>>,
    pub verification: VerificationState,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AncestryEntry {
    pub role: CompactString,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub label: Option<CompactString>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ScrollRegion {
    pub role: CompactString,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub id: Option<CompactString>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub label: Option<CompactString>,
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
    match_marker_in(line, &[marker], true).map(|(_, m)| m)
}

/// [`match_marker`] with each of `markers` in turn (the index of the first that matches, and its
/// match): the comment's prefix is read once for all of them. `may_break` is false when the
/// parser knows `line` holds no line terminator (no lone `\r`, an ASCII text): it is not searched.
pub(crate) fn match_marker_in(
    line: &str,
    markers: &[&str],
    may_break: bool,
) -> Option<(usize, MarkerMatch)> {
    let rest = line.strip_prefix('#')?;
    let after_hash = 1 + rest.len() - crate::text::js_trim_start(rest).len();
    let words = line[after_hash..].strip_prefix("agent-device:")?;
    markers.iter().enumerate().find_map(|(i, marker)| {
        let tail = words.strip_prefix(marker)?;
        Some((i, marker_match(line, after_hash, tail, may_break)?))
    })
}

/// The rest of a marker match: `tail` is `line` after the marker word (`target-v`), which starts
/// at `word_start`; `may_break` is false when `line` is known to hold no line terminator.
fn marker_match(line: &str, word_start: usize, tail: &str, may_break: bool) -> Option<MarkerMatch> {
    let digits_start = line.len() - tail.len();
    let ndigits = tail.bytes().take_while(u8::is_ascii_digit).count();
    if ndigits == 0 {
        return None;
    }
    let digits_end = digits_start + ndigits;
    let after = &line[digits_end..];
    if after.is_empty() {
        return Some(MarkerMatch {
            word: word_start..digits_end,
            version: digits_start..digits_end,
            payload: None,
        });
    }
    let payload_rel = after.len() - crate::text::js_trim_start(after).len();
    if payload_rel == 0 {
        return None; // `target-v1x`: the regex needs whitespace after the digits
    }
    let payload = &after[payload_rel..];
    if payload.is_empty() || (may_break && has_line_terminator(payload)) {
        return None;
    }
    let start = digits_end + payload_rel;
    Some(MarkerMatch {
        word: word_start..digits_end,
        version: digits_start..digits_end,
        payload: Some(start..line.len()),
    })
}

/// Whether `s` holds an ECMAScript line terminator (`\r`, `\n`, U+2028, U+2029): a SIMD search
/// for `\r`, `\n` and 0xE2, the lead byte of U+2028 and U+2029 (E2 80 A8, E2 80 A9).
fn has_line_terminator(s: &str) -> bool {
    let b = s.as_bytes();
    memchr::memchr3_iter(b'\r', b'\n', 0xE2, b).any(|i| {
        b[i] != 0xE2 || (b.get(i + 1) == Some(&0x80) && matches!(b.get(i + 2), Some(0xA8 | 0xA9)))
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
        let digits = &line[self.version.clone()];
        digits == "1" || crate::text::js_number(digits) == 1.0
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

/// The slot of each target-v1 field, in the order the reference checks them.
fn target_key(name: &[u8]) -> Option<usize> {
    Some(match name {
        b"role" => 0,
        b"id" => 1,
        b"label" => 2,
        b"ancestry" => 3,
        b"sibling" => 4,
        b"viewportOrder" => 5,
        b"scrollRegion" => 6,
        b"rect" => 7,
        b"verification" => 8,
        _ => return None,
    })
}

/// `target-v1` payload → typed evidence.
///
/// A payload in the writer's own shape is read in one pass (`canonical.rs`). Any other: one
/// validating pass over the JSON records where each known field's (last) value is; only those
/// values are then decoded, in the reference's check order, so messages and precedence are those
/// of `JSON.parse` followed by the field rules.
pub fn parse_target(payload: &str) -> Result<TargetEvidence, EvidenceError> {
    if payload.len() > TARGET_PAYLOAD_CAP {
        return fail(
            format!("target-v1 annotation exceeds the {TARGET_PAYLOAD_CAP}-byte payload cap."),
            "",
        );
    }
    if let Some(evidence) = canonical::read(payload) {
        return Ok(evidence);
    }
    let mut fields = [None; 9];
    let Some(kind) = SpanReader::document(payload, target_key, &mut fields) else {
        return fail("target-v1 annotation is not valid JSON.".into(), "");
    };
    if kind != RawKind::Object {
        return fail("target-v1 annotation must be a JSON object.".into(), "");
    }
    let [role, id, label, ancestry, sibling, viewport_order, scroll_region, rect, verification] =
        fields;
    let t = payload;
    let role = required_string(t, role, Field::Plain("role"))?;
    let id = optional_id(t, id, Field::Plain("id"))?;
    let label = optional_label(t, label, Field::Plain("label"))?;
    let ancestry = read_ancestry(t, ancestry)?;
    let sibling = non_negative_integer(t, sibling, "sibling")?;
    let viewport_order = non_negative_integer(t, viewport_order, "viewportOrder")?;
    let scroll_region = read_scroll_region(t, scroll_region)?;
    let rect = read_rect(t, rect)?;
    let verification = match verification.filter(|v| v.kind == RawKind::String) {
        Some(v) => match &*SpanReader::string(t, v) {
            "verified" => Some(VerificationState::Verified),
            "unverifiable" => Some(VerificationState::Unverifiable),
            _ => None,
        },
        None => None,
    };
    let Some(verification) = verification else {
        return fail(
            "target-v1 \"verification\" must be \"verified\" or \"unverifiable\".".into(),
            "verification",
        );
    };
    Ok(TargetEvidence {
        id,
        role,
        label,
        ancestry,
        sibling,
        viewport_order,
        scroll_region: scroll_region.map(Box::new),
        rect: rect.map(Box::new),
        verification,
    })
}

/// A field path for messages, built only when a message needs it.
#[derive(Clone, Copy)]
enum Field<'a> {
    Plain(&'a str),
    /// `ancestry[i].<name>`
    Ancestry(usize, &'a str),
}

impl std::fmt::Display for Field<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Field::Plain(name) => f.write_str(name),
            Field::Ancestry(i, name) => write!(f, "ancestry[{i}].{name}"),
        }
    }
}

fn fail_at<T>(message: String, field: Field) -> Result<T, EvidenceError> {
    Err(EvidenceError {
        message,
        field: field.to_string(),
    })
}

fn string_value<'a>(
    text: &'a str,
    v: RawValue,
    field: Field,
) -> Result<Cow<'a, str>, EvidenceError> {
    if v.kind != RawKind::String {
        return fail_at(format!("target-v1 \"{field}\" must be a string."), field);
    }
    Ok(SpanReader::string(text, v))
}

fn capped_at(s: CompactString, field: Field) -> Result<CompactString, EvidenceError> {
    if s.len() > FIELD_CAP {
        return fail_at(
            format!("target-v1 \"{field}\" exceeds the {FIELD_CAP}-byte field cap."),
            field,
        );
    }
    Ok(s)
}

fn required_string(
    text: &str,
    v: Option<RawValue>,
    field: Field,
) -> Result<CompactString, EvidenceError> {
    let Some(v) = v else {
        return fail_at(format!("target-v1 \"{field}\" is required."), field);
    };
    capped_at(nfc_owned(string_value(text, v, field)?), field)
}

fn optional_id(
    text: &str,
    v: Option<RawValue>,
    field: Field,
) -> Result<Option<CompactString>, EvidenceError> {
    let Some(v) = v else { return Ok(None) };
    let s = nfc_owned(string_value(text, v, field)?);
    if s.is_empty() {
        return Ok(None);
    }
    capped_at(s, field).map(Some)
}

fn optional_label(
    text: &str,
    v: Option<RawValue>,
    field: Field,
) -> Result<Option<CompactString>, EvidenceError> {
    let Some(v) = v else { return Ok(None) };
    let s = normalize_label_owned(string_value(text, v, field)?);
    if s.is_empty() {
        return Ok(None);
    }
    capped_at(s, field).map(Some)
}

fn read_ancestry(text: &str, v: Option<RawValue>) -> Result<Vec<AncestryEntry>, EvidenceError> {
    let Some(v) = v else { return Ok(Vec::new()) };
    if v.kind != RawKind::Array {
        return fail(
            "target-v1 \"ancestry\" must be an array.".into(),
            "ancestry",
        );
    }
    // The cap is checked before any entry: gather at most one entry too many.
    let role_label = |name: &[u8]| match name {
        b"role" => Some(0),
        b"label" => Some(1),
        _ => None,
    };
    let mut items = [None; ANCESTRY_CAP + 1];
    let mut count = 0;
    for (slot, item) in items.iter_mut().zip(SpanReader::items(text, v, role_label)) {
        *slot = Some(item);
        count += 1;
    }
    if count > ANCESTRY_CAP {
        return fail(
            format!("target-v1 \"ancestry\" exceeds the {ANCESTRY_CAP}-entry cap."),
            "ancestry",
        );
    }
    let mut entries = Vec::with_capacity(count);
    for (i, (item, [role, label])) in items.into_iter().map_while(|item| item).enumerate() {
        if item.kind != RawKind::Object {
            return fail(
                format!("target-v1 \"ancestry[{i}]\" must be an object."),
                &format!("ancestry[{i}]"),
            );
        }
        entries.push(AncestryEntry {
            role: required_string(text, role, Field::Ancestry(i, "role"))?,
            label: optional_label(text, label, Field::Ancestry(i, "label"))?,
        });
    }
    Ok(entries)
}

fn non_negative_integer(
    text: &str,
    v: Option<RawValue>,
    field: &str,
) -> Result<u64, EvidenceError> {
    let Some(v) = v else { return Ok(0) };
    let n = (v.kind == RawKind::Number)
        .then(|| SpanReader::number(text, v))
        .filter(|n| n.fract() == 0.0 && *n >= 0.0 && *n <= 9_007_199_254_740_991.0);
    match n {
        Some(n) => Ok(n as u64),
        None => fail(
            format!("target-v1 \"{field}\" must be a non-negative integer."),
            field,
        ),
    }
}

fn read_scroll_region(
    text: &str,
    v: Option<RawValue>,
) -> Result<Option<ScrollRegion>, EvidenceError> {
    let Some(v) = v else { return Ok(None) };
    if v.kind != RawKind::Object {
        return fail(
            "target-v1 \"scrollRegion\" must be an object.".into(),
            "scrollRegion",
        );
    }
    let mut f = [None; 3];
    let key = |name: &[u8]| match name {
        b"role" => Some(0),
        b"id" => Some(1),
        b"label" => Some(2),
        _ => None,
    };
    SpanReader::fields(text, v, key, &mut f);
    Ok(Some(ScrollRegion {
        role: required_string(text, f[0], Field::Plain("scrollRegion.role"))?,
        // The reference names this field plain "id" in its messages.
        id: optional_id(text, f[1], Field::Plain("id"))?,
        label: optional_label(text, f[2], Field::Plain("scrollRegion.label"))?,
    }))
}

fn read_rect(text: &str, v: Option<RawValue>) -> Result<Option<Rect>, EvidenceError> {
    let Some(v) = v else { return Ok(None) };
    if v.kind != RawKind::Object {
        return fail("target-v1 \"rect\" must be an object.".into(), "rect");
    }
    const KEYS: [&str; 4] = ["x", "y", "width", "height"];
    let mut f = [None; 4];
    let key = |name: &[u8]| KEYS.iter().position(|k| k.as_bytes() == name);
    SpanReader::fields(text, v, key, &mut f);
    let mut n = [0.0; 4];
    for (k, (slot, out)) in KEYS.iter().zip(f.iter().zip(n.iter_mut())) {
        match slot
            .filter(|v| v.kind == RawKind::Number)
            .map(|v| SpanReader::number(text, v))
        {
            Some(x) if x.is_finite() => *out = x,
            _ => {
                return fail(
                    format!("target-v1 \"rect.{k}\" must be a finite number."),
                    &format!("rect.{k}"),
                )
            }
        }
    }
    Ok(Some(Rect {
        x: n[0],
        y: n[1],
        width: n[2],
        height: n[3],
    }))
}

/// NFC of `s`, reusing its buffer when it is already normalized (ASCII always is).
/// Short values (most ids, roles and labels) are stored inline: no heap block per field.
fn nfc_owned(s: Cow<str>) -> CompactString {
    if s.is_ascii()
        || unicode_normalization::is_nfc_quick(s.chars())
            == unicode_normalization::IsNormalized::Yes
    {
        return CompactString::new(&s);
    }
    s.nfc().collect()
}

/// NFC, trimmed, whitespace runs collapsed to one space; empty → absent.
pub fn normalize_label(s: &str) -> String {
    normalize_label_owned(Cow::Borrowed(s)).into()
}

fn normalize_label_owned(s: Cow<str>) -> CompactString {
    // Already normalized: ASCII words separated by single spaces (the usual recorded label).
    let mut space = true; // a leading space is not normal
    let mut normal = true;
    for &c in s.as_bytes() {
        if c >= 0x80 || (0x09..=0x0D).contains(&c) || (c == b' ' && space) {
            normal = false;
            break;
        }
        space = c == b' ';
    }
    if (normal && !space) || s.is_empty() {
        return CompactString::new(&s);
    }
    let n = nfc_owned(s);
    let mut out = CompactString::with_capacity(n.len());
    for word in n.split(is_js_whitespace).filter(|w| !w.is_empty()) {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(word);
    }
    out
}

impl TargetEvidence {
    /// The writer's canonical JSON text for this evidence.
    pub fn to_canonical_json(&self) -> String {
        crate::json::stringify(&self.to_value(), false)
    }
    /// As a JSON value with JavaScript number semantics (integral floats print as integers).
    pub fn to_value(&self) -> Value {
        let mut v = serde_json::to_value(self).expect("evidence serializes");
        if let (Some(rect), Some(obj)) = (
            self.rect.as_deref(),
            v.get_mut("rect").and_then(Value::as_object_mut),
        ) {
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

    /// The former implementation over a `JsValue` tree: the reference `parse_target` is tested
    /// against.
    mod reference {
        use super::super::*;
        use crate::json::{parse_js, JsValue};

        fn nfc(s: &str) -> String {
            nfc_owned(Cow::Borrowed(s)).into()
        }

        fn capped(s: String, field: &str) -> Result<CompactString, EvidenceError> {
            if s.len() > FIELD_CAP {
                return fail(
                    format!("target-v1 \"{field}\" exceeds the {FIELD_CAP}-byte field cap."),
                    field,
                );
            }
            Ok(s.into())
        }

        /// `target-v1` payload → typed evidence.
        pub(super) fn parse_target(payload: &str) -> Result<TargetEvidence, EvidenceError> {
            if payload.len() > TARGET_PAYLOAD_CAP {
                return fail(
                    format!(
                        "target-v1 annotation exceeds the {TARGET_PAYLOAD_CAP}-byte payload cap."
                    ),
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
                        "target-v1 \"verification\" must be \"verified\" or \"unverifiable\"."
                            .into(),
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
                scroll_region: scroll_region.map(Box::new),
                rect: rect.map(Box::new),
                verification,
            })
        }

        fn as_string<'a>(v: &'a JsValue, field: &str) -> Result<&'a str, EvidenceError> {
            match v {
                JsValue::String(s) => Ok(s),
                _ => fail(format!("target-v1 \"{field}\" must be a string."), field),
            }
        }

        fn required_string(
            v: Option<&JsValue>,
            field: &str,
        ) -> Result<CompactString, EvidenceError> {
            let Some(v) = v else {
                return fail(format!("target-v1 \"{field}\" is required."), field);
            };
            capped(nfc(as_string(v, field)?), field)
        }

        fn optional_id(
            v: Option<&JsValue>,
            field: &str,
        ) -> Result<Option<CompactString>, EvidenceError> {
            let Some(v) = v else { return Ok(None) };
            let s = nfc(as_string(v, field)?);
            if s.is_empty() {
                return Ok(None);
            }
            capped(s, field).map(Some)
        }

        fn optional_label(
            v: Option<&JsValue>,
            field: &str,
        ) -> Result<Option<CompactString>, EvidenceError> {
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
    }

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
        assert!(match_marker("# agent-device:target-v1 {\"a\":\u{2029}1}", "target-v").is_none());
        assert!(match_marker("# agent-device:target-v1 {\"a\":\u{2027}1}", "target-v").is_some());
        let markers = ["targets-v", "target-v"];
        let first = |line| match_marker_in(line, &markers, true).map(|(i, _)| i);
        assert_eq!(first("# agent-device:targets-v1 {}"), Some(0));
        assert_eq!(first("#agent-device:target-v2"), Some(1));
        assert_eq!(first("# agent-device:targets-v {}"), None);
        assert_eq!(first("# agent-device:target-vx"), None);
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

    /// The shared test generator (SplitMix64, `ad_tests::gen::Rng`).
    use ad_tests::gen::Rng;

    fn gen_value(r: &mut Rng, depth: u32) -> String {
        const KEYS: &[&str] = &[
            "role",
            "id",
            "label",
            "ancestry",
            "sibling",
            "viewportOrder",
            "scrollRegion",
            "rect",
            "verification",
            "x",
            "y",
            "width",
            "height",
            "r\\u006fle",
            "other",
        ];
        const STRINGS: &[&str] = &[
            "\"button\"",
            "\"\"",
            "\" a  b \"",
            "\"verified\"",
            "\"unverifiable\"",
            "\"Verified\"",
            "\"e\\u0301\"",
            "\"\u{e9}\"",
            "\"a\\tb\\nc\"",
            "\"\\ud800\"",
            "\"\\ud83d\\ude00\"",
            "\"a\u{3000}b\u{a0}\"",
            "\"\\u0041\"",
            "\"bad\\x\"",
            "\"\\\"q\\\"\"",
            "\"\u{2028}\"",
        ];
        const NUMBERS: &[&str] = &[
            "0",
            "-0",
            "1",
            "2.0",
            "1.5",
            "-1",
            "1e999",
            "-1e999",
            "9007199254740991",
            "9007199254740992",
            "01",
            "1.",
            "1e",
            "3E+2",
            "0.5e-1",
        ];
        let long = format!("\"{}\"", "w ".repeat(130));
        match r.below(if depth > 3 { 4 } else { 7 }) {
            0 => r.pick(STRINGS).to_string(),
            1 => r.pick(NUMBERS).to_string(),
            2 => r
                .pick(&["true", "false", "null", "nul", "[]", "{}"])
                .to_string(),
            3 if r.below(8) == 0 => long,
            3 => r.pick(STRINGS).to_string(),
            4 | 5 => {
                let n = r.below(5);
                let members: Vec<String> = (0..n)
                    .map(|_| format!("\"{}\":{}", r.pick(KEYS), gen_value(r, depth + 1)))
                    .collect();
                format!("{{{}}}", members.join(*r.pick(&[",", " , ", ",\n"])))
            }
            _ => {
                let n = r.below(11);
                let items: Vec<String> = (0..n).map(|_| gen_value(r, depth + 1)).collect();
                format!("[{}]", items.join(","))
            }
        }
    }

    /// A payload in the writer's shape, or one change away from it: field order, presence,
    /// values at and past each limit, and the spellings that leave the one-pass reader's subset.
    fn gen_recorded(r: &mut Rng) -> String {
        // Half the payloads change nothing but field order and presence.
        let clean = r.chance(50);
        let string = |r: &mut Rng| -> String {
            match if clean { 9 + r.below(5) } else { r.below(14) } {
                0 => "\"\"".into(),
                1 => "\" a  b \"".into(),
                2 => "\"a\\u0041\"".into(),
                3 => "\"\u{e9}\"".into(),
                4 => format!("\"{}\"", "x".repeat(256)),
                5 => format!("\"{}\"", "x".repeat(257)),
                6 => "\"a\tb\"".into(),
                7 => "\"~\u{7f}\"".into(),
                8 => "\" \"".into(),
                _ => format!(
                    "\"{}\"",
                    r.pick(&["Sign in", "button", "form", "Email", "a b"])
                ),
            }
        };
        let number = |r: &mut Rng| -> String {
            if clean {
                return r.pick(&["0", "7", "42", "999999999999999"]).to_string();
            }
            r.pick(&[
                "0",
                "7",
                "42",
                "01",
                "1.0",
                "-1",
                "1e2",
                "999999999999999",
                "1000000000000000",
                "\"1\"",
            ])
            .to_string()
        };
        let entry = |r: &mut Rng| -> String {
            let mut members = Vec::new();
            if !r.chance(10) {
                members.push(format!("\"role\":{}", string(r)));
            }
            if r.chance(70) {
                members.push(format!("\"label\":{}", string(r)));
            }
            if !clean && r.chance(5) {
                members.push(format!(
                    "\"{}\":{}",
                    r.pick(&["role", "label", "id"]),
                    string(r)
                ));
            }
            if r.chance(20) {
                members.reverse();
            }
            format!("{{{}}}", members.join(","))
        };
        let mut members: Vec<String> = Vec::new();
        for (key, percent) in [
            ("id", 70),
            ("role", 95),
            ("label", 80),
            ("ancestry", 80),
            ("sibling", 80),
            ("viewportOrder", 80),
            ("verification", 95),
        ] {
            if !r.chance(percent) {
                continue;
            }
            let value = match key {
                "ancestry" => {
                    let n = *r.pick(if clean {
                        &[0, 1, 1, 2, 8]
                    } else {
                        &[0, 1, 2, 3, 8, 9]
                    });
                    let items: Vec<String> = (0..n).map(|_| entry(r)).collect();
                    format!("[{}]", items.join(","))
                }
                "sibling" | "viewportOrder" => number(r),
                "verification" if clean => {
                    r.pick(&["\"verified\"", "\"unverifiable\""]).to_string()
                }
                "verification" => r
                    .pick(&["\"verified\"", "\"unverifiable\"", "\"Verified\"", "1"])
                    .to_string(),
                _ => string(r),
            };
            members.push(format!("\"{key}\":{value}"));
        }
        match if clean { 3 } else { r.below(12) } {
            0 => members.push(format!(
                "\"{}\":{}",
                r.pick(&["role", "sibling", "x"]),
                number(r)
            )),
            1 => members.push("\"rect\":{\"x\":1,\"y\":2,\"width\":3,\"height\":4}".into()),
            2 if members.len() > 1 => members.swap(0, 1),
            _ => {}
        }
        let separator = if !clean && r.chance(5) { ", " } else { "," };
        let text = format!("{{{}}}", members.join(separator));
        match if clean { 3 } else { r.below(20) } {
            0 => format!("{text} "),
            1 => text[..text.len() - 1].to_string(),
            2 => format!("{text}}}"),
            _ => text,
        }
    }

    #[test]
    fn the_one_pass_reader_agrees_with_the_general_one() {
        let mut r = Rng::new(0x5eed_0fad);
        let (mut read, mut outcomes) = (0, std::collections::BTreeSet::new());
        for _ in 0..40_000 {
            let payload = gen_recorded(&mut r);
            let expected = reference::parse_target(&payload);
            if let Some(fast) = canonical::read(&payload) {
                assert_eq!(Ok(&fast), expected.as_ref(), "payload {payload}");
                read += 1;
            }
            assert_eq!(parse_target(&payload), expected, "payload {payload}");
            outcomes.insert(expected.map_or_else(|e| e.message, |_| "ok".into()));
        }
        // The generator reaches the one-pass reader often, and the general one with most verdicts.
        assert!(read > 5_000, "one-pass reads: {read}");
        assert!(outcomes.len() > 12, "{outcomes:#?}");
    }

    #[test]
    fn agrees_with_the_value_tree_reader() {
        let mut r = Rng::new(0x9e37_79b9_7f4a_7c15);
        let mut outcomes = std::collections::BTreeMap::<String, usize>::new();
        let good = r#"{"id":"a","role":"textfield","label":"Field 1","ancestry":[{"role":"form","label":"Profile"}],"sibling":1,"viewportOrder":0,"scrollRegion":{"role":"list","id":"l"},"rect":{"x":1,"y":2.5,"width":3,"height":4},"verification":"verified"}"#;
        for n in 0..40_000 {
            let payload = match n % 4 {
                // A valid payload with one field replaced or added.
                0 | 1 => {
                    let key = r.pick(&[
                        "role",
                        "id",
                        "label",
                        "ancestry",
                        "sibling",
                        "viewportOrder",
                        "scrollRegion",
                        "rect",
                        "verification",
                    ]);
                    format!(
                        "{},\"{key}\":{}}}",
                        &good[..good.len() - 1],
                        gen_value(&mut r, 1)
                    )
                }
                2 => gen_value(&mut r, 0),
                // Byte-level damage to a valid payload.
                _ => {
                    let mut p = good.to_string();
                    for _ in 0..1 + r.below(3) {
                        let at = r.below(p.len());
                        if p.is_char_boundary(at) {
                            let with = r.pick(&["", "\"", ",", "}", "]", "\\", " ", "1", "{"]);
                            p.replace_range(at..(at + r.below(2)).min(p.len()), with);
                        }
                    }
                    p
                }
            };
            let payload = if r.below(4) == 0 {
                format!(" {payload}\t")
            } else {
                payload
            };
            let ours = parse_target(&payload);
            assert_eq!(ours, reference::parse_target(&payload), "payload {payload}");
            *outcomes
                .entry(ours.map_or_else(|e| e.message, |_| "ok".into()))
                .or_insert(0) += 1;
        }
        // The generator reaches acceptance and most kinds of rejection.
        assert!(
            outcomes.len() > 25 && outcomes["ok"] > 1000,
            "{outcomes:#?}"
        );
    }
}
