//! Completion: command words, flags and their values, enum positionals, selector keys and
//! roles, `${` variables, `context` keys and values, `env` keys, and snippets for common steps.

use ad_compiler::builtins::BUILTIN_VARIABLES;
use ad_compiler::registry::{ArgKind, Effect, FlagValue, COMMANDS};
use ad_compiler::Analysis;
use ad_grammar::metadata::{CONTEXT_PLATFORMS, CONTEXT_TARGETS};
use ad_grammar::selector::{BOOLEAN_KEYS, COMMON_ROLES, STRING_KEYS};
use ad_grammar::Span;
use lsp_types::{
    CompletionItem, CompletionItemKind, CompletionList, CompletionParams, CompletionResponse,
    CompletionTextEdit, Documentation, InsertTextFormat, MarkupContent, MarkupKind, TextEdit,
};

use crate::cursor::{arg_role, place, positional_kinds, ArgPlace, Place};
use crate::docs;
use crate::request::Snapshot;
use crate::vars;

struct Items<'a> {
    snap: &'a Snapshot,
    items: Vec<CompletionItem>,
}

struct Item<'s> {
    label: String,
    kind: CompletionItemKind,
    detail: Option<String>,
    doc: Option<String>,
    /// Plain text to insert.
    insert: String,
    /// Snippet text, used when the client supports snippets.
    snippet: Option<String>,
    replace: Span,
    /// Sort group: lower first.
    group: u8,
    filter: Option<&'s str>,
}

impl<'a> Items<'a> {
    fn push(&mut self, item: Item) {
        // One item per label (an `is` predicate and a boolean selector key can coincide).
        if self.items.iter().any(|i| i.label == item.label) {
            return;
        }
        let doc = &self.snap.doc;
        let range = doc.lines.range(&doc.text, item.replace);
        let (new_text, format) = match (item.snippet, self.snap.caps.snippets) {
            (Some(s), true) => (s, InsertTextFormat::SNIPPET),
            _ => (item.insert, InsertTextFormat::PLAIN_TEXT),
        };
        let documentation = item.doc.map(|d| {
            if self.snap.caps.markdown {
                Documentation::MarkupContent(MarkupContent {
                    kind: MarkupKind::Markdown,
                    value: d,
                })
            } else {
                Documentation::String(d)
            }
        });
        self.items.push(CompletionItem {
            sort_text: Some(format!("{}{}", item.group, item.label)),
            filter_text: item.filter.map(str::to_string),
            label: item.label,
            kind: Some(item.kind),
            detail: item.detail,
            documentation,
            insert_text_format: Some(format),
            text_edit: Some(CompletionTextEdit::Edit(TextEdit { range, new_text })),
            ..Default::default()
        });
    }
}

pub fn completion(snap: &Snapshot, params: CompletionParams) -> Option<CompletionResponse> {
    let doc = &snap.doc;
    let analysis = doc.analysis().ok()?;
    let offset = doc
        .lines
        .offset(&doc.text, params.text_document_position.position);
    let mut items = Items {
        snap,
        items: Vec::new(),
    };
    match place(doc, analysis, offset) {
        Place::Command {
            replace,
            prefix,
            header,
        } => commands(&mut items, replace, &prefix, header),
        Place::Argument(p) => argument(&mut items, analysis, &p, offset),
        Place::Context { replace, prefix } => context(&mut items, replace, &prefix),
        Place::EnvKey { replace } => env_keys(&mut items, analysis, replace),
        Place::Nothing => {}
    }
    Some(CompletionResponse::List(CompletionList {
        is_incomplete: false,
        items: items.items,
    }))
}

/// Snippets for common steps: (label, description, snippet, plain text).
const SNIPPETS: &[(&str, &str, &str, &str)] = &[
    (
        "wait for element",
        "Wait until an element matching a selector appears, with a timeout in ms.",
        "wait \"${1|label,id,text,role|}=\\\\\"${2:Title}\\\\\"\" ${3:10000}",
        "wait \"label=\\\"Title\\\"\" 10000",
    ),
    (
        "fill with variable",
        "Fill an input with a `${NAME}` placeholder, so the value is supplied at run time (`-e NAME=…` or `AD_VAR_NAME`) and a re-recording keeps the placeholder.",
        "fill \"${1|id,label|}=\\\\\"${2:field}\\\\\"\" \"\\${${3:NAME}\\}\"",
        "fill \"id=\\\"field\\\"\" \"${NAME}\"",
    ),
    (
        "click element",
        "Click the element matching a selector.",
        "click \"${1|label,id,text,role|}=\\\\\"${2:Button}\\\\\"\"",
        "click \"label=\\\"Button\\\"\"",
    ),
    (
        "open app",
        "Open an app (bundle id or package) at the start of a script.",
        "open \"${1:com.example.app}\"",
        "open \"com.example.app\"",
    ),
];

const HEADER_SNIPPETS: &[(&str, &str, &str, &str)] = &[
    (
        "context header",
        "The script's platform and target (read by `replay` and `test`).",
        "context platform=${1|ios,android,macos,linux,apple,harmonyos,vega|} target=${2|mobile,tv,desktop|}",
        "context platform=ios target=mobile",
    ),
    (
        "env variable",
        "A default value for `${NAME}` (overridden by `AD_VAR_NAME` and `-e NAME=…`).",
        "env ${1:NAME}=${2:value}",
        "env NAME=value",
    ),
];

fn commands(items: &mut Items, replace: Span, prefix: &str, header: bool) {
    for spec in COMMANDS.iter().filter(|c| c.is_usable_in_scripts()) {
        if spec.name == "context" {
            continue;
        }
        items.push(Item {
            label: spec.name.to_string(),
            kind: CompletionItemKind::FUNCTION,
            detail: Some(
                format!("{} {}", spec.name, spec.signature)
                    .trim_end()
                    .to_string(),
            ),
            doc: Some(docs::command_markdown(spec)),
            insert: spec.name.to_string(),
            snippet: None,
            replace,
            // Device management and internal daemon requests are rare in scripts: listed last.
            group: if spec.effect == Effect::NotRecorded {
                4
            } else {
                1
            },
            filter: None,
        });
    }
    if header {
        for (kw, doc) in [
            (
                "context",
                "Header line: `context platform=… target=… timeout=… retries=…`.",
            ),
            (
                "env",
                "Header line: `env NAME=value`, a default for `${NAME}`.",
            ),
        ] {
            items.push(Item {
                label: kw.to_string(),
                kind: CompletionItemKind::KEYWORD,
                detail: Some("header".into()),
                doc: Some(doc.into()),
                insert: format!("{kw} "),
                snippet: None,
                replace,
                group: 0,
                filter: None,
            });
        }
    }
    // Snippets only where a whole line is being written.
    if prefix.is_empty() || !prefix.contains(' ') {
        let header_snippets = if header { HEADER_SNIPPETS } else { &[] };
        for (label, doc, snippet, plain) in SNIPPETS.iter().chain(header_snippets) {
            let word = plain.split(' ').next().unwrap_or(label);
            items.push(Item {
                label: label.to_string(),
                kind: CompletionItemKind::SNIPPET,
                detail: Some(plain.to_string()),
                doc: Some(doc.to_string()),
                insert: plain.to_string(),
                snippet: Some(snippet.to_string()),
                replace,
                group: 2,
                filter: Some(word),
            });
        }
    }
}

fn argument(items: &mut Items, analysis: &Analysis, p: &ArgPlace, offset: usize) {
    let text = items.snap.doc.text.as_str();
    let value = p.prefix.value.as_str();
    // `${` anywhere in an argument: variables.
    if let Some(name_start) = open_placeholder(value) {
        let start = p.prefix.to_source(name_start);
        // Replace the rest of a name already typed after the cursor, too.
        let rest = text[offset..]
            .bytes()
            .take_while(|b| b.is_ascii_alphanumeric() || *b == b'_' || *b == b'.')
            .count();
        let closed = text[offset + rest..].starts_with('}');
        variables(
            items,
            analysis,
            Span::new(start, offset + rest),
            "",
            !closed,
        );
        return;
    }
    // A lone `$` (the trigger character): offer whole placeholders.
    if value.ends_with('$') && !value.ends_with("\\$") {
        let start = p.prefix.to_source(value.len() - 1);
        variables(items, analysis, Span::new(start, offset), "${", true);
        return;
    }
    let Some(spec) = p.spec else { return };
    let role = arg_role(text, p);
    let replace_word = Span::new(p.prefix.to_source(0), offset);

    if let Some(flag) = role.flag_value_of {
        if let FlagValue::Enum(words) = flag.value {
            for w in words {
                items.push(Item {
                    label: w.to_string(),
                    kind: CompletionItemKind::ENUM_MEMBER,
                    detail: Some(format!("{} value", flag.name)),
                    doc: Some(flag.doc.to_string()),
                    insert: w.to_string(),
                    snippet: None,
                    replace: replace_word,
                    group: 0,
                    filter: None,
                });
            }
        }
        return;
    }

    // Flags the reader reads for this command.
    if !p.quoted && (value.is_empty() || value.starts_with('-')) {
        let present: Vec<_> = p
            .action
            .tokens
            .iter()
            .enumerate()
            .filter(|(i, _)| *i != p.token)
            .map(|(_, t)| t.value(text))
            .collect();
        for f in spec.flags {
            let spellings = std::iter::once(f.name).chain(f.aliases.iter().copied());
            if spellings.clone().any(|s| present.iter().any(|p| p == s)) {
                continue;
            }
            for (k, name) in spellings.enumerate() {
                let mut doc = f.doc.to_string();
                if k > 0 {
                    doc = format!("Alias of `{}`. {doc}", f.name);
                }
                items.push(Item {
                    label: name.to_string(),
                    kind: CompletionItemKind::FIELD,
                    detail: Some(docs::flag_usage(f).replacen(f.name, name, 1)),
                    doc: Some(doc),
                    insert: name.to_string(),
                    snippet: None,
                    replace: replace_word,
                    group: if value.is_empty() { 3 } else { 0 },
                    filter: None,
                });
            }
        }
        if value.starts_with('-') {
            return;
        }
    }

    let mut selector = false;
    for (kind, name) in positional_kinds(spec, &role.before) {
        match kind {
            ArgKind::Enum(words) => {
                for w in words {
                    items.push(Item {
                        label: w.to_string(),
                        kind: CompletionItemKind::ENUM_MEMBER,
                        detail: Some(format!("{} {name}", spec.name)),
                        doc: None,
                        insert: w.to_string(),
                        snippet: None,
                        replace: replace_word,
                        group: 0,
                        filter: None,
                    });
                }
            }
            ArgKind::Selector | ArgKind::Target => selector = true,
            _ => {}
        }
    }
    if selector {
        selector_items(items, p, offset);
    }
}

/// `${NAME` still open before the cursor: where the name starts.
fn open_placeholder(value: &str) -> Option<usize> {
    let at = value.rfind("${")?;
    if value[..at].ends_with('\\') {
        return None;
    }
    let name = &value[at + 2..];
    name.bytes()
        .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'.')
        .then_some(at + 2)
}

fn variables(items: &mut Items, analysis: &Analysis, replace: Span, open: &str, close: bool) {
    let file = analysis.file();
    let defs = vars::definitions(file);
    let suffix = if close { "}" } else { "" };
    let mut seen: Vec<String> = Vec::new();
    for d in &defs {
        if seen.contains(&d.name) {
            continue;
        }
        seen.push(d.name.clone());
        let value = d.value.clone().unwrap_or_default();
        items.push(Item {
            label: d.name.clone(),
            kind: CompletionItemKind::VARIABLE,
            detail: Some(format!("env, line {} = {value}", d.line + 1)),
            doc: Some(format!(
                "Defined by `env {}={}` on line {}.\n\nPrecedence: {}",
                d.name,
                value,
                d.line + 1,
                vars::PRECEDENCE
            )),
            insert: format!("{open}{}{suffix}", d.name),
            snippet: None,
            replace,
            group: 0,
            filter: None,
        });
    }
    for (name, origin) in BUILTIN_VARIABLES {
        items.push(Item {
            label: name.to_string(),
            kind: CompletionItemKind::CONSTANT,
            detail: Some(format!("built-in: {origin}")),
            doc: Some(format!(
                "Built-in variable, set by agent-device when replaying: {origin}. Nothing else may define `AD_*` names."
            )),
            insert: format!("{open}{name}{suffix}"),
            snippet: None,
            replace,
            group: 2,
            filter: None,
        });
    }
    for name in &items.snap.doc.config.builtins {
        items.push(Item {
            label: name.clone(),
            kind: CompletionItemKind::CONSTANT,
            detail: Some("built-in (ad.toml)".into()),
            doc: Some("Provided by your runner, declared in `ad.toml` (`check.builtins`).".into()),
            insert: format!("{open}{name}{suffix}"),
            snippet: None,
            replace,
            group: 2,
            filter: None,
        });
    }
    // Names the script already uses without defining them: supplied at run time.
    for u in vars::uses(file) {
        if seen.contains(&u.name) || !vars::definable(&u.name) {
            continue;
        }
        seen.push(u.name.clone());
        items.push(Item {
            label: u.name.clone(),
            kind: CompletionItemKind::VARIABLE,
            detail: Some("supplied at run time (-e / AD_VAR_)".into()),
            doc: Some(format!(
                "Used on line {} and not defined in this script: pass `-e {0}=…` or export `AD_VAR_{0}` when replaying.",
                u.line + 1
            ).replace("{0}", &u.name)),
            insert: format!("{open}{}{suffix}", u.name),
            snippet: None,
            replace,
            group: 1,
            filter: None,
        });
    }
}

/// Where the selector term holding the cursor starts in `value` (terms are separated by
/// whitespace and `||` outside quotes).
fn term_start(value: &str) -> usize {
    let mut quote: Option<char> = None;
    let mut escaped = false;
    let mut start = 0;
    let mut prev = '\0';
    for (i, c) in value.char_indices() {
        if escaped {
            escaped = false;
        } else if c == '\\' {
            escaped = true;
        } else if let Some(q) = quote {
            if c == q {
                quote = None;
            }
        } else if c == '"' || c == '\'' {
            quote = Some(c);
        } else if c.is_whitespace() || (c == '|' && prev == '|') {
            start = i + c.len_utf8();
        }
        prev = c;
    }
    start
}

fn selector_items(items: &mut Items, p: &ArgPlace, offset: usize) {
    let value = p.prefix.value.as_str();
    let start = term_start(value);
    let term = &value[start..];
    if let Some(eq) = term.find('=') {
        let key = term[..eq].trim().to_lowercase();
        let mut v_start = start + eq + 1;
        if value[v_start..].starts_with(['"', '\'']) {
            v_start += 1;
        }
        let replace = Span::new(p.prefix.to_source(v_start), offset);
        let words: &[&str] = if key == "role" {
            COMMON_ROLES
        } else if BOOLEAN_KEYS.contains(&key.as_str()) {
            &["true", "false"]
        } else {
            &[]
        };
        for w in words {
            items.push(Item {
                label: w.to_string(),
                kind: CompletionItemKind::ENUM_MEMBER,
                detail: Some(format!("{key}=")),
                doc: None,
                insert: w.to_string(),
                snippet: None,
                replace,
                group: 0,
                filter: None,
            });
        }
        return;
    }
    let replace = Span::new(p.prefix.to_source(start), offset);
    // Inside a quoted token a `"` is written `\"`.
    let quote = if p.quoted { "\\\"" } else { "\"" };
    for key in STRING_KEYS {
        let snippet_quote = quote.replace('\\', "\\\\");
        items.push(Item {
            label: format!("{key}="),
            kind: CompletionItemKind::PROPERTY,
            detail: Some("selector key".into()),
            doc: Some(format!("Matches elements whose `{key}` equals the value (quote values with spaces: `{key}=\"Sign in\"`).")),
            insert: format!("{key}="),
            snippet: Some(format!("{key}={snippet_quote}$1{snippet_quote}")),
            replace,
            group: 1,
            filter: None,
        });
    }
    for key in BOOLEAN_KEYS {
        items.push(Item {
            label: key.to_string(),
            kind: CompletionItemKind::PROPERTY,
            detail: Some("boolean selector key".into()),
            doc: Some(format!("`{key}` alone means `{key}=true`.")),
            insert: key.to_string(),
            snippet: None,
            replace,
            group: 2,
            filter: None,
        });
    }
}

fn context(items: &mut Items, replace: Span, prefix: &str) {
    if let Some((key, _)) = prefix.split_once('=') {
        let start = replace.start() + key.len() + 1;
        let words: &[&str] = match key {
            "platform" => CONTEXT_PLATFORMS,
            "target" => CONTEXT_TARGETS,
            _ => &[],
        };
        for w in words {
            items.push(Item {
                label: w.to_string(),
                kind: CompletionItemKind::ENUM_MEMBER,
                detail: Some(format!("context {key}")),
                doc: None,
                insert: w.to_string(),
                snippet: None,
                replace: Span::new(start, replace.end()),
                group: 0,
                filter: None,
            });
        }
        return;
    }
    for (key, doc) in [
        ("platform", "The platform `replay` and `test` default to: apple, ios, macos, android, harmonyos, vega or linux."),
        ("target", "The device class: mobile, tv or desktop."),
        ("timeout", "Per-script `test` timeout in milliseconds (an integer ≥ 1)."),
        ("retries", "Per-script `test` retries (0–3)."),
    ] {
        items.push(Item {
            label: format!("{key}="),
            kind: CompletionItemKind::PROPERTY,
            detail: Some("context key".into()),
            doc: Some(doc.into()),
            insert: format!("{key}="),
            snippet: None,
            replace,
            group: 0,
            filter: None,
        });
    }
}

/// `env |`: names the script uses but does not define yet.
fn env_keys(items: &mut Items, analysis: &Analysis, replace: Span) {
    let file = analysis.file();
    let defined: Vec<String> = vars::definitions(file)
        .into_iter()
        .map(|d| d.name)
        .collect();
    let mut seen = Vec::new();
    for u in vars::uses(file) {
        if defined.contains(&u.name) || seen.contains(&u.name) || !vars::definable(&u.name) {
            continue;
        }
        seen.push(u.name.clone());
        items.push(Item {
            label: u.name.clone(),
            kind: CompletionItemKind::VARIABLE,
            detail: Some(format!("used on line {}", u.line + 1)),
            doc: Some(
                "A default for this placeholder; `AD_VAR_NAME` and `-e NAME=…` still override it."
                    .into(),
            ),
            insert: format!("{}=", u.name),
            snippet: None,
            replace,
            group: 0,
            filter: None,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn terms_split_outside_quotes() {
        assert_eq!(term_start("id=a role="), 5);
        assert_eq!(term_start("label=\"a b"), 0);
        assert_eq!(term_start("id=a||lab"), 6);
        assert_eq!(open_placeholder("x${EM"), Some(3));
        assert_eq!(open_placeholder("x\\${EM"), None);
        assert_eq!(open_placeholder("${A} b"), None);
    }
}
