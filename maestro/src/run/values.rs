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

/// A `${…}` this run cannot answer, with agent-device's message.
#[derive(Debug, Clone, PartialEq)]
pub struct Unresolved {
    pub expression: String,
    message: String,
}

impl Unresolved {
    fn unsupported(expression: String) -> Unresolved {
        let message =
            format!("Maestro interpolation \"{expression}\" is unresolved or unsupported.");
        Unresolved {
            expression,
            message,
        }
    }

    pub fn message(&self) -> String {
        self.message.clone()
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

    /// What a script sees as its globals: every visible variable, and the outputs so far as
    /// `output.NAME` (the lowest layer: any env of the same name shadows them).
    pub fn all(&self) -> BTreeMap<String, String> {
        let mut out: BTreeMap<String, String> = self
            .outputs
            .iter()
            .map(|(k, v)| (format!("output.{k}"), v.clone()))
            .collect();
        for s in &self.scopes {
            out.extend(s.iter().map(|(k, v)| (k.clone(), v.clone())));
        }
        out.extend(self.injected.iter().map(|(k, v)| (k.clone(), v.clone())));
        out
    }

    /// An `evalScript`'s outputs replace every earlier one (agent-device's `replaceOutput`).
    pub fn replace_outputs(&mut self, outputs: Vec<(String, String)>) {
        self.outputs.clear();
        for (k, v) in outputs {
            self.set_output(&k, &v);
        }
    }

    pub fn set_output(&mut self, name: &str, value: &str) {
        let name = name.strip_prefix("output.").unwrap_or(name);
        self.outputs.insert(name.into(), value.into());
    }

    /// `s` with every `${…}` resolved: a variable's own `${…}` too (agent-device's `d()`).
    pub fn expand(&self, s: &str) -> Result<String, Unresolved> {
        self.expand_within(s, &mut Vec::new())
    }

    fn expand_within(&self, s: &str, active: &mut Vec<String>) -> Result<String, Unresolved> {
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
                if active.iter().any(|a| a == inner) {
                    return Err(Unresolved {
                        expression: whole,
                        message: format!("Maestro variable \"{inner}\" has a cyclic reference."),
                    });
                }
                match self.get(inner) {
                    Some(v) => {
                        active.push(inner.to_string());
                        let resolved = self.expand_within(v, active)?;
                        active.pop();
                        out.push_str(&resolved);
                    }
                    None => {
                        return Err(Unresolved {
                            expression: whole,
                            message: format!("Maestro variable \"{inner}\" is not defined."),
                        })
                    }
                }
            } else if let Some(b) = self.platform_comparison(inner) {
                out.push_str(if b { "true" } else { "false" });
            } else {
                return Err(Unresolved::unsupported(whole));
            }
            rest = &tail[end + 1..];
        }
        out.push_str(rest);
        Ok(out)
    }

    /// `s` resolved when every variable it reads is known (`None` when one is not: an output
    /// or a variable defined later decides it at run time).
    pub fn expand_known(&self, s: &str) -> Option<String> {
        let mut rest = s;
        while let Some(at) = rest.find("${") {
            let tail = &rest[at + 2..];
            let end = tail.find('}')?;
            let inner = &tail[..end];
            if is_variable_name(inner)
                && (inner.starts_with("output.") || self.get(inner).is_none())
            {
                return None;
            }
            rest = &tail[end + 1..];
        }
        // Only variable lookups are replaced: an expression stays for the evaluator.
        let mut out = String::new();
        let mut rest = s;
        while let Some(at) = rest.find("${") {
            out.push_str(&rest[..at]);
            let tail = &rest[at + 2..];
            let end = tail.find('}')?;
            let inner = &tail[..end];
            if is_variable_name(inner) {
                out.push_str(&self.expand(&format!("${{{inner}}}")).ok()?);
            } else {
                out.push_str(&rest[at..at + 2 + end + 1]);
            }
            rest = &tail[end + 1..];
        }
        out.push_str(rest);
        Some(out)
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

/// agent-device's truthiness of an `assertTrue` string (exact, case-sensitive).
pub fn truthy(s: &str) -> bool {
    !matches!(s, "" | "false" | "0" | "null" | "undefined")
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
        assert_eq!(
            v.expand("${NOPE}").unwrap_err().message(),
            "Maestro variable \"NOPE\" is not defined."
        );
    }

    #[test]
    fn values_are_resolved_recursively_and_cycles_refused() {
        let mut v = values();
        v.enter(vec![
            ("A".into(), "${B}!".into()),
            ("B".into(), "${PIN}".into()),
            ("C".into(), "${C}".into()),
        ]);
        assert_eq!(v.expand("${A}").unwrap(), "1234!");
        assert_eq!(
            v.expand("${C}").unwrap_err().message(),
            "Maestro variable \"C\" has a cyclic reference."
        );
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
