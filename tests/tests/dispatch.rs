//! Dispatch-time parity: every step agent-device 0.21.5 refuses when its replay dispatches it is
//! an error in `ad check`, and nothing else is.
//!
//! The judge is `oracle/dispatch.mjs`: agent-device's own dispatch-time validators (replay
//! runner conversion, the daemon's descriptor routing, the handlers' argument readers), imported
//! from the pinned package, run on every step. Each step line gets its verdict (`refused`,
//! `accepted`, `depends` on `${VAR}` values, or not compared: `skipped`, `platform`,
//! `uncovered`) and is compared with `ad check`'s errors on that line (codes that claim a step
//! is refused; the handoff contract and session ref-frame codes claim something else and are not
//! compared).
//!
//! Data sets: the repository's own (`tests/conformance`, `tests/fixtures/check`) and
//! `tests/dispatch/`; generated scripts (`gen::dispatch_script`, `AD_DISPATCH_CASES` default
//! 1500, `AD_DISPATCH_SEED`); the shared corpus when present (`AD_SHARED_DIR`, default
//! `<repo>/../shared`; one line says when it is absent; `AD_REQUIRE_SHARED=1` makes its absence a
//! failure). The package is `<repo>/oracle/node_modules/agent-device` (`npm ci` in `oracle/`) or
//! `$AD_AGENT_DEVICE_DIR` (`$AD_AGENT_DEVICE_PKG` too).
//!
//! Figures go to stdout (`--nocapture`) and `target/dispatch-report.txt`.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

use ad_compiler::registry::{ArgKind, COMMANDS};
use ad_grammar::{LineIndex, Severity};
use ad_tests::{gen, read_script, target_dir, ORACLE_MISSING};
use serde_json::Value;

const DEFAULT_CASES: u64 = 1500;
const BATCH: usize = 250;
const MAX_LISTED: usize = 400;

/// Error codes that do not claim "agent-device refuses this step when it dispatches it": the
/// handoff publication contract (a profile rule), ref-frame lifetime (session state), and steps
/// that run but do something else than they say (`--record-as` typed as text, a placeholder in
/// verified target evidence).
const NOT_DISPATCH_CLAIMS: &[&str] = &[
    "AD701", "AD702", "AD703", "AD704", "AD705", "AD706", "AD707", "AD710", "AD711", "AD720",
    "AD723",
];

fn repo() -> PathBuf {
    ad_tests::repo_dir()
}

/// The pinned package, or a panic saying how to install it: a missing oracle never skips.
fn package_dir() -> PathBuf {
    let dir = ["AD_AGENT_DEVICE_DIR", "AD_AGENT_DEVICE_PKG"]
        .iter()
        .find_map(|k| std::env::var_os(k).filter(|d| !d.is_empty()))
        .map(PathBuf::from)
        .unwrap_or_else(|| repo().join("oracle/node_modules/agent-device"));
    if !dir.join("dist/src/script.js").is_file() {
        panic!(
            "{ORACLE_MISSING}\n(no agent-device package at {})",
            dir.display()
        );
    }
    dir
}

fn oracle_script() -> PathBuf {
    repo().join("oracle/dispatch.mjs")
}

fn node(args: &[&std::ffi::OsStr]) -> std::process::Output {
    // In a scratch folder: the self-test runs real handlers, which may resolve relative paths.
    let cwd = std::env::temp_dir().join(format!("ad-dispatch-cwd-{}", std::process::id()));
    std::fs::create_dir_all(&cwd).expect("create the oracle's working folder");
    Command::new("node")
        .current_dir(&cwd)
        .arg(oracle_script())
        .arg("--pkg")
        .arg(package_dir())
        .args(args)
        .output()
        .unwrap_or_else(|e| {
            panic!("cannot run `node` ({e}): the dispatch oracle needs node on PATH")
        })
}

/// Words `ad`'s registry knows, passed to the oracle as extra `${VAR}` values: they only help it
/// find a value for which a step passes (each such value is checked by agent-device itself).
fn probe_words() -> Vec<String> {
    let mut words = BTreeSet::new();
    for c in COMMANDS {
        for f in c.forms {
            for p in f.positionals {
                if let ArgKind::Enum(ws) = p.kind {
                    words.extend(ws.iter().map(|w| w.to_string()));
                }
            }
        }
    }
    words.into_iter().collect()
}

/// `dispatch.mjs` on `files`, in batches, two node processes at a time.
fn run_oracle(files: &[PathBuf]) -> Vec<Value> {
    let probes = probe_words();
    let batches: Vec<&[PathBuf]> = files.chunks(BATCH).collect();
    let mut results: Vec<Option<Vec<Value>>> = vec![None; batches.len()];
    let next = std::sync::atomic::AtomicUsize::new(0);
    std::thread::scope(|s| {
        let handles: Vec<_> = (0..2)
            .map(|_| {
                s.spawn(|| {
                    let mut done = Vec::new();
                    loop {
                        let i = next.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                        let Some(batch) = batches.get(i) else { break };
                        let mut args: Vec<&std::ffi::OsStr> = Vec::new();
                        for p in &probes {
                            args.push("--probe".as_ref());
                            args.push(p.as_ref());
                        }
                        args.extend(batch.iter().map(|f| f.as_os_str()));
                        let out = node(&args);
                        let stderr = String::from_utf8_lossy(&out.stderr);
                        assert!(
                            out.status.success(),
                            "dispatch.mjs failed ({:?}): {}",
                            out.status.code(),
                            stderr.trim()
                        );
                        let v: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
                            panic!("dispatch.mjs printed invalid JSON ({e}): {}", stderr.trim())
                        });
                        let Value::Array(items) = v else {
                            panic!("dispatch.mjs printed no array")
                        };
                        assert_eq!(items.len(), batch.len(), "one result per file");
                        done.push((i, items));
                    }
                    done
                })
            })
            .collect();
        for h in handles {
            for (i, items) in h.join().expect("oracle worker panicked") {
                results[i] = Some(items);
            }
        }
    });
    results
        .into_iter()
        .flat_map(|r| r.expect("every batch ran"))
        .collect()
}

/// `ad check`'s dispatch claims: error codes per 1-based line (first line of each diagnostic).
fn ad_errors(text: &str) -> (bool, BTreeMap<usize, Vec<String>>) {
    let analysis = ad_compiler::analyze(text);
    let index = LineIndex::new(text);
    let mut by_line: BTreeMap<usize, Vec<String>> = BTreeMap::new();
    for d in &analysis.diagnostics {
        if d.severity != Severity::Error || NOT_DISPATCH_CLAIMS.contains(&d.code.id()) {
            continue;
        }
        let line = index.line_of(d.primary_span().start()) + 1;
        by_line.entry(line).or_default().push(d.code.to_string());
    }
    (analysis.accepted_by_agent_device(), by_line)
}

#[derive(Default)]
struct Figures {
    files: usize,
    dispatched_files: usize,
    compared: usize,
    refused: usize,
    depends: usize,
    flagged: usize,
    agree: usize,
    not_compared: BTreeMap<String, usize>,
    false_alarms: Vec<String>,
    misses: Vec<String>,
    file_level: Vec<String>,
}

fn compare_set(
    name: &str,
    files: &[PathBuf],
    uncovered: &mut BTreeMap<String, BTreeSet<String>>,
) -> Figures {
    let oracle = run_oracle(files);
    let mut f = Figures {
        files: files.len(),
        ..Figures::default()
    };
    for (path, verdict) in files.iter().zip(&oracle) {
        let text = read_script(path);
        let (accepted, errors) = ad_errors(&text);
        let Some(steps) = verdict["steps"].as_array() else {
            if accepted {
                f.file_level.push(format!(
                    "{}: agent-device rejects the file ({}), ad check reports no parity error",
                    path.display(),
                    verdict["rejected"]
                        .as_str()
                        .or(verdict["error"].as_str())
                        .unwrap_or("?")
                ));
            }
            continue;
        };
        if !accepted {
            f.file_level.push(format!(
                "{}: ad check reports a parity error, agent-device's readers accept the file",
                path.display()
            ));
            continue;
        }
        f.dispatched_files += 1;
        let lines: Vec<&str> = text.split('\n').collect();
        for step in steps {
            let line = step["line"].as_u64().expect("a line") as usize;
            let command = step["command"].as_str().unwrap_or("?").to_string();
            let kind = step["verdict"].as_str().unwrap_or("?");
            let ours = errors.get(&line);
            let shown = || {
                format!(
                    "{}:{line}: `{}` — agent-device: {kind}{}; ad check: {}",
                    path.display(),
                    lines
                        .get(line - 1)
                        .map(|l| l.trim_end_matches('\r'))
                        .unwrap_or(""),
                    step["message"]
                        .as_str()
                        .map(|m| format!(" ({m})"))
                        .unwrap_or_default(),
                    ours.map(|c| c.join(", "))
                        .unwrap_or_else(|| "no error".into())
                )
            };
            match kind {
                "refused" | "accepted" | "depends" => {
                    f.compared += 1;
                    f.refused += usize::from(kind == "refused");
                    f.depends += usize::from(kind == "depends");
                    f.flagged += usize::from(ours.is_some());
                    match (kind == "refused", ours.is_some()) {
                        (true, false) => f.misses.push(shown()),
                        (false, true) => f.false_alarms.push(shown()),
                        _ => f.agree += 1,
                    }
                }
                other => {
                    *f.not_compared.entry(other.to_string()).or_default() += 1;
                    if other != "skipped" {
                        let reason = step["reason"].as_str().unwrap_or("").to_string();
                        uncovered
                            .entry(format!("{command} ({other}): {reason}"))
                            .or_default()
                            .insert(name.to_string());
                    }
                }
            }
        }
    }
    f
}

fn write_generated(dir: &Path, seed: u64, count: u64) -> Vec<PathBuf> {
    std::fs::create_dir_all(dir).expect("create the scratch folder");
    (0..count)
        .map(|i| {
            let p = dir.join(format!("{i}.ad"));
            std::fs::write(&p, gen::dispatch_script(seed, i)).expect("write a generated script");
            p
        })
        .collect()
}

fn ad_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("read {}: {e}", dir.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "ad"))
        .collect();
    files.sort();
    files
}

fn env_u64(name: &str, default: u64) -> u64 {
    match std::env::var(name) {
        Ok(v) if !v.trim().is_empty() => {
            let v = v.trim();
            match v.strip_prefix("0x") {
                Some(h) => u64::from_str_radix(h, 16),
                None => v.parse(),
            }
            .unwrap_or_else(|e| panic!("{name}={v}: {e}"))
        }
        _ => default,
    }
}

/// The registry's setting names per platform (`registry::settings`, which `ad check` refuses
/// or warns about) are the names the pinned package's platform handlers apply, as the oracle
/// reads them out of the bundle.
#[test]
fn setting_names_per_platform_match_the_package() {
    let out = node(&["--settings".as_ref()]);
    assert!(
        out.status.success(),
        "dispatch.mjs --settings failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let theirs: BTreeMap<String, BTreeSet<String>> =
        serde_json::from_slice(&out.stdout).expect("dispatch.mjs --settings prints JSON");
    let ours: BTreeMap<String, BTreeSet<String>> =
        ad_compiler::registry::settings::SETTINGS_BY_PLATFORM
            .iter()
            .map(|(p, names)| (p.to_string(), names.iter().map(|n| n.to_string()).collect()))
            .collect();
    assert_eq!(ours, theirs);
}

/// Scripts the self-test also runs through the real handlers (`AD_DISPATCH_SELF_CASES`).
const SELF_TEST_GENERATED: u64 = 300;

/// The oracle's glue against agent-device's real handlers (device stubbed out), on its own
/// battery, the repository's data sets and some generated scripts.
#[test]
fn oracle_self_test() {
    let scratch = std::env::temp_dir().join(format!("ad-dispatch-self-{}", std::process::id()));
    let _cleanup = RemoveOnDrop(scratch.clone());
    let mut files: Vec<PathBuf> = ad_tests::own_data_sets()
        .iter()
        .flat_map(|d| d.scripts())
        .collect();
    files.extend(ad_files(&repo().join("tests/dispatch")));
    files.extend(write_generated(
        &scratch,
        env_u64("AD_DISPATCH_SEED", gen::DISPATCH_SEED),
        env_u64("AD_DISPATCH_SELF_CASES", SELF_TEST_GENERATED),
    ));
    let mut args: Vec<&std::ffi::OsStr> = vec!["--self-test".as_ref()];
    args.extend(files.iter().map(|f| f.as_os_str()));
    let out = node(&args);
    assert!(
        out.status.success(),
        "dispatch.mjs --self-test failed:\n{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn dispatch_parity_with_agent_device_0_21_5() {
    let started = std::time::Instant::now();
    let seed = env_u64("AD_DISPATCH_SEED", gen::DISPATCH_SEED);
    let count = env_u64("AD_DISPATCH_CASES", DEFAULT_CASES);
    let scratch = std::env::temp_dir().join(format!("ad-dispatch-{}", std::process::id()));
    let _cleanup = RemoveOnDrop(scratch.clone());

    let mut sets: Vec<(String, Vec<PathBuf>)> = ad_tests::own_data_sets()
        .iter()
        .map(|d| (d.name.to_string(), d.scripts()))
        .collect();
    sets.push((
        "dispatch fixtures".into(),
        ad_files(&repo().join("tests/dispatch")),
    ));
    sets.push((
        format!("generated (seed {seed:#x})"),
        write_generated(&scratch, seed, count),
    ));
    let mut notes = Vec::new();
    match ad_tests::corpus() {
        Some(corpus) => sets.push(("corpus".into(), corpus.scripts())),
        None => notes.push(
            "corpus: not present (AD_SHARED_DIR, default <repo>/../shared); the repository's own \
             data sets only"
                .to_string(),
        ),
    }

    let mut uncovered: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut report = String::new();
    let mut failed = false;
    for (name, files) in &sets {
        let f = compare_set(name, files, &mut uncovered);
        let _ = writeln!(
            report,
            "{name}: {} files ({} dispatched); {} step lines compared: agent-device refuses {}, \
             {} depend on ${{VAR}} values; ad check flags {}; agree {}; false alarms {}; misses {}; \
             not compared {:?}",
            f.files,
            f.dispatched_files,
            f.compared,
            f.refused,
            f.depends,
            f.flagged,
            f.agree,
            f.false_alarms.len(),
            f.misses.len(),
            f.not_compared
        );
        for (title, list) in [
            ("false alarms", &f.false_alarms),
            ("misses", &f.misses),
            ("file-level disagreements", &f.file_level),
        ] {
            if list.is_empty() {
                continue;
            }
            failed = true;
            let _ = writeln!(report, "  {title} ({}):", list.len());
            for l in list.iter().take(MAX_LISTED) {
                let _ = writeln!(report, "    {l}");
            }
        }
    }
    for n in &notes {
        let _ = writeln!(report, "{n}");
    }
    let _ = writeln!(
        report,
        "\nnot compared (agent-device's verdict needs the device, the app or session state):"
    );
    for (what, where_) in &uncovered {
        let _ = writeln!(
            report,
            "  {what} [{}]",
            where_.iter().cloned().collect::<Vec<_>>().join(", ")
        );
    }
    let _ = writeln!(report, "\n{:.1}s", started.elapsed().as_secs_f64());
    println!("{report}");
    let path = target_dir().join("dispatch-report.txt");
    let _ = std::fs::write(&path, &report);
    assert!(
        !failed,
        "dispatch parity failed ({}):\n{report}",
        path.display()
    );
}

/// Removes the scratch folder however the test ends.
struct RemoveOnDrop(PathBuf);

impl Drop for RemoveOnDrop {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}
