//! `ad check --watch` and `ad test --watch`: the binary is started on a scratch folder, files are
//! edited, and each cycle's output is read from its stdout. Waits are bounded by a deadline on
//! the output; the only sleeps (20 ms, between the writes of a save storm) are far shorter than
//! the debounce (300 ms for `check`, whose storm must stay one cycle on a loaded machine).

mod common;

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// How long a cycle may take to show up (a debug build on a loaded two-core machine).
const DEADLINE: Duration = Duration::from_secs(60);

/// A running `ad … --watch` and its stdout, line by line.
struct Watcher {
    child: Child,
    lines: mpsc::Receiver<String>,
    stderr: mpsc::Receiver<String>,
}

impl Watcher {
    fn start(dir: &Path, args: &[&str]) -> Watcher {
        let mut child = common::ad(dir)
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("the ad binary runs");
        let lines = forward(child.stdout.take().expect("piped stdout"));
        let stderr = forward(child.stderr.take().expect("piped stderr"));
        Watcher {
            child,
            lines,
            stderr,
        }
    }

    /// The output up to and including the next `[watch #n]` line: (the cycle's lines, its line).
    fn cycle(&self, n: usize) -> (Vec<String>, String) {
        let start = Instant::now();
        let mut seen = Vec::new();
        let prefix = format!("[watch #{n}]");
        loop {
            let left = DEADLINE.saturating_sub(start.elapsed());
            match self.lines.recv_timeout(left) {
                Ok(line) if line.starts_with(&prefix) => return (seen, line),
                Ok(line) => seen.push(line),
                Err(_) => panic!(
                    "no `{prefix}` line within {} s; output so far:\n{}\nstderr:\n{}",
                    DEADLINE.as_secs(),
                    seen.join("\n"),
                    self.stderr.try_iter().collect::<Vec<_>>().join("\n")
                ),
            }
        }
    }

    /// Ctrl-C, then the exit status and stderr.
    fn interrupt(mut self) -> (std::process::ExitStatus, String) {
        // SAFETY: kill has no memory preconditions; the pid is our own child's.
        unsafe {
            libc::kill(self.child.id() as i32, libc::SIGINT);
        }
        let start = Instant::now();
        let status = loop {
            if let Some(status) = self.child.try_wait().expect("wait for ad") {
                break status;
            }
            if start.elapsed() > DEADLINE {
                let _ = self.child.kill();
                panic!(
                    "ad --watch did not end within {} s of Ctrl-C",
                    DEADLINE.as_secs()
                );
            }
            // Polls the exit; far shorter than the debounce.
            std::thread::sleep(Duration::from_millis(20));
        };
        let mut stderr = Vec::new();
        while let Ok(line) = self.stderr.recv_timeout(Duration::from_secs(5)) {
            stderr.push(line);
        }
        (status, stderr.join("\n"))
    }
}

impl Drop for Watcher {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn forward(stream: impl std::io::Read + Send + 'static) -> mpsc::Receiver<String> {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stream).lines() {
            let Ok(line) = line else { break };
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    rx
}

/// Appends a line to a file, as an editor's save would change it.
fn edit(path: &Path, line: &str) {
    let mut text = std::fs::read_to_string(path).expect("read the script");
    text.push_str(line);
    text.push('\n');
    std::fs::write(path, text).expect("write the script");
}

/// A scratch copy of examples/composition (two compositions and their fragments) beside two
/// plain scripts.
fn project() -> PathBuf {
    let dir = ad_tests::scratch_dir("watch");
    let flows = dir.join("flows");
    let examples = common::repo_root().join("examples");
    std::fs::create_dir_all(flows.join("fragments")).unwrap();
    for name in [
        "sign-in-and-tour.ad",
        "sign-in-and-sign-out.ad",
        "fragments/login.ad",
        "fragments/onboarding.ad",
    ] {
        std::fs::copy(examples.join("composition").join(name), flows.join(name)).unwrap();
    }
    std::fs::copy(examples.join("login.ad"), flows.join("login.ad")).unwrap();
    std::fs::copy(examples.join("navigation.ad"), flows.join("navigation.ad")).unwrap();
    dir
}

#[test]
fn check_watch_rechecks_only_what_a_save_changed() {
    let dir = project();
    let w = Watcher::start(&dir, &["check", "--watch", "--debounce", "300", "flows"]);

    let (output, line) = w.cycle(1);
    assert!(line.starts_with("[watch #1] 6 scripts: "), "{line}");
    assert!(
        output.iter().any(|l| l.starts_with("checked 6 files")),
        "the first cycle checks everything: {output:?}"
    );

    // A plain script: only it is checked again, and the new problem is reported.
    edit(&dir.join("flows/navigation.ad"), "frobnicate now");
    let (output, line) = w.cycle(2);
    assert!(
        line.starts_with("[watch #2] 1 script (flows/navigation.ad): 1 error, "),
        "{line}"
    );
    assert!(
        output.iter().any(|l| l.starts_with("checked 1 file:")),
        "{output:?}"
    );
    assert!(output.iter().any(|l| l.contains("AD101")), "{output:?}");

    // A fragment: it and the one composition that includes it, not the other composition.
    edit(&dir.join("flows/fragments/onboarding.ad"), "# a note");
    let (output, line) = w.cycle(3);
    assert!(
        line.starts_with(
            "[watch #3] 2 scripts (flows/fragments/onboarding.ad, flows/sign-in-and-tour.ad):"
        ),
        "{line}"
    );
    assert!(
        output.iter().any(|l| l.starts_with("checked 2 files:")),
        "{output:?}"
    );

    // The fragment both compositions include: both are checked.
    edit(&dir.join("flows/fragments/login.ad"), "# another note");
    let (_, line) = w.cycle(4);
    assert!(
        line.starts_with("[watch #4] 3 scripts (flows/fragments/login.ad, flows/sign-in-and-sign-out.ad, flows/sign-in-and-tour.ad):"),
        "{line}"
    );

    // A save storm (writes 20 ms apart, then an atomic save through a rename, as editors do):
    // one cycle. The next edit, of another file, is the very next cycle.
    let storm = dir.join("flows/login.ad");
    for n in 0..4 {
        edit(&storm, &format!("# storm {n}"));
        std::thread::sleep(Duration::from_millis(20));
    }
    let temp = dir.join("flows/.login.ad.swp");
    std::fs::write(
        &temp,
        std::fs::read_to_string(&storm).unwrap() + "# saved\n",
    )
    .unwrap();
    std::fs::rename(&temp, &storm).unwrap();
    let (_, line) = w.cycle(5);
    assert!(
        line.starts_with("[watch #5] 1 script (flows/login.ad):"),
        "{line}"
    );
    edit(&dir.join("flows/navigation.ad"), "# calm");
    let (_, line) = w.cycle(6);
    assert!(
        line.starts_with("[watch #6] 1 script (flows/navigation.ad):"),
        "the storm made one cycle: {line}"
    );

    // A new folder with a script in it: the script is found and checked.
    std::fs::create_dir(dir.join("flows/more")).unwrap();
    std::fs::copy(
        common::repo_root().join("examples/alerts.ad"),
        dir.join("flows/more/alerts.ad"),
    )
    .unwrap();
    let (_, line) = w.cycle(7);
    assert!(
        line.starts_with("[watch #7] 1 script (flows/more/alerts.ad)"),
        "{line}"
    );

    // A new ad.toml: every script below it is checked again under it.
    std::fs::write(dir.join("flows/ad.toml"), "[rules]\nAD101 = \"warning\"\n").unwrap();
    let (_, line) = w.cycle(8);
    assert!(
        line.starts_with("[watch #8] 7 scripts (") && line.contains(": 0 errors, "),
        "AD101 is a warning now: {line}"
    );

    let (status, stderr) = w.interrupt();
    assert!(
        status.success(),
        "Ctrl-C ends the watch cleanly: {status:?}\n{stderr}"
    );
    assert!(stderr.contains("watch: stopped"), "{stderr}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn test_watch_reruns_the_saved_script() {
    let dir = project();
    let app = common::repo_root().join("examples/apps/shop.json");
    let artifacts = dir.join("artifacts");
    let w = Watcher::start(
        &dir,
        &[
            "test",
            "--watch",
            "--debounce",
            "100",
            "flows",
            "-e",
            "PASSWORD=hunter2",
            "--app",
            app.to_str().unwrap(),
            "--artifacts-dir",
            artifacts.to_str().unwrap(),
        ],
    );
    let (output, line) = w.cycle(1);
    assert!(
        line.starts_with("[watch #1] 4 scripts: ok. 4 passed, 0 failed"),
        "fragments run only through their compositions: {line}\n{output:?}"
    );

    // A fragment: the composition that includes it runs again, not the fragment itself.
    edit(&dir.join("flows/fragments/onboarding.ad"), "# a note");
    let (output, line) = w.cycle(2);
    assert!(
        line.starts_with("[watch #2] 1 script (flows/sign-in-and-tour.ad) after flows/fragments/onboarding.ad changed: ok. 1 passed, 0 failed"),
        "{line}\n{output:?}"
    );

    // A tab that is not there: the one script runs again, and fails.
    let nav = dir.join("flows/navigation.ad");
    let text = std::fs::read_to_string(&nav).unwrap();
    std::fs::write(&nav, text.replace("tab.profile", "tab.nowhere")).unwrap();
    let (output, line) = w.cycle(3);
    assert!(
        line.starts_with("[watch #3] 1 script (flows/navigation.ad): FAILED. 0 passed, 1 failed"),
        "{line}\n{output:?}"
    );
    assert!(
        output
            .iter()
            .any(|l| l.starts_with("FAILED   flows/navigation.ad")),
        "{output:?}"
    );
    assert!(!output.iter().any(|l| l.contains("login.ad")), "{output:?}");

    let (status, stderr) = w.interrupt();
    assert!(status.success(), "{status:?}\n{stderr}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// On a terminal (a pseudo-terminal from util-linux's `script`): the screen is cleared before
/// every cycle but the first, and Ctrl-C typed at the terminal ends the watch with exit 0.
#[test]
fn a_terminal_is_cleared_between_cycles_and_ctrl_c_ends_the_watch() {
    use std::io::Write;
    let dir = project();
    // `exec`: `script` runs the command through `$SHELL -c`, and a shell that stays as `ad`'s
    // parent (dash does) dies of the same Ctrl-C, so `script` would report the shell's 130.
    let command = format!(
        "exec '{}' check --watch --debounce 100 flows/login.ad",
        env!("CARGO_BIN_EXE_ad")
    );
    let mut child = std::process::Command::new("script")
        .args(["-qefc", &command, "/dev/null"])
        .current_dir(&dir)
        .env("NO_COLOR", "1")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("util-linux's `script` runs (apt-get install bsdutils)");
    let mut keyboard = child.stdin.take().unwrap();
    let lines = forward(child.stdout.take().unwrap());
    let stderr = forward(child.stderr.take().unwrap());
    let w = Watcher {
        child,
        lines,
        stderr,
    };
    let (first, _) = w.cycle(1);
    assert!(
        first.iter().all(|l| !l.contains("\x1b[2J")),
        "the first cycle keeps what the terminal showed: {first:?}"
    );
    edit(&dir.join("flows/login.ad"), "# edited");
    let (second, _) = w.cycle(2);
    assert!(
        second[0].starts_with("\x1b[2J\x1b[3J\x1b[H"),
        "the screen is cleared before the second cycle: {second:?}"
    );
    // Ctrl-C, as typed: the terminal sends SIGINT to `ad`.
    keyboard.write_all(b"\x03").unwrap();
    keyboard.flush().unwrap();
    let start = Instant::now();
    let mut rest = Vec::new();
    while let Ok(line) = w
        .lines
        .recv_timeout(DEADLINE.saturating_sub(start.elapsed()))
    {
        rest.push(line);
    }
    let mut w = w;
    let status = w.child.wait().unwrap();
    assert!(status.success(), "exit 0 after Ctrl-C: {status:?} {rest:?}");
    assert!(
        rest.iter().any(|l| l.contains("watch: stopped")),
        "{rest:?}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// A clean script, and the same script with one error (AD101) and a different size.
const CLEAN: &str = "context platform=ios\nopen com.example.app\nwait 100\n";
const BROKEN: &str = "context platform=ios\nopen com.example.app\nwait 100\nfrobnicate now\n";

/// Saves `text` as `path` atomically (written beside it, then renamed over it), as editors do:
/// a check never reads a half-written script.
fn save(path: &Path, text: &str) {
    let temp = path.with_extension("ad.tmp");
    std::fs::write(&temp, text).expect("write the temporary file");
    std::fs::rename(&temp, path).expect("rename it over the script");
}

/// Reads cycles from `first` on until every script of `wanted` has been re-checked with its
/// error, each cycle's summary holding exactly one error per script it checked. Fails (after
/// the deadline) if a script is never re-checked.
fn until_every_error_is_reported(
    w: &Watcher,
    first: usize,
    wanted: &std::collections::BTreeSet<String>,
) {
    let mut seen = std::collections::BTreeSet::new();
    let mut n = first;
    while seen.len() < wanted.len() {
        let (output, line) = w.cycle(n);
        let files: std::collections::BTreeSet<String> = output
            .iter()
            .filter_map(|l| l.strip_prefix("::error file="))
            .map(|rest| rest.split(',').next().unwrap_or_default().to_string())
            .collect();
        let count = line
            .split_whitespace()
            .nth(2)
            .and_then(|w| w.parse::<usize>().ok())
            .unwrap_or_else(|| panic!("no script count in {line}"));
        assert_eq!(
            files.len(),
            count,
            "each re-checked script reports its one error: {line}\n{output:?}"
        );
        let errors = format!(": {count} error{}, ", if count == 1 { "" } else { "s" });
        assert!(
            line.contains(&errors),
            "the summary counts the errors of this cycle: {line}"
        );
        seen.extend(files);
        n += 1;
        assert!(
            seen.is_subset(wanted),
            "only edited scripts are re-checked: {seen:?}"
        );
    }
}

/// Every save of a burst is re-checked: 40 scripts, each rewritten with an error 20 ms apart
/// (before, a file saved while the previous batch was being read looked unchanged afterwards:
/// 10 of 40 were re-checked).
#[test]
fn a_burst_of_saves_across_forty_scripts_rechecks_every_one() {
    let dir = ad_tests::scratch_dir("watch-burst");
    let flows = dir.join("flows");
    std::fs::create_dir_all(&flows).unwrap();
    let names: Vec<String> = (0..40).map(|i| format!("flows/s{i:02}.ad")).collect();
    for name in &names {
        std::fs::write(dir.join(name), CLEAN).unwrap();
    }
    let w = Watcher::start(
        &dir,
        &[
            "check",
            "--watch",
            "--debounce",
            "100",
            "--format",
            "github",
            "flows",
        ],
    );
    let (_, line) = w.cycle(1);
    assert!(
        line.starts_with("[watch #1] 40 scripts: 0 errors"),
        "{line}"
    );
    for name in &names {
        save(&dir.join(name), BROKEN);
        std::thread::sleep(Duration::from_millis(20));
    }
    until_every_error_is_reported(&w, 2, &names.iter().cloned().collect());
    let (status, stderr) = w.interrupt();
    assert!(status.success(), "{status:?}\n{stderr}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// 48 saves spread over 2,000 scripts in 20 folders (each cycle's scan reads them all, which
/// widens the window in which a save was lost before): every one is re-checked.
#[test]
fn a_burst_of_saves_across_two_thousand_scripts_rechecks_every_one() {
    let dir = ad_tests::scratch_dir("watch-many");
    let mut names = Vec::new();
    for folder in 0..20 {
        std::fs::create_dir_all(dir.join(format!("flows/f{folder:02}"))).unwrap();
        for i in 0..100 {
            let name = format!("flows/f{folder:02}/s{i:03}.ad");
            std::fs::write(dir.join(&name), CLEAN).unwrap();
            names.push(name);
        }
    }
    let w = Watcher::start(
        &dir,
        &[
            "check",
            "--watch",
            "--debounce",
            "100",
            "--format",
            "github",
            "flows",
        ],
    );
    let (_, line) = w.cycle(1);
    assert!(
        line.starts_with("[watch #1] 2000 scripts: 0 errors"),
        "{line}"
    );
    let edited: Vec<&String> = names.iter().step_by(41).take(48).collect();
    assert_eq!(edited.len(), 48);
    for name in &edited {
        save(&dir.join(name), BROKEN);
        std::thread::sleep(Duration::from_millis(20));
    }
    until_every_error_is_reported(&w, 2, &edited.iter().map(|s| s.to_string()).collect());
    let (status, stderr) = w.interrupt();
    assert!(status.success(), "{status:?}\n{stderr}");
    let _ = std::fs::remove_dir_all(&dir);
}
