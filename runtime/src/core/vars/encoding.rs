//! The encodings in which an injected value can reach a URL or a text, in one table: the
//! redactor matches a value in each of them, writes `<var:NAME:<suffix>>` for it, and puts the
//! value back in that encoding's canonical form.

/// One way a value can be written in text: how one character is read at a position (literal
/// characters are always accepted besides) and how a whole value is written.
pub(super) struct Encoding {
    /// The marker's suffix: `<var:NAME:url>`.
    pub suffix: &'static str,
    /// The character an escape at `i` stands for, and the escape's length in bytes.
    pub decode: fn(&str, usize) -> Option<(char, usize)>,
    /// The value as this encoding writes it (its canonical form).
    pub encode: fn(&str) -> String,
}

/// Every encoding but the value as is, in the order they are tried at a position.
pub(super) const ENCODINGS: &[Encoding] = &[
    // encodeURIComponent and a URL's path or query: `%2F`, `%c3%a9` (either case).
    Encoding {
        suffix: "url",
        decode: percent,
        encode: encode_url,
    },
    // A submitted form (application/x-www-form-urlencoded): `+` for a space, else as above.
    Encoding {
        suffix: "form",
        decode: form,
        encode: encode_form,
    },
    // HTML text and attributes: `&amp;`, `&#38;`, `&#x26;`.
    Encoding {
        suffix: "html",
        decode: entity,
        encode: escape_html,
    },
    // A JSON string: `\"`, `\\`, `\n`, `\u00e9`, surrogate pairs.
    Encoding {
        suffix: "json",
        decode: json_escape,
        encode: encode_json,
    },
];

/// The first bytes of every escape above: where an encoded value can start.
pub(super) const ESCAPE_STARTS: &[u8] = b"%+&\\";

fn hex(b: &[u8]) -> Option<u32> {
    let s = std::str::from_utf8(b).ok()?;
    (!s.is_empty() && s.bytes().all(|c| c.is_ascii_hexdigit()))
        .then(|| u32::from_str_radix(s, 16).ok())
        .flatten()
}

/// `%HH` escapes of one UTF-8 character.
fn percent(s: &str, i: usize) -> Option<(char, usize)> {
    let b = s.as_bytes();
    let byte = |k: usize| -> Option<u8> {
        let at = i + 3 * k;
        (b.get(at) == Some(&b'%'))
            .then(|| hex(b.get(at + 1..at + 3)?).map(|v| v as u8))
            .flatten()
    };
    let first = byte(0)?;
    let width = match first {
        0x00..=0x7F => 1,
        0xC0..=0xDF => 2,
        0xE0..=0xEF => 3,
        0xF0..=0xF7 => 4,
        _ => return None,
    };
    let mut bytes = vec![first];
    for k in 1..width {
        bytes.push(byte(k)?);
    }
    let c = std::str::from_utf8(&bytes).ok()?.chars().next()?;
    Some((c, 3 * width))
}

fn form(s: &str, i: usize) -> Option<(char, usize)> {
    match s.as_bytes().get(i) {
        Some(b'+') => Some((' ', 1)),
        _ => percent(s, i),
    }
}

/// A named (`&amp;`), decimal (`&#38;`) or hexadecimal (`&#x26;`) character reference.
fn entity(s: &str, i: usize) -> Option<(char, usize)> {
    let rest = s.get(i..)?.strip_prefix('&')?;
    let end = rest.bytes().take(12).position(|b| b == b';')?;
    let body = &rest[..end];
    let c = if let Some(n) = body.strip_prefix("#x").or_else(|| body.strip_prefix("#X")) {
        char::from_u32(hex(n.as_bytes())?)?
    } else if let Some(n) = body.strip_prefix('#') {
        (!n.is_empty() && n.bytes().all(|c| c.is_ascii_digit()))
            .then(|| n.parse().ok().and_then(char::from_u32))
            .flatten()?
    } else {
        match body {
            "amp" => '&',
            "lt" => '<',
            "gt" => '>',
            "quot" => '"',
            "apos" => '\'',
            "nbsp" => '\u{a0}',
            _ => return None,
        }
    };
    Some((c, end + 2))
}

/// A JSON string escape: `\"`, `\\`, `\/`, `\b\f\n\r\t`, `\uXXXX` (a surrogate pair whole).
fn json_escape(s: &str, i: usize) -> Option<(char, usize)> {
    let b = s.as_bytes();
    if b.get(i) != Some(&b'\\') {
        return None;
    }
    let simple = match *b.get(i + 1)? {
        b'"' => '"',
        b'\\' => '\\',
        b'/' => '/',
        b'b' => '\u{8}',
        b'f' => '\u{c}',
        b'n' => '\n',
        b'r' => '\r',
        b't' => '\t',
        b'u' => {
            let unit = |at: usize| -> Option<u32> {
                (b.get(at..at + 2)? == b"\\u")
                    .then(|| hex(b.get(at + 2..at + 6)?))
                    .flatten()
            };
            let hi = unit(i)?;
            return match hi {
                0xD800..=0xDBFF => {
                    let lo = unit(i + 6).filter(|lo| (0xDC00..=0xDFFF).contains(lo))?;
                    let c = char::from_u32(0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00))?;
                    Some((c, 12))
                }
                _ => Some((char::from_u32(hi)?, 6)),
            };
        }
        _ => return None,
    };
    Some((simple, 2))
}

/// The character an escape ending at `end` stands for (a word's neighbour written encoded:
/// `%40k9`, `\nk9`, `&#64;k9`).
pub(super) fn decode_before(s: &str, end: usize) -> Option<char> {
    let b = s.as_bytes();
    // Percent escapes: up to the four of one character.
    for k in 1..=4usize {
        let start = end.checked_sub(3 * k)?;
        if percent(s, start).is_some_and(|(_, n)| start + n == end) {
            return percent(s, start).map(|(c, _)| c);
        }
        if b[start] != b'%' {
            break;
        }
    }
    for back in [12usize, 6, 2] {
        if let Some(start) = end.checked_sub(back) {
            if let Some((c, _)) = json_escape(s, start).filter(|(_, n)| start + n == end) {
                return Some(c);
            }
        }
    }
    if b.get(end.checked_sub(1)?) == Some(&b';') {
        let from = end.saturating_sub(12);
        let amp = s.get(from..end)?.rfind('&')? + from;
        return entity(s, amp)
            .filter(|(_, n)| amp + n == end)
            .map(|(c, _)| c);
    }
    None
}

/// The character an escape at `i` stands for, in any encoding.
pub(super) fn decode_at(s: &str, i: usize) -> Option<char> {
    ENCODINGS
        .iter()
        .filter(|e| e.suffix != "form")
        .find_map(|e| (e.decode)(s, i))
        .map(|(c, _)| c)
}

fn percent_encode(v: &str, keep: impl Fn(u8) -> bool, space_plus: bool) -> String {
    let mut out = String::with_capacity(v.len());
    for b in v.bytes() {
        if space_plus && b == b' ' {
            out.push('+');
        } else if keep(b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// What `encodeURIComponent` writes.
fn encode_url(v: &str) -> String {
    percent_encode(
        v,
        |b| b.is_ascii_alphanumeric() || b"-_.!~*'()".contains(&b),
        false,
    )
}

/// What a browser submits for a form field (WHATWG application/x-www-form-urlencoded).
fn encode_form(v: &str) -> String {
    percent_encode(
        v,
        |b| b.is_ascii_alphanumeric() || b"*-._".contains(&b),
        true,
    )
}

/// Text as HTML content or a quoted attribute value; the HTML report escapes with it too, so a
/// value is redacted in exactly the form the report would show it.
pub fn escape_html(v: &str) -> String {
    let mut out = String::with_capacity(v.len());
    for c in v.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// What `JSON.stringify` writes between the quotes.
fn encode_json(v: &str) -> String {
    let quoted = serde_json::to_string(v).unwrap_or_default();
    quoted[1..quoted.len() - 1].to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decodes(e: &str, s: &str) -> Option<(char, usize)> {
        let enc = ENCODINGS.iter().find(|x| x.suffix == e).unwrap();
        (enc.decode)(s, 0)
    }

    #[test]
    fn each_escape_reads_as_its_character() {
        assert_eq!(decodes("url", "%2F"), Some(('/', 3)));
        assert_eq!(decodes("url", "%2f"), Some(('/', 3)));
        assert_eq!(decodes("url", "%C3%A9"), Some(('é', 6)));
        assert_eq!(decodes("url", "%c3%a9"), Some(('é', 6)));
        assert_eq!(decodes("url", "%C3"), None, "half a character");
        assert_eq!(decodes("url", "+"), None);
        assert_eq!(decodes("form", "+"), Some((' ', 1)));
        assert_eq!(decodes("form", "%20"), Some((' ', 3)));
        assert_eq!(decodes("html", "&amp;"), Some(('&', 5)));
        assert_eq!(decodes("html", "&#38;"), Some(('&', 5)));
        assert_eq!(decodes("html", "&#x26;"), Some(('&', 6)));
        assert_eq!(decodes("html", "&#X2f;"), Some(('/', 6)));
        assert_eq!(decodes("html", "&#233;"), Some(('é', 6)));
        assert_eq!(decodes("html", "&nope;"), None);
        assert_eq!(decodes("html", "&amp;éééééé"), Some(('&', 5)));
        assert_eq!(decodes("json", "\\\""), Some(('"', 2)));
        assert_eq!(decodes("json", "\\\\"), Some(('\\', 2)));
        assert_eq!(decodes("json", "\\u00e9"), Some(('é', 6)));
        assert_eq!(decodes("json", "\\u00E9"), Some(('é', 6)));
        assert_eq!(decodes("json", "\\ud83d\\ude00"), Some(('😀', 12)));
        assert_eq!(decodes("json", "\\ud83d"), None, "a lone surrogate");
    }

    #[test]
    fn each_encoding_writes_its_canonical_form() {
        let v = "Qz w&x/y@k9é\"'<";
        let by = |e: &str| (ENCODINGS.iter().find(|x| x.suffix == e).unwrap().encode)(v);
        assert_eq!(by("url"), "Qz%20w%26x%2Fy%40k9%C3%A9%22'%3C");
        assert_eq!(by("form"), "Qz+w%26x%2Fy%40k9%C3%A9%22%27%3C");
        assert_eq!(by("html"), "Qz w&amp;x/y@k9é&quot;&#39;&lt;");
        assert_eq!(by("json"), "Qz w&x/y@k9é\\\"'<");
    }

    #[test]
    fn a_neighbour_written_encoded_is_read_back() {
        assert_eq!(decode_before("x%40", 4), Some('@'));
        assert_eq!(decode_before("x%C3%A9", 7), Some('é'));
        assert_eq!(decode_before("x\\n", 3), Some('\n'));
        assert_eq!(decode_before("x\\u0041", 7), Some('A'));
        assert_eq!(decode_before("x&#64;", 6), Some('@'));
        assert_eq!(decode_before("x&amp;", 6), Some('&'));
        assert_eq!(decode_before("x40", 3), None);
        assert_eq!(decode_at("%40k9", 0), Some('@'));
        assert_eq!(decode_at("&lt;", 0), Some('<'));
    }
}
