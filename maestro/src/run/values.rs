//! The variables a running flow sees, and `${…}` in its strings, as agent-device's engine
//! resolves them: `${NAME}` and `${output.name}` lookups, `${maestro.platform == 'ios'}`
//! comparisons; anything else fails the step.

use std::collections::BTreeMap;

/// Scopes, outermost first: the run's own values, then each flow's and `runFlow`'s `env` as it
/// is entered. A lookup takes the innermost definition.
#[derive(Debug, Clone, Default)]
pub struct Values {
    scopes: Vec<BTreeMap<String, String>>,
    /// `-e` and `AD_VAR_*`: they override every `env` (the user's word over the flow's).
    injected: BTreeMap<String, String>,
    outputs: BTreeMap<String, String>,
    platform: String,
}

/// A `${…}` that is not a lookup this run can answer.
#[derive(Debug, Clone, PartialEq)]
pub struct Unresolved {
    pub expression: String,
}

impl Unresolved {
    pub fn message(&self) -> String {
        format!(
            "Maestro interpolation \"{}\" is unresolved or unsupported.",
            self.expression
        )
    }
}

impl Values {
    pub fn new(
        builtins: &[(String, String)],
        injected: &[(String, String)],
        platform: &str,
    ) -> Values {
        Values {
            scopes: vec![builtins.iter().cloned().collect()],
            injected: injected.iter().cloned().collect(),
            outputs: BTreeMap::new(),
            platform: platform.into(),
        }
    }

    /// Enters a scope of `env` entries, each interpolated with the values so far.
    pub fn enter(&mut self, entries: Vec<(String, String)>) {
        self.scopes.push(entries.into_iter().collect());
    }

    pub fn leave(&mut self) {
        if self.scopes.len() > 1 {
            self.scopes.pop();
        }
    }

    pub fn get(&self, name: &str) -> Option<&str> {
        if let Some(rest) = name.strip_prefix("output.") {
            return self.outputs.get(rest).map(String::as_str);
        }
        if let Some(v) = self.injected.get(name) {
            return Some(v);
        }
        self.scopes
            .iter()
            .rev()
            .find_map(|s| s.get(name))
            .map(String::as_str)
    }

    /// What a script sees as its globals: every visible variable.
    pub fn all(&self) -> BTreeMap<String, String> {
        let mut out = BTreeMap::new();
        for s in &self.scopes {
            out.extend(s.iter().map(|(k, v)| (k.clone(), v.clone())));
        }
        out.extend(self.injected.iter().map(|(k, v)| (k.clone(), v.clone())));
        out
    }

    pub fn set_output(&mut self, name: &str, value: &str) {
        let name = name.strip_prefix("output.").unwrap_or(name);
        self.outputs.insert(name.into(), value.into());
    }

    /// `s` with every `${…}` resolved.
    pub fn expand(&self, s: &str) -> Result<String, Unresolved> {
        let mut out = String::with_capacity(s.len());
        let mut rest = s;
        while let Some(at) = rest.find("${") {
            out.push_str(&rest[..at]);
            let tail = &rest[at + 2..];
            let Some(end) = tail.find('}') else {
                out.push_str(&rest[at..]);
                return Ok(out);
            };
            let inner = &tail[..end];
            let whole = format!("${{{inner}}}");
            if is_variable_name(inner) {
                match self.get(inner) {
                    Some(v) => out.push_str(v),
                    None => return Err(Unresolved { expression: whole }),
                }
            } else if let Some(b) = self.platform_comparison(inner) {
                out.push_str(if b { "true" } else { "false" });
            } else {
                return Err(Unresolved { expression: whole });
            }
            rest = &tail[end + 1..];
        }
        out.push_str(rest);
        Ok(out)
    }

    /// `maestro.platform == 'ios'` (or `!=`, either quote).
    fn platform_comparison(&self, inner: &str) -> Option<bool> {
        let t = inner.trim().strip_prefix("maestro.platform")?.trim_start();
        let (negate, t) = if let Some(t) = t.strip_prefix("==") {
            (false, t)
        } else {
            (true, t.strip_prefix("!=")?)
        };
        let t = t.trim();
        let quote = t.chars().next().filter(|c| *c == '\'' || *c == '"')?;
        let name = t.strip_prefix(quote)?.strip_suffix(quote)?;
        Some((name.eq_ignore_ascii_case(&self.platform)) != negate)
    }
}

/// `[A-Za-z_][A-Za-z0-9_.]*`.
pub fn is_variable_name(s: &str) -> bool {
    let mut chars = s.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.')
}

/// agent-device's truthiness of an `assertTrue` value or a `when.true` result.
pub fn truthy(s: &str) -> bool {
    !matches!(s.trim(), "" | "false" | "0" | "null" | "undefined")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn values() -> Values {
        let mut v = Values::new(
            &[("AD_PLATFORM".into(), "ios".into())],
            &[("USER".into(), "cli".into())],
            "ios",
        );
        v.enter(vec![
            ("USER".into(), "flow".into()),
            ("PIN".into(), "1234".into()),
        ]);
        v
    }

    #[test]
    fn lookups_take_injected_values_over_env() {
        let v = values();
        assert_eq!(v.expand("${USER}:${PIN}").unwrap(), "cli:1234");
    }

    #[test]
    fn outputs_and_platform_comparisons_resolve() {
        let mut v = values();
        v.set_output("token", "abc");
        assert_eq!(v.expand("${output.token}").unwrap(), "abc");
        assert_eq!(v.expand("${maestro.platform == 'ios'}").unwrap(), "true");
        assert_eq!(v.expand("${maestro.platform != \"ios\"}").unwrap(), "false");
    }

    #[test]
    fn expressions_and_unknown_names_fail() {
        let v = values();
        assert_eq!(
            v.expand("a ${PIN + 1}").unwrap_err().message(),
            "Maestro interpolation \"${PIN + 1}\" is unresolved or unsupported."
        );
        assert!(v.expand("${NOPE}").is_err());
    }

    #[test]
    fn leaving_a_scope_restores_the_outer_value() {
        let mut v = values();
        v.enter(vec![("PIN".into(), "0000".into())]);
        assert_eq!(v.get("PIN"), Some("0000"));
        v.leave();
        assert_eq!(v.get("PIN"), Some("1234"));
    }
}
