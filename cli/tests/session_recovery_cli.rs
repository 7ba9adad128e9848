//! Issue 30: an armed recording's ways out (agent-device ADR 0016), said before the author starts
//! and when publication fails. `ad session --help` warns that a second plain `open` (a reload)
//! aborts the recording for good and says what to do instead; a publication that fails names
//! both recoveries: fix the recording and retry, or a plain `open` to abort, then `close`.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

mod common;

use common::{isolated_ad as ad, output_text as text};

fn scratch(name: &str) -> PathBuf {
    common::session_scratch(&format!("recovery-{name}"))
}

fn repo() -> PathBuf {
    ad_tests::repo_dir()
}

fn session(dir: &Path, words: &[&str]) -> Value {
    let o = ad(dir)
        .arg("session")
        .args(words)
        .arg("--json")
        .output()
        .unwrap();
    serde_json::from_slice(&o.stdout)
        .unwrap_or_else(|_| panic!("{words:?}: {}", String::from_utf8_lossy(&o.stderr)))
}

fn ok(dir: &Path, words: &[&str]) -> Value {
    let v = session(dir, words);
    assert_eq!(v["ok"], true, "{words:?}: {v:#}");
    v
}

#[test]
fn session_help_warns_that_a_second_open_aborts_the_recording() {
    let o = Command::new(env!("CARGO_BIN_EXE_ad"))
        .args(["session", "--help"])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o));
    // Help wraps lines: compare with the words joined by single spaces.
    let help = text(&o).split_whitespace().collect::<Vec<_>>().join(" ");
    for words in [
        "A second plain `open` in an armed session (a reload,",
        "aborts the recording for good",
        "reach other screens through the app (press a link, `back`) instead",
        "fix what the error names",
        "abort with a plain `open` and then `close` without writing",
    ] {
        assert!(help.contains(words), "`{words}` is not in:\n{help}");
    }
}

/// A refused publication leaves the recording armed and says so: `save-script` without a
/// destination guard names the fix (record it) and retrying works; `close` with a file in the
/// way names both ways out, and the abort one ends the session without writing.
#[test]
fn a_failed_publication_names_both_recoveries() {
    let dir = scratch("publish");
    let app = repo().join("examples/apps/shop.json");
    let app = app.to_str().unwrap();
    let open = [
        "open",
        "com.example.shop",
        "--save-script=login.ad",
        "--app",
        app,
    ];
    ok(&dir, &open);
    ok(&dir, &["fill", "id=\"login.email\"", "demo@example.com"]);
    ok(
        &dir,
        &[
            "fill",
            "id=\"login.password\"",
            "hunter2",
            "--record-as",
            "PASSWORD",
        ],
    );
    ok(&dir, &["press", "label=\"Sign in\" role=\"button\""]);
    let v = session(&dir, &["save-script"]);
    assert_eq!(v["ok"], false, "{v:#}");
    let message = v["message"].as_str().unwrap();
    assert!(
        message.contains("the recording is still armed")
            && message.contains("fix it by recording what a finding asks for")
            && message.contains("run the request again"),
        "{message}"
    );
    assert!(!dir.join("login.ad").exists());
    // Fixed and retried: the guard, then the same request publishes.
    ok(&dir, &["wait", "id=\"home.title\""]);
    assert_eq!(ok(&dir, &["save-script"])["lifecycle"], "published");
    ok(&dir, &["close"]);

    // A file in the way of close-time publication.
    std::fs::write(dir.join("taken.ad"), "keep me\n").unwrap();
    let mut open = open.to_vec();
    open[2] = "--save-script=taken.ad";
    ok(&dir, &open);
    ok(&dir, &["press", "label=\"Sign in\" role=\"button\""]);
    let v = session(&dir, &["close"]);
    assert_eq!(
        (v["ok"].clone(), v["sessionActive"].clone()),
        (false.into(), true.into()),
        "{v:#}"
    );
    let message = v["message"].as_str().unwrap();
    assert!(
        message.contains("pass --force to replace it, or give another path")
            && message.contains("abort the recording with `ad session open com.example.shop`")
            && message.contains("then `ad session close`"),
        "{message}"
    );
    // The abort way: a plain open, then close, which writes nothing.
    let v = ok(&dir, &["open", "com.example.shop"]);
    assert_eq!(v["lifecycle"], "aborted", "{v:#}");
    ok(&dir, &["close"]);
    assert_eq!(
        std::fs::read_to_string(dir.join("taken.ad")).unwrap(),
        "keep me\n"
    );
}
