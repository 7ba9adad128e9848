//! Where a run can stop: each step's places in the source files (its own line, and for a
//! composition each `include` it was reached through), and the breakpoints set on them.
//!
//! A breakpoint on a line that is not a step moves to the next line of that file that is a
//! place of some step (and says so); a breakpoint on an `include` line stops at the first step
//! of each inclusion through it; one in a fragment stops wherever its step runs.

use std::path::{Path, PathBuf};

use ad_runtime::core::records::journal::StepSource;

use crate::condition::Condition;
use crate::protocol::{Breakpoint, Source};

/// One place in a source file (1-based line).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Place {
    pub path: PathBuf,
    pub line: usize,
    /// What the stack shows for the frame at this place.
    pub name: String,
}

/// One step of the plan as the debugger sees it.
#[derive(Debug, Clone)]
pub struct StepPlaces {
    /// Innermost first: the step's own line, then each `include` it was reached through.
    pub frames: Vec<Place>,
    /// The places a breakpoint stops this step at: its own line, and the include lines it is
    /// the first step of.
    pub breakable: Vec<Place>,
}

impl StepPlaces {
    /// How deep in the include chain the step is (0: the launched script's own step).
    pub fn depth(&self) -> usize {
        self.frames.len() - 1
    }
}

/// The plan's steps, by plan index (0-based).
#[derive(Debug, Clone, Default)]
pub struct PlanMap {
    pub steps: Vec<StepPlaces>,
}

/// A path as breakpoints and frames compare it: absolute, links resolved when it exists.
pub fn normal_path(path: &Path, base: &Path) -> PathBuf {
    let joined = if path.is_absolute() {
        path.to_path_buf()
    } else {
        base.join(path)
    };
    std::fs::canonicalize(&joined).unwrap_or(joined)
}

impl PlanMap {
    /// `steps` are (plan line 0-based, label) of each step of `program`; `sources` the
    /// composition's origin of each plan line (empty for a plain script); relative source
    /// paths are read from `base`.
    pub fn new(
        program: &Path,
        steps: &[(usize, String)],
        sources: &[Option<StepSource>],
        base: &Path,
    ) -> PlanMap {
        let program = normal_path(program, base);
        let mut out: Vec<StepPlaces> = Vec::with_capacity(steps.len());
        let mut previous: Option<&StepSource> = None;
        for (plan_line, label) in steps {
            let source = sources.get(*plan_line).and_then(Option::as_ref);
            let Some(source) = source else {
                let own = Place {
                    path: program.clone(),
                    line: plan_line + 1,
                    name: label.clone(),
                };
                out.push(StepPlaces {
                    frames: vec![own.clone()],
                    breakable: vec![own],
                });
                previous = None;
                continue;
            };
            let own = Place {
                path: normal_path(Path::new(&source.file), base),
                line: source.line,
                name: label.clone(),
            };
            let mut frames = vec![own.clone()];
            let mut breakable = vec![own];
            for (depth, site) in source.includes.iter().enumerate().rev() {
                let place = Place {
                    path: normal_path(Path::new(&site.file), base),
                    line: site.line,
                    name: format!(
                        "include {}",
                        Path::new(
                            source
                                .includes
                                .get(depth + 1)
                                .map_or(&source.file, |s| &s.file)
                        )
                        .file_name()
                        .map(|n| n.to_string_lossy().into_owned())
                        .unwrap_or_default()
                    ),
                };
                frames.push(place.clone());
                // Entered here: the step before was not reached through this same inclusion.
                let same_inclusion = previous.is_some_and(|p| {
                    p.includes.len() > depth && p.includes[..=depth] == source.includes[..=depth]
                });
                if !same_inclusion {
                    breakable.push(place);
                }
            }
            out.push(StepPlaces { frames, breakable });
            previous = Some(source);
        }
        PlanMap { steps: out }
    }

    /// The line a breakpoint on `line` of `path` stops at: the first place of a step at or after
    /// it in that file.
    pub fn resolve(&self, path: &Path, line: usize) -> Option<usize> {
        self.steps
            .iter()
            .flat_map(|s| &s.breakable)
            .filter(|p| p.path == path && p.line >= line)
            .map(|p| p.line)
            .min()
    }
}

/// A breakpoint as set by the client, resolved against the plan when there is one.
#[derive(Debug, Clone)]
pub struct SetBreakpoint {
    pub id: i64,
    pub path: PathBuf,
    pub requested: usize,
    pub condition: Option<Result<Condition, String>>,
    /// The line it stops at (`None`: no step there or after, or no plan yet).
    pub line: Option<usize>,
}

impl SetBreakpoint {
    /// The protocol's view: verified when it will stop somewhere, and why not or why moved.
    pub fn shown(&self, planned: bool) -> Breakpoint {
        let source = Some(Source {
            name: self
                .path
                .file_name()
                .map(|n| n.to_string_lossy().into_owned()),
            path: Some(self.path.display().to_string()),
        });
        let (verified, message) = match (&self.condition, self.line) {
            (Some(Err(e)), _) => (false, Some(format!("invalid condition: {e}"))),
            (_, None) if !planned => (
                false,
                Some("not resolved yet: the script is read when it is launched".into()),
            ),
            (_, None) => (
                false,
                Some(format!(
                    "no step on line {} or after it in this file",
                    self.requested
                )),
            ),
            (_, Some(l)) if l != self.requested => (
                true,
                Some(format!(
                    "line {} is not a step: moved to line {l}, the next step",
                    self.requested
                )),
            ),
            (_, Some(_)) => (true, None),
        };
        Breakpoint {
            id: self.id,
            verified,
            message,
            source,
            line: Some(self.line.unwrap_or(self.requested) as i64),
        }
    }
}

/// Every breakpoint set, by file.
#[derive(Debug, Clone, Default)]
pub struct Breakpoints {
    pub set: Vec<SetBreakpoint>,
}

impl Breakpoints {
    /// Replaces the breakpoints of `path` (what `setBreakpoints` does).
    pub fn replace(&mut self, path: &Path, new: Vec<SetBreakpoint>) {
        self.set.retain(|b| b.path != path);
        self.set.extend(new);
    }

    /// Resolves every breakpoint against `plan`.
    pub fn resolve(&mut self, plan: &PlanMap) {
        for b in &mut self.set {
            b.line = plan.resolve(&b.path, b.requested);
        }
    }

    /// The breakpoints a step stops at: those on one of its breakable places.
    pub fn hits<'a>(&'a self, step: &'a StepPlaces) -> impl Iterator<Item = &'a SetBreakpoint> {
        self.set.iter().filter(|b| {
            !matches!(b.condition, Some(Err(_)))
                && step
                    .breakable
                    .iter()
                    .any(|p| Some(p.line) == b.line && p.path == b.path)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ad_runtime::core::records::journal::IncludeSite;

    fn site(file: &str, line: usize, id: &str) -> IncludeSite {
        IncludeSite {
            file: file.into(),
            line,
            call_site_id: id.into(),
            digest: "sha256:0".into(),
        }
    }

    #[test]
    fn a_line_that_is_not_a_step_moves_to_the_next_step() {
        let base = Path::new("/nowhere");
        let steps = [(2, "open".to_string()), (5, "click".to_string())];
        let plan = PlanMap::new(Path::new("s.ad"), &steps, &[], base);
        let p = base.join("s.ad");
        assert_eq!(plan.resolve(&p, 1), Some(3));
        assert_eq!(plan.resolve(&p, 3), Some(3));
        assert_eq!(plan.resolve(&p, 4), Some(6));
        assert_eq!(plan.resolve(&p, 7), None);
        assert_eq!(plan.resolve(&base.join("other.ad"), 1), None);
    }

    #[test]
    fn an_include_line_stops_at_the_first_step_of_each_inclusion() {
        let base = Path::new("/nowhere");
        let from = |line: usize, sites: Vec<IncludeSite>| {
            Some(StepSource {
                file: "frag.ad".into(),
                line,
                includes: sites,
            })
        };
        let sources = vec![
            None,
            from(4, vec![site("main.ad", 3, "a")]),
            from(5, vec![site("main.ad", 3, "a")]),
            from(4, vec![site("main.ad", 4, "b")]),
        ];
        let steps: Vec<(usize, String)> = (0..4).map(|i| (i, format!("s{i}"))).collect();
        let plan = PlanMap::new(Path::new("main.ad"), &steps, &sources, base);
        let main = base.join("main.ad");
        let frag = base.join("frag.ad");
        let mut bps = Breakpoints::default();
        let at = |path: &Path, line| SetBreakpoint {
            id: line as i64,
            path: path.to_path_buf(),
            requested: line,
            condition: None,
            line: None,
        };
        bps.replace(&main, vec![at(&main, 3)]);
        bps.replace(&frag, vec![at(&frag, 4)]);
        bps.resolve(&plan);
        let hit: Vec<Vec<i64>> = plan
            .steps
            .iter()
            .map(|s| bps.hits(s).map(|b| b.id).collect())
            .collect();
        // The include at main.ad:3 stops its first step only; frag.ad:4 stops at both inclusions.
        assert_eq!(hit, vec![vec![], vec![3, 4], vec![], vec![4]]);
        // The stack of a fragment step: the fragment's line, then the include it came through.
        let names: Vec<(String, usize)> = plan.steps[2]
            .frames
            .iter()
            .map(|p| (p.name.clone(), p.line))
            .collect();
        assert_eq!(names, [("s2".into(), 5), ("include frag.ad".into(), 3)]);
        assert_eq!(plan.steps[2].depth(), 1);
    }
}
