//! `runFlow.when.true` as agent-device's plan evaluates a literal expression (no `${VAR}`): the
//! tokens `maestro.platform`, `==`, `!=`, `&&`, `||`, parentheses, quoted strings, `true` and
//! `false`, and comparisons of the platform with a string. The result depends on the platform;
//! what is refused does not, so this returns agent-device's message for an expression it cannot
//! evaluate.

#[derive(Debug, Clone, PartialEq)]
enum Token {
    Platform,
    Operator(&'static str),
    Paren(char),
    Str(String),
    Bool(bool),
}

/// agent-device's refusal of `expr` (the text after `${`…`}` is stripped), if any.
pub fn refusal(expr: &str) -> Option<String> {
    evaluate(expr, "ios").err()
}

/// The value of `expr` on `platform` (its variables already resolved), or agent-device's
/// refusal.
pub fn evaluate(expr: &str, platform: &str) -> Result<bool, String> {
    let t = expr.trim();
    let inner = match t.strip_prefix("${").and_then(|r| r.strip_suffix('}')) {
        Some(i) => i.trim(),
        None => t,
    };
    let tokens = tokenize(inner)?;
    let mut p = Parser {
        tokens,
        at: 0,
        platform: platform.to_lowercase(),
    };
    let value = p.or()?;
    match p.peek() {
        Some(_) => Err("Unsupported trailing runFlow.when.true expression.".into()),
        None => Ok(value),
    }
}

fn tokenize(mut s: &str) -> Result<Vec<Token>, String> {
    let mut out = Vec::new();
    loop {
        s = s.trim_start_matches(|c: char| c.is_whitespace() || c == '\u{feff}');
        if s.is_empty() {
            return Ok(out);
        }
        let (token, len) = if s.starts_with("maestro.platform") {
            (Token::Platform, 16)
        } else if let Some(op) = ["==", "!=", "&&", "||"]
            .into_iter()
            .find(|o| s.starts_with(o))
        {
            (Token::Operator(op), 2)
        } else if s.starts_with(['(', ')']) {
            (Token::Paren(s.as_bytes()[0] as char), 1)
        } else if let Some(len) = quoted(s) {
            (Token::Str(s[1..len - 1].to_lowercase()), len)
        } else if let Some(len) = boolean(s) {
            (Token::Bool(len == 4), len)
        } else {
            // `slice(0, 24)`: UTF-16 units.
            let near = String::from_utf16_lossy(&s.encode_utf16().take(24).collect::<Vec<_>>());
            return Err(format!(
                "Unsupported runFlow.when.true expression near \"{near}\"."
            ));
        };
        out.push(token);
        s = &s[len..];
    }
}

/// `^(['"])(.*?)\1`: the length of a quoted string at the start.
fn quoted(s: &str) -> Option<usize> {
    let q = s.chars().next().filter(|c| *c == '\'' || *c == '"')?;
    // `.` does not match line terminators.
    let rest = &s[1..];
    let end = rest.find([q, '\n', '\r', '\u{2028}', '\u{2029}'])?;
    (rest[end..].starts_with(q)).then_some(end + 2)
}

/// `^(true|false)\b`.
fn boolean(s: &str) -> Option<usize> {
    let len = if s.starts_with("true") {
        4
    } else if s.starts_with("false") {
        5
    } else {
        return None;
    };
    let next = s[len..].chars().next();
    (!next.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_')).then_some(len)
}

struct Parser {
    tokens: Vec<Token>,
    at: usize,
    platform: String,
}

impl Parser {
    fn peek(&self) -> Option<&Token> {
        self.tokens.get(self.at)
    }
    fn operator(&mut self, op: &'static str) -> bool {
        if self.peek() == Some(&Token::Operator(op)) {
            self.at += 1;
            true
        } else {
            false
        }
    }
    fn or(&mut self) -> Result<bool, String> {
        let mut v = self.and()?;
        while self.operator("||") {
            // Both sides are read (a refusal on the right still refuses).
            let r = self.and()?;
            v = v || r;
        }
        Ok(v)
    }
    fn and(&mut self) -> Result<bool, String> {
        let mut v = self.primary()?;
        while self.operator("&&") {
            let r = self.primary()?;
            v = v && r;
        }
        Ok(v)
    }
    fn primary(&mut self) -> Result<bool, String> {
        match self.peek().cloned() {
            None => Err("Incomplete runFlow.when.true expression.".into()),
            Some(Token::Bool(b)) => {
                self.at += 1;
                Ok(b)
            }
            Some(Token::Paren('(')) => {
                self.at += 1;
                let v = self.or()?;
                if self.peek() == Some(&Token::Paren(')')) {
                    self.at += 1;
                    Ok(v)
                } else {
                    Err("Unclosed runFlow.when.true parenthesis.".into())
                }
            }
            Some(_) => self.comparison(),
        }
    }
    fn comparison(&mut self) -> Result<bool, String> {
        if self.peek() != Some(&Token::Platform) {
            return Err("runFlow.when.true supports maestro.platform comparisons.".into());
        }
        self.at += 1;
        let equal = match self.peek() {
            Some(Token::Operator("==")) => true,
            Some(Token::Operator("!=")) => false,
            _ => return Err("runFlow.when.true comparison requires == or !=.".into()),
        };
        self.at += 1;
        let Some(Token::Str(name)) = self.peek().cloned() else {
            return Err("runFlow.when.true comparison requires a string literal.".into());
        };
        self.at += 1;
        Ok((name == self.platform) == equal)
    }
}

#[cfg(test)]
mod tests {
    use super::{evaluate, refusal};

    #[test]
    fn expressions_evaluate_on_the_platform() {
        assert_eq!(evaluate("maestro.platform == 'iOS'", "ios"), Ok(true));
        assert_eq!(
            evaluate("${maestro.platform != 'ios' || false}", "ios"),
            Ok(false)
        );
        assert_eq!(
            evaluate("(true && maestro.platform == \"android\")", "android"),
            Ok(true)
        );
    }

    #[test]
    fn what_agent_device_evaluates_and_what_it_refuses() {
        for ok in [
            "true",
            "${false}",
            "maestro.platform == 'ios'",
            "${maestro.platform != \"android\" && (true || false)}",
        ] {
            assert_eq!(refusal(ok), None, "{ok}");
        }
        assert_eq!(
            refusal("${0}").as_deref(),
            Some("Unsupported runFlow.when.true expression near \"0\".")
        );
        assert_eq!(
            refusal("maestro.platform").as_deref(),
            Some("runFlow.when.true comparison requires == or !=.")
        );
        assert_eq!(
            refusal("(true").as_deref(),
            Some("Unclosed runFlow.when.true parenthesis.")
        );
        assert_eq!(
            refusal("true true").as_deref(),
            Some("Unsupported trailing runFlow.when.true expression.")
        );
        assert_eq!(
            refusal("").as_deref(),
            Some("Incomplete runFlow.when.true expression.")
        );
        assert_eq!(
            refusal("'ios'").as_deref(),
            Some("runFlow.when.true supports maestro.platform comparisons.")
        );
    }
}
