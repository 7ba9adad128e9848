//! The `context`/`env` header as agent-device's metadata reader sees it: keys found by regex
//! anywhere on a `context ` line, accepted values, duplicates and conflicts, env directives.

use crate::codes;
use crate::diagnostic::{Diagnostic, Reader, Span};
use crate::text::{is_js_whitespace, whitespace_len};
use crate::tree::EnvDirective;
use serde::Serialize;

/// Platforms a `context platform=` accepts (every `--platform` selector except `web`).
pub const CONTEXT_PLATFORMS: &[&str] = &[
    "apple",
    "ios",
    "macos",
    "android",
    "harmonyos",
    "vega",
    "linux",
];
/// Targets a `context target=` accepts.
pub const CONTEXT_TARGETS: &[&str] = &["mobile", "tv", "desktop"];
/// Keys the recorder writes that the reader ignores.
pub const RECORDER_ONLY_KEYS: &[&str] = &["device", "kind", "theme"];

/// What the metadata reader returns.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Metadata {
    pub platform: Option<Located<String>>,
    pub target: Option<Located<String>>,
    pub timeout_ms: Option<Located<f64>>,
    pub retries: Option<Located<f64>>,
    /// Header env directives in order.
    pub env: Vec<EnvEntry>,
    /// Where `context platform=web` is written: agent-device's reader drops the value (it is
    /// not in `platform`), `ad run`/`ad test` send the script to the web backend.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub platform_web: Option<Span>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Located<T> {
    pub value: T,
    pub span: Span,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct EnvEntry {
    pub key: String,
    pub value: String,
    pub key_span: Span,
    pub line: usize,
}

impl Metadata {
    pub fn env_value(&self, key: &str) -> Option<&EnvEntry> {
        self.env.iter().find(|e| e.key == key)
    }

    /// The reader's return value as JSON (`{platform?, target?, timeoutMs?, retries?, env?}`).
    pub fn to_json(&self) -> serde_json::Value {
        use crate::json::js_number_value;
        let mut m = serde_json::Map::new();
        // Insertion order of the reference: keys are set as lines are read; the comparison is
        // order-insensitive, so a fixed order is used.
        if let Some(p) = &self.platform {
            m.insert("platform".into(), p.value.clone().into());
        }
        if let Some(t) = &self.target {
            m.insert("target".into(), t.value.clone().into());
        }
        if let Some(t) = &self.timeout_ms {
            m.insert("timeoutMs".into(), js_number_value(t.value));
        }
        if let Some(r) = &self.retries {
            m.insert("retries".into(), js_number_value(r.value));
        }
        if !self.env.is_empty() {
            let env: serde_json::Map<_, _> = self
                .env
                .iter()
                .map(|e| (e.key.clone(), e.value.clone().into()))
                .collect();
            m.insert("env".into(), env.into());
        }
        m.into()
    }
}

#[derive(Default)]
pub(crate) struct HeaderReader {
    meta: Metadata,
    /// The reader throws at its first problem: later header problems are not parity errors.
    rejected: bool,
}

impl HeaderReader {
    pub(crate) fn finish(self) -> Metadata {
        self.meta
    }

    fn reject(
        &mut self,
        d: Diagnostic,
        message: String,
        index: usize,
        diagnostics: &mut Vec<Diagnostic>,
    ) {
        let d = if self.rejected {
            d
        } else {
            d.rejected_by(Reader::Metadata, message, (index, 0))
        };
        self.rejected = true;
        diagnostics.push(d);
    }

    pub(crate) fn read_env(
        &mut self,
        text: &str,
        env: &EnvDirective,
        index: usize,
        content: Span,
        diagnostics: &mut Vec<Diagnostic>,
    ) {
        let mut first_error = None;
        check_env_shape(
            text,
            env,
            index,
            content,
            Some(&mut first_error),
            diagnostics,
        );
        if let Some((d, message)) = first_error {
            self.reject(d, message, index, diagnostics);
            return;
        }
        let key = &text[env.key.range()];
        let value = env.decoded.clone().unwrap_or_default();
        if let Some(prev) = self.meta.env_value(key) {
            let d = Diagnostic::new(
                codes::ENV_DUPLICATE,
                format!("duplicate env directive `{key}`"),
                env.key,
            )
            .with_secondary(prev.key_span, "first defined here")
            .with_help("each key may be defined once; delete one of the lines");
            self.reject(
                d,
                format!("Duplicate env directive \"{key}\" on line {}.", index + 1),
                index,
                diagnostics,
            );
            return;
        }
        self.meta.env.push(EnvEntry {
            key: key.to_string(),
            value,
            key_span: env.key,
            line: index,
        });
    }

    pub(crate) fn read_context_line(
        &mut self,
        text: &str,
        content: Span,
        index: usize,
        diagnostics: &mut Vec<Diagnostic>,
    ) {
        let line = &text[content.range()];
        let off = content.start();
        // Where the (at most four) keys read from this line start.
        let mut recognised = [usize::MAX; 4];
        let mut n_recognised = 0;
        let [platform, target, timeout, retries] = find_keys(line);
        if let Some((v, span)) = platform {
            let span = span.shifted(off);
            recognised[n_recognised] = span.start();
            n_recognised += 1;
            if CONTEXT_PLATFORMS.contains(&v) {
                self.set(
                    |m| &mut m.platform,
                    "platform",
                    v.to_string(),
                    span,
                    index,
                    diagnostics,
                );
            } else if v == "web" {
                self.meta.platform_web.get_or_insert(span);
                diagnostics.push(
                    Diagnostic::new(
                        codes::CONTEXT_PLATFORM_WEB,
                        "`platform=web` is dropped by agent-device's reader; `ad` runs this script on the web backend",
                        span,
                    )
                    .with_help("the plan digest is agent-device's (without a platform); `ad run --backend sim` runs it on the simulator instead"),
                );
            } else {
                ignored_value(diagnostics, span, "platform", v, CONTEXT_PLATFORMS);
            }
        }
        if let Some((v, span)) = target {
            let span = span.shifted(off);
            recognised[n_recognised] = span.start();
            n_recognised += 1;
            if CONTEXT_TARGETS.contains(&v) {
                self.set(
                    |m| &mut m.target,
                    "target",
                    v.to_string(),
                    span,
                    index,
                    diagnostics,
                );
            } else {
                ignored_value(diagnostics, span, "target", v, CONTEXT_TARGETS);
            }
        }
        for (key, json_key, min, found) in [
            ("timeout", "timeoutMs", 1.0, timeout),
            ("retries", "retries", 0.0, retries),
        ] {
            if let Some((v, span)) = found {
                // Only the digit prefix is read: `timeout=60s` means 60 ms.
                let tail: String = line[span.end()..]
                    .chars()
                    .take_while(|c| !is_js_whitespace(*c))
                    .collect();
                let span = span.shifted(off);
                recognised[n_recognised] = span.start();
                n_recognised += 1;
                if !tail.is_empty() {
                    let unit = if key == "timeout" { " ms" } else { "" };
                    diagnostics.push(
                        Diagnostic::new(
                            codes::CONTEXT_VALUE_IGNORED,
                            format!("`{key}={v}{tail}` is read as {v}{unit}"),
                            Span::new(span.start(), span.end() + tail.len()),
                        )
                        .with_label(format!(
                            "agent-device reads only the digits; `{tail}` is ignored"
                        ))
                        .with_help(if key == "timeout" {
                            "write the timeout in milliseconds: timeout=60000 for a minute"
                        } else {
                            "write a whole number from 0 to 3"
                        }),
                    );
                }
                let n = crate::text::js_number(v).floor();
                if n >= min && n.is_finite() {
                    if key == "timeout" {
                        self.set(|m| &mut m.timeout_ms, json_key, n, span, index, diagnostics);
                    } else {
                        if n > 3.0 {
                            diagnostics.push(
                                Diagnostic::new(
                                    codes::CONTEXT_VALUE_IGNORED,
                                    format!("retries={v} is clamped to 3"),
                                    span,
                                )
                                .with_help("`test` clamps retries to 0..3"),
                            );
                        }
                        self.set(|m| &mut m.retries, json_key, n, span, index, diagnostics);
                    }
                } else {
                    diagnostics.push(
                        Diagnostic::new(
                            codes::CONTEXT_VALUE_IGNORED,
                            format!("`{key}={v}` is ignored"),
                            span,
                        )
                        .with_help("timeout must be a whole number of milliseconds ≥ 1"),
                    );
                }
            }
        }
        // Words the reader never looks at (a quoted value such as device="iPhone 17" is one word).
        for (start, end) in context_word_ranges(line) {
            let word = &line[start..end];
            if start == 0 {
                continue;
            }
            let key = word.split('=').next().unwrap_or(word);
            let span = Span::new(off + start, off + end);
            if recognised[..n_recognised]
                .iter()
                .any(|s| *s >= span.start() && *s < span.end())
                || RECORDER_ONLY_KEYS.contains(&key)
            {
                continue;
            }
            if !word.contains('=') || !["platform", "target", "timeout", "retries"].contains(&key) {
                diagnostics.push(
                    Diagnostic::new(codes::CONTEXT_KEY_UNKNOWN, format!("`{word}` is not read by agent-device"), span)
                        .with_help("context keys: platform=, target=, timeout=<ms>, retries=<0..3> (device=, kind=, theme= are recorder notes)"),
                );
            }
        }
    }

    fn set<T: PartialEq + Clone + std::fmt::Display>(
        &mut self,
        field: impl Fn(&mut Metadata) -> &mut Option<Located<T>>,
        key: &str,
        value: T,
        span: Span,
        index: usize,
        diagnostics: &mut Vec<Diagnostic>,
    ) {
        let slot = field(&mut self.meta);
        if let Some(prev) = slot.clone() {
            let (message, title) = if prev.value == value {
                (
                    format!("Duplicate replay test metadata \"{key}\" in context header."),
                    format!("duplicate context key `{key}`"),
                )
            } else {
                (
                    format!(
                        "Conflicting replay test metadata \"{key}\" in context header: {} vs {}.",
                        prev.value, value
                    ),
                    format!(
                        "conflicting context key `{key}`: {} vs {}",
                        prev.value, value
                    ),
                )
            };
            let d = Diagnostic::new(codes::CONTEXT_DUPLICATE, title, span)
                .with_secondary(prev.span, "first set here")
                .with_help("set each context key once in the header");
            self.reject(d, message, index, diagnostics);
            return;
        }
        *slot = Some(Located { value, span });
    }
}

/// Whitespace-separated words, where a `"…"` run (with `\` escapes) does not split.
pub(crate) fn context_words(line: &str) -> Vec<(usize, usize)> {
    context_word_ranges(line).collect()
}

/// [`context_words`] one at a time. The bytes that matter (`"`, `\\`, ASCII whitespace) are
/// ASCII, so bytes are stepped one by one; only a possible non-ASCII space is decoded.
pub(crate) fn context_word_ranges(line: &str) -> impl Iterator<Item = (usize, usize)> + '_ {
    let b = line.as_bytes();
    let mut i = 0;
    std::iter::from_fn(move || {
        loop {
            if i >= b.len() {
                return None;
            }
            match whitespace_len(line, i) {
                0 => break,
                n => i += n,
            }
        }
        let start = i;
        let mut in_quote = false;
        let mut escaped = false;
        while i < b.len() {
            let c = b[i];
            if in_quote {
                if escaped {
                    escaped = false;
                } else if c == b'\\' {
                    escaped = true;
                } else if c == b'"' {
                    in_quote = false;
                }
            } else if whitespace_len(line, i) > 0 {
                return Some((start, i));
            } else if c == b'"' {
                in_quote = true;
            }
            i += 1;
        }
        Some((start, b.len()))
    })
}

/// The context keys the reader looks for, and whether only a digit run is read as the value.
const KEYS: [(&str, bool); 4] = [
    ("platform", false),
    ("target", false),
    ("timeout", true),
    ("retries", true),
];

/// For each of [`KEYS`], `(?:^|\s)key=(\S+)` (or `(\d+)` for the digit keys): the first position
/// where it matches, as (value, span of `key=value`). One pass over the word starts of the line.
fn find_keys(line: &str) -> [Option<(&str, Span)>; 4] {
    let mut found = [None; 4];
    let b = line.as_bytes();
    let mut i = 0;
    let mut boundary = true; // at the start, or after whitespace
    while i < b.len() {
        if boundary && matches!(b[i], b'p' | b't' | b'r') {
            for (slot, (key, digits)) in found.iter_mut().zip(KEYS) {
                if slot.is_none() {
                    *slot = key_at(line, i, key, digits);
                }
            }
        }
        let c = b[i];
        if c < 0x80 {
            boundary = matches!(c, b'\t' | b'\n' | 0x0B | 0x0C | b'\r' | b' ');
            i += 1;
        } else {
            let ch = line[i..].chars().next().unwrap_or(' ');
            boundary = is_js_whitespace(ch);
            i += ch.len_utf8();
        }
    }
    found
}

/// `key=value` at `at` (a word start), when the value is not empty.
fn key_at<'a>(line: &'a str, at: usize, key: &str, digits: bool) -> Option<(&'a str, Span)> {
    let rest = line[at..].strip_prefix(key)?.strip_prefix('=')?;
    let vlen = if digits {
        rest.bytes().take_while(u8::is_ascii_digit).count()
    } else {
        rest.find(is_js_whitespace).unwrap_or(rest.len())
    };
    let vstart = at + key.len() + 1;
    (vlen > 0).then(|| (&rest[..vlen], Span::new(at, vstart + vlen)))
}

fn ignored_value(
    diagnostics: &mut Vec<Diagnostic>,
    span: Span,
    key: &str,
    value: &str,
    allowed: &[&str],
) {
    let hint = allowed.iter().find(|a| a.eq_ignore_ascii_case(value));
    let mut d = Diagnostic::new(
        codes::CONTEXT_VALUE_IGNORED,
        format!("`{key}={value}` is ignored by agent-device"),
        span,
    )
    .with_help(format!(
        "accepted values (case-sensitive): {}",
        allowed.join(", ")
    ));
    if let Some(fix) = hint {
        d = d.with_fix(
            format!("Use `{key}={fix}`"),
            vec![crate::diagnostic::Edit {
                span,
                replacement: format!("{key}={fix}"),
            }],
        );
    }
    diagnostics.push(d);
}

/// Shape checks of an env directive, in the reference order (directive, key, reserved, value).
/// With `first`, the first problem is handed back instead of pushed (the header reader decides
/// whether it is a parity error).
pub(crate) fn check_env_shape(
    text: &str,
    env: &EnvDirective,
    index: usize,
    content: Span,
    first: Option<&mut Option<(Diagnostic, String)>>,
    diagnostics: &mut Vec<Diagnostic>,
) {
    let n = index + 1;
    let key = &text[env.key.range()];
    let problem: Option<(Diagnostic, String)> = if env.value.is_none() || key.is_empty() {
        Some((
            Diagnostic::new(codes::ENV_MALFORMED, "`env` needs KEY=VALUE", content)
                .with_help("write `env KEY=value` (the value may be empty or a JSON string)"),
            format!("Invalid env directive on line {n}: expected \"env KEY=VALUE\"."),
        ))
    } else if !is_var_name(key) {
        let upper = key.to_ascii_uppercase();
        let mut d = Diagnostic::new(codes::ENV_KEY_INVALID, format!("invalid env key `{key}`"), env.key)
            .with_help("keys must be uppercase letters, digits and underscores, not starting with a digit (e.g. APP_ID)");
        if is_var_name(&upper) {
            d = d.with_fix(
                format!("Rename to `{upper}`"),
                vec![crate::diagnostic::Edit {
                    span: env.key,
                    replacement: upper,
                }],
            );
        }
        Some((d, format!("Invalid env key \"{key}\" on line {n}: keys must be uppercase letters, digits, and underscores (e.g. APP_ID).")))
    } else if key.starts_with("AD_") {
        Some((
            Diagnostic::new(codes::ENV_KEY_RESERVED, format!("`{key}` is in the reserved AD_* namespace"), env.key)
                .with_help(format!("AD_* names are built-ins (AD_SESSION, AD_FILENAME, AD_PLATFORM, …); rename {key}")),
            format!("Invalid env key \"{key}\" on line {n}: the AD_* namespace is reserved for built-in variables. Rename {key} to avoid the AD_ prefix."),
        ))
    } else if env.quoted && env.decoded.is_none() {
        Some((
            Diagnostic::new(codes::ENV_VALUE_INVALID, "quoted env value is not one JSON string", env.value.unwrap_or(content))
                .with_help("a value starting with \" must be exactly one JSON string literal up to the end of the line"),
            format!("Invalid quoted env value on line {n}."),
        ))
    } else {
        None
    };
    match (problem, first) {
        (Some(p), Some(slot)) => *slot = Some(p),
        (Some((d, _)), None) => diagnostics.push(d),
        (None, _) => {}
    }
}

/// `^[A-Z_][A-Z0-9_]*$`.
pub fn is_var_name(s: &str) -> bool {
    let mut bytes = s.bytes();
    matches!(bytes.next(), Some(b'A'..=b'Z' | b'_'))
        && bytes.all(|b| matches!(b, b'A'..=b'Z' | b'0'..=b'9' | b'_'))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The former search, one key at a time over every occurrence of `key=`.
    mod reference {
        use super::super::*;

        /// `(?:^|\s)key=(\S+)` (or `(\d+)` when `digits`): the first position where it matches.
        pub(super) fn find_key<'a>(
            line: &'a str,
            key: &str,
            digits: bool,
        ) -> Option<(&'a str, Span)> {
            let b = line.as_bytes();
            let k = key.as_bytes();
            // Every `key=` in order (keys start with an ASCII letter, so `at` is a char boundary).
            let mut from = 0;
            while let Some(rel) = b[from..].iter().position(|&c| c == k[0]) {
                let at = from + rel;
                from = at + 1;
                if !(b[at..].starts_with(k) && b.get(at + k.len()) == Some(&b'=')) {
                    continue;
                }
                let boundary =
                    at == 0 || line[..at].chars().next_back().is_some_and(is_js_whitespace);
                if !boundary {
                    continue;
                }
                let vstart = at + k.len() + 1;
                let rest = &line[vstart..];
                let vlen = if digits {
                    rest.bytes().take_while(u8::is_ascii_digit).count()
                } else {
                    rest.find(is_js_whitespace).unwrap_or(rest.len())
                };
                if vlen == 0 {
                    continue;
                }
                return Some((&line[vstart..vstart + vlen], Span::new(at, vstart + vlen)));
            }
            None
        }
    }

    /// The former word split, char by char.
    fn reference_words(line: &str) -> Vec<(usize, usize)> {
        let mut words = Vec::new();
        let mut start = None;
        let mut in_quote = false;
        let mut escaped = false;
        for (i, c) in line.char_indices() {
            if in_quote {
                if escaped {
                    escaped = false;
                } else if c == '\\' {
                    escaped = true;
                } else if c == '"' {
                    in_quote = false;
                }
                continue;
            }
            if is_js_whitespace(c) {
                if let Some(s) = start.take() {
                    words.push((s, i));
                }
                continue;
            }
            if start.is_none() {
                start = Some(i);
            }
            if c == '"' {
                in_quote = true;
            }
        }
        if let Some(s) = start {
            words.push((s, line.len()));
        }
        words
    }

    #[test]
    fn word_split_agrees_with_the_char_by_char_split() {
        let pieces = [
            "a", "\"", "\\", " ", "\t", "\u{3000}", "\u{85}", "é", "\\é", "=", "\u{FEFF}",
        ];
        let mut seed = 0x0bad_cafe_f00d_1234u64;
        for _ in 0..20_000 {
            let mut line = String::new();
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            for _ in 0..seed % 12 {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                line.push_str(pieces[(seed % pieces.len() as u64) as usize]);
            }
            assert_eq!(context_words(&line), reference_words(&line), "{line:?}");
        }
    }

    #[test]
    fn key_search_agrees_with_the_per_key_search() {
        let pieces = [
            "platform=ios",
            "target=tv",
            "timeout=60s",
            "retries=2",
            "timeout=",
            "xplatform=a",
            "platform=",
            "target=\u{e9}",
            "\u{3000}",
            " ",
            "\t",
            "\u{85}",
            "retries=x",
            "t",
            "=",
            "timeout=12",
            "platform=android",
            "é",
        ];
        let mut seed = 0x1234_5678_9abc_def1u64;
        for _ in 0..20_000 {
            let mut line = String::from("context ");
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            for _ in 0..seed % 7 {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                line.push_str(pieces[(seed % pieces.len() as u64) as usize]);
                if seed & 4 == 0 {
                    line.push(' ');
                }
            }
            let expected = KEYS.map(|(key, digits)| reference::find_key(&line, key, digits));
            assert_eq!(find_keys(&line), expected, "{line:?}");
        }
    }
}
