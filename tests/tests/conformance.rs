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
    check_fixtures, compare_exact, conformance, corpus, normalize, ours_catching, run_oracle,
    DataSet,
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

/// The repository's scripts cover what the reader can say: accepted scripts and every kind of
/// rejection (metadata, parse, daemon preflight).
#[test]
fn own_data_sets_cover_acceptance_and_every_kind_of_rejection() {
    let mut seen = std::collections::BTreeMap::<&str, usize>::new();
    for set in [conformance(), check_fixtures()] {
        for file in set.scripts() {
            let Ok(v) = set.expected(&file) else { continue };
            for key in [
                "daemonPreflightError",
                "metadataError",
                "parseError",
                "planDigest",
            ] {
                if v.get(key).is_some() {
                    *seen.entry(key).or_default() += 1;
                }
            }
        }
    }
    for key in [
        "daemonPreflightError",
        "metadataError",
        "parseError",
        "planDigest",
    ] {
        assert!(
            seen.get(key).copied().unwrap_or(0) >= 2,
            "the repository's scripts should exercise {key} more than once: {seen:?}"
        );
    }
}

/// The checked-in outputs of the repository's data sets are what agent-device 0.21.5 prints
/// today (so a changed script without `bash oracle/regenerate.sh` fails here), and the oracle
/// still reproduces the public corpus's outputs when that is present.
#[test]
fn expected_outputs_are_what_the_oracle_prints() {
    let mut sets = vec![conformance(), check_fixtures()];
    sets.extend(corpus());
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
