//! AD102, AD103, AD104, AD106: commands that exist but not in scripts: retired (with the
//! migration), CLI aliases scripts do not apply (with the canonical word as a fix), client-only
//! commands and internal daemon requests. One file because the registry's `Availability` decides
//! among them.

use ad_grammar::{Diagnostic, Edit};

use crate::codes;
use crate::lower::Step;
use crate::registry::{Availability, CommandSpec};
use crate::rules::Context;

pub(super) fn check(cx: &Context, step: &Step, spec: &CommandSpec, out: &mut Vec<Diagnostic>) {
    let span = step.command_span(cx.file());
    let word = step.command();
    match spec.availability {
        Availability::Retired { migration } => out.push(
            Diagnostic::new(
                codes::RETIRED_COMMAND,
                format!("`{word}` was removed from agent-device"),
                span,
            )
            .with_label("fails at dispatch in 0.21.5")
            .with_help(migration),
        ),
        Availability::CliAlias { canonical } => {
            let replacement = if word == "relaunch" {
                "open --relaunch".to_string()
            } else {
                canonical.to_string()
            };
            out.push(
                Diagnostic::new(codes::CLI_ALIAS, format!("`{word}` is a CLI alias; scripts do not apply aliases"), span)
                    .with_label(format!("write `{replacement}`"))
                    .with_help("aliases exist only in the agent-device command line; in a script this word is an unknown command")
                    .with_fix(format!("Replace with `{replacement}`"), vec![Edit { span, replacement }]),
            );
        }
        Availability::ClientOnly => out.push(
            Diagnostic::new(
                codes::CLIENT_ONLY_COMMAND,
                format!("`{word}` cannot run inside a script"),
                span,
            )
            .with_label("client-only command: the daemon has no route for it")
            .with_help("run it from the agent-device CLI before or after the replay"),
        ),
        Availability::Internal => out.push(
            Diagnostic::new(
                codes::INTERNAL_REQUEST,
                format!("`{word}` is an internal daemon request, not a script command"),
                span,
            )
            .with_label("the agent-device CLI sends it with structured input; a script line cannot")
            .with_help("use the public command it backs (see `ad commands`), or drop the line"),
        ),
        Availability::Script | Availability::Legacy => {}
    }
}
