//! What a run returns: [`RunResult`] and [`RunError`], and the records made from them (the
//! `--json` result, the journal's `run_end`, `run.json`).

use serde_json::Value;

use crate::core::records::error_codes;
use crate::core::records::journal::{ExitReason, RunEnd};
use crate::core::records::summary::{StepCounts, SummaryError};
use crate::core::records::{
    DivergenceReport, ErrorDetails, ErrorRecord, RunResultRecord, RunSummary, SetupProblem,
};

/// Why a run failed.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct RunError {
    pub code: String,
    pub message: String,
    pub hint: Option<String>,
    /// 1-based plan index of the failing step.
    pub step: Option<usize>,
    /// 1-based source line.
    pub line: Option<usize>,
    /// Raised before any step ran (bad arguments, digest mismatch): exit code 2.
    pub preflight: bool,
    /// Reason, divergence report, …
    pub details: ErrorDetails,
}

impl RunError {
    pub fn divergence(&self) -> Option<&DivergenceReport> {
        self.details.divergence.as_ref()
    }

    /// The run stopped on a signal before step `index` (at `line`).
    pub(super) fn interrupted(
        signal: &str,
        index: usize,
        line: usize,
        replayed: usize,
        resumable: bool,
    ) -> RunError {
        RunError {
            code: error_codes::INTERRUPTED.into(),
            message: format!(
                "interrupted by {signal} before step {index} ({replayed} step(s) replayed)"
            ),
            // Only a backend whose session outlives the run can be resumed (a browser cannot).
            hint: Some(
                if resumable {
                    "the session was left live: resume with --from and --plan-digest (see run.json)"
                } else {
                    "this backend's session ends with the run: run the whole script again"
                }
                .into(),
            ),
            step: Some(index),
            line: Some(line),
            preflight: false,
            details: ErrorDetails {
                reason: Some("interrupted".into()),
                signal: Some(signal.into()),
                ..ErrorDetails::default()
            },
        }
    }

    pub fn is_interrupted(&self) -> bool {
        self.code == error_codes::INTERRUPTED
    }

    /// The backend could not start: what is missing and how to fix it (a set-up error).
    pub fn setup(&self) -> Option<&SetupProblem> {
        self.details.setup.as_ref()
    }

    /// The run's backend could not start before its first step.
    pub fn unavailable(problem: SetupProblem) -> RunError {
        RunError {
            code: SetupProblem::CODE.into(),
            message: problem.problem.clone(),
            hint: problem.fix.clone(),
            step: None,
            line: None,
            preflight: false,
            details: ErrorDetails {
                reason: Some("backend_unavailable".into()),
                setup: Some(problem),
                ..ErrorDetails::default()
            },
        }
    }

    pub(super) fn preflight(message: String, hint: Option<&str>) -> RunError {
        RunError {
            code: error_codes::INVALID_ARGS.into(),
            message,
            hint: hint.map(str::to_string),
            step: None,
            line: None,
            preflight: true,
            details: ErrorDetails::default(),
        }
    }

    /// The code reported to users: `REPLAY_DIVERGENCE` when a divergence report is attached.
    pub fn public_code(&self) -> &str {
        if self.divergence().is_some() {
            error_codes::REPLAY_DIVERGENCE
        } else {
            &self.code
        }
    }
}

/// The outcome of a run.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct RunResult {
    pub ok: bool,
    /// Steps that ran to completion.
    pub replayed: usize,
    /// Steps in the plan.
    pub total: usize,
    /// The first step that ran (`--from`).
    pub from: usize,
    pub session: String,
    pub session_active: bool,
    /// Where the device stopped (`{app, screen, …}` on the sim).
    pub location: Value,
    pub plan_digest: String,
    pub error: Option<RunError>,
    pub device_ms: u64,
    pub wall_ms: f64,
    pub warnings: Vec<String>,
}

impl RunResult {
    /// The run's backend could not start before its first step: nothing ran, no journal.
    pub fn unavailable(
        problem: SetupProblem,
        total: usize,
        session: &str,
        plan_digest: String,
    ) -> RunResult {
        RunResult {
            ok: false,
            replayed: 0,
            total,
            from: 1,
            session: session.to_string(),
            session_active: false,
            location: Value::Null,
            plan_digest,
            error: Some(RunError::unavailable(problem)),
            device_ms: 0,
            wall_ms: 0.0,
            warnings: Vec::new(),
        }
    }

    /// The exit code and why: 0 completed, 1 divergence or error, 2 preflight or a backend that
    /// could not start, 130 interrupted.
    pub fn exit(&self) -> (i32, ExitReason) {
        match &self.error {
            None => (0, ExitReason::Completed),
            Some(e) if e.preflight => (2, ExitReason::Preflight),
            Some(e) if e.setup().is_some() => (2, ExitReason::Setup),
            Some(e) if e.is_interrupted() => (130, ExitReason::Interrupted),
            Some(e) if e.divergence().is_some() => (1, ExitReason::Divergence),
            Some(_) => (1, ExitReason::Error),
        }
    }

    /// The structured result (`ad run --json`); the caller adds where the run folder and the
    /// live session are.
    pub fn record(&self) -> RunResultRecord {
        RunResultRecord {
            ok: self.ok,
            replayed: self.replayed,
            total: self.total,
            session: self.session.clone(),
            session_active: self.session_active,
            plan_digest: self.plan_digest.clone(),
            device_time_ms: self.device_ms,
            location: self.session_active.then(|| self.location.clone()),
            warnings: self.warnings.clone(),
            error: self.error.as_ref().map(|e| ErrorRecord {
                code: e.public_code().to_string(),
                message: e.message.clone(),
                hint: e.hint.clone(),
                details: e.details.clone(),
            }),
            run_dir: None,
            session_file: None,
            steps: Vec::new(),
        }
    }

    /// The journal's `run_end` (the journal adds the attempt still awaiting an observation).
    pub(super) fn run_end(&self) -> RunEnd {
        let (exit_code, exit_reason) = self.exit();
        RunEnd {
            exit_code,
            exit_reason,
            replayed: self.replayed,
            total: self.total,
            session_active: self.session_active,
            device_ms: self.device_ms,
            wall_ms: round3(self.wall_ms),
            message: self
                .error
                .as_ref()
                .filter(|e| e.preflight || e.setup().is_some())
                .map(|e| e.message.clone()),
            awaiting_observation_after_attempt: None,
        }
    }

    /// `run.json` (the journal fills in its counts and ids).
    pub(super) fn summary(&self, script: &str, backend: &str) -> RunSummary {
        let (exit_code, exit_reason) = self.exit();
        RunSummary {
            script: script.to_string(),
            plan_digest: self.plan_digest.clone(),
            backend: backend.to_string(),
            ok: self.ok,
            exit_code,
            exit_reason,
            steps: StepCounts {
                total: self.total,
                from: self.from,
                replayed: self.replayed,
            },
            session_active: self.session_active,
            device_ms: self.device_ms,
            wall_ms: round3(self.wall_ms),
            location: self.session_active.then(|| self.location.clone()),
            error: self.error.as_ref().map(|e| SummaryError {
                code: e.code.clone(),
                message: e.message.clone(),
                step: e.step,
                line: e.line,
                divergence: e.divergence().cloned(),
                resume_command: e.details.resume_command.clone(),
            }),
            schema_version: 0,
            run_id: String::new(),
            session: String::new(),
            events: 0,
            observations: 0,
            attempts: 0,
            awaiting_observation_after_attempt: None,
            journal_error: None,
        }
    }
}

/// Milliseconds to µs precision, as records carry wall-clock times.
pub(crate) fn round3(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}

#[cfg(test)]
mod tests {
    use super::RunError;

    #[test]
    fn an_interrupted_run_offers_a_resume_only_where_the_backend_has_one() {
        let hint = |resumable| {
            RunError::interrupted("SIGINT", 2, 3, 1, resumable)
                .hint
                .unwrap()
        };
        assert!(hint(true).contains("--from"));
        let web = hint(false);
        assert!(!web.contains("--from"), "{web}");
        assert!(web.contains("run the whole script again"), "{web}");
    }
}
