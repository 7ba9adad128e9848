//! What `ad` costs on inputs that used to be quadratic: many findings in one file, long lines
//! full of placeholders, rejected lines printed by `fmt --check`. Each case runs the `ad` binary
//! on a generated script (in pairs of sizes, so a non-linear cost shows as a ratio well above the
//! size ratio) and reports wall time and peak memory.
//!
//! `cargo bench -p ad-cli --bench reports`
//!
//! `AD_BIN=/path/to/other/ad` measures another build (e.g. an older one, for before/after
//! figures; inputs over 2 MiB pass `--max-file-size`, which older builds do not know).
//! `AD_BENCH_TIMEOUT` (seconds, default 120) stops a run that takes longer and reports it as such.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// How a run ended.
enum Run {
    /// Wall time (s) and peak resident memory (MB).
    Done(f64, f64),
    TimedOut,
    /// `ad` itself failed (exit code 2 or a signal): not a measurement.
    Failed(i32),
}

/// One run of `ad args…` in `dir`.
// The child is reaped with wait4 (for its own rusage), not Child::wait.
#[allow(clippy::zombie_processes)]
fn run_once(bin: &Path, args: &[&str], dir: &Path, timeout: Duration) -> Run {
    let start = Instant::now();
    let child = Command::new(bin)
        .args(args)
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("the ad binary runs");
    let pid = child.id() as libc::pid_t;
    loop {
        let mut status = 0;
        // SAFETY: an all-zero rusage is a valid value for wait4 to fill in.
        let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
        // SAFETY: pid is our own child; status and usage are valid out-pointers.
        let r = unsafe { libc::wait4(pid, &mut status, libc::WNOHANG, &mut usage) };
        if r == pid {
            // 0 and 1 are results (clean, findings); anything else means the run did not work.
            let code = if libc::WIFEXITED(status) {
                libc::WEXITSTATUS(status)
            } else {
                -1
            };
            if code != 0 && code != 1 {
                return Run::Failed(code);
            }
            // ru_maxrss is in KiB on Linux.
            return Run::Done(
                start.elapsed().as_secs_f64(),
                usage.ru_maxrss as f64 / 1024.0,
            );
        }
        if start.elapsed() > timeout {
            // SAFETY: killing and reaping our own child.
            unsafe {
                libc::kill(pid, libc::SIGKILL);
                libc::waitpid(pid, &mut status, 0);
            }
            return Run::TimedOut;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

struct Bench {
    bin: PathBuf,
    dir: PathBuf,
    timeout: Duration,
}

impl Bench {
    /// Writes `name` and measures `ad args… name` (median and best of `runs`).
    fn case(&self, label: &str, name: &str, text: &str, args: &[&str], runs: usize) {
        std::fs::write(self.dir.join(name), text).expect("the bench folder is writable");
        let mut all: Vec<&str> = args.to_vec();
        let limit = (text.len() + 1).to_string();
        if text.len() > 2 * 1024 * 1024 {
            all.extend(["--max-file-size", &limit]);
        }
        all.push(name);
        let mut times = Vec::new();
        let mut peak: f64 = 0.0;
        for _ in 0..runs {
            match run_once(&self.bin, &all, &self.dir, self.timeout) {
                Run::Done(t, rss) => {
                    times.push(t);
                    peak = peak.max(rss);
                }
                Run::Failed(code) => {
                    println!("{label:<58} failed (exit code {code})");
                    return;
                }
                Run::TimedOut => {
                    println!(
                        "{label:<58} > {:.0} s (stopped)",
                        self.timeout.as_secs_f64()
                    );
                    return;
                }
            }
        }
        times.sort_by(|a, b| a.partial_cmp(b).unwrap());
        println!(
            "{label:<58} median {:>7.3} s  best {:>7.3} s  peak {:>6.0} MB  ({:.2} MB in)",
            times[times.len() / 2],
            times[0],
            peak,
            text.len() as f64 / 1e6
        );
    }
}

/// `n` lines, each an unknown command: `n` findings in one file.
fn many_findings(n: usize) -> String {
    format!("open \"com.example.shop\"\n{}close\n", "bogus\n".repeat(n))
}

/// A recorded-style script of about `bytes` bytes with one finding per step (an undefined
/// `${PASSWORD}`), the shape of a long agent-device recording.
fn recorded(bytes: usize) -> String {
    let mut s =
        String::from("context platform=ios target=mobile\nopen com.example.shop --relaunch\n");
    let mut i = 0;
    while s.len() < bytes {
        i += 1;
        s.push_str(&format!(
            "# agent-device:target-v1 {{\"id\":\"field.{i}\",\"role\":\"textfield\",\"label\":\"Field {i}\",\"ancestry\":[{{\"role\":\"form\",\"label\":\"Profile\"}}],\"sibling\":{i},\"viewportOrder\":0,\"verification\":\"verified\"}}\n\
             fill \"id=\\\"field.{i}\\\"\" \"${{PASSWORD}}\"\n\
             wait \"id=\\\"screen.{i}\\\"\" 5000\n"
        ));
    }
    s.push_str("close\n");
    s
}

/// One `fill` whose text is `n` distinct undefined placeholders: `n` findings on one line.
fn placeholders_on_one_line(n: usize) -> String {
    let value: String = (0..n).map(|i| format!("${{VARIABLE_{i:06}}}")).collect();
    format!("open \"com.example.shop\"\nfill \"id=f\" \"{value}\"\nclose\n")
}

/// One line of `bytes` bytes of `${A}` (a bare-token variant when `bare`).
fn line_of_a(bytes: usize, bare: bool) -> String {
    let value = if bare {
        "${A} ".repeat(bytes / 5)
    } else {
        format!("\"{}\"", "${A}".repeat(bytes / 4))
    };
    format!("open \"com.example.shop\"\nfill \"id=f\" {value}\nclose\n")
}

/// About `bytes` of annotations agent-device rejects, each bound to its step: `fmt --check`
/// prints every one of them.
fn rejected_annotations(bytes: usize) -> String {
    let mut s = String::from("open \"com.example.shop\"\n");
    let mut i = 0;
    while s.len() < bytes {
        i += 1;
        s.push_str(&format!(
            "# agent-device:target-v1 {{\"id\":\"f{i}\",\"role\":\"button\",\"label\":\"Field {i}\" broken\nclick \"id=f{i}\"\n"
        ));
    }
    s.push_str("close\n");
    s
}

fn main() {
    let bin = std::env::var_os("AD_BIN")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_BIN_EXE_ad")));
    let timeout = Duration::from_secs(
        std::env::var("AD_BENCH_TIMEOUT")
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or(120),
    );
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("ad-bench-reports");
    std::fs::create_dir_all(&dir).expect("the bench folder can be created");
    let b = Bench { bin, dir, timeout };
    println!("binary: {}", b.bin.display());

    for n in [8_000, 32_000] {
        let text = many_findings(n);
        b.case(
            &format!("{n} findings, check (human)"),
            "many.ad",
            &text,
            &["check"],
            5,
        );
        b.case(
            &format!("{n} findings, check --format json"),
            "many.ad",
            &text,
            &["check", "--format", "json"],
            5,
        );
    }
    for mb in [1.4, 5.6] {
        let text = recorded((mb * 1e6) as usize);
        b.case(
            &format!("recorded script {mb} MB, one finding per step, check"),
            "recorded.ad",
            &text,
            &["check"],
            5,
        );
    }
    for n in [3_200, 12_800] {
        let text = placeholders_on_one_line(n);
        b.case(
            &format!("{n} placeholders on one line, check (human)"),
            "placeholders.ad",
            &text,
            &["check"],
            5,
        );
    }
    for mb in [1, 4] {
        let text = line_of_a(mb << 20, false);
        b.case(
            &format!("{mb} MiB line of ${{A}}, parse"),
            "line.ad",
            &text,
            &["parse"],
            3,
        );
        b.case(
            &format!("{mb} MiB line of ${{A}}, check --format json"),
            "line.ad",
            &text,
            &["check", "--format", "json"],
            3,
        );
        b.case(
            &format!("{mb} MiB line of ${{A}}, check (human)"),
            "line.ad",
            &text,
            &["check"],
            3,
        );
        let bare = line_of_a(mb << 20, true);
        b.case(
            &format!("{mb} MiB line of bare ${{A}} tokens, check --format json"),
            "bare.ad",
            &bare,
            &["check", "--format", "json"],
            3,
        );
    }
    for kb in [288, 1152] {
        let text = rejected_annotations(kb * 1024);
        b.case(
            &format!("fmt --check, {kb} KB of rejected annotations"),
            "annotations.ad",
            &text,
            &["fmt", "--check"],
            5,
        );
    }
}
