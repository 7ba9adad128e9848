//! A flow and every flow it includes, read before the first step as agent-device's plan reads
//! them: a flow its reader refuses, a `runFlow` file that is missing or refused, a cycle or a
//! `when.true` the plan cannot evaluate refuse the run (exit 2), with every diagnostic.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use ad_grammar::codes::{
    MAESTRO_INCLUDED_FLOW_REFUSED, MAESTRO_INTERPOLATION, MAESTRO_RUNFLOW_CYCLE,
    MAESTRO_RUNFLOW_MISSING, MAESTRO_WHEN_TRUE,
};
use ad_grammar::{Diagnostic, LineIndex, Severity, Span};

use crate::run_checks::{self, PLANNED};
use crate::tree::{Command, Flow, Include};

/// One flow file of a run.
#[derive(Debug)]
pub struct FlowFile {
    pub path: PathBuf,
    /// As messages show it (the path the user gave, or relative to it).
    pub display: String,
    pub text: String,
    pub index: LineIndex,
    pub flow: Flow,
}

impl FlowFile {
    /// 1-based line and column of `span`.
    pub fn line_col(&self, span: Span) -> (usize, usize) {
        self.index.line_col(&self.text, span.start())
    }

    /// The folder `runFlow` and `runScript` paths start from.
    pub fn folder(&self) -> &Path {
        self.path.parent().unwrap_or(Path::new("."))
    }
}

/// The entry flow (`files[0]`) and each included file once.
#[derive(Debug)]
pub struct Program {
    pub files: Vec<FlowFile>,
    by_path: HashMap<PathBuf, usize>,
    /// What refuses the run on one platform only: the plan findings of `runFlow`s agent-device
    /// loads there alone (`when.platform`), known once the device's platform is.
    gated: Vec<run_checks::Gated>,
}

/// Why a flow cannot run: the file and what agent-device's reader or plan says of it.
#[derive(Debug)]
pub struct Refused {
    pub display: String,
    pub text: String,
    pub diagnostics: Vec<Diagnostic>,
}

/// Does `d` stop agent-device before the first step?
pub fn stops_the_plan(d: &Diagnostic) -> bool {
    if d.severity != Severity::Error {
        return false;
    }
    d.rejection.is_some()
        || [
            MAESTRO_RUNFLOW_MISSING,
            MAESTRO_INCLUDED_FLOW_REFUSED,
            MAESTRO_RUNFLOW_CYCLE,
            MAESTRO_WHEN_TRUE,
        ]
        .contains(&d.code)
        || (d.code == MAESTRO_INTERPOLATION && d.labels.iter().any(|l| l.message == PLANNED))
}

impl Program {
    /// Reads `entry` (shown as `display`) and every flow it includes; `read` gives a file's
    /// text (`None`: no such file).
    pub fn load(
        entry: &Path,
        display: &str,
        read: &dyn Fn(&Path) -> Option<String>,
    ) -> Result<Program, Refused> {
        let mut program = Program {
            files: Vec::new(),
            by_path: HashMap::new(),
            gated: Vec::new(),
        };
        let Some(text) = read(entry) else {
            return Err(Refused {
                display: display.into(),
                text: String::new(),
                diagnostics: Vec::new(),
            });
        };
        let checked = crate::check(&text, Some(entry), read);
        let (flow, diagnostics) = (checked.flow, checked.diagnostics);
        if diagnostics.iter().any(stops_the_plan) || flow.is_none() {
            return Err(Refused {
                display: display.into(),
                text,
                diagnostics,
            });
        }
        program.gated = checked.gated;
        program.add(entry, display.into(), text, flow.unwrap_or_default(), read);
        Ok(program)
    }

    /// The run's refusal on `platform`, the device's: what agent-device's plan meets in the
    /// `runFlow`s it loads on that platform alone (`when.platform`), before the first step.
    pub fn refusal_on(&self, platform: &str) -> Option<Refused> {
        let diagnostics: Vec<Diagnostic> = self
            .gated
            .iter()
            .filter(|g| g.platform.eq_ignore_ascii_case(platform))
            .map(|g| g.diagnostic.clone())
            .collect();
        let entry = self.files.first()?;
        (!diagnostics.is_empty()).then(|| Refused {
            display: entry.display.clone(),
            text: entry.text.clone(),
            diagnostics,
        })
    }

    fn add(
        &mut self,
        path: &Path,
        display: String,
        text: String,
        flow: Flow,
        read: &dyn Fn(&Path) -> Option<String>,
    ) -> usize {
        let key = run_checks::normalize(path);
        if let Some(&i) = self.by_path.get(&key) {
            return i;
        }
        let at = self.files.len();
        self.by_path.insert(key, at);
        let folder = path.parent().unwrap_or(Path::new(".")).to_path_buf();
        let display_folder = Path::new(&display)
            .parent()
            .unwrap_or(Path::new(""))
            .to_path_buf();
        let mut includes = Vec::new();
        let mut all = Vec::new();
        run_checks::walk(
            flow.config
                .on_flow_start
                .iter()
                .chain(&flow.config.on_flow_complete)
                .chain(&flow.commands),
            &mut all,
        );
        for c in all {
            if let Some(Include::File(f)) = &c.include {
                if !f.value.contains("${") {
                    includes.push(f.value.clone());
                }
            }
        }
        self.files.push(FlowFile {
            path: path.to_path_buf(),
            display,
            index: LineIndex::new(&text),
            text,
            flow,
        });
        for file in includes {
            let resolved = folder.join(&file);
            if self.by_path.contains_key(&run_checks::normalize(&resolved)) {
                continue;
            }
            // The plan's check already read it: it exists and its reader accepts it.
            let Some(text) = read(&resolved) else {
                continue;
            };
            let flow = crate::check(&text, Some(&resolved), read)
                .flow
                .unwrap_or_default();
            let shown = display_folder.join(&file).display().to_string();
            self.add(&resolved, shown, text, flow, read);
        }
        at
    }

    /// The file a `runFlow` of file `from` names.
    pub fn included(&self, from: usize, file: &str) -> Option<usize> {
        let path = self.files[from].folder().join(file);
        self.by_path.get(&run_checks::normalize(&path)).copied()
    }

    /// Every command of the program, for static questions (does it take a screenshot?).
    pub fn commands(&self) -> Vec<&Command> {
        let mut out = Vec::new();
        for f in &self.files {
            run_checks::walk(
                f.flow
                    .config
                    .on_flow_start
                    .iter()
                    .chain(&f.flow.config.on_flow_complete)
                    .chain(&f.flow.commands),
                &mut out,
            );
        }
        out
    }
}
