//! `ad commands`: the commands a script can use, from the registry.
//!
//! The listing gives each command's summary, its forms and the names of its flags; `ad commands
//! NAME` gives one command's forms and what each flag does. Both are read from the registry
//! (compiler/src/registry), the one place commands are declared.

use ad_compiler::registry::{
    lookup, ArgKind, Availability, CommandSpec, FlagSpec, FlagValue, Form, COMMANDS,
};
use clap::Args;

#[derive(Args)]
pub struct CommandsArgs {
    /// Show one command in full: its forms and what each of its flags does.
    #[arg(value_name = "NAME")]
    name: Option<String>,
    /// Also list retired words, CLI aliases and client-only commands (which do not work in scripts).
    #[arg(long)]
    all: bool,
}

pub fn run(args: CommandsArgs) -> i32 {
    match &args.name {
        Some(name) => match lookup(name) {
            Some(spec) => {
                print!("{}", detail(spec));
                0
            }
            None => crate::usage_error(&format!(
                "`{name}` is not a command agent-device knows; `ad commands` lists them \
                 (`--all` adds the retired words and aliases)"
            )),
        },
        None => {
            print!("{}", listing(args.all));
            0
        }
    }
}

fn note(spec: &CommandSpec) -> String {
    match spec.availability {
        Availability::Script => String::new(),
        Availability::Legacy => " (legacy)".into(),
        Availability::Retired { .. } => " (retired)".into(),
        Availability::CliAlias { canonical } => {
            format!(" (CLI alias of {canonical}; not in scripts)")
        }
        Availability::ClientOnly => " (client-only; not in scripts)".into(),
        Availability::Internal => " (internal daemon request; not in scripts)".into(),
    }
}

/// Every command (only those usable in scripts unless `all`): name and summary, its signature,
/// and its flags by name.
pub fn listing(all: bool) -> String {
    let mut rows: Vec<_> = COMMANDS
        .iter()
        .filter(|c| all || c.is_usable_in_scripts())
        .collect();
    rows.sort_by_key(|c| c.name);
    // The name column fits the longest name shown (`trigger-app-event` is wider than most).
    let w = rows
        .iter()
        .map(|c| c.name.chars().count())
        .max()
        .unwrap_or(0);
    let mut out = String::new();
    for c in rows {
        out.push_str(&format!("{:<w$} {}{}\n", c.name, c.summary, note(c)));
        if !c.signature.is_empty() {
            out.push_str(&format!("{:<w$}   {} {}\n", "", c.name, c.signature));
        }
        if !c.flags.is_empty() {
            let names: Vec<&str> = c.flags.iter().map(|f| f.name).collect();
            out.push_str(&format!("{:<w$}   flags: {}\n", "", names.join(" ")));
        }
    }
    out.push_str("\n`ad commands NAME` shows one command's forms and what each flag does.\n");
    out
}

/// One command in full: summary, forms, flags with their values and meaning.
pub fn detail(spec: &CommandSpec) -> String {
    let mut out = format!("{}: {}{}\n", spec.name, spec.summary, note(spec));
    if let Availability::Retired { migration } = spec.availability {
        out.push_str(&format!("  {migration}\n"));
    }
    if !spec.signature.is_empty() || !spec.flags.is_empty() {
        let flags = if spec.flags.is_empty() { "" } else { "[flags]" };
        let usage = [spec.name, spec.signature, flags.trim_start()]
            .into_iter()
            .filter(|s| !s.is_empty())
            .collect::<Vec<_>>()
            .join(" ");
        out.push_str(&format!("\nUsage:\n  {usage}\n"));
    }
    if spec.forms.len() > 1 {
        out.push_str("\nForms (any one):\n");
        for f in spec.forms {
            out.push_str(&format!("  {}\n", form(spec.name, f)));
        }
    }
    if !spec.flags.is_empty() {
        out.push_str("\nFlags:\n");
        let heads: Vec<String> = spec.flags.iter().map(flag_head).collect();
        let width = heads.iter().map(|h| h.chars().count()).max().unwrap_or(0);
        for (f, head) in spec.flags.iter().zip(&heads) {
            out.push_str(&format!("  {head:<width$}  {}\n", f.doc));
        }
    }
    out
}

/// One form as a line of script: `click <@ref> [label]`.
fn form(name: &str, f: &Form) -> String {
    let mut parts = vec![name.to_string()];
    for p in f.positionals {
        let word = match p.kind {
            ArgKind::Ref => "@ref".to_string(),
            ArgKind::Selector => "selector".to_string(),
            ArgKind::Enum(words) => words.join("|"),
            _ => p.name.to_string(),
        };
        let word = if p.variadic {
            format!("{word}…")
        } else {
            word
        };
        parts.push(if p.optional {
            format!("[{word}]")
        } else {
            format!("<{word}>")
        });
    }
    parts.join(" ")
}

/// A flag's spellings and the value it takes: `--depth, -d <n>`.
fn flag_head(f: &FlagSpec) -> String {
    let mut names = vec![f.name];
    names.extend(f.aliases);
    let value = match f.value {
        FlagValue::Switch(_) => String::new(),
        FlagValue::Integer { .. } | FlagValue::Number { .. } => " <n>".into(),
        FlagValue::Enum(words) => format!(" <{}>", words.join("|")),
        FlagValue::String => " <text>".into(),
    };
    format!("{}{value}", names.join(", "))
}
