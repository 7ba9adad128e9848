//! The crash-safe run journal: `<artifacts>/<run-id>/events.jsonl` (append-only, one complete
//! JSON object per line), `observations/NNNNNN.json` (every capture, written and flushed before
//! an event references it, with its SHA-256), and `run.json` (the summary, written at the end).
//!
//! Durability rules (see docs/run.md):
//! - every event is one `write` of a whole line, so a killed process leaves complete lines and at
//!   most one truncated last line;
//! - an `action_attempt` is written and fsync'd *before* the backend is called; if that fails the
//!   action is not dispatched;
//! - the first observation after an attempt carries `after_attempt_id`; an attempt still waiting
//!   for one at the end is listed in `run.json` (`awaiting_observation_after_attempt`), except
//!   an accepted `close`, which leaves nothing to observe;
//! - nothing grows in memory with the number of steps (events stream to disk).

use std::fs::{File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use crate::core::records::common::sha256_hex;
use serde_json::Value;

pub use crate::core::records::journal::SCHEMA_VERSION;
use crate::core::records::journal::{
    ActionArgs, ActionAttempt, ActionResult, Event, JournalEvent, Observation, Outcome, Phase,
    RunEnd,
};
use crate::core::records::RunSummary;
/// How many recent observation hashes are remembered for de-duplicating identical captures.
const RECENT_OBSERVATIONS: usize = 32;

/// Where events go.
enum Sink {
    Disk {
        dir: PathBuf,
        events: File,
    },
    /// Keeps rows in memory (tests).
    Memory {
        rows: Vec<String>,
        files: Vec<(String, String)>,
    },
    /// Discards everything (benchmarks of the interpreter alone).
    Null,
}

/// The run journal.
pub struct Journal {
    sink: Sink,
    run_id: String,
    session: String,
    sequence: u64,
    observations: u64,
    attempts: u64,
    pending_attempt: Option<String>,
    recent: Vec<(String, String, String)>, // (sha256, path, observation_id)
    clock: fn() -> String,
    /// Set once a write failed: later events are not attempted.
    failed: Option<String>,
    /// Whether an intent is fsync'd before its call (not when the device is a replayed
    /// recording: nothing happens that the journal must be ahead of).
    sync_intents: bool,
}

/// A reference to a stored observation.
#[derive(Debug, Clone, PartialEq)]
pub struct ObservationRef {
    pub id: String,
    pub path: String,
    pub sha256: String,
}

/// UTC now as RFC 3339 with milliseconds (`2025-11-29T20:15:00.123Z`).
pub fn utc_now() -> String {
    let d = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default();
    format_utc(d.as_secs() as i64, d.subsec_millis())
}

/// Formats seconds since the epoch as RFC 3339 UTC.
pub fn format_utc(secs: i64, millis: u32) -> String {
    let days = secs.div_euclid(86_400);
    let rem = secs.rem_euclid(86_400);
    let (y, m, d) = civil_from_days(days);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}.{millis:03}Z",
        rem / 3600,
        (rem % 3600) / 60,
        rem % 60
    )
}

/// Howard Hinnant's days → (year, month, day).
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (if m <= 2 { y + 1 } else { y }, m, d)
}

/// A fresh run id: `YYYYMMDDTHHMMSSZ-<6 hex>`.
pub fn new_run_id() -> String {
    use std::collections::hash_map::RandomState;
    use std::hash::{BuildHasher, Hasher};
    let now = utc_now();
    let compact: String = now[..19]
        .chars()
        .filter(|c| *c != '-' && *c != ':')
        .collect();
    let mut h = RandomState::new().build_hasher();
    h.write_u128(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap_or_default()
            .as_nanos(),
    );
    h.write_u32(std::process::id());
    format!("{compact}Z-{:06x}", h.finish() & 0xff_ffff)
}

impl Journal {
    /// Creates `<root>/<run-id>/` exclusively (a new id is drawn if it exists).
    pub fn create(root: &Path, session: &str) -> io::Result<Journal> {
        std::fs::create_dir_all(root)?;
        let mut last = None;
        for _ in 0..8 {
            let run_id = new_run_id();
            let dir = root.join(&run_id);
            match std::fs::create_dir(&dir) {
                Ok(()) => {
                    std::fs::create_dir(dir.join("observations"))?;
                    let events = OpenOptions::new()
                        .create_new(true)
                        .append(true)
                        .open(dir.join("events.jsonl"))?;
                    return Ok(Journal::with_sink(
                        Sink::Disk { dir, events },
                        run_id,
                        session,
                    ));
                }
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => last = Some(e),
                Err(e) => return Err(e),
            }
        }
        Err(last.unwrap_or_else(|| io::Error::other("could not create a run folder")))
    }

    /// A journal kept in memory (tests).
    pub fn memory(session: &str) -> Journal {
        Journal::with_sink(
            Sink::Memory {
                rows: Vec::new(),
                files: Vec::new(),
            },
            "memory".into(),
            session,
        )
    }

    /// A journal that records nothing (benchmarks).
    pub fn null(session: &str) -> Journal {
        Journal::with_sink(Sink::Null, "null".into(), session)
    }

    fn with_sink(sink: Sink, run_id: String, session: &str) -> Journal {
        Journal {
            sink,
            run_id,
            session: session.to_string(),
            sequence: 0,
            observations: 0,
            attempts: 0,
            pending_attempt: None,
            recent: Vec::new(),
            clock: utc_now,
            failed: None,
            sync_intents: true,
        }
    }

    /// Intents are written but not fsync'd before their call: for a backend with no side
    /// effects (a recorded run replayed), where the fsync would only cost time.
    pub fn without_intent_sync(mut self) -> Journal {
        self.sync_intents = false;
        self
    }

    /// Uses a fixed clock (deterministic tests).
    pub fn with_clock(mut self, clock: fn() -> String) -> Journal {
        self.clock = clock;
        self
    }

    pub fn run_id(&self) -> &str {
        &self.run_id
    }

    /// The run folder (disk journals).
    pub fn dir(&self) -> Option<&Path> {
        match &self.sink {
            Sink::Disk { dir, .. } => Some(dir),
            _ => None,
        }
    }

    /// Rows written so far (memory journals).
    pub fn rows(&self) -> &[String] {
        match &self.sink {
            Sink::Memory { rows, .. } => rows,
            _ => &[],
        }
    }

    /// Observation files written so far (memory journals): (path, contents).
    pub fn memory_files(&self) -> &[(String, String)] {
        match &self.sink {
            Sink::Memory { files, .. } => files,
            _ => &[],
        }
    }

    pub fn events_written(&self) -> u64 {
        self.sequence
    }

    pub fn observations_written(&self) -> u64 {
        self.observations
    }

    pub fn pending_attempt(&self) -> Option<&str> {
        self.pending_attempt.as_deref()
    }

    /// The pending attempt awaits no observation: the device accepted an action that leaves
    /// nothing to capture (a `close` ended the app), so its outcome is its result.
    pub fn settle_attempt(&mut self) {
        self.pending_attempt = None;
    }

    pub fn failure(&self) -> Option<&str> {
        self.failed.as_deref()
    }

    fn guard<T>(&mut self, r: io::Result<T>) -> io::Result<T> {
        if let Err(e) = &r {
            self.failed.get_or_insert_with(|| e.to_string());
        }
        r
    }

    /// Appends one event; returns its sequence number.
    pub fn append(&mut self, event: Event) -> io::Result<u64> {
        if let Some(f) = &self.failed {
            return Err(io::Error::other(format!("journal unavailable: {f}")));
        }
        self.sequence += 1;
        let row = JournalEvent {
            schema_version: SCHEMA_VERSION,
            session: self.session.clone(),
            sequence: self.sequence,
            recorded_at: (self.clock)(),
            event,
        };
        let mut line = serde_json::to_string(&row).unwrap_or_default();
        line.push('\n');
        let r = match &mut self.sink {
            Sink::Disk { events, .. } => events.write_all(line.as_bytes()),
            Sink::Memory { rows, .. } => {
                line.pop();
                rows.push(line);
                Ok(())
            }
            Sink::Null => Ok(()),
        };
        self.guard(r)?;
        Ok(self.sequence)
    }

    /// Whether observation bodies are stored (a null journal skips serializing them).
    pub fn records(&self) -> bool {
        !matches!(self.sink, Sink::Null)
    }

    /// Stores an observation file (flushed) and appends its `observation` event; `body` is
    /// produced only when it is stored. Identical consecutive captures are separate events that
    /// reference the same file.
    pub fn observe(
        &mut self,
        body: impl FnOnce() -> Vec<u8>,
        step: usize,
        phase: Phase,
    ) -> io::Result<ObservationRef> {
        self.observations += 1;
        let id = format!("obs-{:06}", self.observations);
        let bytes = match &self.sink {
            Sink::Null => Vec::new(),
            _ => body(),
        };
        let sha = if matches!(self.sink, Sink::Null) {
            String::new()
        } else {
            sha256_hex(&bytes)
        };
        let reused = self.recent.iter().find(|(h, _, _)| *h == sha).cloned();
        let path = match &reused {
            Some((_, p, _)) => p.clone(),
            None => format!("observations/{:06}.json", self.observations),
        };
        if reused.is_none() {
            let r = match &mut self.sink {
                Sink::Disk { dir, .. } => write_flushed(&dir.join(&path), &bytes),
                Sink::Memory { files, .. } => {
                    files.push((path.clone(), String::from_utf8_lossy(&bytes).into_owned()));
                    Ok(())
                }
                Sink::Null => Ok(()),
            };
            self.guard(r)?;
            if !matches!(self.sink, Sink::Null) {
                if self.recent.len() >= RECENT_OBSERVATIONS {
                    self.recent.remove(0);
                }
                self.recent.push((sha.clone(), path.clone(), id.clone()));
            }
        }
        let event = Observation {
            step,
            phase,
            observation_id: id.clone(),
            path: path.clone(),
            sha256: sha.clone(),
            bytes: bytes.len() as u64,
            same_as: reused.map(|(_, _, first)| first),
            after_attempt_id: self.pending_attempt.take(),
        };
        self.append(Event::Observation(event))?;
        Ok(ObservationRef {
            id,
            path,
            sha256: sha,
        })
    }

    /// Records the intent to call the device, durably (fsync) *before* the call; returns the
    /// attempt id. An error means the action must not be dispatched.
    pub fn attempt(&mut self, intent: Intent) -> io::Result<String> {
        self.attempts += 1;
        let id = format!("att-{:06}", self.attempts);
        self.append(Event::ActionAttempt(ActionAttempt {
            step: intent.step,
            line: intent.line,
            action: intent.action,
            command: intent.command,
            args: intent.args,
            attempt_id: id.clone(),
        }))?;
        let r = match &mut self.sink {
            Sink::Disk { events, .. } if self.sync_intents => events.sync_data(),
            _ => Ok(()),
        };
        self.guard(r)?;
        self.pending_attempt = Some(id.clone());
        Ok(id)
    }

    /// Records the device's answer to an attempt (`code` and `message` when it refused or the
    /// transport failed).
    pub fn result(
        &mut self,
        attempt_id: &str,
        result: Outcome,
        failure: Option<(String, String)>,
    ) -> io::Result<u64> {
        let (code, message) = failure.unzip();
        self.append(Event::ActionResult(ActionResult {
            attempt_id: attempt_id.to_string(),
            result,
            code,
            message,
        }))
    }

    /// Appends `run_end` and writes `run.json` (atomically, fsync'd); fills in what the journal
    /// knows (counts, run id, the attempt still awaiting an observation).
    pub fn finish(&mut self, mut end: RunEnd, mut summary: RunSummary) -> io::Result<()> {
        let awaiting = self.pending_attempt.clone();
        end.awaiting_observation_after_attempt = awaiting.clone();
        let _ = self.append(Event::RunEnd(end));
        summary.schema_version = SCHEMA_VERSION;
        summary.run_id = self.run_id.clone();
        summary.session = self.session.clone();
        summary.events = self.sequence;
        summary.observations = self.observations;
        summary.attempts = self.attempts;
        summary.awaiting_observation_after_attempt = awaiting;
        summary.journal_error = self.failed.clone();
        let bytes = serde_json::to_vec_pretty(&summary).unwrap_or_default();
        match &mut self.sink {
            Sink::Disk { dir, events } => {
                let _ = events.sync_data();
                let tmp = dir.join(".run.json.tmp");
                write_flushed(&tmp, &bytes)?;
                File::open(&tmp)?.sync_all()?;
                std::fs::rename(&tmp, dir.join("run.json"))
            }
            Sink::Memory { files, .. } => {
                files.push((
                    "run.json".into(),
                    String::from_utf8_lossy(&bytes).into_owned(),
                ));
                Ok(())
            }
            Sink::Null => Ok(()),
        }
    }
}

/// An action about to be sent to the device (the journal gives it its attempt id).
pub struct Intent {
    pub step: usize,
    pub line: usize,
    pub action: String,
    pub command: String,
    pub args: ActionArgs,
}

fn write_flushed(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let mut f = OpenOptions::new().create_new(true).write(true).open(path)?;
    f.write_all(bytes)?;
    f.flush()
}

/// Reads a journal back: every complete line that parses (a truncated last line is skipped).
pub fn read_events(path: &Path) -> io::Result<Vec<Value>> {
    let text = std::fs::read_to_string(path)?;
    Ok(text
        .split_inclusive('\n')
        .filter(|l| l.ends_with('\n'))
        .filter_map(|l| serde_json::from_str(l.trim_end()).ok())
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utc_formatting() {
        assert_eq!(format_utc(0, 0), "1970-01-01T00:00:00.000Z");
        assert_eq!(format_utc(1_764_447_300, 45), "2025-11-29T20:15:00.045Z");
        assert_eq!(format_utc(951_782_400, 1), "2000-02-29T00:00:00.001Z");
    }

    #[test]
    fn attempts_link_to_next_observation() {
        let mut j = Journal::memory("s").with_clock(|| "T".into());
        let body = |b: &'static str| move || b.as_bytes().to_vec();
        j.observe(body("{\"a\":1}"), 1, Phase::Resolve).unwrap();
        let a = j
            .attempt(Intent {
                step: 1,
                line: 1,
                action: "home".into(),
                command: "home".into(),
                args: ActionArgs::None {},
            })
            .unwrap();
        j.result(&a, Outcome::Accepted, None).unwrap();
        j.observe(body("{\"a\":1}"), 1, Phase::Resolve).unwrap();
        j.observe(body("{\"a\":2}"), 1, Phase::Resolve).unwrap();
        let rows: Vec<Value> = j
            .rows()
            .iter()
            .map(|r| serde_json::from_str(r).unwrap())
            .collect();
        assert_eq!(rows[3]["after_attempt_id"], "att-000001");
        assert_eq!(rows[3]["same_as"], "obs-000001");
        assert!(rows[4].get("after_attempt_id").is_none());
        assert_eq!(j.memory_files().len(), 2);
    }
}
