//! The `# agent-device:fragment-ref-v1 {"callSiteId":"…","digest":"sha256:…"}` pin of an
//! `include` (ADR 0020's proposed composition, spec §17): recognised by the parser as its own
//! kind of comment (agent-device 0.21.5 reads it as a comment), read here into its fields and
//! where each value is written (for diagnostics and the fix that rewrites the digest).

use crate::Span;

/// The pin's marker.
pub const PIN_PREFIX: &str = "# agent-device:fragment-ref-v1";

/// Whether a trimmed line is a pin.
pub fn is_pin(content: &str) -> bool {
    content
        .strip_prefix(PIN_PREFIX)
        .is_some_and(|rest| rest.is_empty() || rest.starts_with(char::is_whitespace))
}

#[derive(Debug, Default)]
pub struct FragmentRef {
    /// The value and the span of its JSON string (quotes included).
    pub call_site_id: Option<(String, Span)>,
    pub digest: Option<(String, Span)>,
    /// Why the payload could not be read.
    pub error: Option<String>,
}

/// Reads the pin line `content` starting at byte `offset` of its file.
pub fn read(content: &str, offset: usize) -> FragmentRef {
    let payload = content[PIN_PREFIX.len()..].trim_start();
    let payload_at = offset + content.len() - payload.len();
    let value: serde_json::Value = match serde_json::from_str(payload) {
        Ok(v) => v,
        Err(e) => {
            return FragmentRef {
                error: Some(format!("the pin's payload is not JSON: {e}")),
                ..FragmentRef::default()
            }
        }
    };
    let Some(obj) = value.as_object() else {
        return FragmentRef {
            error: Some("the pin's payload must be a JSON object".into()),
            ..FragmentRef::default()
        };
    };
    let field = |key: &str| -> Option<(String, Span)> {
        let v = obj.get(key)?.as_str()?.to_string();
        Some((v, string_span(payload, payload_at, key)?))
    };
    FragmentRef {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_fields_and_their_spans() {
        let line =
            r#"# agent-device:fragment-ref-v1 {"callSiteId":"lo\"gin","digest":"sha256:ab"}"#;
        let r = read(line, 10);
        let (id, span) = r.call_site_id.unwrap();
        assert_eq!(id, "lo\"gin");
        assert_eq!(&line[span.start() - 10..span.end() - 10], r#""lo\"gin""#);
        assert_eq!(r.digest.unwrap().0, "sha256:ab");
        assert!(read("# agent-device:fragment-ref-v1 [1]", 0)
            .error
            .is_some());
        assert!(is_pin("# agent-device:fragment-ref-v1 {}"));
        assert!(!is_pin("# agent-device:fragment-ref-v10 {}"));
        assert!(well_formed_digest(&format!("sha256:{}", "a".repeat(64))));
        assert!(!well_formed_digest(&format!("sha256:{}", "A".repeat(64))));
    }
}
