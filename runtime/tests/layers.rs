//! The runtime's layers, as ARCHITECTURE.md states them: the core (`src/core/`) knows no backend
//! and no session; the backends (`src/backends/`) know the core and not the session layer; the run
//! records (`src/core/records/`) import only the value types they describe. An import that runs
//! back up fails here with the file and line.

use std::path::{Path, PathBuf};

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|x| x == "rs") {
            out.push(path);
        }
    }
}

/// Every `crate::…` path written in code (comments left out) under `layer`, with its place.
fn crate_paths(layer: &str) -> Vec<(String, String)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&root.join(layer), &mut files);
    assert!(!files.is_empty(), "no sources under src/{layer}");
    let mut out = Vec::new();
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap();
        for (n, line) in text.lines().enumerate() {
            if line.trim_start().starts_with("//") {
                continue;
            }
            let mut rest = line;
            while let Some(at) = rest.find("crate::") {
                let path: String = rest[at..]
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_' || *c == ':')
                    .collect();
                let place = format!("{}:{}", file.strip_prefix(&root).unwrap().display(), n + 1);
                out.push((place, path));
                rest = &rest[at + "crate::".len()..];
            }
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
