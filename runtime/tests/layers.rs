//! The runtime's layers, as ARCHITECTURE.md states them: the core (`src/core/`) knows no backend
//! and no session; the backends (`src/backends/`) know the core and not the session layer; the run
//! records (`src/core/records/`) import only the value types they describe. An import that runs
//! back up fails here with the file and line.

mod common;

/// Every `crate::…` path written in code (comments left out) under `layer`, with its place.
fn crate_paths(layer: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for (place, line) in common::code_lines(layer) {
        let mut rest = line.as_str();
        while let Some(at) = rest.find("crate::") {
            let path: String = rest[at..]
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_' || *c == ':')
                .collect();
            out.push((place.clone(), path));
            rest = &rest[at + "crate::".len()..];
        }
    }
    out
}

/// `allowed` says which paths `layer` may use; the crate root's constants every layer may.
fn violations(layer: &str, allowed: impl Fn(&str) -> bool) -> Vec<String> {
    crate_paths(layer)
        .into_iter()
        .filter(|(_, path)| path != "crate::AGENT_DEVICE_VERSION" && !allowed(path))
        .map(|(place, path)| format!("{place}: {path}"))
        .collect()
}

#[test]
fn the_core_imports_no_backend_and_no_session() {
    let bad = violations("core", |p| p.starts_with("crate::core::"));
    assert!(
        bad.is_empty(),
        "the core imports above itself:\n{}",
        bad.join("\n")
    );
}

#[test]
fn the_backends_import_the_core_and_each_other_but_not_the_session_layer() {
    let bad = violations("backends", |p| {
        p.starts_with("crate::core::") || p.starts_with("crate::backends::")
    });
    assert!(
        bad.is_empty(),
        "a backend imports the session layer:\n{}",
        bad.join("\n")
    );
}

#[test]
fn the_records_import_only_the_value_types_they_describe() {
    let bad = violations("core/records", |p| {
        [
            "crate::core::records::",
            "crate::core::tree::",
            "crate::core::backend::",
        ]
        .iter()
        .any(|ok| p.starts_with(ok))
    });
    assert!(
        bad.is_empty(),
        "a record imports above itself:\n{}",
        bad.join("\n")
    );
}

#[test]
fn the_check_sees_an_upward_import() {
    // The scanner must see what it guards against: the session layer does import the core and
    // the backends, so a rule that forbade them there would fail.
    let session = crate_paths("session");
    assert!(session
        .iter()
        .any(|(_, p)| p.starts_with("crate::backends::")));
    assert!(session.iter().any(|(_, p)| p.starts_with("crate::core::")));
}
