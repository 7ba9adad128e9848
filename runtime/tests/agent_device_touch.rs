//! The bridge's touch points against agent-device 0.21.5's own: 200 random layouts (a target,
//! its descendants of assorted kinds, sometimes inside a scroll view or off screen) with the
//! point agent-device's functions computed for each, or their refusal (off-screen, or no
//! parent-owned point, naming the same descendants). Regenerate the cases with
//! `node scripts/touch-oracle.mjs > runtime/tests/fixtures/touch-points/cases.json`.

use ad_runtime::backends::agent_device::{nodes, touch};
use ad_runtime::core::tree::Snapshot;
use serde_json::{json, Value};

#[test]
fn touch_points_and_refusals_match_agent_devices_on_random_layouts() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/touch-points/cases.json"
    );
    let fixture: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    assert_eq!(fixture["agentDevice"], "0.21.5");
    let cases = fixture["cases"].as_array().unwrap();
    assert_eq!(cases.len(), 200);
    let mut differ = Vec::new();
    let mut kinds = [0usize; 3];
    for (k, c) in cases.iter().enumerate() {
        let data = json!({"nodes": c["nodes"]});
        let capture = nodes::capture(&data);
        let snap = Snapshot::flatten(&capture.roots, capture.viewport);
        let label_of = |i: usize| snap.nodes[i].label.clone().unwrap_or_default();
        let target = snap
            .nodes
            .iter()
            .position(|n| n.label.as_deref() == c["target"].as_str())
            .unwrap();
        let ours = touch::touch_point(&snap, target, &nodes::extras(&data), "@e2", "click", "ios");
        let expect = &c["expect"];
        let same = match (&ours, expect.get("point")) {
            (Ok(p), Some(q)) => {
                kinds[0] += 1;
                json!({"x": p.x, "y": p.y}) == json!({"x": q["x"].as_f64(), "y": q["y"].as_f64()})
            }
            (Err(r), None) if expect["refused"] == "offscreen" => {
                kinds[1] += 1;
                r.reason == "offscreen_ref"
            }
            (Err(r), None) => {
                kinds[2] += 1;
                let mut theirs: Vec<String> = expect["competitors"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|v| v.as_str().unwrap().to_string())
                    .collect();
                let mut mine: Vec<String> = r.competitors.iter().map(|&i| label_of(i)).collect();
                theirs.sort();
                mine.sort();
                expect["refused"] == "blocked"
                    && r.reason == "covered_by_interactive_descendants"
                    && mine == theirs
            }
            _ => false,
        };
        if !same {
            differ.push(format!("case {k}: ad {ours:?}, agent-device {expect}"));
        }
    }
    assert!(differ.is_empty(), "{}", differ.join("\n"));
    // The cases exercise all three outcomes.
    assert!(kinds.iter().all(|&n| n >= 10), "{kinds:?}");
}
