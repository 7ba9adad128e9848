//! Stable codes of the diagnostics the grammar reports. A code is forever: never reuse one for a
//! different meaning. Every code has an entry in docs/diagnostics.md.

/// The file is a JSON replay payload.
pub const JSON_PAYLOAD: &str = "AD001";
/// NUL bytes: binary content.
pub const BINARY_CONTENT: &str = "AD002";
/// Maestro YAML saved under an `.ad` name.
pub const MAESTRO_YAML: &str = "AD003";
/// A lone `\r` inside a line.
pub const LONE_CR: &str = "AD004";
/// Bytes that are not UTF-8 (agent-device reads them as U+FFFD).
pub const NOT_UTF8: &str = "AD005";
/// A file over the size limit (agent-device's is 2 MiB).
pub const FILE_TOO_LARGE: &str = "AD006";
/// A quoted token without its closing quote.
pub const UNTERMINATED_QUOTE: &str = "AD010";
/// A quoted token that is not a JSON string literal.
pub const INVALID_QUOTED: &str = "AD011";
/// A malformed `target-v1`/`targets-v1` payload.
pub const ANNOTATION_INVALID: &str = "AD020";
/// An annotation not immediately followed by its action line.
pub const ANNOTATION_UNBOUND: &str = "AD021";
/// An annotation version 0.21.5 does not read.
pub const FUTURE_ANNOTATION: &str = "AD022";
/// An `env` directive after the first action.
pub const ENV_AFTER_ACTION: &str = "AD030";
/// `env` without `KEY=VALUE`.
pub const ENV_MALFORMED: &str = "AD031";
/// An env key that is not `[A-Z_][A-Z0-9_]*`.
pub const ENV_KEY_INVALID: &str = "AD032";
/// An env key in the reserved `AD_` namespace.
pub const ENV_KEY_RESERVED: &str = "AD033";
/// A quoted env value that is not one JSON string literal.
pub const ENV_VALUE_INVALID: &str = "AD034";
/// The same env key twice.
pub const ENV_DUPLICATE: &str = "AD035";
/// The same context key twice in the header.
pub const CONTEXT_DUPLICATE: &str = "AD040";
/// A `context` line the metadata reader never reads.
pub const CONTEXT_IGNORED: &str = "AD041";
/// A context key or value the metadata reader ignores.
pub const CONTEXT_VALUE_IGNORED: &str = "AD042";

/// Every grammar code with a one-line title (docs and `ad explain`).
pub const ALL: &[(&str, &str)] = &[
    (JSON_PAYLOAD, "JSON replay payload instead of an .ad script"),
    (BINARY_CONTENT, "binary content (NUL bytes)"),
    (MAESTRO_YAML, "Maestro YAML saved as .ad"),
    (LONE_CR, "lone carriage return inside a line"),
    (NOT_UTF8, "file is not valid UTF-8"),
    (FILE_TOO_LARGE, "file over the size limit"),
    (UNTERMINATED_QUOTE, "unterminated quoted token"),
    (INVALID_QUOTED, "quoted token is not a JSON string"),
    (ANNOTATION_INVALID, "malformed target annotation"),
    (ANNOTATION_UNBOUND, "annotation not followed by its action"),
    (FUTURE_ANNOTATION, "annotation version not read by 0.21.5"),
    (ENV_AFTER_ACTION, "env directive after the first action"),
    (ENV_MALFORMED, "env directive without KEY=VALUE"),
    (ENV_KEY_INVALID, "invalid env key"),
    (ENV_KEY_RESERVED, "env key in the reserved AD_ namespace"),
    (ENV_VALUE_INVALID, "invalid quoted env value"),
    (ENV_DUPLICATE, "duplicate env directive"),
    (CONTEXT_DUPLICATE, "duplicate or conflicting context key"),
    (CONTEXT_IGNORED, "context line that is never read"),
    (
        CONTEXT_VALUE_IGNORED,
        "context key or value that is ignored",
    ),
];
