//! `ad run --backend agent-device` end to end against agent-device 0.21.5's Linux (AT-SPI)
//! platform driving the GTK3 test app (tests/apps/gtk_login) on a virtual display: fills, taps,
//! waits, the journal with its screenshots (fetched as artifacts over HTTP), an identity mismatch,
//! a divergence report and a `--from N --plan-digest` resume, errors kept as agent-device reports
//! them, every gesture kind (what Linux plays and what it refuses), a journey recorded with
//! `ad session` and replayed, a run recorded as a fixture and replayed offline, and the release
//! of the daemon and app `ad` started on success, failure, Ctrl-C and `kill -9`.
//!
//! Needs xvfb, dbus, AT-SPI, python3-gi and agent-device; a missing one fails the test with what
//! to install (scripts/test-all.sh installs them).

mod agent_device_support;

use std::path::{Path, PathBuf};
use std::time::Duration;

use agent_device_support::{alive, gone_within, json, Desktop};
use serde_json::Value;

const LOGIN: &str = r#"context platform=linux
open ad-gtk-login
fill "label=Username" "alice"
fill "label=Password" "${PASSWORD}"
click "label=\"Sign In\""
wait "label=\"Welcome, alice\"" 8000
click "label=Bananas"
wait "label=\"Chosen: Bananas\"" 5000
click "label=Delete"
wait "label=\"Delete Bananas?\"" 5000
click "label=Cancel"
wait "label=\"Kept Bananas\"" 5000
screenshot
close
"#;

fn stderr(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// The daemon `ad` started: the state dir it made under the temp dir for this `ad` process.
fn owned_daemon_pid(ad_pid: u32) -> Option<i32> {
    let prefix = format!("ad-agent-device-{ad_pid}-");
    std::fs::read_dir(std::env::temp_dir())
        .ok()?
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with(&prefix))
        .find_map(|e| {
            let v: Value =
                serde_json::from_str(&std::fs::read_to_string(e.path().join("daemon.json")).ok()?)
                    .ok()?;
            v["pid"].as_i64().map(|p| p as i32)
        })
}

fn events(run_dir: &str) -> Vec<Value> {
    std::fs::read_to_string(Path::new(run_dir).join("events.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[test]
fn login_flow_passes_journals_a_screenshot_and_releases_the_daemon_and_app() {
    let d = Desktop::start("login");
    d.script("login.ad", LOGIN);
    let out = d.ad(&[
        "run",
        "login.ad",
        "--backend",
        "agent-device",
        "--json",
        "-e",
        "PASSWORD=hunter2",
    ]);
    let r = json(&out);
    assert_eq!(r["ok"], true, "{r:#}\n{}", stderr(&out));
    assert_eq!(r["replayed"], 13);
    // The session went with the daemon ad started.
    assert_eq!(r["sessionActive"], false);
    // The secret never reaches the journal.
    let run_dir = d.dir.join(r["runDir"].as_str().unwrap());
    let run_dir = run_dir.to_str().unwrap();
    for f in walk(Path::new(run_dir)) {
        let bytes = std::fs::read(&f).unwrap();
        assert!(
            !String::from_utf8_lossy(&bytes).contains("hunter2"),
            "{} holds the injected value",
            f.display()
        );
    }
    let shots: Vec<_> = walk(Path::new(run_dir))
        .into_iter()
        .filter(|p| p.extension().is_some_and(|e| e == "png"))
        .collect();
    assert_eq!(shots.len(), 1, "one screenshot observation");
    assert!(std::fs::read(&shots[0]).unwrap().starts_with(b"\x89PNG"));
    assert!(!events(run_dir).is_empty());
    // ad started the daemon, which started the app: both are gone.
    let app = d.app_pid(Duration::ZERO).expect("the app ran");
    assert!(
        gone_within(app, Duration::from_secs(5)),
        "the app outlived ad"
    );
}

/// The run folder holds exactly one screenshot observation, a PNG.
fn assert_one_png(run_dir: &Path) {
    let shots: Vec<_> = walk(run_dir)
        .into_iter()
        .filter(|p| p.extension().is_some_and(|e| e == "png"))
        .collect();
    assert_eq!(
        shots.len(),
        1,
        "one screenshot observation in {}",
        run_dir.display()
    );
    assert!(std::fs::read(&shots[0]).unwrap().starts_with(b"\x89PNG"));
}

fn walk(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else if p.is_file() {
            out.push(p);
        }
    }
    out
}

const REMEMBER: &str = r#"context platform=linux
open ad-gtk-login
# agent-device:target-v1 {"role":"checkbox","label":"Remember me","ancestry":[],"sibling":3,"viewportOrder":3,"verification":"verified"}
click "label=\"Remember me\""
wait "label=\"Signed out\"" 2000
close
"#;

#[test]
fn a_swapped_role_is_an_identity_mismatch_and_the_app_is_released() {
    let mut d = Desktop::start("identity");
    d.script("remember.ad", REMEMBER);
    // The unswapped app verifies.
    let ok = d.ad(&["run", "remember.ad", "--backend", "agent-device", "--json"]);
    assert_eq!(json(&ok)["ok"], true, "{}", stderr(&ok));
    d.kill_app();
    d.set_env("AD_GTK_SWAP", "1");
    let out = d.ad(&["run", "remember.ad", "--backend", "agent-device", "--json"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let r = json(&out);
    let div = &r["error"]["details"]["divergence"];
    assert_eq!(div["kind"], "identity-mismatch", "{r:#}");
    assert_eq!(r["error"]["details"]["step"], 2);
    // The report offers a resume, so ad's session daemon keeps the app (and the agent-device
    // daemon the run started) for it until the session is closed (agent_device_resume.rs).
    let app = d.app_pid(Duration::ZERO).expect("the app ran");
    assert!(
        alive(app),
        "the app a resume needs ended with the failed run"
    );
    let closed = d.ad(&["session", "close", "--json"]);
    assert_eq!(json(&closed)["ok"], true, "{}", stderr(&closed));
    assert!(
        gone_within(app, Duration::from_secs(5)),
        "the app outlived the failed run's closed session"
    );
}

#[test]
fn a_divergence_reports_and_resumes_from_its_step_on_the_attached_daemon() {
    let mut d = Desktop::start("resume");
    // The welcome screen takes 3 s: the 500 ms wait diverges, the resume finds it. (The app
    // inherits the daemon's environment.)
    d.set_env("AD_GTK_WELCOME_MS", "3000");
    d.set_env("AD_SESSION_IDLE_MS", "5000");
    d.start_daemon();
    d.script(
        "slow.ad",
        r#"context platform=linux
open ad-gtk-login
fill "label=Username" "alice"
fill "label=Password" "secret"
click "label=\"Sign In\""
wait "label=\"Welcome, alice\"" 500
click "label=Cherries"
wait "label=\"Chosen: Cherries\"" 5000
"#,
    );
    let args = [
        "run",
        "slow.ad",
        "--backend",
        "agent-device",
        "--json",
        "--session",
        "resume",
    ];
    let first = d.ad(&args);
    assert_eq!(first.status.code(), Some(1), "{}", stderr(&first));
    let r = json(&first);
    assert_eq!(r["error"]["details"]["step"], 5, "{r:#}");
    let digest = r["planDigest"].as_str().unwrap().to_string();
    let report = &r["error"]["details"]["divergence"];
    assert_eq!(
        report["resume"]["planDigest"],
        digest.as_str(),
        "{report:#}"
    );
    // The attached daemon and the app are left as the script left them.
    let app = d.app_pid(Duration::ZERO).expect("the app ran");
    assert!(alive(app));
    std::thread::sleep(Duration::from_secs(3));
    let mut resume = args.to_vec();
    resume.extend(["--from", "5", "--plan-digest", &digest]);
    let second = d.ad(&resume);
    let r2 = json(&second);
    assert_eq!(r2["ok"], true, "{r2:#}\n{}", stderr(&second));
    assert_eq!(r2["replayed"], 3);
    // The resumed run is close-less: its session stays in ad's session daemon until closed.
    assert_eq!(r2["sessionActive"], true, "{r2:#}");
    // (The app stays: the first run opened it, and agent-device's `close` leaves a desktop app.)
    let closed = d.ad(&["session", "close", "--session", "resume", "--json"]);
    assert_eq!(json(&closed)["ok"], true, "{}", stderr(&closed));
}

#[test]
fn agent_device_errors_keep_code_message_hint_and_name_the_platform() {
    let d = Desktop::start("unsupported");
    d.script(
        "alert.ad",
        "context platform=linux\nopen ad-gtk-login\nalert get\n",
    );
    let out = d.ad(&["run", "alert.ad", "--backend", "agent-device", "--json"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let r = json(&out);
    let e = &r["error"]["details"]["divergence"]["cause"];
    assert_eq!(e["code"], "UNSUPPORTED_OPERATION", "{r:#}");
    let message = e["message"].as_str().unwrap();
    assert!(
        message.contains("alert") && message.contains("linux"),
        "{message}"
    );
    assert!(e["hint"].as_str().is_some_and(|h| !h.is_empty()), "{e:#}");
}

/// No display: a daemon `ad` starts for a Linux run could not reach the desktop, so the run is
/// a set-up error naming what is missing and how to get it (exit 2, no divergence), and the
/// daemon it started is stopped.
#[test]
fn a_linux_run_without_a_display_is_a_set_up_error() {
    let mut d = Desktop::start("no-display");
    d.set_env("DISPLAY", "");
    d.script(
        "nodisplay.ad",
        "context platform=linux\nopen ad-gtk-login\nclose\n",
    );
    let child = d
        .ad_command(&["run", "nodisplay.ad", "--backend", "agent-device"])
        .env_remove("WAYLAND_DISPLAY")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let ad_pid = child.id();
    let out = child.wait_with_output().unwrap();
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("error[BACKEND_UNAVAILABLE]: the agent-device backend cannot start: no display: DISPLAY and WAYLAND_DISPLAY are unset"),
        "{err}"
    );
    assert!(
        err.contains("help: run inside the desktop session"),
        "{err}"
    );
    for divergence in [
        "REPLAY_DIVERGENCE",
        "Repair hint",
        "--plan-digest",
        "--from",
    ] {
        assert!(!err.contains(divergence), "{divergence}: {err}");
    }
    if let Some(daemon) = owned_daemon_pid(ad_pid) {
        assert!(
            gone_within(daemon, Duration::from_secs(5)),
            "the daemon ad started outlived it"
        );
    }
    assert!(d.app_pid(Duration::ZERO).is_none(), "no app was opened");
}

/// agent-device's own `TOOL_MISSING` met at a step (here: `python3` without the AT-SPI bindings
/// for its snapshot script, while `ad`'s own check before step 1, a `python3 -c`, passes; a
/// python3 that fails that check is agent_device_prereqs.rs's) is what the desktop lacks, not
/// what the script did: a set-up error with agent-device's words, exit 2, no divergence report
/// and no resume line.
#[test]
fn platform_tooling_agent_device_reports_missing_is_a_set_up_error() {
    let mut d = Desktop::start("tool-missing");
    let shim = d.dir.join("no-gi");
    std::fs::create_dir_all(&shim).unwrap();
    let python = shim.join("python3");
    std::fs::write(
        &python,
        "#!/bin/sh\nif [ \"$1\" = -c ]; then exec /usr/bin/python3 \"$@\"; fi\necho \"ModuleNotFoundError: No module named 'gi'\" >&2\nexit 1\n",
    )
    .unwrap();
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&python, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    // The app itself runs on /usr/bin/python3 (its shebang); agent-device's snapshot runs the
    // `python3` on PATH, which is the shim.
    let path = format!(
        "{}:/usr/bin:{}:{}",
        shim.display(),
        agent_device_support::repo()
            .join("tests/apps/gtk_login")
            .display(),
        std::env::var("PATH").unwrap_or_default()
    );
    d.set_env("PATH", &path);
    d.script(
        "tooling.ad",
        "context platform=linux\nopen ad-gtk-login\nwait \"label=Username\" 5000\nclose\n",
    );
    let out = d.ad(&["run", "tooling.ad", "--backend", "agent-device"]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("error[BACKEND_UNAVAILABLE]: the agent-device backend cannot start: AT-SPI2 Python bindings not found"),
        "{err}"
    );
    assert!(err.contains("  --> tooling.ad:3"), "{err}");
    for divergence in [
        "REPLAY_DIVERGENCE",
        "Repair hint",
        "--plan-digest",
        "--from",
    ] {
        assert!(!err.contains(divergence), "{divergence}: {err}");
    }
}

// Its `close` keeps the run in `ad run` (a close-less one runs in the session daemon).
const PARKED: &str =
    "context platform=linux\nopen ad-gtk-login\nwait \"label=Never\" 60000\nclose\n";

#[test]
fn kill_9_of_ad_takes_its_daemon_and_app_with_it() {
    let d = Desktop::start("kill9");
    d.script("parked.ad", PARKED);
    let mut child = d
        .ad_command(&["run", "parked.ad", "--backend", "agent-device", "-q"])
        .spawn()
        .unwrap();
    let app = d.app_pid(Duration::from_secs(30)).expect("the app started");
    // (The run, and the daemon it started, are in ad's session daemon, which ends them when
    // its client goes.)
    let daemon = d.owned_daemon().expect("ad started a daemon");
    assert!(alive(daemon) && alive(app));
    child.kill().unwrap();
    let _ = child.wait();
    assert!(
        gone_within(daemon, Duration::from_secs(10)),
        "the daemon outlived kill -9 of ad"
    );
    assert!(
        gone_within(app, Duration::from_secs(10)),
        "the app outlived kill -9 of ad"
    );
    // What kill -9 leaves: the state dir (the next run that starts a daemon removes it).
    let prefix = format!("ad-agent-device-{}-", child.id());
    for e in std::fs::read_dir(std::env::temp_dir()).unwrap().flatten() {
        if e.file_name().to_string_lossy().starts_with(&prefix) {
            let _ = std::fs::remove_dir_all(e.path());
        }
    }
}

#[test]
fn ctrl_c_stops_the_run_and_releases_the_daemon_and_app() {
    let d = Desktop::start("sigint");
    d.script("parked.ad", PARKED);
    let child = d
        .ad_command(&["run", "parked.ad", "--backend", "agent-device", "-q"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let app = d.app_pid(Duration::from_secs(30)).expect("the app started");
    let daemon = d.owned_daemon().expect("ad started a daemon");
    // SAFETY: a signal to the child this test spawned.
    unsafe {
        libc::kill(child.id() as i32, libc::SIGINT);
    }
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(130));
    assert!(
        gone_within(daemon, Duration::from_secs(10)),
        "the daemon outlived Ctrl-C"
    );
    assert!(
        gone_within(app, Duration::from_secs(10)),
        "the app outlived Ctrl-C"
    );
}

const SHORT: &str = r#"context platform=linux
open ad-gtk-login
fill "label=Username" "bob"
fill "label=Password" "pw"
click "label=\"Sign In\""
wait "label=\"Welcome, bob\"" 8000
"#;

#[test]
fn http_json_rpc_locally_and_as_a_remote_daemon_without_leaking_the_token() {
    let mut d = Desktop::start("http");
    d.set_env("AD_SESSION_IDLE_MS", "5000");
    d.set_env("AGENT_DEVICE_DAEMON_SERVER_MODE", "http");
    d.start_daemon();
    d.script("short.ad", SHORT);
    // The screenshot is taken on the daemon's machine and fetched as an artifact over HTTP.
    d.script("shot.ad", &format!("{SHORT}screenshot\n"));
    // Attached through daemon.json: an http-only daemon is reached over its JSON-RPC endpoint.
    let local = d.ad(&[
        "run",
        "shot.ad",
        "--backend",
        "agent-device",
        "--json",
        "--session",
        "local",
    ]);
    let r = json(&local);
    assert_eq!(r["ok"], true, "{r:#}\n{}", stderr(&local));
    assert_one_png(&d.dir.join(r["runDir"].as_str().unwrap()));
    d.kill_app();
    d.agent_device(&["close", "--session", "local", "--platform", "linux"]);
    // The same daemon as a remote one: base URL + token, no state dir to read.
    let Remote { url, token, .. } = attach_as_remote(&mut d);
    let remote = d.ad(&[
        "run",
        "shot.ad",
        "--backend",
        "agent-device",
        "--json",
        "--session",
        "remote",
    ]);
    let r = json(&remote);
    assert_eq!(r["ok"], true, "{r:#}\n{}", stderr(&remote));
    assert!(!String::from_utf8_lossy(&remote.stdout).contains(&token));
    assert!(!stderr(&remote).contains(&token));
    let run_dir = d.dir.join(r["runDir"].as_str().unwrap());
    assert_one_png(&run_dir);
    // Nothing ad wrote holds the token: the run folder, the test's folder (ad's state) and
    // its temp files.
    for f in walk(&d.dir) {
        assert!(
            !String::from_utf8_lossy(&std::fs::read(&f).unwrap()).contains(&token)
                || f.starts_with(d.state_dir()),
            "{} holds the daemon token",
            f.display()
        );
    }
    // `ad doctor` names the remote daemon it reaches, and what it runs on.
    let doctor = d.ad(&["doctor", "--json"]);
    let row = &json(&doctor)["backends"][2];
    assert_eq!(row["usable"], true, "{row:#}");
    let described = format!("daemon: remote, reachable ({}", url.replacen("://", " ", 1));
    assert!(
        row["notes"][0]
            .as_str()
            .is_some_and(|n| n.starts_with(&described)),
        "{row:#}"
    );
    assert_eq!(row["notes"][1], "platforms: linux", "{row:#}");
    assert!(!String::from_utf8_lossy(&doctor.stdout).contains(&token));
    // A wrong token is agent-device's UNAUTHORIZED, kept as it says it.
    d.set_env("AGENT_DEVICE_DAEMON_AUTH_TOKEN", "not-the-token");
    let doctor = d.ad(&["doctor", "--json"]);
    let row = &json(&doctor)["backends"][2];
    assert_eq!(row["usable"], false, "{row:#}");
    assert!(
        row["missing"][0]
            .as_str()
            .is_some_and(|m| m.contains("refuses the token")),
        "{row:#}"
    );
    let refused = d.ad(&[
        "run",
        "short.ad",
        "--backend",
        "agent-device",
        "--json",
        "--session",
        "other",
    ]);
    let e = &json(&refused)["error"];
    assert_eq!(
        e["details"]["divergence"]["cause"]["code"], "UNAUTHORIZED",
        "{e:#}"
    );
    // The close-less runs' sessions were handed over to ad's session daemon (the remote one
    // with the token it travelled with): `ad session close` ends them.
    for session in ["local", "remote"] {
        let out = d.ad(&["session", "close", "--session", session, "--json"]);
        assert_eq!(json(&out)["ok"], true, "{session}: {}", stderr(&out));
        assert!(!String::from_utf8_lossy(&out.stdout).contains(&token));
    }
}

#[test]
fn ad_test_runs_a_suite_on_one_daemon_releasing_each_scripts_session_and_app() {
    let d = Desktop::start("suite");
    std::fs::create_dir_all(d.dir.join("suite")).unwrap();
    // The failing script never reaches its close: its session must still be released, or the
    // next script's open is refused (DEVICE_IN_USE).
    d.script(
        "suite/a-fails.ad",
        "context platform=linux\nopen ad-gtk-login\nwait \"label=Never\" 1000\nclose\n",
    );
    d.script("suite/b-passes.ad", &format!("{SHORT}close\n"));
    let out = d.ad(&[
        "test",
        "suite",
        "--backend",
        "agent-device",
        "--report-json",
        "report.json",
    ]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let report: Value =
        serde_json::from_str(&std::fs::read_to_string(d.dir.join("report.json")).unwrap()).unwrap();
    let statuses: Vec<(&str, &str)> = report["scripts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| (s["path"].as_str().unwrap(), s["status"].as_str().unwrap()))
        .collect();
    assert_eq!(
        statuses,
        [
            ("suite/a-fails.ad", "failed"),
            ("suite/b-passes.ad", "passed")
        ],
        "{report:#}"
    );
    let app = d.app_pid(Duration::ZERO).expect("the app ran");
    assert!(
        gone_within(app, Duration::from_secs(5)),
        "the app outlived ad test"
    );
}

#[test]
fn typing_scrolling_swiping_long_presses_and_system_keys_reach_the_device() {
    let d = Desktop::start("primitives");
    d.script(
        "primitives.ad",
        r#"context platform=linux
open ad-gtk-login
click "label=Username"
type "bob"
wait "value=bob" 3000
longpress "label=\"Sign in to continue\"" 300
scroll down
swipe 200 400 200 300
back
wait "value=bob" 3000
close
"#,
    );
    let out = d.ad(&[
        "run",
        "primitives.ad",
        "--backend",
        "agent-device",
        "--json",
    ]);
    let r = json(&out);
    assert_eq!(r["ok"], true, "{r:#}\n{}", stderr(&out));
    let run_dir = d.dir.join(r["runDir"].as_str().unwrap());
    let commands: Vec<String> = events(run_dir.to_str().unwrap())
        .iter()
        .filter(|e| e["event"] == "action_attempt")
        .map(|e| e["command"].as_str().unwrap_or("").to_string())
        .collect();
    assert_eq!(
        commands,
        [
            "open",
            "click",
            "type",
            "longpress",
            "scroll",
            "swipe",
            "back",
            "close"
        ],
        "every action reached agent-device"
    );
}

/// Every gesture kind, as agent-device's `gesture` request at the points `ad` resolved: on the
/// Linux platform one-finger movements play (a drag between two verified elements turns the
/// app's slider up), and what Linux cannot do is refused with UNSUPPORTED_OPERATION naming it.
#[test]
fn gestures_map_to_agent_device_requests_and_linux_refuses_multi_touch_by_name() {
    let d = Desktop::start("gestures");
    std::fs::create_dir_all(d.dir.join("gestures")).unwrap();
    let cases: &[(&str, &str)] = &[
        // SHORT ends on the list page, where the slider is.
        (
            "drag",
            "gesture drag \"label=Volume\" \"label=Max\"\nwait \"label=\\\"Volume 100\\\"\" 5000",
        ),
        ("pan", "gesture pan 100 60 20 0 200"),
        (
            "pan-two-fingers",
            "gesture pan 200 200 20 0 --pointer-count 2",
        ),
        ("fling", "gesture fling up 200 300 100"),
        ("swipe-preset", "gesture swipe left"),
        ("pinch", "gesture pinch 2 200 200"),
        ("rotate", "gesture rotate 45 200 200"),
        ("transform", "gesture transform 200 200 10 10 1.5 30"),
    ];
    for (name, steps) in cases {
        d.script(
            &format!("gestures/{name}.ad"),
            &format!("{SHORT}{steps}\nclose\n"),
        );
    }
    let out = d.ad(&[
        "test",
        "gestures",
        "--backend",
        "agent-device",
        "--report-json",
        "report.json",
    ]);
    let report: Value = serde_json::from_str(
        &std::fs::read_to_string(d.dir.join("report.json"))
            .unwrap_or_else(|e| panic!("{e}: {}", stderr(&out))),
    )
    .unwrap();
    let script = |name: &str| -> &Value {
        report["scripts"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["path"] == format!("gestures/{name}.ad"))
            .unwrap_or_else(|| panic!("{name} not in {report:#}"))
    };
    // One-finger movements play: a pan, agent-device's swipe presets, and a drag (the slider
    // reached 100: the press landed on the verified "Volume" and the release past "Max").
    for name in ["drag", "pan", "swipe-preset"] {
        assert_eq!(
            script(name)["status"],
            "passed",
            "{name}: {:#}",
            script(name)
        );
    }
    // Linux has no multi-touch and no directional fling: agent-device refuses them, and the
    // journal keeps its code and the platform it names.
    for name in ["fling", "pan-two-fingers", "pinch", "rotate", "transform"] {
        let s = script(name);
        assert_eq!(s["status"], "failed", "{name}");
        let run_dir = d.dir.join(s["attempts"][0]["runDir"].as_str().unwrap());
        let rejected = events(run_dir.to_str().unwrap())
            .into_iter()
            .find(|e| e["event"] == "action_result" && e["result"] == "rejected")
            .unwrap_or_else(|| panic!("{name}: no rejected action"));
        assert_eq!(
            rejected["code"], "UNSUPPORTED_OPERATION",
            "{name}: {rejected:#}"
        );
        let message = rejected["message"].as_str().unwrap().to_lowercase();
        assert!(
            message.contains(&format!("gesture {}", name.split('-').next().unwrap()))
                && message.contains("linux"),
            "{name}: {message}"
        );
    }
}

/// `ad session … --backend agent-device`: a journey recorded live on the GTK app through the
/// authoring daemon, published, then replayed from a cold start by `ad run --backend
/// agent-device`; closing the session takes the daemon and app it started with it.
#[test]
fn a_journey_recorded_with_ad_session_replays_with_ad_run() {
    let mut d = Desktop::start("authoring");
    d.set_env("AD_SESSION_IDLE_MS", "1500");
    let session = |words: &[&str]| -> Value {
        let mut args = vec!["session"];
        args.extend_from_slice(words);
        args.extend(["--session", "gtk", "--json"]);
        let out = d.ad(&args);
        let v = json(&out);
        assert_eq!(v["ok"], true, "{words:?}: {v:#}\n{}", stderr(&out));
        v
    };
    session(&[
        "open",
        "ad-gtk-login",
        "--backend",
        "agent-device",
        "--platform",
        "linux",
        "--save-script=journey.ad",
    ]);
    session(&["fill", "label=Username", "carol"]);
    session(&[
        "fill",
        "label=Password",
        "s3cret",
        "--record-as",
        "PASSWORD",
    ]);
    session(&["click", "label=\"Sign In\""]);
    session(&["wait", "label=\"Welcome, carol\"", "8000"]);
    let published = session(&["save-script"]);
    assert_eq!(published["actions"], 5, "{published:#}");
    let app = d
        .app_pid(Duration::ZERO)
        .expect("the session opened the app");
    session(&["close"]);
    assert!(
        gone_within(app, Duration::from_secs(10)),
        "the app outlived the closed session"
    );
    let text = std::fs::read_to_string(d.dir.join("journey.ad")).unwrap();
    assert!(text.starts_with("context platform=linux"), "{text}");
    assert!(
        text.contains("${PASSWORD}") && !text.contains("s3cret"),
        "{text}"
    );
    let _ = std::fs::remove_file(d.dir.join("app.pid"));
    let out = d.ad(&[
        "run",
        "journey.ad",
        "--backend",
        "agent-device",
        "--json",
        "-e",
        "PASSWORD=s3cret",
    ]);
    let r = json(&out);
    assert_eq!(r["ok"], true, "{r:#}\n{}\n{text}", stderr(&out));
    assert_eq!(r["replayed"], 5);
    // A published script is close-less: the replay's session stays in ad's session daemon
    // until closed, which takes the app with it.
    assert_eq!(r["sessionActive"], true, "{r:#}");
    let app = d
        .app_pid(Duration::ZERO)
        .expect("the replay opened the app");
    let closed = d.ad(&["session", "close", "--json"]);
    assert_eq!(json(&closed)["ok"], true, "{}", stderr(&closed));
    assert!(
        gone_within(app, Duration::from_secs(10)),
        "the app outlived the closed session"
    );
}

/// A remote daemon that isolates tenants (what a device farm runs): with `--tenant`, `ad`
/// allocates a lease for its run, renews it while the run lasts (the daemon here lets a lease
/// live 3 s; the run takes longer and waits 4 s in one step) and releases it at the end. A lease
/// the daemon does not know is refused with agent-device's own error.
#[test]
fn a_tenant_isolated_daemon_runs_the_script_under_a_lease_ad_renews_and_releases() {
    let (
        d,
        Remote {
            token,
            state: daemon_state,
            ..
        },
    ) = leasing_farm("lease");
    d.script(
        "leased.ad",
        &format!("{SHORT}wait 4000\nscreenshot\nclose\n"),
    );
    d.script("short.ad", &format!("{SHORT}close\n"));
    let out = d.ad(&[
        "run",
        "leased.ad",
        "--backend",
        "agent-device",
        "--json",
        "--tenant",
        "acme",
        "--run-id",
        "nightly-7",
    ]);
    let r = json(&out);
    assert_eq!(r["ok"], true, "{r:#}\n{}", stderr(&out));
    assert_one_png(&d.dir.join(r["runDir"].as_str().unwrap()));
    let all = lease_requests_once_released(&daemon_state);
    assert_eq!(count(&all, "lease_allocate"), 1, "{all:?}");
    assert!(count(&all, "lease_heartbeat") >= 2, "{all:?}");
    assert_eq!(count(&all, "lease_release"), 1, "{all:?}");
    assert!(!String::from_utf8_lossy(&out.stdout).contains(&token));
    assert!(!stderr(&out).contains(&token));
    d.kill_app();
    // The daemon binds a session to its lease: ad closed it with its lease, so the next run of
    // the same session gets a new lease and the session anew.
    let again = d.ad(&[
        "run",
        "short.ad",
        "--backend",
        "agent-device",
        "--json",
        "--tenant",
        "acme",
    ]);
    assert_eq!(json(&again)["ok"], true, "{}", stderr(&again));
    d.kill_app();
    // A lease the daemon never issued: the tenant's requests are refused.
    let refused = d.ad(&[
        "run",
        "leased.ad",
        "--backend",
        "agent-device",
        "--json",
        "--tenant",
        "acme",
        "--lease-id",
        "not-a-lease",
    ]);
    let e = &json(&refused)["error"];
    let cause = &e["details"]["divergence"]["cause"];
    assert_eq!(cause["code"], "INVALID_ARGS", "{e:#}");
    assert!(
        cause["message"]
            .as_str()
            .is_some_and(|m| m.contains("lease")),
        "{e:#}"
    );
}

/// The commands the agent-device daemon of `state` answered with success, from its own request
/// log (written just after it answers), once it has released a lease (10 s at most).
fn lease_requests_once_released(state: &Path) -> Vec<String> {
    let finished = || -> Vec<String> {
        walk(&state.join("sessions"))
            .into_iter()
            .filter(|f| f.ends_with("events.ndjson"))
            .flat_map(|f| {
                std::fs::read_to_string(f)
                    .unwrap_or_default()
                    .lines()
                    .filter_map(|l| serde_json::from_str::<Value>(l).ok())
                    .filter(|e| e["kind"] == "request.finished" && e["status"] == "ok")
                    .map(|e| e["command"].as_str().unwrap_or("").to_string())
                    .collect::<Vec<_>>()
            })
            .collect()
    };
    let end = std::time::Instant::now() + Duration::from_secs(10);
    let mut all = finished();
    while count(&all, "lease_release") == 0 && std::time::Instant::now() < end {
        std::thread::sleep(Duration::from_millis(100));
        all = finished();
    }
    all
}

fn count(all: &[String], command: &str) -> usize {
    all.iter().filter(|f| *f == command).count()
}

/// The desktop's own HTTP agent-device daemon, reached as a remote one.
struct Remote {
    url: String,
    token: String,
    /// Where the daemon keeps its state (its request log).
    state: PathBuf,
}

/// Points `d`'s `ad` at its own HTTP agent-device daemon as a remote one (base URL and token;
/// an empty state dir, so nothing is found locally).
fn attach_as_remote(d: &mut Desktop) -> Remote {
    let info: Value =
        serde_json::from_str(&std::fs::read_to_string(d.state_dir().join("daemon.json")).unwrap())
            .unwrap();
    let token = info["token"].as_str().unwrap().to_string();
    let url = format!("http://127.0.0.1:{}", info["httpPort"]);
    d.set_env("AGENT_DEVICE_DAEMON_BASE_URL", &url);
    d.set_env("AGENT_DEVICE_DAEMON_AUTH_TOKEN", &token);
    let state = d.state_dir();
    d.set_env(
        "AGENT_DEVICE_STATE_DIR",
        d.dir.join("empty-state").to_str().unwrap(),
    );
    Remote { url, token, state }
}

/// A farm's daemon as `ad` meets it: tenant-isolated over HTTP, a lease living 3 s, reached as
/// a remote daemon.
fn leasing_farm(name: &str) -> (Desktop, Remote) {
    let mut d = Desktop::start(name);
    d.set_env("AGENT_DEVICE_DAEMON_SERVER_MODE", "http");
    d.set_env("AGENT_DEVICE_LEASE_TTL_MS", "3000");
    d.start_daemon();
    let remote = attach_as_remote(&mut d);
    (d, remote)
}

/// A close-less run under a lease `ad` allocated leaves its session, lease and all, in ad's
/// session daemon, which keeps the lease alive while nobody uses the session (the daemon here
/// lets a lease live 3 s; the session idles for 5): `ad session …` continues on it afterwards
/// (before, the daemon answered "Lease is not active"), and `ad session close` releases it.
#[test]
fn a_handoff_under_a_lease_keeps_its_lease_while_the_session_idles() {
    let (
        mut d,
        Remote {
            token,
            state: daemon_state,
            ..
        },
    ) = leasing_farm("handoff-lease");
    d.set_env("AD_SESSION_IDLE_MS", "5000");
    let (run, app) = handoff_run(&d, &["--tenant", "acme", "--run-id", "idle-1"], &[]);
    std::thread::sleep(Duration::from_secs(5));
    let mut outputs = continue_session(&d, app);
    let closed = d.ad(&["session", "close", "--session", "gtk", "--json"]);
    assert_eq!(json(&closed)["ok"], true, "{}", stderr(&closed));
    outputs.push(closed);
    // A remote daemon's app is not ended by PID (agent-device's close may leave it).
    d.kill_app();
    let all = lease_requests_once_released(&daemon_state);
    assert_eq!(count(&all, "lease_allocate"), 1, "{all:?}");
    // Renewed while the session idled (a heartbeat each second of the 5).
    assert!(count(&all, "lease_heartbeat") >= 3, "{all:?}");
    assert_eq!(count(&all, "lease_release"), 1, "{all:?}");
    outputs.push(run);
    assert_nowhere(&d, "hunter2", &outputs);
    assert_nowhere(&d, &token, &outputs);
}

/// A certificate authority and a certificate for 127.0.0.1 it signed, made with `openssl`:
/// `(ca.pem, leaf.pem, leaf.key)` in `dir`.
fn test_certificates(dir: &Path) -> (PathBuf, PathBuf, PathBuf) {
    let openssl = |args: &[&str]| {
        let out = std::process::Command::new("openssl")
            .args(args)
            .current_dir(dir)
            .output()
            .expect("the https test needs openssl (apt-get install openssl)");
        assert!(out.status.success(), "openssl {args:?}: {}", stderr(&out));
    };
    std::fs::write(
        dir.join("leaf.ext"),
        "subjectAltName=IP:127.0.0.1\nbasicConstraints=CA:FALSE\nkeyUsage=digitalSignature,keyEncipherment\nextendedKeyUsage=serverAuth\n",
    )
    .unwrap();
    openssl(&[
        "req",
        "-x509",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-keyout",
        "ca.key",
        "-out",
        "ca.pem",
        "-days",
        "2",
        "-subj",
        "/CN=ad test CA",
    ]);
    openssl(&[
        "req",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-keyout",
        "leaf.key",
        "-out",
        "leaf.csr",
        "-subj",
        "/CN=127.0.0.1",
    ]);
    openssl(&[
        "x509",
        "-req",
        "-in",
        "leaf.csr",
        "-CA",
        "ca.pem",
        "-CAkey",
        "ca.key",
        "-CAcreateserial",
        "-out",
        "leaf.pem",
        "-days",
        "2",
        "-extfile",
        "leaf.ext",
    ]);
    (
        dir.join("ca.pem"),
        dir.join("leaf.pem"),
        dir.join("leaf.key"),
    )
}

/// An `https://` daemon URL (a TLS-terminating proxy in front of the daemon, as device farms
/// run): `ad` speaks TLS to it, checks its certificate against the trust store (`SSL_CERT_FILE`
/// here names the test CA), and refuses a certificate the store does not vouch for.
#[test]
fn an_https_daemon_is_reached_over_tls_and_an_untrusted_certificate_is_refused() {
    let mut d = Desktop::start("https");
    d.set_env("AGENT_DEVICE_DAEMON_SERVER_MODE", "http");
    d.start_daemon();
    let info: Value =
        serde_json::from_str(&std::fs::read_to_string(d.state_dir().join("daemon.json")).unwrap())
            .unwrap();
    let token = info["token"].as_str().unwrap().to_string();
    let (ca, cert, key) = test_certificates(&d.dir);
    /// Kills the forwarder however the test ends.
    struct Reaped(std::process::Child);
    impl Drop for Reaped {
        fn drop(&mut self) {
            let _ = self.0.kill();
            let _ = self.0.wait();
        }
    }
    let mut forwarder = std::process::Command::new("node")
        .arg(
            Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("tests/agent_device_support/tls-forwarder.mjs"),
        )
        .arg(&cert)
        .arg(&key)
        .arg(info["httpPort"].to_string())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let stdout = forwarder.stdout.take().unwrap();
    let _forwarder = Reaped(forwarder);
    let mut line = String::new();
    std::io::BufRead::read_line(&mut std::io::BufReader::new(stdout), &mut line).unwrap();
    let url = format!("https://127.0.0.1:{}", line.trim());
    d.set_env("AGENT_DEVICE_DAEMON_BASE_URL", &url);
    d.set_env("AGENT_DEVICE_DAEMON_AUTH_TOKEN", &token);
    d.set_env(
        "AGENT_DEVICE_STATE_DIR",
        d.dir.join("empty-state").to_str().unwrap(),
    );
    d.script("shot.ad", &format!("{SHORT}screenshot\nclose\n"));
    d.set_env("SSL_CERT_FILE", ca.to_str().unwrap());
    let out = d.ad(&["run", "shot.ad", "--backend", "agent-device", "--json"]);
    let r = json(&out);
    assert_eq!(r["ok"], true, "{r:#}\n{}", stderr(&out));
    assert_one_png(&d.dir.join(r["runDir"].as_str().unwrap()));
    d.kill_app();
    // The leaf itself is no authority: the handshake fails and the run is refused before its
    // first step, saying why.
    d.set_env("SSL_CERT_FILE", cert.to_str().unwrap());
    let refused = d.ad(&["run", "shot.ad", "--backend", "agent-device", "--json"]);
    assert_eq!(refused.status.code(), Some(2), "{}", stderr(&refused));
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&refused.stdout),
        stderr(&refused)
    );
    assert!(
        text.contains("TLS handshake") && text.contains(&url[8..]),
        "{text}"
    );
    assert!(!text.contains(&token));
}

#[test]
fn a_run_recorded_on_the_device_replays_offline_with_the_same_verdict() {
    let d = Desktop::start("record");
    d.script("login.ad", LOGIN);
    let recorded = d.ad(&[
        "run",
        "login.ad",
        "--backend",
        "agent-device",
        "--record-fixture",
        "fixture",
        "--json",
        "-e",
        "PASSWORD=hunter2",
    ]);
    let r = json(&recorded);
    assert_eq!(r["ok"], true, "{r:#}\n{}", stderr(&recorded));
    let fixture = d.dir.join("fixture");
    let files = walk(&fixture);
    assert!(!files.is_empty(), "the fixture was written");
    for f in &files {
        let bytes = std::fs::read(f).unwrap();
        assert!(
            !String::from_utf8_lossy(&bytes).contains("hunter2"),
            "{} holds the injected value",
            f.display()
        );
    }
    // The app is gone: the replay reaches no device.
    let app = d.app_pid(Duration::ZERO).expect("the app ran");
    assert!(gone_within(app, Duration::from_secs(5)));
    let replayed = d.ad(&[
        "run",
        "login.ad",
        "--backend",
        "recorded:fixture",
        "--json",
        "-e",
        "PASSWORD=hunter2",
    ]);
    let p = json(&replayed);
    assert_eq!(p["ok"], true, "{p:#}\n{}", stderr(&replayed));
    assert_eq!(p["replayed"], r["replayed"]);
    // An edited target is a divergence against the recording, not a device error.
    d.script(
        "login.ad",
        &LOGIN.replace("click \"label=Bananas\"", "click \"label=Cherries\""),
    );
    let edited = d.ad(&[
        "run",
        "login.ad",
        "--backend",
        "recorded:fixture",
        "--json",
        "-e",
        "PASSWORD=hunter2",
    ]);
    let e = json(&edited);
    assert_eq!(e["ok"], false, "{e:#}");
}

/// A close-less script: it hands its live session over after filling the form.
const HANDOFF: &str = r#"context platform=linux
open ad-gtk-login
fill "label=Password" "${PASSWORD}"
"#;

/// `ad run` of the close-less [`HANDOFF`] script on the GTK app, with `extra` arguments and
/// `env` variables: it passes and leaves its session (`gtk`) live in ad's session daemon. Its
/// output and the app.
fn handoff_run(d: &Desktop, extra: &[&str], env: &[(&str, &str)]) -> (std::process::Output, i32) {
    d.script("handoff.ad", HANDOFF);
    let mut args = vec![
        "run",
        "handoff.ad",
        "--backend",
        "agent-device",
        "--json",
        "--session",
        "gtk",
        "-e",
        "PASSWORD=hunter2",
    ];
    args.extend_from_slice(extra);
    let run = d
        .ad_command(&args)
        .envs(env.iter().copied())
        .output()
        .unwrap();
    let r = json(&run);
    assert_eq!(r["ok"], true, "{r:#}\n{}", stderr(&run));
    assert_eq!(r["sessionActive"], true, "{r:#}");
    let app = d
        .app_pid(Duration::from_secs(5))
        .expect("the run opened the app");
    (run, app)
}

/// Continues a handed-over session with `ad session …` and closes it; the outputs for leak checks.
fn continue_and_close(d: &Desktop, app: i32) -> Vec<std::process::Output> {
    let mut outputs = continue_session(d, app);
    let out = d.ad(&["session", "close", "--session", "gtk", "--json"]);
    assert_eq!(json(&out)["ok"], true, "{}", stderr(&out));
    outputs.push(out);
    assert!(
        gone_within(app, Duration::from_secs(10)),
        "the app outlived the closed session"
    );
    outputs
}

/// Continues a handed-over session with `ad session …` on the same app window; the outputs.
fn continue_session(d: &Desktop, app: i32) -> Vec<std::process::Output> {
    let mut outputs = Vec::new();
    for words in [
        &["fill", "label=Username", "alice"][..],
        &["press", "label=\"Sign In\""],
        &["wait", "label=\"Welcome, alice\"", "8000"],
    ] {
        let mut args = vec!["session"];
        args.extend_from_slice(words);
        args.extend(["--session", "gtk", "--json"]);
        let out = d.ad(&args);
        let v = json(&out);
        assert_eq!(v["ok"], true, "{words:?}: {v:#}\n{}", stderr(&out));
        outputs.push(out);
    }
    // The same app window all along.
    assert_eq!(d.app_pid(Duration::ZERO), Some(app));
    assert!(alive(app), "the app ended before its session");
    outputs
}

/// No file under the desktop's folder but agent-device's own state, and no output, holds `value`.
fn assert_nowhere(d: &Desktop, value: &str, outputs: &[std::process::Output]) {
    for out in outputs {
        assert!(!String::from_utf8_lossy(&out.stdout).contains(value));
        assert!(!stderr(out).contains(value), "{}", stderr(out));
    }
    for f in walk(&d.dir) {
        if f.starts_with(d.state_dir()) || f.extension().is_some_and(|e| e == "sock") {
            continue;
        }
        assert!(
            !String::from_utf8_lossy(&std::fs::read(&f).unwrap_or_default()).contains(value),
            "{} holds {value:?}",
            f.display()
        );
    }
}

/// A close-less `ad run --backend agent-device` leaves its live session in ad's session daemon,
/// its bridge settings resolved where `ad run` ran (the session daemon here was started with
/// another agent-device state dir and no token): `ad session …` continues it on the same app
/// window, and `ad session close` ends the agent-device session and the app. Neither the
/// injected password nor the daemon token reaches a file or an output.
#[test]
fn a_handoff_run_continues_with_ad_session_on_the_daemon_it_attached_to() {
    let mut d = Desktop::start("handoff");
    // ad's session daemon stops soon after its session closes.
    d.set_env("AD_SESSION_IDLE_MS", "5000");
    d.start_daemon();
    let elsewhere = d.dir.join("other-agent-device-state");
    let started = d
        .ad_command(&["session", "list", "--json"])
        .env("AGENT_DEVICE_STATE_DIR", &elsewhere)
        .output()
        .unwrap();
    assert!(started.status.success(), "{}", stderr(&started));
    let token = "tok-handoff-7f3a9c";
    let (run, app) = handoff_run(&d, &[], &[("AGENT_DEVICE_DAEMON_AUTH_TOKEN", token)]);
    // The run attached to this desktop's daemon (its state dir travelled with the run).
    assert!(!elsewhere.join("daemon.json").exists());
    let mut outputs = continue_and_close(&d, app);
    outputs.push(run);
    outputs.push(started);
    assert_nowhere(&d, "hunter2", &outputs);
    assert_nowhere(&d, token, &outputs);
}

/// The same handoff with no agent-device daemon running: the run starts one (in ad's session
/// daemon), which `ad session close` stops with the app.
#[test]
fn a_handoff_run_keeps_the_agent_device_daemon_it_started_until_the_session_closes() {
    let mut d = Desktop::start("handoff-owned");
    d.set_env("AD_SESSION_IDLE_MS", "5000");
    let (run, app) = handoff_run(&d, &[], &[]);
    let daemon = d
        .owned_daemon()
        .expect("the run started an agent-device daemon");
    assert!(alive(daemon), "the daemon ended with `ad run`");
    let mut outputs = continue_and_close(&d, app);
    assert!(
        gone_within(daemon, Duration::from_secs(10)),
        "the agent-device daemon outlived the closed session"
    );
    outputs.push(run);
    assert_nowhere(&d, "hunter2", &outputs);
}

/// The environment of a process, as `KEY=value` strings.
fn environ(pid: i32) -> Vec<String> {
    std::fs::read(format!("/proc/{pid}/environ"))
        .unwrap_or_default()
        .split(|b| *b == 0)
        .map(|kv| String::from_utf8_lossy(kv).into_owned())
        .collect()
}

/// Issue 29, item 1, on a device: ad's session daemon is started outside the X session (no
/// `DISPLAY`, D-Bus session or `XAUTHORITY`); a close-less `ad run --backend agent-device
/// --platform linux` inside it then passes in that daemon: the agent-device daemon the run
/// starts, and the app it opens, get the run's display, and `ad session` continues on the same
/// window and closes it.
#[test]
fn a_handoff_run_gets_its_display_though_the_session_daemon_started_outside_the_x_session() {
    let mut d = Desktop::start("handoff-display");
    d.set_env("AD_SESSION_IDLE_MS", "5000");
    let started = d
        .ad_command(&["session", "list", "--json"])
        .env_remove("DISPLAY")
        .env_remove("DBUS_SESSION_BUS_ADDRESS")
        .env_remove("XAUTHORITY")
        .output()
        .unwrap();
    assert!(started.status.success(), "{}", stderr(&started));
    let (run, app) = handoff_run(&d, &["--platform", "linux"], &[]);
    let daemon = d
        .owned_daemon()
        .expect("the run started an agent-device daemon");
    let display = d
        .ad_command(&[])
        .get_envs()
        .find(|(k, _)| *k == "DISPLAY")
        .and_then(|(_, v)| v.map(|v| format!("DISPLAY={}", v.to_string_lossy())))
        .expect("the desktop has a display");
    assert!(
        environ(daemon).contains(&display),
        "the agent-device daemon runs on the run's display"
    );
    assert!(environ(app).contains(&display), "so does the app");
    // ad's session daemon itself still has no display: the run's environment came with it.
    let state = format!("AD_STATE_DIR={}", d.dir.join("ad-state").display());
    let ad_daemon = std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter_map(|e| e.file_name().to_string_lossy().parse::<i32>().ok())
        .find(|pid| {
            std::fs::read(format!("/proc/{pid}/cmdline"))
                .is_ok_and(|c| String::from_utf8_lossy(&c).contains("session\0__daemon"))
                && environ(*pid).contains(&state)
        })
        .expect("ad's session daemon serves the run's session");
    assert!(
        !environ(ad_daemon)
            .iter()
            .any(|kv| kv.starts_with("DISPLAY=")),
        "ad's session daemon was started without a display"
    );
    let mut outputs = continue_and_close(&d, app);
    assert!(
        gone_within(daemon, Duration::from_secs(10)),
        "the agent-device daemon outlived the closed session"
    );
    outputs.push(run);
    outputs.push(started);
    assert_nowhere(&d, "hunter2", &outputs);
}
