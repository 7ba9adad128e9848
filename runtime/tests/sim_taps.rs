//! How many taps a `click` makes on the sim: `--count N` taps N times and `--double-tap` doubles
//! each of them, as on the web backend (`cli/tests/commands_cli.rs` double-clicks there).

mod common;

use ad_runtime::backends::sim::model::AppModel;
use common::{run_with, Opts};
use serde_json::json;

/// A button whose tap adds one to the count its label shows (up to 8): the conditions run
/// highest first, so one tap moves the count by exactly one.
fn model() -> AppModel {
    let increment: Vec<_> = (0..8)
        .rev()
        .map(|n| {
            json!({ "if": { "state": { "taps": n.to_string() } },
                    "then": { "set": { "taps": (n + 1).to_string() } } })
        })
        .collect();
    serde_json::from_value(json!({
        "app": "com.example.taps",
        "start": "main",
        "state": { "taps": "0" },
        "screens": { "main": { "elements": [
            { "type": "button", "id": "tapper", "label": "Tap me", "on": { "tap": increment } },
            { "type": "statictext", "id": "count", "label": "Taps: {{taps}}" }
        ] } }
    }))
    .expect("the model parses")
}

fn taps_after(click: &str) -> Result<(), String> {
    let ran = run_with(
        "taps.ad",
        &format!("open \"com.example.taps\"\n{click}\n"),
        Opts {
            model: Some(model()),
            ..Opts::default()
        },
    );
    match ran.result.error {
        None => Ok(()),
        Some(e) => Err(format!("{e:?}")),
    }
}

#[test]
fn count_and_double_tap_multiply() {
    for (flags, taps) in [
        ("", 1),
        ("--count 3", 3),
        ("--double-tap", 2),
        ("--double-tap --count 2", 4),
    ] {
        let script = format!(
            "click \"id=\\\"tapper\\\"\" {flags}\nis text \"id=\\\"count\\\"\" \"Taps: {taps}\""
        );
        taps_after(&script).unwrap_or_else(|e| panic!("click {flags}: expected {taps} taps: {e}"));
    }
}
