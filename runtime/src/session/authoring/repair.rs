//! Repair transactions (agent-device ADR 0012; the contract is docs/repair.md): `ad run FILE
//! --save-script[=PATH]` arms one on the run's session; a divergence holds the session live in
//! the daemon (`resume.repairSessionHeld`); `ad session …` actions and `ad run FILE --from N
//! --plan-digest D` continue it, every action recorded with its evidence; `ad session close`
//! commits `<dir>/<basename>.healed.ad` (or PATH), never over the original, ending with
//! `# agent-device:heal-complete`. Every refusal is made before any write or any step.
//!
//! The first half of this file is the transaction itself (states, transitions, the resume's
//! entry checks, the healed script's path and text, the tombstone), free of I/O but the files
//! it names; the second half runs it in the session daemon.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use ad_compiler::registry::Action;
use ad_compiler::Step;
use serde::{Deserialize, Serialize};

use super::handoff::{RunReply, RunRequest};
use super::lifecycle::Lifecycle;
use super::publish::{self, Recorded, Refusal};
use super::{Request, Response, Session, Sessions};
use crate::backends::BackendKind;
use crate::core::backend::Backend;
use crate::core::interp::{LiveState, Plan, Progress, RunError, RunResult, StepEnd, StepInfo};
use crate::core::records::divergence::{DivergenceReport, RepairHint};
use crate::core::records::error_codes;
use crate::core::tree::Snapshot;
use crate::core::vars::Redactor;
use crate::session::{self, SessionConfig};

/// The healed script's last line (spec §13): a complete, review-worthy repair.
pub const HEAL_COMPLETE: &str = "# agent-device:heal-complete";

/// How long a reaped repair's tombstone answers `REPAIR_SESSION_EXPIRED` (agent-device: 1 h).
pub const TOMBSTONE_TTL_MS: u64 = 3_600_000;

/// Where a repair transaction stands (agent-device's `scriptPublication` of kind `repair`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    /// Recording; not committable.
    Armed,
    /// A run of the transaction reached the end of the script.
    Complete,
    /// The app's close ran; the commit is pending (a failed write is retried by the next close
    /// without closing the app again).
    CloseSucceeded,
    /// The healed script is written (terminal).
    Committed,
    /// Closed before it was complete; nothing written (terminal).
    Aborted,
}

impl Status {
    pub fn name(self) -> &'static str {
        match self {
            Status::Armed => "repair-armed",
            Status::Complete => "repair-complete",
            Status::CloseSucceeded => "repair-close-succeeded",
            Status::Committed => "repair-committed",
            Status::Aborted => "repair-aborted",
        }
    }
}

/// The resume a divergence of a repair-armed run expects after a corrective action
/// (agent-device's `pendingRecordAndHeal`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Watermark {
    pub expected_from: usize,
    /// How many actions were recorded when the run diverged.
    pub actions_at_divergence: usize,
}

impl Watermark {
    /// The watermark a divergence stamps (agent-device's `stampCorrectiveWatermark`, on every
    /// divergence of a session that stays live, repair-armed or not): record-and-heal with a
    /// resumable report expects its `resume.from`; caution or manual at the plan's last step
    /// expect `N + 1` (the empty tail); anything else expects nothing. `actions` is the
    /// session's action count then.
    pub fn at(report: &DivergenceReport, total: usize, actions: usize) -> Option<Watermark> {
        let n = report.step.index;
        let expected = match report.repair_hint {
            RepairHint::RecordAndHeal if report.resume.allowed => Some(report.resume.from),
            RepairHint::Caution | RepairHint::Manual if n == total => Some(n + 1),
            _ => None,
        };
        expected.map(|expected_from| Watermark {
            expected_from,
            actions_at_divergence: actions,
        })
    }
}

/// One session's repair transaction.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Transaction {
    pub status: Status,
    /// The script being repaired (absolute).
    pub source: PathBuf,
    /// Where the healed script is committed.
    pub target: PathBuf,
    /// `--overwrite`: an existing target may be replaced (atomically).
    pub overwrite: bool,
    /// The session's recorded action count when the transaction was armed: the healed script
    /// holds the actions from there on.
    pub boundary: usize,
    pub pending: Option<Watermark>,
}

/// `<dir>/<basename>.healed.ad` beside `source` (its extension replaced).
pub fn healed_sibling(source: &Path) -> PathBuf {
    let stem = source
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    source.with_file_name(format!("{stem}.healed.ad"))
}

impl Transaction {
    /// Armed on `source`, committing to `requested` (else the healed sibling).
    pub fn arm(
        source: &Path,
        requested: Option<PathBuf>,
        overwrite: bool,
        boundary: usize,
    ) -> Transaction {
        Transaction {
            status: Status::Armed,
            source: source.to_path_buf(),
            target: requested.unwrap_or_else(|| healed_sibling(source)),
            overwrite,
            boundary,
            pending: None,
        }
    }

    /// A later `--save-script[=PATH]` (a resume, or `close --save-script=PATH`): a new PATH
    /// retargets the commit; `--overwrite` authorizes the replacement, and an earlier
    /// authorization stands only for the same target.
    pub fn retarget(&mut self, requested: Option<PathBuf>, overwrite: bool) {
        match requested {
            None => self.overwrite |= overwrite,
            Some(p) => {
                self.overwrite = overwrite || (self.overwrite && p == self.target);
                self.target = p;
            }
        }
    }

    /// Every run of the transaction starts it armed again (agent-device's
    /// `demoteForRerunIfArmed`): it completes only when that run reaches the end.
    pub fn demote_for_rerun(&mut self) {
        self.status = Status::Armed;
    }

    /// The run reached the end of the script.
    pub fn mark_complete_if_armed(&mut self) {
        if self.status == Status::Armed {
            self.status = Status::Complete;
        }
    }

    /// The app's close ran for the commit.
    pub fn mark_close_succeeded(&mut self) {
        if self.status == Status::Complete {
            self.status = Status::CloseSucceeded;
        }
    }

    /// May the healed script be written now?
    pub fn committable(&self) -> bool {
        matches!(self.status, Status::Complete | Status::CloseSucceeded)
    }

    /// Does a divergence hold the session for this transaction (`repairSessionHeld`)?
    pub fn holds(&self) -> bool {
        !matches!(self.status, Status::Committed | Status::Aborted)
    }

    /// Stamps the corrective-action watermark at a divergence ([`Watermark::at`]).
    pub fn stamp(&mut self, report: &DivergenceReport, total: usize, recorded: usize) {
        self.pending = Watermark::at(report, total, recorded);
    }

    /// A resume at the watermark's step clears it (after the entry checks passed).
    pub fn clear_watermark_if_expected(&mut self, from: Option<usize>) {
        if from.is_some() && self.pending.as_ref().map(|w| w.expected_from) == from {
            self.pending = None;
        }
    }
}

/// The step a run of the plan starts at, 1-based (agent-device's `resolveEntryIndex`, in its
/// order): `--from` and `--plan-digest` together; `1 ≤ N ≤ total`, or `N = total + 1` when the
/// watermark expects exactly that (the empty-tail resume); a corrective action recorded since
/// the divergence when N is the watermark's; the digest. Each refusal is `INVALID_ARGS`.
pub fn entry_step(
    from: Option<usize>,
    digest: Option<&str>,
    plan_digest: &str,
    total: usize,
    pending: Option<&Watermark>,
    recorded: usize,
) -> Result<usize, String> {
    let (n, d) = match (from, digest) {
        (None, None) => return Ok(1),
        (Some(n), Some(d)) => (n, d),
        _ => {
            return Err("--from requires --plan-digest (and --plan-digest requires --from).".into())
        }
    };
    let expected = pending.is_some_and(|w| w.expected_from == n);
    let empty_tail = n == total + 1 && expected;
    if n < 1 || (n > total && !empty_tail) {
        return Err(format!(
            "--from {n} is out of range for a {total}-step plan."
        ));
    }
    if let Some(m) = uncorrected(n, pending, recorded) {
        return Err(m);
    }
    if d != plan_digest {
        return Err("--plan-digest does not match the current plan digest; the script, its includes, or its platform-conditioned expansion changed since the divergence report was generated. Run a fresh full replay to get a new digest.".into());
    }
    Ok(n)
}

/// The refusal of a resume at the watermark's step `n` when no action was performed since the
/// divergence (`actions` is the count the watermark was stamped with), else `None`.
pub fn uncorrected(n: usize, pending: Option<&Watermark>, actions: usize) -> Option<String> {
    pending
        .filter(|w| w.expected_from == n && w.actions_at_divergence == actions)
        .map(|_| format!(
            "--from {n} continues a record-and-heal-shaped repair, but no corrective action was recorded in this repair segment; perform the correct action with `ad session …` (recorded: no --no-record) — or, if your corrective action was a read (get/is/find/snapshot), re-run it with --record so it lands in the heal — before resuming with --from {n}."
        ))
}

/// Are `a` and `b` the same file (the target naming the script it repairs)?
fn same_file(a: &Path, b: &Path) -> bool {
    match (std::fs::canonicalize(a), std::fs::canonicalize(b)) {
        (Ok(x), Ok(y)) => x == y,
        _ => {
            // A target that does not exist yet: compare its folder (resolved) and name.
            let parent = |p: &Path| {
                p.parent()
                    .and_then(|d| {
                        std::fs::canonicalize(if d.as_os_str().is_empty() {
                            Path::new(".")
                        } else {
                            d
                        })
                        .ok()
                    })
                    .map(|d| d.join(p.file_name().unwrap_or_default()))
            };
            parent(a).is_some() && parent(a) == parent(b)
        }
    }
}

/// agent-device's refusal of an existing healed-script target (at the arming run, and at the
/// write when one appeared since).
fn target_exists(target: &Path) -> Refusal {
    Refusal::new(
        error_codes::COMMAND_FAILED,
        format!(
            "A file already exists at {}; remove it, pass --save-script=<other-path>, or pass --overwrite to replace it.",
            target.display()
        ),
    )
}

/// The target refusals made before any step (agent-device checks an existing file when the
/// run arms; `ad` also refuses the script itself, whatever `--overwrite` says).
pub fn target_refusal(tx: &Transaction) -> Option<Refusal> {
    if same_file(&tx.target, &tx.source) {
        return Some(Refusal::new(
            error_codes::INVALID_ARGS,
            format!(
                "the healed script cannot replace the script it repairs ({}); give another --save-script=PATH (the default is {} beside it)",
                tx.target.display(),
                healed_sibling(&tx.source)
                    .file_name()
                    .unwrap_or_default()
                    .to_string_lossy()
            ),
        ));
    }
    if !tx.overwrite && std::fs::symlink_metadata(&tx.target).is_ok() {
        return Some(target_exists(&tx.target));
    }
    None
}

/// The healed script: the header, each recorded action since the boundary with its
/// annotation, `close`, and [`HEAL_COMPLETE`] last.
pub fn healed_text(header: &str, recorded: &[Recorded]) -> String {
    let mut text = publish::script_text(header, recorded, true);
    text.push_str(HEAL_COMPLETE);
    text.push('\n');
    text
}

/// agent-device's writer refusal of a recorded step whose element target is still a session
/// `@ref` (its `assertPortableRecordedStep` at the write), its code and message: the recorder
/// keeps a ref when no selector of the element's own terms singles it out (a nameless element
/// the tiebreak does not pick), and no fresh replay resolves it.
pub fn unresolved_ref(since: &[Recorded]) -> Option<Refusal> {
    use ad_compiler::registry::{GestureKind, StepAction};
    let cause = since.iter().find_map(|r| {
        let step = super::lower_line(&r.line).ok()?;
        if step.step_action() == Some(StepAction::Gesture(GestureKind::Drag)) {
            let at = step
                .positional_values()
                .into_iter()
                .find(|p| p.starts_with('@'))?;
            return Some(format!(
                "Cannot write recorded drag endpoint \"{at}\" to a script"
            ));
        }
        let at = step.positional(super::target_at(&step)?)?;
        at.starts_with('@').then(|| {
            format!(
                "Cannot write recorded step \"{} {at}\" to a script",
                step.command()
            )
        })
    })?;
    Some(Refusal::new(
        error_codes::COMMAND_FAILED,
        format!("{cause}: it never resolved to a selector, so the ref would not resolve in a fresh replay session."),
    ))
}

/// What `ad session close` adds to a refusal of the healed text itself ([`unresolved_ref`],
/// the `ad check` findings): what it names is in the transaction's recording, so no retried
/// close commits it; the way on is another repair.
fn uncommittable_recovery(tx: &Transaction) -> String {
    format!(
        " Nothing was written and the app was not closed; the repair session stays live, but a retried `ad session close` refuses the same (the step is in the repair's recording): repair again in another session (`ad run {} --save-script --session NAME`) and perform that step on an element the recorder can name (a selector, or a ref to an element with an id or a distinct label); the daemon's idle reap ends this session",
        tx.source.display()
    )
}

/// Commits `text` to the transaction's target: checked as `ad check` checks a flow and against
/// the target refusals before any file work, then written atomically beside it.
pub fn commit(tx: &Transaction, text: &str) -> Result<(), Refusal> {
    if let Some(r) = target_refusal(tx) {
        return Err(r);
    }
    check_healed(text)?;
    // agent-device's code for every failed write, its message the cause, then its repair hint
    // (the authoring session's recovery is not this one).
    let failed = |cause: &str| {
        Refusal::new(
            error_codes::COMMAND_FAILED,
            format!(
                "Failed to write the healed script to {}: {cause}; the repair transaction completed but the healed .ad could not be published: check the target path and permissions, then retry `ad session close`",
                tx.target.display(),
            ),
        )
    };
    // As agent-device's writer, the healed script's folder is made when it is missing.
    if let Some(dir) = tx.target.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|e| {
            failed(&format!(
                "could not create its folder {}: {e}",
                dir.display()
            ))
        })?;
    }
    publish::publish_atomically(&tx.target, text, tx.overwrite).map_err(|r| {
        if r.code == error_codes::TARGET_EXISTS {
            target_exists(&tx.target)
        } else {
            failed(&r.message.replace(publish::PUBLISH_RECOVERY, ""))
        }
    })
}

/// The healed text checked as `ad check` checks a flow, each finding named (an authoring
/// recording's recovery is not a repair's). The session's own step checks keep most of what it
/// reports out of a recording; what reaches it is a recorded step the writer keeps as typed, such
/// as a `wait @ref`.
fn check_healed(text: &str) -> Result<(), Refusal> {
    publish::check_text(text, ad_compiler::config::ProfileChoice::Flow).map_err(|r| {
        let findings = r
            .message
            .strip_prefix("the recording cannot be published: ")
            .and_then(|m| m.split("; nothing was written").next())
            .unwrap_or(&r.message)
            .to_string();
        Refusal {
            message: format!("the healed script cannot be committed: {findings}."),
            ..r
        }
    })
}

/// Is `step` an out-of-band read a repair does not record unless `--record` (spec §18)?
pub fn out_of_band_read(step: &Step) -> bool {
    matches!(
        step.action(),
        Some(Action::Snapshot | Action::Get | Action::Is | Action::Find)
    )
}

/// A reaped repair (agent-device's `repair-tombstone.json`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Tombstone {
    pub owner: String,
    pub reaped_at: u64,
    pub expires_at: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source_path: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub commit_failure: Option<CommitFailure>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CommitFailure {
    pub code: String,
    pub message: String,
}

fn repairs_dir(state_dir: &Path) -> PathBuf {
    state_dir.join("repairs")
}

/// A session name as a file name (as the saved sim sessions are named).
fn file_stem(state_dir: &Path, session: &str) -> String {
    session::session_file(state_dir, session)
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "session".into())
}

pub fn tombstone_path(state_dir: &Path, session: &str) -> PathBuf {
    repairs_dir(state_dir).join(format!("{}.tombstone.json", file_stem(state_dir, session)))
}

/// The marker that tells `ad run` a repair transaction is held in the daemon for `session`.
pub fn held_path(state_dir: &Path, session: &str) -> PathBuf {
    repairs_dir(state_dir).join(format!("{}.held", file_stem(state_dir, session)))
}

pub fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0)
}

/// Writes `session`'s tombstone (expires [`TOMBSTONE_TTL_MS`] after `now`).
pub fn write_tombstone(
    state_dir: &Path,
    session: &str,
    source: &Path,
    failure: Option<CommitFailure>,
    now: u64,
) -> std::io::Result<()> {
    super::daemon::private_dir(&repairs_dir(state_dir))?;
    let t = Tombstone {
        owner: session.to_string(),
        reaped_at: now,
        expires_at: now + TOMBSTONE_TTL_MS,
        source_path: Some(source.display().to_string()),
        commit_failure: failure,
    };
    let mut text = serde_json::to_string(&t).unwrap_or_default();
    text.push('\n');
    std::fs::write(tombstone_path(state_dir, session), text)
}

/// `session`'s tombstone, unless there is none, it is unreadable or it expired.
pub fn read_tombstone(state_dir: &Path, session: &str, now: u64) -> Option<Tombstone> {
    let text = std::fs::read_to_string(tombstone_path(state_dir, session)).ok()?;
    let t: Tombstone = serde_json::from_str(&text).ok()?;
    (t.expires_at > now).then_some(t)
}

pub fn clear_tombstone(state_dir: &Path, session: &str) {
    let _ = std::fs::remove_file(tombstone_path(state_dir, session));
}

/// What a resume that finds a tombstone answers: `REPAIR_COMMIT_FAILED` or
/// `REPAIR_SESSION_EXPIRED`, each naming the run that starts the repair again.
pub fn tombstone_refusal(session: &str, t: &Tombstone) -> Refusal {
    let rerun = match &t.source_path {
        Some(p) => format!("re-run: ad run {p} --save-script"),
        None => "re-run your `ad run <script> --save-script` from the start".into(),
    };
    match &t.commit_failure {
        Some(f) => Refusal::new(
            error_codes::REPAIR_COMMIT_FAILED,
            format!(
                "The repair transaction for session \"{session}\" completed, but committing its healed script failed at teardown: {}. {rerun}.",
                f.message
            ),
        ),
        None => Refusal::new(
            error_codes::REPAIR_SESSION_EXPIRED,
            format!(
                "The --save-script repair session \"{session}\" was reaped before it was finalized (idle-reap); {rerun}."
            ),
        ),
    }
}

pub fn mark_held(state_dir: &Path, session: &str) {
    if super::daemon::private_dir(&repairs_dir(state_dir)).is_ok() {
        let _ = std::fs::write(held_path(state_dir, session), b"");
    }
}

pub fn clear_held(state_dir: &Path, session: &str) {
    let _ = std::fs::remove_file(held_path(state_dir, session));
}

/// Must `ad run` of `session` go to the session daemon for the repair (a transaction held
/// there, or a tombstone a resume must answer with)?
pub fn routes_to_daemon(state_dir: &Path, session: &str) -> bool {
    held_path(state_dir, session).is_file()
        || read_tombstone(state_dir, session, now_ms()).is_some()
}

/// The refusal of a fresh (`--from`-less) run while a transaction is held.
pub(super) fn active_repair_refusal(script: &str, session_name: &str) -> String {
    let flag = if session_name == "default" {
        String::new()
    } else {
        format!(" --session {session_name}")
    };
    format!(
        "This session has an active --save-script repair run; continue it with `ad run {script}{flag} --from <n> --plan-digest <sha256>`, or finish with `ad session{flag} close`, before starting a fresh full replay."
    )
}

/// A progress reporter that records each passed step of a repair-armed run, with the evidence
/// captured on the screen it acted on, and forwards everything to the run's own reporter.
struct Recording<'p> {
    inner: &'p mut dyn Progress,
    /// The session's `--record-as` literals and the run's injected values, put back as
    /// `${NAME}` in the evidence.
    protect: Redactor,
    steps: Vec<Recorded>,
    notes: Vec<String>,
}

impl Progress for Recording<'_> {
    fn step_start(&mut self, step: &StepInfo) {
        self.inner.step_start(step);
    }
    fn step_end(&mut self, step: &StepInfo, end: &StepEnd) {
        self.inner.step_end(step, end);
    }
    fn step_passed(&mut self, step: &Step<'_>, resolved: &[(Arc<Snapshot>, usize)]) {
        if !super::recordable(step) {
            return;
        }
        // The step as written: a `${NAME}` stays a placeholder (docs/repair.md).
        let words = super::words_of(step);
        let r = super::record(step, (&words, 1), resolved, &self.protect, None);
        if let Some(n) = &r.note {
            self.notes.push(format!(
                "line {}: recorded as `{}`, but {n}",
                step.line() + 1,
                r.line
            ));
        }
        self.steps.push(r);
    }
}

/// A run refused before any step (exit 2), as the interpreter's preflight refusals are.
pub(super) fn refused(plan_digest: &str, total: usize, session: &str, r: Refusal) -> RunReply {
    RunReply {
        result: RunResult {
            ok: false,
            replayed: 0,
            total,
            from: 1,
            session: session.to_string(),
            session_active: false,
            location: serde_json::Value::Null,
            plan_digest: plan_digest.to_string(),
            error: Some(RunError {
                code: r.code,
                message: r.message,
                hint: None,
                step: None,
                line: None,
                preflight: true,
                details: Default::default(),
            }),
            device_ms: 0,
            wall_ms: 0.0,
            warnings: Vec::new(),
        },
        run_dir: None,
        session_file: None,
    }
}

impl Session {
    /// Does the session record its actions: an ARMED authoring recording, or a repair
    /// transaction (which records for its whole life).
    pub(super) fn records(&self) -> bool {
        self.lifecycle.records() || self.repair.is_some()
    }
}

impl Sessions {
    /// Does `req` run as a repair (armed now, continuing a held transaction, or a resume that
    /// must meet a tombstone)? A held marker without a transaction (a daemon that stopped) is
    /// removed.
    pub(super) fn is_repair_run(&self, req: &RunRequest, current: &Option<Session>) -> bool {
        let name = &req.options.session;
        let holding = current.as_ref().is_some_and(|s| s.repair.is_some());
        if !holding {
            clear_held(&self.state_dir, name);
        }
        req.save_script.is_some()
            || holding
            || (req.options.from.is_some()
                && read_tombstone(&self.state_dir, name, now_ms()).is_some())
    }

    /// Runs a repair-armed `ad run` in its session's turn (`current` is the session's slot):
    /// every refusal first, then the run on the held session's backend (a resume) or a new one,
    /// recording each step; the session stays here with its transaction, whatever the run's
    /// outcome (but a refusal).
    pub(super) async fn repair_run(
        &self,
        req: &RunRequest,
        plan: &Plan<'_>,
        kind: BackendKind,
        config: &SessionConfig,
        progress: &mut dyn Progress,
        current: &mut Option<Session>,
    ) -> Result<RunReply, String> {
        let opts = &req.options;
        let name = opts.session.as_str();
        let digest = ad_compiler::digest::plan_digest(
            plan.steps,
            plan.metadata,
            &ad_compiler::digest::DigestOptions {
                platform: opts.platform.clone(),
                target: opts.target.clone(),
            },
        );
        let total = plan.steps.len();
        let refuse = |r: Refusal| Ok(refused(&digest, total, name, r));
        let holding = current.as_ref().and_then(|s| s.repair.clone());
        if holding.is_some() && opts.from.is_none() {
            return refuse(Refusal::new(
                error_codes::INVALID_ARGS,
                active_repair_refusal(&opts.script_path, name),
            ));
        }
        if holding.is_none() {
            if let Some(s) = current.as_ref() {
                if req.save_script.is_some() && s.lifecycle != Lifecycle::NeverArmed {
                    return refuse(Refusal::new(error_codes::INVALID_ARGS, format!("--save-script cannot re-arm an ordinary recording in terminal/active state {}. Close this session (`ad session close`) and use a fresh one for repair authoring.", s.lifecycle.name())));
                }
            }
            if let Some(from) = opts.from {
                if let Some(t) = read_tombstone(&self.state_dir, name, now_ms()) {
                    return refuse(tombstone_refusal(name, &t));
                }
                if current.is_none() {
                    return refuse(Refusal::new(error_codes::SESSION_NOT_FOUND, format!("no live session \"{name}\" in ad's session daemon to continue from step {from}: a repair is armed from step 1 with `ad run {} --save-script`", opts.script_path)));
                }
            }
        }
        let recorded_now = current.as_ref().map_or(0, |s| s.recorded.len());
        // A held transaction's watermark counts recorded actions; a live session a plain run
        // diverged on (arming at its resume) counts every action since, as agent-device's
        // session log does.
        let (pending, actions_now) = match (&holding, current.as_ref()) {
            (Some(t), _) => (t.pending.clone(), recorded_now),
            (None, Some(s)) => (s.corrective.clone(), s.actions),
            (None, None) => (None, 0),
        };
        let entry = match entry_step(
            opts.from,
            opts.plan_digest.as_deref(),
            &digest,
            total,
            pending.as_ref(),
            actions_now,
        ) {
            Ok(n) => n,
            Err(m) => return refuse(Refusal::new(error_codes::INVALID_ARGS, m)),
        };
        let mut tx = match holding {
            Some(mut t) => {
                if let Some(a) = &req.save_script {
                    t.retarget(a.path.clone(), a.overwrite);
                }
                t
            }
            None => {
                let arm = req.save_script.clone().unwrap_or_default();
                Transaction::arm(&req.script, arm.path, arm.overwrite, recorded_now)
            }
        };
        if req.save_script.is_some() {
            if let Some(r) = target_refusal(&tx) {
                return refuse(r);
            }
            clear_tombstone(&self.state_dir, name);
        }
        tx.clear_watermark_if_expected(opts.from);
        tx.demote_for_rerun();

        // The session's parts a resume carries over; a fresh run starts cold (a live session
        // of that name, which holds no transaction, is ended first).
        let mut warnings = Vec::new();
        let resuming = opts.from.is_some();
        let old = current.take();
        let (kept, journal, env, recorded, echo, old_live) = match old {
            Some(s) if resuming => (
                Some(s.backend),
                s.journal,
                s.env,
                s.recorded,
                s.echo,
                Some(s.live),
            ),
            other => {
                if other.is_some() {
                    warnings.push(format!("the live session \"{name}\" this run replaced was ended (a run starts cold; pass --session NAME to keep both)"));
                    let mut other = other;
                    self.end(name, &mut other).await;
                }
                (
                    None,
                    self.new_journal(name),
                    req.env.clone(),
                    Vec::new(),
                    Vec::new(),
                    None,
                )
            }
        };
        let mut recorded = recorded;
        // The held session continues from `live` (the session's own, when no step ran; a fresh
        // one after a run), its `--record-as` literals still protected.
        let hold = |backend: crate::backends::AnyBackend,
                    recorded: Vec<Recorded>,
                    tx: Transaction,
                    live: Option<LiveState>| Session {
            backend,
            env: env.clone(),
            live: {
                let mut live = live
                    .unwrap_or_else(|| LiveState::new(name, super::handoff::run_scope(opts, plan)));
                for (k, v) in &echo {
                    live.scope.protect_literal(k, v);
                }
                live
            },
            journal,
            lifecycle: Lifecycle::NeverArmed,
            recorded,
            echo: echo.clone(),
            repair: Some(tx),
            actions: 0,
            corrective: None,
        };

        // The empty tail: nothing is left to run; the resume completes the repair.
        if entry == total + 1 {
            let backend = kept.expect("a resume has its session");
            tx.mark_complete_if_armed();
            let location = backend.location();
            warnings.push(complete_note(&tx, name));
            *current = Some(hold(backend, recorded, tx, old_live));
            mark_held(&self.state_dir, name);
            return Ok(RunReply {
                result: RunResult {
                    ok: true,
                    replayed: 0,
                    total,
                    from: entry,
                    session: name.to_string(),
                    session_active: true,
                    location,
                    plan_digest: digest,
                    error: None,
                    device_ms: 0,
                    wall_ms: 0.0,
                    warnings,
                },
                run_dir: None,
                session_file: None,
            });
        }

        let mut run_opts = opts.clone();
        run_opts.repair_armed = true;
        // The session lives here, not in a saved file.
        let run_config = SessionConfig {
            persist_session: false,
            ..config.clone()
        };
        let mut rec = Recording {
            inner: progress,
            protect: super::replay::replay_protect(&echo, &opts.shell_env, &opts.cli_env),
            steps: Vec::new(),
            notes: Vec::new(),
        };
        let live = session::run_live_on(
            plan,
            &req.script,
            kind,
            &run_opts,
            &run_config,
            &mut rec,
            kept,
        )
        .await;
        let mut live = match live {
            Ok(l) => l,
            Err(session::StartError::Refused(e)) => return Err(e.0),
            Err(session::StartError::Backend(problem)) => {
                return Ok(RunReply {
                    result: session::unavailable_result(plan, opts, problem),
                    run_dir: None,
                    session_file: None,
                })
            }
        };
        recorded.extend(rec.steps);
        warnings.append(&mut rec.notes);
        let result = &mut live.outcome.result;
        if result.ok {
            tx.mark_complete_if_armed();
            warnings.push(complete_note(&tx, name));
        } else if result.error.as_ref().is_some_and(|e| e.preflight) && !resuming {
            // Refused before its first step: nothing was armed.
            result.warnings.append(&mut warnings);
            let mut gone = Some(hold(live.backend, recorded, tx, None));
            self.end(name, &mut gone).await;
            return Ok(RunReply {
                result: live.outcome.result,
                run_dir: live.outcome.run_dir,
                session_file: None,
            });
        } else {
            if let Some(d) = result
                .error
                .as_mut()
                .and_then(|e| e.details.divergence.as_mut())
            {
                tx.stamp(d, total, recorded.len());
                if tx.holds() {
                    d.resume.repair_session_held = Some(true);
                }
            }
            let flag = if name == "default" {
                String::new()
            } else {
                format!(" --session {name}")
            };
            warnings.push(format!("the repair session \"{name}\" is held live in ad's session daemon: repair with `ad session{flag} …` (recorded), continue with the report's `--from N --plan-digest D`, and commit with `ad session{flag} close` once a run reaches the end ({} is written then)", tx.target.display()));
        }
        result.session_active = true;
        result.warnings.append(&mut warnings);
        live.backend.release_session_at_end();
        // The held session continues with the run's ref frames: the divergence report's
        // `screen.refs`, pinned to `refsGeneration` (`@eN~sG`), are usable by `ad session`.
        let state =
            LiveState::new(name, super::handoff::run_scope(opts, plan)).with_frames(live.frames);
        *current = Some(hold(live.backend, recorded, tx, Some(state)));
        mark_held(&self.state_dir, name);
        Ok(RunReply {
            result: live.outcome.result,
            run_dir: live.outcome.run_dir,
            session_file: None,
        })
    }

    /// `close [--save-script[=PATH]] [--force]` on a repair session: commits a complete
    /// transaction (the app closed first, once; the healed script checked and written
    /// atomically; the session ended), or aborts an armed one (the session ends, nothing is
    /// written; an error when `--save-script` asked for the script).
    pub(super) async fn repair_close(
        &self,
        req: &Request,
        save_script: &Option<Option<String>>,
        force: bool,
        slot: &mut Option<Session>,
    ) -> Response {
        let name = req.session.as_str();
        let fail = |r: Refusal| super::refused(req, "close", r);
        let s = slot.as_mut().expect("a repair session");
        let mut tx = s.repair.clone().expect("a repair session");
        if !tx.committable() {
            let close = super::lower_line("close").expect("close lowers");
            let _ = crate::core::interp::run_live_step(
                &mut s.live,
                &mut s.backend,
                &mut s.journal,
                &close,
                "session",
            )
            .await;
            self.end(name, slot).await;
            clear_held(&self.state_dir, name);
            if save_script.is_some() {
                return fail(Refusal::new(error_codes::COMMAND_FAILED, "The repair was aborted and no script was written (recovery: continue it with `ad run FILE --from <n> --plan-digest <digest>` before closing; the session has ended now, so arm a new repair with `ad run FILE --save-script`)."));
            }
            return Response {
                ok: true,
                command: "close".into(),
                warnings: vec![
                    "the repair was aborted before it was complete: no script was written".into(),
                ],
                ..Response::default()
            };
        }
        if let Some(p) = save_script {
            tx.retarget(p.as_ref().map(|p| super::resolve_path(&req.cwd, p)), force);
        } else if force {
            tx.retarget(None, true);
        }
        let since = s.recorded.get(tx.boundary..).unwrap_or(&[]);
        let text = healed_text(&super::header_of(&s.backend), since);
        // Everything that can refuse the commit is checked before the app is closed.
        if let Some(r) = target_refusal(&tx) {
            s.repair = Some(tx);
            return fail(r);
        }
        if let Some(mut r) = unresolved_ref(since) {
            r.message.push_str(&uncommittable_recovery(&tx));
            s.repair = Some(tx);
            return fail(r);
        }
        if let Err(mut r) = check_healed(&text) {
            r.message.push_str(&uncommittable_recovery(&tx));
            s.repair = Some(tx);
            return fail(Refusal::new(&r.code, r.message));
        }
        let mut warnings = Vec::new();
        if tx.status == Status::Complete {
            let close = super::lower_line("close").expect("close lowers");
            let outcome = crate::core::interp::run_live_step(
                &mut s.live,
                &mut s.backend,
                &mut s.journal,
                &close,
                "session",
            )
            .await;
            if let Err(f) = outcome.result {
                s.repair = Some(tx);
                return fail(Refusal::new(error_codes::COMMAND_FAILED, format!("The platform close failed: {}; the repair transaction was not committed because the platform close failed: fix the underlying issue and retry `ad session close`", f.message)));
            }
            tx.mark_close_succeeded();
        }
        if let Err(r) = commit(&tx, &text) {
            s.repair = Some(tx);
            return fail(r);
        }
        let actions = since.len() + 1;
        tx.status = Status::Committed;
        let target = tx.target.clone();
        s.repair = Some(tx);
        self.end(name, slot).await;
        clear_held(&self.state_dir, name);
        warnings.push(
            "review the healed script before promoting it over the original: diff it against the script it repairs"
                .to_string(),
        );
        Response {
            ok: true,
            command: "close".into(),
            path: Some(target),
            actions: Some(actions),
            warnings,
            ..Response::default()
        }
    }

    /// Daemon teardown (its idle exit) of a repair session: a complete transaction is
    /// committed; an incomplete one, or a commit that fails, leaves a tombstone the next resume
    /// answers with.
    pub(super) fn finalize_repair(&self, name: &str, s: &Session) {
        let Some(tx) = &s.repair else { return };
        clear_held(&self.state_dir, name);
        let failure = if tx.committable() {
            let since = s.recorded.get(tx.boundary..).unwrap_or(&[]);
            let committed = match unresolved_ref(since) {
                Some(r) => Err(r),
                None => commit(tx, &healed_text(&super::header_of(&s.backend), since)),
            };
            match committed {
                Ok(()) => return,
                Err(r) => Some(CommitFailure {
                    code: r.code,
                    message: r.message,
                }),
            }
        } else if tx.holds() {
            None
        } else {
            return;
        };
        let _ = write_tombstone(&self.state_dir, name, &tx.source, failure, now_ms());
    }
}

/// What a run that completed the transaction tells the user.
fn complete_note(tx: &Transaction, name: &str) -> String {
    let flag = if name == "default" {
        String::new()
    } else {
        format!(" --session {name}")
    };
    format!(
        "the repair is complete: `ad session{flag} close` commits the healed script to {} (the session stays live until then)",
        tx.target.display()
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::records::divergence::{
        Cause, DivergenceKind, Resume, Screen, SourceLocation, StepLocation,
    };

    fn report(step: usize, hint: RepairHint, allowed: bool) -> DivergenceReport {
        DivergenceReport {
            version: 1,
            kind: DivergenceKind::SelectorMiss,
            step: StepLocation {
                index: step,
                source: SourceLocation {
                    path: "f.ad".into(),
                    line: step + 1,
                },
                origin: None,
            },
            action: "click".into(),
            cause: Cause {
                code: error_codes::SELECTOR_MISS.into(),
                message: "m".into(),
                hint: None,
            },
            screen: Screen::Unavailable {
                reason: "r".into(),
                hint: "h".into(),
            },
            suggestions: vec![],
            suggestion_count: 0,
            resume: Resume {
                allowed,
                from: if hint == RepairHint::RecordAndHeal {
                    step + 1
                } else {
                    step
                },
                plan_digest: "d".into(),
                alternate_from: None,
                reason: None,
                repair_session_held: None,
            },
            repair_hint: hint,
            target_binding: None,
            overflow: None,
            artifact_unavailable: None,
        }
    }

    #[test]
    fn the_healed_sibling_replaces_the_extension() {
        assert_eq!(
            healed_sibling(Path::new("/f/login.ad")),
            Path::new("/f/login.healed.ad")
        );
        assert_eq!(
            healed_sibling(Path::new("flows/a.b.ad")),
            Path::new("flows/a.b.healed.ad")
        );
        assert_eq!(healed_sibling(Path::new("x")), Path::new("x.healed.ad"));
    }

    #[test]
    fn the_transaction_moves_through_its_states() {
        let mut t = Transaction::arm(Path::new("/f/a.ad"), None, false, 0);
        assert_eq!(t.status, Status::Armed);
        assert_eq!(t.target, Path::new("/f/a.healed.ad"));
        assert!(!t.committable() && t.holds());
        t.mark_close_succeeded();
        assert_eq!(t.status, Status::Armed, "only a complete repair closes");
        t.mark_complete_if_armed();
        assert!(t.committable());
        // A resume of a complete transaction demotes it until its run ends well.
        t.demote_for_rerun();
        assert_eq!(t.status, Status::Armed);
        t.mark_complete_if_armed();
        t.mark_close_succeeded();
        assert_eq!(t.status, Status::CloseSucceeded);
        assert!(t.committable());
        t.status = Status::Committed;
        assert!(!t.holds() && !t.committable());
        t.mark_complete_if_armed();
        assert_eq!(t.status, Status::Committed);
    }

    #[test]
    fn a_new_target_keeps_an_overwrite_only_for_the_same_path() {
        let mut t = Transaction::arm(Path::new("/f/a.ad"), None, true, 0);
        t.retarget(Some("/f/a.healed.ad".into()), false);
        assert!(t.overwrite, "same target: the authorization stands");
        t.retarget(Some("/f/b.ad".into()), false);
        assert!(!t.overwrite && t.target == Path::new("/f/b.ad"));
        t.retarget(None, true);
        assert!(t.overwrite && t.target == Path::new("/f/b.ad"));
    }

    #[test]
    fn the_watermark_follows_agent_devices_stamp() {
        let mut t = Transaction::arm(Path::new("/f/a.ad"), None, false, 0);
        t.stamp(&report(3, RepairHint::RecordAndHeal, true), 6, 2);
        assert_eq!(
            t.pending,
            Some(Watermark {
                expected_from: 4,
                actions_at_divergence: 2
            })
        );
        t.stamp(&report(3, RepairHint::RecordAndHeal, false), 6, 2);
        assert_eq!(t.pending, None, "a refused resume expects nothing");
        t.stamp(&report(3, RepairHint::StateRepair, true), 6, 2);
        assert_eq!(t.pending, None);
        t.stamp(&report(3, RepairHint::Manual, true), 6, 2);
        assert_eq!(
            t.pending, None,
            "caution/manual expect only at the last step"
        );
        t.stamp(&report(6, RepairHint::Caution, true), 6, 5);
        assert_eq!(
            t.pending,
            Some(Watermark {
                expected_from: 7,
                actions_at_divergence: 5
            })
        );
        t.clear_watermark_if_expected(Some(6));
        assert!(t.pending.is_some());
        t.clear_watermark_if_expected(Some(7));
        assert!(t.pending.is_none());
    }

    #[test]
    fn the_entry_checks_run_in_agent_devices_order() {
        let w = Watermark {
            expected_from: 5,
            actions_at_divergence: 3,
        };
        assert_eq!(entry_step(None, None, "d", 4, None, 0), Ok(1));
        assert!(entry_step(Some(2), None, "d", 4, None, 0)
            .unwrap_err()
            .contains("requires --plan-digest"));
        assert_eq!(entry_step(Some(4), Some("d"), "d", 4, None, 0), Ok(4));
        // The empty tail: only the watermark's own N = actions + 1.
        let e = entry_step(Some(5), Some("d"), "d", 4, None, 0).unwrap_err();
        assert_eq!(e, "--from 5 is out of range for a 4-step plan.");
        assert_eq!(entry_step(Some(5), Some("d"), "d", 4, Some(&w), 4), Ok(5));
        assert!(entry_step(Some(0), Some("d"), "d", 4, Some(&w), 4).is_err());
        assert!(entry_step(Some(6), Some("d"), "d", 4, Some(&w), 4).is_err());
        // No corrective action since the divergence: refused, before the digest.
        let e = entry_step(Some(5), Some("x"), "d", 4, Some(&w), 3).unwrap_err();
        assert!(e.contains("no corrective action was recorded"), "{e}");
        assert!(e.contains("--record"), "{e}");
        // Another N than the watermark's is not held to it.
        assert_eq!(entry_step(Some(2), Some("d"), "d", 4, Some(&w), 3), Ok(2));
        let e = entry_step(Some(2), Some("x"), "d", 4, Some(&w), 3).unwrap_err();
        assert!(e.starts_with("--plan-digest does not match"), "{e}");
    }

    #[test]
    fn targets_are_refused_before_any_write() {
        let dir = ad_tests_scratch("repair-targets");
        let source = dir.join("a.ad");
        std::fs::write(&source, "open x\n").unwrap();
        let mut t = Transaction::arm(&source, Some(source.clone()), true, 0);
        let r = target_refusal(&t).expect("the original is never the target");
        assert_eq!(r.code, error_codes::INVALID_ARGS);
        assert!(r.message.contains("a.healed.ad"), "{}", r.message);
        // The same file by another spelling.
        t.target = dir.join(".").join("a.ad");
        assert!(target_refusal(&t).is_some());
        t.target = healed_sibling(&source);
        t.overwrite = false;
        assert_eq!(target_refusal(&t), None);
        std::fs::write(&t.target, "old\n").unwrap();
        let r = target_refusal(&t).expect("an existing file is refused");
        assert_eq!(r.code, error_codes::COMMAND_FAILED);
        assert!(r.message.contains("--overwrite"), "{}", r.message);
        t.overwrite = true;
        assert_eq!(target_refusal(&t), None);
    }

    fn ad_tests_scratch(name: &str) -> PathBuf {
        ad_tests::scratch_dir(name)
    }

    fn action(line: &str) -> Recorded {
        Recorded {
            line: line.into(),
            evidence: None,
            is_open: line.starts_with("open"),
            note: None,
        }
    }

    #[test]
    fn the_healed_script_ends_with_close_and_heal_complete_and_commits_beside_the_original() {
        let dir = ad_tests_scratch("repair-commit");
        let source = dir.join("login.ad");
        std::fs::write(&source, "open \"com.example.shop\"\nclose\n").unwrap();
        let header = "context platform=ios device=\"Sim\" theme=unknown";
        let text = healed_text(
            header,
            &[
                action("open \"com.example.shop\" --relaunch"),
                action("wait 100"),
            ],
        );
        assert_eq!(
            text,
            format!("{header}\nopen \"com.example.shop\" --relaunch\nwait 100\nclose\n{HEAL_COMPLETE}\n")
        );
        let t = Transaction::arm(&source, None, false, 0);
        commit(&t, &text).unwrap();
        assert_eq!(std::fs::read_to_string(&t.target).unwrap(), text);
        assert_eq!(
            std::fs::read_to_string(&source).unwrap(),
            "open \"com.example.shop\"\nclose\n",
            "the original is untouched"
        );
        // Committing again finds the file there: refused, its bytes kept.
        let e = commit(&t, "other").unwrap_err();
        assert_eq!(e.code, error_codes::COMMAND_FAILED);
        assert_eq!(std::fs::read_to_string(&t.target).unwrap(), text);
        // A missing folder is made, as agent-device's writer makes it; a file in its place is
        // a failed write, nothing written.
        let deep = Transaction::arm(&source, Some(dir.join("new/deeper/h.ad")), false, 0);
        commit(&deep, &text).unwrap();
        assert_eq!(std::fs::read_to_string(&deep.target).unwrap(), text);
        std::fs::write(dir.join("plain"), "x").unwrap();
        let blocked = Transaction::arm(&source, Some(dir.join("plain/h.ad")), false, 0);
        let e = commit(&blocked, &text).unwrap_err();
        assert_eq!(e.code, error_codes::COMMAND_FAILED);
        assert!(
            e.message.contains("could not create its folder")
                && e.message.ends_with("then retry `ad session close`"),
            "{}",
            e.message
        );
        // A text `ad check` refuses is never written.
        let other = Transaction::arm(&source, Some(dir.join("bad.ad")), false, 0);
        let bad = healed_text(header, &[action("click @e3")]);
        let e = commit(&other, &bad).unwrap_err();
        assert!(e.message.contains("cannot be committed"), "{}", e.message);
        assert!(!dir.join("bad.ad").exists());
    }

    #[test]
    fn a_step_still_on_a_session_ref_is_refused_as_agent_devices_writer_refuses_it() {
        assert_eq!(
            unresolved_ref(&[action("open x"), action("click \"id=\\\"a\\\"\"")]),
            None
        );
        let r = unresolved_ref(&[action("open x"), action("click @e4")]).unwrap();
        assert_eq!(r.code, error_codes::COMMAND_FAILED);
        assert_eq!(r.message, "Cannot write recorded step \"click @e4\" to a script: it never resolved to a selector, so the ref would not resolve in a fresh replay session.");
        let t = Transaction::arm(Path::new("/f/login.ad"), None, false, 0);
        assert!(uncommittable_recovery(&t)
            .contains("`ad run /f/login.ad --save-script --session NAME`"));
        let r = unresolved_ref(&[action("get text @e2")]).unwrap();
        assert!(
            r.message
                .starts_with("Cannot write recorded step \"get @e2\""),
            "{}",
            r.message
        );
        // A fill's text is not its target.
        assert_eq!(
            unresolved_ref(&[action("fill \"id=\\\"a\\\"\" \"@home\"")]),
            None
        );
    }

    #[test]
    fn a_tombstone_answers_until_it_expires() {
        let dir = ad_tests_scratch("repair-tombstone");
        let state = dir.join("state");
        assert!(!routes_to_daemon(&state, "s 1"));
        write_tombstone(&state, "s 1", Path::new("/f/a.ad"), None, 1_000).unwrap();
        let t = read_tombstone(&state, "s 1", 2_000).expect("live");
        let r = tombstone_refusal("s 1", &t);
        assert_eq!(r.code, error_codes::REPAIR_SESSION_EXPIRED);
        assert!(
            r.message.contains("reaped before it was finalized")
                && r.message.contains("ad run /f/a.ad --save-script"),
            "{}",
            r.message
        );
        assert_eq!(
            read_tombstone(&state, "s 1", 1_000 + TOMBSTONE_TTL_MS),
            None,
            "expired"
        );
        write_tombstone(
            &state,
            "s 1",
            Path::new("/f/a.ad"),
            Some(CommitFailure {
                code: error_codes::COMMAND_FAILED.into(),
                message: "disk full".into(),
            }),
            now_ms(),
        )
        .unwrap();
        assert!(routes_to_daemon(&state, "s 1"));
        let t = read_tombstone(&state, "s 1", now_ms()).unwrap();
        assert_eq!(
            tombstone_refusal("s 1", &t).code,
            error_codes::REPAIR_COMMIT_FAILED
        );
        clear_tombstone(&state, "s 1");
        assert!(!routes_to_daemon(&state, "s 1"));
        mark_held(&state, "s 1");
        assert!(routes_to_daemon(&state, "s 1"));
        clear_held(&state, "s 1");
        assert!(!routes_to_daemon(&state, "s 1"));
    }
}
