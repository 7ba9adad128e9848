//! Conformance: every script of every data set against agent-device 0.21.5's parse of it,
//! checked in beside it as `expected/<stem>.json`. Must match exactly: `ok`, metadata or
//! metadataError, parse or parseError (messages and details included), planDigest.
//!
//! * `tests/conformance/` (scripts written for each reader rule) and `tests/fixtures/check/` (the
//!   `ad check` fixtures) are the repository's own; `bash oracle/regenerate.sh` writes their
//!   expected outputs, and [`expected_outputs_are_what_the_oracle_prints`] keeps them current.
//! * `shared/corpus/` (64 public scripts) runs too when the optional shared/ folder is there.
//!
//! Comparing with the checked-in outputs needs no node; the freshness check runs the oracle.

use ad_tests::{
    check_fixtures, compare_exact, conformance, corpus, data_sets, normalize, ours_catching,
    own_data_sets, run_oracle, DataSet,
};

/// Problems of one data set: every script's parse against its expected output.
fn check(set: &DataSet) -> (usize, Vec<String>) {
    let scripts = set.scripts();
    let mut problems = set.layout_problems();
    for file in &scripts {
        let name = file.file_name().unwrap_or_default().to_string_lossy();
        let expected = match set.expected(file) {
            Ok(v) => v,
            Err(e) => {
                problems.push(format!("{name}: {e}"));
                continue;
            }
        };
        let ours = match ours_catching(&ad_tests::read_script(file)) {
            Ok(v) => v,
            Err(e) => {
                problems.push(format!("{name}: {e}"));
                continue;
            }
        };
        if let Err(diff) = compare_exact(&ours, &expected) {
            let diff = diff
                .lines()
                .map(|l| format!("    {l}"))
                .collect::<Vec<_>>()
                .join("\n");
            problems.push(format!("{name}:\n{diff}"));
        }
    }
    (scripts.len(), problems)
}

fn assert_conforms(set: &DataSet) {
    let (count, problems) = check(set);
    println!(
        "conformance: {} {} scripts, {} problem(s)",
        count,
        set.name,
        problems.len()
    );
    assert!(
        problems.is_empty(),
        "{} problem(s) in {} ({}):\n{}",
        problems.len(),
        set.name,
        set.dir.display(),
        problems.join("\n")
    );
}

#[test]
fn conformance_scripts_match_agent_device_0_21_5() {
    assert_conforms(&conformance());
}

#[test]
fn check_fixtures_match_agent_device_0_21_5() {
    assert_conforms(&check_fixtures());
}

#[test]
fn corpus_matches_agent_device_0_21_5() {
    if let Some(set) = corpus() {
        assert_conforms(&set);
    }
}

/// Every reader rule the repository's scripts must keep exercising, as what agent-device says
/// about them: a rejection message fragment, or a field of the accepted parse.
const REJECTIONS: &[&str] = &[
    "Duplicate replay test metadata",
    "Conflicting replay test metadata",
    "env directives must precede all actions",
    "Invalid env directive",
    "Invalid env key",
    "reserved",
    "Duplicate env directive",
    "Invalid quoted env value",
    "(line 3 is blank)",
    "is a comment)",
    "is another target annotation)",
    "is an env directive)",
    "did not parse as an action)",
    "(end of script reached)",
    "targets-v1 annotation on line",
    "annotation is not valid JSON",
    "annotation must be a JSON object",
    "exceeds the 4096-byte payload cap",
    "exceeds the 8-entry cap",
    "exceeds the 256-byte field cap",
    "\"role\" is required",
    "must be a non-negative integer",
    "must be \"verified\" or \"unverifiable\"",
    "requires source and destination evidence",
    "Invalid quoted value",
    "Invalid replay script line",
    "swipe accepts 4 arguments",
    "The trailing durationMs positional was removed",
    "The trailing velocity positional was removed",
    "gesture drag accepts at most 5 arguments",
    "record --max-size was removed",
    "screenshot --scale",
    "screenshot --pixel-density",
    "JSON replay payloads are no longer supported",
];
const ACCEPTED_FIELDS: &[&str] = &[
    "metadata.platform",
    "metadata.target",
    "metadata.timeoutMs",
    "metadata.retries",
    "metadata.env",
    "action.targetEvidence",
    "action.targetEvidences",
    "action.result",
    "action.runtime",
    "flags.count",
    "flags.intervalMs",
    "flags.holdMs",
    "flags.jitterPx",
    "flags.doubleTap",
    "flags.clickButton",
    "flags.pauseMs",
    "flags.pattern",
    "flags.pointerCount",
    "flags.delayMs",
    "flags.fps",
    "flags.quality",
    "flags.hideTouches",
    "flags.relaunch",
    "flags.testIme",
    "flags.platform",
    "flags.snapshotInteractiveOnly",
    "flags.snapshotRaw",
    "flags.snapshotForceFull",
    "flags.snapshotDepth",
    "flags.snapshotScope",
    "flags.screenshotFullscreen",
    "flags.screenshotNoStabilize",
    "flags.screenshotNormalizeStatusBar",
    "flags.screenshotPixelDensity",
    "flags.screenshotScale",
    "flags.screenshotCropOn",
];

/// The repository's own scripts (what a fresh clone tests) keep covering every rule above.
#[test]
fn own_data_sets_cover_every_reader_rule() {
    let mut messages = Vec::new();
    let mut fields = std::collections::BTreeSet::new();
    for set in own_data_sets() {
        for file in set.scripts() {
            let Ok(v) = set.expected(&file) else { continue };
            for key in ["daemonPreflightError", "metadataError", "parseError"] {
                if let Some(m) = v[key]["message"].as_str() {
                    messages.push(m.to_string());
                }
            }
            if let Some(meta) = v["metadata"].as_object() {
                fields.extend(meta.keys().map(|k| format!("metadata.{k}")));
            }
            for action in v["parse"]["actions"].as_array().into_iter().flatten() {
                if let Some(action) = action.as_object() {
                    fields.extend(action.keys().map(|k| format!("action.{k}")));
                    if let Some(flags) = action.get("flags").and_then(|f| f.as_object()) {
                        fields.extend(flags.keys().map(|k| format!("flags.{k}")));
                    }
                }
            }
        }
    }
    let mut missing: Vec<String> = REJECTIONS
        .iter()
        .filter(|r| !messages.iter().any(|m| m.contains(*r)))
        .map(|r| format!("no script is rejected with {r:?}"))
        .collect();
    missing.extend(
        ACCEPTED_FIELDS
            .iter()
            .filter(|f| !fields.contains(**f))
            .map(|f| format!("no accepted script has {f}")),
    );
    assert!(
        missing.is_empty(),
        "the repository's data sets no longer cover:\n{}",
        missing.join("\n")
    );
}

/// The checked-in outputs of the repository's data sets are what agent-device 0.21.5 prints
/// today (so a changed script without `bash oracle/regenerate.sh` fails here), and the oracle
/// still reproduces the public corpus's outputs when that is present.
#[test]
fn expected_outputs_are_what_the_oracle_prints() {
    let sets = data_sets();
    let mut problems = Vec::new();
    let mut total = 0;
    for set in &sets {
        let scripts = set.scripts();
        total += scripts.len();
        let oracle = run_oracle(&scripts, 2);
        for (file, now) in scripts.iter().zip(oracle) {
            let name = file.file_name().unwrap_or_default().to_string_lossy();
            match set.expected(file) {
                Ok(checked_in) if normalize(checked_in.clone()) == normalize(now.clone()) => {}
                Ok(_) => problems.push(format!(
                    "{}/{name}: the oracle's output differs from expected/ (bash oracle/regenerate.sh)",
                    set.name
                )),
                Err(e) => problems.push(format!("{}/{name}: {e}", set.name)),
            }
        }
    }
    println!(
        "oracle freshness: {total} scripts in {} data sets, {} stale",
        sets.len(),
        problems.len()
    );
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// `ad parse` writes one script's report from the steps (`ReportRef`, no JSON tree): its bytes
/// must be those of the tree [`ad_compiler::agent_device::report`] builds, on every script of
/// every data set and on a recorded flow.
#[test]
fn streamed_report_is_the_tree_report_byte_for_byte() {
    let mut texts: Vec<(String, String)> = data_sets().iter().flat_map(|s| s.texts()).collect();
    texts.push((
        "recorded flow".into(),
        ad_tests::bench_input::recorded_flow(256 * 1024),
    ));
    let options = ad_compiler::digest::DigestOptions {
        platform: Some("ios".into()),
        target: None,
    };
    for (name, text) in &texts {
        let analysis = ad_compiler::read(text);
        for digest in [None, Some(&options)] {
            let mut tree = ad_compiler::agent_device::report(&analysis, digest);
            tree.as_object_mut()
                .expect("an object")
                .insert("file".into(), name.clone().into());
            let streamed = ad_compiler::agent_device::ReportRef {
                analysis: &analysis,
                digest,
                file: Some(name),
            };
            assert_eq!(
                serde_json::to_string_pretty(&streamed).unwrap(),
                serde_json::to_string_pretty(&tree).unwrap(),
                "{name}"
            );
        }
    }
}
