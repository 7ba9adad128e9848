//! A published handoff cannot end on a wait for an unlabelled display (issue 31, item 8): the
//! refusal says which guard would be accepted (a labelled or id-bearing landmark), why (ADR 0016's
//! identity-level guard, ADR 0017), and which elements of the screen at that moment would do, as
//! the `ad session wait` commands that record them; one of them then publishes. The calculator is
//! runtime/tests/fixtures/failure-refs/calc.json (its display has no label).

mod common;

use std::path::Path;

use common::{assert_publishable, isolated_ad, output_text};
use serde_json::Value;

fn session(dir: &Path, words: &[&str]) -> Value {
    let o = isolated_ad(dir)
        .arg("session")
        .arg("--json")
        .args(words)
        .output()
        .unwrap();
    serde_json::from_slice(&o.stdout)
        .unwrap_or_else(|e| panic!("{words:?} ({e}): {}", output_text(&o)))
}

#[test]
fn a_guard_on_an_unlabelled_display_is_refused_naming_the_landmarks_that_qualify() {
    let dir = common::session_scratch("guard-display");
    let model = ad_tests::repo_dir().join("runtime/tests/fixtures/failure-refs/calc.json");
    let v = session(
        &dir,
        &[
            "open",
            "org.example.calc",
            "--app",
            model.to_str().unwrap(),
            "--save-script=calc.ad",
        ],
    );
    assert_eq!(v["lifecycle"], "armed", "{v:#}");
    assert_eq!(session(&dir, &["click", "label=\"7\""])["ok"], true);
    // The display: no id, no label (only its role); the wait passes but records no identity.
    let v = session(&dir, &["wait", "role=\"statictext\""]);
    assert_eq!(v["ok"], true, "{v:#}");
    let v = session(&dir, &["save-script"]);
    assert_eq!(v["ok"], false, "{v:#}");
    assert_eq!(v["code"], "AD703");
    let m = v["message"].as_str().unwrap();
    // Why the display's wait does not count ...
    assert!(m.contains("AD704: line 5: this wait is not a destination guard: it has no target-v1 annotation to verify the landmark's identity (the recorder writes none for an element with neither id nor label, such as an unlabelled display"), "{m}");
    // ... which guard would (said once for both findings), and why ...
    assert!(
        m.contains(
            "record a selector wait on a labelled or id-bearing landmark of the destination screen"
        ),
        "{m}"
    );
    assert!(
        m.contains("an unlabelled element (a display known only by its role)"),
        "{m}"
    );
    assert!(m.contains("(ADR 0016, ADR 0017)"), "{m}");
    assert_eq!(
        m.matches("labelled or id-bearing landmark").count(),
        1,
        "{m}"
    );
    // ... and the elements of this screen that would.
    let offer = "; landmarks on the screen now that would qualify: `ad session wait 'role=\"menu\" label=\"Calculator\"'`, ";
    assert!(m.contains(offer), "{m}");
    assert_eq!(v["lifecycle"], "armed");
    // Recording one of them publishes.
    let v = session(&dir, &["wait", "role=\"menu\" label=\"Calculator\""]);
    assert_eq!(v["ok"], true, "{v:#}");
    let v = session(&dir, &["save-script"]);
    assert_eq!(v["ok"], true, "{v:#}");
    assert_publishable(&dir, &dir.join("calc.ad"));
    let v = session(&dir, &["close"]);
    assert_eq!(v["ok"], true, "{v:#}");
}
