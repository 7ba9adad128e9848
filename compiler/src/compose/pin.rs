//! The `# agent-device:fragment-ref-v1 {"callSiteId":"…","digest":"sha256:…"}` pin: its fields
//! and where each value is written (for diagnostics and the fix that rewrites the digest).

use ad_grammar::Span;

use super::lines::PIN_PREFIX;

#[derive(Debug, Default)]
pub struct Pin {
    /// The value and the span of its JSON string (quotes included).
    pub call_site_id: Option<(String, Span)>,
    pub digest: Option<(String, Span)>,
    /// Why the payload could not be read.
    pub error: Option<String>,
}

/// Reads the pin line `content` starting at byte `offset` of its file.
pub fn read(content: &str, offset: usize) -> Pin {
    let payload = content[PIN_PREFIX.len()..].trim_start();
    let payload_at = offset + content.len() - payload.len();
    let value: serde_json::Value = match serde_json::from_str(payload) {
        Ok(v) => v,
        Err(e) => {
            return Pin {
                error: Some(format!("the pin's payload is not JSON: {e}")),
                ..Pin::default()
            }
        }
    };
    let Some(obj) = value.as_object() else {
        return Pin {
            error: Some("the pin's payload must be a JSON object".into()),
            ..Pin::default()
        };
    };
    let field = |key: &str| -> Option<(String, Span)> {
        let v = obj.get(key)?.as_str()?.to_string();
        Some((v, string_span(payload, payload_at, key)?))
    };
    Pin {
        call_site_id: field("callSiteId"),
        digest: field("digest"),
        error: None,
    }
}

/// The span of the string value of `"key":` in `payload` (written by a person or the writer:
/// the first occurrence of the key followed by a colon).
fn string_span(payload: &str, at: usize, key: &str) -> Option<Span> {
    let needle = format!("\"{key}\"");
    let k = payload.find(&needle)? + needle.len();
    let rest = &payload[k..];
    let colon = rest.find(':')?;
    let after = &rest[colon + 1..];
    let q = after.find('"')?;
    let start = k + colon + 1 + q;
    let bytes = payload.as_bytes();
    let mut i = start + 1;
    while i < payload.len() {
        match bytes[i] {
            b'\\' => i += 2,
            b'"' => return Some(Span::new(at + start, at + i + 1)),
            _ => i += 1,
        }
    }
    None
}

/// `sha256:` and 64 lowercase hex digits.
pub fn well_formed_digest(d: &str) -> bool {
    d.strip_prefix("sha256:").is_some_and(|h| {
        h.len() == 64
            && h.bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
    })
}
