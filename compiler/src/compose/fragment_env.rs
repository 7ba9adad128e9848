//! The fix of an `env` line in a fragment (AD801). A fragment takes its values from the parent
//! or the run; a default of its own is the placeholder's fallback. So the fix removes the line
//! and writes its value as the fallback of each of the fragment's `${KEY}` without one
//! (`${KEY:-value}`): where the parent or the run supplies KEY it still wins, elsewhere the
//! fragment keeps the value it meant to have.

use ad_grammar::tree::LineKind;
use ad_grammar::{Edit, Span};

/// The edits for the `env` directive on 0-based line `line` of `fragment`, when its value can be
/// written as a fallback as is (no whitespace, quotes, backslashes, braces or `$`, which the
/// token reader or the interpolator would read differently).
pub fn fix(fragment: &str, line: usize) -> Option<Vec<Edit>> {
    let prepared = super::lines::SourceLines::new(fragment).blank_composition_lines();
    let parse = ad_grammar::parse(&prepared);
    let env_line = parse.file.lines.get(line)?;
    let LineKind::Env(env) = &env_line.kind else {
        return None;
    };
    let key = &prepared[env.key.range()];
    let value = env.decoded.as_deref()?;
    let plain = |c: char| {
        !c.is_whitespace() && !c.is_control() && !matches!(c, '"' | '\\' | '{' | '}' | '$')
    };
    if key.is_empty() || !value.chars().all(plain) {
        return None;
    }
    // The line and its line break go.
    let end = parse
        .file
        .lines
        .get(line + 1)
        .map_or(fragment.len(), |l| l.span.start());
    let mut edits = vec![Edit {
        span: Span::new(env_line.span.start(), end),
        replacement: String::new(),
    }];
    for l in &parse.file.lines {
        if !matches!(l.kind, LineKind::Action(_)) {
            continue;
        }
        let content = &prepared[l.content.range()];
        for p in ad_grammar::placeholder::placeholders(content) {
            // Only a placeholder written plainly: `${KEY}`, its closing brace the last byte.
            if p.fallback.is_some() || p.name(content) != key || p.span.len() != key.len() + 3 {
                continue;
            }
            let close = l.content.start() + p.span.end - 1;
            edits.push(Edit {
                span: Span::new(close, close),
                replacement: format!(":-{value}"),
            });
        }
    }
    Some(edits)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn apply(text: &str, mut edits: Vec<Edit>) -> String {
        edits.sort_by_key(|e| std::cmp::Reverse(e.span.start()));
        let mut out = text.to_string();
        for e in edits {
            out.replace_range(e.span.range(), &e.replacement);
        }
        out
    }

    #[test]
    fn the_value_becomes_the_fallback_of_each_use() {
        let text = "fragment-v1\ncontext platform=ios target=mobile\nenv WHO=demo@example.com\nfill \"id=a\" \"${WHO}\"\ntype ${WHO}\nfill \"id=b\" \"${WHO:-x}\"\n";
        let edits = fix(text, 2).unwrap();
        assert_eq!(
            apply(text, edits),
            "fragment-v1\ncontext platform=ios target=mobile\nfill \"id=a\" \"${WHO:-demo@example.com}\"\ntype ${WHO:-demo@example.com}\nfill \"id=b\" \"${WHO:-x}\"\n"
        );
    }

    #[test]
    fn a_value_the_readers_would_change_has_no_fix() {
        for value in ["\"a b\"", "a}b", "a$b", "a\\b"] {
            let text = format!("fragment-v1\nenv WHO={value}\ntype ${{WHO}}\n");
            assert!(fix(&text, 1).is_none(), "{value}");
        }
    }
}
