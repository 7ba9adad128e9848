//! The failure screen lists what is shown and near the target's recorded place first, hidden
//! elements last, and says how many it left out (issue 31, item 6). On a desktop calculator the
//! menus' hidden items come before the keypad in document order; a selector miss on a renamed
//! key used to list 20 of them and none of the keypad that held the right key.

mod common;

use ad_runtime::backends::sim::model::AppModel;
use ad_runtime::core::divergence::{issued_refs, screen_order, SCREEN_REFS};
use ad_runtime::core::tree::{Node, Rect, Snapshot};
use common::{run_with, Opts};
use serde_json::{json, Value};

fn fixture(name: &str) -> String {
    let path = ad_tests::repo_dir()
        .join("runtime/tests/fixtures/failure-refs")
        .join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn calc() -> AppModel {
    serde_json::from_str(&fixture("calc.json")).expect("the model parses")
}

const KEYS: [&str; 12] = ["7", "8", "9", "×", "4", "5", "6", "−", "1", "2", "3", "+"];
const HIDDEN: [&str; 2] = ["Basic mode", "Paper mode"];

fn labels(refs: &Value) -> Vec<String> {
    refs.as_array()
        .expect("refs")
        .iter()
        .map(|r| r["label"].as_str().unwrap_or("").to_string())
        .collect()
}

#[test]
fn a_selector_miss_lists_the_keypad_nearest_the_recorded_key_and_hidden_items_last() {
    let ran = run_with(
        "renamed-key.ad",
        &fixture("renamed-key.ad"),
        Opts {
            model: Some(calc()),
            ..Opts::default()
        },
    );
    let d = ran.divergence();
    assert_eq!(d["kind"], "selector-miss", "{d:#}");
    let screen = &d["screen"];
    let listed = labels(&screen["refs"]);
    assert_eq!(listed.len(), SCREEN_REFS, "{screen:#}");
    // The renamed key at the recorded place, then its neighbours by distance: the key below
    // (44 pt), the one below that (88), the one to the left (100), diagonally (109, 134) …
    assert_eq!(listed[..6], ["×", "−", "+", "9", "6", "3"], "{listed:?}");
    // The whole keypad before anything else (it shares the recorded key's rows and panel) ...
    let mut keypad = listed[..12].to_vec();
    keypad.sort();
    let mut keys = KEYS.map(String::from).to_vec();
    keys.sort();
    assert_eq!(keypad, keys);
    // ... then what else is shown (the four menus, the window, the display), nearest first:
    // the Help menu sits right above the recorded key, the Calculator menu farthest ...
    assert_eq!(listed[12], "Help", "{listed:?}");
    assert_eq!(listed[17], "Calculator", "{listed:?}");
    // ... and the hidden menu items last, in document order.
    assert_eq!(listed[18..], HIDDEN, "{listed:?}");
    // How many were left out: every actionable element (labelled or hittable) is counted once.
    assert_eq!(screen["truncated"], true);
    let omitted = screen["omitted"].as_u64().expect("omitted");
    // 21 hidden menu items, 4 menus, the window, the display and 12 keys: 39, 20 listed.
    assert_eq!(omitted, 39 - SCREEN_REFS as u64, "{screen:#}");
}

#[test]
fn at_the_digest_level_the_cut_refs_are_counted_as_left_out() {
    let ran = run_with(
        "renamed-key.ad",
        &fixture("renamed-key.ad"),
        Opts {
            model: Some(calc()),
            ..Opts::default()
        },
    );
    let full: ad_runtime::core::records::DivergenceReport =
        serde_json::from_value(ran.divergence()).expect("a report");
    let digest = ad_runtime::core::divergence::cap(&full, "digest", &mut |_| None);
    let v = serde_json::to_value(&digest).unwrap();
    let listed = labels(&v["screen"]["refs"]);
    assert_eq!(listed, ["×", "−", "+", "9", "6", "3", "8", "5"]);
    assert_eq!(v["screen"]["omitted"], 39 - 8, "{v:#}");
}

/// A screen of two hidden items (one of no size, one below the screen) and, in a group, a link
/// far from and a button near a recorded place.
fn screen() -> Snapshot {
    let root: Vec<Node> = serde_json::from_value(json!([
        {"type": "menu", "label": "File", "rect": {"x": 0, "y": 0, "width": 80, "height": 20},
         "hittable": true, "children": [
            {"type": "menuitem", "label": "Open", "rect": {"x": 0, "y": 0, "width": 0, "height": 0}},
            {"type": "menuitem", "label": "Save", "rect": {"x": 0, "y": 900, "width": 80, "height": 20}}
        ]},
        {"type": "group", "label": "Pad", "rect": {"x": 0, "y": 280, "width": 400, "height": 60},
         "children": [
            {"type": "link", "label": "Far", "hittable": true,
             "rect": {"x": 0, "y": 300, "width": 40, "height": 20}},
            {"type": "button", "label": "Near", "hittable": true,
             "rect": {"x": 200, "y": 300, "width": 40, "height": 20}}
        ]}
    ]))
    .expect("nodes");
    Snapshot::flatten(
        &root,
        Rect {
            x: 0.0,
            y: 0.0,
            width: 400.0,
            height: 400.0,
        },
    )
}

fn order(s: &Snapshot, e: Option<&ad_grammar::annotation::TargetEvidence>) -> Vec<String> {
    screen_order(s, e)
        .iter()
        .map(|n| n.label.clone().unwrap_or_default())
        .collect()
}

#[test]
fn without_evidence_shown_elements_come_first_in_document_order() {
    let s = screen();
    // "Open" has no size, "Save" lies below the screen: both hidden, so last.
    assert_eq!(
        order(&s, None),
        ["File", "Pad", "Far", "Near", "Open", "Save"]
    );
}

#[test]
fn with_evidence_the_recorded_container_then_the_recorded_place_come_first() {
    let s = screen();
    let e = ad_grammar::annotation::parse_target(
        r#"{"role":"button","label":"Gone","ancestry":[{"role":"group","label":"Pad"}],"sibling":1,"viewportOrder":0,"rect":{"x":190,"y":300,"width":40,"height":20},"verification":"verified"}"#,
    )
    .expect("evidence");
    // Inside the recorded container, nearest the recorded rect first; then the rest shown,
    // nearest first; the hidden ones last (one with a place nearest first).
    assert_eq!(
        order(&s, Some(&e)),
        ["Near", "Far", "Pad", "File", "Save", "Open"]
    );
}

#[test]
fn the_issued_frame_is_the_listed_refs() {
    let s = screen();
    let e = ad_grammar::annotation::parse_target(
        r#"{"role":"button","label":"Gone","ancestry":[{"role":"group","label":"Pad"}],"sibling":1,"viewportOrder":0,"verification":"verified"}"#,
    )
    .expect("evidence");
    let listed: std::collections::BTreeSet<String> = screen_order(&s, Some(&e))
        .iter()
        .map(|n| n.reference.clone())
        .collect();
    assert_eq!(issued_refs(&s, Some(&e)), listed);
    assert_eq!(issued_refs(&s, None).len(), listed.len());
}
