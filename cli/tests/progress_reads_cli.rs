//! What a passing run says of its reads and its final `close` (issue 31, item 8): the progress
//! line shows what `get text` read, redacted as the journal has it (an injected value never
//! appears), and the run's `run.json` lists no attempt awaiting an observation after the final
//! `close`, which leaves nothing to observe.

mod common;

use std::path::{Path, PathBuf};

use common::{isolated_ad, output_text};
use serde_json::Value;

const SECRET: &str = "s3cret-Name-42";

fn scratch(name: &str) -> PathBuf {
    common::session_scratch(&format!("progress-{name}"))
}

/// A form whose field has no label, so `get text` reads its value, and a titled heading.
fn write_app(dir: &Path) {
    let model = serde_json::json!({
        "app": "com.example.reads",
        "start": "main",
        "screens": { "main": { "elements": [
            { "type": "heading", "id": "title", "label": "Your profile" },
            { "type": "textfield", "id": "name" }
        ] } }
    });
    std::fs::write(dir.join("reads.json"), model.to_string()).unwrap();
    std::fs::write(
        dir.join("reads.ad"),
        "open \"com.example.reads\"\n\
         get text \"id=\\\"title\\\"\"\n\
         fill \"id=\\\"name\\\"\" \"${NAME}\"\n\
         get text \"id=\\\"name\\\"\"\n\
         close\n",
    )
    .unwrap();
}

/// The one run folder under `art`.
fn run_dir(art: &Path) -> PathBuf {
    let runs: Vec<PathBuf> = std::fs::read_dir(art)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.join("run.json").exists())
        .collect();
    assert_eq!(runs.len(), 1, "{runs:?}");
    runs[0].clone()
}

#[test]
fn the_progress_line_shows_what_get_text_read_redacted() {
    let dir = scratch("reads");
    write_app(&dir);
    let o = isolated_ad(&dir)
        .args(["run", "reads.ad", "--app", "reads.json", "-e"])
        .arg(format!("NAME={SECRET}"))
        .args(["--artifacts-dir", "art"])
        .output()
        .unwrap();
    let text = output_text(&o);
    assert_eq!(o.status.code(), Some(0), "{text}");
    let stderr = String::from_utf8_lossy(&o.stderr);
    let line = |n: usize| {
        stderr
            .lines()
            .find(|l| l.contains(&format!(" {n}/5 ")))
            .unwrap_or_else(|| panic!("no progress line for step {n}: {stderr}"))
            .to_string()
    };
    // A read of the app's own text shows it ...
    let title = line(2);
    assert!(title.starts_with("  ok   2/5"), "{title}");
    assert!(title.ends_with(") → read \"Your profile\""), "{title}");
    // ... and a read of an injected value shows its placeholder, as the journal has it.
    let name = line(4);
    assert!(name.ends_with(") → read \"<var:NAME>\""), "{name}");
    // Steps that read nothing say nothing more.
    assert!(line(3).ends_with(" ms)"), "{}", line(3));
    // The value appears nowhere the run wrote: not on its streams, not in its files.
    assert!(!text.contains(SECRET), "{text}");
    let run = run_dir(&dir.join("art"));
    let journal = std::fs::read_to_string(run.join("events.jsonl")).unwrap();
    assert!(!journal.contains(SECRET));
    assert!(
        journal.contains("\"text\":\"<var:NAME>\""),
        "the journal's read is the progress line's: {journal}"
    );
}

#[test]
fn a_passing_run_s_final_close_awaits_no_observation() {
    let dir = scratch("close");
    write_app(&dir);
    let o = isolated_ad(&dir)
        .args(["run", "reads.ad", "--app", "reads.json", "-e", "NAME=x"])
        .args(["--artifacts-dir", "art"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", output_text(&o));
    let run = run_dir(&dir.join("art"));
    let summary: Value =
        serde_json::from_str(&std::fs::read_to_string(run.join("run.json")).unwrap()).unwrap();
    assert_eq!(summary["exit_code"], 0, "{summary:#}");
    assert_eq!(
        summary["awaiting_observation_after_attempt"],
        Value::Null,
        "{summary:#}"
    );
    // The close was attempted and accepted: its result is its outcome.
    let journal = std::fs::read_to_string(run.join("events.jsonl")).unwrap();
    let rows: Vec<Value> = journal
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let close = rows
        .iter()
        .find(|r| r["event"] == "action_attempt" && r["command"] == "close")
        .expect("the close was attempted");
    let id = close["attempt_id"].clone();
    assert!(rows.iter().any(|r| r["event"] == "action_result"
        && r["attempt_id"] == id
        && r["result"] == "accepted"));
    let end = rows.iter().find(|r| r["event"] == "run_end").unwrap();
    assert_eq!(end["awaiting_observation_after_attempt"], Value::Null);
}
