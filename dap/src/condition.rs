//! Breakpoint conditions: a comparison of texts with `${VAR}` placeholders, evaluated with the
//! run's variables when the breakpoint's step is reached.
//!
//! ```text
//! condition := operand | operand "==" operand | operand "!=" operand
//! operand   := text with ${VAR} / ${VAR:-fallback} placeholders, trimmed
//!            | a JSON string literal ("a b", "" for the empty text)
//! ```
//!
//! `${USER} == alice` holds when the variable `USER` is `alice`; `${RETRIES} != 0`; a lone
//! operand (`${DEBUG}`) holds when it expands to a non-empty text other than `false` and `0`.
//! A variable without a value makes the condition an error: the breakpoint stops and says so.

/// A parsed condition.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Condition {
    left: String,
    comparison: Option<(Comparison, String)>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Comparison {
    Equal,
    NotEqual,
}

impl Condition {
    /// Reads `text`; `Err` says what is wrong (shown on the breakpoint).
    pub fn parse(text: &str) -> Result<Condition, String> {
        let at = operator_position(text);
        let (left, comparison) = match at {
            None => (operand(text)?, None),
            Some((i, op)) => {
                let comparison = if op == "==" {
                    Comparison::Equal
                } else {
                    Comparison::NotEqual
                };
                let right = operand(&text[i + 2..])?;
                if operator_position(&text[i + 2..]).is_some() {
                    return Err("a condition compares two operands: quote a text holding `==` or `!=` (\"a == b\")".into());
                }
                (operand(&text[..i])?, Some((comparison, right)))
            }
        };
        Ok(Condition { left, comparison })
    }

    /// Evaluates it, `expand` giving each operand's text with the run's variables.
    pub fn holds(
        &self,
        mut expand: impl FnMut(&str) -> Result<String, String>,
    ) -> Result<bool, String> {
        let left = expand(&self.left)?;
        Ok(match &self.comparison {
            None => !left.is_empty() && left != "false" && left != "0",
            Some((op, right)) => {
                let right = expand(right)?;
                (left == right) == (*op == Comparison::Equal)
            }
        })
    }
}

/// The first `==` or `!=` outside a JSON string literal.
fn operator_position(text: &str) -> Option<(usize, &'static str)> {
    let bytes = text.as_bytes();
    let mut quoted = false;
    let mut escaped = false;
    for (i, &b) in bytes.iter().enumerate() {
        if quoted {
            match b {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => quoted = false,
                _ => {}
            }
            continue;
        }
        match (b, bytes.get(i + 1)) {
            (b'"', _) => quoted = true,
            (b'=', Some(b'=')) => return Some((i, "==")),
            (b'!', Some(b'=')) => return Some((i, "!=")),
            _ => {}
        }
    }
    None
}

fn operand(text: &str) -> Result<String, String> {
    let t = text.trim();
    if t.is_empty() {
        return Err("an operand is empty: write \"\" for the empty text".into());
    }
    if t.starts_with('"') {
        return serde_json::from_str::<String>(t)
            .map_err(|_| format!("{t} is not a JSON string literal"));
    }
    Ok(t.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn eval(condition: &str, vars: &[(&str, &str)]) -> Result<bool, String> {
        let c = Condition::parse(condition)?;
        c.holds(|text| {
            ad_grammar::placeholder::interpolate(text, |name| {
                vars.iter().find(|(k, _)| *k == name).map(|(_, v)| *v)
            })
            .map_err(|u| format!("${{{}}} has no value", u.name))
        })
    }

    #[test]
    fn comparisons_hold_on_the_variables_values() {
        let vars = [("USER", "alice"), ("N", "0"), ("SPACED", "a b")];
        assert_eq!(eval("${USER} == alice", &vars), Ok(true));
        assert_eq!(eval("${USER}==bob", &vars), Ok(false));
        assert_eq!(eval("${USER} != bob", &vars), Ok(true));
        assert_eq!(eval("${SPACED} == \"a b\"", &vars), Ok(true));
        assert_eq!(eval("\"x == y\" == \"x == y\"", &vars), Ok(true));
        assert_eq!(eval("${MISSING:-dflt} == dflt", &vars), Ok(true));
        assert_eq!(eval("${USER}", &vars), Ok(true));
        assert_eq!(eval("${N}", &vars), Ok(false));
        assert_eq!(eval("${MISSING:-}", &vars), Ok(false));
    }

    #[test]
    fn bad_conditions_say_what_is_wrong() {
        assert!(Condition::parse("== x").unwrap_err().contains("empty"));
        assert!(Condition::parse("a == b == c")
            .unwrap_err()
            .contains("two operands"));
        assert!(Condition::parse("\"open == x")
            .unwrap_err()
            .contains("JSON"));
        let unresolved = eval("${NOPE} == x", &[]).unwrap_err();
        assert!(unresolved.contains("NOPE"), "{unresolved}");
    }
}
