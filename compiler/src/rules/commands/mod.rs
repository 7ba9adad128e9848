//! Command words: unknown (with did-you-mean), retired (with the migration), CLI aliases that do
//! not work in scripts, client-only commands, and `replay` lines that are skipped.

use ad_grammar::{Diagnostic, Edit};

use super::{did_you_mean, Context};
use crate::codes;
use crate::registry::{Availability, Effect, COMMANDS};

pub(super) fn check(cx: &Context, out: &mut Vec<Diagnostic>) {
    for step in cx.steps {
        let span = step.command_span();
        let word = &*step.command;
        let Some(spec) = step.spec else {
            let usable = COMMANDS
                .iter()
                .filter(|c| c.is_usable_in_scripts())
                .map(|c| c.name);
            let mut d = Diagnostic::new(codes::UNKNOWN_COMMAND, format!("unknown command `{}`", ad_grammar::printable(word)), span)
                .with_label("agent-device has no such command: this step fails when it is reached, after the earlier steps ran");
            match did_you_mean(word, usable) {
                Some(s) => {
                    d = d.with_help(format!("did you mean `{s}`?")).with_fix(
                        format!("Replace with `{s}`"),
                        vec![Edit { span, replacement: s.to_string() }],
                    )
                }
                None if word == "env" => {
                    d = d.with_help("`env` directives need a plain space or tab after `env`; this line has another kind of space, so it reads as a command")
                }
                None => d = d.with_help("`ad commands` lists the commands scripts can use (command words are case-sensitive)"),
            }
            out.push(d);
            continue;
        };
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
                .with_label(
                    "the agent-device CLI sends it with structured input; a script line cannot",
                )
                .with_help("use the public command it backs (see `ad commands`), or drop the line"),
            ),
            Availability::Script | Availability::Legacy => {}
        }
        if spec.effect == Effect::Skipped {
            out.push(
                Diagnostic::new(codes::REPLAY_SKIPPED, format!("`{word}` lines are skipped when the script runs"), step.line_span())
                    .with_help("replay does not nest: the step loop skips this line; inline the other script's steps instead"),
            );
        }
    }
}
