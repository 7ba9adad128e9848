//! `ad commands`: the commands a script can use, from the registry.

use ad_compiler::registry::{Availability, COMMANDS};
use clap::Args;

#[derive(Args)]
pub struct CommandsArgs {
    /// Also list retired words, CLI aliases and client-only commands (which do not work in scripts).
    #[arg(long)]
    all: bool,
}

pub fn run(args: CommandsArgs) -> i32 {
    let mut rows: Vec<_> = COMMANDS
        .iter()
        .filter(|c| args.all || c.is_usable_in_scripts())
        .collect();
    rows.sort_by_key(|c| c.name);
    for c in rows {
        let note = match c.availability {
            Availability::Script => String::new(),
            Availability::Legacy => " (legacy)".into(),
            Availability::Retired { .. } => " (retired)".into(),
            Availability::CliAlias { canonical } => {
                format!(" (CLI alias of {canonical}; not in scripts)")
            }
            Availability::ClientOnly => " (client-only; not in scripts)".into(),
            Availability::Internal => " (internal daemon request; not in scripts)".into(),
        };
        println!("{:<16} {}{note}", c.name, c.summary);
        if !c.signature.is_empty() {
            println!("{:<16}   {} {}", "", c.name, c.signature);
        }
    }
    0
}
