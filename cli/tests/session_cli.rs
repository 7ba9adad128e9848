//! `ad session …` end to end (the binary, spawned, with its daemon): a journey recorded on the
//! sim and published, checked by `ad check --profile handoff`, `ad fmt --check` and
//! agent-device's parser, replayed by `ad run` from a cold start and continued through the
//! daemon; the same round trip on the web backend (Chromium); and a search of every file the
//! sessions wrote for the parameterized secret.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use ad_tests::web_fixture::{
    assert_no_browser_left, browsers_of, fixture_dir, require_chromium, FixtureServer,
};
use serde_json::Value;

mod common;

use common::{assert_publishable, isolated_ad as ad, output_text as text};

fn scratch(name: &str) -> PathBuf {
    common::session_scratch(&format!("ses-{name}"))
}

const SECRET: &str = "hunter2";

fn repo() -> PathBuf {
    ad_tests::repo_dir()
}

fn session(dir: &Path, words: &[&str]) -> Value {
    let o = ad(dir)
        .arg("session")
        .args(words)
        .arg("--json")
        .output()
        .unwrap();
    let v: Value = serde_json::from_slice(&o.stdout)
        .unwrap_or_else(|_| panic!("{words:?}: {}", String::from_utf8_lossy(&o.stderr)));
    assert_eq!(
        o.status.success(),
        v["ok"] == true,
        "{words:?}: exit status and ok agree"
    );
    v
}

fn ok(dir: &Path, words: &[&str]) -> Value {
    let v = session(dir, words);
    assert_eq!(v["ok"], true, "{words:?}: {v:#}");
    v
}

/// No file under `dir` (scripts, temp files, journals, run folders, the daemon's log) holds
/// `literal`.
fn assert_no_literal(dir: &Path, literal: &str) -> usize {
    let mut stack = vec![dir.to_path_buf()];
    let mut seen = 0;
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            let ft = e.file_type().unwrap();
            if ft.is_dir() {
                stack.push(p);
            } else if ft.is_file() {
                seen += 1;
                let bytes = std::fs::read(&p).unwrap();
                assert!(
                    !bytes
                        .windows(literal.len())
                        .any(|w| w == literal.as_bytes()),
                    "{} holds the literal",
                    p.display()
                );
            }
        }
    }
    seen
}

/// Does a line of a session journal under `dir` hold both `a` and `b`?
fn journals_say(dir: &Path, a: &str, b: &str) -> bool {
    let Ok(runs) = std::fs::read_dir(dir.join("state/journals")) else {
        return false;
    };
    runs.flatten().any(|run| {
        std::fs::read_to_string(run.path().join("events.jsonl"))
            .unwrap_or_default()
            .lines()
            .any(|l| l.contains(a) && l.contains(b))
    })
}

/// Waits for the daemon to go idle and remove its socket.
fn assert_daemon_exits(dir: &Path) {
    let sock = dir.join("state/daemon.sock");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(15);
    while sock.exists() {
        assert!(
            std::time::Instant::now() < deadline,
            "the idle daemon did not exit"
        );
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
}

#[test]
fn record_publish_cold_run_and_continue_on_the_sim() {
    let dir = scratch("sim");
    let app = repo().join("examples/apps/shop.json");
    let app = app.to_str().unwrap();
    let v = ok(
        &dir,
        &[
            "open",
            "com.example.shop",
            "--relaunch",
            "--save-script=login.ad",
            "--app",
            app,
        ],
    );
    assert_eq!(v["lifecycle"], "armed");
    // The daemon's socket and folder are the user's only.
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&dir.join("state/daemon.sock")), 0o600);
        assert_eq!(mode(&dir.join("state")), 0o700);
    }
    let snap = ok(&dir, &["snapshot", "-i"]);
    assert!(snap["nodes"].as_array().is_some_and(|n| !n.is_empty()));
    let o = ad(&dir).args(["session", "snapshot"]).output().unwrap();
    assert!(
        text(&o).contains("textfield \"Email\" id=\"login.email\""),
        "{}",
        text(&o)
    );
    ok(&dir, &["fill", "id=\"login.email\"", "demo@example.com"]);
    let v = ok(
        &dir,
        &[
            "fill",
            "id=\"login.password\"",
            SECRET,
            "--record-as",
            "PASSWORD",
        ],
    );
    assert!(!v.to_string().contains(SECRET));
    ok(&dir, &["press", "label=\"Sign in\" role=\"button\""]);
    ok(&dir, &["wait", "id=\"home.title\""]);
    let v = ok(&dir, &["save-script"]);
    assert_eq!(v["lifecycle"], "published");
    assert_eq!(v["actions"], 5);
    let script = dir.join("login.ad");
    assert_eq!(v["path"], script.to_str().unwrap());
    assert_publishable(&dir, &script);
    // Human output of list.
    let o = ad(&dir).args(["session", "list"]).output().unwrap();
    assert!(
        text(&o).contains("default\tsim\trecording published"),
        "{}",
        text(&o)
    );
    ok(&dir, &["close"]);

    // Cold replay with `ad run`: the destination guard passes and the live session is handed
    // to the daemon (no session file is left), where `ad session` continues it.
    let o = ad(&dir)
        .args([
            "run",
            "login.ad",
            "--json",
            "--session",
            "handoff",
            "--app",
            app,
        ])
        .args(["--artifacts-dir", "runs"])
        .env("AD_VAR_PASSWORD", SECRET)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o));
    let r: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(r["sessionActive"], true);
    assert_eq!(r["session"], "handoff");
    assert!(r.get("sessionFile").is_none_or(Value::is_null), "{r:#}");
    assert!(!dir.join("state/sessions/handoff.json").exists());
    let list = ok(&dir, &["list"]);
    assert_eq!(list["sessions"][0]["name"], "handoff");
    ok(
        &dir,
        &["--session", "handoff", "press", "id=\"tab.profile\""],
    );
    ok(
        &dir,
        &["--session", "handoff", "wait", "id=\"profile.title\""],
    );
    let v = ok(&dir, &["--session", "handoff", "close"]);
    assert_eq!(v["sessionActive"], false);
    assert_daemon_exits(&dir);
    let log = std::fs::read_to_string(dir.join("state/daemon.log")).unwrap();
    assert!(log.contains("started") && log.contains("stopped"), "{log}");
    // Every file the sessions and the run wrote: the script, journals, the daemon's log.
    assert!(assert_no_literal(&dir, SECRET) > 5);
}

#[test]
fn refusals_exit_1_and_name_their_recovery() {
    let dir = scratch("refusals");
    let app = repo().join("examples/apps/shop.json");
    let o = ad(&dir).args(["session", "save-script"]).output().unwrap();
    assert_eq!(o.status.code(), Some(1));
    assert!(text(&o).contains("error[NO_SESSION]"), "{}", text(&o));
    ok(
        &dir,
        &["open", "com.example.shop", "--app", app.to_str().unwrap()],
    );
    let v = session(&dir, &["close", "--save-script=x.ad"]);
    assert_eq!(v["code"], "NOT_RECORDING");
    assert_eq!(v["sessionActive"], true);
    ok(&dir, &["close"]);
    assert!(!dir.join("x.ad").exists());
    assert_daemon_exits(&dir);
}

#[test]
fn session_help_documents_record_as_and_the_literal_input_warning() {
    let o = Command::new(env!("CARGO_BIN_EXE_ad"))
        .args(["session", "--help"])
        .output()
        .unwrap();
    let h = text(&o);
    assert!(
        h.contains("--record-as NAME") && h.contains("literally"),
        "{h}"
    );
    assert!(
        h.contains("save-script") && h.contains("--save-script"),
        "{h}"
    );
}

#[test]
fn record_publish_cold_replay_and_continue_on_the_web_backend() {
    require_chromium();
    let dir = scratch("web");
    let server = FixtureServer::start(&fixture_dir());
    let url = server.url("login.html");
    let v = ok(&dir, &["open", &url, "--save-script=web.ad", "--offline"]);
    assert_eq!(v["lifecycle"], "armed");
    ok(&dir, &["fill", "id=\"email\"", "demo@example.com"]);
    ok(
        &dir,
        &["fill", "id=\"password\"", SECRET, "--record-as", "PASSWORD"],
    );
    ok(&dir, &["press", "id=\"login-submit\""]);
    ok(&dir, &["wait", "id=\"home-title\""]);
    let v = ok(&dir, &["save-script"]);
    let script = dir.join("web.ad");
    assert_eq!(v["path"], script.to_str().unwrap());
    assert_publishable(&dir, &script);
    let published = std::fs::read_to_string(&script).unwrap();
    assert!(published.starts_with("context platform=web"), "{published}");
    ok(&dir, &["close"]);
    assert_no_browser_left(&dir);

    // Cold `ad run` of the published (close-less) script: the run happens in the session
    // daemon, which keeps its browser page; `ad session` continues on that page.
    let o = ad(&dir)
        .args([
            "run",
            "web.ad",
            "--offline",
            "--json",
            "--session",
            "handoff",
        ])
        .args(["--artifacts-dir", "runs"])
        .env("AD_VAR_PASSWORD", SECRET)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o));
    let r: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(r["sessionActive"], true, "{r:#}");
    assert_eq!(r["session"], "handoff");
    assert!(r.get("sessionFile").is_none_or(Value::is_null), "{r:#}");
    assert!(
        !browsers_of(&dir).is_empty(),
        "the handed-over browser lives on"
    );
    assert!(!dir.join("state/sessions").exists());
    let list = ok(&dir, &["list"]);
    assert_eq!(list["sessions"][0]["name"], "handoff", "{list:#}");
    assert_eq!(list["sessions"][0]["backend"], "web", "{list:#}");
    // The page the run logged into: only it says who signed in.
    ok(
        &dir,
        &["--session", "handoff", "wait", "label=\"Welcome, Demo\""],
    );
    let snap = ok(&dir, &["--session", "handoff", "snapshot"]);
    assert!(snap["nodes"].to_string().contains("home-title"), "{snap:#}");
    let v = ok(&dir, &["--session", "handoff", "close"]);
    assert_eq!(v["sessionActive"], false);
    assert_no_browser_left(&dir);

    // Cold replay in a new session (the script's `context platform=web` picks the browser),
    // then the session continues.
    let o = ad(&dir)
        .args([
            "session",
            "--session",
            "cold",
            "replay",
            "web.ad",
            "--offline",
            "--json",
        ])
        .env("AD_VAR_PASSWORD", SECRET)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o));
    let r: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(r["sessionActive"], true);
    assert_eq!(r["replayed"], 5);
    ok(
        &dir,
        &["--session", "cold", "wait", "label=\"Welcome, Demo\""],
    );
    ok(&dir, &["--session", "cold", "close"]);
    assert_daemon_exits(&dir);
    assert_no_literal(&dir, SECRET);
}

#[test]
fn a_fill_text_starting_with_a_dash_is_its_positional() {
    let dir = scratch("dash");
    let app = repo().join("examples/apps/shop.json");
    ok(
        &dir,
        &["open", "com.example.shop", "--app", app.to_str().unwrap()],
    );
    ok(&dir, &["fill", "id=\"login.email\"", "-starts-with-dash"]);
    let o = ad(&dir).args(["session", "snapshot"]).output().unwrap();
    assert!(
        text(&o).contains("value=\"-starts-with-dash\""),
        "{}",
        text(&o)
    );
    // `--` ends the flags: a session flag's spelling is then the text.
    ok(&dir, &["fill", "id=\"login.email\"", "--", "--force"]);
    let o = ad(&dir).args(["session", "snapshot"]).output().unwrap();
    assert!(text(&o).contains("value=\"--force\""), "{}", text(&o));
    ok(&dir, &["close"]);
    assert_daemon_exits(&dir);
}

#[test]
fn the_daemon_serves_other_sessions_while_one_waits() {
    require_chromium();
    let dir = scratch("concurrent");
    let server = FixtureServer::start(&fixture_dir());
    ok(
        &dir,
        &[
            "--session",
            "slow",
            "open",
            &server.url("login.html"),
            "--offline",
        ],
    );
    // A wait that lasts (its element never appears), in a client of its own.
    let mut slow = ad(&dir)
        .args([
            "session",
            "--session",
            "slow",
            "wait",
            "id=\"never\"",
            "10000",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Once the wait has started (its session's journal says so), the daemon answers the list
    // and another session meanwhile.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    while !journals_say(&dir, "\"step_start\"", "never") {
        assert!(
            std::time::Instant::now() < deadline,
            "the wait never started"
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let app = repo().join("examples/apps/shop.json");
    let list = ok(&dir, &["list"]);
    assert_eq!(list["sessions"].as_array().unwrap().len(), 1, "{list:#}");
    ok(
        &dir,
        &[
            "--session",
            "fast",
            "open",
            "com.example.shop",
            "--app",
            app.to_str().unwrap(),
        ],
    );
    ok(&dir, &["--session", "fast", "wait", "id=\"login.email\""]);
    assert!(
        slow.try_wait().unwrap().is_none(),
        "the other session's commands were answered while the wait went on"
    );
    let o = slow.wait_with_output().unwrap();
    assert_eq!(o.status.code(), Some(1), "the wait timed out: {}", text(&o));
    ok(&dir, &["--session", "fast", "close"]);
    ok(&dir, &["--session", "slow", "close"]);
    assert_daemon_exits(&dir);
}

#[test]
fn ctrl_c_stops_a_handoff_run_in_the_daemon_and_a_kill_drops_it_with_its_browser() {
    require_chromium();
    let dir = scratch("sigint");
    let server = FixtureServer::start(&fixture_dir());
    std::fs::write(
        dir.join("long.ad"),
        "context platform=web\nopen \"${URL}\"\nwait 60000\nwait \"id=\\\"email\\\"\"\n",
    )
    .unwrap();
    let url = format!("URL={}", server.url("login.html"));
    for (signal, runs) in [(libc::SIGINT, 1), (libc::SIGKILL, 2)] {
        let child = ad(&dir)
            .args([
                "run",
                "long.ad",
                "--offline",
                "-e",
                &url,
                "--artifacts-dir",
                "runs",
            ])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        // The close-less run goes on in the daemon: wait for its `wait` step to start.
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
        loop {
            let started = std::fs::read_dir(dir.join("runs"))
                .into_iter()
                .flatten()
                .flatten()
                .filter(|run| {
                    std::fs::read_to_string(run.path().join("events.jsonl"))
                        .unwrap_or_default()
                        .lines()
                        .any(|l| l.contains("\"step_start\"") && l.contains("\"step\":2"))
                })
                .count()
                == runs;
            if started && !browsers_of(&dir).is_empty() {
                break;
            }
            assert!(
                std::time::Instant::now() < deadline,
                "the run never reached its wait"
            );
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
        // SAFETY: kill has no memory preconditions; the pid is our own child's.
        unsafe {
            libc::kill(child.id() as i32, signal);
        }
        let o = child.wait_with_output().unwrap();
        if signal == libc::SIGINT {
            // Forwarded: the daemon ended the run at the next step boundary, with its
            // journal's end.
            assert_eq!(o.status.code(), Some(130), "{}", text(&o));
            let run = std::fs::read_dir(dir.join("runs"))
                .unwrap()
                .flatten()
                .next()
                .unwrap();
            let events = std::fs::read_to_string(run.path().join("events.jsonl")).unwrap();
            assert!(
                events.lines().last().unwrap().contains("\"run_end\""),
                "{events}"
            );
        } else {
            // The client is gone: the daemon drops its run.
            assert!(o.status.code().is_none());
        }
        // Either way the run kept no session, and its browser is reaped.
        assert_no_browser_left(&dir);
        let list = ok(&dir, &["list"]);
        assert_eq!(list["sessions"], serde_json::json!([]), "{list:#}");
    }
    assert_daemon_exits(&dir);
}

#[test]
fn without_a_daemon_a_handoff_run_still_runs_here() {
    let dir = scratch("nodaemon");
    // A state folder that cannot be made: no daemon can start.
    std::fs::write(dir.join("file"), "").unwrap();
    let o = ad(&dir)
        .env("AD_STATE_DIR", dir.join("file/state"))
        .args(["run", "-q"])
        .arg(repo().join("examples/handoff-profile.ad"))
        .args(["--artifacts-dir", "runs"])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o));
    assert!(
        text(&o).contains("warning: no session daemon could be started"),
        "{}",
        text(&o)
    );
}

/// Every path a handoff run sends the daemon (which runs in `/`) is absolute: a relative
/// `--app`, script, artifacts folder and `--record-fixture` given from the run's own working
/// directory reach the daemon's run, and the session commands continue on that app.
#[test]
fn a_handoff_run_with_relative_paths_runs_in_the_daemon() {
    let dir = scratch("relative");
    // An app only the explicit model serves (no apps/ folder beside the script knows it).
    std::fs::create_dir_all(dir.join("models")).unwrap();
    std::fs::create_dir_all(dir.join("scripts")).unwrap();
    let model = std::fs::read_to_string(repo().join("examples/apps/shop.json")).unwrap();
    std::fs::write(
        dir.join("models/shop.json"),
        model.replace("com.example.shop", "com.example.relshop"),
    )
    .unwrap();
    let script = std::fs::read_to_string(repo().join("examples/handoff-profile.ad")).unwrap();
    std::fs::write(
        dir.join("scripts/handoff.ad"),
        script.replace("com.example.shop", "com.example.relshop"),
    )
    .unwrap();
    let o = ad(&dir)
        .args(["run", "scripts/handoff.ad", "--app", "models/shop.json"])
        .args(["--session", "relative", "--record-fixture", "fixture"])
        .args(["--artifacts-dir", "runs", "--json"])
        .env("AD_VAR_PASSWORD", SECRET)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o));
    assert!(!text(&o).contains("warning"), "{}", text(&o));
    let r: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(r["sessionActive"], true, "{r:#}");
    assert_eq!(r["location"]["screen"], "profile", "{r:#}");
    // The run's files are where its working directory put them.
    assert!(std::fs::read_dir(dir.join("runs")).unwrap().count() > 0);
    assert!(dir.join("fixture/manifest.json").is_file());
    // The daemon's session is that run's, on its app.
    let v = ok(&dir, &["--session", "relative", "press", "id=\"tab.home\""]);
    assert_eq!(v["sessionActive"], true, "{v:#}");
    ok(&dir, &["--session", "relative", "close"]);
    let manifest = std::fs::read_to_string(dir.join("fixture/manifest.json")).unwrap();
    assert!(manifest.contains("\"relative\""), "{manifest}");
}

/// Runs `cmd` and returns its output, or fails the test when it has not exited within `secs`
/// (a command that would block forever is a failure, not a hung suite).
fn output_within(cmd: &mut Command, secs: u64) -> Output {
    let mut child = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(secs);
    while child.try_wait().unwrap().is_none() {
        if std::time::Instant::now() > deadline {
            let _ = child.kill();
            let o = child.wait_with_output().unwrap();
            panic!("{cmd:?} did not exit within {secs} s: {}", text(&o));
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    child.wait_with_output().unwrap()
}

/// Issue 29, items 6 and 7: `AD_STATE_DIR` naming an existing folder others can write (a 1777
/// one, as `/tmp` is) is refused by `ad session` and by a close-less `ad run` carrying a
/// secret, with the path and the reason; the folder keeps its mode, and nothing is written in
/// it (no daemon, no socket, no session).
#[test]
fn a_state_folder_others_can_write_is_refused_and_left_as_it_is() {
    use std::os::unix::fs::PermissionsExt;
    let dir = scratch("shared");
    let shared = dir.join("shared");
    std::fs::create_dir(&shared).unwrap();
    std::fs::set_permissions(&shared, std::fs::Permissions::from_mode(0o1777)).unwrap();
    let o = ad(&dir)
        .env("AD_STATE_DIR", &shared)
        .args(["session", "list"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    let says = |o: &Output| {
        let t = text(o);
        assert!(
            t.contains(&format!(
                "{}: this folder is writable by others (mode 1777)",
                shared.display()
            )) && t.contains("set AD_STATE_DIR to a folder of your own"),
            "{t}"
        );
    };
    says(&o);
    let o = ad(&dir)
        .env("AD_STATE_DIR", &shared)
        .args(["run", "-q", "--artifacts-dir", "runs", "-e"])
        .arg(format!("PASSWORD={SECRET}"))
        .arg(repo().join("examples/handoff-profile.ad"))
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    says(&o);
    let mode = std::fs::metadata(&shared).unwrap().permissions().mode() & 0o7777;
    assert_eq!(mode, 0o1777, "the folder's mode is left as it was");
    assert_eq!(
        std::fs::read_dir(&shared).unwrap().count(),
        0,
        "nothing is written in it (no socket, no session)"
    );
}

/// Issue 29, item 13: `ad session replay` of a FIFO, of `/dev/zero` and of a script over the
/// 2 MiB cap is refused at once (AD006 for the size, as `ad run` refuses it), and the daemon
/// goes on serving every client.
#[test]
fn replay_refuses_a_fifo_a_device_and_an_over_cap_script_and_the_daemon_keeps_serving() {
    let dir = scratch("replay-inputs");
    let fifo = dir.join("fifo.ad");
    let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    std::os::unix::fs::symlink("/dev/zero", dir.join("zero.ad")).unwrap();
    let big = format!("open com.example.shop\n{}", "wait 1\n".repeat(520_000));
    std::fs::write(dir.join("big.ad"), big).unwrap();
    let app = repo().join("examples/apps/shop.json");
    for (file, says) in [
        ("fifo.ad", "a FIFO, not read"),
        ("zero.ad", "a device, not read"),
        ("big.ad", "over the 2097152-byte limit: not read (AD006)"),
    ] {
        let o = output_within(
            ad(&dir).args(["session", "replay", file, "--app", app.to_str().unwrap()]),
            60,
        );
        assert_eq!(o.status.code(), Some(1), "{file}: {}", text(&o));
        assert!(text(&o).contains(says), "{file}: {}", text(&o));
        let list = output_within(ad(&dir).args(["session", "list", "--json"]), 60);
        assert!(list.status.success(), "{file}: {}", text(&list));
    }
    // `ad run` refuses the same script with the same code.
    let o = ad(&dir).args(["run", "big.ad"]).output().unwrap();
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(text(&o).contains("(AD006)"), "{}", text(&o));
    assert_daemon_exits(&dir);
}

/// Issue 29, item 13: a daemon that takes the connection but never answers (here a listener
/// of the test's own) is reported after the client's timeout, by `ad session` and by a
/// close-less `ad run`, naming the daemon's process and how to stop it.
#[test]
fn a_daemon_that_never_answers_is_reported_with_what_to_do() {
    use std::os::unix::fs::{DirBuilderExt, PermissionsExt};
    let dir = scratch("silent");
    let state = dir.join("state");
    std::fs::DirBuilder::new()
        .mode(0o700)
        .create(&state)
        .unwrap();
    let sock = state.join("daemon.sock");
    let listener = std::os::unix::net::UnixListener::bind(&sock).unwrap();
    std::fs::set_permissions(&sock, std::fs::Permissions::from_mode(0o600)).unwrap();
    // Connections are taken and held, never answered.
    std::thread::spawn(move || {
        let mut held = Vec::new();
        while let Ok((s, _)) = listener.accept() {
            held.push(s);
        }
    });
    let pid = std::process::id();
    let says = |o: &Output| {
        let t = text(o);
        assert!(
            t.contains(&format!(
                "the session daemon (pid {pid}, {}) has not answered for 0.3 s",
                sock.display()
            )) && t.contains(&format!("stop it with `kill {pid}` and retry")),
            "{t}"
        );
    };
    let o = output_within(
        ad(&dir)
            .env("AD_SESSION_TIMEOUT_MS", "300")
            .args(["session", "list"]),
        60,
    );
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    says(&o);
    let o = output_within(
        ad(&dir)
            .env("AD_SESSION_TIMEOUT_MS", "300")
            .env("AD_VAR_PASSWORD", SECRET)
            .args(["run", "-q", "--artifacts-dir", "runs"])
            .arg(repo().join("examples/handoff-profile.ad")),
        60,
    );
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    says(&o);
}

/// The session daemon serving the state folder `state` (a process `ad session __daemon` with
/// `AD_STATE_DIR=<state>`): its PID and its environment.
fn session_daemon(state: &Path) -> Option<(u32, Vec<String>)> {
    let needle = format!("AD_STATE_DIR={}", state.display());
    std::fs::read_dir("/proc").ok()?.flatten().find_map(|e| {
        let pid: u32 = e.file_name().to_string_lossy().parse().ok()?;
        let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).ok()?;
        if !String::from_utf8_lossy(&cmdline).contains("session\0__daemon") {
            return None;
        }
        let environ = std::fs::read(format!("/proc/{pid}/environ")).ok()?;
        let env: Vec<String> = environ
            .split(|b| *b == 0)
            .map(|kv| String::from_utf8_lossy(kv).into_owned())
            .collect();
        env.contains(&needle).then_some((pid, env))
    })
}

/// A page that shows the browser's time zone, which Chromium takes from `TZ`.
const TZ_PAGE: &str = "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>zone</title></head><body><p id=\"zone\"></p><script>document.getElementById('zone').textContent = 'zone ' + Intl.DateTimeFormat().resolvedOptions().timeZone;</script></body></html>";

/// Issue 29, item 1: the session daemon is started by `CHROME_PATH=/nonexistent ad session list`
/// (with another time zone); a close-less `ad run --backend web` in a correct environment then
/// passes in that daemon, its browser in the run's environment (the page shows the run's `TZ`).
/// A later `ad session` command typed with `CHROME_PATH=/nonexistent` and a third `TZ` continues
/// on the session's own browser and environment.
#[test]
fn a_handoff_run_uses_the_environment_of_its_ad_run_not_the_daemons() {
    require_chromium();
    let dir = scratch("env");
    std::fs::create_dir_all(dir.join("site")).unwrap();
    std::fs::write(dir.join("site/tz.html"), TZ_PAGE).unwrap();
    let server = FixtureServer::start(&dir.join("site"));
    let url = server.url("tz.html");
    let started = ad(&dir)
        .args(["session", "list"])
        .env("CHROME_PATH", "/nonexistent")
        .env("TZ", "UTC")
        .output()
        .unwrap();
    assert!(started.status.success(), "{}", text(&started));
    let (daemon, daemon_env) = session_daemon(&dir.join("state")).expect("the daemon started");
    assert!(
        daemon_env.iter().any(|kv| kv == "CHROME_PATH=/nonexistent"),
        "the daemon has the first command's environment"
    );
    std::fs::write(
        dir.join("page.ad"),
        format!("context platform=web\nopen \"{url}\"\nwait \"text\" \"zone Asia/Tokyo\" 5000\n"),
    )
    .unwrap();
    let o = ad(&dir)
        .args(["run", "--backend", "web", "page.ad", "--offline", "--json"])
        .args(["--session", "tz", "--artifacts-dir", "runs"])
        .env_remove("CHROME_PATH")
        .env("TZ", "Asia/Tokyo")
        .env("AD_ENV_MARKER", "env-value-5d1c")
        .env("AD_VAR_TOKEN", "injected-7f2e")
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o));
    let r: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(r["sessionActive"], true, "{r:#}");
    // The browser runs in exactly the run's environment: its variables, not the daemon's, and
    // no injected value.
    let browser = *browsers_of(&dir)
        .first()
        .expect("the session's browser runs");
    let environ =
        String::from_utf8_lossy(&std::fs::read(format!("/proc/{browser}/environ")).unwrap())
            .into_owned();
    let vars: Vec<&str> = environ.split('\0').collect();
    assert!(vars.contains(&"TZ=Asia/Tokyo"), "{vars:?}");
    assert!(vars.contains(&"AD_ENV_MARKER=env-value-5d1c"), "{vars:?}");
    assert!(
        !vars.iter().any(|kv| kv.starts_with("CHROME_PATH=")),
        "{vars:?}"
    );
    assert!(!vars.iter().any(|kv| kv.starts_with("AD_VAR_")), "{vars:?}");
    assert_eq!(
        session_daemon(&dir.join("state")).map(|d| d.0),
        Some(daemon),
        "the run was served by the daemon started in the other environment"
    );
    // A later command in yet another environment: the session keeps its browser and its own.
    let later = |words: &[&str]| {
        let o = ad(&dir)
            .args(["session", "--session", "tz", "--json"])
            .args(words)
            .env("CHROME_PATH", "/nonexistent")
            .env("TZ", "Europe/Paris")
            .output()
            .unwrap();
        let v: Value =
            serde_json::from_slice(&o.stdout).unwrap_or_else(|_| panic!("{words:?}: {}", text(&o)));
        assert_eq!(v["ok"], true, "{words:?}: {v:#}");
    };
    later(&["open", &url]);
    later(&["wait", "text", "zone Asia/Tokyo", "5000"]);
    later(&["close"]);
    // A session `ad session open` creates runs in that command's environment too.
    for words in [
        &["open", url.as_str(), "--offline"][..],
        &["wait", "text", "zone America/New_York", "5000"],
        &["close"],
    ] {
        let o = ad(&dir)
            .args(["session", "--session", "opened", "--json"])
            .args(words)
            .env_remove("CHROME_PATH")
            .env("TZ", "America/New_York")
            .output()
            .unwrap();
        let v: Value =
            serde_json::from_slice(&o.stdout).unwrap_or_else(|_| panic!("{words:?}: {}", text(&o)));
        assert_eq!(v["ok"], true, "{words:?}: {v:#}");
    }
    assert_eq!(
        session_daemon(&dir.join("state")).map(|d| d.0),
        Some(daemon),
        "one daemon served every session"
    );
    assert_no_browser_left(&dir);
    assert_daemon_exits(&dir);
    // The environment crossed the socket only: no file the run or the daemon wrote holds it.
    assert_no_literal(&dir, "env-value-5d1c");
    assert_no_literal(&dir, "injected-7f2e");
}

/// The modes of every file and folder under `dir`.
fn modes(dir: &Path) -> Vec<(PathBuf, u32)> {
    use std::os::unix::fs::PermissionsExt;
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            let mode = e.metadata().unwrap().permissions().mode() & 0o777;
            if e.file_type().unwrap().is_dir() {
                stack.push(p.clone());
            }
            out.push((p, mode));
        }
    }
    assert!(!out.is_empty(), "{} is empty", dir.display());
    out
}

/// Every file under `dir` has mode `file`, every folder `folder`.
fn assert_modes(dir: &Path, file: u32, folder: u32) {
    for (p, mode) in modes(dir) {
        let want = if p.is_dir() { folder } else { file };
        assert_eq!(mode, want, "{}: {mode:o}, not {want:o}", p.display());
    }
}

/// `ad args…` in `dir` under umask `mask`.
fn ad_under_umask(dir: &Path, mask: u32, args: &[&str]) -> Output {
    use std::os::unix::process::CommandExt;
    let mut c = ad(dir);
    c.args(args);
    // SAFETY: umask is async-signal-safe and cannot fail.
    unsafe {
        c.pre_exec(move || {
            libc::umask(mask as libc::mode_t);
            Ok(())
        });
    }
    c.output().unwrap()
}

/// Issue 29: the umask and mode of the files a daemon writes for a run are those of the `ad run`
/// that asked, not the daemon's (started under umask 022): a run under 077 gets a private run
/// folder and fixture, one under 002 group-writable ones; the files it writes for the live
/// session the run left (its fixture's session log, at `close`) keep the session's umask, whatever
/// the `ad session` command's.
#[test]
fn files_the_daemon_writes_for_a_run_get_the_umask_of_its_ad_run() {
    let dir = scratch("umask");
    let started = ad_under_umask(&dir, 0o022, &["session", "list"]);
    assert!(started.status.success(), "{}", text(&started));
    let (daemon, _) = session_daemon(&dir.join("state")).expect("the daemon started");
    let script = repo().join("examples/handoff-profile.ad");
    let model = repo().join("examples/apps/shop.json");
    let run = |mask: u32, session: &str, extra: &[&str]| {
        let mut args = vec![
            "run",
            script.to_str().unwrap(),
            "--app",
            model.to_str().unwrap(),
        ];
        args.extend(["--session", session, "--artifacts-dir", session, "--json"]);
        args.extend_from_slice(extra);
        let o = ad_under_umask(&dir, mask, &args);
        assert!(o.status.success(), "{}", text(&o));
        let r: Value = serde_json::from_slice(&o.stdout).unwrap();
        assert_eq!(r["sessionActive"], true, "{r:#}");
    };
    run(0o077, "private", &["--record-fixture", "fixture"]);
    assert_modes(&dir.join("private"), 0o600, 0o700);
    assert_modes(&dir.join("fixture"), 0o600, 0o700);
    // The session's later commands come from a umask 022 shell: its files keep the session's.
    std::fs::create_dir(dir.join("shots")).unwrap();
    let shot = dir.join("shots/home.png");
    for words in [
        &["press", "id=\"tab.home\""][..],
        &["screenshot", shot.to_str().unwrap()],
        &["close"],
    ] {
        let mut args = vec!["session", "--session", "private"];
        args.extend_from_slice(words);
        let o = ad_under_umask(&dir, 0o022, &args);
        assert!(o.status.success(), "{words:?}: {}", text(&o));
    }
    let manifest = std::fs::read_to_string(dir.join("fixture/manifest.json")).unwrap();
    assert!(manifest.contains("\"private\""), "{manifest}");
    assert_modes(&dir.join("fixture"), 0o600, 0o700);
    assert_modes(&dir.join("shots"), 0o600, 0o700);
    run(0o002, "shared", &[]);
    assert_modes(&dir.join("shared"), 0o664, 0o775);
    assert_eq!(
        session_daemon(&dir.join("state")).map(|d| d.0),
        Some(daemon),
        "one daemon served every run"
    );
    let o = ad(&dir)
        .args(["session", "--session", "shared", "close"])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o));
    assert_daemon_exits(&dir);
}

/// Issue 29: `ad session screenshot shot.png` writes the PNG to that path, relative to the
/// folder the command was typed in (an absolute path as given; none: `screenshot-<ms>.png` there),
/// on the sim and on the web.
#[test]
fn a_session_screenshot_writes_the_png_to_the_path_typed() {
    require_chromium();
    let png = |p: &Path| {
        let bytes = std::fs::read(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
        assert!(
            bytes.starts_with(b"\x89PNG\r\n\x1a\n"),
            "{} is not a PNG",
            p.display()
        );
        bytes.len()
    };
    let dir = scratch("screenshot");
    let server = FixtureServer::start(&fixture_dir());
    let app = repo().join("examples/apps/shop.json");
    let url = server.url("login.html");
    let apps = [
        (
            "sim",
            vec!["com.example.shop", "--app", app.to_str().unwrap()],
        ),
        ("web", vec![url.as_str(), "--offline"]),
    ];
    for (name, open) in apps {
        let mut words = vec!["--session", name, "open"];
        words.extend(open);
        ok(&dir, &words);
        let relative = format!("{name}/shot.png");
        let v = ok(&dir, &["--session", name, "screenshot", &relative]);
        let path = dir.join(&relative);
        assert_eq!(v["result"]["path"], path.to_str().unwrap(), "{v:#}");
        assert_eq!(v["result"]["bytes"], png(&path), "{v:#}");
        let absolute = dir.join(format!("{name}-abs.png"));
        ok(
            &dir,
            &["--session", name, "screenshot", absolute.to_str().unwrap()],
        );
        png(&absolute);
        // Bare, as agent-device's client does: `screenshot-<epoch ms>.png` where it was typed.
        let bare = dir.join(format!("{name}-bare"));
        std::fs::create_dir_all(&bare).unwrap();
        let o = ad(&dir)
            .current_dir(&bare)
            .args(["session", "--session", name, "screenshot", "--json"])
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", text(&o));
        let v: Value = serde_json::from_slice(&o.stdout).unwrap();
        let written = v["result"]["path"].as_str().unwrap_or_default();
        let file = Path::new(written);
        assert_eq!(file.parent(), Some(bare.as_path()), "{v:#}");
        let file_name = file.file_name().unwrap().to_str().unwrap();
        assert!(
            file_name.starts_with("screenshot-")
                && file_name.ends_with(".png")
                && file_name["screenshot-".len()..file_name.len() - 4]
                    .chars()
                    .all(|c| c.is_ascii_digit()),
            "{v:#}"
        );
        assert_eq!(v["result"]["bytes"], png(file), "{v:#}");
        ok(&dir, &["--session", name, "close"]);
    }
    assert_daemon_exits(&dir);
}

/// Issue 29: a step the publisher would refuse (`longpress … 99999999999999`, AD118) is refused
/// when it is sent, before the app or the recording sees it, so `close` still publishes; a
/// recording that cannot be published (an unlabeled element's ref stays `@ref`) makes `close`,
/// `close --force` and `close --save-script=alt.ad` refuse, naming the way out of ADR 0016: a
/// plain `open` aborts the recording, then `close` ends the session without writing.
#[test]
fn an_unpublishable_step_is_refused_when_sent_and_an_unpublishable_recording_names_its_way_out() {
    let dir = scratch("unpublishable");
    let app = repo().join("examples/apps/shop.json");
    let app = app.to_str().unwrap();
    ok(
        &dir,
        &[
            "open",
            "com.example.shop",
            "--save-script=r.ad",
            "--app",
            app,
        ],
    );
    let v = session(&dir, &["longpress", "10", "100", "99999999999999"]);
    assert_eq!(v["code"], "AD118", "{v:#}");
    assert!(v["message"].as_str().unwrap().contains("not sent"), "{v:#}");
    assert_eq!(
        (v["sessionActive"].clone(), v["lifecycle"].clone()),
        (true.into(), "armed".into())
    );
    // A replayed step is checked as it would be recorded (its value expanded).
    std::fs::write(
        dir.join("long.ad"),
        "env D=99999999999999\nlongpress 10 100 ${D}\n",
    )
    .unwrap();
    let v = session(&dir, &["replay", "long.ad"]);
    assert_eq!(
        (v["code"].clone(), v["replayed"].clone()),
        ("AD118".into(), 0.into()),
        "{v:#}"
    );
    assert_eq!(ok(&dir, &["list"])["sessions"][0]["recordedActions"], 1);
    ok(&dir, &["close"]);
    let script = std::fs::read_to_string(dir.join("r.ad")).unwrap();
    assert!(!script.contains("longpress"), "{script}");
    let o = ad(&dir).args(["check", "r.ad"]).output().unwrap();
    assert!(o.status.success(), "{}", text(&o));

    let echo = repo().join("runtime/tests/fixtures/authoring/echo.json");
    let s = |words: &[&str]| {
        let mut all = vec!["--session", "anon"];
        all.extend_from_slice(words);
        session(&dir, &all)
    };
    let v = s(&[
        "open",
        "com.example.echo",
        "--save-script=anon.ad",
        "--app",
        echo.to_str().unwrap(),
    ]);
    assert_eq!(v["ok"], true, "{v:#}");
    let nodes = s(&["snapshot"]);
    let image = nodes["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|n| n["type"] == "image")
        .map(|n| format!("@{}", n["ref"].as_str().unwrap()))
        .expect("the unlabeled image");
    assert_eq!(s(&["hover", &image])["ok"], true);
    for close in [
        &["close"][..],
        &["close", "--force"],
        &["close", "--save-script=alt.ad"],
    ] {
        let v = s(close);
        assert_eq!(v["ok"], false, "{close:?}: {v:#}");
        assert_eq!(v["sessionActive"], true, "{close:?}: {v:#}");
        let message = v["message"].as_str().unwrap();
        assert!(
            message.contains("`ad session --session anon open com.example.echo`")
                && message.contains("then `ad session --session anon close`"),
            "{close:?}: {message}"
        );
    }
    assert_eq!(s(&["open", "com.example.echo"])["lifecycle"], "aborted");
    let v = s(&["close"]);
    assert_eq!(
        (v["ok"].clone(), v["sessionActive"].clone()),
        (true.into(), false.into()),
        "{v:#}"
    );
    assert!(!dir.join("anon.ad").exists() && !dir.join("alt.ad").exists());
    assert_daemon_exits(&dir);
}
