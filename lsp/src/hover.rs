//! Hover: command documentation and signature, flag docs, a variable's definition and
//! precedence, the recorded identity of a `target-v1`/`targets-v1` annotation (on the annotation
//! and on its action line), context keys.

use ad_compiler::builtins::BUILTIN_VARIABLES;
use ad_compiler::registry::{self, ArgKind, Verification};
use ad_compiler::Analysis;
use ad_grammar::annotation::Evidence;
use ad_grammar::{Annotation, LineKind, SourceFile, Span};
use lsp_types::{Hover, HoverContents, HoverParams, MarkupContent, MarkupKind};

use ad_compiler::shape::{element_targets, Target};

use crate::cursor::{self, step_for_line, step_number, token_at};
use crate::docs;
use crate::request::Snapshot;
use crate::vars;

pub fn hover(snap: &Snapshot, params: HoverParams) -> Option<Hover> {
    let doc = &snap.doc;
    let analysis = doc.analysis().ok()?;
    let text = doc.text.as_str();
    let offset = doc
        .lines
        .offset(text, params.text_document_position_params.position);
    let (markdown, span) =
        crate::compose::hover(doc, offset).or_else(|| markdown_at(analysis, offset))?;
    Some(Hover {
        contents: HoverContents::Markup(MarkupContent {
            kind: if snap.caps.markdown {
                MarkupKind::Markdown
            } else {
                MarkupKind::PlainText
            },
            value: markdown,
        }),
        range: Some(doc.lines.range(text, span)),
    })
}

/// The hover text at `offset` and the span it describes.
pub fn markdown_at(analysis: &Analysis, offset: usize) -> Option<(String, Span)> {
    let file = analysis.file();
    let text = file.text.as_str();
    let i = file.lines.partition_point(|l| l.span.start() <= offset);
    let line = file.lines.get(i.checked_sub(1)?)?;
    if offset > line.span.end() {
        return None;
    }
    if let Some((name, span)) = vars::name_at(file, offset) {
        return Some((variable_markdown(analysis, &name), span));
    }
    match &line.kind {
        LineKind::Annotation(a) => {
            let verification = a
                .binds_to()
                .and_then(|l| step_for_line(analysis, l))
                .and_then(|s| s.spec())
                .map(|s| s.verification)
                .unwrap_or(Verification::PreDispatch);
            let mut md = annotation_markdown(a, verification)?;
            if let Some(n) = a.binds_to().and_then(|l| step_number(analysis, l)) {
                md.push_str(&format!(
                    "\n\nDescribes step {n} on line {}.",
                    a.binds_to().unwrap_or(0) + 1
                ));
            }
            Some((md, line.content))
        }
        LineKind::Action(stored) => {
            let action = file.read_action(line, stored);
            let t = token_at(action.tokens, offset)?;
            let token = &action.tokens[t];
            let command = action.tokens[0].value(text);
            let spec = registry::lookup(&command);
            let step = step_for_line(analysis, line.index());
            let evidence = action
                .annotation
                .and_then(|l| file.annotation(l as usize))
                .and_then(|a| {
                    annotation_markdown(
                        a,
                        spec.map(|s| s.verification).unwrap_or(Verification::None),
                    )
                });
            let mut md = if t == 0 {
                let mut md = match spec {
                    Some(spec) => docs::command_markdown(spec),
                    None => format!(
                        "`{command}` is not an agent-device command: the step fails when it runs."
                    ),
                };
                if let Some(n) = step_number(analysis, line.index()) {
                    md = format!("**Step {n}**\n\n{md}");
                }
                md
            } else if let Some(flag) = spec.and_then(|s| s.flag(&token.value(text))) {
                let read = step.is_some_and(|s| {
                    s.flags().contains_key(flag.key)
                        || s.runtime().is_some_and(|r| r.contains_key(flag.key))
                });
                let mut md = docs::flag_markdown(&command, flag);
                if !read && !matches!(flag.value, registry::FlagValue::Switch(_)) {
                    md.push_str("\n\n_Not read on this line (see the diagnostics)._");
                }
                md
            } else {
                argument_markdown(analysis, line.index(), t).unwrap_or_default()
            };
            if let Some(e) = evidence {
                if !md.is_empty() {
                    md.push_str("\n\n---\n\n");
                }
                md.push_str(&e);
            }
            (!md.is_empty()).then_some((md, token.span()))
        }
        LineKind::Env(e) if offset <= e.keyword.end() => Some((
            "`env NAME=value` — a default for `${NAME}` in this script. Header only: it must \
             come before the first action.\n\nPrecedence: "
                .to_string()
                + vars::PRECEDENCE,
            e.keyword,
        )),
        LineKind::Context(c) => {
            let entry = c
                .entries
                .iter()
                .find(|e| e.key.start() <= offset && offset <= e.value.unwrap_or(e.key).end())?;
            let key = &text[entry.key.range()];
            let md = context_key_markdown(key, c.in_header);
            Some((
                md,
                entry.value.map(|v| entry.key.cover(v)).unwrap_or(entry.key),
            ))
        }
        _ => None,
    }
}

/// Which argument a token is: its name in the form that fits the step, what the reader made of
/// it, and a selector's terms.
fn argument_markdown(analysis: &Analysis, line: usize, token: usize) -> Option<String> {
    let step = step_for_line(analysis, line)?;
    let spec = step.spec()?;
    let (i, arg) = step
        .positionals
        .iter()
        .enumerate()
        .find(|(_, a)| a.tokens.contains(&token))?;
    let values = step.positional_values();
    let target = element_targets(step)
        .into_iter()
        .find(|(a, _)| std::ptr::eq(*a, arg))
        .map(|(_, t)| t);
    let positional = cursor::fitting_form(spec, &values).and_then(|f| {
        f.positionals
            .get(i)
            .or(f.positionals.last().filter(|p| p.variadic))
    });
    let name = match &target {
        Some(_) => Some("target"),
        None => positional.map(|p| p.name),
    };
    let mut md = match name {
        Some(n) => format!("`{n}` of `{}` (argument {})", spec.name, i + 1),
        None => format!(
            "argument {} of `{}`: not part of any form of this command",
            i + 1,
            spec.name
        ),
    };
    if let Some(ArgKind::Enum(words)) = positional.map(|p| p.kind) {
        if words.len() > 1 {
            let words: Vec<String> = words.iter().map(|w| format!("`{w}`")).collect();
            md.push_str(&format!("\n\none of {}", words.join(", ")));
        }
    }
    match &target {
        Some(Target::Ref { value }) => {
            md.push_str(&format!("\n\n`{value}`: a ref from the latest snapshot"))
        }
        Some(Target::Point { x, y }) => md.push_str(&format!(
            "\n\nthe screen point ({}, {})",
            docs::num(*x),
            docs::num(*y)
        )),
        Some(t @ Target::Selector { .. }) => {
            if let Some((chain, errors)) = t.selector_tree() {
                if errors.is_empty() {
                    md.push_str("\n\nselector");
                    for (k, seg) in chain.alternatives.iter().enumerate() {
                        md.push_str(if k == 0 { ": " } else { " **or** " });
                        let terms: Vec<String> = seg
                            .terms
                            .iter()
                            .map(|t| match &t.decoded {
                                Some(v) if !t.is_boolean() => format!("{} = \"{v}\"", t.key_name),
                                Some(v) => format!("{} = {v}", t.key_name),
                                None => t.key_name.clone(),
                            })
                            .collect();
                        md.push_str(&terms.join(", "));
                    }
                }
            }
        }
        None => {}
    }
    if arg.tokens.len() > 1 {
        md.push_str(&format!(
            "\n\nThe reader joins {} tokens into one value:\n```text\n{}\n```",
            arg.tokens.len(),
            arg.value
        ));
    }
    Some(md)
}

fn context_key_markdown(key: &str, in_header: bool) -> String {
    let mut md = match key {
        "platform" => format!(
            "`context platform=…` — the platform `replay` and `test` default to when no \
             `--platform` is given; it enters the plan digest. Accepted: {}.",
            ad_grammar::metadata::CONTEXT_PLATFORMS.join(", ")
        ),
        "target" => format!(
            "`context target=…` — the device class. Accepted: {}.",
            ad_grammar::metadata::CONTEXT_TARGETS.join(", ")
        ),
        "timeout" => {
            "`context timeout=<ms>` — the per-script `test` timeout (`--timeout` overrides it)."
                .into()
        }
        "retries" => {
            "`context retries=<n>` — the per-script `test` retries, 0–3 (`--retries` overrides it)."
                .into()
        }
        "device" | "kind" | "theme" => {
            format!("`{key}=` is written by the recorder for people; agent-device ignores it.")
        }
        _ => format!("`{key}=` is not a context key agent-device reads."),
    };
    if !in_header {
        md.push_str("\n\n_This line is not read: `context` only counts in the leading header._");
    }
    md
}

pub fn annotation_markdown(a: &Annotation, verification: Verification) -> Option<String> {
    match a.evidence.as_ref()? {
        Evidence::Single(e) => Some(docs::identity_markdown(
            e,
            verification,
            "Recorded target (target-v1)",
        )),
        Evidence::Dual(d) => Some(format!(
            "{}\n\n---\n\n{}",
            docs::identity_markdown(&d.source, verification, "Drag source (targets-v1)"),
            docs::identity_markdown(
                &d.destination,
                verification,
                "Drag destination (targets-v1)"
            )
        )),
    }
}

pub fn variable_markdown(analysis: &Analysis, name: &str) -> String {
    let file: &SourceFile = analysis.file();
    let uses = vars::uses(file)
        .into_iter()
        .filter(|u| u.name == name)
        .count();
    let used = match uses {
        0 => "Not used in this script.".to_string(),
        1 => "Used once in this script.".to_string(),
        n => format!("Used {n} times in this script."),
    };
    if let Some((_, origin)) = BUILTIN_VARIABLES.iter().find(|(n, _)| *n == name) {
        return format!(
            "**`${{{name}}}`** — built-in variable: {origin}.\n\nSet by agent-device when it \
             replays; `env`, `-e` and `AD_VAR_*` may not define `AD_*` names. {used}"
        );
    }
    if !vars::definable(name) {
        return format!(
            "**`${{{name}}}`** — nothing can define this name (variable names are \
             `[A-Z_][A-Z0-9_]*` and `AD_*` is reserved for built-ins). {used}"
        );
    }
    let defs: Vec<vars::Definition> = vars::definitions(file)
        .into_iter()
        .filter(|d| d.name == name)
        .collect();
    let mut md = format!("**`${{{name}}}`** — script variable\n\n");
    match defs.first() {
        Some(d) => {
            let value = d.value.clone().unwrap_or_default();
            md.push_str(&format!(
                "Defined by `env {name}={value}` on line {}{}.\n\n",
                d.line + 1,
                if d.in_header {
                    ""
                } else {
                    " (after the first action: agent-device rejects it there)"
                }
            ));
        }
        None => md.push_str(&format!(
            "Not defined in this script: supply it when replaying with `-e {name}=…` or \
             `AD_VAR_{name}`; without a value (and no `:-fallback`) the step fails with \
             \"Unresolved variable\".\n\n"
        )),
    }
    md.push_str(&format!("Precedence: {}\n\n{used}", vars::PRECEDENCE));
    md
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hovers_commands_flags_variables_and_annotations() {
        let text = "context platform=ios\nenv EMAIL=a@b.c\n# agent-device:target-v1 {\"id\":\"login.submit\",\"role\":\"button\",\"label\":\"Log in\",\"ancestry\":[{\"role\":\"form\",\"label\":\"Login\"},{\"role\":\"application\"}],\"verification\":\"verified\"}\nclick \"id=\\\"login.submit\\\"\" --count 2\nfill \"id=x\" \"${EMAIL}\"\n";
        let a = ad_compiler::analyze(text);
        let at = |s: &str| text.find(s).unwrap() + 1;
        let (md, _) = markdown_at(&a, at("click")).unwrap();
        assert!(
            md.contains("**Step 1**") && md.contains("click <x y"),
            "{md}"
        );
        assert!(
            md.contains("application › form \"Login\" › **button \"Log in\"**"),
            "{md}"
        );
        let (md, _) = markdown_at(&a, at("--count")).unwrap();
        assert!(md.contains("Repeat count"), "{md}");
        let (md, _) = markdown_at(&a, at("${EMAIL}") + 2).unwrap();
        assert!(
            md.contains("Defined by `env EMAIL=a@b.c` on line 2"),
            "{md}"
        );
        let (md, _) = markdown_at(&a, at("# agent-device")).unwrap();
        assert!(
            md.contains("**id** `login.submit`") && md.contains("step 1"),
            "{md}"
        );
        let (md, _) = markdown_at(&a, at("platform")).unwrap();
        assert!(md.contains("Accepted"), "{md}");
    }
}
