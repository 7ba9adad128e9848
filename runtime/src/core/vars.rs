//! Variables (spec §6): the scope (`-e` > `AD_VAR_*` > `env` directives > built-ins), late
//! per-step interpolation, and redaction of injected values as `<var:NAME>`.

use std::collections::{BTreeMap, BTreeSet};

use ad_grammar::metadata::is_var_name;
use ad_grammar::placeholder::interpolate;
use serde_json::{Map, Value};

mod encoding;

pub use encoding::escape_html;

/// The variables one run sees.
#[derive(Debug, Clone, Default)]
pub struct Scope {
    values: BTreeMap<String, String>,
    expanded_builtins: BTreeSet<String>,
    /// An authoring session's `--record-as` (name, literal) pairs, in registration order:
    /// redacted as `${NAME}`. In memory only; they die with the session.
    recorded: Vec<(String, String)>,
    redactor: Redactor,
}

/// Replaces injected values with `<var:NAME>`: the one redactor of the tool (journal, results,
/// reports, observations, recorded fixtures, persisted sessions).
///
/// A value is found as it is and in every encoding of [`encoding::ENCODINGS`] (percent and form
/// encoding, HTML character references, JSON escapes); an encoded occurrence becomes
/// `<var:NAME:url>` (`form`, `html`, `json`), so putting a value back writes it encoded again.
///
/// Where a value is replaced (docs/run.md, "Redaction"): where it stands as the value — the
/// whole string (a field's text, an element's whole label or value) or a whole word (not
/// continued by a letter, digit, `_`, or a `.` joining two words: `shop` stays in
/// `com.example.shop` and `shopping`, `e` in `e.g.`) — and anywhere, inside other words too, when
/// it is at least [`SECRET_CHARS`] characters long. In an identifier ([`Redactor::redact_id`]:
/// app ids, URLs opened or shown) only the whole string, a long value, or a word of the URL's
/// query or fragment.
///
/// One left-to-right pass: at each position the longest registered value that starts there is
/// replaced, and the scan resumes after it, so emitted `<var:NAME>` text is never re-scanned (a
/// value `var` or `<` cannot corrupt it) and a value that is part of a longer one never splits it.
#[derive(Debug, Clone, PartialEq)]
pub struct Redactor {
    /// Longest value first (ties by registration order).
    values: Vec<Entry>,
    /// Bytes a match can start with (a value's first byte, an escape's): most positions are
    /// rejected with one lookup.
    first_bytes: [bool; 256],
    /// The `${NAME}` placeholders it emits: already-parameterized text is copied as is, so a
    /// second pass (or a literal inside a name, or `$`) never rewrites a placeholder.
    placeholders: Vec<String>,
    /// Whitespace-only `--record-as` literals (fill-scoped): inline replacement cannot tell
    /// them from ordinary separators, so a string containing one becomes its placeholder whole
    /// (ADR 0017).
    collapse: Vec<(String, String)>,
    /// (marker, text): every marker this redactor writes and the text it stands for.
    markers: Vec<(String, String)>,
}

#[derive(Debug, Clone, PartialEq)]
struct Entry {
    /// `<var:NAME>` or `${NAME}`.
    replacement: String,
    value: String,
    /// At least [`SECRET_CHARS`] characters: replaced inside other words too.
    long: bool,
    /// Whether the value's first (last) character is a word character: only then can the text
    /// around it continue a word.
    word_start: bool,
    word_end: bool,
}

/// The length from which a value is treated as a secret wherever it appears, inside other words
/// too: 8 characters, the shortest memorized secret NIST SP 800-63B allows and shorter than any
/// generated token or key. Shorter values (names, ids, flags, PINs) are ordinary words that
/// occur inside other words and identifiers (`shop` in `com.example.shop`, `e` in every word),
/// so they are replaced only where they stand as the value.
pub const SECRET_CHARS: usize = 8;

/// How a string is read: free text, or an identifier (app id, URL).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Field {
    Text,
    Id,
}

/// JSON keys whose values are structure, never data an injected value flows into: paths, codes,
/// kinds, roles, digests. [`Redactor::redact_value`] leaves them alone, so a one-character or
/// common-word value cannot rewrite `"replayPath"` or `"role"`.
const STRUCTURAL_KEYS: &[&str] = &[
    "action",
    "code",
    "command",
    "direction",
    "exit_reason",
    "file",
    "kind",
    "path",
    "planDigest",
    "plan_digest",
    "reason",
    "replayPath",
    "role",
    "runDir",
    "screen",
    "script",
    "session",
    "sessionFile",
    "status",
    "tiebreak",
    "type",
    "verification",
];

/// JSON keys holding an app id or URL: an app id or URL is opened from a variable (`open
/// "${BASE}/login.html"`), so it is data, but read as an identifier ([`Redactor::redact_id`]).
const ID_KEYS: &[&str] = &["app", "url"];

impl Default for Redactor {
    fn default() -> Self {
        Redactor::new([])
    }
}

fn is_word(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

impl Redactor {
    /// A redactor for these (name, value) pairs; empty values are ignored.
    pub fn new<'a>(pairs: impl IntoIterator<Item = (&'a str, &'a str)>) -> Redactor {
        let mut pairs: Vec<(&str, &str)> = pairs.into_iter().collect();
        // Ties by name, for determinism.
        pairs.sort_by(|a, b| a.0.cmp(b.0));
        Redactor::build(pairs.into_iter().map(|(k, v)| (format!("<var:{k}>"), v)))
    }

    /// A redactor that writes `${NAME}` for each value (an authoring session's `--record-as`
    /// literals); when one value is registered under two names the first-registered wins.
    pub fn placeholders<'a>(pairs: impl IntoIterator<Item = (&'a str, &'a str)>) -> Redactor {
        Redactor::build(pairs.into_iter().map(|(k, v)| (format!("${{{k}}}"), v)))
    }

    /// `<var:NAME>` redaction of `vars` and `${NAME}` redaction of `recorded`, in one pass.
    fn combined<'a>(
        vars: impl IntoIterator<Item = (&'a str, &'a str)>,
        recorded: impl IntoIterator<Item = (&'a str, &'a str)>,
    ) -> Redactor {
        let mut vars: Vec<(&str, &str)> = vars.into_iter().collect();
        vars.sort_by(|a, b| a.0.cmp(b.0));
        Redactor::build(
            vars.into_iter()
                .map(|(k, v)| (format!("<var:{k}>"), v))
                .chain(recorded.into_iter().map(|(k, v)| (format!("${{{k}}}"), v))),
        )
    }

    /// (replacement, value) in priority order: the first of equal values wins.
    fn build<'a>(entries: impl Iterator<Item = (String, &'a str)>) -> Redactor {
        let mut values: Vec<Entry> = Vec::new();
        let mut collapse: Vec<(String, String)> = Vec::new();
        for (replacement, v) in entries {
            if v.is_empty()
                || values.iter().any(|e| e.value == v)
                || collapse.iter().any(|(_, seen)| seen == v)
            {
                continue;
            }
            if replacement.starts_with("${") && v.trim().is_empty() {
                collapse.push((replacement, v.to_string()));
            } else {
                values.push(Entry {
                    replacement,
                    value: v.to_string(),
                    long: v.chars().count() >= SECRET_CHARS,
                    word_start: v.chars().next().is_some_and(is_word),
                    word_end: v.chars().next_back().is_some_and(is_word),
                });
            }
        }
        // Stable: equal lengths keep their priority order.
        values.sort_by_key(|e| std::cmp::Reverse(e.value.len()));
        let mut first_bytes = [false; 256];
        for e in &values {
            first_bytes[e.value.as_bytes()[0] as usize] = true;
        }
        if !values.is_empty() {
            for &b in encoding::ESCAPE_STARTS {
                first_bytes[b as usize] = true;
            }
        }
        let placeholders: Vec<String> = values
            .iter()
            .filter(|e| e.replacement.starts_with("${"))
            .map(|e| e.replacement.clone())
            .collect();
        if !placeholders.is_empty() {
            first_bytes[b'$' as usize] = true;
        }
        let mut markers = Vec::new();
        for e in &values {
            markers.push((e.replacement.clone(), e.value.clone()));
            if let Some(name) = e.replacement.strip_prefix("<var:") {
                let name = &name[..name.len() - 1];
                for enc in encoding::ENCODINGS {
                    let text = (enc.encode)(&e.value);
                    markers.push((format!("<var:{name}:{}>", enc.suffix), text));
                }
            }
        }
        Redactor {
            values,
            first_bytes,
            placeholders,
            collapse,
            markers,
        }
    }

    pub fn is_empty(&self) -> bool {
        self.values.is_empty() && self.collapse.is_empty()
    }

    /// (marker, text) pairs: what each `<var:NAME>` (`<var:NAME:url>`, …, or `${NAME}`) this
    /// redactor writes stands for, the encoded ones in their encoding's canonical form.
    pub fn replacements(&self) -> impl Iterator<Item = (&str, &str)> {
        self.markers.iter().map(|(r, v)| (r.as_str(), v.as_str()))
    }

    /// Free text (a label, a typed text, a message, a result) with every injected value that
    /// stands as a value replaced by `<var:NAME>` (or `${NAME}`).
    pub fn redact(&self, s: &str) -> String {
        self.redact_field(s, Field::Text)
    }

    /// An identifier (an app id, a URL) with an injected value replaced only where it is the
    /// whole identifier, is long enough to be a secret, or is a word of a URL's query or
    /// fragment: a short value never rewrites the words of an id (`com.example.shop`).
    pub fn redact_id(&self, s: &str) -> String {
        self.redact_field(s, Field::Id)
    }

    fn redact_field(&self, s: &str, field: Field) -> String {
        if let Some((replacement, _)) = self.collapse.iter().find(|(_, v)| s.contains(v.as_str())) {
            return replacement.clone();
        }
        if self.values.is_empty() {
            return s.to_string();
        }
        // In an identifier, a URL's query and fragment are data (a submitted form's fields).
        let data_from = match field {
            Field::Text => 0,
            Field::Id => s.find(['?', '#']).unwrap_or(s.len()),
        };
        let bytes = s.as_bytes();
        let mut out = String::with_capacity(s.len());
        let (mut i, mut copied) = (0, 0);
        'scan: while i < bytes.len() {
            if bytes[i] == b'$' {
                if let Some(p) = self
                    .placeholders
                    .iter()
                    .find(|p| bytes[i..].starts_with(p.as_bytes()))
                {
                    i += p.len();
                    continue;
                }
            }
            if self.first_bytes[bytes[i] as usize] {
                for e in &self.values {
                    let Some((end, suffix)) = Redactor::match_at(s, i, &e.value) else {
                        continue;
                    };
                    let whole = i == 0 && end == s.len();
                    let stands = whole
                        || e.long
                        || (i >= data_from && !joined_before(s, i, e) && !joined_after(s, end, e));
                    if stands {
                        out.push_str(&s[copied..i]);
                        match (suffix, e.replacement.strip_suffix('>')) {
                            (Some(suffix), Some(marker)) if marker.starts_with("<var:") => {
                                out.push_str(marker);
                                out.push(':');
                                out.push_str(suffix);
                                out.push('>');
                            }
                            _ => out.push_str(&e.replacement),
                        }
                        i = end;
                        copied = i;
                        continue 'scan;
                    }
                }
            }
            // Whole characters only: a value always starts on a character boundary.
            i += utf8_width(bytes[i]);
        }
        out.push_str(&s[copied..]);
        out
    }

    /// Where `value` written as is or in one encoding ends when it starts at `i`, and the
    /// encoding's suffix (`None`: as is).
    fn match_at(s: &str, i: usize, value: &str) -> Option<(usize, Option<&'static str>)> {
        let rest = &s.as_bytes()[i..];
        if rest.starts_with(value.as_bytes()) {
            return Some((i + value.len(), None));
        }
        // An encoded match has its first escape at or before the first byte that differs.
        let same = rest
            .iter()
            .zip(value.as_bytes())
            .take_while(|(a, b)| a == b)
            .count();
        if !rest[..(same + 1).min(rest.len())]
            .iter()
            .any(|b| encoding::ESCAPE_STARTS.contains(b))
        {
            return None;
        }
        'encodings: for enc in encoding::ENCODINGS {
            let (mut j, mut escaped) = (i, false);
            for c in value.chars() {
                // The escape first: `&` of `&amp;` is not the value's `&`.
                match (enc.decode)(s, j) {
                    Some((d, n)) if d == c => {
                        j += n;
                        escaped = true;
                    }
                    _ if s[j..].starts_with(c) => j += c.len_utf8(),
                    _ => continue 'encodings,
                }
            }
            if escaped {
                return Some((j, Some(enc.suffix)));
            }
        }
        None
    }

    /// Redacts every string leaf of a JSON value, except under `STRUCTURAL_KEYS` (and as an
    /// identifier under `ID_KEYS`), and every object key but the records' own field names
    /// ([`crate::core::records::field_names`]): a backend's free-form response can carry a value as a
    /// key (ADR 0017).
    pub fn redact_value(&self, v: &mut Value) {
        if self.is_empty() {
            return;
        }
        self.redact_tree(v, Field::Text, STRUCTURAL_KEYS, true);
    }

    /// Redacts every string leaf of a call, result or capture but the keys that name what a
    /// record is (`kind`, a node's `type`): wider than [`Redactor::redact_value`], which keeps
    /// structural keys, since a recorded fixture is committed (`recorded/`).
    pub fn redact_data(&self, v: &mut Value) {
        if self.is_empty() {
            return;
        }
        self.redact_tree(v, Field::Text, &["kind", "type"], false);
    }

    /// `keep`: keys whose values are left alone; `keys`: whether object keys are redacted too.
    fn redact_tree(&self, v: &mut Value, field: Field, keep: &[&str], keys: bool) {
        match v {
            Value::String(s) => {
                let r = self.redact_field(s, field);
                if r != *s {
                    *s = r;
                }
            }
            Value::Array(a) => a
                .iter_mut()
                .for_each(|x| self.redact_tree(x, field, keep, keys)),
            Value::Object(m) => {
                for (k, x) in m.iter_mut() {
                    if !keep.contains(&k.as_str()) {
                        let field = match ID_KEYS.contains(&k.as_str()) {
                            true => Field::Id,
                            false => field,
                        };
                        self.redact_tree(x, field, keep, keys);
                    }
                }
                if !keys {
                    return;
                }
                let renamed = |k: &String| {
                    let r = self.redact(k);
                    (r != *k && !crate::core::records::field_names().contains(k)).then_some(r)
                };
                if m.keys().any(|k| renamed(k).is_some()) {
                    *m = std::mem::take(m)
                        .into_iter()
                        .map(|(k, x)| (renamed(&k).unwrap_or(k), x))
                        .collect();
                }
            }
            _ => {}
        }
    }
}

/// Whether the text before `at` continues the word `e`'s value starts (a letter, digit or `_`,
/// or a `.` between two words), reading an escaped neighbour as the character it stands for.
fn joined_before(s: &str, at: usize, e: &Entry) -> bool {
    if !e.word_start {
        return false;
    }
    let before = |end: usize| -> Option<char> {
        let c = s[..end].chars().next_back()?;
        Some(match is_word(c) || c == ';' {
            true => encoding::decode_before(s, end).unwrap_or(c),
            false => c,
        })
    };
    match before(at) {
        Some(c) if is_word(c) => true,
        Some('.') => before(at - 1).is_some_and(is_word),
        _ => false,
    }
}

/// Whether the text from `at` continues the word `e`'s value ends.
fn joined_after(s: &str, at: usize, e: &Entry) -> bool {
    if !e.word_end {
        return false;
    }
    let after = |from: usize| -> Option<char> {
        let c = s[from..].chars().next()?;
        Some(encoding::decode_at(s, from).unwrap_or(c))
    };
    match after(at) {
        Some(c) if is_word(c) => true,
        Some('.') => after(at + 1).is_some_and(is_word),
        _ => false,
    }
}

impl Redactor {
    /// What [`Redactor::redact`] took out, put back: each marker this redactor writes becomes
    /// its text again (an encoded one in its encoding's canonical form). A persisted session is
    /// saved redacted and restored with the resuming run's values (text that held a marker
    /// literally is not told apart).
    pub fn unredact(&self, s: &str) -> String {
        let mut out = String::with_capacity(s.len());
        let mut rest = s;
        while let Some(at) = rest.find(['<', '$']) {
            out.push_str(&rest[..at]);
            rest = &rest[at..];
            match self
                .markers
                .iter()
                .find(|(r, _)| rest.starts_with(r.as_str()))
            {
                Some((marker, text)) => {
                    out.push_str(text);
                    rest = &rest[marker.len()..];
                }
                None => {
                    out.push_str(&rest[..1]);
                    rest = &rest[1..];
                }
            }
        }
        out.push_str(rest);
        out
    }

    /// [`Redactor::unredact`] of every string leaf and object key of a JSON value (the inverse of
    /// [`Redactor::redact_value`]).
    pub fn unredact_value(&self, v: &mut Value) {
        if self.is_empty() {
            return;
        }
        match v {
            Value::String(s) => *s = self.unredact(s),
            Value::Array(a) => a.iter_mut().for_each(|x| self.unredact_value(x)),
            Value::Object(m) => {
                *m = std::mem::take(m)
                    .into_iter()
                    .map(|(k, mut x)| {
                        self.unredact_value(&mut x);
                        (self.unredact(&k), x)
                    })
                    .collect();
            }
            _ => {}
        }
    }
}

fn utf8_width(first: u8) -> usize {
    match first {
        0xF0..=0xFF => 4,
        0xE0..=0xEF => 3,
        0xC0..=0xDF => 2,
        _ => 1,
    }
}

/// A `${NAME}` with no value and no fallback.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unresolved {
    pub name: String,
}

fn reserved(key: &str) -> String {
    format!("The AD_* namespace is reserved for built-in variables. Rename {key} to avoid the AD_ prefix.")
}

/// Parses `-e KEY=VALUE` entries with agent-device's messages.
pub fn parse_cli_entries(entries: &[String]) -> Result<Vec<(String, String)>, String> {
    let mut out = Vec::new();
    for (n, e) in entries.iter().enumerate() {
        // Never echo the entry: `-e "$PASSWORD"` (a forgotten `KEY=`) would print the secret.
        let Some(eq) = e.find('=').filter(|i| *i > 0) else {
            let what = if e.is_empty() {
                "is empty"
            } else if e.starts_with('=') {
                "has no KEY before `=`"
            } else {
                "has no `=`"
            };
            return Err(format!(
                "Invalid -e entry #{} ({} character(s), not shown: it may be a secret) {what}: expected KEY=VALUE.",
                n + 1,
                e.chars().count()
            ));
        };
        let key = &e[..eq];
        if !is_var_name(key) {
            // The key is a name, not the value; still cap it so a pasted secret is not echoed whole.
            let shown: String = key.chars().take(32).collect();
            let more = if key.chars().count() > 32 { "…" } else { "" };
            return Err(format!("Invalid -e key \"{shown}{more}\" (entry #{}): keys must be uppercase letters, digits, and underscores (e.g. APP_ID).", n + 1));
        }
        if key.starts_with("AD_") {
            return Err(reserved(key));
        }
        out.push((key.to_string(), e[eq + 1..].to_string()));
    }
    Ok(out)
}

/// `AD_VAR_<KEY>` entries of an environment (invalid or `AD_` keys silently ignored).
pub fn shell_imports<I: IntoIterator<Item = (String, String)>>(env: I) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = env
        .into_iter()
        .filter_map(|(k, v)| {
            let key = k.strip_prefix("AD_VAR_")?;
            (!key.is_empty() && is_var_name(key) && !key.starts_with("AD_"))
                .then(|| (key.to_string(), v))
        })
        .collect();
    out.sort();
    out
}

impl Scope {
    /// Builds the scope; later sources override earlier ones.
    pub fn new(
        builtins: &[(String, String)],
        file_env: &[(String, String)],
        shell: &[(String, String)],
        cli: &[(String, String)],
    ) -> Result<Scope, String> {
        let mut values = BTreeMap::new();
        for (k, v) in builtins {
            values.insert(k.clone(), v.clone());
        }
        for source in [file_env, shell, cli] {
            for (k, v) in source {
                if k.starts_with("AD_") {
                    return Err(reserved(k));
                }
                values.insert(k.clone(), v.clone());
            }
        }
        let mut s = Scope {
            values,
            expanded_builtins: BTreeSet::new(),
            recorded: Vec::new(),
            redactor: Redactor::default(),
        };
        s.rebuild_redactions();
        Ok(s)
    }

    pub fn get(&self, name: &str) -> Option<&str> {
        self.values.get(name).map(String::as_str)
    }

    /// Every variable and its value, by name (a debugger's view: redact before showing).
    pub fn entries(&self) -> impl Iterator<Item = (&str, &str)> {
        self.values.iter().map(|(k, v)| (k.as_str(), v.as_str()))
    }

    fn rebuild_redactions(&mut self) {
        let recorded: BTreeSet<&str> = self.recorded.iter().map(|(k, _)| k.as_str()).collect();
        self.redactor = Redactor::combined(
            self.values
                .iter()
                .filter(|(k, _)| !k.starts_with("AD_") || self.expanded_builtins.contains(*k))
                .filter(|(k, _)| !recorded.contains(k.as_str()))
                .map(|(k, v)| (k.as_str(), v.as_str())),
            self.recorded.iter().map(|(k, v)| (k.as_str(), v.as_str())),
        );
    }

    /// Registers a `--record-as NAME` literal: `${NAME}` expands to it, and it is redacted as
    /// `${NAME}` from every record. Call [`Scope::end_fill_scope`] after the fill.
    pub fn record_literal(&mut self, name: &str, literal: &str) {
        self.values.insert(name.to_string(), literal.to_string());
        self.recorded.push((name.to_string(), literal.to_string()));
        self.rebuild_redactions();
    }

    /// Redacts `literal` as `${NAME}` from now on (a literal the session parameterized earlier);
    /// a no-op when it is already registered.
    pub fn protect_literal(&mut self, name: &str, literal: &str) {
        if literal.trim().is_empty() || self.recorded.iter().any(|(_, v)| v == literal) {
            return;
        }
        self.recorded.push((name.to_string(), literal.to_string()));
        self.rebuild_redactions();
    }

    /// After a `--record-as` fill: the literal no longer expands, and an empty or
    /// whitespace-only one stops being redacted (its protection is fill-scoped, ADR 0017).
    pub fn end_fill_scope(&mut self, name: &str) {
        self.values.remove(name);
        self.recorded
            .retain(|(k, v)| k != name || !v.trim().is_empty());
        self.rebuild_redactions();
    }

    /// The redactor for this scope's injected values.
    pub fn redactor(&self) -> &Redactor {
        &self.redactor
    }

    /// Expands one string.
    pub fn expand(&mut self, s: &str) -> Result<String, Unresolved> {
        if !s.contains("${") {
            return Ok(s.to_string());
        }
        let mut used_builtins = Vec::new();
        let values = &self.values;
        let out = interpolate(s, |name| {
            let v = values.get(name).map(String::as_str);
            if v.is_some() && name.starts_with("AD_") {
                used_builtins.push(name.to_string());
            }
            v
        })
        .map_err(|u| Unresolved { name: u.name })?;
        let mut changed = false;
        for b in used_builtins {
            changed |= self.expanded_builtins.insert(b);
        }
        if changed {
            self.rebuild_redactions();
        }
        Ok(out)
    }

    /// Expands every string leaf of a JSON value.
    pub fn expand_value(&mut self, v: &Value) -> Result<Value, Unresolved> {
        Ok(match v {
            Value::String(s) => Value::String(self.expand(s)?),
            Value::Array(a) => Value::Array(
                a.iter()
                    .map(|x| self.expand_value(x))
                    .collect::<Result<_, _>>()?,
            ),
            Value::Object(m) => {
                let mut out = Map::new();
                for (k, x) in m {
                    out.insert(k.clone(), self.expand_value(x)?);
                }
                Value::Object(out)
            }
            other => other.clone(),
        })
    }

    /// Replaces every injected value with `<var:NAME>` ([`Redactor::redact`]).
    pub fn redact(&self, s: &str) -> String {
        self.redactor.redact(s)
    }

    /// Redacts a JSON value's data, never its structure ([`Redactor::redact_value`]).
    pub fn redact_value(&self, v: &mut Value) {
        self.redactor.redact_value(v)
    }

    /// A record with its data redacted as [`Redactor::redact_value`] redacts its JSON; `None`
    /// when the redacted JSON no longer fits the record (never the unredacted record).
    pub fn redacted<T: serde::Serialize + serde::de::DeserializeOwned>(
        &self,
        record: T,
    ) -> Option<T> {
        if self.redactor.is_empty() {
            return Some(record);
        }
        let mut v = serde_json::to_value(&record).ok()?;
        self.redactor.redact_value(&mut v);
        serde_json::from_value(v).ok()
    }

    pub fn has_redactions(&self) -> bool {
        !self.redactor.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kv(k: &str, v: &str) -> (String, String) {
        (k.into(), v.into())
    }

    /// What redaction takes out, unredaction puts back: text, keys and nested values, with
    /// values that overlap, share a prefix or sit inside one another.
    #[test]
    fn unredaction_restores_what_redaction_took_out() {
        let r = Redactor::new([
            ("EMAIL", "ann@example.org"),
            ("USER", "ann"),
            ("TOKEN", "<tok>"),
            ("DOLLAR", "$5"),
        ]);
        for text in [
            "",
            "plain",
            "ann@example.org",
            "to ann@example.org and ann, <tok> or $5 or $6 <var:NOPE> <var:",
            "é ann é",
            // Encoded, in each encoding's canonical form.
            "?to=ann%40example.org&t=%3Ctok%3E",
            "&lt;tok&gt;",
        ] {
            let redacted = r.redact(text);
            for value in ["ann", "<tok>", "$5", "%3Ctok%3E", "&lt;tok&gt;"] {
                assert!(!redacted.contains(value), "{redacted}");
            }
            assert_eq!(r.unredact(&redacted), text);
        }
        // A short value inside other words stays, a long one goes, and both come back.
        let text = "annann@example.organn";
        assert_eq!(r.redact(text), "ann<var:EMAIL>ann");
        assert_eq!(r.unredact(&r.redact(text)), text);
        let mut v = serde_json::json!({
            "apps": {"ann@example.org": {"values": {"email": "ann@example.org", "n": 3}}},
            "list": ["<tok>", "x $5"],
        });
        let original = v.clone();
        r.redact_value(&mut v);
        assert!(!v.to_string().contains("ann@example.org"), "{v}");
        r.unredact_value(&mut v);
        assert_eq!(v, original);
        // A replacement the redactor does not know is left alone.
        assert_eq!(Redactor::default().unredact("<var:EMAIL>"), "<var:EMAIL>");
    }

    /// Issue 29 item 8: a value is redacted in every encoding it can reach a URL or a text in,
    /// each with its own marker, and put back in that encoding.
    #[test]
    fn every_encoding_of_a_value_is_redacted() {
        let pw = "Qz w&x/y@k9";
        let r = Redactor::new([("PASSWORD", pw)]);
        for (text, redacted) in [
            // As is.
            ("pw: Qz w&x/y@k9", "pw: <var:PASSWORD>"),
            // encodeURIComponent, upper- and lower-case hex.
            ("?p=Qz%20w%26x%2Fy%40k9", "?p=<var:PASSWORD:url>"),
            ("?p=Qz%20w%26x%2fy%40k9", "?p=<var:PASSWORD:url>"),
            // A submitted form: `+` for the space.
            ("?p=Qz+w%26x%2Fy%40k9&q=1", "?p=<var:PASSWORD:form>&q=1"),
            ("?p=Qz+w%26x%2fy%40k9", "?p=<var:PASSWORD:form>"),
            // HTML: named, decimal and hexadecimal references.
            ("<b>Qz w&amp;x/y@k9</b>", "<b><var:PASSWORD:html></b>"),
            ("Qz w&#38;x&#47;y&#64;k9", "<var:PASSWORD:html>"),
            ("Qz w&#x26;x&#X2F;y@k9", "<var:PASSWORD:html>"),
            // JSON escapes: `\/`, `\u0026`.
            (
                r#"{"p":"Qz w\u0026x\/y@k9"}"#,
                r#"{"p":"<var:PASSWORD:json>"}"#,
            ),
        ] {
            assert_eq!(r.redact(text), redacted, "{text}");
        }
        // JSON's quote and backslash, and `\uXXXX` of non-ASCII (either case, astral pairs).
        let r = Redactor::new([("Q", "say \"hé\" \\ 😀")]);
        for text in [
            r#"say \"hé\" \\ 😀"#,
            r#"say \"h\u00e9\" \\ \ud83d\ude00"#,
            r#"say \"h\u00E9\" \\ \uD83D\uDE00"#,
        ] {
            assert_eq!(r.redact(text), "<var:Q:json>", "{text}");
        }
        // Non-ASCII percent-encoded, either case.
        let r = Redactor::new([("CITY", "Zürich")]);
        assert_eq!(r.redact("/to/Z%C3%BCrich"), "/to/<var:CITY:url>");
        assert_eq!(r.redact("/to/Z%c3%bcrich"), "/to/<var:CITY:url>");
        assert_eq!(
            r.redact("Z&uuml;rich"),
            "Z&uuml;rich",
            "not an entity it reads"
        );
        assert_eq!(r.redact("Z&#252;rich"), "<var:CITY:html>");
    }

    #[test]
    fn an_encoded_marker_comes_back_in_its_encoding() {
        let r = Redactor::new([("PASSWORD", "Qz w&x/y@k9")]);
        for text in [
            "?p=Qz%20w%26x%2Fy%40k9",
            "?p=Qz+w%26x%2Fy%40k9",
            "Qz w&amp;x/y@k9",
            "a Qz w&x/y@k9 b",
        ] {
            let redacted = r.redact(text);
            assert!(!redacted.contains("k9"), "{redacted}");
            assert_eq!(r.unredact(&redacted), text);
        }
        // A replay shows the live value, encoded as the recording was.
        let live = Redactor::new([("PASSWORD", "a b/c")]);
        assert_eq!(live.unredact("?p=<var:PASSWORD:form>"), "?p=a+b%2Fc");
        assert_eq!(live.unredact("/<var:PASSWORD:url>"), "/a%20b%2Fc");
        let markers: Vec<(&str, &str)> = live.replacements().collect();
        assert!(
            markers.contains(&("<var:PASSWORD:form>", "a+b%2Fc")),
            "{markers:?}"
        );
    }

    /// Issue 29 item 9: a short value is replaced where it stands as the value, never inside
    /// other words or an identifier's words; a long one everywhere.
    #[test]
    fn a_short_value_is_replaced_only_where_it_stands_as_the_value() {
        let r = Redactor::new([("EMAIL", "shop")]);
        // Whole strings and whole words.
        assert_eq!(r.redact("shop"), "<var:EMAIL>");
        assert_eq!(r.redact("Welcome, shop!"), "Welcome, <var:EMAIL>!");
        assert_eq!(r.redact("Welcome, shop."), "Welcome, <var:EMAIL>.");
        assert_eq!(r.redact("/shop/cart"), "/<var:EMAIL>/cart");
        assert_eq!(
            r.redact("x%40shop"),
            "x%40<var:EMAIL>",
            "an escaped neighbour"
        );
        // Inside other words, or joined by a `.` into an identifier.
        for text in [
            "shopping",
            "workshop",
            "com.example.shop",
            "shop.example.org",
            "shop_1",
        ] {
            assert_eq!(r.redact(text), text);
        }
        // An identifier: the whole of it, or a word of a URL's query or fragment.
        assert_eq!(r.redact_id("com.example.shop-dev"), "com.example.shop-dev");
        assert_eq!(r.redact_id("http://h/shop/x"), "http://h/shop/x");
        assert_eq!(r.redact_id("shop"), "<var:EMAIL>");
        assert_eq!(
            r.redact_id("http://h/shop/x?who=shop#shop"),
            "http://h/shop/x?who=<var:EMAIL>#<var:EMAIL>"
        );
        let mut v = serde_json::json!({
            "app": "com.example.shop-dev",
            "url": "shop://catalog?q=shop",
            "label": "shop",
        });
        r.redact_value(&mut v);
        assert_eq!(
            v,
            serde_json::json!({
                "app": "com.example.shop-dev",
                "url": "shop://catalog?q=<var:EMAIL>",
                "label": "<var:EMAIL>",
            })
        );
        let mut call = serde_json::json!({"kind": "launch", "app": "com.example.shop"});
        r.redact_data(&mut call);
        assert_eq!(call["app"], "com.example.shop");
        // One letter: `e.g.` and every word around it stay.
        let r = Redactor::new([("PASSWORD", "e")]);
        let hint = "Add more terms to disambiguate (e.g. role=button text=\"Sign in\").";
        assert_eq!(r.redact(hint), hint);
        assert_eq!(r.redact("typed e"), "typed <var:PASSWORD>");
        // From 8 characters on, a value is a secret anywhere.
        assert_eq!(SECRET_CHARS, 8);
        let r = Redactor::new([("T", "zq7tenan"), ("U", "zq7tena")]);
        assert_eq!(r.redact_id("org.zq7tenant.shop"), "org.<var:T>t.shop");
        let r = Redactor::new([("U", "zq7tena")]);
        assert_eq!(r.redact_id("org.zq7tenant.shop"), "org.zq7tenant.shop");
        assert_eq!(r.redact("xzq7tenax"), "xzq7tenax");
    }

    #[test]
    fn precedence_and_redaction() {
        let mut s = Scope::new(
            &[kv("AD_SESSION", "s1")],
            &[kv("A", "file"), kv("B", "b")],
            &[kv("A", "shell")],
            &[kv("A", "cli-value")],
        )
        .unwrap();
        assert_eq!(s.expand("${A}/${B}/${C:-x}").unwrap(), "cli-value/b/x");
        assert_eq!(s.redact("typed cli-value"), "typed <var:A>");
        assert_eq!(s.redact("s1"), "s1");
        s.expand("${AD_SESSION}").unwrap();
        assert_eq!(s.redact("s1"), "<var:AD_SESSION>");
        assert_eq!(
            s.expand("${NOPE}"),
            Err(Unresolved {
                name: "NOPE".into()
            })
        );
    }

    #[test]
    fn redaction_is_one_pass_longest_first_and_never_rescans() {
        let r = Redactor::new([("A", "pass"), ("B", "password"), ("C", "var"), ("D", "$")]);
        // Longest first at each position; the shorter value inside a longer one stays whole.
        assert_eq!(r.redact("password pass"), "<var:B> <var:A>");
        // Emitted text is never scanned again: `var` does not rewrite `<var:B>`.
        assert_eq!(r.redact("var password"), "<var:C> <var:B>");
        assert_eq!(r.redact("a $ b"), "a <var:D> b");
        // A value that is part of a placeholder name or of `<var:`.
        let r = Redactor::new([("X", "<var:"), ("Y", "A")]);
        assert_eq!(r.redact("<var:A>"), "<var:X><var:Y>>");
        // Multi-byte text around a value: a short one inside a word stays.
        let r = Redactor::new([("S", "é")]);
        assert_eq!(r.redact("café é"), "café <var:S>");
    }

    #[test]
    fn one_character_values_leave_structure_alone() {
        let r = Redactor::new([("PASSWORD", "x")]);
        let mut v = serde_json::json!({
            "replayPath": "examples/divergent/reshuffled-login.ad",
            "role": "textfield",
            "message": "typed x into the field",
            "nodes": [{"role": "textbox", "label": "x"}],
        });
        r.redact_value(&mut v);
        assert_eq!(v["replayPath"], "examples/divergent/reshuffled-login.ad");
        assert_eq!(v["role"], "textfield");
        assert_eq!(v["nodes"][0]["role"], "textbox");
        assert_eq!(v["message"], "typed <var:PASSWORD> into the field");
        assert_eq!(v["nodes"][0]["label"], "<var:PASSWORD>");
    }

    #[test]
    fn a_malformed_entry_never_echoes_its_value() {
        for bad in ["S3cr3t-Zebra-9911", "=S3cr3t-Zebra-9911", ""] {
            let e = parse_cli_entries(&["A=1".into(), bad.into()]).unwrap_err();
            assert!(!e.contains("S3cr3t"), "{e}");
            assert!(e.contains("entry #2"), "{e}");
            assert!(e.contains("expected KEY=VALUE"), "{e}");
        }
    }

    #[test]
    fn cli_entries() {
        assert!(parse_cli_entries(&["=x".into()]).is_err());
        assert!(parse_cli_entries(&["ad=x".into()]).is_err());
        assert!(parse_cli_entries(&["AD_X=1".into()]).is_err());
        assert_eq!(
            parse_cli_entries(&["K=a=b".into()]).unwrap(),
            vec![kv("K", "a=b")]
        );
    }

    #[test]
    fn placeholders_are_one_pass_longest_first_and_never_rescan_emitted_text() {
        // ADR 0017's corner cases: `ABC` inside the placeholder `${ABC}` of an earlier pair.
        let r = Redactor::placeholders([("ABC", "somethinglong"), ("OTHER", "ABC")]);
        assert_eq!(r.redact("x somethinglong ABC"), "x ${ABC} ${OTHER}");
        // A literal that is a prefix of another is never partially consumed.
        let r = Redactor::placeholders([("USER", "demo"), ("PASSWORD", "demo-secret")]);
        assert_eq!(r.redact("demo-secret/demo"), "${PASSWORD}/${USER}");
        // `$` as a literal does not corrupt the placeholders it emits.
        let r = Redactor::placeholders([("A", "pw"), ("D", "$")]);
        assert_eq!(r.redact("pw$pw"), "${A}${D}${A}");
        // Already-parameterized text is stable (idempotent on emitted placeholders).
        let r = Redactor::placeholders([("PASSWORD", "PASS")]);
        assert_eq!(r.redact("${PASSWORD}"), "${PASSWORD}");
        // One literal under two names: the first registered wins.
        let r = Redactor::placeholders([("FIRST", "same"), ("SECOND", "same")]);
        assert_eq!(r.redact("same"), "${FIRST}");
    }

    #[test]
    fn keys_are_redacted_too_but_the_records_own_field_names_stay() {
        let r = Redactor::placeholders([("PW", "hunter2"), ("L", "abe")]);
        let mut v = serde_json::json!({
            "hunter2": {"x-hunter2-y": "hunter2", "label": "abe"},
            "list": [{"hunter2": 1}],
        });
        r.redact_value(&mut v);
        assert_eq!(
            v,
            serde_json::json!({
                "${PW}": {"x-${PW}-y": "${PW}", "label": "${L}"},
                "list": [{"${PW}": 1}],
            })
        );
        // A typed record keeps its shape: `label` contains `abe` but is a field name (and a
        // short value inside a word stays).
        let scope = {
            let mut s = Scope::default();
            s.protect_literal("PW", "hunter2");
            s.protect_literal("L", "abe");
            s
        };
        let result = crate::core::records::StepResult::Response {
            response: serde_json::json!({"hunter2": "label"}),
        };
        let redacted = scope.redacted(result).expect("still a StepResult");
        assert_eq!(
            serde_json::to_value(redacted).unwrap()["response"],
            serde_json::json!({"${PW}": "label"})
        );
    }

    #[test]
    fn recorded_literals_expand_for_their_fill_and_blank_ones_stay_fill_scoped() {
        let mut s = Scope::new(&[], &[], &[], &[("X".into(), "xv".into())]).unwrap();
        s.record_literal("PW", "hunter2");
        assert_eq!(s.expand("${PW}").unwrap(), "hunter2");
        assert_eq!(s.redact("hunter2 xv"), "${PW} <var:X>");
        s.end_fill_scope("PW");
        assert!(s.expand("${PW}").is_err(), "the literal no longer expands");
        assert_eq!(s.redact("hunter2"), "${PW}", "but stays redacted");
        s.record_literal("BLANK", " ");
        // During its fill, a string holding a blank literal collapses to the placeholder.
        assert_eq!(s.redact("a b"), "${BLANK}");
        assert_eq!(s.redact("ab"), "ab");
        s.end_fill_scope("BLANK");
        assert_eq!(s.redact("a b"), "a b");
    }
}
