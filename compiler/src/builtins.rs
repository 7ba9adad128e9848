//! Built-in `AD_*` variables the runtime provides (spec §6). User sources may never define them.

/// (name, where the value comes from).
pub const BUILTIN_VARIABLES: &[(&str, &str)] = &[
    ("AD_SESSION", "the session name (always set)"),
    (
        "AD_FILENAME",
        "the script path relative to the working directory",
    ),
    ("AD_PLATFORM", "`--platform`, else the context platform"),
    ("AD_TARGET", "`--target`, else the context target"),
    ("AD_DEVICE", "`--device`"),
    ("AD_DEVICE_ID", "`--serial` or `--udid`"),
    (
        "AD_SHARD_INDEX",
        "zero-based shard index under `test --shard`",
    ),
    ("AD_SHARD_COUNT", "shard count under `test --shard`"),
    ("AD_ARTIFACTS", "the `test` attempt's artifacts folder"),
];

/// Prefix of shell variables imported as script variables (`AD_VAR_PASSWORD` → `PASSWORD`).
pub const SHELL_IMPORT_PREFIX: &str = "AD_VAR_";

pub fn is_builtin(name: &str) -> bool {
    BUILTIN_VARIABLES.iter().any(|(n, _)| *n == name)
}
