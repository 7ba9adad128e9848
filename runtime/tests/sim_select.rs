//! A select (`combobox` / `listbox` with `option` children) in a sim app model: `fill` chooses
//! the option its text names, a tap on an option chooses it, and the select's `on.change` runs,
//! as on the web backend (`runtime/tests/web_select.rs` runs the same steps on
//! `tests/web/select.html`), so a script is portable.

mod common;

use ad_runtime::backends::sim::model::AppModel;
use common::{run_with, Opts};
use serde_json::json;

fn options(labels: &[(&str, &str)]) -> serde_json::Value {
    labels
        .iter()
        .map(|(l, v)| json!({ "type": "option", "label": l, "value": v }))
        .collect()
}

/// Sets state `var` to the label the select `id` now shows.
fn remember(id: &str, var: &str, labels: &[&str]) -> serde_json::Value {
    labels
        .iter()
        .map(|l| json!({ "if": { "values": { id: l } }, "then": { "set": { var: l } } }))
        .collect()
}

fn model() -> AppModel {
    let colors = [
        ("Pick one", ""),
        ("Red", "r"),
        ("Green", "g"),
        ("Blue", "b"),
    ];
    let sizes = [("Small", "s"), ("Medium", "m"), ("Large", "l")];
    serde_json::from_value(json!({
        "app": "com.example.choose",
        "start": "main",
        "state": { "color": "none", "size": "none", "changes": "" },
        "screens": { "main": { "elements": [
            { "type": "combobox", "id": "color", "label": "Color", "value": "Pick one",
              "children": options(&colors),
              "on": { "change": remember("color", "color", &["Pick one", "Red", "Green", "Blue"]) } },
            { "type": "listbox", "id": "size", "label": "Size",
              "children": options(&sizes),
              "on": { "change": remember("size", "size", &["Small", "Medium", "Large"]) } },
            { "type": "statictext", "id": "color-choice", "label": "Color: {{color}}" },
            { "type": "statictext", "id": "size-choice", "label": "Size: {{size}}" }
        ] } }
    }))
    .expect("the model parses")
}

fn run(script: &str) -> common::Ran {
    run_with(
        "select.ad",
        &format!("open \"com.example.choose\"\n{script}"),
        Opts {
            model: Some(model()),
            ..Opts::default()
        },
    )
}

#[test]
fn fill_and_click_choose_options_as_on_the_web() {
    let ran = run("fill \"role=combobox label=\\\"Color\\\"\" \"Green\"\n\
         is text \"id=\\\"color-choice\\\"\" \"Color: Green\"\n\
         is selected \"role=option label=\\\"Green\\\"\"\n\
         fill \"id=\\\"color\\\"\" \"b\"\n\
         is text \"id=\\\"color-choice\\\"\" \"Color: Blue\"\n\
         fill \"role=listbox label=\\\"Size\\\"\" \"Large\"\n\
         is text \"id=\\\"size-choice\\\"\" \"Size: Large\"\n\
         click \"role=option label=\\\"Medium\\\"\"\n\
         is text \"id=\\\"size-choice\\\"\" \"Size: Medium\"\n\
         is selected \"role=option label=\\\"Medium\\\"\"\n");
    assert!(ran.result.error.is_none(), "{:#?}", ran.result.error);
}

#[test]
fn a_fill_no_option_matches_fails_listing_the_options() {
    let ran = run("fill \"id=\\\"color\\\"\" \"Purple\"\n");
    let e = ran.result.error.as_ref().expect("the fill fails");
    let text = format!("{e:?}");
    assert!(
        text.contains(r#"its options: \"Pick one\", \"Red\", \"Green\", \"Blue\""#),
        "{text}"
    );
}
