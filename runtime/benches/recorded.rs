//! Recorded-replay benchmark (no criterion, as the other runtime benches:
//! `cargo bench -p ad-runtime --bench recorded`): a 1,000-step script is recorded once on the sim
//! (`--record-fixture`), then replayed from its fixture (`--backend recorded:DIR`) through
//! `session::run_script`, as `ad run` does minus process start and parsing: fixture load and
//! SHA-256 verification included. Reported with the journal on disk (what `ad run` writes, an
//! fsync before every action), on tmpfs, and with no journal; the live sim run beside it.
//! Target: well under a second.

use std::path::{Path, PathBuf};
use std::time::Instant;

use ad_runtime::backends::BackendKind;
use ad_runtime::core::interp::{Plan, Quiet, RunOptions};
use ad_runtime::session::{run_script, SessionConfig};
use ad_tests::bench_input::sim_flow;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

struct Setup {
    artifacts: PathBuf,
    fixture: Option<PathBuf>,
    replay: Option<PathBuf>,
    no_journal: bool,
}

/// One run; its wall time in ms.
fn once(text: &str, s: &Setup) -> f64 {
    let t0 = Instant::now();
    let analysis = ad_compiler::analyze(text);
    let plan = Plan {
        steps: analysis.steps(),
        metadata: analysis.metadata(),
    };
    let config = SessionConfig {
        app_model: Some(repo().join("examples/apps/shop.json")),
        artifacts_root: s.artifacts.clone(),
        state_dir: s.artifacts.join("state"),
        no_journal: s.no_journal,
        backend: Some(if s.replay.is_some() {
            BackendKind::Recorded
        } else {
            BackendKind::Sim
        }),
        record_fixture: s.fixture.clone(),
        recorded: s.replay.clone(),
        ..SessionConfig::default()
    };
    let options = RunOptions {
        script_path: "bench.ad".into(),
        session: "bench".into(),
        ..RunOptions::default()
    };
    let out = run_script(&plan, Path::new("bench.ad"), &options, &config, &mut Quiet).unwrap();
    let ms = t0.elapsed().as_secs_f64() * 1000.0;
    assert!(out.result.ok, "{:?}", out.result.error);
    assert_eq!(out.result.replayed, 1000);
    assert!(out.result.warnings.is_empty(), "{:?}", out.result.warnings);
    ms
}

fn report(name: &str, mut v: Vec<f64>) {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    println!(
        "{name:<52} n={}  median {:.1} ms  min {:.1}  max {:.1}",
        v.len(),
        v[v.len() / 2],
        v[0],
        v[v.len() - 1]
    );
}

fn main() {
    let text = sim_flow(1000 - 5);
    let root = std::env::temp_dir().join(format!("ad-bench-recorded-{}", std::process::id()));
    let shm = Path::new("/dev/shm").join(format!("ad-bench-recorded-{}", std::process::id()));
    let fixture = root.join("fixture");
    let setup = |artifacts: &Path, no_journal| Setup {
        artifacts: artifacts.to_path_buf(),
        fixture: None,
        replay: Some(fixture.clone()),
        no_journal,
    };
    let record = once(
        &text,
        &Setup {
            artifacts: root.join("runs"),
            fixture: Some(fixture.clone()),
            replay: None,
            no_journal: true,
        },
    );
    let calls: usize = std::fs::read_to_string(fixture.join("session-1.jsonl"))
        .unwrap()
        .lines()
        .count()
        - 1;
    println!("recorded 1,000 steps on the sim in {record:.1} ms: {calls} backend calls");
    let rounds = 7;
    let mut results = Vec::new();
    for (name, s) in [
        ("live sim, no journal", None),
        ("replay, no journal", Some(setup(&root.join("runs"), true))),
        (
            "replay, journal on tmpfs (/dev/shm)",
            Some(setup(&shm, false)),
        ),
        (
            "replay, journal on disk (as `ad run` writes it)",
            Some(setup(&root.join("runs"), false)),
        ),
    ] {
        let s = s.unwrap_or(Setup {
            artifacts: root.join("runs"),
            fixture: None,
            replay: None,
            no_journal: true,
        });
        let v: Vec<f64> = (0..rounds).map(|_| once(&text, &s)).collect();
        results.push((name, v));
    }
    for (name, v) in results {
        report(&format!("1,000 steps: {name}"), v);
    }
    let _ = std::fs::remove_dir_all(&root);
    let _ = std::fs::remove_dir_all(&shm);
}
