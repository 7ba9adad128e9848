//! Differential test: generated scripts (see `ad_tests::gen`) through agent-device 0.21.5's own
//! parser (`oracle/parse.mjs --digest`, batched) and through ours, in-process.
//!
//! * `AD_DIFF_SEED` (decimal or 0x-hex; default `gen::DEFAULT_SEED`), `AD_DIFF_CASES` (default
//!   3000) choose the scripts; script `n` of a seed is `gen::script(seed, n)`.
//! * `AD_DIFF_MINIMIZE`: by default the first script of each kind of parity disagreement is
//!   minimized (at most 40 kinds); `all` does the same for rejection-message disagreements; `0`
//!   turns minimization off.
//! * Figures go to stdout (`--nocapture`) and `target/differential-report.txt`; every disagreement
//!   is written to `target/differential-failures/<n>.{ad,ours.json,oracle.json}` (message-only
//!   ones as `msg-<n>.…`, minimized ones as `<n>.min.…`).
//!
//! Fails when `ok` or the accepted output (metadata, parse, planDigest) disagrees anywhere.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::Instant;

use ad_tests::minimize::{minimize, signature, Check};
use ad_tests::{compare, compare_messages, gen, ours_value, pretty, run_oracle, target_dir};
use serde_json::Value;

const DEFAULT_CASES: u64 = 3000;
const MAX_LISTED: usize = 20;

fn env_u64(name: &str, default: u64) -> u64 {
    match std::env::var(name) {
        Ok(v) if !v.trim().is_empty() => {
            let v = v.trim().replace('_', "");
            let parsed = match v.strip_prefix("0x").or_else(|| v.strip_prefix("0X")) {
                Some(hex) => u64::from_str_radix(hex, 16),
                None => v.parse(),
            };
            parsed.unwrap_or_else(|e| panic!("{name}={v} is not a number: {e}"))
        }
        _ => default,
    }
}

struct Case {
    index: u64,
    text: String,
    ours: Value,
    oracle: Value,
}

fn write_case(dir: &Path, stem: &str, text: &str, ours: &Value, oracle: &Value) {
    let _ = std::fs::write(dir.join(format!("{stem}.ad")), text);
    let _ = std::fs::write(dir.join(format!("{stem}.ours.json")), pretty(ours));
    let _ = std::fs::write(dir.join(format!("{stem}.oracle.json")), pretty(oracle));
}

fn first_line(s: &str) -> &str {
    s.lines().next().unwrap_or("")
}

/// A short key for the oracle's verdict, for the coverage table.
fn verdict(oracle: &Value) -> String {
    if oracle["ok"] == Value::Bool(true) {
        return "accepted".into();
    }
    for key in ["daemonPreflightError", "parseError", "metadataError"] {
        if let Some(m) = oracle[key]["message"].as_str() {
            return format!("{key}: {}", message_class(m));
        }
    }
    "rejected (no message)".into()
}

/// A message with the script-specific parts (numbers, quoted text) blanked.
fn message_class(m: &str) -> String {
    for p in [
        "Invalid quoted value",
        "Invalid replay script line",
        "Invalid quoted env value",
    ] {
        if m.starts_with(p) {
            return p.into();
        }
    }
    let keep_quotes = m.starts_with("target-v1 \"") || m.starts_with("targets-v1 \"");
    let mut out = String::new();
    let mut quoted = false;
    let mut digits = false;
    for c in m.chars() {
        if c == '"' && !keep_quotes {
            out.push_str(if quoted { "…\"" } else { "\"" });
            quoted = !quoted;
            continue;
        }
        if quoted {
            continue;
        }
        if c.is_ascii_digit() {
            if !digits {
                out.push('N');
            }
            digits = true;
            continue;
        }
        digits = false;
        out.push(c);
    }
    if let Some(i) = out.find(" in context header") {
        out.truncate(i);
    }
    if out.chars().count() > 120 {
        out = out.chars().take(120).collect::<String>() + "…";
    }
    out
}

#[test]
fn differential_against_agent_device_0_21_5() {
    let started = Instant::now();
    let seed = env_u64("AD_DIFF_SEED", gen::DEFAULT_SEED);
    let count = env_u64("AD_DIFF_CASES", DEFAULT_CASES);
    let minimize_mode = std::env::var("AD_DIFF_MINIMIZE").unwrap_or_default();

    let work = std::env::temp_dir().join(format!("ad-diff-{}", std::process::id()));
    std::fs::create_dir_all(&work).expect("create the scratch directory");
    let _cleanup = RemoveOnDrop(work.clone());
    let scripts: Vec<String> = (0..count).map(|i| gen::script(seed, i)).collect();
    let files: Vec<PathBuf> = scripts
        .iter()
        .enumerate()
        .map(|(i, text)| {
            let f = work.join(format!("{i}.ad"));
            std::fs::write(&f, text).expect("write a generated script");
            f
        })
        .collect();
    let generated = started.elapsed();

    let jobs = std::thread::available_parallelism().map_or(2, |n| n.get());
    let (oracle, ours) = std::thread::scope(|s| {
        let handle = s.spawn(|| run_oracle(&files, jobs));
        let ours: Vec<Value> = scripts.iter().map(|t| ours_value(t)).collect();
        (handle.join(), ours)
    });
    let oracle = oracle.unwrap_or_else(|e| std::panic::resume_unwind(e));
    let checked = started.elapsed();

    let cases: Vec<Case> = scripts
        .into_iter()
        .zip(ours)
        .zip(oracle)
        .enumerate()
        .map(|(i, ((text, ours), oracle))| Case {
            index: i as u64,
            text,
            ours,
            oracle,
        })
        .collect();

    let mut accepted = 0usize;
    let mut ok_agree = 0usize;
    let mut output_agree = 0usize;
    let mut rejected = 0usize;
    let mut message_agree = 0usize;
    let mut failures: Vec<(&Case, String)> = Vec::new();
    let mut message_failures: Vec<(&Case, String)> = Vec::new();
    let mut coverage: BTreeMap<String, usize> = BTreeMap::new();
    for case in &cases {
        *coverage.entry(verdict(&case.oracle)).or_default() += 1;
        let oracle_ok = case.oracle["ok"] == Value::Bool(true);
        let same_ok = case.ours.get("ok") == case.oracle.get("ok");
        if same_ok {
            ok_agree += 1;
        }
        let parity = compare(&case.ours, &case.oracle);
        if oracle_ok {
            accepted += 1;
            if parity.is_ok() {
                output_agree += 1;
            }
        } else {
            rejected += 1;
            match compare_messages(&case.ours, &case.oracle) {
                Ok(()) => message_agree += 1,
                Err(d) => message_failures.push((case, d)),
            }
        }
        if let Err(d) = parity {
            failures.push((case, d));
        }
    }

    let fail_dir = target_dir().join("differential-failures");
    let _ = std::fs::remove_dir_all(&fail_dir);
    std::fs::create_dir_all(&fail_dir).expect("create target/differential-failures");
    for (case, _) in &failures {
        write_case(
            &fail_dir,
            &case.index.to_string(),
            &case.text,
            &case.ours,
            &case.oracle,
        );
    }
    for (case, _) in message_failures.iter().take(200) {
        write_case(
            &fail_dir,
            &format!("msg-{}", case.index),
            &case.text,
            &case.ours,
            &case.oracle,
        );
    }

    // Kinds of disagreement (see `minimize::signature`), in order of first appearance.
    let parity_kinds = kinds(&failures, Check::Parity);
    let message_kinds = kinds(&message_failures, Check::Messages);

    // Minimize one representative per kind.
    let mut minimized: Vec<(String, u64, String)> = Vec::new();
    if minimize_mode != "0" {
        let mut todo: Vec<(Check, &Kind)> =
            parity_kinds.iter().map(|k| (Check::Parity, k)).collect();
        if minimize_mode == "all" {
            todo.extend(message_kinds.iter().map(|k| (Check::Messages, k)));
        }
        let scratch = work.join("minimize");
        for (check, kind) in todo.into_iter().take(40) {
            let case = kind.first;
            let small = minimize(&case.text, &kind.signature, check, &scratch);
            let ours = ours_value(&small);
            let f = scratch.join("min.ad");
            let _ = std::fs::write(&f, &small);
            let oracle = ad_tests::run_oracle_one(&f);
            write_case(
                &fail_dir,
                &format!("{}.min", case.index),
                &small,
                &ours,
                &oracle,
            );
            minimized.push((format!("{check:?}: {}", kind.signature), case.index, small));
        }
    }
    let elapsed = started.elapsed();
    let mut report = String::new();
    let _ = writeln!(
        report,
        "differential: {count} scripts, oracle accepted {accepted}; ok agreement {ok_agree}/{count}; \
         accepted-output agreement {output_agree}/{accepted}; rejection-message agreement \
         {message_agree}/{rejected}"
    );
    let _ = writeln!(
        report,
        "seed {seed:#x}; generate {:.1}s, oracle+ours {:.1}s, total {:.1}s",
        generated.as_secs_f64(),
        (checked - generated).as_secs_f64(),
        elapsed.as_secs_f64()
    );
    let _ = writeln!(report, "\noracle verdicts:");
    for (k, n) in &coverage {
        let _ = writeln!(report, "  {n:5}  {k}");
    }
    for (title, list, kinds) in [
        ("parity disagreements", &failures, &parity_kinds),
        (
            "rejection-message disagreements",
            &message_failures,
            &message_kinds,
        ),
    ] {
        if list.is_empty() {
            continue;
        }
        let _ = writeln!(report, "\n{title} ({}), by kind:", list.len());
        for k in kinds {
            let _ = writeln!(
                report,
                "  {:5}  {}  (first: #{})",
                k.count, k.signature, k.first.index
            );
        }
        let _ = writeln!(report, "{title}, one per kind first:");
        for (case, d) in listing(list, kinds) {
            let _ = writeln!(
                report,
                "  #{}: {}  script {:?}",
                case.index,
                first_line(d),
                case.text
            );
        }
    }
    if !minimized.is_empty() {
        let _ = writeln!(report, "\nminimized ({}):", minimized.len());
        for (sig, index, small) in &minimized {
            let _ = writeln!(report, "  #{index} [{sig}]: {small:?}");
        }
    }
    if !failures.is_empty() || !message_failures.is_empty() {
        let _ = writeln!(report, "\nfiles: {}", fail_dir.display());
    }
    println!("{report}");
    let report_path = target_dir().join("differential-report.txt");
    std::fs::write(&report_path, &report)
        .unwrap_or_else(|e| panic!("cannot write {}: {e}", report_path.display()));

    if !failures.is_empty() {
        let mut msg = format!(
            "{} of {count} generated scripts disagree with agent-device 0.21.5 \
             (ok {ok_agree}/{count}, accepted output {output_agree}/{accepted}); seed {seed:#x}.\n\
             Reproduce: ad parse --format agent-device --digest F / node oracle/parse.mjs --digest F \
             with F in {}\n",
            failures.len(),
            fail_dir.display()
        );
        for k in &parity_kinds {
            let _ = writeln!(msg, "  {:5} × {}", k.count, k.signature);
        }
        for (case, d) in listing(&failures, &parity_kinds) {
            let d: Vec<&str> = d.lines().take(6).collect();
            let _ = writeln!(
                msg,
                "#{} {:?}\n    {}",
                case.index,
                case.text,
                d.join("\n    ")
            );
        }
        panic!("{msg}");
    }
}

/// Removes the scratch directory however the test ends.
struct RemoveOnDrop(PathBuf);

impl Drop for RemoveOnDrop {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

struct Kind<'a> {
    signature: String,
    count: usize,
    first: &'a Case,
}

fn kinds<'a>(list: &[(&'a Case, String)], check: Check) -> Vec<Kind<'a>> {
    let mut out: Vec<Kind<'a>> = Vec::new();
    for (case, _) in list {
        let sig = signature(&case.ours, &case.oracle, check).unwrap_or_default();
        match out.iter_mut().find(|k| k.signature == sig) {
            Some(k) => k.count += 1,
            None => out.push(Kind {
                signature: sig,
                count: 1,
                first: case,
            }),
        }
    }
    out
}

/// Up to [`MAX_LISTED`] entries: the first of each kind, then the rest in order.
fn listing<'l, 'a>(
    list: &'l [(&'a Case, String)],
    kinds: &[Kind<'a>],
) -> Vec<&'l (&'a Case, String)> {
    let is_first = |c: &Case| kinds.iter().any(|k| std::ptr::eq(k.first, c));
    let mut out: Vec<&(&Case, String)> = list.iter().filter(|(c, _)| is_first(c)).collect();
    out.extend(list.iter().filter(|(c, _)| !is_first(c)));
    out.truncate(MAX_LISTED);
    out
}
