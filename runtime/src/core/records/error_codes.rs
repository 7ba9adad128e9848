//! The runtime's error codes: every code a run, a step, a session or a replay reports in its
//! records (`error.code`, a step end's `code`, a session answer's `code`), declared once here with
//! what it means. docs/run.md's "Error codes" table is this table (`runtime/tests/error_codes.rs`).
//!
//! Most are agent-device's own codes, which `ad` reports for the same failures; the rest are
//! `ad`'s (recorded replays, the static gate's run-time companions, the session daemon). Codes a
//! device's daemon sends that `ad` does not know pass through as they are.

/// One error code and what it means.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ErrorCode {
    pub id: &'static str,
    pub meaning: &'static str,
}

macro_rules! error_codes {
    ($($name:ident: $meaning:literal;)*) => {
        $(pub const $name: &str = stringify!($name);)*
        /// Every code, in the order docs/run.md lists them.
        pub const TABLE: &[ErrorCode] = &[$(ErrorCode { id: stringify!($name), meaning: $meaning }),*];
    };
}

error_codes! {
    // A step on the device.
    COMMAND_FAILED: "A step's command failed on the device (the catch-all, as agent-device reports it).";
    INVALID_ARGS: "A step's arguments after interpolation, or the run's options (`--from`, `--plan-digest`), are refused before anything is done.";
    UNKNOWN_COMMAND: "A command no daemon route executes (the static gate refuses such a script unless `--force`).";
    UNSUPPORTED_OPERATION: "The backend cannot do what the step asks (a system key the web has not, a command the sim does not model).";
    ELEMENT_NOT_FOUND: "A selector matched no element of the capture.";
    AMBIGUOUS_MATCH: "A selector matched more than one element where the step needs one.";
    SELECTOR_MISS: "A step's target did not appear within its wait: the app is not where the script expects it (a divergence).";
    ELEMENT_OCCLUDED: "The point the step would tap is covered by another element (web).";
    IDENTITY_MISMATCH: "The element the step resolved is not the one its `target-v1` evidence recorded.";
    IDENTITY_UNVERIFIABLE: "The step's evidence cannot be checked on this capture.";
    APP_NOT_INSTALLED: "`open` named an app the backend cannot open (the web backend opens URLs only).";
    LOCAL_URL_REFUSED: "The web backend's URL policy refused a page (a local file or a browser page without `--allow-local-urls`).";
    // The run as a whole.
    REPLAY_DIVERGENCE: "The run diverged from the recorded journey: the public code of a divergence, with its report.";
    TIMEOUT: "The script exceeded its timeout (`context timeout=`, `--timeout`).";
    INTERRUPTED: "Ctrl-C or SIGTERM stopped the run before its next step.";
    JOURNAL_WRITE_FAILED: "The run journal could not be written, so the run stops rather than go on unrecorded.";
    BACKEND_UNAVAILABLE: "The backend could not start (no browser, agent-device missing, a fixture folder or app model missing): a set-up error, exit 2.";
    FIXTURE_NOT_WRITTEN: "`--record-fixture` could not write the run's fixture.";
    // Recorded replays (`--backend recorded:DIR`).
    REPLAY_DIVERGED: "A replayed backend call differs from the recorded one.";
    REPLAY_EXHAUSTED: "The run made more backend calls than the fixture recorded.";
    REPLAY_UNRECORDED_SESSION: "The run used a session the fixture did not record.";
    // Authoring sessions, repairs and the session daemon.
    NO_SESSION: "No live session of that name.";
    SESSION_NOT_FOUND: "No live session of that name in the session daemon to continue from (a resume or a repair).";
    ALREADY_OPEN: "`open --save-script` only arms a new session, and this one exists.";
    NOT_ARMED: "The session's recording was never armed (`open --save-script`), so it cannot publish.";
    NOT_RECORDING: "`close --save-script` on a session that is not recording a publishable journey.";
    RECORDING_ABORTED: "A second `open` aborted the recording: it is no longer a single-open script.";
    ALREADY_PUBLISHED: "The recording was already published; a new script needs a fresh session.";
    NOT_SINGLE_OPEN: "The recording does not hold exactly one `open`, as its first action.";
    PUBLISH_FAILED: "The published script could not be written.";
    TARGET_EXISTS: "A file already exists where the script would be written (`--overwrite` replaces it).";
    REPAIR_COMMIT_FAILED: "A completed repair could not commit its healed script.";
    REPAIR_SESSION_EXPIRED: "The repair session was reaped before it committed.";
    DAEMON_BUSY: "The session daemon is serving as many requests as it takes; retry.";
    INVALID_REQUEST: "The session daemon could not read the request.";
    // agent-device's daemon codes `ad` acts on.
    DEVICE_IN_USE: "agent-device: the device is held by another session.";
    TOOL_MISSING: "agent-device: a tool the platform needs is not installed (a set-up error).";
    UNAUTHORIZED: "agent-device: the daemon refused the request's token.";
}

/// The entry of `id`, if it is one of these codes.
pub fn get(id: &str) -> Option<&'static ErrorCode> {
    TABLE.iter().find(|c| c.id == id)
}
