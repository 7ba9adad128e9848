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
    redactions: Vec<(String, String)>,
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
            redactions: Vec::new(),
        };
        s.rebuild_redactions();
        Ok(s)
    }

    pub fn get(&self, name: &str) -> Option<&str> {
        self.values.get(name).map(String::as_str)
    }

    fn rebuild_redactions(&mut self) {
        let mut r: Vec<(String, String)> = self
            .values
            .iter()
            .filter(|(k, v)| {
                !v.is_empty() && (!k.starts_with("AD_") || self.expanded_builtins.contains(*k))
            })
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        r.sort_by(|a, b| b.1.len().cmp(&a.1.len()).then(a.0.cmp(&b.0)));
        self.redactions = r;
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

    /// Replaces every injected value with `<var:NAME>` (longest value first).
    pub fn redact(&self, s: &str) -> String {
        let mut out = s.to_string();
        for (name, value) in &self.redactions {
            if out.contains(value.as_str()) {
                out = out.replace(value.as_str(), &format!("<var:{name}>"));
            }
        }
        out
    }

    /// Redacts every string leaf (and key) of a JSON value.
    pub fn redact_value(&self, v: &mut Value) {
        if self.redactions.is_empty() {
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
            Value::Object(m) => m.values_mut().for_each(|x| self.redact_value(x)),
            _ => {}
        }
    }

    pub fn has_redactions(&self) -> bool {
        !self.redactions.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kv(k: &str, v: &str) -> (String, String) {
        (k.into(), v.into())
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
}
