//! `--record-fixture` / `--backend recorded:DIR` (docs/recorded.md): runs recorded on the sim
//! and in Chromium replay offline through the one factory with the same verdicts and the same
//! journal; edits diverge against the recording; sessions bind by first-call order; a changed
//! observation is refused by its hash; no injected value reaches a fixture file.

mod common;

use std::path::{Path, PathBuf};

use ad_runtime::backends::recorded::{Recorder, Recording, ReplaySource};
use ad_runtime::backends::BackendKind;
use ad_runtime::core::backend::Backend;
use ad_runtime::core::interp::{Plan, Quiet, RunOptions};
use ad_runtime::session::{run_script, ScriptOutcome, SessionConfig};
use common::*;
use serde_json::Value;

/// Where a run goes: recorded on a device into a fixture, or replayed from one.
enum Mode<'a> {
    Record(BackendKind, &'a Path),
    Replay(&'a Path),
}

fn go(dir: &Path, name: &str, text: &str, env: &[(&str, &str)], mode: Mode) -> ScriptOutcome {
    let analysis = ad_compiler::analyze(text);
    let plan = Plan {
        steps: analysis.steps(),
        metadata: analysis.metadata(),
    };
    let options = RunOptions {
        script_path: name.to_string(),
        cli_env: env
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect(),
        session: "recorded-test".into(),
        resume_command: format!("ad run {name}"),
        ..RunOptions::default()
    };
    let mut config = SessionConfig {
        app_model: Some(shop_path()),
        artifacts_root: dir.join("artifacts"),
        state_dir: dir.join("state"),
        ..SessionConfig::default()
    };
    config.web.offline = true;
    match mode {
        Mode::Record(kind, fixture) => {
            config.backend = Some(kind);
            config.record_fixture = Some(fixture.to_path_buf());
        }
        Mode::Replay(fixture) => {
            config.backend = Some(BackendKind::Recorded);
            config.recorded = Some(fixture.to_path_buf());
        }
    }
    run_script(&plan, &repo().join(name), &options, &config, &mut Quiet).expect("the run starts")
}

/// The run's journal with what differs between any two runs removed (wall-clock fields, the
/// run folder, and `env`'s values, which the journal keeps in clear under a few keys).
fn journal(o: &ScriptOutcome, env: &[(&str, &str)]) -> Vec<Value> {
    let dir = o.run_dir.as_ref().expect("a run folder");
    let text = std::fs::read_to_string(dir.join("events.jsonl")).expect("events.jsonl");
    let shown = dir.display().to_string();
    text.lines()
        .map(|l| {
            let mut l = l.replace(&shown, "<run-dir>");
            for (k, v) in env {
                l = l.replace(v, &format!("<{k}>"));
            }
            let mut v: Value = serde_json::from_str(&l).expect("an event");
            strip(&mut v);
            if !env.is_empty() && v["event"] == "observation" {
                // The file's hash covers the values; its contents are compared below.
                let m = v.as_object_mut().unwrap();
                m.remove("sha256");
                m.remove("bytes");
            }
            v
        })
        .chain(observation_files(dir, env))
        .collect()
}

/// The run's observation files, with `env`'s values replaced as in [`journal`].
fn observation_files(dir: &Path, env: &[(&str, &str)]) -> Vec<Value> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir.join("observations"))
        .expect("observations/")
        .flatten()
        .map(|e| e.path())
        .collect();
    files.sort();
    files
        .iter()
        .map(|f| {
            let mut text = std::fs::read_to_string(f).expect("an observation");
            for (k, v) in env {
                text = text.replace(v, &format!("<{k}>"));
            }
            serde_json::from_str(&text).expect("an observation is JSON")
        })
        .collect()
}

fn strip(v: &mut Value) {
    match v {
        Value::Object(m) => {
            for k in ["recorded_at", "wall_ms", "wallMs"] {
                m.remove(k);
            }
            m.values_mut().for_each(strip);
        }
        Value::Array(a) => a.iter_mut().for_each(strip),
        _ => {}
    }
}

/// The verdict a suite would report: ok, steps replayed, error code, divergence kind.
fn verdict(o: &ScriptOutcome) -> (bool, usize, Option<String>, Option<String>, bool) {
    let e = o.result.error.as_ref();
    (
        o.result.ok,
        o.result.replayed,
        e.map(|e| e.public_code().to_string()),
        e.and_then(|e| e.divergence())
            .map(|d| d.kind.as_str().to_string()),
        o.result.session_active,
    )
}

fn contains(hay: &[u8], needle: &str) -> bool {
    hay.windows(needle.len()).any(|w| w == needle.as_bytes())
}

/// Records `name` on `kind`, replays it, and checks both runs agree exactly.
fn record_and_replay(
    dir: &Path,
    kind: BackendKind,
    name: &str,
    text: &str,
    record_env: &[(&str, &str)],
    replay_env: &[(&str, &str)],
) -> (ScriptOutcome, ScriptOutcome) {
    let fixture = dir.join("fixtures").join(name.replace('/', "_"));
    let recorded = go(dir, name, text, record_env, Mode::Record(kind, &fixture));
    let replayed = go(dir, name, text, replay_env, Mode::Replay(&fixture));
    assert_eq!(
        verdict(&recorded),
        verdict(&replayed),
        "{name}: verdicts; {:?}",
        replayed.result.error.as_ref().map(|e| &e.message)
    );
    assert_eq!(
        recorded.result.device_ms, replayed.result.device_ms,
        "{name}: the recorded device clock is replayed"
    );
    assert_eq!(
        journal(&recorded, record_env),
        journal(&replayed, replay_env),
        "{name}: the replay's journal is the device run's"
    );
    assert!(
        replayed.result.warnings.is_empty(),
        "{name}: {:?}",
        replayed.result.warnings
    );
    (recorded, replayed)
}

const SIM_EXAMPLES: &[&str] = &[
    "login.ad",
    "navigation.ad",
    "scroll-to-find.ad",
    "alerts.ad",
    "checkout-form.ad",
    "divergent/reshuffled-login.ad",
];

#[test]
fn sim_runs_replay_offline_with_the_same_verdicts_and_journal() {
    let tmp = tempfile::tempdir().unwrap();
    let mut verdicts = Vec::new();
    for rel in SIM_EXAMPLES {
        let name = format!("examples/{rel}");
        let (rec, _) = record_and_replay(
            tmp.path(),
            BackendKind::Sim,
            &name,
            &example(rel),
            &[("PASSWORD", "hunter2")],
            &[("PASSWORD", "hunter2")],
        );
        verdicts.push((rel.to_string(), verdict(&rec)));
    }
    // The set holds passing runs and a divergence, so both verdicts are compared.
    assert!(verdicts.iter().any(|v| v.1 .0));
    assert!(verdicts.iter().any(|v| !v.1 .0), "{verdicts:?}");
}

#[test]
fn fixtures_hold_no_injected_value_no_absolute_path_and_fit_their_schemas() {
    let tmp = tempfile::tempdir().unwrap();
    // The shop's password, injected under another name.
    let secret = "hunter2";
    let fixture = tmp.path().join("fixture");
    let text = example("login.ad").replace("${PASSWORD}", "${SECRET}");
    let o = go(
        tmp.path(),
        "examples/login.ad",
        &text,
        &[("SECRET", secret)],
        Mode::Record(BackendKind::Sim, &fixture),
    );
    assert!(o.result.ok, "{:?}", o.result.error);
    let files = ad_tests::files_under(&fixture);
    assert!(files.len() >= 3, "{files:?}");
    let tmp_shown = tmp.path().display().to_string();
    for (path, bytes) in &files {
        // The typed secret, and the file-env value the journal redacts too.
        for needle in [secret, "demo@example.com", tmp_shown.as_str()] {
            assert!(!contains(bytes, needle), "{path} holds {needle:?}");
        }
    }
    let log = std::fs::read_to_string(fixture.join("session-1.jsonl")).unwrap();
    assert!(log.contains("<var:SECRET>"), "{log}");
    let (manifest, header, call) = (
        schema("recorded-manifest"),
        schema("recorded-session-header"),
        schema("recorded-call"),
    );
    let doc = |s: &str| serde_json::from_str::<Value>(s).unwrap();
    fits(
        &manifest,
        &doc(&std::fs::read_to_string(fixture.join("manifest.json")).unwrap()),
        "manifest.json",
    );
    let mut lines = log.lines();
    fits(&header, &doc(lines.next().unwrap()), "the session header");
    for l in lines {
        fits(&call, &doc(l), "a call");
    }
    // The replay gets the secret back where the recording showed it, from the live value.
    let replay = go(
        tmp.path(),
        "examples/login.ad",
        &text,
        &[("SECRET", "another")],
        Mode::Replay(&fixture),
    );
    assert!(replay.result.ok, "{:?}", replay.result.error);
}

#[test]
fn recording_twice_gives_the_same_compared_files() {
    let tmp = tempfile::tempdir().unwrap();
    let (a, b) = (tmp.path().join("a"), tmp.path().join("b"));
    for f in [&a, &b] {
        go(
            tmp.path(),
            "examples/navigation.ad",
            &example("navigation.ad"),
            &[],
            Mode::Record(BackendKind::Sim, f),
        );
    }
    // Only the header's `createdAt` is wall-clock time (and the listing of the files written,
    // whose hashes cover it).
    let without_created = |files: Vec<(String, Vec<u8>)>| -> Vec<(String, String)> {
        files
            .into_iter()
            .filter(|(p, _)| p != ad_runtime::core::output_dir::FIXTURE_LISTING)
            .map(|(p, b)| {
                let t = String::from_utf8_lossy(&b).into_owned();
                let t = t
                    .lines()
                    .map(|l| match serde_json::from_str::<Value>(l) {
                        Ok(Value::Object(mut m)) if m.contains_key("createdAt") => {
                            m.remove("createdAt");
                            Value::Object(m).to_string()
                        }
                        _ => l.to_string(),
                    })
                    .collect::<Vec<_>>()
                    .join("\n");
                (p, t)
            })
            .collect()
    };
    assert_eq!(
        without_created(ad_tests::files_under(&a)),
        without_created(ad_tests::files_under(&b))
    );
}

#[test]
fn a_script_edit_that_changes_a_target_diverges_against_the_recording() {
    let tmp = tempfile::tempdir().unwrap();
    let fixture = tmp.path().join("fixture");
    let text = example("login.ad");
    let env = [("PASSWORD", "hunter2")];
    let rec = go(
        tmp.path(),
        "examples/login.ad",
        &text,
        &env,
        Mode::Record(BackendKind::Sim, &fixture),
    );
    assert!(rec.result.ok);
    // The password goes into the email field now.
    let edited = text.replace(
        "fill \"id=\\\"login.password\\\"\"",
        "fill \"id=\\\"login.email\\\"\"",
    );
    assert_ne!(edited, text);
    let o = go(
        tmp.path(),
        "examples/login.ad",
        &edited,
        &env,
        Mode::Replay(&fixture),
    );
    let e = o.result.error.as_ref().expect("a divergence");
    assert_eq!(e.step, Some(4));
    assert_eq!(e.code, "REPLAY_DIVERGED");
    assert!(
        e.message
            .contains("expected recorded call 6 of session \"recorded-test\"")
            && e.message
                .contains("\"kind\":\"fill\",\"at\":{\"x\":195.0,\"y\":201.0}")
            && e.message
                .contains("got {\"kind\":\"fill\",\"at\":{\"x\":195.0,\"y\":157.0}"),
        "{}",
        e.message
    );
    let d = e.divergence().expect("a divergence report, as on a device");
    assert_eq!(d.kind.as_str(), "action-failure");
    // The report shows the screen the recording showed before the call that did not match.
    let report = serde_json::to_value(d).unwrap();
    assert!(report.to_string().contains("securetextfield"), "{report:#}");
    // The journal's divergence is where a device run's would be.
    let events = journal(&o, &env);
    assert!(events
        .iter()
        .any(|r| r["event"] == "divergence" && r["step"] == 4));

    // A target no screen shows: the wait polls the recorded clock, the first poll that the
    // recording does not have fails the step.
    let missing = text.replace(
        "wait \"id=\\\"home.title\\\"\" 5000",
        "wait \"id=\\\"home.nothing\\\"\" 5000",
    );
    let o = go(
        tmp.path(),
        "examples/login.ad",
        &missing,
        &env,
        Mode::Replay(&fixture),
    );
    let e = o.result.error.as_ref().expect("a divergence");
    assert_eq!(
        (e.step, e.code.as_str()),
        (Some(6), "REPLAY_DIVERGED"),
        "{}",
        e.message
    );
    assert!(
        e.message.contains("got {\"kind\":\"sleep\""),
        "{}",
        e.message
    );
}

#[test]
fn a_changed_observation_is_refused_with_its_file_and_hash() {
    let tmp = tempfile::tempdir().unwrap();
    let fixture = tmp.path().join("fixture");
    go(
        tmp.path(),
        "examples/navigation.ad",
        &example("navigation.ad"),
        &[],
        Mode::Record(BackendKind::Sim, &fixture),
    );
    let obs = std::fs::read_dir(fixture.join("observations"))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .next()
        .expect("an observation");
    let text = std::fs::read_to_string(&obs).unwrap();
    std::fs::write(&obs, text.replacen("Shop", "Sh0p", 1)).unwrap();
    let err = ReplaySource::open(&fixture).expect_err("a tampered fixture");
    let name = obs.file_name().unwrap().to_string_lossy().into_owned();
    let sha = name.trim_end_matches(".json");
    assert!(
        err.contains(&format!("observations/{name}"))
            && err.contains(&format!("does not match its SHA-256 {sha}")),
        "{err}"
    );
}

#[test]
fn a_close_less_handoff_run_replays_and_reports_its_session_active() {
    let tmp = tempfile::tempdir().unwrap();
    let (rec, rep) = record_and_replay(
        tmp.path(),
        BackendKind::Sim,
        "examples/handoff-profile.ad",
        &example("handoff-profile.ad"),
        &[],
        &[],
    );
    assert!(rec.result.ok && rec.result.session_active);
    assert!(rep.result.ok && rep.result.session_active);
    assert_eq!(rec.result.location, rep.result.location);
    assert_eq!(rep.result.location["screen"], "profile");
}

/// Runs `text` as one session of a multi-session recording or replay.
fn run_on<B: Backend>(backend: &mut B, session: &str, text: &str) -> ad_runtime::RunResult {
    let analysis = ad_compiler::analyze(text);
    let plan = Plan {
        steps: analysis.steps(),
        metadata: analysis.metadata(),
    };
    let mut journal = ad_runtime::Journal::memory(session);
    let opts = RunOptions {
        script_path: format!("{session}.ad"),
        session: session.into(),
        ..RunOptions::default()
    };
    tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap()
        .block_on(ad_runtime::run(
            &plan,
            backend,
            &mut journal,
            &mut Quiet,
            &opts,
        ))
}

#[test]
fn two_sessions_bind_by_first_call_order_and_a_third_fails_loudly() {
    let tmp = tempfile::tempdir().unwrap();
    let fixture = tmp.path().join("fixture");
    let login = example("handoff-profile.ad");
    let nav = example("navigation.ad");
    // Recorded: session A (the login) first, then B (the navigation), on two devices.
    let recording = Recording::shared();
    let sim = || ad_runtime::Sim::with_model(shop());
    let redactor =
        ad_runtime::backends::recorded::redactor(&[("PASSWORD".into(), "hunter2".into())]);
    let mut a = Recorder::new(sim(), "A", redactor.clone(), recording.clone());
    let mut b = Recorder::new(sim(), "B", redactor, recording.clone());
    let ra = run_on(&mut a, "A", &login);
    let rb = run_on(&mut b, "B", &nav);
    assert!(ra.ok && rb.ok, "{:?} {:?}", ra.error, rb.error);
    // B ends first: the logs are still ordered by first call, the primary first.
    drop(b.finish());
    drop(a.finish());
    recording.lock().unwrap().write(&fixture).unwrap();
    let manifest: Value =
        serde_json::from_str(&std::fs::read_to_string(fixture.join("manifest.json")).unwrap())
            .unwrap();
    assert_eq!(manifest["sessions"][0]["session"], "A");
    assert_eq!(manifest["sessions"][0]["firstCall"], 1);
    assert_eq!(manifest["sessions"][1]["session"], "B");
    let header: Value = serde_json::from_str(
        std::fs::read_to_string(fixture.join("session-2.jsonl"))
            .unwrap()
            .lines()
            .next()
            .unwrap(),
    )
    .unwrap();
    assert!(header["firstCall"].as_u64().unwrap() > 1, "{header}");

    // Replayed under other names: "x" calls first and gets A's log, "y" gets B's; then each
    // advances its own cursor, whatever order their runs take (B's script runs first here).
    let source = ReplaySource::open(&fixture).unwrap();
    let values = [("PASSWORD".to_string(), "hunter2".to_string())];
    let mut x = source.backend(&values);
    let mut y = source.backend(&values);
    let _ = x.now_ms();
    let _ = y.now_ms();
    let ry = run_on(&mut y, "y", &nav);
    let rx = run_on(&mut x, "x", &login);
    assert!(rx.ok && ry.ok, "{:?} {:?}", rx.error, ry.error);
    assert_eq!(rx.location, ra.location);
    assert_eq!(ry.location, rb.location);
    // Bound the other way round, the scripts meet the wrong logs and diverge (never mis-route
    // silently).
    let source = ReplaySource::open(&fixture).unwrap();
    let mut first = source.backend(&values);
    let r = run_on(&mut first, "first", &nav);
    assert_eq!(
        r.error.as_ref().map(|e| e.code.as_str()),
        Some("REPLAY_DIVERGED")
    );
    // A third live session: loud, never routed to a recorded log.
    let source = ReplaySource::open(&fixture).unwrap();
    let (mut p, mut q, mut third) = (
        source.backend(&values),
        source.backend(&values),
        source.backend(&values),
    );
    assert!(run_on(&mut p, "p", &login).ok);
    assert!(run_on(&mut q, "q", &nav).ok);
    let r = run_on(&mut third, "third", &nav);
    let e = r.error.expect("an unrecorded session fails");
    assert_eq!(e.code, "REPLAY_UNRECORDED_SESSION");
    assert!(
        e.message.contains("an unrecorded session appeared")
            && e.message.contains("2 recorded session(s) (\"A\", \"B\")"),
        "{}",
        e.message
    );
}

// ---- the web backend --------------------------------------------------------------------------

fn web_script(name: &str) -> String {
    std::fs::read_to_string(
        ad_tests::web_fixture::fixture_dir()
            .join("scripts")
            .join(name),
    )
    .expect("a web fixture script")
}

#[test]
fn web_runs_replay_offline_with_the_same_verdicts_and_journal() {
    ad_tests::web_fixture::require_chromium();
    let tmp = tempfile::tempdir().unwrap();
    let server = ad_tests::web_fixture::FixtureServer::start(&ad_tests::web_fixture::fixture_dir());
    let base = server.url("");
    let base = base.trim_end_matches('/');
    // Replayed with the server gone and another address: nothing is fetched.
    let offline_base = "http://127.0.0.1:9";
    let mut verdicts = Vec::new();
    for name in [
        "login.ad",
        "delayed.ad",
        "confirm.ad",
        "impostor.ad",
        "vanishing.ad",
    ] {
        let text = web_script(name);
        let (rec, rep) = record_and_replay(
            tmp.path(),
            BackendKind::Web,
            &format!("tests/web/scripts/{name}"),
            &text,
            &[("BASE", base)],
            &[("BASE", offline_base)],
        );
        assert_eq!(rep.backend, BackendKind::Recorded);
        verdicts.push((name, verdict(&rec)));
    }
    assert!(verdicts.iter().any(|v| v.1 .0), "{verdicts:?}");
    // The fixture names the address only as the variable it came from.
    for (path, bytes) in ad_tests::files_under(&tmp.path().join("fixtures")) {
        assert!(!contains(&bytes, base), "{path} holds {base}");
    }
}

// ---- authoring sessions (the daemon's store, in process) ------------------------------------

struct Daemon {
    sessions: ad_runtime::session::authoring::Sessions,
    rt: tokio::runtime::Runtime,
    dir: PathBuf,
}

impl Daemon {
    fn new(dir: &Path, state: &str) -> Daemon {
        let mut sessions = ad_runtime::session::authoring::Sessions::new(dir.join(state));
        sessions.no_journal = true;
        Daemon {
            sessions,
            rt: tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .unwrap(),
            dir: dir.to_path_buf(),
        }
    }

    fn cmd(&mut self, session: &str, words: &[&str]) -> ad_runtime::session::authoring::Response {
        let req = ad_runtime::session::authoring::Request {
            session: session.into(),
            words: words.iter().map(|w| w.to_string()).collect(),
            cwd: self.dir.clone(),
            shell_env: Vec::new(),
            ..Default::default()
        };
        self.rt.block_on(self.sessions.handle(req))
    }

    fn ok(&mut self, session: &str, words: &[&str]) {
        let r = self.cmd(session, words);
        assert!(r.ok, "{session}: {words:?}: {:?} {:?}", r.code, r.message);
    }
}

/// Two sessions' commands, interleaved: the login in `a`, a half-filled form in `b`.
fn two_sessions(d: &mut Daemon, a: &str, b: &str, open_extra: &[&str]) {
    let app = shop_path().display().to_string();
    let open = |extra: &[&str]| {
        let mut w = vec!["open", "com.example.shop", "--relaunch", "--app", &app];
        w.extend(extra);
        w.iter().map(|s| s.to_string()).collect::<Vec<_>>()
    };
    let words = open(open_extra);
    let words: Vec<&str> = words.iter().map(String::as_str).collect();
    d.ok(a, &words);
    d.ok(b, &words);
    d.ok(a, &["fill", "id=\"login.email\"", "demo@example.com"]);
    d.ok(b, &["fill", "id=\"login.email\"", "someone@example.com"]);
    d.ok(a, &["fill", "id=\"login.password\"", "hunter2"]);
    d.ok(a, &["press", "id=\"login.submit\""]);
    d.ok(b, &["close"]);
    d.ok(a, &["wait", "id=\"home.title\""]);
    d.ok(a, &["close"]);
}

#[test]
fn authoring_sessions_record_one_log_each_and_replay_by_first_call_order() {
    let tmp = tempfile::tempdir().unwrap();
    let fixture = tmp.path().join("sessions-fixture");
    let shown = fixture.display().to_string();
    let mut d = Daemon::new(tmp.path(), "state-record");
    two_sessions(&mut d, "A", "B", &["--record-fixture", &shown]);
    let manifest: Value =
        serde_json::from_str(&std::fs::read_to_string(fixture.join("manifest.json")).unwrap())
            .unwrap();
    // B ended first; the primary session (the first to call its device) is still first.
    let names: Vec<&str> = manifest["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["session"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["A", "B"], "{manifest:#}");
    assert_eq!(manifest["sessions"][0]["firstCall"], 1);
    assert!(manifest["sessions"][1]["firstCall"].as_u64().unwrap() > 1);

    // Replayed in a fresh daemon under other names: bound by first-call order.
    let backend = format!("recorded:{shown}");
    let mut d = Daemon::new(tmp.path(), "state-replay");
    two_sessions(&mut d, "x", "y", &["--backend", &backend]);
    // A third session: the recording has no log for it.
    let app = shop_path().display().to_string();
    let r = d.cmd(
        "z",
        &[
            "open",
            "com.example.shop",
            "--app",
            &app,
            "--backend",
            &backend,
        ],
    );
    assert!(!r.ok);
    assert_eq!(
        r.code.as_deref(),
        Some("REPLAY_UNRECORDED_SESSION"),
        "{r:?}"
    );
    assert!(
        r.message
            .as_deref()
            .unwrap_or("")
            .contains("an unrecorded session appeared"),
        "{r:?}"
    );
    // Bound the other way round (y's commands first), each session meets the other's log and
    // diverges at its first differing call.
    let mut d = Daemon::new(tmp.path(), "state-swapped");
    let words = [
        "open",
        "com.example.shop",
        "--relaunch",
        "--app",
        &app,
        "--backend",
        &backend,
    ];
    d.ok("y", &words);
    d.ok("x", &words);
    let r = d.cmd("y", &["fill", "id=\"login.email\"", "someone@example.com"]);
    assert_eq!(r.code.as_deref(), Some("REPLAY_DIVERGED"), "{r:?}");
}

#[test]
fn a_record_as_literal_never_reaches_a_session_fixture() {
    let tmp = tempfile::tempdir().unwrap();
    let fixture = tmp.path().join("record-as-fixture");
    let shown = fixture.display().to_string();
    let app = shop_path().display().to_string();
    let mut d = Daemon::new(tmp.path(), "state");
    let literal = "hunter2";
    d.ok(
        "s",
        &[
            "open",
            "com.example.shop",
            "--relaunch",
            "--save-script=published.ad",
            "--app",
            &app,
            "--record-fixture",
            &shown,
        ],
    );
    d.ok("s", &["fill", "id=\"login.email\"", "demo@example.com"]);
    d.ok(
        "s",
        &[
            "fill",
            "id=\"login.password\"",
            literal,
            "--record-as",
            "PASSWORD",
        ],
    );
    d.ok("s", &["press", "id=\"login.submit\""]);
    d.ok("s", &["wait", "id=\"home.title\""]);
    d.ok("s", &["close"]);
    let files = ad_tests::files_under(&fixture);
    assert!(
        files.iter().any(|(p, _)| p == "session-1.jsonl"),
        "{files:?}"
    );
    for (path, bytes) in &files {
        assert!(
            !contains(bytes, literal),
            "{path} holds the --record-as literal"
        );
    }
    let log = std::fs::read_to_string(fixture.join("session-1.jsonl")).unwrap();
    assert!(log.contains("${PASSWORD}"), "{log}");
}
