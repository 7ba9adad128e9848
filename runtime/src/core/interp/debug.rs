//! The debugger's seam (`ad dap`): a run can stop before each step and after a failed one.
//!
//! A [`Progress`](super::Progress) that returns a [`Debugger`] is awaited at each step boundary
//! with the paused run ([`PausedRun`]): the step about to run, the run's variables (injected
//! values shown as `<var:NAME>`), the last screen capture (redacted as the journal's
//! observations are), the run folder, and script commands typed against the live session,
//! journaled like the run's steps. Without one (every other caller) nothing changes.

use std::future::Future;
use std::path::{Path, PathBuf};
use std::pin::Pin;

use ad_compiler::Step;
use serde_json::Value;

use super::{action_label, results, Exec, RunError, RunOptions, StepInfo};
use crate::core::backend::Backend;
use crate::core::records::journal::{Event, StepEnd, StepStart, StepStatus};
use crate::core::tree::Snapshot;

/// A boxed future borrowing the paused run.
pub type Pending<'a, T> = Pin<Box<dyn Future<Output = T> + 'a>>;

/// Where the run is paused.
pub enum Pause<'a> {
    /// Before the step runs (after the checks that skip it).
    Step,
    /// The step failed with this error (its divergence report in `details`); the run ends
    /// when the debugger returns.
    Failed(&'a RunError),
}

/// Awaited by the interpreter at each [`Pause`]; the run goes on when it returns. A debugger
/// that wants the run to end asks for it as a signal would (`interrupt::request_on`), and
/// returns: the run then ends before the next step, its journal and backend closed as an
/// interrupted run's.
pub trait Debugger {
    fn pause<'a>(&'a mut self, at: Pause<'a>, run: &'a mut dyn PausedRun) -> Pending<'a, ()>;
}

/// A variable of the run as a debugger shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShownVariable {
    pub name: String,
    /// `<var:NAME>` for an injected value (`-e`, `AD_VAR_*`); the script's `env` value and the
    /// built-ins as they are.
    pub value: String,
    /// `cli`, `shell`, `file` or `builtin`.
    pub source: &'static str,
}

/// The run, paused at a step boundary.
pub trait PausedRun {
    /// The step (about to run, or that failed).
    fn info(&self) -> &StepInfo;
    fn step(&self) -> &Step<'_>;
    fn variables(&self) -> Vec<ShownVariable>;
    /// `text` with the run's `${VAR}`s put in (for a breakpoint's condition; not redacted, so
    /// never to be shown as it is: [`PausedRun::redact`] it first).
    fn expand(&mut self, text: &str) -> Result<String, String>;
    /// Injected values replaced by `<var:NAME>`.
    fn redact(&self, text: &str) -> String;
    /// The last screen the run captured, redacted.
    fn screen(&self) -> Option<Snapshot>;
    /// The run folder (its `events.jsonl` is the journal so far).
    fn run_dir(&self) -> Option<PathBuf>;
    /// Runs one script command (`snapshot`, `get text "id=x"`, `click …`) on the live session,
    /// in the run's state (variables, ref frames, last capture), journaled as a step of line 0
    /// numbered as the paused one; `Ok` holds its redacted result. A trailing `--record-as
    /// NAME` on a `fill` redacts its text as `${NAME}` from then on.
    fn evaluate<'a>(&'a mut self, line: &'a str) -> Pending<'a, Result<Option<Value>, String>>;
    /// Writes the device's screen now as a PNG at `path`, a file the client can open. Not a
    /// step: nothing is journaled (the script's own `screenshot` steps are). Refused on a
    /// backend that records or replays the run's calls.
    fn screenshot<'a>(&'a mut self, path: &'a Path) -> Pending<'a, Result<(), String>>;
}

/// The interpreter's side of [`PausedRun`].
pub(super) struct Paused<'x, 'b, B: Backend> {
    pub ex: &'x mut Exec<'b, B>,
    pub info: &'x StepInfo,
    pub step: &'x Step<'x>,
    pub opts: &'x RunOptions,
    pub file_env: &'x [(String, String)],
}

impl<B: Backend> PausedRun for Paused<'_, '_, B> {
    fn info(&self) -> &StepInfo {
        self.info
    }

    fn step(&self) -> &Step<'_> {
        self.step
    }

    fn variables(&self) -> Vec<ShownVariable> {
        let named = |list: &[(String, String)], name: &str| list.iter().any(|(k, _)| k == name);
        self.ex
            .scope
            .entries()
            .map(|(name, value)| {
                let source = if named(&self.opts.cli_env, name) {
                    "cli"
                } else if named(&self.opts.shell_env, name) {
                    "shell"
                } else if named(self.file_env, name) {
                    "file"
                } else {
                    "builtin"
                };
                let value = match source {
                    "cli" | "shell" => format!("<var:{name}>"),
                    _ => value.to_string(),
                };
                ShownVariable {
                    name: name.to_string(),
                    value,
                    source,
                }
            })
            .collect()
    }

    fn expand(&mut self, text: &str) -> Result<String, String> {
        self.ex
            .scope
            .expand(text)
            .map_err(|u| format!("${{{}}} has no value", u.name))
    }

    fn redact(&self, text: &str) -> String {
        self.ex.scope.redact(text)
    }

    fn screen(&self) -> Option<Snapshot> {
        let last = self.ex.last.as_deref()?;
        let mut shown = last.clone();
        for n in &mut shown.nodes {
            for v in [&mut n.id, &mut n.label, &mut n.value]
                .into_iter()
                .flatten()
            {
                *v = self.ex.scope.redact(v);
            }
        }
        Some(shown)
    }

    fn run_dir(&self) -> Option<PathBuf> {
        self.ex.journal.dir().map(PathBuf::from)
    }

    fn screenshot<'a>(&'a mut self, path: &'a Path) -> Pending<'a, Result<(), String>> {
        Box::pin(async move {
            // A recording or a replay serves the script's own calls, in order: an extra one
            // would be recorded, or diverge the replay (the same rule as failure screenshots).
            if !self.ex.backend.screenshot_on_failure() {
                return Err(
                    "this backend records or replays the run's calls: no screenshot".into(),
                );
            }
            let png = self
                .ex
                .backend
                .screenshot()
                .await
                .map_err(|e| format!("{}: {}", e.code(), e.message()))?;
            std::fs::write(path, png).map_err(|e| format!("{}: {e}", path.display()))
        })
    }

    fn evaluate<'a>(&'a mut self, line: &'a str) -> Pending<'a, Result<Option<Value>, String>> {
        Box::pin(async move {
            let (line, record_as) = split_record_as(line)?;
            let analysis = ad_compiler::read(line);
            if let Some(d) = analysis
                .diagnostics
                .iter()
                .find(|d| d.is_parity_error() || d.severity == ad_grammar::Severity::Error)
            {
                return Err(d.message.to_string());
            }
            let Some(step) = analysis.steps().first() else {
                return Err(
                    "no command given: type a script command (`snapshot`, `get text \"id=…\"`)"
                        .into(),
                );
            };
            let ex = &mut *self.ex;
            // `fill … --record-as NAME`: the typed text is redacted as `${NAME}` in what the
            // run records from now on (as an authoring session protects a parameterized fill).
            if let Some(name) = record_as {
                if step.action() != Some(ad_compiler::registry::Action::Fill) {
                    return Err("--record-as is supported only by fill".into());
                }
                let values: Vec<&str> = step.positionals.iter().map(|a| a.value.as_str()).collect();
                let Some(literal) = ad_compiler::fill_text_at(&values).map(|i| values[i]) else {
                    return Err(fill_without_text(step));
                };
                ex.scope.protect_literal(name, literal);
            }
            let (index, label_before, line_before) = (ex.step_no, ex.label.clone(), ex.line);
            let label = action_label(step.command(), &step.positional_values());
            ex.label = label.clone();
            ex.line = 0;
            let _ = ex.journal.append(Event::StepStart(StepStart {
                step: index,
                line: 0,
                command: step.command().to_string(),
                action: label,
                source: None,
            }));
            ex.resolved.clear();
            let t0 = std::time::Instant::now();
            let d0 = ex.backend.now_ms();
            let outcome = ex.step(step, "console").await;
            let mut end = StepEnd {
                step: index,
                line: 0,
                status: StepStatus::Ok,
                wall_ms: results::round3(t0.elapsed().as_secs_f64() * 1000.0),
                device_ms: ex.backend.now_ms().saturating_sub(d0),
                code: None,
                kind: None,
                result: None,
            };
            let result = match outcome {
                Ok(details) => {
                    end.result = details.and_then(|d| ex.scope.redacted(d));
                    Ok(end
                        .result
                        .as_ref()
                        .and_then(|r| serde_json::to_value(r).ok()))
                }
                Err(fail) => {
                    end.status = StepStatus::Failed;
                    end.code = Some(fail.code.clone());
                    end.kind = Some(fail.kind);
                    let mut message = format!("{}: {}", fail.code, ex.scope.redact(&fail.message));
                    if let Some(h) = &fail.hint {
                        message.push_str(&format!(" (help: {})", ex.scope.redact(h)));
                    }
                    Err(message)
                }
            };
            let _ = ex.journal.append(Event::StepEnd(end));
            ex.label = label_before;
            ex.line = line_before;
            result
        })
    }
}

/// A console line without its trailing `--record-as NAME` (or `--record-as=NAME`), and the name.
fn split_record_as(line: &str) -> Result<(&str, Option<&str>), String> {
    let trimmed = line.trim_end();
    let (rest, name) = match trimmed.rsplit_once(char::is_whitespace) {
        Some((rest, last)) if last.starts_with("--record-as=") => {
            (rest, &last["--record-as=".len()..])
        }
        Some((rest, last)) => match rest.trim_end().rsplit_once(char::is_whitespace) {
            Some((before, "--record-as")) => (before, last),
            _ => return Ok((line, None)),
        },
        None => return Ok((line, None)),
    };
    if !ad_grammar::metadata::is_var_name(name) || name.starts_with("AD_") {
        return Err(format!(
            "--record-as {name:?} is not a variable name: use [A-Z_][A-Z0-9_]* and not AD_* (reserved for built-ins)"
        ));
    }
    Ok((rest, Some(name)))
}

/// Why a `fill … --record-as` has no text to protect, in the reader's words.
pub(crate) fn fill_without_text(step: &ad_compiler::Step<'_>) -> String {
    ad_compiler::refusal_when_filled(step, &step.positional_values())
        .map_or_else(|| "fill has no text to record".into(), |r| r.message)
}

#[cfg(test)]
mod tests {
    use super::split_record_as;

    #[test]
    fn record_as_is_taken_off_the_end_of_a_console_line() {
        let fill = r#"fill "id=\"pin\"" "4242" --record-as PIN"#;
        assert_eq!(
            split_record_as(fill),
            Ok((r#"fill "id=\"pin\"" "4242""#, Some("PIN")))
        );
        assert_eq!(
            split_record_as("fill @e3 x --record-as=CODE"),
            Ok(("fill @e3 x", Some("CODE")))
        );
        assert_eq!(split_record_as("snapshot"), Ok(("snapshot", None)));
        assert_eq!(split_record_as("get text @e1"), Ok(("get text @e1", None)));
        assert!(split_record_as("fill @e3 x --record-as AD_X").is_err());
        assert!(split_record_as("fill @e3 x --record-as lower-case").is_err());
    }
}
