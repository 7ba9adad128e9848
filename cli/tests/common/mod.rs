//! Helpers shared by the `ad` CLI integration tests: running the binary, locating fixtures, and
//! scratch folders. The conformance data sets come from `ad_tests`.
#![allow(dead_code)] // each test crate uses a different subset

pub mod shop;
pub mod shop_flows;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

/// The repository root (the workspace folder).
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("cli/ has a parent")
        .to_path_buf()
}

/// `tests/fixtures/check`: one script per diagnostic code plus clean scripts (located once, by
/// `ad_tests`).
pub fn fixtures_dir() -> PathBuf {
    ad_tests::check_fixtures().dir
}

/// The `ad` binary with a clean, colourless environment, run from `dir`.
pub fn ad(dir: &Path) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_ad"));
    cmd.current_dir(dir)
        .env("NO_COLOR", "1")
        // Live sessions of `ad run` go to a folder of this test process and working folder,
        // never the user's: tests of one process that run in different folders cannot end each
        // other's sessions (two tests both leaving a session named "default" once raced).
        .env("AD_STATE_DIR", state_dir_for(dir))
        .env_remove("CLICOLOR_FORCE")
        .env_remove("FORCE_COLOR");
    cmd
}

/// The session state folder [`ad`] gives runs in `dir`: one per test process and working folder.
fn state_dir_for(dir: &Path) -> PathBuf {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    dir.hash(&mut h);
    Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!(
        "ad-state-{}-{:08x}",
        std::process::id(),
        h.finish() as u32
    ))
}

/// Runs `ad args…` in `dir`, with `stdin` piped in when given.
pub fn run_in(dir: &Path, args: &[&str], stdin: Option<&[u8]>) -> Output {
    let mut cmd = ad(dir);
    cmd.args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .stdin(if stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        });
    let mut child = cmd.spawn().expect("the ad binary runs");
    if let Some(bytes) = stdin {
        let mut pipe = child.stdin.take().expect("stdin is piped");
        pipe.write_all(bytes).expect("stdin accepts the script");
    }
    child.wait_with_output().expect("ad finishes")
}

/// Runs `ad args…` in `dir` and fails (instead of hanging the suite) when it has not finished
/// after a minute: these inputs used to block forever or grow without bound.
pub fn run_bounded(dir: &Path, args: &[&str]) -> std::process::Output {
    let mut child = ad(dir)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the ad binary runs");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while child.try_wait().expect("ad can be waited for").is_none() {
        if std::time::Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!(
                "`ad {}` did not finish: it blocks or reads without bound",
                args.join(" ")
            );
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    child.wait_with_output().expect("ad finishes")
}

/// Runs `ad args…` from the fixtures folder (so file names in the output are relative).
pub fn run_fixtures(args: &[&str]) -> Output {
    run_in(&fixtures_dir(), args, None)
}

pub fn exit_code(out: &Output) -> i32 {
    out.status
        .code()
        .expect("ad exits normally, not by a signal")
}

pub fn stdout(out: &Output) -> String {
    String::from_utf8(out.stdout.clone()).expect("stdout is UTF-8")
}

pub fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// `--format json` output of `ad check` as a list of diagnostic objects.
pub fn json_diagnostics(out: &Output) -> Vec<serde_json::Value> {
    let text = stdout(out);
    match serde_json::from_str(&text) {
        Ok(serde_json::Value::Array(items)) => items,
        other => panic!("`ad check --format json` printed no JSON array ({other:?}):\n{text}"),
    }
}

/// A fresh, empty scratch folder outside the repository ([`ad_tests::scratch_dir`]).
pub fn scratch_dir(name: &str) -> PathBuf {
    ad_tests::scratch_dir(&format!("ad-cli-{name}"))
}

/// A scratch folder for a test that starts session daemons, holding the `tmp/` its runs use.
pub fn session_scratch(name: &str) -> PathBuf {
    let dir = scratch_dir(name);
    std::fs::create_dir_all(dir.join("tmp")).expect("the scratch temp folder can be created");
    dir
}

/// `ad` in `dir` with everything a session keeps inside it: its state (daemon, journals), home,
/// XDG state and temp files (browser profiles). A daemon without sessions exits after 1.5 s, and
/// no injected value (`AD_VAR_*`) of the caller's environment reaches it.
pub fn isolated_ad(dir: &Path) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_ad"));
    c.current_dir(dir)
        .env("NO_COLOR", "1")
        .env("AD_STATE_DIR", dir.join("state"))
        .env("AD_SESSION_IDLE_MS", "1500")
        .env("HOME", dir)
        .env("XDG_STATE_HOME", dir.join("xdg"))
        .env("TMPDIR", dir.join("tmp"))
        .stdin(Stdio::null());
    for (key, _) in std::env::vars_os() {
        if key.to_string_lossy().starts_with("AD_VAR_") {
            c.env_remove(key);
        }
    }
    c
}

/// A command's standard output, then its standard error, for messages.
pub fn output_text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

/// A published script passes `ad check --profile handoff` and `ad fmt --check` (run as
/// [`isolated_ad`] in `dir`), and agent-device 0.21.5's parser accepts it.
pub fn assert_publishable(dir: &Path, script: &Path) {
    let o = isolated_ad(dir)
        .args(["check", "--profile", "handoff"])
        .arg(script)
        .output()
        .unwrap();
    assert!(o.status.success(), "ad check: {}", output_text(&o));
    let o = isolated_ad(dir)
        .args(["fmt", "--check"])
        .arg(script)
        .output()
        .unwrap();
    assert!(o.status.success(), "ad fmt --check: {}", output_text(&o));
    let oracle = ad_tests::run_oracle_one(script);
    assert_eq!(oracle["ok"], true, "agent-device rejects it: {oracle}");
}

/// A printed command split as a POSIX shell splits it (plain words and single-quoted ones, as
/// `ad` quotes them), without its leading `ad`.
pub fn command_words(command: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut word = String::new();
    let (mut quoted, mut any) = (false, false);
    for c in command.chars() {
        match c {
            '\'' => {
                quoted = !quoted;
                any = true;
            }
            ' ' if !quoted => {
                if any || !word.is_empty() {
                    out.push(std::mem::take(&mut word));
                }
                any = false;
            }
            c => word.push(c),
        }
    }
    if any || !word.is_empty() {
        out.push(word);
    }
    assert_eq!(out.first().map(String::as_str), Some("ad"), "{command}");
    out.remove(0);
    out
}

/// The changed lines of a unified diff (without its headers).
pub fn changed_lines(out: &str) -> Vec<&str> {
    out.lines()
        .filter(|l| {
            (l.starts_with('-') || l.starts_with('+'))
                && !l.starts_with("---")
                && !l.starts_with("+++")
        })
        .collect()
}

/// The JSON document a command printed on stdout.
pub fn json_of(o: &Output) -> serde_json::Value {
    serde_json::from_slice(&o.stdout)
        .unwrap_or_else(|e| panic!("no JSON ({e}): {}", output_text(o)))
}

/// The journal events of the run folder (below `dir`) named after `journal ` in `out`.
pub fn journal_of(dir: &Path, out: &str) -> Vec<serde_json::Value> {
    let run = out
        .split("journal ")
        .nth(1)
        .and_then(|r| r.split_whitespace().next())
        .unwrap_or_else(|| panic!("no journal folder in:\n{out}"));
    std::fs::read_to_string(dir.join(run).join("events.jsonl"))
        .unwrap_or_else(|e| panic!("{run}: {e}\n{out}"))
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// Waits (at most a minute, polling) for `path` to exist: the daemon's idle exit is its reap.
pub fn appears(path: &Path) -> bool {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while std::time::Instant::now() < deadline {
        if path.exists() {
            return true;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    false
}
