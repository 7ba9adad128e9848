//! `ad session <command>` reads its command line as `ad check` reads a script line (issue 31,
//! item 5): a line `ad check` reports an error on is refused at once with the same diagnostics
//! (code, message, label, help), exit 2, whether or not a session is live, and nothing reaches
//! the device: `ad session wait text 42` (the text missing, 42 the timeout) no longer waits.

mod common;

use std::path::{Path, PathBuf};

use common::{isolated_ad, output_text};
use serde_json::Value;

fn scratch(name: &str) -> PathBuf {
    common::session_scratch(&format!("readers-{name}"))
}

fn repo() -> PathBuf {
    ad_tests::repo_dir()
}

/// `ad session --json WORDS…` in `dir`: its exit code and answer.
fn session_json(dir: &Path, words: &[&str]) -> (i32, Value) {
    let o = isolated_ad(dir)
        .arg("session")
        .arg("--json")
        .args(words)
        .output()
        .unwrap();
    let v: Value = serde_json::from_slice(&o.stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}", output_text(&o)));
    (o.status.code().unwrap_or(-1), v)
}

/// (code, message, label, help) of each error: the session's findings ...
fn findings(v: &Value) -> Vec<(String, String, String, String)> {
    let s = |f: &Value, k: &str| f[k].as_str().unwrap_or("").to_string();
    v["findings"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|f| (s(f, "code"), s(f, "message"), s(f, "label"), s(f, "help")))
        .collect()
}

/// ... and `ad check`'s on a script holding the line (a flow: the line, then `close`).
fn check_errors(dir: &Path, line: &str) -> Vec<(String, String, String, String)> {
    let script = dir.join("line.ad");
    std::fs::write(&script, format!("{line}\nclose\n")).unwrap();
    let o = isolated_ad(dir)
        .args(["check", "--format", "json", "--profile", "flow"])
        .arg(&script)
        .output()
        .unwrap();
    let all: Vec<Value> = serde_json::from_slice(&o.stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}", output_text(&o)));
    let s = |f: &Value, k: &str| f[k].as_str().unwrap_or("").to_string();
    all.iter()
        .filter(|d| d["severity"] == "error" && d["line"] == 1)
        .map(|d| {
            let label = d["labels"]
                .as_array()
                .and_then(|l| l.iter().find(|l| l["primary"] == true))
                .map(|l| s(l, "message"))
                .unwrap_or_default();
            (s(d, "code"), s(d, "message"), label, s(d, "help"))
        })
        .collect()
}

/// Malformed commands, as typed after `ad session`: each is an error `ad check` reports.
const MALFORMED: &[&[&str]] = &[
    &["wait", "text", "42"],
    &["wait", "text"],
    &["click", "label=\"x"],
    &["frob", "1"],
    &["scroll", "sideways"],
    &["fill"],
    &["swipe", "1", "2", "3"],
    &["is", "shiny", "label=\"x\""],
];

#[test]
fn a_malformed_wait_is_refused_at_once_with_check_s_diagnostic_and_exit_2() {
    let dir = scratch("wait");
    // No session yet: the line is read before the session is looked for.
    let o = isolated_ad(&dir)
        .args(["session", "wait", "text", "42"])
        .output()
        .unwrap();
    let text = output_text(&o);
    assert_eq!(o.status.code(), Some(2), "{text}");
    assert!(
        text.contains("[AD119] Error: `wait` is missing an argument"),
        "{text}"
    );
    assert!(text.contains("expected the text to wait for"), "{text}");
    assert!(
        text.contains("Help: agent-device answers: wait requires text"),
        "{text}"
    );
    assert!(
        text.contains("error[AD119]: the step was not sent"),
        "{text}"
    );
    assert!(!text.contains("NO_SESSION"), "{text}");
    // Nothing was made: no session, no session journal.
    let (code, list) = session_json(&dir, &["list"]);
    assert_eq!(code, 0);
    assert_eq!(list["sessions"], serde_json::json!([]), "{list:#}");
    assert!(no_journal_mentions(&dir, "\"command\":\"wait\""));
}

/// Does no session journal under `dir` hold `needle`?
fn no_journal_mentions(dir: &Path, needle: &str) -> bool {
    let mut stack = vec![dir.join("state")];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.file_name().is_some_and(|n| n == "events.jsonl")
                && std::fs::read_to_string(&p).is_ok_and(|t| t.contains(needle))
            {
                return false;
            }
        }
    }
    true
}

#[test]
fn every_error_check_reports_on_a_line_is_the_session_s_refusal() {
    let dir = scratch("same");
    let app = repo().join("examples/apps/shop.json");
    let (code, v) = session_json(
        &dir,
        &["open", "com.example.shop", "--app", app.to_str().unwrap()],
    );
    assert_eq!(code, 0, "{v:#}");
    for words in MALFORMED {
        let (code, v) = session_json(&dir, words);
        assert_eq!(code, 2, "{words:?}: {v:#}");
        assert_eq!(v["ok"], false);
        // The session is untouched by a refused line.
        assert_eq!(v["sessionActive"], true, "{words:?}: {v:#}");
        let line = v["line"].as_str().expect("the line the readers read");
        let got = findings(&v);
        assert!(!got.is_empty(), "{words:?}: {v:#}");
        assert_eq!(got, check_errors(&dir, line), "{words:?}: {line}");
        assert_eq!(v["code"], got[0].0.as_str());
    }
    // Nothing of them reached the device: the session's journal has no attempt for any.
    for command in ["wait", "click", "scroll", "fill", "swipe", "is"] {
        let needle = format!("\"command\":\"{command}\"");
        assert!(
            no_journal_mentions(&dir, &needle),
            "{command} reached the device"
        );
    }
    // A well-formed command still runs.
    let (code, v) = session_json(&dir, &["wait", "100"]);
    assert_eq!(code, 0, "{v:#}");
    let (code, _) = session_json(&dir, &["close"]);
    assert_eq!(code, 0);
}
