//! Fixtures of the authoring daemon's sessions (`ad session open … --record-fixture DIR`,
//! `--backend recorded:DIR`): the sessions that name one folder share one recording (one log
//! per session, ordered by first call) or one replay source (live sessions bind to its logs by
//! first-call order). A recording is written each time one of its sessions ends.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::{Recording, ReplaySource, SharedRecording};
use crate::backends::{AnyBackend, BackendKind};

#[derive(Debug, Default)]
pub struct Fixtures {
    recordings: BTreeMap<PathBuf, SharedRecording>,
    /// Which recording each recorded session writes to.
    recorded_sessions: BTreeMap<String, PathBuf>,
    replays: BTreeMap<PathBuf, ReplaySource>,
}

impl Fixtures {
    /// The replay source for a `--backend` value of `recorded:DIR` (loaded once per folder).
    pub fn replay_for(
        &mut self,
        backend: Option<&str>,
        cwd: &Path,
    ) -> Result<Option<ReplaySource>, String> {
        let Some(dir) = backend
            .and_then(|b| BackendKind::parse_choice(b).ok())
            .and_then(|c| c.1)
        else {
            return Ok(None);
        };
        let dir = if dir.is_absolute() {
            dir
        } else {
            cwd.join(dir)
        };
        if let Some(source) = self.replays.get(&dir) {
            return Ok(Some(source.clone()));
        }
        let source = ReplaySource::open(&dir)?;
        self.replays.insert(dir, source.clone());
        Ok(Some(source))
    }

    /// `backend`, recorded into the folder `dir` as session `session` when one is given.
    pub fn record(
        &mut self,
        backend: AnyBackend,
        session: &str,
        dir: Option<PathBuf>,
    ) -> AnyBackend {
        let Some(dir) = dir else { return backend };
        let recording = self
            .recordings
            .entry(dir.clone())
            .or_insert_with(Recording::shared)
            .clone();
        self.recorded_sessions.insert(session.to_string(), dir);
        backend.recorded_into(session, crate::core::vars::Redactor::default(), recording)
    }

    /// Continues recording session `session` into `recording`, the fixture a handoff run
    /// (`ad run --record-fixture DIR`) wrote in `dir` before the daemon kept its live session:
    /// the session commands' calls append to the run's session log.
    pub fn continue_run(
        &mut self,
        backend: AnyBackend,
        session: &str,
        dir: PathBuf,
        recording: SharedRecording,
    ) -> AnyBackend {
        // The run started the folder's fixture afresh, as a run starts its session cold.
        self.recordings.insert(dir.clone(), recording.clone());
        self.recorded_sessions.insert(session.to_string(), dir);
        backend.recording_resumed(session, recording)
    }

    /// Ends session `session`'s recording, if it has one: its log joins the recording and the
    /// fixture is written (a failed write is reported in the daemon's answer only as the missing
    /// files: the session is ending either way).
    pub fn finish(&mut self, session: &str, backend: AnyBackend) -> AnyBackend {
        let backend = backend.finish_recording();
        if let Some(dir) = self.recorded_sessions.remove(session) {
            if let Some(rec) = self.recordings.get(&dir) {
                let _ = rec.lock().unwrap_or_else(|e| e.into_inner()).write(&dir);
            }
        }
        backend
    }
}
