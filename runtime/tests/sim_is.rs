//! `is` reads as agent-device 0.21.5's does: `exists` takes any match, `absent` needs none, and
//! every other predicate reads exactly one element, failing closed ("Selector did not match:
//! SEL", `selector_not_found`) when the selector matches several or none, with no tiebreak. A
//! form that names a field like the label beside it is the case agent-device's replay refuses
//! (docs/agent-device.md); naming the role singles the field out.

mod common;

use ad_runtime::backends::sim::model::AppModel;
use common::{run_with, Opts};
use serde_json::json;

fn model() -> AppModel {
    serde_json::from_value(json!({
        "app": "com.example.form",
        "start": "main",
        "screens": { "main": { "elements": [
            { "type": "statictext", "id": "server-label", "label": "Server" },
            { "type": "textfield", "id": "server", "label": "Server" }
        ] } }
    }))
    .expect("the model parses")
}

/// The failure of `line` after `open`, as (reason, message); `None` when it passes.
fn outcome(line: &str) -> Option<(String, String)> {
    let ran = run_with(
        "is.ad",
        &format!("open \"com.example.form\"\n{line}\n"),
        Opts {
            model: Some(model()),
            ..Opts::default()
        },
    );
    ran.result.error.map(|e| {
        let v = serde_json::to_value(&e).expect("the error serializes");
        (
            v["details"]["reason"]
                .as_str()
                .unwrap_or_default()
                .to_string(),
            v["message"].as_str().unwrap_or_default().to_string(),
        )
    })
}

#[test]
fn predicates_other_than_exists_read_one_element_and_fail_closed() {
    assert_eq!(outcome("is exists \"label=Server\""), None);
    for line in [
        "is visible \"label=Server\"",
        "is hidden \"label=Server\"",
        "is text \"label=Server\" \"Server\"",
        "is hidden \"label=Nowhere\"",
    ] {
        let (reason, message) = outcome(line).unwrap_or_else(|| panic!("{line} passed"));
        assert_eq!(reason, "selector_not_found", "{line}: {message}");
        assert!(
            message.contains("Selector did not match: label="),
            "{line}: {message}"
        );
    }
    assert_eq!(outcome("is visible \"role=textfield label=Server\""), None);
    assert_eq!(outcome("is absent \"label=Nowhere\""), None);
}
