//! Findings agent-device meets only when it plans or runs a flow its reader accepted: a
//! `runFlow` file that is missing (AD920, when the plan is made, before the first step), a
//! `${VAR}` no env, output or built-in supplies (AD921: `-e` or `AD_VAR_*` may still), a
//! `runScript` file that is missing (AD922) and a `${…}` that is not a variable lookup (AD923),
//! both when the step runs; and, when the plan is made, an included flow agent-device refuses
//! (AD924) or a `runFlow` cycle (AD925). None is a rejection of the reader of this file.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use ad_grammar::codes::*;
use ad_grammar::Diagnostic;

use crate::reader::{is_variable_name, Interpolated};
use crate::tree::*;
use crate::yaml::Scalar;

/// How included files are reached: the text of a file, `None` when there is none.
pub type Read<'r> = &'r dyn Fn(&Path) -> Option<String>;

/// The flows being planned, outermost first (a cycle is a path already in it).
pub type Active = Vec<PathBuf>;

/// A plan finding of a `runFlow` agent-device loads only on `platform` (its `when.platform`,
/// lowercased): the run there fails before its first step with `diagnostic`.
#[derive(Debug, Clone)]
pub struct Gated {
    pub platform: String,
    pub diagnostic: Diagnostic,
}

/// How the plan is made: included files read through `read`; on `platform` when known (a
/// `runFlow` for another platform is not loaded), else every `runFlow` is checked and the
/// findings of platform-gated ones also go to `gated`.
pub struct Plan<'p, 'r> {
    pub read: Read<'r>,
    pub platform: Option<&'p str>,
    pub gated: &'p mut Vec<Gated>,
}

pub fn check(
    flow: &Flow,
    strings: &[Interpolated],
    path: Option<&Path>,
    plan: Plan,
    active: &mut Active,
    out: &mut Vec<Diagnostic>,
) {
    let Plan {
        read,
        platform,
        gated,
    } = plan;
    let mut supplied: BTreeSet<String> = BTreeSet::new();
    let mut scripts = false;
    // Every command, with the platform it is planned on alone.
    let mut planned = Vec::new();
    walk_gates(
        flow.config
            .on_flow_start
            .iter()
            .chain(&flow.commands)
            .chain(&flow.config.on_flow_complete),
        None,
        &mut planned,
    );
    let commands: Vec<&Command> = planned.iter().map(|(c, _)| *c).collect();
    supplied.extend(flow.config.env.iter().map(|e| e.key.value.clone()));
    for c in &commands {
        supplied.extend(c.env.iter().map(|e| e.key.value.clone()));
        // A script's outputs and an included flow's are not known here.
        scripts |= matches!(c.kind, CommandKind::RunScript | CommandKind::EvalScript)
            || matches!(c.include, Some(Include::File(_)));
    }
    let base = path.and_then(Path::parent).map(Path::to_path_buf);
    for &(c, gate) in &planned {
        let file = match (&c.kind, &c.include) {
            (CommandKind::RunFlow, Some(Include::File(f))) => {
                Some((f.value.as_str(), f.span, MAESTRO_RUNFLOW_MISSING))
            }
            (CommandKind::RunScript, _) => c
                .fields
                .iter()
                .find(|f| f.path == "runScript" || f.path == "runScript.file")
                .and_then(|f| match &f.value.value {
                    Scalar::Str(s) => Some((s.as_str(), f.value.span, MAESTRO_SCRIPT_MISSING)),
                    _ => None,
                }),
            _ => None,
        };
        let Some((file, span, code)) = file else {
            continue;
        };
        if file.contains("${") {
            continue;
        }
        // agent-device's plan does not load a runFlow for another platform.
        let gate = gate.filter(|_| code == MAESTRO_RUNFLOW_MISSING);
        if let (Some(g), Some(p)) = (gate, platform) {
            if !g.eq_ignore_ascii_case(p) {
                continue;
            }
        }
        let gated_from = (platform.is_none() && gate.is_some()).then_some(out.len());
        let resolved = normalize(&match &base {
            _ if Path::new(file).is_absolute() => PathBuf::from(file),
            Some(dir) => dir.join(file),
            None => PathBuf::from(file),
        });
        // agent-device looks for a cycle before it loads the file (`include` reports it).
        let cycle = code == MAESTRO_RUNFLOW_MISSING && active.contains(&resolved);
        let text = if cycle {
            Some(String::new())
        } else {
            read(&resolved)
        };
        if code == MAESTRO_RUNFLOW_MISSING && text.is_some() {
            let site = Site {
                file,
                span,
                resolved: &resolved,
                gate,
            };
            include(
                site,
                text.unwrap_or_default(),
                read,
                platform,
                active,
                out,
                gated,
            );
        } else if text.is_none() {
            let what = if code == MAESTRO_RUNFLOW_MISSING {
                "runFlow"
            } else {
                "runScript"
            };
            out.push(
                Diagnostic::new(code, format!("{what} file `{file}` does not exist"), span)
                    .with_label("no such file (relative to this flow's folder)")
                    .with_help(if code == MAESTRO_RUNFLOW_MISSING {
                        "agent-device refuses the run when it plans the flow, before the first step"
                    } else {
                        "agent-device fails this step when it runs it"
                    }),
            );
        }
        if let (Some(from), Some(g)) = (gated_from, gate) {
            gate_findings(&mut out[from..], g, gated);
        }
    }
    for c in &commands {
        if let Some(Spanned {
            value: Scalar::Str(expr),
            span,
        }) = c.when.as_ref().and_then(|w| w.true_.as_ref())
        {
            when_true(expr, *span, out);
        }
    }
    for s in strings {
        let mut rest = s.text.as_str();
        let mut after = String::new();
        while let Some(at) = rest.find("${") {
            after.push_str(&rest[..at]);
            let tail = &rest[at + 2..];
            match tail.find('}') {
                Some(end) if is_variable_name(&tail[..end]) => {
                    let name = &tail[..end];
                    let known = supplied.contains(name)
                        || name.starts_with("AD_")
                        || (scripts && name.starts_with("output."));
                    if !known {
                        out.push(
                            Diagnostic::new(
                                MAESTRO_UNDEFINED_VARIABLE,
                                format!("`${{{name}}}` is not defined by this flow"),
                                s.span,
                            )
                            .with_label(when(s))
                            .with_help(undefined_help(name)),
                        );
                    }
                    after.push('x');
                    rest = &tail[end + 1..];
                }
                _ => {
                    after.push_str("${");
                    rest = tail;
                }
            }
        }
        after.push_str(rest);
        if let Some(bad) = unsupported_interpolation(&after) {
            out.push(
                Diagnostic::new(
                    MAESTRO_INTERPOLATION,
                    format!("`{bad}` is not a variable lookup: agent-device fails the step with \"Maestro interpolation \\\"{bad}\\\" is unresolved or unsupported.\""),
                    s.span,
                )
                .with_label(when(s))
                .with_help("compute the value in a runScript or evalScript and reference ${output.x}"),
            );
        }
    }
}

/// A literal `runFlow.when.true`, evaluated when the run is planned (one with a `${VAR}` is
/// evaluated with the run's values: left alone).
fn when_true(expr: &str, span: ad_grammar::Span, out: &mut Vec<Diagnostic>) {
    if has_lookup(expr) {
        return;
    }
    if let Some(bad) = unsupported_interpolation(expr) {
        out.push(
            Diagnostic::new(
                MAESTRO_INTERPOLATION,
                format!("`{bad}` is not a variable lookup: agent-device's plan fails with \"Maestro interpolation \\\"{bad}\\\" is unresolved or unsupported.\""),
                span,
            )
            .with_label(PLANNED)
            .with_help("write the condition with maestro.platform comparisons, true and false, or a bare ${VAR}"),
        );
    } else if let Some(message) = crate::when_true::refusal(expr) {
        out.push(
            Diagnostic::new(
                MAESTRO_WHEN_TRUE,
                format!("agent-device's plan cannot evaluate this condition: {message}"),
                span,
            )
            .with_label(PLANNED)
            .with_help("runFlow.when.true takes maestro.platform == / != 'name', true, false, && , || and parentheses, or a bare ${VAR}"),
        );
    }
}

/// `\$\{[A-Za-z_][A-Za-z0-9_.]*\}` somewhere in `s`.
fn has_lookup(s: &str) -> bool {
    let mut rest = s;
    while let Some(at) = rest.find("${") {
        let tail = &rest[at + 2..];
        if let Some(end) = tail.find('}') {
            if is_variable_name(&tail[..end]) {
                return true;
            }
        }
        rest = tail;
    }
    false
}

/// The primary label of a run-time finding on `s`: when agent-device meets it.
pub const PLANNED: &str = "resolved when the run is planned, before the first step";

fn when(s: &Interpolated) -> &'static str {
    if s.planned {
        PLANNED
    } else {
        "resolved when this step runs"
    }
}

/// An included flow, as agent-device's plan reads it: a cycle (AD925) first, or a flow it refuses,
/// itself or through what it includes (AD924).
fn include(
    site: Site,
    text: String,
    read: Read,
    platform: Option<&str>,
    active: &mut Active,
    out: &mut Vec<Diagnostic>,
    gated: &mut Vec<Gated>,
) {
    let Site {
        file,
        span,
        resolved,
        gate,
    } = site;
    if active.iter().any(|p| p == resolved) {
        out.push(
            Diagnostic::new(
                MAESTRO_RUNFLOW_CYCLE,
                format!("runFlow `{file}` includes a flow that is already running"),
                span,
            )
            .with_help(format!(
                "agent-device refuses the run before the first step: \"Maestro runFlow cycle detected at {}.\"",
                resolved.display()
            )),
        );
        return;
    }
    // Deep nesting is left to agent-device (its plan has no limit either; this bounds ours).
    if active.len() > 32 {
        return;
    }
    active.push(resolved.to_path_buf());
    let inner = crate::check_within(&text, Some(resolved), read, active, platform);
    active.pop();
    // What the included flow finds only on some platform: the including runFlow's finding on
    // that platform (none when this runFlow is loaded on another platform only).
    for g in &inner.gated {
        if gate.is_some_and(|own| !own.eq_ignore_ascii_case(&g.platform)) {
            continue;
        }
        let mut d = refused_include(file, span, resolved, &g.diagnostic);
        if gate.is_none() {
            gate_findings(std::slice::from_mut(&mut d), &g.platform, gated);
        }
        // Under this runFlow's own gate, the caller gates what it finds here.
        out.push(d);
    }
    // A platform-gated finding of the included flow is a warning here: it was handled above.
    let refused = inner.diagnostics.iter().find(|d| {
        d.is_parity_error()
            || (d.severity == ad_grammar::Severity::Error
                && [
                    MAESTRO_RUNFLOW_MISSING,
                    MAESTRO_INCLUDED_FLOW_REFUSED,
                    MAESTRO_RUNFLOW_CYCLE,
                ]
                .contains(&d.code))
    });
    let first = crate::first_rejection(&inner.diagnostics).or(refused);
    if let Some(d) = first {
        out.push(refused_include(file, span, resolved, d));
    }
}

/// A `runFlow` file and where it is named.
struct Site<'s> {
    file: &'s str,
    span: ad_grammar::Span,
    resolved: &'s Path,
    /// The platform it is loaded on alone (its own or an enclosing `runFlow`'s `when.platform`).
    gate: Option<&'s str>,
}

/// AD924 on the `runFlow` naming `file`: the included flow's finding `d`.
fn refused_include(
    file: &str,
    span: ad_grammar::Span,
    resolved: &Path,
    d: &Diagnostic,
) -> Diagnostic {
    let what = d
        .rejection
        .as_ref()
        .map_or_else(|| d.message.to_string(), |r| r.message.clone());
    // agent-device names the included file with the line: `(PATH:line N)`.
    let what = match what.rfind("(line ") {
        Some(i) => format!("{}({file}:{}", &what[..i], &what[i + 1..]),
        None => what,
    };
    Diagnostic::new(
        MAESTRO_INCLUDED_FLOW_REFUSED,
        format!("runFlow `{file}` includes a flow agent-device refuses: {what}"),
        span,
    )
    .with_help(format!(
        "agent-device refuses the run before the first step; check it with `ad check --maestro {}`",
        resolved.display()
    ))
}

/// Plan findings of a `runFlow` loaded on `platform` alone, checked without a platform: kept as
/// errors in `gated`, and made warnings that say where they stop the run.
fn gate_findings(found: &mut [Diagnostic], platform: &str, gated: &mut Vec<Gated>) {
    for d in found {
        gated.push(Gated {
            platform: platform.to_ascii_lowercase(),
            diagnostic: d.clone(),
        });
        d.severity = ad_grammar::Severity::Warning;
        d.help = Some(
            format!(
                "agent-device loads this runFlow only on {platform} (its `when.platform`), and there refuses the run before the first step; on other platforms it is left out"
            )
            .into(),
        );
    }
}

/// [`walk`]'s list with the platform each command is planned on alone (`None`: every
/// platform): a `runFlow`'s `when.platform` holds for it and for everything it runs.
fn walk_gates<'f>(
    commands: impl Iterator<Item = &'f Command>,
    inherited: Option<&'f str>,
    out: &mut Vec<(&'f Command, Option<&'f str>)>,
) {
    for c in commands {
        let own = match (&c.kind, &c.when) {
            (CommandKind::RunFlow, Some(w)) => w.platform.as_ref().map(|p| p.value.as_str()),
            _ => None,
        }
        .or(inherited);
        out.push((c, own));
        walk_gates(c.body.iter(), own, out);
        if let Some(Include::Commands(inner)) = &c.include {
            walk_gates(inner.iter(), own, out);
        }
    }
}

/// `path.resolve` without the file system: `.` and `..` folded.
pub(crate) fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            std::path::Component::CurDir => {}
            std::path::Component::ParentDir => {
                if !out.pop() {
                    out.push("..");
                }
            }
            other => out.push(other),
        }
    }
    out
}

/// `\$\{[^{}]*\}` that is not `${maestro.platform == '…'}`.
fn unsupported_interpolation(s: &str) -> Option<String> {
    let mut rest = s;
    while let Some(at) = rest.find("${") {
        let tail = &rest[at + 2..];
        let end = tail.find(['{', '}'])?;
        if tail.as_bytes()[end] == b'}' {
            let whole = format!("${{{}}}", &tail[..end]);
            if !platform_comparison(&tail[..end]) {
                return Some(whole);
            }
        }
        rest = &tail[end..];
    }
    None
}

fn platform_comparison(inner: &str) -> bool {
    let t = inner.trim_start();
    let Some(t) = t.strip_prefix("maestro.platform") else {
        return false;
    };
    let t = t.trim_start();
    let Some(t) = t.strip_prefix("==").or_else(|| t.strip_prefix("!=")) else {
        return false;
    };
    let t = t.trim_start();
    matches!(t.chars().next(), Some('\'' | '"'))
}

/// Every command, depth first: `repeat`/`retry` bodies and inline `runFlow` commands too.
pub fn walk<'f>(commands: impl Iterator<Item = &'f Command>, out: &mut Vec<&'f Command>) {
    for c in commands {
        out.push(c);
        walk(c.body.iter(), out);
        if let Some(Include::Commands(inner)) = &c.include {
            walk(inner.iter(), out);
        }
    }
}

/// How an undefined `${name}` gets a value: `-e` and `AD_VAR_*` take only uppercase names (and
/// never `AD_*`), so any other name can come from a flow's `env` alone; agent-device's engine
/// sets none of Maestro's own `maestro.*` values.
fn undefined_help(name: &str) -> String {
    if ad_grammar::metadata::is_var_name(name) && !name.starts_with("AD_") {
        return format!("define {name} in the flow's env, or pass it to the run (-e {name}=…, AD_VAR_{name}); agent-device fails the step otherwise");
    }
    let builtin = if name.starts_with("maestro.") {
        " `maestro.*` values are Maestro's own (copyTextFrom sets `maestro.copiedText`): agent-device's engine sets none of them."
    } else {
        ""
    };
    format!("define {name} in the flow's env (-e and AD_VAR_* take only uppercase names: letters, digits and underscores); agent-device fails the step otherwise.{builtin}")
}

#[cfg(test)]
mod undefined_help_tests {
    use super::undefined_help;

    #[test]
    fn only_names_a_run_can_supply_are_offered_to_e_and_ad_var() {
        let upper = undefined_help("PASSWORD");
        assert!(upper.contains("-e PASSWORD=…, AD_VAR_PASSWORD"), "{upper}");
        for name in ["userName", "maestro.copiedText", "AD_PLATFORM2"] {
            let help = undefined_help(name);
            assert!(
                !help.contains(&format!("AD_VAR_{name}")) && !help.contains(&format!("-e {name}")),
                "{help}"
            );
            assert!(help.contains("only uppercase names"), "{help}");
        }
        assert!(undefined_help("maestro.copiedText").contains("copyTextFrom"));
        assert!(!undefined_help("userName").contains("copyTextFrom"));
    }
}
