//! Heal proposals (`ad heal`, issue 32): a script that diverges is run again with each of its
//! divergence report's ranked suggestions as the diverging step's selector, and the element the
//! new selector acts on re-captured as its `target-v1` evidence the way the recorder writes it
//! ([`crate::session::authoring::evidence::capture`]); a candidate is kept only when a fresh run of the
//! whole changed script passes (or diverges at a later step, which is then healed in turn). A
//! step no candidate proves needs a human (a removed field, a new screen): a repair-armed run.
//!
//! Backend-agnostic: every run is an ordinary [`crate::session::run_script`] on the backend the
//! configuration chooses, each with its fresh session. Nothing here writes the script.
//!
//! Offline, on a recording of the failing run (`--backend recorded:DIR`), the runs replay it
//! with an open tail ([`crate::backends::recorded::ReplaySource::with_open_tail`]): what the recording
//! knows is proven, and where it runs out ([`crate::backends::recorded::replay::EXHAUSTED`]) the proof
//! says so ([`Scope::Recording`]). Proven on the recording means: the changed script replays
//! every step before the diverging one exactly as recorded; the step's new selector resolves to
//! one element of the screen the recorded step saw (exactly one match), whose re-captured
//! evidence keeps the step's intent and verifies there; and every later step the recording
//! still answers passes (reads of the screen after a healed read). The app's answer to an
//! action the recorded run never made is not known: the steps from there on are not replayed.
//! A recording the script's earlier steps contradict is refused ([`Refused`]).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use ad_compiler::registry::{Targeting, Verification};
use ad_compiler::shape::{is_form, wait_form, IsForm, WaitForm};
use ad_compiler::Step;
use ad_grammar::annotation::{Evidence, TargetEvidence};
use ad_grammar::printer::{format_arg, print_annotation};
use ad_grammar::AnnotationKind;

use crate::core::interp::{Plan, Progress, RunOptions, RunResult, StepEnd, StepInfo};
use crate::core::records::DivergenceReport;
use crate::core::tree::Snapshot;
use crate::core::vars::Redactor;
use crate::session::authoring::evidence::{self, Mode};
use crate::session::{run_script, SessionConfig, SetupError};

/// What to heal, and how each run is made.
pub struct Request<'a> {
    /// The script's path: its backend and app model are chosen from it, as `ad run` chooses.
    pub script: &'a Path,
    /// Its text (the runs use the changed text, never the file).
    pub text: String,
    /// The run options every run starts from (`-e`, `AD_VAR_*`, session, platform, target).
    pub options: RunOptions,
    pub config: SessionConfig,
}

/// One evidence field compared between the recorded and the re-captured evidence.
#[derive(Debug, Clone, PartialEq)]
pub struct FieldChange {
    pub field: &'static str,
    pub was: String,
    pub now: String,
}

/// The run that proved a proposal.
#[derive(Debug, Clone)]
pub struct Proof {
    pub replayed: usize,
    pub total: usize,
    /// The run passed; else it diverged at `later` (healed next).
    pub passed: bool,
    pub later: Option<usize>,
    pub run_dir: Option<PathBuf>,
    pub wall_ms: f64,
    /// What the run could prove: the whole script on a device, or a recording's part of it.
    pub scope: Scope,
}

/// How far a proof reaches.
#[derive(Debug, Clone, PartialEq)]
pub enum Scope {
    /// A run on a device (the sim, the web, the agent-device bridge): the app answered every
    /// step the run replayed.
    Device,
    /// A replay of a recording of the failing run (the module doc says what it proves).
    Recording {
        /// Steps 1..=`replayed_to` passed on the recording.
        replayed_to: usize,
        /// Where the recording ran out; none when the changed script passed to its end on it.
        ends_at: Option<RecordingEnd>,
    },
}

/// The step at which a proof on a recording stopped: the recording holds no answer to one of
/// its calls (an action the recorded run never made, or a screen past its last moment).
#[derive(Debug, Clone, PartialEq)]
pub struct RecordingEnd {
    /// 1-based plan index and source line.
    pub step: usize,
    pub line: usize,
    /// The replay's message: the call the recording holds no answer to. (At the diverging step
    /// itself, its target resolved and its evidence verified on the recorded screen first.)
    pub reason: String,
}

impl Proof {
    /// The proof reached the end of the script (on a device, or on the recording).
    pub fn reaches_the_end(&self) -> bool {
        !matches!(
            self.scope,
            Scope::Recording {
                ends_at: Some(_),
                ..
            }
        )
    }
}

/// The recording an offline heal replays.
#[derive(Debug, Clone, PartialEq)]
pub struct Recording {
    /// The fixture folder (`--backend recorded:DIR`).
    pub fixture: PathBuf,
    /// The backend and platform it was recorded on: where the rest is proven
    /// (`ad heal FILE --backend <backend>`).
    pub backend: String,
    pub platform: String,
}

/// A proven change of one diverging step.
#[derive(Debug, Clone)]
pub struct Proposal {
    /// 1-based plan index and source line of the diverging step.
    pub step: usize,
    pub line: usize,
    pub divergence_kind: String,
    pub cause_code: String,
    /// The selector as written, and the one proposed.
    pub old_selector: String,
    pub new_selector: String,
    /// The suggestion's basis (`id`, `role-label`, `label`, `evidence`) and its rank (1-based).
    pub basis: String,
    pub rank: usize,
    /// Evidence fields that stayed and that changed.
    pub matched: Vec<&'static str>,
    pub changed: Vec<FieldChange>,
    pub proof: Proof,
    /// Candidates tried before this one, each with why it was not kept.
    pub rejected: Vec<(String, String)>,
}

/// A step no candidate could prove.
#[derive(Debug, Clone)]
pub struct Human {
    pub step: usize,
    pub line: usize,
    pub action: String,
    pub cause_code: String,
    pub message: String,
    pub repair_hint: String,
    /// Each candidate tried, with why it was not kept.
    pub tried: Vec<(String, String)>,
}

/// The result of healing.
#[derive(Debug, Clone)]
pub struct Outcome {
    pub original: String,
    /// The script with every proven proposal applied (the original when there is none).
    pub healed: String,
    pub proposals: Vec<Proposal>,
    pub human: Option<Human>,
    /// How many runs it took.
    pub runs: usize,
    /// The first run's result passed: nothing to heal.
    pub passed_as_is: bool,
    /// Offline: the recording every run replayed (each proof's [`Proof::scope`] says how far).
    pub recording: Option<Recording>,
}

impl Outcome {
    /// Every proposal's proof reached the end of the script: what `--write` needs, as a repair
    /// transaction commits only a complete repair. False when a proof on a recording stopped
    /// where the recording ran out (prove it on a device first).
    pub fn proven_to_the_end(&self) -> bool {
        self.human.is_none() && self.proposals.iter().all(|p| p.proof.reaches_the_end())
    }

    /// The proof that stopped where the recording ran out, if one did.
    pub fn recording_end(&self) -> Option<(&Proposal, &RecordingEnd)> {
        self.proposals.iter().find_map(|p| match &p.proof.scope {
            Scope::Recording {
                ends_at: Some(e), ..
            } => Some((p, e)),
            _ => None,
        })
    }
}

/// A static refusal of the changed text (it does not analyze cleanly): a usage error.
#[derive(Debug)]
pub struct Refused(pub String);

impl From<SetupError> for Refused {
    fn from(e: SetupError) -> Refused {
        Refused(e.0)
    }
}

/// Forwards progress and keeps the elements the step on `line` (0-based) resolved (whether it
/// then passed or failed: offline, a step whose action the recording never saw resolved first).
struct Capture<'p> {
    inner: &'p mut dyn Progress,
    line: Option<usize>,
    got: Option<(Arc<Snapshot>, usize)>,
}

impl Progress for Capture<'_> {
    fn step_start(&mut self, s: &StepInfo) {
        self.inner.step_start(s);
    }
    fn step_end(&mut self, s: &StepInfo, e: &StepEnd) {
        self.inner.step_end(s, e);
    }
    fn step_passed(&mut self, step: &Step<'_>, resolved: &[(Arc<Snapshot>, usize)]) {
        if Some(step.line()) == self.line {
            self.got = resolved.last().cloned();
        }
    }
    fn step_failed(&mut self, step: &Step<'_>, resolved: &[(Arc<Snapshot>, usize)]) {
        if Some(step.line()) == self.line {
            self.got = resolved.last().cloned();
        }
    }
}

/// A run's result, its folder, and the element the captured step acted on.
type Ran = (RunResult, Option<PathBuf>, Option<(Arc<Snapshot>, usize)>);

/// One run of `text`; with `capture_line`, the element the step there acted on.
fn run_text(
    req: &Request,
    text: &str,
    journal: bool,
    capture_line: Option<usize>,
    progress: &mut dyn Progress,
) -> Result<Ran, Refused> {
    let display = req.options.script_path.clone();
    let analysis = gated(req.script, &display, text)
        .map_err(|r| Refused(format!("the changed script is refused: {}", r.summary)))?;
    let plan = Plan {
        steps: analysis.steps(),
        metadata: analysis.metadata(),
    };
    let mut config = req.config.clone();
    config.no_journal = !journal;
    config.persist_session = false;
    config.record_fixture = None;
    let mut options = req.options.clone();
    options.level = "full".into();
    options.from = None;
    options.plan_digest = None;
    options.keep_session = false;
    options.repair_armed = false;
    let mut cap = Capture {
        inner: progress,
        line: capture_line,
        got: None,
    };
    let outcome = run_script(&plan, req.script, &options, &config, &mut cap)?;
    Ok((outcome.result, outcome.run_dir, cap.got))
}

/// Where the diverging step's selector is written: its positional index and the source span
/// (bytes) of that argument, the annotation line above it (0-based), and how the element's
/// evidence is captured.
struct Site {
    span: std::ops::Range<usize>,
    written: String,
    annotation_line: Option<usize>,
    line: usize,
    mode: Option<Mode>,
    evidence: Option<Arc<TargetEvidence>>,
}

fn site_of(text: &str, line: usize) -> Option<Site> {
    let analysis = ad_compiler::analyze(text);
    let step = analysis.steps().iter().find(|s| s.line() + 1 == line)?;
    let raw = step.positional_values();
    let spec = step.spec()?;
    let written = match spec.targeting {
        Targeting::Element => raw.first().cloned(),
        Targeting::ElementAfterSubcommand => raw.get(1).cloned(),
        Targeting::WaitTarget => match wait_form(&raw) {
            WaitForm::Selector { selector, .. } => Some(selector),
            _ => None,
        },
        Targeting::Predicate => match is_form(&raw) {
            IsForm::Check { selector, .. } => Some(selector),
            _ => None,
        },
        _ => None,
    }
    .filter(|s| !s.starts_with('@') && !ad_grammar::text::is_numeric(s))?;
    let at = raw.iter().position(|r| *r == written)?;
    let arg = step.positionals.get(at)?;
    let span = step.arg_span(analysis.file(), arg);
    let mode = match spec.verification {
        Verification::PreDispatch => Some(Mode::Action),
        Verification::PostResolution => Some(Mode::Landmark),
        _ => None,
    };
    Some(Site {
        span: span.start()..span.end(),
        written,
        annotation_line: step.annotation_line(),
        line: step.line(),
        mode,
        evidence: step.target_evidence.clone(),
    })
}

/// `text` with the selector at `site` replaced by `selector` and the step's annotation replaced
/// by `annotation` (none: removed).
fn change(text: &str, site: &Site, selector: &str, annotation: Option<&str>) -> String {
    let mut t = String::with_capacity(text.len() + 512);
    t.push_str(&text[..site.span.start]);
    t.push_str(&format_arg(selector));
    t.push_str(&text[site.span.end..]);
    let mut lines: Vec<String> = t.split_inclusive('\n').map(str::to_string).collect();
    let mut step_line = site.line;
    if let Some(a) = site.annotation_line {
        if a < lines.len() {
            lines.remove(a);
            if a < step_line {
                step_line -= 1;
            }
        }
    }
    if let Some(a) = annotation {
        lines.insert(step_line.min(lines.len()), format!("{a}\n"));
    }
    lines.concat()
}

/// The evidence fields that stayed and those that changed, recorded → re-captured.
fn compare(
    old: Option<&TargetEvidence>,
    new: &TargetEvidence,
) -> (Vec<&'static str>, Vec<FieldChange>) {
    let Some(old) = old else {
        return (Vec::new(), Vec::new());
    };
    let show = |v: Option<&str>| {
        v.map(ad_grammar::json::quote)
            .unwrap_or_else(|| "none".into())
    };
    let json = |v: serde_json::Result<String>| v.unwrap_or_default();
    let fields: [(&'static str, String, String); 8] = [
        ("id", show(old.id.as_deref()), show(new.id.as_deref())),
        (
            "role",
            show(Some(old.role.as_str())),
            show(Some(new.role.as_str())),
        ),
        (
            "label",
            show(old.label.as_deref()),
            show(new.label.as_deref()),
        ),
        (
            "ancestry",
            json(serde_json::to_string(&old.ancestry)),
            json(serde_json::to_string(&new.ancestry)),
        ),
        ("sibling", old.sibling.to_string(), new.sibling.to_string()),
        (
            "viewportOrder",
            old.viewport_order.to_string(),
            new.viewport_order.to_string(),
        ),
        (
            "scrollRegion",
            json(serde_json::to_string(&old.scroll_region)),
            json(serde_json::to_string(&new.scroll_region)),
        ),
        (
            "rect",
            json(serde_json::to_string(&old.rect)),
            json(serde_json::to_string(&new.rect)),
        ),
    ];
    let mut matched = Vec::new();
    let mut changed = Vec::new();
    for (field, was, now) in fields {
        // A field neither the record nor the element has matched nothing.
        let absent = |v: &str| matches!(v, "none" | "null" | "[]");
        if was == now && absent(&was) {
            continue;
        }
        if was == now {
            matched.push(field);
        } else {
            changed.push(FieldChange { field, was, now });
        }
    }
    (matched, changed)
}

/// Why the element `new` describes is not the recorded one renamed, re-identified or moved but
/// another element (a proposal keeps the step's intent): its role changed, or both its id and
/// its label did (a recorded field that stayed is what ties it to the record).
fn another_element(old: &TargetEvidence, new: &TargetEvidence) -> Option<String> {
    if old.role != new.role {
        return Some(format!(
            "it acts on another kind of element ({} where a {} was recorded): the step's intent would change",
            new.role, old.role
        ));
    }
    let id_kept = old.id.is_some() && old.id == new.id;
    let label_kept = old.label.is_some() && old.label == new.label;
    // Without a recorded id (AT-SPI widgets, apps without accessibility ids) a relabel keeps
    // neither field: then where it sits ties it to the record, the fields the identity rules
    // use (spec §12): the same non-empty ancestry and the same sibling index.
    let place_kept = old.id.is_none()
        && !old.ancestry.is_empty()
        && old.ancestry == new.ancestry
        && old.sibling == new.sibling;
    if !id_kept && !label_kept && !place_kept && (old.id.is_some() || old.label.is_some()) {
        let why = if old.id.is_some() {
            "neither the recorded id nor the recorded label stayed"
        } else {
            "its label changed and so did its place (ancestry or sibling index)"
        };
        return Some(format!("it acts on another element: {why}"));
    }
    None
}

/// The replay code of a run's failure (the divergence's cause), when the run failed on a
/// recording's terms: [`crate::backends::recorded::replay::DIVERGED`], `EXHAUSTED`, `UNRECORDED_SESSION`.
fn replay_code(r: &RunResult) -> Option<&str> {
    use crate::backends::recorded::replay::{DIVERGED, EXHAUSTED, UNRECORDED_SESSION};
    let e = r.error.as_ref()?;
    let code = e
        .divergence()
        .map(|d| d.cause.code.as_str())
        .unwrap_or(e.code.as_str());
    [DIVERGED, EXHAUSTED, UNRECORDED_SESSION]
        .into_iter()
        .find(|c| *c == code)
}

/// The step at which a run on a recording ran out (its failure is `EXHAUSTED`).
fn ran_out(r: &RunResult) -> Option<(usize, usize, String)> {
    if replay_code(r) != Some(crate::backends::recorded::replay::EXHAUSTED) {
        return None;
    }
    let e = r.error.as_ref()?;
    Some((failed_step(r)?, e.line.unwrap_or(0), cause_message(e)))
}

/// A run error's cause as the backend said it, whole (a divergence report's copy may be cut).
fn cause_message(e: &crate::core::interp::RunError) -> String {
    let m = e.message.as_str();
    e.divergence()
        .and_then(|d| {
            m.strip_prefix(&format!(
                "Replay failed at step {} ({}): ",
                d.step.index, d.action
            ))
        })
        .unwrap_or(m)
        .to_string()
}

fn failed_step(r: &RunResult) -> Option<usize> {
    r.error.as_ref().and_then(|e| {
        e.divergence()
            .map(|d| d.step.index)
            .or(e.step)
            .or(Some(r.replayed + 1))
    })
}

/// Heals `req`'s script: runs it, and at each divergence tries the report's suggestions until
/// one is proven by a fresh run of the whole changed script. `progress` sees every run.
pub fn heal(req: &Request, progress: &mut dyn Progress) -> Result<Outcome, Refused> {
    let recording = offline(req)?;
    let mut config = req.config.clone();
    config.replay_open_tail = recording.is_some();
    let owned = Request {
        script: req.script,
        text: req.text.clone(),
        options: req.options.clone(),
        config,
    };
    let req = &owned;
    // Injected values become `${NAME}` in re-captured evidence, as a repair-armed run writes.
    let protect = Redactor::placeholders(
        req.options
            .shell_env
            .iter()
            .chain(&req.options.cli_env)
            .filter(|(_, v)| !v.trim().is_empty())
            .map(|(k, v)| (k.as_str(), v.as_str())),
    );
    let mut out = Outcome {
        original: req.text.clone(),
        healed: req.text.clone(),
        proposals: Vec::new(),
        human: None,
        runs: 0,
        passed_as_is: false,
        recording: recording.clone(),
    };
    let (result, _, _) = run_text(req, &req.text, false, None, &mut *progress)?;
    out.runs += 1;
    if let Some(rec) = &recording {
        belongs(req, rec, &result)?;
    }
    // A backend that could not start, or a run refused before its first step: no divergence.
    if let Some(e) = result
        .error
        .as_ref()
        .filter(|e| e.setup().is_some() || e.preflight)
    {
        return Err(Refused(format!("{}: {}", e.code, e.message)));
    }
    out.passed_as_is = result.error.is_none();
    let mut search = Search {
        req,
        protect: &protect,
        progress,
        runs: out.runs,
        offline: recording.is_some(),
    };
    match search.solve(&req.text, &result)? {
        Ok((proposals, healed)) => {
            out.proposals = proposals;
            out.healed = healed;
        }
        Err(h) => out.human = Some(h),
    }
    out.runs = search.runs;
    Ok(out)
}

/// At most this many runs are spent on one script.
pub const RUN_BUDGET: usize = 64;

struct Search<'a, 'p> {
    req: &'a Request<'a>,
    protect: &'a Redactor,
    progress: &'p mut dyn Progress,
    runs: usize,
    /// The runs replay a recording with an open tail.
    offline: bool,
}

/// The recording the runs replay, when the backend is `recorded:DIR`.
fn offline(req: &Request) -> Result<Option<Recording>, Refused> {
    let display = req.options.script_path.clone();
    let analysis = gated(req.script, &display, &req.text)
        .map_err(|r| Refused(format!("the script is refused: {}", r.summary)))?;
    let plan = Plan {
        steps: analysis.steps(),
        metadata: analysis.metadata(),
    };
    let kind = crate::session::backend_kind(&plan, req.script, &req.config)?;
    let (crate::backends::BackendKind::Recorded, Some(dir)) = (kind, &req.config.recorded) else {
        return Ok(None);
    };
    // Only the manifest here: a folder that is no fixture is the first run's set-up error.
    let manifest = crate::backends::recorded::replay::read_manifest(dir).ok();
    Ok(Some(Recording {
        fixture: dir.clone(),
        backend: manifest
            .as_ref()
            .map_or_else(String::new, |m| m.backend.clone()),
        platform: manifest.map_or_else(String::new, |m| m.platform),
    }))
}

/// A recording is of this script's failing run when the script's first run replays it: a run
/// the recording contradicts (an earlier step differs, another script's recording), or that
/// runs past it before failing, is refused, naming the step and the recorded call.
fn belongs(req: &Request, rec: &Recording, first: &RunResult) -> Result<(), Refused> {
    use crate::backends::recorded::replay::{DIVERGED, EXHAUSTED};
    let Some(code) = replay_code(first) else {
        return Ok(());
    };
    let e = first
        .error
        .as_ref()
        .expect("a replay code comes from an error");
    let message = cause_message(e);
    let step = failed_step(first).unwrap_or(0);
    let line = e.line.unwrap_or(0);
    let script = &req.options.script_path;
    let dir = rec.fixture.display();
    let why = match code {
        DIVERGED => format!("step {step} (line {line}) contradicts it"),
        EXHAUSTED => format!("step {step} (line {line}) goes past its end before the script fails"),
        _ => format!("step {step} (line {line}) opens a session it does not hold"),
    };
    let on = if rec.backend.is_empty() || rec.backend == "recorded" {
        String::new()
    } else {
        format!(" --backend {}", rec.backend)
    };
    Err(Refused(format!(
        "the recording {dir} is not of {script}'s failing run: {why}: {message}. Record the failing run on a device (`ad run {script}{on} --record-fixture {dir}`), then heal from it"
    )))
}

type Solved = Result<(Vec<Proposal>, String), Human>;

impl Search<'_, '_> {
    /// Heals `text`, whose run gave `result`: nothing when it passed; else the first suggestion
    /// of its divergence whose changed script is proven, the later divergences it reaches healed
    /// the same way (depth first). A candidate is kept only when the chain ends in a passing run.
    fn solve(&mut self, text: &str, result: &RunResult) -> Result<Solved, Refused> {
        let Some(err) = result.error.as_ref() else {
            return Ok(Ok((Vec::new(), text.to_string())));
        };
        let Some(d) = err.divergence() else {
            return Ok(Err(Human {
                step: failed_step(result).unwrap_or(0),
                line: err.line.unwrap_or(0),
                action: String::new(),
                cause_code: err.public_code().to_string(),
                message: err.message.clone(),
                repair_hint: "manual".into(),
                tried: Vec::new(),
            }));
        };
        self.heal_step(text, d)
    }

    fn run(&mut self, text: &str, journal: bool, capture: Option<usize>) -> Result<Ran, Refused> {
        self.runs += 1;
        run_text(self.req, text, journal, capture, &mut *self.progress)
    }

    /// Tries each suggestion of `d` on `text`: a probe run with the new selector (and no
    /// annotation) captures the element it acts on; its evidence goes into the annotation; the
    /// proof run of the whole changed script must pass, or diverge later at a step healed in
    /// turn.
    fn heal_step(&mut self, text: &str, d: &DivergenceReport) -> Result<Solved, Refused> {
        let n = d.step.index;
        let mut tried: Vec<(String, String)> = Vec::new();
        let Some(site) = site_of(text, d.step.source.line) else {
            tried.push((
                String::new(),
                "the step has no selector a proposal could change".into(),
            ));
            return Ok(Err(human(d, tried)));
        };
        let kind = serde_json::to_value(d.kind)
            .ok()
            .and_then(|v| v.as_str().map(str::to_string))
            .unwrap_or_default();
        // The report's suggestions in its order; for an identity mismatch, last, the element the
        // step's own selector found, its evidence refreshed (an id changed under a kept label):
        // the continuity rule below and the proof run decide, as for any candidate.
        let mut candidates: Vec<(String, String)> = d
            .suggestions
            .iter()
            .map(|s| (s.selector.clone(), s.basis.clone()))
            .collect();
        let refresh = d.kind == crate::core::records::DivergenceKind::IdentityMismatch
            && site.evidence.is_some();
        if refresh {
            candidates.push((site.written.clone(), "evidence-refresh".into()));
        }
        let mut seen: Vec<String> = Vec::new();
        for (rank, (cand, basis)) in candidates.iter().enumerate() {
            let cand = cand.as_str();
            if seen.iter().any(|s| s == cand) {
                continue;
            }
            seen.push(cand.to_string());
            let mut reject = |why: String| tried.push((cand.to_string(), why));
            if cand == site.written && basis != "evidence-refresh" {
                reject("it is the selector the step already has".into());
                continue;
            }
            // A report's value redacted as `<var:NAME>` (or cut) is no selector to write.
            if cand.contains("<var:") || cand.contains("…<truncated>") {
                reject("it holds an injected or cut value".into());
                continue;
            }
            if crate::core::select::Selector::parse(cand).is_err() {
                reject("it does not parse as a selector".into());
                continue;
            }
            if self.runs + 2 > RUN_BUDGET {
                reject(format!("not tried: the run budget ({RUN_BUDGET}) is spent"));
                continue;
            }
            // Probe: the new selector, no annotation; capture what it acts on.
            let probe = change(text, &site, cand, None);
            let probe_line =
                site.line - usize::from(site.annotation_line.is_some_and(|a| a < site.line));
            let (r, _, got) = match self.run(&probe, false, Some(probe_line)) {
                Ok(x) => x,
                Err(Refused(m)) => {
                    reject(m);
                    continue;
                }
            };
            // Offline, the step's action may be one the recording never saw: it still resolved
            // its target on the recorded screen, which is what can be proven here.
            let resolved_offline =
                self.offline && got.is_some() && ran_out(&r).is_some_and(|(f, _, _)| f == n);
            // Offline, nothing can confirm which of several matches a device would settle on.
            if self.offline {
                if let Some(why) = got.as_ref().and_then(|(snap, _)| not_unique(snap, cand)) {
                    reject(why);
                    continue;
                }
            }
            if !resolved_offline && failed_step(&r).is_some_and(|f| f <= n) {
                reject(format!(
                    "the step still fails with it ({})",
                    r.error.as_ref().map(|e| e.public_code()).unwrap_or("")
                ));
                continue;
            }
            let new_evidence = match (site.mode, got) {
                (Some(mode), Some((snap, node))) => {
                    evidence::capture(&snap, node, mode, self.protect, None)
                }
                _ => None,
            };
            let annotation = new_evidence.as_ref().map(|e| {
                print_annotation(
                    AnnotationKind::Target,
                    &Evidence::Single(Arc::new(e.clone())),
                )
            });
            if site.evidence.is_some() && annotation.is_none() {
                reject("no evidence could be captured for the element it acts on".into());
                continue;
            }
            if let (Some(old), Some(new)) = (site.evidence.as_deref(), new_evidence.as_ref()) {
                if let Some(why) = another_element(old, new) {
                    reject(why);
                    continue;
                }
            }
            let changed = change(text, &site, cand, annotation.as_deref());
            let proof_line = probe_line + usize::from(annotation.is_some());
            let (proof, run_dir, proof_got) = match self.run(&changed, true, Some(proof_line)) {
                Ok(x) => x,
                Err(Refused(m)) => {
                    reject(m);
                    continue;
                }
            };
            let later = failed_step(&proof);
            // Offline: where the recording ran out (at the step, after its target resolved and
            // its new evidence verified on the recorded screen; or at a later step).
            let end = ran_out(&proof)
                .filter(|_| self.offline)
                .filter(|(f, _, _)| *f > n || (*f == n && proof_got.is_some()))
                .map(|(step, line, reason)| RecordingEnd { step, line, reason });
            if end.is_none() && later.is_some_and(|f| f <= n) {
                reject(format!(
                    "the proof run failed at step {} ({})",
                    later.unwrap_or(0),
                    proof.error.as_ref().map(|e| e.public_code()).unwrap_or("")
                ));
                continue;
            }
            let rest = if end.is_some() {
                // Nothing past it is known: the proposal is proven as far as the recording goes.
                (Vec::new(), changed.clone())
            } else {
                match self.solve(&changed, &proof)? {
                    Ok(rest) => rest,
                    Err(h) => {
                        reject(format!(
                            "it gets the run past the step, but step {} (line {}) then fails ({}) and no change of that step makes the script pass",
                            h.step, h.line, h.cause_code
                        ));
                        continue;
                    }
                }
            };
            let scope = if self.offline {
                Scope::Recording {
                    replayed_to: proof.replayed,
                    ends_at: end.clone(),
                }
            } else {
                Scope::Device
            };
            let (matched, fields) = match &new_evidence {
                Some(e) => compare(site.evidence.as_deref(), e),
                None => (Vec::new(), Vec::new()),
            };
            let proposal = Proposal {
                step: n,
                line: d.step.source.line,
                divergence_kind: kind,
                cause_code: d.cause.code.clone(),
                old_selector: site.written.clone(),
                new_selector: cand.to_string(),
                basis: basis.clone(),
                rank: rank + 1,
                matched,
                changed: fields,
                proof: Proof {
                    replayed: proof.replayed,
                    total: proof.total,
                    passed: proof.error.is_none(),
                    // A recording's end is no divergence to heal next.
                    later: later.filter(|_| end.is_none()),
                    run_dir,
                    wall_ms: proof.wall_ms,
                    scope,
                },
                rejected: tried,
            };
            let (mut proposals, healed) = (vec![proposal], rest.1);
            proposals.extend(rest.0);
            return Ok(Ok((proposals, healed)));
        }
        if d.suggestions.is_empty() {
            tried.push((
                String::new(),
                "the divergence report has no suggestion: nothing on the screen looks like the recorded element".into(),
            ));
        }
        Ok(Err(human(d, tried)))
    }
}

/// Offline, why `selector` does not single out one element of the recorded screen `snap`
/// (nothing on the device can confirm which one a tiebreak would act on).
fn not_unique(snap: &Snapshot, selector: &str) -> Option<String> {
    let sel = crate::core::select::Selector::parse(selector).ok()?;
    let r = crate::core::select::resolve(snap, &sel, crate::core::select::Policy::ANY);
    (r.matched.len() != 1).then(|| {
        format!(
            "it matches {} elements of the recorded screen: offline, only a selector that singles out one element is proven",
            r.matched.len()
        )
    })
}

fn human(d: &DivergenceReport, tried: Vec<(String, String)>) -> Human {
    Human {
        step: d.step.index,
        line: d.step.source.line,
        action: d.action.clone(),
        cause_code: d.cause.code.clone(),
        message: d.cause.message.clone(),
        repair_hint: serde_json::to_value(d.repair_hint)
            .ok()
            .and_then(|v| v.as_str().map(str::to_string))
            .unwrap_or_default(),
        tried,
    }
}

/// The healed script as a repair transaction commits it: the script, then
/// `# agent-device:heal-complete` last.
pub fn healed_file_text(healed: &str) -> String {
    let mut t = healed.to_string();
    if !t.ends_with('\n') {
        t.push('\n');
    }
    t.push_str(crate::session::authoring::repair::HEAL_COMPLETE);
    t.push('\n');
    t
}

/// The run gate on `text` (the script at `script`) with the `ad.toml` that applies to it.
fn gated(
    script: &Path,
    display: &str,
    text: &str,
) -> Result<ad_compiler::Analysis, crate::core::gate::Refusal> {
    use crate::core::gate;
    let config = ad_compiler::check_file::discover_config(script)
        .map_err(|e| gate::config_refusal(&e, text))?;
    gate::analyze(&config, display, text, false)
}

#[cfg(test)]
mod tests {
    use super::*;

    const SCRIPT: &str = "context platform=ios\nopen com.example.shop --relaunch\n# agent-device:target-v1 {\"id\":\"login.submit\",\"role\":\"button\",\"label\":\"Sign in\",\"sibling\":2,\"viewportOrder\":0,\"verification\":\"verified\"}\nclick \"role=\\\"button\\\" label=\\\"Sign in\\\"\"\nclose\n";

    #[test]
    fn a_change_swaps_the_selector_and_the_annotation_only() {
        let site = site_of(SCRIPT, 4).expect("the click's selector");
        assert_eq!(site.written, "role=\"button\" label=\"Sign in\"");
        assert_eq!(site.annotation_line, Some(2));
        let changed = change(
            SCRIPT,
            &site,
            "id=\"login.submit\"",
            Some("# agent-device:target-v1 {}"),
        );
        let lines: Vec<&str> = changed.lines().collect();
        assert_eq!(lines[2], "# agent-device:target-v1 {}");
        assert_eq!(lines[3], "click \"id=\\\"login.submit\\\"\"");
        assert_eq!(lines.len(), 5);
        let removed = change(SCRIPT, &site, "id=\"x\"", None);
        assert_eq!(removed.lines().count(), 4);
        assert!(!removed.contains("target-v1"));
    }

    #[test]
    fn a_candidate_of_another_role_or_with_neither_id_nor_label_kept_is_another_element() {
        let e = |j: &str| ad_grammar::annotation::parse_target(j).unwrap();
        let old = e(
            r#"{"id":"login.submit","role":"button","label":"Sign in","sibling":2,"viewportOrder":0,"verification":"verified"}"#,
        );
        let relabelled = e(
            r#"{"id":"login.submit","role":"button","label":"Log in","sibling":2,"viewportOrder":0,"verification":"verified"}"#,
        );
        let reidentified = e(
            r#"{"id":"login.go","role":"button","label":"Sign in","sibling":2,"viewportOrder":0,"verification":"verified"}"#,
        );
        let link = e(
            r#"{"id":"promo.signin","role":"link","label":"Sign in","sibling":1,"viewportOrder":0,"verification":"verified"}"#,
        );
        let other = e(
            r#"{"id":"cancel","role":"button","label":"Cancel","sibling":2,"viewportOrder":0,"verification":"verified"}"#,
        );
        assert_eq!(another_element(&old, &relabelled), None);
        assert_eq!(another_element(&old, &reidentified), None);
        assert!(another_element(&old, &link)
            .unwrap()
            .contains("another kind of element"));
        assert!(another_element(&old, &other)
            .unwrap()
            .contains("neither the recorded id"));
        let (matched, changed) = compare(Some(&old), &relabelled);
        assert_eq!(changed.len(), 1);
        assert_eq!(changed[0].field, "label");
        assert!(matched.contains(&"id") && matched.contains(&"role"));
    }

    #[test]
    fn without_a_recorded_id_a_relabel_is_the_same_element_only_in_the_same_place() {
        let e = |j: &str| ad_grammar::annotation::parse_target(j).unwrap();
        let at = |label: &str, sibling: u64, parent: &str| {
            e(&format!(
                r#"{{"role":"button","label":"{label}","ancestry":[{{"role":"frame","label":"Sign in"}},{{"role":"{parent}"}}],"sibling":{sibling},"viewportOrder":0,"verification":"verified"}}"#
            ))
        };
        let old = at("Sign In", 2, "panel");
        assert_eq!(another_element(&old, &at("Log In", 2, "panel")), None);
        // A field neither side has is not shown as matched.
        let (matched, _) = compare(Some(&old), &at("Log In", 2, "panel"));
        assert!(!matched.contains(&"id") && !matched.contains(&"rect"));
        assert!(matched.contains(&"ancestry") && matched.contains(&"sibling"));
        assert!(another_element(&old, &at("Log In", 3, "panel"))
            .unwrap()
            .contains("its place"));
        assert!(another_element(&old, &at("Log In", 2, "filler"))
            .unwrap()
            .contains("its place"));
        // No ancestry recorded: nothing ties a renamed element to the record.
        let bare = e(
            r#"{"role":"button","label":"Sign In","sibling":2,"viewportOrder":0,"verification":"verified"}"#,
        );
        let renamed = e(
            r#"{"role":"button","label":"Log In","sibling":2,"viewportOrder":0,"verification":"verified"}"#,
        );
        assert!(another_element(&bare, &renamed).is_some());
    }

    #[test]
    fn a_proof_that_ends_where_the_recording_ends_is_not_proven_to_the_end() {
        let proof = |scope: Scope| Proof {
            replayed: 3,
            total: 6,
            passed: false,
            later: None,
            run_dir: None,
            wall_ms: 1.0,
            scope,
        };
        let proposal = |scope: Scope| Proposal {
            step: 4,
            line: 8,
            divergence_kind: "selector-miss".into(),
            cause_code: "SELECTOR_MISS".into(),
            old_selector: "label=\"Sign in\"".into(),
            new_selector: "id=\"login.submit\"".into(),
            basis: "id".into(),
            rank: 1,
            matched: vec!["id"],
            changed: Vec::new(),
            proof: proof(scope),
            rejected: Vec::new(),
        };
        let end = RecordingEnd {
            step: 4,
            line: 8,
            reason: "holds no answer to {\"kind\":\"tap\"}".into(),
        };
        let mut o = Outcome {
            original: SCRIPT.into(),
            healed: SCRIPT.into(),
            proposals: vec![proposal(Scope::Recording {
                replayed_to: 3,
                ends_at: Some(end.clone()),
            })],
            human: None,
            runs: 3,
            passed_as_is: false,
            recording: None,
        };
        assert!(!o.proven_to_the_end());
        assert_eq!(o.recording_end().map(|(p, e)| (p.step, e)), Some((4, &end)));
        o.proposals = vec![proposal(Scope::Recording {
            replayed_to: 6,
            ends_at: None,
        })];
        assert!(o.proven_to_the_end() && o.recording_end().is_none());
        o.proposals = vec![proposal(Scope::Device)];
        assert!(o.proven_to_the_end());
    }

    #[test]
    fn offline_a_selector_must_single_out_one_element_of_the_recorded_screen() {
        let roots: Vec<crate::core::tree::Node> = serde_json::from_str(
            r#"[{"type":"Application","label":"Shop","rect":{"x":0,"y":0,"width":390,"height":844},"children":[
                {"type":"NavigationBar","label":"Home","rect":{"x":0,"y":47,"width":390,"height":44}},
                {"type":"statictext","id":"home.heading","label":"Home","rect":{"x":0,"y":91,"width":390,"height":44}}]}]"#,
        )
        .unwrap();
        let viewport = crate::core::tree::Rect {
            x: 0.0,
            y: 0.0,
            width: 390.0,
            height: 844.0,
        };
        let snap = Snapshot::flatten(&roots, viewport);
        assert_eq!(not_unique(&snap, r#"id="home.heading""#), None);
        assert!(not_unique(&snap, r#"label="Home""#)
            .unwrap()
            .contains("matches 2 elements of the recorded screen"));
    }

    #[test]
    fn the_healed_file_ends_with_heal_complete() {
        assert!(healed_file_text("close").ends_with("close\n# agent-device:heal-complete\n"));
    }
}
