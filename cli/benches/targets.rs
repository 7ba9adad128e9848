//! The speed targets of issue 13, measured as a user meets them: the `ad` binary as a whole
//! process (median wall time of several runs, peak resident memory from the kernel's rusage) on
//! two shapes of script, both generated and deterministic: a clean recorded flow of annotated
//! steps (`ad_tests::bench_input::recorded_flow`) and a flow of short unannotated steps, about
//! 42 bytes a line (`ad_tests::bench_input::short_steps_flow`, where per-step costs dominate).
//!
//! `cargo bench -p ad-cli --bench targets`
//!
//! For each shape:
//! 1. `ad check --max-file-size 60000000` on 50 MB: MB/s (target ≥ 100; `ad check` parses,
//!    lowers and runs the per-step rules of a large script on two threads, see
//!    `grammar/src/parallel.rs`);
//! 2. its peak memory as a multiple of the input (target ≤ 4×);
//! 3. `ad check` on a 2 MB script against agent-device 0.21.5's own parser under node
//!    (`node oracle/parse.mjs`, after `npm ci` in oracle/), side by side (target ≥ 20×): the
//!    ratio of the two medians, and beside it the median of the per-pair ratios (each pair runs
//!    back to back, in one state of the machine);
//!
//! and on the recorded flow:
//! 4. `ad parse --format agent-device` on the 2 MB script against `ad check` plus writing the
//!    report it prints (`cat` of that report to a file; target: parse no slower).
//!
//! `AD_BIN=/path/to/other/ad` measures another build (before/after figures). `AD_BENCH_RUNS`
//! (default 5) sets the runs per case. The machine is shared: quote medians, and compare builds
//! in one session.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

/// Wall time (s) and peak resident memory (MB) of one run of `program args…`, stdout to `out`.
// The child is reaped with wait4 (for its own rusage), not Child::wait.
#[allow(clippy::zombie_processes)]
fn run_once(program: &Path, args: &[&str], out: Option<&Path>) -> (f64, f64) {
    let stdout = match out {
        Some(p) => Stdio::from(std::fs::File::create(p).expect("the bench folder is writable")),
        None => Stdio::null(),
    };
    let start = Instant::now();
    let child = Command::new(program)
        .args(args)
        .env("NO_COLOR", "1")
        .stdin(Stdio::null())
        .stdout(stdout)
        .stderr(Stdio::null())
        .spawn()
        .unwrap_or_else(|e| panic!("{} runs: {e}", program.display()));
    let mut status = 0;
    // SAFETY: an all-zero rusage is a valid value for wait4 to fill in.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: the pid is our own child; status and usage are valid out-pointers.
    let r = unsafe { libc::wait4(child.id() as libc::pid_t, &mut status, 0, &mut usage) };
    let elapsed = start.elapsed().as_secs_f64();
    assert_eq!(r, child.id() as libc::pid_t, "wait4 reaps the child");
    let code = libc::WIFEXITED(status).then(|| libc::WEXITSTATUS(status));
    // 0 and 1 are results (clean, findings); anything else means the run did not work.
    assert!(
        matches!(code, Some(0 | 1)),
        "{} {args:?} failed ({code:?})",
        program.display()
    );
    // ru_maxrss is in KiB on Linux; MB here are 10^6 bytes, like the input's size.
    (elapsed, usage.ru_maxrss as f64 * 1024.0 / 1e6)
}

/// A generator of a shape of script: the script of at least so many bytes.
type Generator = fn(usize) -> String;

fn median(mut times: Vec<f64>) -> f64 {
    times.sort_by(|a, b| a.partial_cmp(b).unwrap());
    times[times.len() / 2]
}

/// Median wall time and the largest peak memory of `runs` runs.
fn measure(program: &Path, args: &[&str], out: Option<&Path>, runs: usize) -> (f64, f64) {
    let mut times = Vec::new();
    let mut peak: f64 = 0.0;
    for _ in 0..runs {
        let (t, rss) = run_once(program, args, out);
        times.push(t);
        peak = peak.max(rss);
    }
    (median(times), peak)
}

fn main() {
    let bin = std::env::var_os("AD_BIN")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_BIN_EXE_ad")));
    let runs: usize = std::env::var("AD_BENCH_RUNS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(5);
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("ad-bench-targets");
    std::fs::create_dir_all(&dir).expect("the bench folder can be created");
    println!("binary: {} ({runs} runs per case)", bin.display());

    let oracle = ad_tests::repo_dir().join("oracle/parse.mjs");
    if !ad_tests::repo_dir()
        .join("oracle/node_modules/agent-device")
        .is_dir()
    {
        panic!("{}", ad_tests::ORACLE_MISSING);
    }
    let shapes: [(&str, Generator); 2] = [
        ("recorded flow", ad_tests::bench_input::recorded_flow),
        (
            "short unannotated steps",
            ad_tests::bench_input::short_steps_flow,
        ),
    ];
    let mut files = Vec::new();
    for (index, (shape, generate)) in shapes.into_iter().enumerate() {
        println!("{shape}:");
        let big = dir.join(format!("shape{index}-50.ad"));
        let small = dir.join(format!("shape{index}-2.ad"));
        std::fs::write(&big, generate(50_000_000)).expect("the bench folder is writable");
        std::fs::write(&small, generate(2_000_000)).expect("the bench folder is writable");
        check_targets(&bin, &big, &small, &oracle, runs);
        files.push(big);
        files.push(small);
    }
    // The parse comparison runs on the recorded flow (its JSON is the larger per line).
    let small = &files[1];
    let small_mb = std::fs::metadata(small).unwrap().len() as f64 / 1e6;
    let small_s = small.to_str().unwrap();

    // 4: the three alternating too (a shared machine's speed drifts between blocks of runs).
    let report = dir.join("parse.json");
    let copy = dir.join("parse-copy.json");
    let cat = PathBuf::from("cat");
    let (mut checks, mut parses, mut writes) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..runs {
        checks.push(run_once(&bin, &["check", small_s], None).0);
        let parse_args = ["parse", "--format", "agent-device", small_s];
        parses.push(run_once(&bin, &parse_args, Some(&report)).0);
        writes.push(run_once(&cat, &[report.to_str().unwrap()], Some(&copy)).0);
    }
    let (check, parse, write) = (median(checks), median(parses), median(writes));
    let out_mb = std::fs::metadata(&report).unwrap().len() as f64 / 1e6;
    println!(
        "4. parse --format agent-device {small_mb:.1} MB ({out_mb:.1} MB of JSON): median {:.1} ms; \
         check {:.1} ms + writing the report {:.1} ms = {:.1} ms: {:.2}x (target <= 1)",
        parse * 1e3,
        check * 1e3,
        write * 1e3,
        (check + write) * 1e3,
        parse / (check + write)
    );
    for f in files.iter().chain([&report, &copy]) {
        let _ = std::fs::remove_file(f);
    }
}

/// Targets 1 to 3 on one shape: `big` (50 MB) and `small` (2 MB, against node's parser).
fn check_targets(bin: &Path, big: &Path, small: &Path, oracle: &Path, runs: usize) {
    let (big_mb, small_mb) = (
        std::fs::metadata(big).unwrap().len() as f64 / 1e6,
        std::fs::metadata(small).unwrap().len() as f64 / 1e6,
    );
    let (big_s, small_s) = (big.to_str().unwrap(), small.to_str().unwrap());

    // 1 and 2.
    let (t, rss) = measure(
        bin,
        &["check", "--max-file-size", "60000000", big_s],
        None,
        runs,
    );
    println!(
        "1. check {big_mb:.1} MB: median {t:.3} s = {:.1} MB/s (target >= 100)",
        big_mb / t
    );
    println!(
        "2. check {big_mb:.1} MB: peak {rss:.0} MB = {:.2}x the input (target <= 4)",
        rss / big_mb
    );

    // 3: side by side, alternating, so both see the same load.
    let node = PathBuf::from("node");
    let (mut ours, mut theirs) = (Vec::new(), Vec::new());
    for _ in 0..runs {
        ours.push(run_once(bin, &["check", small_s], None).0);
        theirs.push(run_once(&node, &[oracle.to_str().unwrap(), small_s], None).0);
    }
    // Each pair ran back to back, so its ratio is taken in one state of a drifting machine; the
    // median of those ratios is quoted beside the ratio of the two medians.
    let paired = median(theirs.iter().zip(&ours).map(|(t, o)| t / o).collect());
    let (ours, theirs) = (median(ours), median(theirs));
    println!(
        "3. check {small_mb:.1} MB: median {:.1} ms; node oracle/parse.mjs {:.1} ms: {:.1}x faster \
         (median of the {runs} paired ratios {paired:.1}x) (target >= 20)",
        ours * 1e3,
        theirs * 1e3,
        theirs / ours
    );
}
