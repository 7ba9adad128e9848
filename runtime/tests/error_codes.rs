//! The runtime's error codes are one table: docs/run.md's "Error codes" section lists exactly
//! its codes with their meanings, in its order, and no source outside the table spells a code as
//! a string literal.

use std::path::Path;

use ad_runtime::core::records::error_codes::{self, TABLE};

fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap()
}

#[test]
fn the_docs_table_is_the_code_table() {
    let doc = std::fs::read_to_string(repo().join("docs/run.md")).unwrap();
    let section = doc
        .split("\n## Error codes\n")
        .nth(1)
        .expect("docs/run.md has an `## Error codes` section")
        .split("\n## ")
        .next()
        .unwrap();
    let rows: Vec<(String, String)> = section
        .lines()
        .filter_map(|l| l.strip_prefix("| `"))
        .map(|l| {
            let (code, rest) = l.split_once("` | ").expect("| `CODE` | meaning |");
            (code.to_string(), rest.trim_end_matches(" |").to_string())
        })
        .collect();
    let table: Vec<(String, String)> = TABLE
        .iter()
        .map(|c| (c.id.to_string(), c.meaning.to_string()))
        .collect();
    assert_eq!(rows, table, "regenerate the docs table from error_codes.rs");
}

#[test]
fn every_code_is_declared_once_and_looked_up_by_its_id() {
    for (i, c) in TABLE.iter().enumerate() {
        assert!(
            TABLE[i + 1..].iter().all(|o| o.id != c.id),
            "{} twice",
            c.id
        );
        assert_eq!(error_codes::get(c.id), Some(c));
    }
    assert_eq!(error_codes::get("NOT_A_CODE"), None);
}

fn rust_files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|x| x == "rs") {
            out.push(path);
        }
    }
}

#[test]
fn no_source_spells_a_code_outside_the_table() {
    let mut files = Vec::new();
    for dir in ["runtime/src", "maestro/src/run"] {
        rust_files(&repo().join(dir), &mut files);
    }
    let mut spelled = Vec::new();
    for file in &files {
        if file.ends_with("error_codes.rs") {
            continue;
        }
        let text = std::fs::read_to_string(file).unwrap();
        // Unit tests may compare with the literal a record holds.
        let code = text.split("#[cfg(test)]").next().unwrap();
        for (n, line) in code.lines().enumerate() {
            if line.trim_start().starts_with("//") {
                continue;
            }
            for c in TABLE {
                if line.contains(&format!("\"{}\"", c.id)) {
                    spelled.push(format!("{}:{}: {}", file.display(), n + 1, c.id));
                }
            }
        }
    }
    assert!(
        spelled.is_empty(),
        "use the error_codes constants:\n{}",
        spelled.join("\n")
    );
}
