//! `ad check --maestro` against agent-device 0.21.5's own Maestro reader
//! (`oracle/maestro-parse.mjs`) on every data set: the fixtures per refusal kind, the public
//! flows and generated flows. On each file both must give the same verdict (accept/refuse), the
//! same line for the first refusal and, outside YAML syntax errors, the same message; and on each
//! flow the reader accepts, the same verdict on its plan (platform ios, no `-e` values): a
//! runFlow file missing, refused or in a cycle, or a runFlow path that cannot be resolved.

use std::path::{Path, PathBuf};

use ad_tests::maestro::{
    edge_cases_dir, fixtures_dir, flow, flows_under, public_dir, run_oracle, MAESTRO_SEED,
};
use ad_tests::scratch_dir;

/// Generated flows per run.
const GENERATED: usize = 400;

struct Tally {
    files: usize,
    verdict: usize,
    line: usize,
    message: usize,
    messages_compared: usize,
    refused: usize,
    plans: usize,
    plans_refused: usize,
    plan_verdict: usize,
}

/// Whether ad says agent-device's plan of this flow fails (before the first step).
fn plan_refused(diagnostics: &[ad_grammar::Diagnostic]) -> bool {
    use ad_grammar::codes::*;
    diagnostics.iter().any(|d| {
        [
            MAESTRO_RUNFLOW_MISSING,
            MAESTRO_INCLUDED_FLOW_REFUSED,
            MAESTRO_RUNFLOW_CYCLE,
            MAESTRO_WHEN_TRUE,
        ]
        .contains(&d.code)
            || ([MAESTRO_UNDEFINED_VARIABLE, MAESTRO_INTERPOLATION].contains(&d.code)
                && d.labels[0].message == ad_maestro::run_checks::PLANNED)
    })
}

fn compare(files: &[PathBuf], problems: &mut Vec<String>) -> Tally {
    let oracle = run_oracle(files);
    assert_eq!(oracle.len(), files.len());
    let mut t = Tally {
        files: files.len(),
        verdict: 0,
        line: 0,
        message: 0,
        messages_compared: 0,
        refused: 0,
        plans: 0,
        plans_refused: 0,
        plan_verdict: 0,
    };
    for (file, theirs) in files.iter().zip(&oracle) {
        let text = String::from_utf8_lossy(&std::fs::read(file).unwrap()).into_owned();
        // The plan as the oracle makes it, on iOS: a runFlow for another platform is not loaded.
        let checked = ad_maestro::check_on(
            &text,
            Some(file),
            &|p: &Path| std::fs::read_to_string(p).ok(),
            "ios",
        );
        let first =
            ad_maestro::first_rejection(&checked.diagnostics).and_then(|d| d.rejection.as_ref());
        let ok = theirs["ok"].as_bool().unwrap();
        if !ok {
            t.refused += 1;
        }
        let name = file.display();
        if ok != first.is_none() {
            problems.push(format!(
                "{name}: agent-device {}, ad {}",
                if ok { "accepts" } else { "refuses" },
                first.map_or("accepts".into(), |r| format!("refuses: {}", r.message))
            ));
            if !ok {
                problems.push(format!("  agent-device: {}", theirs["error"]["message"]));
            }
            continue;
        }
        t.verdict += 1;
        let Some(ours) = first else {
            t.line += 1;
            t.message += 1;
            let plan_ok = theirs["plan"]["ok"].as_bool().unwrap();
            t.plans += 1;
            if !plan_ok {
                t.plans_refused += 1;
            }
            if plan_ok != plan_refused(&checked.diagnostics) {
                t.plan_verdict += 1;
            } else {
                problems.push(format!(
                    "{name}: agent-device's plan {}, ad says {}: {:?}",
                    if plan_ok { "is made" } else { "fails" },
                    if plan_ok { "it fails" } else { "it is made" },
                    theirs["plan"]["message"]
                ));
            }
            continue;
        };
        let message = theirs["error"]["message"].as_str().unwrap_or_default();
        let line = theirs["error"]["line"].as_u64();
        let our_line = ours
            .message
            .rsplit_once("(line ")
            .and_then(|(_, l)| l.trim_end_matches(')').parse::<u64>().ok());
        if line == our_line {
            t.line += 1;
        } else {
            problems.push(format!(
                "{name}: first refusal on line {line:?} for agent-device ({message:?}), {our_line:?} for ad ({:?})",
                ours.message
            ));
        }
        if !message.starts_with("Invalid Maestro YAML flow:") {
            t.messages_compared += 1;
            if message == ours.message {
                t.message += 1;
            } else {
                problems.push(format!(
                    "{name}: agent-device says {message:?}, ad {:?}",
                    ours.message
                ));
            }
        }
    }
    t
}

#[test]
fn every_data_set_gets_agent_devices_verdict_first_line_and_message() {
    let dir = scratch_dir("maestro-generated");
    let mut generated = Vec::new();
    for i in 0..GENERATED {
        let path = dir.join(format!("flow-{i:03}.yaml"));
        std::fs::write(&path, flow(MAESTRO_SEED, i)).unwrap();
        generated.push(path);
    }
    let fixtures = flows_under(&fixtures_dir());
    let edge = flows_under(&edge_cases_dir());
    let public = flows_under(&public_dir());
    assert!(
        fixtures.len() >= 13,
        "the fixtures are missing ({})",
        fixtures_dir().display()
    );
    let mut problems = Vec::new();
    let mut report = Vec::new();
    assert!(
        public.len() >= 7,
        "the public flows are missing ({})",
        public_dir().display()
    );
    assert!(
        edge.len() >= 78,
        "the edge cases are missing ({})",
        edge_cases_dir().display()
    );
    for (name, files) in [
        ("fixtures", &fixtures),
        ("edge cases", &edge),
        ("public", &public),
        ("generated", &generated),
    ] {
        let t = compare(files, &mut problems);
        report.push(format!(
            "{name}: {} files ({} refused by agent-device): verdict {}/{}, first line {}/{}, message {}/{} compared; plan verdict {}/{} ({} plans fail)",
            t.files, t.refused, t.verdict, t.files, t.line, t.files, t.message - (t.files - t.refused), t.messages_compared,
            t.plan_verdict, t.plans, t.plans_refused
        ));
    }
    eprintln!("{}", report.join("\n"));
    assert!(
        problems.is_empty(),
        "{}\n\n{}",
        problems.join("\n"),
        report.join("\n")
    );
}
