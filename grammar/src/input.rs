//! From the bytes of a file to the text agent-device reads. Its CLI reads a script with Node's
//! `readFileSync(path, "utf8")`, which never fails: every maximal invalid UTF-8 subsequence
//! becomes one U+FFFD, exactly as `String::from_utf8_lossy` does. The text is what every other
//! layer works on; the diagnostic says that it differs from the file, so nothing may write it back.

use crate::codes;
use crate::diagnostic::{Diagnostic, Reader, Span};

/// agent-device's cap on a script and its sources, in UTF-8 bytes of the decoded text: its CLI
/// refuses anything larger before sending it to the daemon.
pub const AGENT_DEVICE_MAX_BYTES: u64 = 2 * 1024 * 1024;

const RAISE_HELP: &str = "agent-device refuses scripts over 2 MiB (2097152 bytes): split the flow; to check a larger file anyway, raise the limit with --max-file-size BYTES or `[input] max-file-size` in ad.toml";

fn client_rejection(d: Diagnostic, path: &str, size: u64) -> Diagnostic {
    if size <= AGENT_DEVICE_MAX_BYTES {
        return d;
    }
    d.rejected_by(
        Reader::Client,
        format!("replay script sources for {path} total {size} bytes, over the {AGENT_DEVICE_MAX_BYTES}-byte limit; split the flow or drop unused runFlow includes."),
        (0, 0),
    )
}

/// AD006 for a file that was not read because it is over `limit` bytes: `size` when known (a
/// regular file), `None` for a stream cut off at the limit. `path` is the file as given.
pub fn refused_too_large(path: &str, size: Option<u64>, limit: u64) -> Diagnostic {
    let message = match size {
        Some(size) => format!("the file is {size} bytes, over the {limit}-byte limit: not read"),
        None => format!("the input is over the {limit}-byte limit: not read"),
    };
    let d = Diagnostic::new(codes::FILE_TOO_LARGE, message, Span::new(0, 0))
        .with_label("nothing in this file was checked")
        .with_help(RAISE_HELP);
    match size {
        Some(size) => client_rejection(d, path, size),
        None => d,
    }
}

/// AD006 for a text with a line longer than the parser holds (`line` 0-based).
pub fn refused_long_line(line: usize, len: u64, limit: u64) -> Diagnostic {
    Diagnostic::new(
        codes::FILE_TOO_LARGE,
        format!(
            "line {} is {len} bytes, over the {limit}-byte limit of a line: not read",
            line + 1
        ),
        Span::new(0, 0),
    )
    .with_label("nothing in this file was checked")
    .with_help("split the line: no script line is this long")
}

/// AD006 for a script that was read (the limit was raised) but that agent-device refuses:
/// `size` is the UTF-8 length of the decoded text, as agent-device counts it.
pub fn over_agent_device_limit(path: &str, size: u64) -> Option<Diagnostic> {
    let d = Diagnostic::new(
        codes::FILE_TOO_LARGE,
        format!(
            "the script is {size} bytes, over agent-device's {AGENT_DEVICE_MAX_BYTES}-byte limit"
        ),
        Span::new(0, 0),
    )
    .with_label("agent-device refuses to replay this file")
    .with_help("split the flow into scripts of at most 2 MiB (2097152 bytes)");
    (size > AGENT_DEVICE_MAX_BYTES).then(|| client_rejection(d, path, size))
}

/// A file's bytes decoded the way agent-device decodes them.
#[derive(Debug, Clone)]
pub struct Decoded {
    /// The text agent-device reads: the file itself when it is UTF-8, else with U+FFFD in place
    /// of every invalid byte sequence.
    pub text: String,
    /// AD005 at the first invalid sequence (its U+FFFD in `text`) when the file is not UTF-8.
    pub not_utf8: Option<Diagnostic>,
}

/// Decodes `bytes` as Node does; reports the first invalid sequence and how many there are.
pub fn decode(bytes: Vec<u8>) -> Decoded {
    let bytes = match String::from_utf8(bytes) {
        Ok(text) => {
            return Decoded {
                text,
                not_utf8: None,
            }
        }
        Err(e) => e.into_bytes(),
    };
    let mut text = String::with_capacity(bytes.len() + 16);
    let mut first: Option<(usize, &[u8])> = None;
    let mut count = 0usize;
    for chunk in bytes.utf8_chunks() {
        text.push_str(chunk.valid());
        if !chunk.invalid().is_empty() {
            first.get_or_insert((text.len(), chunk.invalid()));
            count += 1;
            text.push(char::REPLACEMENT_CHARACTER);
        }
    }
    let (at, invalid) = first.expect("from_utf8 failed, so some sequence is invalid");
    let shown: Vec<String> = invalid.iter().map(|b| format!("0x{b:02X}")).collect();
    let more = match count {
        1 => String::new(),
        2 => ", and 1 more invalid sequence".into(),
        n => format!(", and {} more invalid sequences", n - 1),
    };
    let diagnostic = Diagnostic::new(
        codes::NOT_UTF8,
        format!("the file is not valid UTF-8: {} here{more}", shown.join(" ")),
        Span::new(at, at + char::REPLACEMENT_CHARACTER.len_utf8()),
    )
    .with_label("agent-device reads this as U+FFFD (�), not as the character you typed")
    .with_help(
        "save the script as UTF-8 (e.g. `iconv -f latin1 -t utf-8`); until then `ad fmt` and `ad check --fix` leave the file untouched",
    );
    Decoded {
        text,
        not_utf8: Some(diagnostic),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn size_limit_is_agent_devices_and_only_its_own_refusal_is_a_parity_error() {
        let over = AGENT_DEVICE_MAX_BYTES + 1;
        let d = refused_too_large("big.ad", Some(over), AGENT_DEVICE_MAX_BYTES);
        assert_eq!(d.code, codes::FILE_TOO_LARGE);
        assert_eq!(
            d.rejection.map(|r| r.message).as_deref(),
            Some("replay script sources for big.ad total 2097153 bytes, over the 2097152-byte limit; split the flow or drop unused runFlow includes.")
        );
        // A lower limit of the user's own is not agent-device's verdict, nor is a cut stream.
        assert!(refused_too_large("a.ad", Some(100), 64).rejection.is_none());
        assert!(refused_too_large("-", None, AGENT_DEVICE_MAX_BYTES)
            .rejection
            .is_none());
        assert!(over_agent_device_limit("a.ad", AGENT_DEVICE_MAX_BYTES).is_none());
        assert!(over_agent_device_limit("a.ad", over).is_some_and(|d| d.is_parity_error()));
    }

    #[test]
    fn utf8_is_kept_as_is() {
        let d = decode("open \"café\"\n".as_bytes().to_vec());
        assert_eq!(d.text, "open \"café\"\n");
        assert!(d.not_utf8.is_none());
    }

    #[test]
    fn invalid_sequences_become_one_replacement_each_as_in_node() {
        // A Latin-1 é, a truncated 3-byte sequence, a lone continuation byte.
        let bytes = b"open  \"caf\xe9\"\n# \xe2\x82 \x80\nclose\n".to_vec();
        let d = decode(bytes.clone());
        assert_eq!(d.text, String::from_utf8_lossy(&bytes));
        assert_eq!(
            d.text,
            "open  \"caf\u{fffd}\"\n# \u{fffd} \u{fffd}\nclose\n"
        );
        let diag = d.not_utf8.expect("AD005");
        assert_eq!(diag.code, codes::NOT_UTF8);
        assert_eq!(&d.text[diag.primary_span().range()], "\u{fffd}");
        assert_eq!(diag.primary_span().start(), 10);
        assert!(diag.message.contains("0xE9"), "{}", diag.message);
        assert!(diag.message.contains("2 more"), "{}", diag.message);
    }
}
