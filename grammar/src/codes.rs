//! The one table of diagnostic codes: every code the grammar (AD0xx) and the compiler
//! (AD1xx–AD7xx) report is declared here once, with its title, default severity, whether
//! agent-device rejects it, whether it has a fix, its editor tags and its docs entry. Rules build
//! diagnostics from a code (`Diagnostic::new`), so severities are never picked at call sites.
//! A code is forever: never reuse one for a different meaning; a rule that needs a second
//! severity needs a second code.

use crate::diagnostic::Severity;

/// Whether agent-device 0.21.5 itself rejects a script for this code (a parity error).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rejected {
    Always,
    Never,
    /// Only some findings are rejections; the diagnostic's `rejection` says which.
    Sometimes,
}

/// `ad check --fix` can correct at least some findings.
pub const FIX: u8 = 1;
/// The flagged text does nothing (editors fade it).
pub const UNNECESSARY: u8 = 2;
/// The flagged word was removed from agent-device (editors strike it through).
pub const DEPRECATED: u8 = 4;
/// Reported only by the run gate (`ad run`, `ad test`), never by `ad check`: it depends on the
/// run's `-e` and `AD_VAR_*` values.
pub const RUN_GATE: u8 = 8;
/// Reported by the composition checker (`ad_compiler::compose`), which reads a parent and the
/// fragments it includes: never by the analysis of one file alone. Fixtures are folders under
/// `tests/fixtures/compose/`.
pub const COMPOSITION: u8 = 16;
/// Reported by the Maestro flow checker (`ad_maestro`, `ad check --maestro`) on YAML flows, never
/// on `.ad` scripts. Fixtures are `tests/fixtures/maestro/ADxxx-<slug>.yaml`; docs examples are
/// ```yaml blocks.
pub const MAESTRO: u8 = 32;

/// About the file as a whole (what it is, its bytes, its size), not about one of its lines: kept
/// when the file is not a script at all, and ordered before the other findings at its position.
pub const FILE_LEVEL: u8 = 64;

/// The file documenting every code, one `### ADxxx — title` entry each.
pub const DOCS: &str = "docs/diagnostics.md";

/// A diagnostic code: one entry of the table below, so a code is never a free string. Codes
/// order as their ids do (the table is in code order); serialized and displayed, a code is its
/// id (`AD101`).
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Code(u16);

/// What the table says of one code.
struct Entry {
    id: &'static str,
    title: &'static str,
    severity: Severity,
    rejected: Rejected,
    flags: u8,
}

impl Code {
    /// The code whose id is `id`, e.g. `AD101`; `None` for any other text (user input: `ad
    /// explain`, `ad.toml` rule levels, an editor's diagnostic).
    pub fn from_id(id: &str) -> Option<Code> {
        TABLE
            .binary_search_by(|c| c.id().cmp(id))
            .ok()
            .map(|i| TABLE[i])
    }
    fn entry(self) -> &'static Entry {
        &ENTRIES[self.0 as usize]
    }
    /// The stable id, e.g. `AD101`.
    pub fn id(self) -> &'static str {
        self.entry().id
    }
    pub fn title(self) -> &'static str {
        self.entry().title
    }
    /// The default severity (`ad.toml` may change it).
    pub fn severity(self) -> Severity {
        self.entry().severity
    }
    pub fn rejected(self) -> Rejected {
        self.entry().rejected
    }
    fn flag(self, flag: u8) -> bool {
        self.entry().flags & flag != 0
    }
    pub fn has_fix(self) -> bool {
        self.flag(FIX)
    }
    pub fn unnecessary(self) -> bool {
        self.flag(UNNECESSARY)
    }
    pub fn deprecated(self) -> bool {
        self.flag(DEPRECATED)
    }
    pub fn run_gate(self) -> bool {
        self.flag(RUN_GATE)
    }
    pub fn composition(self) -> bool {
        self.flag(COMPOSITION)
    }
    pub fn maestro(self) -> bool {
        self.flag(MAESTRO)
    }
    pub fn file_level(self) -> bool {
        self.flag(FILE_LEVEL)
    }
    /// The entry's anchor in [`DOCS`], e.g. `ad101`.
    pub fn anchor(self) -> String {
        self.id().to_ascii_lowercase()
    }
}

/// As its id string, so debug output reads as it did when codes were strings.
impl std::fmt::Debug for Code {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Debug::fmt(self.id(), f)
    }
}

impl std::fmt::Display for Code {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.id())
    }
}

impl serde::Serialize for Code {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.id())
    }
}

macro_rules! codes {
    ($($(#[$doc:meta])* $name:ident = $id:literal, $sev:ident, $rej:ident, [$($flag:ident),*], $title:literal;)*) => {
        /// Each code's position in the table.
        #[allow(non_camel_case_types, clippy::upper_case_acronyms)]
        #[repr(u16)]
        enum Index { $($name),* }
        $($(#[$doc])* pub const $name: Code = Code(Index::$name as u16);)*
        /// Every code, in code order.
        pub const TABLE: &[Code] = &[$($name),*];
        const ENTRIES: &[Entry] = &[$(Entry {
            id: $id,
            title: $title,
            severity: Severity::$sev,
            rejected: Rejected::$rej,
            flags: 0 $(| $flag)*,
        }),*];
    };
}

codes! {
    /// The file is a JSON replay payload.
    JSON_PAYLOAD = "AD001", Error, Always, [FILE_LEVEL], "JSON replay payload instead of an .ad script";
    /// NUL bytes: binary content.
    BINARY_CONTENT = "AD002", Warning, Never, [FILE_LEVEL], "binary content (NUL bytes)";
    /// Maestro YAML saved under an `.ad` name.
    MAESTRO_YAML = "AD003", Warning, Never, [FILE_LEVEL], "Maestro YAML saved as .ad";
    /// A lone `\r` inside a line.
    LONE_CR = "AD004", Warning, Never, [FIX, FILE_LEVEL], "lone carriage return inside a line";
    /// Bytes that are not UTF-8 (agent-device reads them as U+FFFD).
    NOT_UTF8 = "AD005", Warning, Never, [FILE_LEVEL], "file is not valid UTF-8";
    /// A file over the size limit (agent-device's own is 2 MiB: then it is a parity error).
    FILE_TOO_LARGE = "AD006", Error, Sometimes, [FILE_LEVEL], "file over the size limit";
    /// Most lines hold NUL or control bytes: a binary file, not a text script.
    BINARY_FILE = "AD007", Error, Never, [FILE_LEVEL], "binary file, not a text script";
    /// A quoted token without its closing quote.
    UNTERMINATED_QUOTE = "AD010", Error, Always, [], "unterminated quoted token";
    /// A quoted token that is not a JSON string literal.
    INVALID_QUOTED = "AD011", Error, Always, [], "quoted token is not a JSON string";
    /// A malformed `target-v1`/`targets-v1` payload.
    ANNOTATION_INVALID = "AD020", Error, Always, [], "malformed target annotation";
    /// An annotation not immediately followed by its action line.
    ANNOTATION_UNBOUND = "AD021", Error, Always, [], "annotation not followed by its action";
    /// An annotation version 0.21.5 does not read.
    FUTURE_ANNOTATION = "AD022", Info, Never, [], "annotation version not read by 0.21.5";
    /// An `env` directive after the first action.
    ENV_AFTER_ACTION = "AD030", Error, Always, [], "env directive after the first action";
    /// `env` without `KEY=VALUE`.
    ENV_MALFORMED = "AD031", Error, Always, [], "env directive without KEY=VALUE";
    /// An env key that is not `[A-Z_][A-Z0-9_]*`.
    ENV_KEY_INVALID = "AD032", Error, Always, [FIX], "invalid env key";
    /// An env key in the reserved `AD_` namespace.
    ENV_KEY_RESERVED = "AD033", Error, Always, [], "env key in the reserved AD_ namespace";
    /// A quoted env value that is not one JSON string literal.
    ENV_VALUE_INVALID = "AD034", Error, Always, [], "invalid quoted env value";
    /// The same env key twice.
    ENV_DUPLICATE = "AD035", Error, Always, [], "duplicate env directive";
    /// The same context key twice in the header.
    CONTEXT_DUPLICATE = "AD040", Error, Always, [], "duplicate or conflicting context key";
    /// A `context` line the metadata reader never reads.
    CONTEXT_IGNORED = "AD041", Warning, Never, [], "context line that is never read";
    /// A context key or value the metadata reader ignores.
    CONTEXT_VALUE_IGNORED = "AD042", Warning, Never, [FIX], "context value that is ignored";
    /// A context key (or a word without `=`) the metadata reader never reads.
    CONTEXT_KEY_UNKNOWN = "AD043", Info, Never, [], "context key that is never read";
    /// `context platform=web`: agent-device's reader drops it, `ad` runs the script on the web
    /// backend.
    CONTEXT_PLATFORM_WEB = "AD044", Info, Never, [], "platform=web is read by ad, not by agent-device";
    // Commands
    UNKNOWN_COMMAND = "AD101", Error, Never, [FIX], "unknown command";
    RETIRED_COMMAND = "AD102", Error, Never, [DEPRECATED], "retired command";
    CLI_ALIAS = "AD103", Error, Never, [FIX], "CLI alias that scripts do not apply";
    CLIENT_ONLY_COMMAND = "AD104", Error, Never, [], "client-only command with no daemon route";
    REPLAY_SKIPPED = "AD105", Warning, Never, [UNNECESSARY], "`replay` line is skipped at run time";
    INTERNAL_REQUEST = "AD106", Error, Never, [], "internal daemon request, not a script command";
    NO_SCRIPT_INPUT = "AD107", Error, Never, [], "command whose input a script line cannot carry";
    // Arguments and flags
    ARITY = "AD110", Error, Always, [], "too many arguments for swipe/gesture";
    REMOVED_FLAG = "AD111", Error, Always, [DEPRECATED], "removed flag";
    INVALID_FLAG_VALUE = "AD112", Error, Always, [], "invalid flag value";
    FLAG_AS_POSITIONAL = "AD113", Warning, Never, [FIX], "flag the .ad reader does not read for this command";
    DROPPED_ARGUMENT = "AD114", Warning, Never, [FIX, UNNECESSARY], "argument the reader drops";
    IGNORED_TOKEN = "AD115", Warning, Never, [FIX, UNNECESSARY], "token the reader ignores";
    WHITESPACE_COLLAPSE = "AD116", Warning, Never, [FIX], "whitespace collapsed in a bare token";
    WRONG_TYPE = "AD117", Error, Never, [FIX], "argument of the wrong type";
    OUT_OF_RANGE = "AD118", Error, Never, [], "value out of range";
    MISSING_ARGUMENT = "AD119", Error, Never, [], "missing argument";
    REF_LABEL_CONSUMED = "AD120", Warning, Never, [FIX], "token read as an @ref label";
    TRAILING_HASH = "AD121", Warning, Never, [FIX], "`#` inside an action line is not a comment";
    EXTRA_ARGUMENT = "AD122", Error, Never, [], "extra argument the daemon refuses";
    FLAG_IN_ARGUMENT = "AD123", Error, Never, [FIX], "CLI flag that lands in an argument the daemon checks";
    CLI_ONLY_FORM = "AD124", Error, Never, [FIX], "form only the agent-device command line accepts";
    CONFLICTING_FLAGS = "AD125", Error, Never, [], "flags the daemon refuses together";
    PLACEHOLDER_POINT = "AD126", Warning, Never, [], "two placeholders where a point was meant";
    /// A flag value the `.ad` reader drops, or keeps with its flag as positional text.
    FLAG_VALUE_IGNORED = "AD127", Warning, Never, [], "flag value the .ad reader does not use";
    /// A `settings` name that some platforms apply but not the script's `context platform=`.
    SETTING_NOT_ON_PLATFORM = "AD128", Warning, Never, [], "setting the script's platform does not apply";
    // Selectors
    INVALID_SELECTOR = "AD201", Error, Never, [], "invalid selector";
    SINGLE_QUOTED_SELECTOR = "AD202", Error, Never, [FIX], "single-quoted selector";
    NOT_A_TARGET = "AD203", Error, Never, [FIX], "not a @ref, selector or point";
    // Variables
    UNDEFINED_VARIABLE = "AD301", Info, Never, [], "variable not defined in the script";
    UNDEFINABLE_VARIABLE = "AD302", Error, Never, [FIX], "variable name that can never be defined";
    /// Reported by the run gate (`ad run`, `ad test`), never by `ad check`: it depends on the run's
    /// `-e` and `AD_VAR_*` values.
    VARIABLE_WITHOUT_VALUE = "AD303", Error, Never, [RUN_GATE], "variable with no value for this run";
    /// An undefinable name with a `:-fallback`: the fallback is always used.
    UNDEFINABLE_WITH_FALLBACK = "AD304", Warning, Never, [FIX], "variable that can never be defined, so its fallback is always used";
    // Annotations
    ANNOTATION_MISPLACED = "AD401", Warning, Never, [], "annotation on a step that does not use it";
    // Script rules: profiles and the handoff artifact contract (ADR 0016)
    HANDOFF_OPEN = "AD701", Error, Never, [], "handoff script must start with its only `open`";
    HANDOFF_CLOSE = "AD702", Error, Never, [], "handoff script contains `close`";
    MISSING_DESTINATION_GUARD = "AD703", Error, Never, [FIX], "no destination guard after the last mutating step";
    GUARD_NOT_QUALIFIED = "AD704", Error, Never, [], "wait does not qualify as a destination guard";
    HANDOFF_SESSION_REF = "AD705", Error, Never, [], "session-local @ref in a handoff script";
    HANDOFF_MUTATING_FIND = "AD706", Error, Never, [], "mutating `find` in a handoff script";
    HANDOFF_MISSING_EVIDENCE = "AD707", Error, Never, [], "element-targeting step without target evidence in a handoff script";
    // Ref-frame lifetime (ADR 0014)
    REF_WITHOUT_SNAPSHOT = "AD710", Error, Never, [], "@ref with no snapshot issuing it";
    REF_FRAME_EXPIRED = "AD711", Error, Never, [FIX], "@ref used after its frame expired";
    STALE_REF_READ = "AD712", Warning, Never, [FIX], "read-only use of a stale @ref";
    SCOPED_REF = "AD713", Info, Never, [], "@ref under a scoped snapshot";
    PIN_KEPT = "AD714", Warning, Never, [FIX], "@ref pin kept by the reader never matches a new session";
    // Parameterized inputs and secrets (ADR 0017)
    RECORD_AS_IN_SCRIPT = "AD720", Error, Never, [FIX], "`--record-as` in a script";
    SECRET_IN_CLEAR = "AD721", Warning, Never, [FIX], "secure-field fill with a literal value";
    EXPANDED_ON_RERECORD = "AD722", Info, Never, [], "placeholder that a re-recording will expand";
    PLACEHOLDER_IN_EVIDENCE = "AD723", Error, Never, [], "placeholder in verified target evidence";
    // Script hygiene
    UNUSED_ENV = "AD730", Warning, Never, [FIX, UNNECESSARY], "unused env directive";
    ENV_VALUE_PLACEHOLDER = "AD731", Warning, Never, [], "`${…}` in an env value is never expanded";
    STEP_AFTER_CLOSE = "AD732", Warning, Never, [], "step after `close` without a new `open`";
    WAIT_TIMEOUT_RANGE = "AD733", Warning, Never, [], "wait timeout outside the useful range";
    DUPLICATE_STEP = "AD734", Info, Never, [], "identical consecutive steps";
    ARTIFACT_PATH_ESCAPES = "AD735", Warning, Never, [], "artifact path outside the run's artifacts folder";
    /// An `open` of a local file (`file:`) or a page of the browser itself (`view-source:`,
    /// `chrome:`, …): the web backend refuses it unless it is a file inside the script's folder
    /// or the run passes `--allow-local-urls`.
    LOCAL_URL = "AD736", Warning, Never, [], "open of a local-file or browser-internal URL";
    /// An included fragment file that does not exist or cannot be read.
    FRAGMENT_MISSING = "AD800", Error, Never, [COMPOSITION], "included fragment not found";
    /// An include where compositions are not supported (a plain script, a non-fragment target,
    /// `env` inside a fragment, a path escaping the project root).
    FRAGMENT_UNSUPPORTED = "AD801", Error, Never, [COMPOSITION, FIX], "include that is not supported here";
    /// Includes nested deeper, or an expansion larger, than the limits.
    FRAGMENT_BOUNDS = "AD802", Error, Never, [COMPOSITION], "composition over its depth or size limit";
    /// A fragment that includes itself through a chain of includes.
    FRAGMENT_CYCLE = "AD803", Error, Never, [COMPOSITION], "include cycle";
    /// An include without its `fragment-ref-v1` pin, or a pin without a usable `callSiteId`.
    FRAGMENT_CALL_SITE_INVALID = "AD804", Error, Never, [COMPOSITION], "include without a valid call site";
    /// A pin whose `digest` is not `sha256:` and 64 lowercase hex digits.
    FRAGMENT_CONTROL_IDENTITY_INVALID = "AD805", Error, Never, [COMPOSITION], "malformed fragment digest";
    /// A pin whose digest no longer matches the fragment's plan digest.
    FRAGMENT_STALE = "AD806", Error, Never, [COMPOSITION, FIX], "fragment changed since it was pinned";
    /// `open` or `close` inside a fragment.
    FRAGMENT_LIFECYCLE = "AD807", Error, Never, [COMPOSITION], "open or close inside a fragment";
    /// A fragment whose first step is not a verified, timed selector `wait`.
    FRAGMENT_ENTRY_GUARD = "AD808", Error, Never, [COMPOSITION], "fragment without an entry guard";
    /// A fragment whose platform or target differ from its parent's.
    FRAGMENT_CONTEXT_MISMATCH = "AD809", Error, Never, [COMPOSITION], "fragment context differs from the parent";
    /// A fragment `${VAR}` that neither the parent's `env`, a built-in nor the run supplies.
    FRAGMENT_VARIABLE_UNBOUND = "AD810", Warning, Never, [COMPOSITION], "fragment variable nobody supplies";
    /// A `composition-v1`, `fragment-v1` or `include` line of the checked file: agent-device
    /// 0.21.5 refuses each at dispatch (an unknown command); `ad build` writes the plain script.
    COMPOSITION_LINE_REFUSED = "AD811", Info, Never, [COMPOSITION], "composition line agent-device 0.21.5 refuses at dispatch";
    /// YAML agent-device's YAML library refuses (syntax, tabs, repeated keys).
    MAESTRO_YAML_INVALID = "AD901", Error, Always, [MAESTRO], "Maestro flow is not valid YAML";
    /// Not a command list with at most one config document before it.
    MAESTRO_FLOW_SHAPE = "AD902", Error, Always, [MAESTRO], "Maestro flow is not a command list";
    /// A command agent-device's Maestro engine does not have.
    MAESTRO_UNSUPPORTED_COMMAND = "AD903", Error, Always, [MAESTRO], "Maestro command not supported by agent-device";
    /// A field (or selector field) the command does not take, or one given twice.
    MAESTRO_UNSUPPORTED_FIELD = "AD904", Error, Always, [MAESTRO], "Maestro field not supported by agent-device";
    /// A value of the wrong YAML type (a map where a string is read, a number for text, …).
    MAESTRO_WRONG_TYPE = "AD905", Error, Always, [MAESTRO], "Maestro value of the wrong type";
    /// A count, index or duration that is not a number in range.
    MAESTRO_INVALID_NUMBER = "AD906", Error, Always, [MAESTRO], "Maestro number out of range";
    /// A required field missing, fields that exclude each other, or options on a bare command.
    MAESTRO_FIELDS_CONFLICT = "AD907", Error, Always, [MAESTRO], "Maestro command fields missing or in conflict";
    /// `repeat.while`.
    MAESTRO_REPEAT_WHILE = "AD908", Error, Always, [MAESTRO], "Maestro repeat.while is not supported";
    /// A `pressKey` name other than back, enter, return and home.
    MAESTRO_PRESS_KEY = "AD909", Error, Always, [MAESTRO], "Maestro pressKey name not supported";
    /// A selector with no selector value, or a point combined with a selector.
    MAESTRO_SELECTOR = "AD910", Error, Always, [MAESTRO], "malformed Maestro selector";
    /// Coordinates that are neither absolute nor whole percentages.
    MAESTRO_COORDINATES = "AD911", Error, Always, [MAESTRO], "Maestro coordinates not readable";
    /// A JavaScript expression where agent-device reads only a literal or a bare `${VAR}`.
    MAESTRO_EXPRESSION = "AD912", Error, Always, [MAESTRO], "Maestro expression where a literal is read";
    /// A direction or platform name agent-device does not know.
    MAESTRO_ENUM = "AD913", Error, Always, [MAESTRO], "Maestro direction or platform not supported";
    /// A `runFlow` file that does not exist: the run fails when it plans the flow.
    MAESTRO_RUNFLOW_MISSING = "AD920", Error, Never, [MAESTRO], "runFlow file not found";
    /// A `${VAR}` that no env, output or built-in supplies: the step fails unless the run passes it.
    MAESTRO_UNDEFINED_VARIABLE = "AD921", Warning, Never, [MAESTRO], "Maestro variable nobody supplies";
    /// A `runScript` file that does not exist: the step fails when it runs.
    MAESTRO_SCRIPT_MISSING = "AD922", Error, Never, [MAESTRO], "runScript file not found";
    /// A `${…}` that is not a variable lookup: the step fails when it runs.
    MAESTRO_INTERPOLATION = "AD923", Error, Never, [MAESTRO], "Maestro interpolation agent-device cannot resolve";
    /// A `runFlow` file agent-device refuses (itself or through its own includes): the plan fails.
    MAESTRO_INCLUDED_FLOW_REFUSED = "AD924", Error, Never, [MAESTRO], "runFlow includes a flow agent-device refuses";
    /// A `runFlow` that includes a flow already being run: the plan fails.
    MAESTRO_RUNFLOW_CYCLE = "AD925", Error, Never, [MAESTRO], "runFlow cycle";
    /// A `runFlow.when.true` expression the plan cannot evaluate: the plan fails.
    MAESTRO_WHEN_TRUE = "AD926", Error, Never, [MAESTRO], "runFlow.when.true expression agent-device cannot evaluate";
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_unique_sorted_and_well_formed() {
        for w in TABLE.windows(2) {
            assert!(w[0].id() < w[1].id(), "{} before {}", w[0], w[1]);
            // Codes order as their ids: sorting diagnostics by code is sorting by id.
            assert!(w[0] < w[1], "{} before {}", w[0], w[1]);
        }
        for c in TABLE {
            let id = c.id();
            assert!(id.len() == 5 && id.starts_with("AD"), "{id}");
            assert!(id[2..].bytes().all(|b| b.is_ascii_digit()), "{id}");
            assert!(!c.title().is_empty(), "{id}");
        }
    }

    #[test]
    fn parity_codes_are_errors() {
        for c in TABLE.iter().filter(|c| c.rejected() != Rejected::Never) {
            assert_eq!(c.severity(), Severity::Error, "{c}");
        }
    }

    #[test]
    fn an_id_names_its_code_and_other_text_none() {
        for &c in TABLE {
            assert_eq!(Code::from_id(c.id()), Some(c));
        }
        assert_eq!(Code::from_id("AD101"), Some(UNKNOWN_COMMAND));
        for not_a_code in [
            "",
            "AD",
            "AD999",
            "ad101",
            "AD101 ",
            "AD1010",
            "COMMAND_FAILED",
        ] {
            assert_eq!(Code::from_id(not_a_code), None, "{not_a_code:?}");
        }
    }

    #[test]
    fn file_level_codes_are_the_ones_about_the_whole_file() {
        let file_level: Vec<Code> = TABLE.iter().copied().filter(|c| c.file_level()).collect();
        assert_eq!(
            file_level,
            [
                JSON_PAYLOAD,
                BINARY_CONTENT,
                MAESTRO_YAML,
                LONE_CR,
                NOT_UTF8,
                FILE_TOO_LARGE,
                BINARY_FILE
            ]
        );
    }

    #[test]
    fn a_code_serializes_and_displays_as_its_id() {
        assert_eq!(
            serde_json::to_string(&UNKNOWN_COMMAND).unwrap(),
            "\"AD101\""
        );
        assert_eq!(UNKNOWN_COMMAND.to_string(), "AD101");
        assert_eq!(format!("{UNKNOWN_COMMAND:?}"), "\"AD101\"");
    }
}
