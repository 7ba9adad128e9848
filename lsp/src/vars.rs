//! `env` definitions and `${NAME}` uses, with source spans (definition, references, rename,
//! hover, completion and highlighting all read this).

use ad_grammar::metadata::is_var_name;
use ad_grammar::placeholder::placeholders;
use ad_grammar::{LineKind, SourceFile, Span};

use crate::text_map::token_map;

/// One `${NAME}` (or `${NAME:-fallback}`) in an action line.
#[derive(Debug, Clone)]
pub struct Use {
    pub name: String,
    /// The name's characters in the source.
    pub name_span: Span,
    /// 0-based line.
    pub line: usize,
    /// The name is spelled literally (no JSON escapes), so renaming it is a plain edit.
    pub literal: bool,
}

/// One `env NAME=value` directive.
#[derive(Debug, Clone)]
pub struct Definition {
    pub name: String,
    pub key_span: Span,
    pub line: usize,
    pub value: Option<String>,
    /// Read by agent-device (an `env` line after the first action is rejected).
    pub in_header: bool,
}

/// Every placeholder in argument tokens (interpolation applies to arguments and flag values,
/// never to the command word).
pub fn uses(file: &SourceFile) -> Vec<Use> {
    let text = file.text.as_str();
    let mut out = Vec::new();
    for (line, action) in file.actions() {
        for token in action.tokens.iter().skip(1) {
            if !token.value(text).contains("${") {
                continue;
            }
            let map = token_map(file, token.span());
            for p in placeholders(&map.value) {
                let name_span = map.span(p.name.clone());
                out.push(Use {
                    name: map.value[p.name.clone()].to_string(),
                    literal: map.is_literal(p.name.clone()),
                    name_span,
                    line: line.index(),
                });
            }
        }
    }
    out
}

pub fn definitions(file: &SourceFile) -> Vec<Definition> {
    let text = file.text.as_str();
    file.lines
        .iter()
        .filter_map(|l| match &l.kind {
            LineKind::Env(e) if !e.key.is_empty() => Some(Definition {
                name: text[e.key.range()].to_string(),
                key_span: e.key,
                line: l.index(),
                value: e.decoded.clone(),
                in_header: e.in_header,
            }),
            _ => None,
        })
        .collect()
}

/// The variable name under `offset`: in a `${NAME}` use or an `env` key.
pub fn name_at(file: &SourceFile, offset: usize) -> Option<(String, Span)> {
    let i = file.lines.partition_point(|l| l.span.start() <= offset);
    let line = file.lines.get(i.checked_sub(1)?)?;
    let text = file.text.as_str();
    match &line.kind {
        LineKind::Env(e)
            if e.key.start() <= offset && offset <= e.key.end() && !e.key.is_empty() =>
        {
            Some((text[e.key.range()].to_string(), e.key))
        }
        LineKind::Action(stored) => {
            let action = file.read_action(line, stored);
            let token = action
                .tokens
                .iter()
                .skip(1)
                .find(|t| t.span().start() <= offset && offset <= t.span().end())?;
            let map = token_map(file, token.span());
            placeholders(&map.value).find_map(|p| {
                let whole = map.span(p.span.clone());
                (whole.start() <= offset && offset <= whole.end()).then(|| {
                    (
                        map.value[p.name.clone()].to_string(),
                        map.span(p.name.clone()),
                    )
                })
            })
        }
        _ => None,
    }
}

/// Can a script (or `-e`, `AD_VAR_*`) define this name?
pub fn definable(name: &str) -> bool {
    is_var_name(name) && !name.starts_with("AD_")
}

/// How a variable gets its value at run time, highest precedence first.
pub const PRECEDENCE: &str = "`-e NAME=…` on the command line › shell `AD_VAR_NAME` › `env` \
                              directive in the script › built-ins (`AD_*`, which nothing else \
                              may define)";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_uses_inside_quoted_tokens() {
        let text = "env EMAIL=a@b.c\nfill \"id=\\\"email\\\"\" \"${EMAIL}\"\ntype ${EMAIL:-x} ${AD_SESSION}\n";
        let p = ad_grammar::parse(text);
        let u = uses(&p.file);
        assert_eq!(u.len(), 3);
        assert_eq!(&text[u[0].name_span.range()], "EMAIL");
        assert_eq!(&text[u[1].name_span.range()], "EMAIL");
        assert_eq!(u[2].name, "AD_SESSION");
        let d = definitions(&p.file);
        assert_eq!(d[0].name, "EMAIL");
        assert_eq!(d[0].value.as_deref(), Some("a@b.c"));
        let at = text.find("${EMAIL}").unwrap() + 3;
        assert_eq!(name_at(&p.file, at).unwrap().0, "EMAIL");
        assert_eq!(name_at(&p.file, 6).unwrap().0, "EMAIL");
    }
}
