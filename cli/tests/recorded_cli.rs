//! `--record-fixture` and `--backend recorded:DIR` end to end (the binary, spawned): `ad run`
//! records and replays, an edit diverges against the recording, a changed observation is
//! refused; `ad test` records one fixture subfolder per script and its golden transcript, and
//! `--golden` / `--update-golden` check and rewrite it. No injected value or absolute path
//! reaches a fixture file.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use serde_json::Value;

fn repo() -> PathBuf {
    ad_tests::repo_dir()
}

fn scratch(name: &str) -> PathBuf {
    ad_tests::scratch_dir(&format!("ad-recorded-{name}"))
}

fn ad(dir: &Path, args: &[&str]) -> Output {
    ad_with(dir, &[], args)
}

/// `ad` with extra environment variables (`AD_VAR_*`).
fn ad_with(dir: &Path, env: &[(&str, &str)], args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_ad"))
        .current_dir(repo())
        .envs(env.iter().copied())
        .env("NO_COLOR", "1")
        .env("AD_STATE_DIR", dir.join("state"))
        // A handed-over session's daemon ends soon after its last session.
        .env("AD_SESSION_IDLE_MS", "1500")
        .stdin(Stdio::null())
        .args(args)
        .arg("--artifacts-dir")
        .arg(dir.join("runs"))
        .output()
        .unwrap()
}

/// `ad session --session NAME WORDS… --json`.
fn session(dir: &Path, name: &str, words: &[&str]) -> Value {
    session_output(dir, name, words).0
}

/// `ad session --session NAME WORDS… --json`: the answer and the whole output.
fn session_output(dir: &Path, name: &str, words: &[&str]) -> (Value, String) {
    let o = Command::new(env!("CARGO_BIN_EXE_ad"))
        .current_dir(repo())
        .env("NO_COLOR", "1")
        .env("AD_STATE_DIR", dir.join("state"))
        .env("AD_SESSION_IDLE_MS", "1500")
        .stdin(Stdio::null())
        .args(["session", "--session", name])
        .args(words)
        .arg("--json")
        .output()
        .unwrap();
    let v: Value = serde_json::from_slice(&o.stdout).unwrap_or_else(|_| panic!("{}", text(&o)));
    assert_eq!(v["ok"], true, "{words:?}: {v:#}");
    (v, text(&o))
}

fn calls(fixture: &Path) -> usize {
    std::fs::read_to_string(fixture.join("session-1.jsonl"))
        .unwrap()
        .lines()
        .count()
        - 1
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

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

fn assert_absent(dir: &Path, needles: &[&str]) {
    assert!(dir.is_dir(), "{} was not written", dir.display());
    for (path, bytes) in ad_tests::files_under(dir) {
        for n in needles {
            assert!(
                !bytes.windows(n.len()).any(|w| w == n.as_bytes()),
                "{path} holds {n:?}"
            );
        }
    }
}

/// Every (path, value) pair: `text` holds none of `needles`.
fn assert_not_in(what: &str, text: &str, needles: &[&str]) {
    for n in needles {
        assert!(!text.contains(n), "{what} holds {n:?}:\n{text}");
    }
}

/// An injected value inside a longer string — an app id and a link built from `-e` and
/// `AD_VAR_*` values — reaches no file and no stream of a run: the journal's action arguments,
/// the observations, the divergence report, the run records, the fixtures, a handoff run's
/// journal in the session daemon and the session commands that continue it.
#[test]
fn an_injected_value_inside_an_app_id_or_link_reaches_no_file_or_stream() {
    let dir = scratch("injected");
    let (tenant, base) = ("zq7tenant", "zqlink7://deep");
    let needles = [tenant, base];
    std::fs::create_dir_all(dir.join("apps")).unwrap();
    let model = std::fs::read_to_string(repo().join("examples/apps/shop.json"))
        .unwrap()
        .replace("com.example.shop", &format!("org.{tenant}.shop"))
        .replace("shop://", &format!("{base}/"));
    std::fs::write(dir.join("apps/tenant.json"), model).unwrap();
    let opens = "context platform=ios target=mobile\n\nopen \"org.${TENANT}.shop\" \"${BASE}/catalog\"\nwait \"id=\\\"catalog.title\\\"\" 2000\n";
    let diverging = dir.join("diverging.ad");
    std::fs::write(
        &diverging,
        format!("{opens}click \"id=\\\"no.such.button\\\"\"\nclose\n"),
    )
    .unwrap();
    let handoff = dir.join("handoff.ad");
    std::fs::write(&handoff, opens).unwrap();
    let env = [("AD_VAR_BASE", base)];
    let tenant_arg = format!("TENANT={tenant}");
    let mut streams = String::new();
    let o = ad_with(
        &dir,
        &env,
        &[
            "run",
            s(&diverging),
            "-e",
            &tenant_arg,
            "--record-fixture",
            s(&dir.join("fixture-diverging")),
        ],
    );
    assert_eq!(code(&o), 1, "{}", text(&o));
    assert!(text(&o).contains("Divergence at step 3"), "{}", text(&o));
    streams += &text(&o);
    let o = ad_with(
        &dir,
        &env,
        &["run", s(&diverging), "-e", &tenant_arg, "--json"],
    );
    assert_eq!(code(&o), 1, "{}", text(&o));
    streams += &text(&o);
    let o = ad_with(
        &dir,
        &env,
        &[
            "run",
            s(&handoff),
            "-e",
            &tenant_arg,
            "--session",
            "injected",
            "--record-fixture",
            s(&dir.join("fixture-handoff")),
            "--json",
        ],
    );
    assert_eq!(code(&o), 0, "{}", text(&o));
    let r: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(r["sessionActive"], true, "{r:#}");
    assert_eq!(r["location"]["screen"], "catalog", "{r:#}");
    streams += &text(&o);
    for words in [&["press", "id=\"tab.home\""][..], &["close"]] {
        streams += &session_output(&dir, "injected", words).1;
    }
    assert_not_in("the output", &streams, &needles);
    // Every run folder (journal, observations, divergence report, run records), both fixtures
    // and the daemon's session journals.
    for folder in [
        "runs",
        "fixture-diverging",
        "fixture-handoff",
        "state/journals",
    ] {
        assert_absent(&dir.join(folder), &needles);
    }
    // The journal says where the value was.
    let journals: String = ad_tests::files_under(&dir.join("runs"))
        .into_iter()
        .filter(|(p, _)| p.ends_with("events.jsonl"))
        .map(|(_, b)| String::from_utf8(b).unwrap())
        .collect();
    assert!(
        journals.contains("org.<var:TENANT>.shop") && journals.contains("<var:BASE>/catalog"),
        "{journals}"
    );
}

#[test]
fn ad_run_records_replays_and_catches_an_edit() {
    let dir = scratch("run");
    let fixture = dir.join("fixture");
    let secret = "hunter2";
    let o = ad(
        &dir,
        &[
            "run",
            "examples/login.ad",
            "-e",
            &format!("PASSWORD={secret}"),
            "--record-fixture",
            s(&fixture),
        ],
    );
    assert_eq!(code(&o), 0, "{}", text(&o));
    assert_absent(&fixture, &[secret, s(&dir), s(&repo())]);
    // Offline replay, with another value for the secret: the fixture only knows its name.
    let o = ad(
        &dir,
        &[
            "run",
            "examples/login.ad",
            "-e",
            "PASSWORD=elsewhere",
            "--backend",
            &format!("recorded:{}", s(&fixture)),
        ],
    );
    assert_eq!(code(&o), 0, "{}", text(&o));
    assert!(text(&o).contains("8 step(s) replayed"), "{}", text(&o));
    // The password typed into the email field: a divergence naming the recorded call.
    let edited = dir.join("edited.ad");
    std::fs::write(
        &edited,
        std::fs::read_to_string(repo().join("examples/login.ad"))
            .unwrap()
            .replace(
                "fill \"id=\\\"login.password\\\"\"",
                "fill \"id=\\\"login.email\\\"\"",
            ),
    )
    .unwrap();
    let o = ad(
        &dir,
        &[
            "run",
            s(&edited),
            "-e",
            "PASSWORD=other-password",
            "--app",
            "examples/apps/shop.json",
            "--backend",
            &format!("recorded:{}", s(&fixture)),
        ],
    );
    assert_eq!(code(&o), 1, "{}", text(&o));
    let t = text(&o);
    assert!(t.contains("error[REPLAY_DIVERGENCE]"), "{t}");
    assert!(
        t.contains("expected recorded call 6 of session \"default\""),
        "{t}"
    );
    assert!(t.contains("Divergence at step 4"), "{t}");
    // A changed observation: refused before any step, naming the file and its hash.
    let obs = std::fs::read_dir(fixture.join("observations"))
        .unwrap()
        .flatten()
        .next()
        .unwrap()
        .path();
    let mut bytes = std::fs::read(&obs).unwrap();
    bytes.push(b' ');
    std::fs::write(&obs, bytes).unwrap();
    let o = ad(
        &dir,
        &[
            "run",
            "examples/login.ad",
            "-e",
            "PASSWORD=other-password",
            "--backend",
            &format!("recorded:{}", s(&fixture)),
        ],
    );
    assert_eq!(code(&o), 2, "{}", text(&o));
    let name = obs.file_name().unwrap().to_str().unwrap();
    assert!(
        text(&o).contains(name) && text(&o).contains("does not match its SHA-256"),
        "{}",
        text(&o)
    );
}

#[test]
fn a_recorded_handoff_run_reports_its_session_active() {
    let dir = scratch("handoff");
    let fixture = dir.join("fixture");
    let o = ad(
        &dir,
        &[
            "run",
            "examples/handoff-profile.ad",
            "--session",
            "handoff-recording",
            "--record-fixture",
            s(&fixture),
            "--json",
        ],
    );
    assert_eq!(code(&o), 0, "{}", text(&o));
    let r: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(r["sessionActive"], true, "{r:#}");
    // Handed over to the session daemon, which continues the session's log.
    let by_run = calls(&fixture);
    session(&dir, "handoff-recording", &["press", "id=\"tab.home\""]);
    session(&dir, "handoff-recording", &["wait", "id=\"home.title\""]);
    session(&dir, "handoff-recording", &["close"]);
    let after = calls(&fixture);
    assert!(after > by_run + 2, "{by_run} → {after}");
    let manifest: Value =
        serde_json::from_str(&std::fs::read_to_string(fixture.join("manifest.json")).unwrap())
            .unwrap();
    assert_eq!(
        manifest["sessions"].as_array().unwrap().len(),
        1,
        "{manifest:#}"
    );
    assert_eq!(manifest["sessions"][0]["session"], "handoff-recording");
    let o = ad(
        &dir,
        &[
            "run",
            "examples/handoff-profile.ad",
            "--session",
            "handoff-replay",
            "--backend",
            &format!("recorded:{}", s(&fixture)),
            "--json",
        ],
    );
    assert_eq!(code(&o), 0, "{}", text(&o));
    let r: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(r["sessionActive"], true, "{r:#}");
    assert_eq!(r["location"]["screen"], "profile", "{r:#}");
    // The replayed run stops where the recorded run did; the calls the session commands made
    // after it are left, and said so.
    assert!(
        r["warnings"][0]
            .as_str()
            .is_some_and(|w| w.contains("call(s) this run did not make")),
        "{r:#}"
    ); // Like any handoff run's, the replayed session stays in the daemon, where the session
       // commands replay the calls left.
    session(&dir, "handoff-replay", &["press", "id=\"tab.home\""]);
    session(&dir, "handoff-replay", &["wait", "id=\"home.title\""]);
    session(&dir, "handoff-replay", &["close"]);
}

#[test]
fn ad_test_records_a_suite_and_checks_its_golden_transcript() {
    let dir = scratch("suite");
    let suite = dir.join("suite");
    std::fs::create_dir_all(suite.join("flows")).unwrap();
    for (from, to) in [
        ("login.ad", "login.ad"),
        ("navigation.ad", "flows/navigation.ad"),
        ("alerts.ad", "flows/alerts.ad"),
    ] {
        std::fs::copy(repo().join("examples").join(from), suite.join(to)).unwrap();
    }
    let fixture = dir.join("fixture");
    let common = ["-e", "PASSWORD=hunter2", "--app", "examples/apps/shop.json"];
    let test = |extra: &[&str]| {
        let mut args = vec!["test", s(&suite)];
        args.extend(common);
        args.extend(extra);
        ad(&dir, &args)
    };
    let o = test(&["--record-fixture", s(&fixture)]);
    assert_eq!(code(&o), 0, "{}", text(&o));
    for sub in ["login.ad", "flows/navigation.ad", "flows/alerts.ad"] {
        assert!(fixture.join(sub).join("manifest.json").is_file(), "{sub}");
    }
    let golden = std::fs::read_to_string(fixture.join("golden.txt")).unwrap();
    assert!(golden.contains("<suite>/login.ad: passed"), "{golden}");
    assert!(golden.contains("step 1 (line 6): ok"), "{golden}");
    assert!(!golden.contains(s(&dir)), "{golden}");
    // (alerts.ad types the email as a literal; login.ad's comes from its `env` line.)
    assert_absent(&fixture.join("login.ad"), &["demo@example.com"]);
    assert_absent(&fixture, &["hunter2", s(&dir), s(&repo())]);

    let recorded = format!("recorded:{}", s(&fixture));
    let o = test(&["--backend", &recorded, "--golden"]);
    assert_eq!(code(&o), 0, "{}", text(&o));
    assert!(text(&o).contains("3 passed, 0 failed"), "{}", text(&o));
    assert!(
        text(&o).contains("golden transcript matches"),
        "{}",
        text(&o)
    );

    // A saved transcript that says otherwise: a readable diff, and the suite fails.
    std::fs::write(
        fixture.join("golden.txt"),
        golden.replacen("step 1 (line 6): ok", "step 1 (line 6): failed", 1),
    )
    .unwrap();
    let o = test(&["--backend", &recorded, "--golden"]);
    assert_eq!(code(&o), 1, "{}", text(&o));
    let t = text(&o);
    assert!(t.contains("golden transcript differs"), "{t}");
    assert!(t.contains("-    step 1 (line 6): failed"), "{t}");
    assert!(t.contains("+    step 1 (line 6): ok"), "{t}");
    assert!(t.contains("--update-golden"), "{t}");
    let o = test(&["--backend", &recorded, "--update-golden"]);
    assert_eq!(code(&o), 0, "{}", text(&o));
    assert_eq!(
        std::fs::read_to_string(fixture.join("golden.txt")).unwrap(),
        golden
    );
    let o = test(&["--backend", &recorded, "--golden"]);
    assert_eq!(code(&o), 0, "{}", text(&o));

    // --golden without a recording to compare is a usage error.
    let o = test(&["--golden"]);
    assert_eq!(code(&o), 2, "{}", text(&o));
}

/// A flaky script recorded under `--retries` keeps a fixture per attempt (the retry's beside the
/// first, `attempt-2/`), so its replay fails and retries exactly as the recorded suite did and
/// matches the golden transcript. `AD_SESSION` differs per attempt, and only the second
/// attempt's session name is an element of the app.
#[test]
fn a_retried_script_replays_each_attempt_from_its_own_recording() {
    let dir = scratch("retries");
    let suite = dir.join("suite");
    std::fs::create_dir_all(&suite).unwrap();
    std::fs::write(
        suite.join("flaky.ad"),
        "context platform=ios retries=1\nopen \"com.example.shop\"\nwait \"id=\\\"${AD_SESSION}\\\"\" 300\nclose\n",
    )
    .unwrap();
    let mut model: Value = serde_json::from_str(
        &std::fs::read_to_string(repo().join("examples/apps/shop.json")).unwrap(),
    )
    .unwrap();
    model["screens"]["login"]["elements"]
        .as_array_mut()
        .unwrap()
        .push(serde_json::json!({"type": "statictext", "id": "test-1-flaky-2", "label": "retry marker"}));
    let app = dir.join("shop-flaky.json");
    std::fs::write(&app, model.to_string()).unwrap();
    let fixture = dir.join("fixture");
    let test = |extra: &[&str]| {
        let mut args = vec!["test", s(&suite), "--app", s(&app)];
        args.extend(extra);
        ad(&dir, &args)
    };
    let o = test(&["--record-fixture", s(&fixture)]);
    assert_eq!(code(&o), 0, "{}", text(&o));
    assert!(text(&o).contains("flaky"), "{}", text(&o));
    for sub in ["flaky.ad", "flaky.ad/attempt-2"] {
        assert!(fixture.join(sub).join("manifest.json").is_file(), "{sub}");
    }
    let golden = std::fs::read_to_string(fixture.join("golden.txt")).unwrap();
    assert!(golden.contains("attempt 1"), "{golden}");
    let recorded = format!("recorded:{}", s(&fixture));
    let o = test(&["--backend", &recorded, "--golden"]);
    assert_eq!(code(&o), 0, "{}", text(&o));
    assert!(text(&o).contains("flaky"), "{}", text(&o));
    assert!(
        text(&o).contains("golden transcript matches"),
        "{}",
        text(&o)
    );
    // Recorded again passing at once: the earlier retry's fixture is not left behind.
    model["screens"]["login"]["elements"]
        .as_array_mut()
        .unwrap()
        .push(
            serde_json::json!({"type": "statictext", "id": "test-1-flaky-1", "label": "first try"}),
        );
    std::fs::write(&app, model.to_string()).unwrap();
    let o = test(&["--record-fixture", s(&fixture)]);
    assert_eq!(code(&o), 0, "{}", text(&o));
    assert!(!fixture.join("flaky.ad/attempt-2").exists());
    let o = test(&["--backend", &recorded, "--golden"]);
    assert_eq!(code(&o), 0, "{}", text(&o));
}

#[test]
fn the_committed_web_fixture_replays_with_no_browser_and_matches_its_golden() {
    let dir = scratch("committed");
    let o = Command::new(env!("CARGO_BIN_EXE_ad"))
        .current_dir(repo())
        .env("NO_COLOR", "1")
        .env("AD_STATE_DIR", dir.join("state"))
        // No browser anywhere: a replay must not look for one.
        .env("CHROME_PATH", dir.join("no-chromium"))
        .stdin(Stdio::null())
        .args([
            "test",
            "tests/web/scripts",
            "--backend",
            "recorded:tests/fixtures/recorded/web",
            "-e",
            "BASE=http://127.0.0.1:9",
            "--golden",
            "--artifacts-dir",
        ])
        .arg(dir.join("runs"))
        .output()
        .unwrap();
    let t = text(&o);
    // The verdicts Chromium gave when recorded: the impostor and the vanishing element diverge.
    assert_eq!(code(&o), 1, "{t}");
    assert!(t.contains("test result: FAILED. 4 passed, 2 failed"), "{t}");
    assert!(t.contains("golden transcript matches"), "{t}");
    let golden =
        std::fs::read_to_string(repo().join("tests/fixtures/recorded/web/golden.txt")).unwrap();
    assert!(
        golden.contains("REPLAY_DIVERGENCE identity-mismatch"),
        "{golden}"
    );
}

/// A fixture folder that is missing, empty or not a folder: the recorded backend cannot start.
/// `ad run` says so with how to make one, exits 2 and writes nothing — no divergence, no resume
/// — for a one-shot run and a close-less one served by the session daemon alike.
#[test]
fn a_fixture_folder_that_cannot_be_read_is_a_set_up_error() {
    let dir = scratch("fixture-unavailable");
    let empty = dir.join("empty");
    std::fs::create_dir_all(&empty).unwrap();
    let file = dir.join("a-file");
    std::fs::write(&file, "not a fixture").unwrap();
    let once = dir.join("once.ad");
    std::fs::write(&once, "open \"com.example.shop\"\nclose\n").unwrap();
    let handoff = dir.join("handoff.ad");
    std::fs::write(&handoff, "open \"com.example.shop\"\n").unwrap();
    for fixture in [dir.join("missing"), empty, file] {
        for script in [&once, &handoff] {
            let backend = format!("recorded:{}", fixture.display());
            let o = ad(&dir, &["run", s(script), "--backend", &backend]);
            let t = text(&o);
            assert_eq!(code(&o), 2, "{t}");
            assert!(
                t.contains(&format!(
                    "error[BACKEND_UNAVAILABLE]: the recorded backend cannot start: {}",
                    fixture.join("manifest.json").display()
                )),
                "{t}"
            );
            assert!(t.contains("help: pass the folder a recording wrote"), "{t}");
            for divergence in [
                "REPLAY_DIVERGENCE",
                "Repair hint",
                "--plan-digest",
                "--from",
            ] {
                assert!(!t.contains(divergence), "{divergence}: {t}");
            }
            assert!(!dir.join("runs").exists(), "nothing ran");
        }
    }
}

/// `ad run examples/login.ad` with its calls recorded into `fixture`, and `extra` arguments.
fn record_into(dir: &Path, fixture: &Path, extra: &[&str]) -> Output {
    let mut args = vec![
        "run",
        "examples/login.ad",
        "-e",
        "PASSWORD=hunter2",
        "--record-fixture",
        s(fixture),
    ];
    args.extend_from_slice(extra);
    ad(dir, &args)
}

/// Issue 29 item 10: `--record-fixture DIR` never follows a link inside DIR (before,
/// `observations` or `manifest.json` linked elsewhere had files outside deleted and
/// overwritten), refuses a folder holding files it did not write unless --overwrite, and a
/// write that fails (a folder where a file goes, a folder it cannot make) is exit 2, never "ok".
#[test]
fn a_fixture_folder_is_written_without_following_links_and_a_failed_write_is_exit_2() {
    let dir = scratch("fixture-links");
    let outside = dir.join("outside");
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::write(outside.join("victim.json"), "keep").unwrap();
    let fixture = dir.join("fixture");
    std::fs::create_dir_all(&fixture).unwrap();
    std::os::unix::fs::symlink(&outside, fixture.join("observations")).unwrap();
    std::os::unix::fs::symlink(outside.join("victim.json"), fixture.join("manifest.json")).unwrap();
    let untouched = || {
        assert_eq!(
            std::fs::read_to_string(outside.join("victim.json")).unwrap(),
            "keep"
        );
        assert_eq!(std::fs::read_dir(&outside).unwrap().count(), 1);
    };
    let o = record_into(&dir, &fixture, &[]);
    assert_eq!(code(&o), 2, "{}", text(&o));
    assert!(
        text(&o).contains("manifest.json (a link)") && text(&o).contains("(nothing was run)"),
        "{}",
        text(&o)
    );
    untouched();
    let o = record_into(&dir, &fixture, &["--overwrite"]);
    assert_eq!(code(&o), 2, "{}", text(&o));
    assert!(text(&o).contains("is a symbolic link"), "{}", text(&o));
    assert!(!text(&o).contains("ok:"), "{}", text(&o));
    untouched();

    // A file of the user's own: refused unless --overwrite, and kept with it.
    let mine = dir.join("mine");
    std::fs::create_dir_all(&mine).unwrap();
    std::fs::write(mine.join("notes.txt"), "mine").unwrap();
    let o = record_into(&dir, &mine, &[]);
    assert_eq!(code(&o), 2, "{}", text(&o));
    assert!(text(&o).contains("(notes.txt)"), "{}", text(&o));
    let o = record_into(&dir, &mine, &["--overwrite"]);
    assert_eq!(code(&o), 0, "{}", text(&o));
    assert_eq!(
        std::fs::read_to_string(mine.join("notes.txt")).unwrap(),
        "mine"
    );
    // Recording again over ad's own fixture needs no flag.
    let o = record_into(&dir, &fixture_copy(&mine, &dir.join("again")), &[]);
    assert_eq!(code(&o), 0, "{}", text(&o));

    // A folder where the manifest goes: the run passes but its fixture cannot be written.
    let blocked = dir.join("blocked");
    std::fs::create_dir_all(blocked.join("manifest.json")).unwrap();
    let o = record_into(&dir, &blocked, &[]);
    assert_eq!(code(&o), 2, "{}", text(&o));
    assert!(
        text(&o).contains("could not write the fixture")
            && text(&o).contains("is a folder where ad writes a file"),
        "{}",
        text(&o)
    );
    assert!(!text(&o).contains("ok:"), "{}", text(&o));
    // A folder that cannot be made.
    let o = record_into(&dir, Path::new("/proc/self/fixture"), &[]);
    assert_eq!(code(&o), 2, "{}", text(&o));
    assert!(text(&o).contains("(nothing was run)"), "{}", text(&o));
}

/// A copy of the fixture `from` (ad's own files only, with their listing) at `to`.
fn fixture_copy(from: &Path, to: &Path) -> PathBuf {
    std::fs::create_dir_all(to.join("observations")).unwrap();
    for (path, bytes) in ad_tests::files_under(from) {
        if path != "notes.txt" {
            std::fs::write(to.join(&path), bytes).unwrap();
        }
    }
    to.to_path_buf()
}

/// `ad run … --backend recorded:FIXTURE`, failed (exit 2) with a message; a watchdog turns a
/// hang (the bug) into a failure instead of a stuck suite.
fn replay_refused(dir: &Path, fixture: &Path) -> String {
    let mut child = Command::new(env!("CARGO_BIN_EXE_ad"))
        .current_dir(repo())
        .env("NO_COLOR", "1")
        .env("AD_STATE_DIR", dir.join("state"))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .args(["run", "examples/login.ad", "-e", "PASSWORD=x", "--backend"])
        .arg(format!("recorded:{}", s(fixture)))
        .arg("--artifacts-dir")
        .arg(dir.join("runs"))
        .spawn()
        .unwrap();
    let start = std::time::Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > std::time::Duration::from_secs(120) {
            let _ = child.kill();
            panic!("the replay of {} hung", fixture.display());
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let o = child.wait_with_output().unwrap();
    assert_eq!(code(&o), 2, "{}", text(&o));
    text(&o)
}

/// Issue 29 item 14: a fixture's files are read as scripts are: an observation linked to
/// /dev/zero (before: read until memory ran out) and a session log replaced by a FIFO (before:
/// a hang) are refused without being read, and an observation name is checked to be a SHA-256
/// before anything is read (before, `../…` was read from outside the fixture).
#[test]
fn fixture_files_are_read_with_the_scripts_checks() {
    let dir = scratch("fixture-reads");
    let fixture = dir.join("fixture");
    let o = record_into(&dir, &fixture, &[]);
    assert_eq!(code(&o), 0, "{}", text(&o));
    let copy = |name: &str| fixture_copy(&fixture, &dir.join(name));

    let zero = copy("zero");
    let obs = std::fs::read_dir(zero.join("observations"))
        .unwrap()
        .flatten()
        .next()
        .unwrap()
        .path();
    std::fs::remove_file(&obs).unwrap();
    std::os::unix::fs::symlink("/dev/zero", &obs).unwrap();
    let t = replay_refused(&dir, &zero);
    assert!(t.contains("a device, not a regular file"), "{t}");

    let fifo = copy("fifo");
    let log = fifo.join("session-1.jsonl");
    std::fs::remove_file(&log).unwrap();
    let c = std::ffi::CString::new(s(&log)).unwrap();
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    let t = replay_refused(&dir, &fifo);
    assert!(t.contains("session-1.jsonl: cannot read it: a FIFO"), "{t}");

    let escape = copy("escape");
    // What `../../outside` would reach: a FIFO, so a read of it would hang.
    let c = std::ffi::CString::new(s(&dir.join("outside.json"))).unwrap();
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    let log = escape.join("session-1.jsonl");
    let text_log = std::fs::read_to_string(&log).unwrap();
    let at = text_log.find("\"observation\":\"").unwrap() + "\"observation\":\"".len();
    let edited = format!("{}../../outside{}", &text_log[..at], &text_log[at + 64..]);
    std::fs::write(&log, edited).unwrap();
    let t = replay_refused(&dir, &escape);
    assert!(
        t.contains("the observation name \"../../outside\" is not a SHA-256"),
        "{t}"
    );
}
