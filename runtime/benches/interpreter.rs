//! Interpreter benchmarks (no criterion: `cargo bench -p ad-runtime --bench interpreter`).
//!
//! 1. Per-step overhead on the sim: a long script of typical steps (clicks, fills, selector
//!    waits, assertions, navigation) run on the Shop model; the wall time of each step is
//!    measured by the progress hook. The sim's clock is virtual, so deliberate waits cost no
//!    wall time and the figures are the interpreter (resolution, verification, frames,
//!    variables, journal) plus the sim. Reported with no journal, with the journal on tmpfs
//!    (`/dev/shm`) and on disk (dominated by the fsync before every action).
//! 2. Memory: a 10,000- and a 100,000-step script, each in a fresh process, with the journal
//!    streamed to disk; peak RSS (VmHWM) after compiling the plan and after the run.

use std::path::{Path, PathBuf};
use std::time::Instant;

use ad_runtime::backends::sim::{AppModel, Sim};
use ad_runtime::core::interp::{run, Plan, Progress, RunOptions, StepEnd, StepInfo};
use ad_runtime::Journal;
use ad_tests::bench_input::sim_flow;

struct Timings(Vec<f64>);
impl Progress for Timings {
    fn step_end(&mut self, _s: &StepInfo, e: &StepEnd) {
        self.0.push(e.wall_ms * 1000.0);
    }
}

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

fn run_once(
    text: &str,
    journal: &mut Journal,
    progress: &mut dyn Progress,
) -> ad_runtime::RunResult {
    let analysis = ad_compiler::analyze(text);
    let plan = Plan {
        steps: analysis.steps(),
        metadata: analysis.metadata(),
    };
    let model = AppModel::load(&repo().join("examples/apps/shop.json")).unwrap();
    let mut sim = Sim::with_model(model);
    let opts = RunOptions {
        script_path: "bench.ad".into(),
        session: "bench".into(),
        ..RunOptions::default()
    };
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .unwrap();
    rt.block_on(run(&plan, &mut sim, journal, progress, &opts))
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}

fn per_step(label: &str, root: Option<&Path>) {
    let text = sim_flow(6000);
    let mut journal = match root {
        Some(r) => Journal::create(r, "bench").unwrap(),
        None => Journal::null("bench"),
    };
    let mut t = Timings(Vec::new());
    let started = Instant::now();
    let r = run_once(&text, &mut journal, &mut t);
    let total = started.elapsed();
    assert!(r.ok, "{:?}", r.error);
    // Drop the first 500 steps (warm-up: allocator, caches).
    let mut v: Vec<f64> = t.0[500..].to_vec();
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    println!(
        "per-step ({label}): {} steps, median {:.1} µs, p90 {:.1} µs, p99 {:.1} µs, mean {:.1} µs (whole run {:.0} ms, device time {:.0} s)",
        v.len(),
        percentile(&v, 0.5),
        percentile(&v, 0.9),
        percentile(&v, 0.99),
        v.iter().sum::<f64>() / v.len() as f64,
        total.as_secs_f64() * 1000.0,
        r.device_ms as f64 / 1000.0
    );
}

fn vm_hwm_kib() -> u64 {
    status_kib("VmHWM:")
}

fn status_kib(key: &str) -> u64 {
    let s = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    s.lines()
        .find(|l| l.starts_with(key))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|x| x.parse().ok())
        .unwrap_or(0)
}

/// Samples resident memory every `every` steps.
struct RssSamples {
    every: usize,
    samples: Vec<u64>,
}
impl Progress for RssSamples {
    fn step_end(&mut self, s: &StepInfo, _e: &StepEnd) {
        if s.index.checked_rem(self.every) == Some(0) {
            self.samples.push(status_kib("VmRSS:"));
        }
    }
}

/// Child mode: run an n-step script with a streamed disk journal and print peak RSS.
fn memory_child(n: usize, root: &Path) {
    let text = sim_flow(n);
    let before_plan = vm_hwm_kib();
    let analysis = ad_compiler::analyze(&text);
    drop(text);
    let after_plan = vm_hwm_kib();
    let plan = Plan {
        steps: analysis.steps(),
        metadata: analysis.metadata(),
    };
    let model = AppModel::load(&repo().join("examples/apps/shop.json")).unwrap();
    let mut sim = Sim::with_model(model);
    let mut journal = Journal::create(root, "bench").unwrap();
    let opts = RunOptions {
        script_path: "bench.ad".into(),
        session: "bench".into(),
        ..RunOptions::default()
    };
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .unwrap();
    let started = Instant::now();
    let mut rss = RssSamples {
        every: n / 10,
        samples: Vec::new(),
    };
    let r = rt.block_on(run(&plan, &mut sim, &mut journal, &mut rss, &opts));
    assert!(r.ok, "{:?}", r.error);
    let after_run = vm_hwm_kib();
    println!(
        "{n} steps: VmHWM {before_plan} KiB at start, {after_plan} KiB after compiling the plan, {after_run} KiB after the run (run adds {} KiB); {} events, {} observations, {:.1} s wall",
        after_run.saturating_sub(after_plan),
        journal.events_written(),
        journal.observations_written(),
        started.elapsed().as_secs_f64()
    );
    println!("  VmRSS (KiB) at every 10% of the run: {:?}", rss.samples);
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if let Some(i) = args.iter().position(|a| a == "--memory-child") {
        let n: usize = args[i + 1].parse().unwrap();
        memory_child(n, Path::new(&args[i + 2]));
        return;
    }
    if args.iter().any(|a| a == "--list") {
        println!("interpreter: bench");
        return;
    }
    per_step("no journal", None);
    let shm = Path::new("/dev/shm");
    if shm.is_dir() {
        let dir = tempfile::tempdir_in(shm).unwrap();
        per_step("journal on tmpfs", Some(dir.path()));
    }
    let dir = tempfile::tempdir().unwrap();
    per_step("journal on disk, fsync per action", Some(dir.path()));
    let exe = std::env::current_exe().unwrap();
    for n in [10_000usize, 100_000] {
        let dir = match shm.is_dir() {
            true => tempfile::tempdir_in(shm).unwrap(),
            false => tempfile::tempdir().unwrap(),
        };
        let out = std::process::Command::new(&exe)
            .args([
                "--memory-child",
                &n.to_string(),
                dir.path().to_str().unwrap(),
            ])
            .output()
            .unwrap();
        print!("{}", String::from_utf8_lossy(&out.stdout));
        if !out.status.success() {
            eprintln!("{}", String::from_utf8_lossy(&out.stderr));
        }
    }
}
