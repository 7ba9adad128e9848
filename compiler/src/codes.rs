//! Stable codes of the diagnostics the compiler reports (the grammar's are in
//! `ad_grammar::codes`). A code is forever; each has an entry in docs/diagnostics.md.

// Commands
pub const UNKNOWN_COMMAND: &str = "AD101";
pub const RETIRED_COMMAND: &str = "AD102";
pub const CLI_ALIAS: &str = "AD103";
pub const CLIENT_ONLY_COMMAND: &str = "AD104";
pub const REPLAY_SKIPPED: &str = "AD105";
pub const INTERNAL_REQUEST: &str = "AD106";
pub const NO_SCRIPT_INPUT: &str = "AD107";
// Arguments and flags
pub const ARITY: &str = "AD110";
pub const REMOVED_FLAG: &str = "AD111";
pub const INVALID_FLAG_VALUE: &str = "AD112";
pub const FLAG_AS_POSITIONAL: &str = "AD113";
pub const DROPPED_ARGUMENT: &str = "AD114";
pub const IGNORED_TOKEN: &str = "AD115";
pub const WHITESPACE_COLLAPSE: &str = "AD116";
pub const WRONG_TYPE: &str = "AD117";
pub const OUT_OF_RANGE: &str = "AD118";
pub const MISSING_ARGUMENT: &str = "AD119";
pub const REF_LABEL_CONSUMED: &str = "AD120";
pub const TRAILING_HASH: &str = "AD121";
pub const EXTRA_ARGUMENT: &str = "AD122";
pub const FLAG_IN_ARGUMENT: &str = "AD123";
pub const CLI_ONLY_FORM: &str = "AD124";
pub const CONFLICTING_FLAGS: &str = "AD125";
pub const PLACEHOLDER_POINT: &str = "AD126";
// Selectors
pub const INVALID_SELECTOR: &str = "AD201";
pub const SINGLE_QUOTED_SELECTOR: &str = "AD202";
pub const NOT_A_TARGET: &str = "AD203";
// Variables
pub const UNDEFINED_VARIABLE: &str = "AD301";
pub const UNDEFINABLE_VARIABLE: &str = "AD302";
/// Reported by the run gate (`ad run`, `ad test`), never by `ad check`: it depends on the run's
/// `-e` and `AD_VAR_*` values.
pub const VARIABLE_WITHOUT_VALUE: &str = "AD303";
// Annotations
pub const ANNOTATION_MISPLACED: &str = "AD401";

// Script rules: profiles and the handoff artifact contract (ADR 0016)
pub const HANDOFF_OPEN: &str = "AD701";
pub const HANDOFF_CLOSE: &str = "AD702";
pub const MISSING_DESTINATION_GUARD: &str = "AD703";
pub const GUARD_NOT_QUALIFIED: &str = "AD704";
pub const HANDOFF_SESSION_REF: &str = "AD705";
pub const HANDOFF_MUTATING_FIND: &str = "AD706";
pub const HANDOFF_MISSING_EVIDENCE: &str = "AD707";
// Ref-frame lifetime (ADR 0014)
pub const REF_WITHOUT_SNAPSHOT: &str = "AD710";
pub const REF_FRAME_EXPIRED: &str = "AD711";
pub const STALE_REF_READ: &str = "AD712";
pub const SCOPED_REF: &str = "AD713";
pub const PIN_KEPT: &str = "AD714";
// Parameterized inputs and secrets (ADR 0017)
pub const RECORD_AS_IN_SCRIPT: &str = "AD720";
pub const SECRET_IN_CLEAR: &str = "AD721";
pub const EXPANDED_ON_RERECORD: &str = "AD722";
pub const PLACEHOLDER_IN_EVIDENCE: &str = "AD723";
// Script hygiene
pub const UNUSED_ENV: &str = "AD730";
pub const ENV_VALUE_PLACEHOLDER: &str = "AD731";
pub const STEP_AFTER_CLOSE: &str = "AD732";
pub const WAIT_TIMEOUT_RANGE: &str = "AD733";
pub const DUPLICATE_STEP: &str = "AD734";
pub const ARTIFACT_PATH_ESCAPES: &str = "AD735";

/// Codes only the run gate reports (`ad run`, `ad test`, before the first step), never `ad check`:
/// they depend on the run's values.
pub const RUN_GATE: &[&str] = &[VARIABLE_WITHOUT_VALUE];

/// Every compiler code with a one-line title.
pub const ALL: &[(&str, &str)] = &[
    (UNKNOWN_COMMAND, "unknown command"),
    (RETIRED_COMMAND, "retired command"),
    (CLI_ALIAS, "CLI alias that scripts do not apply"),
    (
        CLIENT_ONLY_COMMAND,
        "client-only command with no daemon route",
    ),
    (REPLAY_SKIPPED, "`replay` line is skipped at run time"),
    (
        INTERNAL_REQUEST,
        "internal daemon request, not a script command",
    ),
    (
        NO_SCRIPT_INPUT,
        "command whose input a script line cannot carry",
    ),
    (ARITY, "too many arguments for swipe/gesture"),
    (REMOVED_FLAG, "removed flag"),
    (INVALID_FLAG_VALUE, "invalid flag value"),
    (
        FLAG_AS_POSITIONAL,
        "flag the .ad reader does not read for this command",
    ),
    (DROPPED_ARGUMENT, "argument the reader drops"),
    (IGNORED_TOKEN, "token the reader ignores"),
    (WHITESPACE_COLLAPSE, "whitespace collapsed in a bare token"),
    (WRONG_TYPE, "argument of the wrong type"),
    (OUT_OF_RANGE, "value out of range"),
    (MISSING_ARGUMENT, "missing argument"),
    (REF_LABEL_CONSUMED, "token read as an @ref label"),
    (TRAILING_HASH, "`#` inside an action line is not a comment"),
    (EXTRA_ARGUMENT, "extra argument the daemon refuses"),
    (
        FLAG_IN_ARGUMENT,
        "CLI flag that lands in an argument the daemon checks",
    ),
    (
        CLI_ONLY_FORM,
        "form only the agent-device command line accepts",
    ),
    (CONFLICTING_FLAGS, "flags the daemon refuses together"),
    (
        PLACEHOLDER_POINT,
        "two placeholders where a point was meant",
    ),
    (INVALID_SELECTOR, "invalid selector"),
    (SINGLE_QUOTED_SELECTOR, "single-quoted selector"),
    (NOT_A_TARGET, "not a @ref, selector or point"),
    (UNDEFINED_VARIABLE, "variable not defined in the script"),
    (
        UNDEFINABLE_VARIABLE,
        "variable name that can never be defined",
    ),
    (
        VARIABLE_WITHOUT_VALUE,
        "variable with no value for this run",
    ),
    (
        ANNOTATION_MISPLACED,
        "annotation on a step that does not use it",
    ),
    (
        HANDOFF_OPEN,
        "handoff script must start with its only `open`",
    ),
    (HANDOFF_CLOSE, "handoff script contains `close`"),
    (
        MISSING_DESTINATION_GUARD,
        "no destination guard after the last mutating step",
    ),
    (
        GUARD_NOT_QUALIFIED,
        "wait does not qualify as a destination guard",
    ),
    (
        HANDOFF_SESSION_REF,
        "session-local @ref in a handoff script",
    ),
    (HANDOFF_MUTATING_FIND, "mutating `find` in a handoff script"),
    (
        HANDOFF_MISSING_EVIDENCE,
        "element-targeting step without target evidence in a handoff script",
    ),
    (REF_WITHOUT_SNAPSHOT, "@ref with no snapshot issuing it"),
    (REF_FRAME_EXPIRED, "@ref used after its frame expired"),
    (STALE_REF_READ, "read-only use of a stale @ref"),
    (SCOPED_REF, "@ref under a scoped snapshot"),
    (
        PIN_KEPT,
        "@ref pin kept by the reader never matches a new session",
    ),
    (RECORD_AS_IN_SCRIPT, "`--record-as` in a script"),
    (SECRET_IN_CLEAR, "secure-field fill with a literal value"),
    (
        EXPANDED_ON_RERECORD,
        "placeholder that a re-recording will expand",
    ),
    (
        PLACEHOLDER_IN_EVIDENCE,
        "placeholder in verified target evidence",
    ),
    (UNUSED_ENV, "unused env directive"),
    (
        ENV_VALUE_PLACEHOLDER,
        "`${…}` in an env value is never expanded",
    ),
    (STEP_AFTER_CLOSE, "step after `close` without a new `open`"),
    (WAIT_TIMEOUT_RANGE, "wait timeout outside the useful range"),
    (
        ARTIFACT_PATH_ESCAPES,
        "artifact path outside the run's artifacts folder",
    ),
    (DUPLICATE_STEP, "identical consecutive steps"),
];
