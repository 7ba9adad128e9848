//! `ad run --backend web`, `ad test --backend web` and `ad doctor` end to end (the binary,
//! spawned): the fixture web apps on an in-process 127.0.0.1 server, the example web shop,
//! backend routing (`context platform=web`, `--platform web`, ad.toml), sim-vs-web parity, and
//! the browser reaped on every way a run ends (failure, Ctrl-C, `kill -9` of `ad`). Needs
//! Chromium: the tests fail, never skip, saying to `apt-get install chromium`.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use ad_tests::web_fixture::{
    assert_no_browser_left, browsers_of, fixture_dir, require_chromium, FixtureServer,
};
use serde_json::Value;

fn repo() -> PathBuf {
    ad_tests::repo_dir()
}

fn scratch(name: &str) -> PathBuf {
    let dir = ad_tests::scratch_dir(&format!("ad-web-{name}"));
    dir
}

/// `ad` run from the repository root; its temp folder (where the browser profile goes) is
/// `<art>/tmp`, so the test can find every browser process the run started.
fn ad(art: &Path) -> Command {
    let tmp = art.join("tmp");
    std::fs::create_dir_all(&tmp).unwrap();
    let mut c = Command::new(env!("CARGO_BIN_EXE_ad"));
    c.current_dir(repo())
        .env("NO_COLOR", "1")
        .env("AD_STATE_DIR", art.join("state"))
        .env("TMPDIR", &tmp)
        .stdin(Stdio::null());
    c
}

fn run(args: &[&str], art: &Path) -> Output {
    let o = ad(art)
        .args(args)
        .arg("--artifacts-dir")
        .arg(art.join("runs"))
        .output()
        .unwrap();
    assert_no_browser_left(art);
    o
}

fn code(o: &Output) -> i32 {
    o.status.code().expect("exited normally")
}

fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

fn app_url() -> String {
    format!(
        "APP=file://{}/examples/web/app/index.html",
        repo().display()
    )
}

/// The step statuses and the failure of one run folder's journal.
fn journal_summary(run_dir: &Path) -> (Vec<String>, Option<String>) {
    let events = std::fs::read_to_string(run_dir.join("events.jsonl")).unwrap();
    let mut statuses = Vec::new();
    let mut kind = None;
    for line in events.lines() {
        let v: Value = serde_json::from_str(line).unwrap();
        match v["event"].as_str() {
            Some("step_end") => statuses.push(v["status"].as_str().unwrap_or("").to_string()),
            Some("divergence") => kind = v["report"]["kind"].as_str().map(str::to_string),
            _ => {}
        }
    }
    (statuses, kind)
}

#[test]
fn run_drives_the_fixture_login_form_in_chromium() {
    require_chromium();
    let server = FixtureServer::start(&fixture_dir());
    let art = scratch("login");
    let script = art.join("login.ad");
    std::fs::write(
        &script,
        "open \"${BASE}/login.html\"\nfill \"id=\\\"email\\\"\" \"demo@example.com\"\nfill \"id=\\\"password\\\"\" \"${PASSWORD}\"\nclick \"id=\\\"login-submit\\\"\"\nwait \"id=\\\"home-title\\\"\" 5000\nis \"visible\" \"label=\\\"Welcome, Demo\\\"\"\nclose\n",
    )
    .unwrap();
    // The page's address is built from an injected value, which no record may hold either.
    let base = server.url("").trim_end_matches('/').to_string();
    let url = format!("BASE={base}");
    let o = run(
        &[
            "run",
            script.to_str().unwrap(),
            "--backend",
            "web",
            "--offline",
            "-e",
            &url,
            "-e",
            "PASSWORD=hunter2",
            "--json",
        ],
        &art,
    );
    assert_eq!(code(&o), 0, "{}", text(&o));
    let record: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(record["ok"], true, "{record:#}");
    // The injected values are in no stream and no file the run wrote.
    assert!(
        !text(&o).contains("hunter2") && !text(&o).contains(&base),
        "{}",
        text(&o)
    );
    let run_dir = PathBuf::from(
        record["runDir"]
            .as_str()
            .or(record["run_dir"].as_str())
            .expect("the run folder"),
    );
    for entry in walk(&run_dir) {
        let bytes = std::fs::read(&entry).unwrap();
        let text = String::from_utf8_lossy(&bytes);
        assert!(
            !text.contains("hunter2") && !text.contains(&base),
            "{} holds an injected value",
            entry.display()
        );
    }
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else {
            out.push(p);
        }
    }
    out
}

#[test]
fn test_runs_the_web_examples_on_the_web_backend() {
    require_chromium();
    let art = scratch("suite");
    let report = art.join("report.json");
    let app = app_url();
    let o = run(
        &[
            "test",
            "examples/web",
            "--backend",
            "web",
            "-e",
            &app,
            "--report-json",
            report.to_str().unwrap(),
        ],
        &art,
    );
    assert_eq!(code(&o), 0, "{}", text(&o));
    let r: Value = serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
    assert_eq!(r["summary"]["passed"], 2, "{r:#}");
}

#[test]
fn test_runs_the_fixture_web_apps_and_reports_each_divergence() {
    require_chromium();
    let server = FixtureServer::start(&fixture_dir());
    let art = scratch("fixtures");
    let report = art.join("report.json");
    let base = format!("BASE={}", server.url("").trim_end_matches('/'));
    let o = run(
        &[
            "test",
            "tests/web/scripts",
            "--backend",
            "web",
            "--offline",
            "--jobs",
            "2",
            "-e",
            &base,
            "--report-json",
            report.to_str().unwrap(),
        ],
        &art,
    );
    assert_eq!(
        code(&o),
        1,
        "two fixtures diverge on purpose:\n{}",
        text(&o)
    );
    let r: Value = serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
    let mut outcome: Vec<(String, String, String)> = r["scripts"]
        .as_array()
        .expect("scripts")
        .iter()
        .map(|s| {
            let last = s["attempts"]
                .as_array()
                .and_then(|a| a.last())
                .cloned()
                .unwrap_or_default();
            (
                s["path"]
                    .as_str()
                    .or(s["script"].as_str())
                    .unwrap_or("")
                    .rsplit('/')
                    .next()
                    .unwrap_or("")
                    .to_string(),
                s["status"].as_str().unwrap_or("").to_string(),
                last["kind"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect();
    outcome.sort();
    let expected: Vec<(String, String, String)> = [
        ("confirm.ad", "passed", ""),
        ("delayed.ad", "passed", ""),
        ("impostor.ad", "failed", "identity-mismatch"),
        ("lazy-list.ad", "passed", ""),
        ("login.ad", "passed", ""),
        ("vanishing.ad", "failed", "action-failure"),
    ]
    .iter()
    .map(|(a, b, c)| (a.to_string(), b.to_string(), c.to_string()))
    .collect();
    assert_eq!(outcome, expected, "{r:#}");
    // Neither the impostor nor what replaced the vanished button was ever clicked.
    let seen = server.requests();
    assert!(
        !seen
            .iter()
            .any(|p| p == "/impostor-clicked" || p == "/account-deleted" || p == "/paid"),
        "{seen:?}"
    );
}

#[test]
fn platform_web_scripts_go_to_the_web_backend_and_platform_web_selects_them() {
    require_chromium();
    let art = scratch("route");
    let app = app_url();
    // No --backend: `context platform=web` sends both scripts to the browser; --platform web
    // leaves out every other example.
    let o = run(
        &[
            "test",
            "examples",
            "--platform",
            "web",
            "-e",
            &app,
            "-e",
            "PASSWORD=hunter2",
        ],
        &art,
    );
    assert_eq!(code(&o), 0, "{}", text(&o));
    let out = text(&o);
    assert!(out.contains("examples/web/login.ad"), "{out}");
    assert!(out.contains("examples/web/wishlist.ad"), "{out}");
    assert!(!out.contains("examples/login.ad"), "{out}");
    assert!(out.contains("left out by --platform web"), "{out}");
}

#[test]
fn the_project_default_backend_comes_from_ad_toml() {
    let art = scratch("toml");
    std::fs::write(art.join("ad.toml"), "[run]\nbackend = \"browser\"\n").unwrap();
    std::fs::write(art.join("x.ad"), "open \"http://127.0.0.1:9/\"\nclose\n").unwrap();
    let o = run(&["run", art.join("x.ad").to_str().unwrap()], &art);
    assert_eq!(code(&o), 2, "{}", text(&o));
    assert!(
        text(&o).contains("run.backend must be one of sim, web"),
        "{}",
        text(&o)
    );
    // A valid default sends a script without `context platform=web` to the browser.
    require_chromium();
    let server = FixtureServer::start(&fixture_dir());
    std::fs::write(art.join("ad.toml"), "[run]\nbackend = \"web\"\n").unwrap();
    std::fs::write(
        art.join("y.ad"),
        "open \"${URL}\"\nwait \"id=\\\"email\\\"\"\nclose\n",
    )
    .unwrap();
    let url = format!("URL={}", server.url("login.html"));
    let o = run(
        &[
            "run",
            art.join("y.ad").to_str().unwrap(),
            "-e",
            &url,
            "--json",
        ],
        &art,
    );
    assert_eq!(code(&o), 0, "{}", text(&o));
    let record: Value = serde_json::from_slice(&o.stdout).unwrap();
    let events =
        std::fs::read_to_string(Path::new(record["runDir"].as_str().unwrap()).join("events.jsonl"))
            .unwrap();
    let start: Value = serde_json::from_str(events.lines().next().unwrap()).unwrap();
    assert_eq!(start["backend"], "web", "{start}");
}

#[test]
fn the_same_script_gives_the_same_step_results_on_the_sim_and_on_the_web() {
    require_chromium();
    let art = scratch("parity");
    let web_app = app_url();
    // (script, extra env): a passing flow, and one that diverges on a wrong password.
    let wrong = art.join("wrong-password.ad");
    std::fs::write(
        &wrong,
        std::fs::read_to_string(repo().join("examples/web/login.ad"))
            .unwrap()
            .replace("env PASSWORD=hunter2", "env PASSWORD=wrong")
            .replace(
                "wait \"id=\\\"catalog-title\\\"\" 5000",
                "wait \"id=\\\"catalog-title\\\"\" 1000",
            ),
    )
    .unwrap();
    let scripts = [
        repo().join("examples/web/login.ad"),
        repo().join("examples/web/wishlist.ad"),
        wrong,
    ];
    let model = repo().join("examples/web/apps/webshop.json");
    let mut outcomes = Vec::new();
    for script in &scripts {
        let mut per_backend = Vec::new();
        for (backend, app) in [
            ("sim", "APP=com.example.webshop".to_string()),
            ("web", web_app.clone()),
        ] {
            let runs = art.join(format!("runs-{backend}"));
            // The copy with the wrong password lies outside the app's folder: its local app
            // needs --allow-local-urls (docs/web.md).
            let o = ad(&art)
                .args([
                    "run",
                    script.to_str().unwrap(),
                    "--backend",
                    backend,
                    "-e",
                    &app,
                    "--json",
                    "--allow-local-urls",
                ])
                .arg("--app")
                .arg(&model)
                .arg("--artifacts-dir")
                .arg(&runs)
                .output()
                .unwrap();
            let record: Value =
                serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("{e}: {}", text(&o)));
            let dir = record["runDir"]
                .as_str()
                .or(record["run_dir"].as_str())
                .expect("a run folder");
            per_backend.push((code(&o), journal_summary(Path::new(dir))));
        }
        outcomes.push((script.clone(), per_backend));
    }
    assert_no_browser_left(&art);
    for (script, per_backend) in &outcomes {
        assert_eq!(
            per_backend[0],
            per_backend[1],
            "{}: sim and web differ",
            script.display()
        );
    }
    // The divergent one diverged, at the wait, on both.
    let (code_wrong, (statuses, kind)) = &outcomes[2].1[1];
    assert_eq!(*code_wrong, 1);
    assert_eq!(statuses.last().map(String::as_str), Some("failed"));
    assert!(kind.is_some());
}

/// What a set-up error never shows: it is not a divergence, there is nothing to resume, and no
/// page was captured.
fn assert_not_a_divergence(text: &str) {
    for divergence in [
        "REPLAY_DIVERGENCE",
        "Divergence at step",
        "Repair hint",
        "--plan-digest",
        "--from",
        "No page",
    ] {
        assert!(!text.contains(divergence), "{divergence}:\n{text}");
    }
}

/// An executable shell script at `path`.
fn write_program(path: &Path, body: &str) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::write(path, format!("#!/bin/sh\n{body}\n")).unwrap();
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

/// A browser that is missing or exits at once: `ad run` says what is missing and how to install
/// it, in `ad doctor`'s words, and exits 2 with nothing run — for a one-shot run and for a
/// close-less one served by the session daemon alike.
#[test]
fn a_browser_that_cannot_start_is_a_set_up_error_not_a_divergence() {
    let art = scratch("nobrowser");
    let exits = art.join("exits-at-once");
    write_program(&exits, "echo 'cannot open display' >&2; exit 1");
    let doctor = |chrome: &Path| -> String {
        let o = ad(&art)
            .args(["doctor", "--json"])
            .env("CHROME_PATH", chrome)
            .output()
            .unwrap();
        assert_eq!(code(&o), 1, "{}", text(&o));
        let rows: Value = serde_json::from_slice(&o.stdout).unwrap();
        let web = rows["backends"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["backend"] == "web")
            .unwrap()
            .clone();
        assert_eq!(web["usable"], false);
        web["missing"][0].as_str().unwrap().to_string()
    };
    let missing = Path::new("/nonexistent/chromium");
    assert_eq!(
        doctor(missing),
        format!("CHROME_PATH=/nonexistent/chromium does not exist; {INSTALL}")
    );
    let once = art.join("once.ad");
    std::fs::write(&once, "open \"${APP}\"\nclose\n").unwrap();
    let handoff = art.join("handoff.ad");
    std::fs::write(&handoff, "open \"${APP}\"\n").unwrap();
    for (chrome, problem, help) in [
        (
            missing,
            "CHROME_PATH=/nonexistent/chromium does not exist".to_string(),
            INSTALL,
        ),
        (
            exits.as_path(),
            format!(
                "{} exited before announcing its DevTools endpoint:\ncannot open display",
                exits.display()
            ),
            "point CHROME_PATH at a working Chromium or Chrome",
        ),
    ] {
        for script in [&once, &handoff] {
            let runs = art.join("runs");
            let o = ad(&art)
                .args([
                    "run",
                    script.to_str().unwrap(),
                    "--backend",
                    "web",
                    "-e",
                    &app_url(),
                ])
                .arg("--artifacts-dir")
                .arg(&runs)
                .env("CHROME_PATH", chrome)
                .env("AD_SESSION_IDLE_MS", "1000")
                .output()
                .unwrap();
            let t = text(&o);
            assert_eq!(code(&o), 2, "{t}");
            assert!(
                t.contains(&format!(
                    "error[BACKEND_UNAVAILABLE]: the web backend cannot start: {problem}"
                )),
                "{t}"
            );
            assert!(t.contains(&format!("help: {help}")), "{t}");
            assert_not_a_divergence(&t);
            assert!(walk(&runs).is_empty(), "nothing ran: {:?}", walk(&runs));
        }
    }
}

/// What `ad doctor` and a run that cannot find the browser say to do.
const INSTALL: &str = "install Chromium (`apt-get install chromium` as root on Debian/Ubuntu), or point CHROME_PATH at a Chromium or Chrome binary";

/// Two web scripts and no browser: the suite says the problem once, counts both scripts as
/// errors of the environment (not failures) in its summary and reports, and exits 2.
#[test]
fn ad_test_counts_a_missing_browser_once_as_an_error_of_the_environment() {
    let art = scratch("suite-nobrowser");
    let suite = art.join("suite");
    std::fs::create_dir_all(&suite).unwrap();
    for name in ["a.ad", "b.ad"] {
        std::fs::write(
            suite.join(name),
            "context platform=web\nopen \"http://127.0.0.1:9/\"\nclose\n",
        )
        .unwrap();
    }
    let (junit, json) = (art.join("junit.xml"), art.join("report.json"));
    let o = ad(&art)
        .args(["test", suite.to_str().unwrap(), "--retries", "2"])
        .arg("--report-junit")
        .arg(&junit)
        .arg("--report-json")
        .arg(&json)
        .arg("--artifacts-dir")
        .arg(art.join("runs"))
        .env("CHROME_PATH", "/nonexistent/chromium")
        .output()
        .unwrap();
    let t = text(&o);
    assert_eq!(code(&o), 2, "{t}");
    assert_eq!(
        t.matches("the web backend cannot start: CHROME_PATH=/nonexistent/chromium does not exist")
            .count(),
        1,
        "said once:\n{t}"
    );
    assert_eq!(t.matches(INSTALL).count(), 1, "{t}");
    assert!(t.contains("2 script(s) not run"), "{t}");
    assert!(
        t.contains("test result: FAILED. 0 passed, 0 failed, 2 not run (set-up error)"),
        "{t}"
    );
    assert_not_a_divergence(&t);
    let report: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let schema: Value = serde_json::from_str(
        &std::fs::read_to_string(repo().join("docs/schemas/suite-report.schema.json")).unwrap(),
    )
    .unwrap();
    if let Err(e) = ad_runtime::core::records::validate::validate(&schema, &report) {
        panic!("not a valid suite report: {e:?}\n{report:#}");
    }
    assert_eq!(report["summary"]["errors"], 2, "{report:#}");
    assert_eq!(report["summary"]["failed"], 0, "{report:#}");
    for script in report["scripts"].as_array().unwrap() {
        assert_eq!(script["status"], "error", "{script:#}");
        // An environment that lacks the browser is not retried.
        assert_eq!(
            script["attempts"].as_array().unwrap().len(),
            1,
            "{script:#}"
        );
        assert_eq!(
            script["attempts"][0]["setup"]["backend"], "web",
            "{script:#}"
        );
    }
    let xml = std::fs::read_to_string(&junit).unwrap();
    assert!(xml.contains("failures=\"0\" errors=\"2\""), "{xml}");
    assert_eq!(
        xml.matches("<error message=\"the web backend cannot start: CHROME_PATH=/nonexistent/chromium does not exist\" type=\"BACKEND_UNAVAILABLE\">").count(),
        2,
        "{xml}"
    );
    assert!(!xml.contains("<failure"), "{xml}");
}

/// `CHROME_PATH` naming a program that never answers: `ad doctor` gives up on it after its
/// probe limit (set low here), says the browser does not answer, and leaves nothing running.
#[test]
fn doctor_gives_up_on_a_browser_that_never_answers() {
    let art = scratch("doctor-hangs");
    let pidfile = art.join("sleeper.pid");
    let sleeper = art.join("never-answers");
    write_program(
        &sleeper,
        &format!("echo $$ > {}; exec sleep 100000", pidfile.display()),
    );
    let mut child = ad(&art)
        .args(["doctor", "--json"])
        .env("CHROME_PATH", &sleeper)
        .env("AD_PROBE_TIMEOUT_MS", "300")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // A generous bound on a wait that, without a probe limit, never ends.
    let bound = Instant::now() + Duration::from_secs(60);
    while child.try_wait().unwrap().is_none() {
        if Instant::now() > bound {
            let _ = child.kill();
            let _ = child.wait();
            panic!("ad doctor never returned");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let o = child.wait_with_output().unwrap();
    assert_eq!(code(&o), 1, "{}", text(&o));
    let rows: Value = serde_json::from_slice(&o.stdout).unwrap();
    let web = &rows["backends"][1];
    assert_eq!(web["backend"], "web");
    assert_eq!(web["usable"], false, "{web:#}");
    let why = web["missing"][0].as_str().unwrap();
    assert!(
        why.contains(&format!("{} does not answer", sleeper.display())),
        "{why}"
    );
    let pid: i32 = std::fs::read_to_string(&pidfile)
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    let gone = !Path::new(&format!("/proc/{pid}")).exists()
        || std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|s| {
            s.rsplit(')')
                .next()
                .unwrap_or("")
                .trim_start()
                .starts_with('Z')
        });
    assert!(gone, "the probed program {pid} was left running");
}

#[test]
fn doctor_reports_each_backend() {
    require_chromium();
    let art = scratch("doctor");
    let o = ad(&art).args(["doctor", "--json"]).output().unwrap();
    let rows: Value = serde_json::from_slice(&o.stdout).unwrap();
    let all_usable = rows["backends"]
        .as_array()
        .unwrap()
        .iter()
        .all(|r| r["usable"] == true);
    assert_eq!(code(&o), if all_usable { 0 } else { 1 }, "{}", text(&o));
    let names: Vec<&str> = rows["backends"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["backend"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["sim", "web", "agent-device", "recorded"]);
    assert_eq!(rows["backends"][0]["usable"], true);
    let web = &rows["backends"][1];
    assert!(web["version"].as_str().unwrap().contains("Chrom"), "{web}");
    let o = ad(&art).arg("doctor").output().unwrap();
    assert!(text(&o).contains("web          ok"), "{}", text(&o));
}

/// With a remote agent-device daemon set (`AGENT_DEVICE_DAEMON_BASE_URL`), its row is about
/// reaching it: nothing needs installing here, so what it reports is why the daemon does not
/// answer, or what is wrong with the setting; the token never shows.
#[test]
fn doctor_names_a_remote_agent_device_daemon_and_why_it_does_not_answer() {
    let art = scratch("doctor-remote");
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = closed.local_addr().unwrap().port();
    drop(closed);
    let row = |url: &str, token: Option<&str>| -> (Value, String) {
        let mut c = ad(&art);
        c.args(["doctor", "--json"])
            .env("AGENT_DEVICE_DAEMON_BASE_URL", url)
            .env_remove("AGENT_DEVICE_DAEMON_AUTH_TOKEN");
        if let Some(t) = token {
            c.env("AGENT_DEVICE_DAEMON_AUTH_TOKEN", t);
        }
        let o = c.output().unwrap();
        let rows: Value = serde_json::from_slice(&o.stdout).unwrap();
        (rows["backends"][2].clone(), text(&o))
    };
    let (r, out) = row(&format!("https://127.0.0.1:{port}"), Some("tok-doctor-41"));
    assert_eq!(r["backend"], "agent-device");
    assert_eq!(r["usable"], false, "{r:#}");
    assert_eq!(r["notes"][0], "daemon: remote, unreachable", "{r:#}");
    let why = r["missing"][0].as_str().unwrap();
    assert!(
        why.contains(&format!("https 127.0.0.1:{port}")) && why.contains("does not answer"),
        "{why}"
    );
    assert!(!why.contains("not on PATH"), "{why}");
    assert!(!out.contains("tok-doctor-41"), "{out}");
    // A farm's host without a token: the setting itself is the problem.
    let (r, _) = row("https://farm.example.com", None);
    assert_eq!(r["usable"], false, "{r:#}");
    let why = r["missing"][0].as_str().unwrap();
    assert!(
        why.contains("AGENT_DEVICE_DAEMON_AUTH_TOKEN is unset"),
        "{why}"
    );
}

/// A run that is stopped mid-wait: `ad` runs `wait 60000` on a page; the test waits until the
/// browser is up and the wait has started, then sends `signal`.
fn interrupt_mid_run(art: &Path, signal: i32) -> Output {
    let server = FixtureServer::start(&fixture_dir());
    let script = art.join("long.ad");
    std::fs::write(&script, "open \"${URL}\"\nwait 60000\nclose\n").unwrap();
    let url = format!("URL={}", server.url("login.html"));
    let runs = art.join("runs");
    let child = ad(art)
        .args([
            "run",
            script.to_str().unwrap(),
            "--backend",
            "web",
            "-e",
            &url,
        ])
        .arg("--artifacts-dir")
        .arg(&runs)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let started = walk(&runs)
            .iter()
            .filter(|p| p.ends_with("events.jsonl"))
            .any(|p| {
                std::fs::read_to_string(p)
                    .unwrap_or_default()
                    .lines()
                    .any(|l| l.contains("\"step_start\"") && l.contains("\"step\":2"))
            });
        if started && !browsers_of(art).is_empty() {
            break;
        }
        assert!(Instant::now() < deadline, "the run never reached its wait");
        std::thread::sleep(Duration::from_millis(50));
    }
    // SAFETY: kill has no memory preconditions; the pid is our own child's.
    unsafe {
        libc::kill(child.id() as i32, signal);
    }
    let o = child.wait_with_output().unwrap();
    assert_no_browser_left(art);
    o
}

#[test]
fn kill_9_of_ad_takes_the_browser_down() {
    require_chromium();
    let art = scratch("kill9");
    let o = interrupt_mid_run(&art, libc::SIGKILL);
    assert!(o.status.code().is_none(), "ad was killed");
    // The killed run could not remove its browser profile; the next web run does.
    let profiles = || {
        std::fs::read_dir(art.join("tmp"))
            .unwrap()
            .flatten()
            .filter(|e| e.file_name().to_string_lossy().starts_with("ad-chromium-"))
            .count()
    };
    assert_eq!(profiles(), 1, "the killed run's profile is left");
    let server = FixtureServer::start(&fixture_dir());
    let url = format!("URL={}", server.url("login.html"));
    let script = art.join("short.ad");
    std::fs::write(&script, "open \"${URL}\"\nclose\n").unwrap();
    let o = run(
        &[
            "run",
            script.to_str().unwrap(),
            "--backend",
            "web",
            "-e",
            &url,
        ],
        &art,
    );
    assert_eq!(code(&o), 0, "{}", text(&o));
    assert_eq!(profiles(), 0, "stale and own profiles are removed");
}

#[test]
fn ctrl_c_ends_the_run_and_reaps_the_browser() {
    require_chromium();
    let art = scratch("sigint");
    let o = interrupt_mid_run(&art, libc::SIGINT);
    assert_eq!(code(&o), 130, "{}", text(&o));
    // The `wait 60000` that Ctrl-C cut short did not wait its time: it did not pass.
    let events: String = walk(&art.join("runs"))
        .iter()
        .filter(|p| p.ends_with("events.jsonl"))
        .map(|p| std::fs::read_to_string(p).unwrap())
        .collect();
    let wait_end = events
        .lines()
        .find(|l| l.contains("\"step_end\"") && l.contains("\"step\":2"))
        .unwrap_or_else(|| panic!("the wait step ends in the journal: {events}"));
    assert!(
        wait_end.contains("\"status\":\"failed\"") && wait_end.contains("INTERRUPTED"),
        "{wait_end}"
    );
}

/// Ctrl-C while a page never finishes loading (a server on 127.0.0.1 that accepts and never
/// answers): the browser call is cancelled, `ad test` ends with the interrupted outcome (exit
/// 130, the step ended INTERRUPTED) and reaps its browser, instead of waiting out the load.
#[test]
fn ctrl_c_cancels_a_page_that_never_finishes_loading() {
    require_chromium();
    let art = scratch("sigint-hanging-page");
    let server = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("URL=http://{}/", server.local_addr().unwrap());
    let (accepted, connected) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        // Hold every connection open, answering nothing.
        let mut held = Vec::new();
        for stream in server.incoming().flatten() {
            held.push(stream);
            let _ = accepted.send(());
        }
    });
    let suite = art.join("suite");
    std::fs::create_dir_all(&suite).unwrap();
    std::fs::write(suite.join("hangs.ad"), "open \"${URL}\"\nclose\n").unwrap();
    let runs = art.join("runs");
    let mut child = ad(&art)
        .args([
            "test",
            suite.to_str().unwrap(),
            "--backend",
            "web",
            "-e",
            &url,
        ])
        .arg("--artifacts-dir")
        .arg(&runs)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // The browser asked the server for the page: the `open` step is under way.
    connected
        .recv_timeout(Duration::from_secs(60))
        .expect("the browser never asked for the page");
    // SAFETY: kill has no memory preconditions; the pid is our own child's.
    unsafe {
        libc::kill(child.id() as i32, libc::SIGINT);
    }
    // A generous bound: without the cancellation the step would still end, failed, later.
    let bound = Instant::now() + Duration::from_secs(120);
    while child.try_wait().unwrap().is_none() {
        if Instant::now() > bound {
            let _ = child.kill();
            panic!("ad test did not stop");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let o = child.wait_with_output().unwrap();
    assert_eq!(code(&o), 130, "{}", text(&o));
    assert_no_browser_left(&art);
    let events: String = walk(&runs)
        .iter()
        .filter(|p| p.ends_with("events.jsonl"))
        .map(|p| std::fs::read_to_string(p).unwrap())
        .collect();
    let open_end = events
        .lines()
        .find(|l| l.contains("\"step_end\"") && l.contains("\"step\":1"))
        .unwrap_or_else(|| panic!("the open step ends in the journal: {events}"));
    assert!(
        open_end.contains("\"status\":\"failed\"") && open_end.contains("INTERRUPTED"),
        "{open_end}"
    );
    assert!(!events.contains("\"divergence\""), "{events}");
}

/// Issue 29: a web run opening a local file, a `view-source:` page or a `chrome:` page copied what
/// they showed into its observations and its HTML report. Each `open` is now refused (exit 1, a
/// script error naming `--allow-local-urls`, not a divergence) and nothing they show reaches a
/// file; `ad check` warns of each (AD736). With `--allow-local-urls` the same runs show them (the
/// markers the test looks for do reach the records then).
#[test]
fn local_files_and_browser_pages_are_refused_unless_allowed() {
    require_chromium();
    let server = FixtureServer::start(&fixture_dir());
    let art = scratch("local-urls");
    let secret = art.join("outside/secret.txt");
    std::fs::create_dir_all(secret.parent().unwrap()).unwrap();
    std::fs::write(&secret, "AD-SECRET-7F3A\n").unwrap();
    let flows = art.join("flows");
    std::fs::create_dir_all(&flows).unwrap();
    // (script, its URL, what the page shows that no record may hold)
    let pages = [
        (
            "file",
            format!("file://{}", secret.display()),
            "AD-SECRET-7F3A",
        ),
        (
            "source",
            format!("view-source:{}", server.url("login.html")),
            "login-submit",
        ),
        (
            "internal",
            "chrome://version".to_string(),
            "remote-debugging-port",
        ),
    ];
    for (name, url, _) in &pages {
        std::fs::write(
            flows.join(format!("{name}.ad")),
            format!(
                "context platform=web\nopen \"{url}\"\nwait \"id=\\\"absent\\\"\" 500\nclose\n"
            ),
        )
        .unwrap();
    }
    let o = ad(&art)
        .args(["check", "--format", "json"])
        .arg(&flows)
        .output()
        .unwrap();
    assert_eq!(code(&o), 0, "{}", text(&o));
    let found: Vec<Value> = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(
        found.iter().filter(|d| d["code"] == "AD736").count(),
        3,
        "{found:#?}"
    );
    let records = |allow: bool| {
        let tag = if allow { "allowed" } else { "refused" };
        for (name, url, _) in &pages {
            let script = flows.join(format!("{name}.ad"));
            let mut args = vec!["run", script.to_str().unwrap(), "--offline"];
            let report = art.join(format!("report-{tag}-{name}"));
            args.extend(["--report-html", report.to_str().unwrap()]);
            if allow {
                args.push("--allow-local-urls");
            }
            let o = ad(&art)
                .args(&args)
                .arg("--artifacts-dir")
                .arg(art.join(format!("runs-{tag}")))
                .output()
                .unwrap();
            assert_eq!(code(&o), 1, "{}", text(&o));
            let t = text(&o);
            if !allow {
                assert!(
                    t.contains(&format!("error[LOCAL_URL_REFUSED]: open refused: {url}"))
                        && t.contains("--allow-local-urls"),
                    "{t}"
                );
                assert_not_a_divergence(&t);
            }
        }
        assert_no_browser_left(&art);
        let mut files = walk(&art.join(format!("runs-{tag}")));
        for (name, _, _) in &pages {
            files.extend(walk(&art.join(format!("report-{tag}-{name}"))));
        }
        let text: String = files
            .iter()
            .map(|f| String::from_utf8_lossy(&std::fs::read(f).unwrap()).into_owned())
            .collect();
        pages
            .iter()
            .map(|(_, _, shown)| text.contains(shown))
            .collect::<Vec<_>>()
    };
    assert_eq!(records(false), [false, false, false]);
    assert_eq!(records(true), [true, true, true]);
}

/// Ctrl-C while the browser is starting (here a `CHROME_PATH` program that never announces its
/// DevTools endpoint): the run stops at once as an interrupted run (exit 130), not after the
/// launch's own time limit as a set-up error, and the program is killed.
#[test]
fn ctrl_c_while_the_browser_starts_stops_the_run() {
    let art = scratch("sigint-launch");
    let pidfile = art.join("browser.pid");
    let never = art.join("never-announces");
    write_program(
        &never,
        &format!("echo $$ > {}; exec sleep 100000", pidfile.display()),
    );
    let script = art.join("page.ad");
    std::fs::write(&script, "open \"about:blank\"\nclose\n").unwrap();
    let mut child = ad(&art)
        .args(["run", script.to_str().unwrap(), "--backend", "web"])
        .arg("--artifacts-dir")
        .arg(art.join("runs"))
        .env("CHROME_PATH", &never)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let bound = Instant::now() + Duration::from_secs(60);
    while !pidfile.is_file() || std::fs::read_to_string(&pidfile).unwrap().trim().is_empty() {
        assert!(Instant::now() < bound, "the browser was never started");
        std::thread::sleep(Duration::from_millis(20));
    }
    // SAFETY: kill has no memory preconditions; the pid is our own child's.
    unsafe {
        libc::kill(child.id() as i32, libc::SIGINT);
    }
    let bound = Instant::now() + Duration::from_secs(120);
    while child.try_wait().unwrap().is_none() {
        if Instant::now() > bound {
            let _ = child.kill();
            panic!("ad run did not stop");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let o = child.wait_with_output().unwrap();
    let t = text(&o);
    assert_eq!(code(&o), 130, "{t}");
    assert!(t.contains("error[INTERRUPTED]"), "{t}");
    assert!(!t.contains("BACKEND_UNAVAILABLE"), "{t}");
    let pid: i32 = std::fs::read_to_string(&pidfile)
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    let gone = |pid: i32| {
        std::fs::read_to_string(format!("/proc/{pid}/stat"))
            .map(|s| {
                s.rsplit(')')
                    .next()
                    .unwrap_or("")
                    .trim_start()
                    .starts_with('Z')
            })
            .unwrap_or(true)
    };
    let bound = Instant::now() + Duration::from_secs(10);
    while !gone(pid) && Instant::now() < bound {
        std::thread::sleep(Duration::from_millis(50));
    }
    assert!(gone(pid), "the starting browser {pid} was left running");
}
