//! AD101 unknown command: a word agent-device has no command for, with the closest script command
//! as a fix (or why an `env` line reads as a command).

use ad_grammar::{Diagnostic, Edit};

use crate::codes;
use crate::lower::Step;
use crate::registry::COMMANDS;
use crate::rules::did_you_mean;
use crate::rules::Context;

pub(super) fn check(cx: &Context, step: &Step, out: &mut Vec<Diagnostic>) {
    let span = step.command_span(cx.file());
    let word = step.command();
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
}
