//! What is at a position: which line kind, which token, which argument of which command, the
//! text typed so far. Everything here reads the syntax tree, the lowered steps and the registry;
//! nothing re-parses the language.

use ad_compiler::lower::Step;
use ad_compiler::registry::{ArgKind, CommandSpec, FlagSpec, FlagValue, Form};
use ad_compiler::Analysis;
use ad_grammar::text::is_numeric;
use ad_grammar::{LineKind, Span, Token};

use crate::document::Document;
use crate::text_map::ValueMap;

/// The step lowered from line `index`.
pub fn step_for_line(analysis: &Analysis, index: usize) -> Option<&Step<'_>> {
    analysis
        .steps()
        .binary_search_by_key(&index, |s| s.line())
        .ok()
        .map(|i| &analysis.steps()[i])
}

/// 1-based replay step number of the step on line `index` (as `--from N` counts).
pub fn step_number(analysis: &Analysis, index: usize) -> Option<usize> {
    analysis
        .steps()
        .binary_search_by_key(&index, |s| s.line())
        .ok()
        .map(|i| i + 1)
}

/// Is line `index` before the first action (in the header a `context`/`env` line belongs to)?
pub fn in_header(analysis: &Analysis, index: usize) -> bool {
    analysis.steps().first().is_none_or(|s| s.line() >= index)
}

/// The token under `offset` for hover-like requests: the one containing it, else one ending
/// right at it.
pub fn token_at(tokens: &[Token], offset: usize) -> Option<usize> {
    tokens
        .iter()
        .position(|t| t.span().start() <= offset && offset < t.span().end())
        .or_else(|| tokens.iter().position(|t| t.span().end() == offset))
}

/// Where a completion is requested on an action line.
pub struct ArgPlace<'a> {
    pub action: ad_grammar::Action<'a>,
    pub spec: Option<&'static CommandSpec>,
    /// Token index at the cursor (`tokens.len()` for a token not typed yet).
    pub token: usize,
    /// The token text up to the cursor, decoded, with its map to the source.
    pub prefix: ValueMap,
    pub quoted: bool,
}

pub enum Place<'a> {
    /// The command word of an action line, or a blank line.
    Command {
        replace: Span,
        prefix: String,
        header: bool,
    },
    Argument(ArgPlace<'a>),
    /// A `context` line: the word being typed.
    Context {
        replace: Span,
        prefix: String,
    },
    /// The key of an `env` directive being typed.
    EnvKey {
        replace: Span,
    },
    Nothing,
}

/// Classifies the cursor for completion.
pub fn place<'a>(doc: &'a Document, analysis: &'a Analysis, offset: usize) -> Place<'a> {
    let text = doc.text.as_str();
    let Some(line) = doc.line_at(offset) else {
        return Place::Command {
            replace: Span::new(offset, offset),
            prefix: String::new(),
            header: true,
        };
    };
    // Past the line's content (trailing whitespace counts as "after the last token").
    let offset = offset.clamp(line.span.start(), line.span.end());
    let header = in_header(analysis, line.index());
    match &line.kind {
        LineKind::Blank => Place::Command {
            replace: Span::new(offset, offset),
            prefix: String::new(),
            header,
        },
        LineKind::Comment(_) | LineKind::Annotation(_) => Place::Nothing,
        LineKind::Env(env) => {
            if offset < env.key.start()
                || offset > env.key.end()
                || env.value.is_some_and(|v| offset >= v.start())
            {
                if offset <= env.keyword.end() {
                    return command_word(text, env.keyword, offset, header);
                }
                return Place::Nothing;
            }
            Place::EnvKey {
                replace: Span::new(env.key.start(), offset),
            }
        }
        LineKind::Context(c) => {
            let first = c.tokens.first().map(|t| t.span()).unwrap_or(line.content);
            if offset <= first.end() {
                return command_word(text, first, offset, header);
            }
            let start = text[..offset]
                .rfind(|c: char| c.is_whitespace())
                .map(|i| i + 1)
                .unwrap_or(line.content.start())
                .max(line.content.start());
            Place::Context {
                replace: Span::new(start, offset),
                prefix: text[start..offset].to_string(),
            }
        }
        LineKind::Action(stored) => {
            let action = analysis.file().read_action(line, stored);
            let tokens = &action.tokens;
            let first = tokens[0].span();
            if offset <= first.end() {
                return command_word(text, first, offset, header);
            }
            // The token holding the cursor, or a new one after the last token before it.
            let (token, start) = match tokens
                .iter()
                .position(|t| t.span().start() < offset && offset <= t.span().end())
            {
                Some(i) => {
                    let t = &tokens[i];
                    let closed = t.error().is_none() && t.raw(text).starts_with('"');
                    if closed && offset == t.span().end() {
                        // Right after a closing quote: nothing to complete in that token.
                        return Place::Nothing;
                    }
                    (i, t.span().start())
                }
                None => (
                    tokens.iter().filter(|t| t.span().end() < offset).count(),
                    offset,
                ),
            };
            let raw = &text[start..offset];
            let prefix = ValueMap::new(raw, start);
            Place::Argument(ArgPlace {
                action,
                spec: ad_compiler::registry::lookup(&tokens[0].value(text)),
                token,
                quoted: raw.starts_with('"'),
                prefix,
            })
        }
    }
}

fn command_word<'a>(text: &str, word: Span, offset: usize, header: bool) -> Place<'a> {
    let start = word.start().min(offset);
    let raw = &text[start..offset];
    let (start, prefix) = match raw.strip_prefix('"') {
        Some(rest) => (start + 1, rest),
        None => (start, raw),
    };
    Place::Command {
        replace: Span::new(start, offset),
        prefix: prefix.to_string(),
        header,
    }
}

/// What an argument token (at `place.token`) is, from the tokens before it.
pub struct ArgRole {
    /// The value flag this token is the value of.
    pub flag_value_of: Option<&'static FlagSpec>,
    /// 0-based positional index (flags and their values not counted).
    pub positional: usize,
    /// Values of the positionals before it.
    pub before: Vec<String>,
}

pub fn arg_role(text: &str, place: &ArgPlace) -> ArgRole {
    let tokens = &place.action.tokens;
    let mut before = Vec::new();
    let mut i = 1;
    let mut flag_value_of = None;
    while i < place.token.min(tokens.len()) {
        let v = tokens[i].value(text);
        if let Some(flag) = place.spec.and_then(|s| s.flag(&v)) {
            if !matches!(flag.value, FlagValue::Switch(_)) {
                if i + 1 == place.token {
                    flag_value_of = Some(flag);
                }
                i += 2;
                continue;
            }
            i += 1;
            continue;
        }
        before.push(v.to_string());
        i += 1;
    }
    ArgRole {
        flag_value_of,
        positional: before.len(),
        before,
    }
}

/// Does a typed value fit a positional kind (for choosing among a command's forms)?
fn fits(kind: ArgKind, value: &str) -> bool {
    let var = value.contains("${");
    match kind {
        ArgKind::Enum(words) => words.iter().any(|w| w.eq_ignore_ascii_case(value)) || var,
        ArgKind::Coordinate | ArgKind::Number | ArgKind::DurationMs | ArgKind::Integer { .. } => {
            is_numeric(value) || var
        }
        ArgKind::Ref => value.starts_with('@'),
        ArgKind::Selector => !value.starts_with('@') && !is_numeric(value),
        ArgKind::Target => !is_numeric(value),
        _ => true,
    }
}

/// The kinds the positional at `index` can have, given the values before it, over every form
/// of the command that still fits, with the positional's name.
pub fn positional_kinds(spec: &CommandSpec, before: &[String]) -> Vec<(ArgKind, &'static str)> {
    let mut out: Vec<(ArgKind, &'static str)> = Vec::new();
    for form in spec.forms {
        if let Some(p) = form_slot(form, before) {
            if !out.iter().any(|(k, n)| *k == p.0 && *n == p.1) {
                out.push(p);
            }
        }
    }
    out
}

/// The first form all of `values` fit.
pub fn fitting_form<'s>(spec: &'s CommandSpec, values: &[String]) -> Option<&'s Form> {
    spec.forms.iter().find(|f| {
        let n = f.positionals.len();
        let variadic = f.positionals.last().is_some_and(|p| p.variadic);
        let required = f.positionals.iter().filter(|p| !p.optional).count();
        (values.len() <= n || variadic)
            && values.len() >= required.min(n)
            && values.iter().enumerate().all(|(i, v)| {
                let p = f.positionals.get(i).or(f.positionals.last());
                p.is_some_and(|p| p.variadic || fits(p.kind, v))
            })
    })
}

/// The kind and name of the positional after `before` in `form`, when `form` fits them.
pub fn form_slot(form: &Form, before: &[String]) -> Option<(ArgKind, &'static str)> {
    let ps = form.positionals;
    for (i, v) in before.iter().enumerate() {
        let p = match ps.get(i) {
            Some(p) => p,
            None => {
                let last = ps.last()?;
                if !last.variadic {
                    return None;
                }
                last
            }
        };
        // A variadic positional's later tokens are joined into it: only its first must fit.
        if (!p.variadic || i < ps.len()) && !fits(p.kind, v) {
            return None;
        }
    }
    let p = ps
        .get(before.len())
        .or_else(|| ps.last().filter(|p| p.variadic))?;
    Some((p.kind, p.name))
}

#[cfg(test)]
mod tests {
    use super::*;
    use ad_compiler::registry::lookup;

    fn v(s: &[&str]) -> Vec<String> {
        s.iter().map(|x| x.to_string()).collect()
    }

    #[test]
    fn forms_narrow_by_what_was_typed() {
        let gesture = lookup("gesture").unwrap();
        let kinds = positional_kinds(gesture, &v(&["fling"]));
        assert!(matches!(kinds[0].0, ArgKind::Enum(w) if w.contains(&"up")));
        let scroll = lookup("scroll").unwrap();
        assert!(
            matches!(positional_kinds(scroll, &[])[0].0, ArgKind::Enum(w) if w.contains(&"bottom"))
        );
        let click = lookup("click").unwrap();
        let first = positional_kinds(click, &[]);
        assert!(first.iter().any(|(k, _)| *k == ArgKind::Selector));
        assert!(positional_kinds(click, &v(&["10"]))
            .iter()
            .any(|(_, n)| *n == "y"));
    }
}
