//! Files generated from the `ad` binary and checked in, held to what it prints now so they cannot
//! drift: the shell completions (`completions/`), the man pages (`docs/man/`) and the example
//! outputs in docs/ci.md (`ad check --format github|sarif` on cli/tests/fixtures/ci).
//!
//! `UPDATE_GENERATED=1 cargo test -p ad-cli --test generated` rewrites them; review the diff.

mod common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use clap::ValueEnum;
use clap_complete::{Generator, Shell};
use common::*;

fn updating() -> bool {
    std::env::var_os("UPDATE_GENERATED").is_some_and(|v| v == "1")
}

/// Every regular file directly in `dir`, by name.
fn files_in(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return BTreeMap::new();
    };
    entries
        .map(|e| e.expect("the folder lists"))
        .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
        .map(|e| {
            let bytes = std::fs::read(e.path()).expect("a generated file reads");
            (e.file_name().to_string_lossy().into_owned(), bytes)
        })
        .collect()
}

/// Compares a checked-in folder with what was just generated (or, when updating, makes the
/// folder exactly that), naming every stale, missing or extra file.
fn hold_folder(checked_in: &Path, generated: &BTreeMap<String, Vec<u8>>) {
    let relative = checked_in
        .strip_prefix(repo_root())
        .unwrap_or(checked_in)
        .display()
        .to_string();
    let current = files_in(checked_in);
    if updating() {
        std::fs::create_dir_all(checked_in).expect("the folder can be created");
        for name in current.keys().filter(|n| !generated.contains_key(*n)) {
            std::fs::remove_file(checked_in.join(name)).expect("a stale file can be removed");
        }
        for (name, bytes) in generated {
            if current.get(name) != Some(bytes) {
                std::fs::write(checked_in.join(name), bytes).expect("a generated file writes");
            }
        }
        return;
    }
    let mut problems = Vec::new();
    for (name, bytes) in generated {
        match current.get(name) {
            None => problems.push(format!("{relative}/{name} is missing")),
            Some(old) if old != bytes => problems.push(format!("{relative}/{name} is out of date")),
            Some(_) => {}
        }
    }
    for name in current.keys().filter(|n| !generated.contains_key(*n)) {
        problems.push(format!("{relative}/{name} is no longer generated"));
    }
    assert!(
        problems.is_empty(),
        "{}\nthe checked-in files no longer match the clap definitions: run \
         `UPDATE_GENERATED=1 cargo test -p ad-cli --test generated`, review and commit the diff",
        problems.join("\n")
    );
}

#[test]
fn shell_completions_are_current() {
    let mut generated = BTreeMap::new();
    for shell in Shell::value_variants() {
        let name = shell
            .to_possible_value()
            .expect("every shell has a name")
            .get_name()
            .to_string();
        let out = run_in(&repo_root(), &["completions", &name], None);
        assert_eq!(
            exit_code(&out),
            0,
            "ad completions {name}: {}",
            stderr(&out)
        );
        assert!(
            stdout(&out).contains("check") && stdout(&out).contains("deny-warnings"),
            "the {name} completions know the commands and their flags"
        );
        generated.insert(shell.file_name("ad"), out.stdout);
    }
    hold_folder(&repo_root().join("completions"), &generated);
}

/// What bash offers after `words` (the last one is being completed) with the checked-in script.
fn bash_completes(words: &[&str]) -> Vec<String> {
    let quoted: Vec<String> = words.iter().map(|w| format!("'{w}'")).collect();
    let script = format!(
        "source completions/ad.bash\nCOMP_WORDS=({words})\nCOMP_CWORD={cword}\n_ad ad {current} {previous}\nprintf '%s\\n' \"${{COMPREPLY[@]}}\"\n",
        words = quoted.join(" "),
        cword = words.len() - 1,
        current = quoted[words.len() - 1],
        previous = quoted[words.len() - 2],
    );
    let out = std::process::Command::new("bash")
        .args(["--noprofile", "--norc", "-c", &script])
        .current_dir(repo_root())
        .output()
        .expect("bash runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(str::to_string)
        .collect()
}

#[test]
fn bash_completes_commands_flags_and_values() {
    assert_eq!(bash_completes(&["ad", "ch"]), ["check"]);
    assert_eq!(bash_completes(&["ad", "ini"]), ["init"]);
    assert_eq!(bash_completes(&["ad", "check", "--form"]), ["--format"]);
    assert_eq!(
        bash_completes(&["ad", "check", "--format", ""]),
        ["human", "json", "sarif", "github"]
    );
}

#[test]
fn man_pages_are_current() {
    let out_dir = scratch_dir("man");
    let out = run_in(
        &repo_root(),
        &["man", "--out", out_dir.to_str().expect("a UTF-8 path")],
        None,
    );
    assert_eq!(exit_code(&out), 0, "ad man: {}", stderr(&out));
    let generated = files_in(&out_dir);
    // One page per command.
    for page in [
        "ad.1",
        "ad-check.1",
        "ad-init.1",
        "ad-completions.1",
        "ad-run.1",
    ] {
        assert!(
            generated.contains_key(page),
            "{page} is generated: {:?}",
            generated.keys()
        );
    }
    assert!(
        !generated.contains_key("ad-man.1"),
        "the hidden command has no page"
    );
    let check = String::from_utf8_lossy(&generated["ad-check.1"]);
    assert!(
        check.contains("deny\\-warnings"),
        "ad-check.1 lists the flags"
    );
    hold_folder(&repo_root().join("docs/man"), &generated);
    let _ = std::fs::remove_dir_all(&out_dir);
}

// ---- docs/ci.md ---------------------------------------------------------------------------------

const BEGIN: &str = "<!-- generated by cli/tests/generated.rs: ";
const END: &str = "<!-- end of generated output -->";

/// The folder the documented commands run in.
fn ci_fixtures() -> PathBuf {
    repo_root().join("cli/tests/fixtures/ci")
}

/// The output of `ad ARGS` in cli/tests/fixtures/ci as docs/ci.md shows it: a fenced block. A
/// SARIF log keeps only the rules its results use (the full list holds one per code).
fn documented_output(command: &str) -> String {
    let args: Vec<&str> = command
        .strip_prefix("ad ")
        .unwrap_or_else(|| panic!("a documented command starts with `ad `: {command}"))
        .split_whitespace()
        .collect();
    let out = run_in(&ci_fixtures(), &args, None);
    assert!(
        exit_code(&out) <= 1,
        "`{command}` runs (exit {}): {}",
        exit_code(&out),
        stderr(&out)
    );
    let text = stdout(&out);
    if args.windows(2).any(|w| w == ["--format", "sarif"]) {
        let mut log: serde_json::Value = serde_json::from_str(&text).expect("SARIF is JSON");
        let run = &mut log["runs"][0];
        let used: Vec<serde_json::Value> = run["results"]
            .as_array()
            .expect("results")
            .iter()
            .map(|r| r["ruleId"].clone())
            .collect();
        let rules = run["tool"]["driver"]["rules"]
            .as_array_mut()
            .expect("the driver lists its rules");
        assert!(rules.len() > used.len(), "every code is listed");
        rules.retain(|rule| used.contains(&rule["id"]));
        let pretty = serde_json::to_string_pretty(&log).expect("JSON prints");
        format!("```json\n{pretty}\n```\n")
    } else {
        format!("```text\n{text}```\n")
    }
}

#[test]
fn ci_docs_show_the_current_output() {
    let path = repo_root().join("docs/ci.md");
    let doc = std::fs::read_to_string(&path).expect("docs/ci.md exists");
    let mut rewritten = String::new();
    let mut rest = doc.as_str();
    let mut blocks = 0;
    while let Some(at) = rest.find(BEGIN) {
        let marker_end = at + rest[at..].find("-->\n").expect("the marker closes") + 4;
        let command = rest[at + BEGIN.len()..marker_end - 4].trim();
        let end = marker_end
            + rest[marker_end..]
                .find(END)
                .unwrap_or_else(|| panic!("`{command}` has its end marker"));
        let now = documented_output(command);
        if !updating() {
            assert_eq!(
                &rest[marker_end..end],
                now,
                "docs/ci.md shows stale output of `{command}`: run \
                 `UPDATE_GENERATED=1 cargo test -p ad-cli --test generated`"
            );
        }
        rewritten.push_str(&rest[..marker_end]);
        rewritten.push_str(&now);
        rest = &rest[end..];
        blocks += 1;
    }
    rewritten.push_str(rest);
    assert!(blocks >= 2, "docs/ci.md shows the github and sarif formats");
    if updating() && rewritten != doc {
        std::fs::write(&path, rewritten).expect("docs/ci.md writes");
    }
}
