//! Every fix `ad check --fix` (and an editor's quick fix) can apply, checked against agent-device
//! 0.21.5 itself (the oracle, `oracle/parse.mjs`): on every script of every data set and on
//! generated scripts, each fix is applied alone, and
//!
//! * a script agent-device accepts stays accepted;
//! * every action on a line the fix does not touch reads exactly as before, in the same order:
//!   command, positionals, flags, runtime and target evidence, as agent-device reports them.
//!
//! The plan digest covers each action's line, so a fix that adds or removes a line (a destination
//! guard, a comment moved above its step, an unused `env` removed) changes it, as any edit does.
//!
//! A fix on an action line changes that action: that is what it is for (`tap` → `press`, a
//! selector quoted, a comment moved out of the arguments). `ad fmt` is held to the stricter rule
//! (nothing changes at all) in fmt.rs.

use std::collections::BTreeSet;
use std::path::PathBuf;

use ad_tests::{data_sets, gen, read_script, run_oracle};
use serde_json::Value;

struct Case {
    name: String,
    original: String,
    fixed: String,
    /// 1-based lines of the original the fix's edits touch.
    touched: BTreeSet<usize>,
}

fn line_of(text: &str, offset: usize) -> usize {
    text[..offset.min(text.len())].matches('\n').count() + 1
}

fn cases_for(name: &str, text: &str, out: &mut Vec<Case>) {
    let analysis = ad_compiler::analyze(text);
    if !analysis.accepted_by_agent_device() {
        return;
    }
    for (k, d) in analysis.diagnostics.iter().enumerate() {
        let Some(fix) = &d.fix else { continue };
        // The fixes an editor offers and `--fix` applies: only those that keep the script whole.
        if !ad_compiler::fix_keeps_script_whole(&analysis, fix) {
            continue;
        }
        let one = [d.clone()];
        let (fixed, applied) = ad_compiler::apply_fixes(text, &one);
        if applied == 0 || fixed == text {
            continue;
        }
        let mut touched = BTreeSet::new();
        for e in &fix.edits {
            for l in line_of(text, e.span.start())..=line_of(text, e.span.end()) {
                touched.insert(l);
            }
        }
        out.push(Case {
            name: format!("{name} #{k} {} ({})", d.code, fix.title),
            original: text.to_string(),
            fixed,
            touched,
        });
    }
}

/// The oracle's actions as (line, action) pairs.
fn actions(v: &Value) -> Vec<(u64, Value)> {
    let parse = &v["parse"];
    let lines = parse["actionLines"].as_array().cloned().unwrap_or_default();
    parse["actions"]
        .as_array()
        .cloned()
        .unwrap_or_default()
        .into_iter()
        .zip(lines)
        .map(|(a, l)| (l.as_u64().unwrap_or(0), a))
        .collect()
}

#[test]
fn every_fix_keeps_what_agent_device_reads() {
    let mut cases = Vec::new();
    for set in data_sets() {
        for path in set.scripts() {
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            cases_for(&name, &read_script(&path), &mut cases);
        }
    }
    for i in 0..1500 {
        cases_for(
            &format!("generated-{i}"),
            &gen::script(0xF1_7E5, i),
            &mut cases,
        );
    }
    assert!(
        cases.len() > 50,
        "too few fixes to prove anything: {}",
        cases.len()
    );
    let dir = ad_tests::target_dir().join(format!("fixes-oracle-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut originals: Vec<PathBuf> = Vec::new();
    let mut fixed: Vec<PathBuf> = Vec::new();
    for (i, c) in cases.iter().enumerate() {
        let a = dir.join(format!("{i}-original.ad"));
        let b = dir.join(format!("{i}-fixed.ad"));
        std::fs::write(&a, &c.original).unwrap();
        std::fs::write(&b, &c.fixed).unwrap();
        originals.push(a);
        fixed.push(b);
    }
    let before = run_oracle(&originals, 2);
    let after = run_oracle(&fixed, 2);
    let mut failures = Vec::new();
    let mut codes = BTreeSet::new();
    for ((c, b), a) in cases.iter().zip(&before).zip(&after) {
        if b["ok"] != Value::Bool(true) {
            continue; // ours and the oracle disagree on acceptance: differential.rs reports that
        }
        codes.insert(c.name.split_whitespace().nth(2).unwrap_or("").to_string());
        if a["ok"] != Value::Bool(true) {
            failures.push(format!(
                "{}: agent-device rejects the fixed script: {}\n--- fixed\n{}",
                c.name, a["parseError"]["message"], c.fixed
            ));
            continue;
        }
        // Lines may shift and a fix may add lines (a destination guard, a split line): the
        // untouched actions must all still be there, in order, exactly as they were.
        let untouched: Vec<Value> = actions(b)
            .into_iter()
            .filter(|(line, _)| !c.touched.contains(&(*line as usize)))
            .map(|(_, a)| a)
            .collect();
        let after_all: Vec<Value> = actions(a).into_iter().map(|(_, a)| a).collect();
        let mut rest = after_all.iter();
        let lost: Vec<&Value> = untouched
            .iter()
            .filter(|x| !rest.by_ref().any(|y| y == *x))
            .collect();
        if !lost.is_empty() {
            failures.push(format!(
                "{}: the fix changed {} action(s) it does not touch, first: {}\n--- fixed\n{}",
                c.name,
                lost.len(),
                lost[0],
                c.fixed
            ));
            continue;
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    println!(
        "fixes vs agent-device: {} fixes applied alone, codes {:?}, {} failures",
        cases.len(),
        codes,
        failures.len()
    );
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures
            .iter()
            .take(8)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n\n")
    );
}
