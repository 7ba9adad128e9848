//! Variables (spec §6): the scope (`-e` > `AD_VAR_*` > `env` directives > built-ins), late
//! per-step interpolation, and redaction of injected values as `<var:NAME>`.

use std::collections::{BTreeMap, BTreeSet};

use ad_grammar::metadata::is_var_name;
use ad_grammar::placeholder::interpolate;
use serde_json::{Map, Value};

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
/// reports, observations, persisted sessions).
///
/// One left-to-right pass: at each position the longest registered value that starts there is
/// replaced, and the scan resumes after it, so emitted `<var:NAME>` text is never re-scanned (a
/// value `var` or `<` cannot corrupt it) and a value that is part of a longer one never splits it.
#[derive(Debug, Clone, PartialEq)]
pub struct Redactor {
    /// (replacement, value), longest value first (ties by registration order).
    values: Vec<(String, String)>,
    /// First bytes of the values: most positions are rejected with one lookup.
    first_bytes: [bool; 256],
    /// The `${NAME}` placeholders it emits: already-parameterized text is copied as is, so a
    /// second pass (or a literal inside a name, or `$`) never rewrites a placeholder.
    placeholders: Vec<String>,
    /// Whitespace-only `--record-as` literals (fill-scoped): inline replacement cannot tell
    /// them from ordinary separators, so a string containing one becomes its placeholder whole
    /// (ADR 0017).
    collapse: Vec<(String, String)>,
}

/// JSON keys whose values are structure, never data an injected value flows into: paths, codes,
/// kinds, roles, digests. [`Redactor::redact_value`] leaves them alone, so a one-character or
/// common-word value cannot rewrite `"replayPath"` or `"role"`. Not `app`: an app id or URL is
/// opened from a variable (`open "${BASE}/login.html"`), so it is data.
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

impl Default for Redactor {
    fn default() -> Self {
        Redactor::new([])
    }
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
        let mut values: Vec<(String, String)> = Vec::new();
        let mut collapse: Vec<(String, String)> = Vec::new();
        for (replacement, v) in entries {
            if v.is_empty() || values.iter().chain(&collapse).any(|(_, seen)| seen == v) {
                continue;
            }
            if replacement.starts_with("${") && v.trim().is_empty() {
                collapse.push((replacement, v.to_string()));
            } else {
                values.push((replacement, v.to_string()));
            }
        }
        // Stable: equal lengths keep their priority order.
        values.sort_by_key(|v| std::cmp::Reverse(v.1.len()));
        let mut first_bytes = [false; 256];
        for (_, v) in &values {
            first_bytes[v.as_bytes()[0] as usize] = true;
        }
        let placeholders: Vec<String> = values
            .iter()
            .filter(|(r, _)| r.starts_with("${"))
            .map(|(r, _)| r.clone())
            .collect();
        if !placeholders.is_empty() {
            first_bytes[b'$' as usize] = true;
        }
        Redactor {
            values,
            first_bytes,
            placeholders,
            collapse,
        }
    }

    pub fn is_empty(&self) -> bool {
        self.values.is_empty() && self.collapse.is_empty()
    }

    /// (replacement, value) pairs: what each `<var:NAME>` (or `${NAME}`) stands for.
    pub fn replacements(&self) -> impl Iterator<Item = (&str, &str)> {
        self.values.iter().map(|(r, v)| (r.as_str(), v.as_str()))
    }

    /// `s` with every registered value replaced by `<var:NAME>` (or `${NAME}`).
    pub fn redact(&self, s: &str) -> String {
        if let Some((replacement, _)) = self.collapse.iter().find(|(_, v)| s.contains(v.as_str())) {
            return replacement.clone();
        }
        if self.values.is_empty() {
            return s.to_string();
        }
        let bytes = s.as_bytes();
        let mut out = String::with_capacity(s.len());
        let (mut i, mut copied) = (0, 0);
        while i < bytes.len() {
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
            let hit = self.first_bytes[bytes[i] as usize]
                .then(|| {
                    self.values
                        .iter()
                        .find(|(_, v)| bytes[i..].starts_with(v.as_bytes()))
                })
                .flatten();
            match hit {
                Some((replacement, value)) => {
                    out.push_str(&s[copied..i]);
                    out.push_str(replacement);
                    i += value.len();
                    copied = i;
                }
                // Whole characters only: a value always starts on a character boundary.
                None => i += utf8_width(bytes[i]),
            }
        }
        out.push_str(&s[copied..]);
        out
    }

    /// Redacts every string leaf of a JSON value, except under `STRUCTURAL_KEYS`, and every
    /// object key but the records' own field names ([`crate::records::field_names`]): a
    /// backend's free-form response can carry a value as a key (ADR 0017).
    pub fn redact_value(&self, v: &mut Value) {
        if self.is_empty() {
            return;
        }
        match v {
            Value::String(s) => {
                let r = self.redact(s);
                if r != *s {
                    *s = r;
                }
            }
            Value::Array(a) => a.iter_mut().for_each(|x| self.redact_value(x)),
            Value::Object(m) => {
                for (k, x) in m.iter_mut() {
                    if !STRUCTURAL_KEYS.contains(&k.as_str()) {
                        self.redact_value(x);
                    }
                }
                let renamed = |k: &String| {
                    let r = self.redact(k);
                    (r != *k && !crate::records::field_names().contains(k)).then_some(r)
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

impl Redactor {
    /// What [`Redactor::redact`] took out, put back: each replacement this redactor writes
    /// becomes its value again. A persisted session is saved redacted and restored with the
    /// resuming run's values (text that held a replacement literally is not told apart).
    pub fn unredact(&self, s: &str) -> String {
        let mut out = String::with_capacity(s.len());
        let mut rest = s;
        while let Some(at) = rest.find(['<', '$']) {
            out.push_str(&rest[..at]);
            rest = &rest[at..];
            match self
                .values
                .iter()
                .find(|(r, _)| rest.starts_with(r.as_str()))
            {
                Some((replacement, value)) => {
                    out.push_str(value);
                    rest = &rest[replacement.len()..];
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
            "annann@example.organn",
            "é ann é",
        ] {
            let redacted = r.redact(text);
            for value in ["ann", "<tok>", "$5"] {
                assert!(!redacted.contains(value), "{redacted}");
            }
            assert_eq!(r.unredact(&redacted), text);
        }
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
        // Multi-byte text around a value.
        let r = Redactor::new([("S", "é")]);
        assert_eq!(r.redact("café é"), "caf<var:S> <var:S>");
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
        // A typed record keeps its shape: `label` contains `abe` but is a field name.
        let scope = {
            let mut s = Scope::default();
            s.protect_literal("PW", "hunter2");
            s.protect_literal("L", "abe");
            s
        };
        let result = crate::records::StepResult::Response {
            response: serde_json::json!({"hunter2": "label"}),
        };
        let redacted = scope.redacted(result).expect("still a StepResult");
        assert_eq!(
            serde_json::to_value(redacted).unwrap()["response"],
            serde_json::json!({"${PW}": "l${L}l"})
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
