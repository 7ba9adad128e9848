//! The static gate every run passes before anything is dispatched: `ad run` and `ad test` both
//! go through it with the `ad.toml` their caller read once (the gate takes a [`Config`], it
//! never looks one up), so they report the same diagnostics (full spans,
//! rendered as `ad check` renders them) and refuse for the same reasons:
//!
//! 1. the `ad.toml` that applies cannot be read;
//! 2. the script has static errors (agent-device rejects the file, or `ad check` finds a step
//!    that will fail; `--force` runs through the latter only);
//! 3. a `${VAR}` that a step from `--from` on needs has no value from `-e`, `AD_VAR_*`, an `env`
//!    directive, a built-in or a `${VAR:-fallback}`: every one is listed, with each use.

use std::collections::BTreeMap;

use ad_compiler::config::{Config, ConfigError};
use ad_compiler::registry::Effect;
use ad_compiler::{Analysis, Diagnostic, Severity, Span};
use ad_grammar::placeholder::placeholders;
use serde_json::Value;

use crate::core::interp::{builtin_values, RunOptions};

/// Why a script was not run. `diagnostics` carry full spans into the script's text.
#[derive(Debug, Clone)]
pub struct Refusal {
    pub kind: RefusalKind,
    /// One line: what is wrong and what to do.
    pub summary: String,
    pub diagnostics: Vec<Diagnostic>,
    /// 1-based (line, column) of each diagnostic's primary span, for reports without the text.
    pub positions: Vec<(usize, usize)>,
}

impl Refusal {
    fn new(kind: RefusalKind, summary: String, diagnostics: Vec<Diagnostic>, text: &str) -> Self {
        let index = ad_grammar::LineIndex::new(text);
        let positions = diagnostics
            .iter()
            .map(|d| index.line_col(text, d.primary_span().start()))
            .collect();
        Refusal {
            kind,
            summary,
            diagnostics,
            positions,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RefusalKind {
    /// The `ad.toml` that applies is broken (no diagnostics: the message says where).
    Config,
    /// Static errors; `agent_device_rejects` when agent-device itself rejects the file.
    StaticErrors { agent_device_rejects: bool },
    /// Variables without a value for this run.
    MissingVariables,
}

/// The refusal of a run whose `ad.toml` cannot be read (`error`, from the caller's one lookup:
/// the gate never looks the file up itself).
pub fn config_refusal(error: &ConfigError, text: &str) -> Refusal {
    Refusal::new(
        RefusalKind::Config,
        format!("{error}: nothing was run (fix the ad.toml, or move it out of the way)"),
        Vec::new(),
        text,
    )
}

/// Analyses `text` with the configuration that applies (the `ad.toml` the caller read, an
/// `ad dap` launch's `profile` over it). Refuses on static errors unless `force` (which never
/// covers errors that make agent-device reject the file).
pub fn analyze(
    config: &Config,
    display: &str,
    text: &str,
    force: bool,
) -> Result<Analysis, Refusal> {
    let analysis = ad_compiler::analyze_with(text, config);
    refuse_static_errors(&analysis, display, force)?;
    Ok(analysis)
}

/// [`analyze`]'s refusal of a script already analysed (by `ad_compiler::check_file`).
pub fn refuse_static_errors(
    analysis: &Analysis,
    display: &str,
    force: bool,
) -> Result<(), Refusal> {
    let errors: Vec<Diagnostic> = analysis
        .diagnostics
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .cloned()
        .collect();
    if errors.is_empty() {
        return Ok(());
    }
    let n = errors.len();
    let agent_device_rejects = !analysis.accepted_by_agent_device();
    if force && !agent_device_rejects {
        return Ok(());
    }
    let summary = if agent_device_rejects {
        format!("{display}: {n} static error(s), and agent-device itself rejects this script: nothing was run (fix them; `ad check {display}`)")
    } else {
        format!("{display}: {n} static error(s): nothing was run (fix them — `ad check {display}` — or pass --force to see how the run fails)")
    };
    Err(Refusal::new(
        RefusalKind::StaticErrors {
            agent_device_rejects,
        },
        summary,
        errors,
        analysis.text(),
    ))
}

/// Every variable a run of `analysis` from `opts.from` on needs and cannot get: one error per
/// variable, at its first use, with every other use as a secondary label.
pub fn missing_variables(
    analysis: &Analysis,
    display: &str,
    opts: &RunOptions,
) -> Result<(), Refusal> {
    let metadata = analysis.metadata();
    let mut known: Vec<String> = builtin_values(opts, metadata)
        .into_iter()
        .map(|(k, _)| k)
        .collect();
    // The run folder is made after the gate; the interpreter always defines it.
    known.push("AD_ARTIFACTS".into());
    known.extend(metadata.env.iter().map(|e| e.key.clone()));
    known.extend(opts.shell_env.iter().map(|(k, _)| k.clone()));
    known.extend(opts.cli_env.iter().map(|(k, _)| k.clone()));
    let from = opts.from.unwrap_or(1).max(1);
    // name → spans of its uses (a BTreeMap keeps the report in name order).
    let mut missing: BTreeMap<String, Vec<Span>> = BTreeMap::new();
    for step in analysis.steps().iter().skip(from - 1) {
        if step.spec().is_some_and(|s| s.effect == Effect::Skipped) {
            continue;
        }
        for arg in step.positionals.iter().chain(step.ref_label()) {
            if !arg.has_dollar_brace() {
                continue;
            }
            for p in placeholders(&arg.value) {
                let name = p.name(&arg.value);
                if p.fallback.is_none() && !known.iter().any(|k| k == name) {
                    let span = step.value_span(arg, p.span.clone(), analysis.file());
                    missing.entry(name.to_string()).or_default().push(span);
                }
            }
        }
        let flag_values = step
            .flags()
            .values()
            .chain(step.runtime().into_iter().flat_map(|r| r.values()));
        for value in flag_values {
            for_each_string(value, &mut |s| {
                for p in placeholders(s) {
                    let name = p.name(s);
                    if p.fallback.is_none() && !known.iter().any(|k| k == name) {
                        missing
                            .entry(name.to_string())
                            .or_default()
                            .push(step.line_span(analysis.file()));
                    }
                }
            });
        }
    }
    if missing.is_empty() {
        return Ok(());
    }
    let names: Vec<String> = missing.keys().map(|n| format!("${{{n}}}")).collect();
    let diagnostics = missing
        .into_iter()
        .map(|(name, spans)| {
            let uses = spans.len();
            let mut d = Diagnostic::new(
                ad_compiler::codes::VARIABLE_WITHOUT_VALUE,
                format!("`${{{name}}}` has no value for this run"),
                spans[0],
            )
            .with_label(if uses == 1 {
                "needed here".to_string()
            } else {
                format!("needed here and in {} more place(s)", uses - 1)
            })
            .with_help(supply_help(&name));
            for span in &spans[1..] {
                d = d.with_secondary(*span, "also needed here");
            }
            d
        })
        .collect();
    let from_note = if from > 1 {
        format!(" from step {from} on")
    } else {
        String::new()
    };
    Err(Refusal::new(
        RefusalKind::MissingVariables,
        if names.len() == 1 {
            format!(
                "{display}: the run needs {}{from_note}, which has no value: nothing was run",
                names[0]
            )
        } else {
            format!(
                "{display}: the run needs {} variables{from_note} that have no value ({}): nothing was run",
                names.len(),
                names.join(", ")
            )
        },
        diagnostics,
        analysis.text(),
    ))
}

/// How to give `name` a value, in order of precedence.
fn supply_help(name: &str) -> String {
    if name.starts_with("AD_") {
        return format!("`{name}` is a built-in this run does not define (pass --platform/--target, or run under `ad test --shard`), or give it a fallback: `${{{name}:-value}}`");
    }
    format!("pass `-e {name}=…`, export `AD_VAR_{name}=…`, add `env {name}=…` to the script's header, or give it a fallback: `${{{name}:-value}}`")
}

fn for_each_string(v: &Value, f: &mut impl FnMut(&str)) {
    match v {
        Value::String(s) => f(s),
        Value::Array(a) => a.iter().for_each(|x| for_each_string(x, f)),
        Value::Object(m) => m.values().for_each(|x| for_each_string(x, f)),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn opts(cli: &[(&str, &str)], from: Option<usize>) -> RunOptions {
        RunOptions {
            script_path: "t.ad".into(),
            session: "default".into(),
            cli_env: cli
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
            from,
            ..RunOptions::default()
        }
    }

    const SCRIPT: &str = "env USER=demo\nopen \"x\"\nfill \"id=a\" \"${USER}\"\nfill \"id=b\" \"${PASSWORD}\"\nclick \"id=${BUTTON}\"\nfill \"id=c\" \"${PASSWORD}\"\nwait \"${GONE:-id=z}\" ${AD_SESSION}\nclose\n";

    #[test]
    fn every_missing_variable_is_listed_with_every_use() {
        let a = ad_compiler::analyze(SCRIPT);
        let r = missing_variables(&a, "t.ad", &opts(&[], None)).unwrap_err();
        assert_eq!(r.kind, RefusalKind::MissingVariables);
        let messages: Vec<&str> = r.diagnostics.iter().map(|d| &*d.message).collect();
        assert_eq!(
            messages,
            [
                "`${BUTTON}` has no value for this run",
                "`${PASSWORD}` has no value for this run"
            ]
        );
        let password = &r.diagnostics[1];
        assert_eq!(&SCRIPT[password.primary_span().range()], "${PASSWORD}");
        assert_eq!(password.labels.len(), 2, "first use and the second");
        assert!(
            r.summary.contains("${BUTTON}, ${PASSWORD}"),
            "{}",
            r.summary
        );
    }

    #[test]
    fn supplied_values_and_later_steps_only() {
        let a = ad_compiler::analyze(SCRIPT);
        let all = [("PASSWORD", "p"), ("BUTTON", "b")];
        assert!(missing_variables(&a, "t.ad", &opts(&all, None)).is_ok());
        // From step 4 on (the click is step 4), only BUTTON and the second PASSWORD count.
        let r = missing_variables(&a, "t.ad", &opts(&[("BUTTON", "b")], Some(5))).unwrap_err();
        assert_eq!(r.diagnostics.len(), 1);
        assert_eq!(r.diagnostics[0].labels.len(), 1);
        assert!(missing_variables(&a, "t.ad", &opts(&[("PASSWORD", "p")], Some(5))).is_ok());
    }
}
