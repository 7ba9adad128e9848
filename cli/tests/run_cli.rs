//! `ad run` and `ad test` end to end: exit codes, progress and summaries, divergence output,
//! static errors, resume checks, JSON results, JUnit, help texts, and a `kill -9` in the middle of
//! a run (the journal stays readable and the last intent is visible). Every record a run writes
//! (`--json`, events, observations, run.json, the suite report) is checked against its schema in
//! docs/schemas/.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use serde_json::Value;

fn repo() -> PathBuf {
    ad_tests::repo_dir()
}

fn scratch(name: &str) -> PathBuf {
    ad_tests::scratch_dir(&format!("ad-run-{name}"))
}

fn ad(dir: &Path) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_ad"));
    c.current_dir(dir)
        .env("NO_COLOR", "1")
        .env("AD_STATE_DIR", state_dir())
        // A session daemon a handoff run starts exits soon after its session is closed.
        .env("AD_SESSION_IDLE_MS", "1000")
        .env_remove("AD_VAR_PASSWORD")
        .stdin(Stdio::null());
    c
}

fn state_for(art: &Path) -> PathBuf {
    PathBuf::from(format!("{}-state", art.display()))
}

/// This test process's live-session folder (never the user's own).
fn state_dir() -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("ad-run-state-{}", std::process::id()))
}

/// Runs `ad args…` from the repository root with a scratch artifacts folder.
fn run(args: &[&str], art: &Path) -> Output {
    let mut c = ad(&repo());
    c.args(args).arg("--artifacts-dir").arg(art);
    // Each test its own live sessions, beside (never inside) its artifacts folder.
    c.env("AD_STATE_DIR", state_for(art));
    c.output().unwrap()
}

fn code(o: &Output) -> i32 {
    o.status.code().expect("exited normally")
}
fn out(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}
fn err(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Replaces what changes between runs: the artifacts path, run ids and wall-clock durations.
fn normalize(s: &str, art: &Path) -> String {
    let s = s.replace(&art.display().to_string(), "[artifacts]");
    let mut out = String::new();
    let mut rest = s.as_str();
    // Run ids: [artifacts]/YYYYMMDDTHHMMSSZ-xxxxxx
    while let Some(i) = rest.find("[artifacts]/") {
        out.push_str(&rest[..i + 12]);
        rest = &rest[i + 12..];
        let id_len = rest
            .char_indices()
            .take_while(|(_, c)| c.is_ascii_alphanumeric() || *c == '-')
            .count();
        if id_len == 23 {
            out.push_str("[run-id]");
            rest = &rest[id_len..];
        }
    }
    out.push_str(rest);
    // Wall-clock durations: "(1.2 ms" and "replayed in 12 ms".
    let mut result = String::new();
    let chars: Vec<char> = out.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let starts_number =
            chars[i].is_ascii_digit() && (i == 0 || !chars[i - 1].is_ascii_alphanumeric());
        if starts_number {
            let mut j = i;
            while j < chars.len() && (chars[j].is_ascii_digit() || chars[j] == '.') {
                j += 1;
            }
            let num: String = chars[i..j].iter().collect();
            let after: String = chars[j..chars.len().min(j + 3)].iter().collect();
            let before: String = chars[i.saturating_sub(12)..i].iter().collect();
            let wall = (after == " ms" && (num.contains('.') || before.ends_with("replayed in ")))
                || (after.starts_with(" s") && before.ends_with("finished in "));
            if wall {
                result.push_str("[wall]");
                i = j;
                continue;
            }
        }
        result.push(chars[i]);
        i += 1;
    }
    result
}

/// A checked-in record schema (docs/schemas/NAME.schema.json).
fn schema(name: &str) -> Value {
    let path = repo().join(format!("docs/schemas/{name}.schema.json"));
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// Checks `doc` against the schema `name`.
fn fits(name: &str, doc: &Value) {
    if let Err(e) = ad_runtime::core::records::validate::validate(&schema(name), doc) {
        panic!("not a valid {name}:\n  {}\n{doc:#}", e.join("\n  "));
    }
}

/// Checks every run folder under `art`: each complete event line, each observation file and
/// run.json (when written). Returns how many run folders there were.
fn check_runs(art: &Path) -> usize {
    let mut runs = 0;
    for entry in std::fs::read_dir(art).into_iter().flatten().flatten() {
        let dir = entry.path();
        let Ok(text) = std::fs::read_to_string(dir.join("events.jsonl")) else {
            continue;
        };
        runs += 1;
        for line in text.split_inclusive('\n').filter(|l| l.ends_with('\n')) {
            fits(
                "journal-event",
                &serde_json::from_str(line.trim_end()).unwrap(),
            );
        }
        for obs in std::fs::read_dir(dir.join("observations"))
            .unwrap()
            .flatten()
        {
            let doc = std::fs::read_to_string(obs.path()).unwrap();
            fits("observation", &serde_json::from_str(&doc).unwrap());
        }
        if let Ok(summary) = std::fs::read_to_string(dir.join("run.json")) {
            fits("run-summary", &serde_json::from_str(&summary).unwrap());
        }
    }
    runs
}

// ---- ad run -----------------------------------------------------------------------------------

#[test]
fn login_runs_green_with_progress_and_a_summary() {
    let art = scratch("login");
    let o = run(
        &["run", "examples/login.ad", "-e", "PASSWORD=hunter2"],
        &art,
    );
    assert_eq!(code(&o), 0, "{}", err(&o));
    insta::assert_snapshot!("run_login_stdout", normalize(&out(&o), &art));
    insta::assert_snapshot!("run_login_progress", normalize(&err(&o), &art));
    // One run folder with a complete journal.
    let runs: Vec<_> = std::fs::read_dir(&art)
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.path().join("events.jsonl").is_file())
        .collect();
    assert_eq!(runs.len(), 1);
    let summary: Value =
        serde_json::from_str(&std::fs::read_to_string(runs[0].path().join("run.json")).unwrap())
            .unwrap();
    assert_eq!(summary["exit_code"], 0);
    assert_eq!(summary["steps"]["replayed"], 8);
    assert_eq!(check_runs(&art), 1);
}

#[test]
fn the_password_can_come_from_the_environment() {
    let art = scratch("shellvar");
    let mut c = ad(&repo());
    c.args(["run", "-q", "examples/login.ad", "--artifacts-dir"])
        .arg(&art)
        .env("AD_VAR_PASSWORD", "hunter2");
    let o = c.output().unwrap();
    assert_eq!(code(&o), 0, "{}", err(&o));
}

#[test]
fn reshuffled_login_fails_with_the_divergence_report() {
    let art = scratch("reshuffled");
    let o = run(&["run", "examples/divergent/reshuffled-login.ad"], &art);
    assert_eq!(code(&o), 1);
    let e = normalize(&err(&o), &art);
    assert!(
        e.contains("Target binding: identity-mismatch (matchCount 3)"),
        "{e}"
    );
    insta::assert_snapshot!("run_reshuffled_stderr", e);
    assert_eq!(check_runs(&art), 1);
}

#[test]
fn missing_variables_refuse_the_run_before_any_step() {
    let art = scratch("unresolved");
    let o = run(&["run", "-q", "examples/login.ad"], &art);
    assert_eq!(code(&o), 2, "{}", err(&o));
    let e = normalize(&err(&o), &art);
    assert!(e.contains("examples/login.ad:9:31"), "{e}");
    assert!(e.contains("-e PASSWORD="), "{e}");
    // Nothing dispatched, no run folder, no journal.
    assert!(
        std::fs::read_dir(&art).map_or(true, |mut d| d.next().is_none()),
        "the refused run wrote into {}",
        art.display()
    );
    insta::assert_snapshot!("run_unresolved_stderr", e);
}

#[test]
fn every_missing_variable_is_listed_at_once_and_from_counts() {
    let art = scratch("missing-many");
    let dir = scratch("missing-many-src");
    std::fs::write(
        dir.join("vars.ad"),
        "env USER=demo\nopen \"com.example.shop\"\nfill \"id=a\" \"${USER}\"\nfill \"id=b\" \"${PASSWORD}\"\nclick \"id=${BUTTON}\"\nfill \"id=c\" \"${PASSWORD}\"\nfill \"id=d\" \"${GONE:-fallback}\"\nclose\n",
    )
    .unwrap();
    let mut c = ad(&dir);
    c.args(["run", "vars.ad", "--artifacts-dir"]).arg(&art);
    let o = c.output().unwrap();
    assert_eq!(code(&o), 2);
    let e = err(&o);
    assert!(e.contains("`${BUTTON}` has no value"), "{e}");
    assert!(e.contains("`${PASSWORD}` has no value"), "{e}");
    assert!(e.contains("vars.ad:4:"), "first use of PASSWORD: {e}");
    assert!(
        e.contains("also needed here"),
        "second use of PASSWORD: {e}"
    );
    assert!(!e.contains("GONE"), "a fallback is a value: {e}");
    assert!(
        e.contains("the run needs 2 variables that have no value (${BUTTON}, ${PASSWORD})"),
        "{e}"
    );
    // With --from, only the steps from N on count (step 5 is the last fill).
    let digest = out(&ad(&dir)
        .args(["parse", "--digest", "vars.ad"])
        .output()
        .unwrap());
    let digest = digest
        .split_whitespace()
        .next()
        .unwrap_or_default()
        .to_string();
    let mut c = ad(&dir);
    c.args([
        "run",
        "vars.ad",
        "--from",
        "5",
        "--plan-digest",
        &digest,
        "-e",
        "BUTTON=x",
        "--artifacts-dir",
    ])
    .arg(&art);
    let e = err(&c.output().unwrap());
    assert!(
        e.contains("the run needs ${PASSWORD} from step 5 on, which has no value"),
        "{e}"
    );
    assert!(!e.contains("BUTTON"), "{e}");
}

#[test]
fn ad_test_reports_missing_variables_and_broken_config_as_invalid() {
    let art = scratch("test-gate");
    let dir = scratch("test-gate-src");
    std::fs::write(dir.join(".git"), "").unwrap();
    std::fs::create_dir_all(dir.join("vars")).unwrap();
    std::fs::write(
        dir.join("vars/needs.ad"),
        "open \"com.example.shop\"\nfill \"id=b\" \"${PASSWORD}\"\nclose\n",
    )
    .unwrap();
    std::fs::create_dir_all(dir.join("broken")).unwrap();
    std::fs::write(
        dir.join("broken/ad.toml"),
        "[check]\nprofile = \"sideways\"\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("broken/ok.ad"),
        "open \"com.example.shop\"\nclose\n",
    )
    .unwrap();
    let mut c = ad(&dir);
    c.args(["test", ".", "--artifacts-dir"]).arg(&art);
    let o = c.output().unwrap();
    let text = out(&o);
    assert_eq!(code(&o), 1, "{text}");
    assert!(
        text.contains("INVALID  ./broken/ok.ad\n           not run: "),
        "{text}"
    );
    assert!(
        text.contains("check.profile must be auto, flow or handoff"),
        "{text}"
    );
    assert!(text.contains("INVALID"), "{text}");
    assert!(
        text.contains("[AD303] Error: `${PASSWORD}` has no value for this run"),
        "{text}"
    );
    assert!(text.contains("needs.ad:2:14"), "{text}");
    assert!(text.contains("2 invalid"), "{text}");
    // `ad run` refuses the broken configuration the same way.
    let mut c = ad(&dir);
    c.args(["run", "broken/ok.ad", "--artifacts-dir"]).arg(&art);
    let o = c.output().unwrap();
    assert_eq!(code(&o), 2);
    assert!(
        err(&o).contains("check.profile must be auto, flow or handoff"),
        "{}",
        err(&o)
    );
}

#[test]
fn static_errors_stop_the_run() {
    let art = scratch("static");
    let dir = scratch("static-src");
    std::fs::write(
        dir.join("bad.ad"),
        "open \"com.example.shop\"\nclick \"label=Sign in\"\n",
    )
    .unwrap();
    let mut c = ad(&dir);
    c.args(["run", "bad.ad", "--artifacts-dir"]).arg(&art);
    let o = c.output().unwrap();
    assert_eq!(code(&o), 2);
    let e = err(&o);
    assert!(e.contains("AD201"), "{e}");
    assert!(e.contains("nothing was run"), "{e}");
    assert!(!art.join("sessions").exists());
}

#[test]
fn force_runs_past_ad_only_errors() {
    // AD711 (a stale ref) is ad's finding; agent-device accepts the script and fails at run time.
    let art = scratch("force");
    let dir = scratch("force-src");
    std::fs::write(
        dir.join("stale.ad"),
        "open \"com.example.shop\" --relaunch\nsnapshot\nclick @e8\nclick @e9\n",
    )
    .unwrap();
    std::fs::create_dir_all(dir.join("apps")).unwrap();
    std::fs::copy(
        repo().join("examples/apps/shop.json"),
        dir.join("apps/shop.json"),
    )
    .unwrap();
    let mut c = ad(&dir);
    c.args(["run", "stale.ad", "--artifacts-dir"]).arg(&art);
    assert_eq!(
        code(&c.output().unwrap()),
        2,
        "errors stop the run without --force"
    );
    let mut c = ad(&dir);
    c.args([
        "run",
        "-q",
        "stale.ad",
        "--force",
        "--json",
        "--artifacts-dir",
    ])
    .arg(&art);
    let o = c.output().unwrap();
    assert_eq!(code(&o), 1);
    let v: Value = serde_json::from_str(&out(&o)).unwrap();
    fits("run-result", &v);
    fits("divergence-report", &v["error"]["details"]["divergence"]);
    assert_eq!(v["error"]["details"]["reason"], "ref_frame_expired");
    assert_eq!(v["error"]["code"], "REPLAY_DIVERGENCE");
}

#[test]
fn json_result_and_the_digest_agree_with_ad_parse() {
    let art = scratch("json");
    let o = run(&["run", "examples/handoff-profile.ad", "--json"], &art);
    assert_eq!(code(&o), 0, "{}", err(&o));
    let mut v: Value = serde_json::from_str(&out(&o)).unwrap();
    fits("run-result", &v);
    assert_eq!(check_runs(&art), 1, "the handoff run's journal");
    assert_eq!(v["sessionActive"], true);
    assert_eq!(v["location"]["screen"], "profile");
    let parse = ad(&repo())
        .args(["parse", "--digest", "examples/handoff-profile.ad"])
        .output()
        .unwrap();
    assert!(out(&parse).contains(v["planDigest"].as_str().unwrap()));
    v["runDir"] = "[run-dir]".into();
    v["sessionFile"] = "[session-file]".into();
    // Per-step timings: the wall clock varies, the sim's device clock does not.
    for s in v["steps"].as_array_mut().expect("per-step timings") {
        assert!(s["wallMs"].as_f64().is_some(), "{s}");
        s["wallMs"] = "[wall-ms]".into();
    }
    insta::assert_json_snapshot!("run_handoff_json", v);
    close_handed_over(&art, "default");
}

/// Ends the session a handoff run left in the session daemon (which then exits when idle).
fn close_handed_over(art: &Path, session: &str) {
    let o = ad(&repo())
        .env("AD_STATE_DIR", state_for(art))
        .args(["session", "--session", session, "close"])
        .output()
        .unwrap();
    assert_eq!(code(&o), 0, "{}{}", out(&o), err(&o));
}

#[test]
fn a_handoff_script_leaves_the_session_active() {
    let art = scratch("handoff");
    let o = run(&["run", "-q", "examples/handoff-profile.ad"], &art);
    assert_eq!(code(&o), 0);
    assert!(
        out(&o).contains(
            "session \"default\" is still active: com.example.shop on screen \"profile\""
        ),
        "{}",
        out(&o)
    );
    // The live session is handed to the session daemon (no session file is left, nothing among
    // the artifacts), where `ad session` commands continue it.
    assert!(
        out(&o).contains("continue it with `ad session --session default …`"),
        "{}",
        out(&o)
    );
    assert!(!state_for(&art).join("sessions/default.json").exists());
    assert!(!art.join("sessions").exists());
    let o = ad(&repo())
        .env("AD_STATE_DIR", state_for(&art))
        .args(["session", "wait", "id=\"profile.title\""])
        .output()
        .unwrap();
    assert_eq!(code(&o), 0, "{}{}", out(&o), err(&o));
    close_handed_over(&art, "default");
}

#[test]
fn resume_is_refused_on_a_digest_mismatch_and_accepted_on_a_match() {
    let art = scratch("resume");
    let o = run(
        &[
            "run",
            "examples/navigation.ad",
            "--from",
            "2",
            "--plan-digest",
            "abc",
        ],
        &art,
    );
    assert_eq!(code(&o), 2);
    assert!(
        err(&o).contains("--plan-digest does not match"),
        "{}",
        err(&o)
    );
    let o = run(&["run", "examples/navigation.ad", "--from", "2"], &art);
    assert_eq!(code(&o), 2, "--from needs --plan-digest (clap)");

    let parse = ad(&repo())
        .args(["parse", "--digest", "examples/navigation.ad"])
        .output()
        .unwrap();
    let text = out(&parse);
    let digest = text
        .split(|c: char| !c.is_ascii_hexdigit())
        .find(|w| w.len() == 64)
        .expect("ad parse --digest prints the digest")
        .to_string();
    let o = run(
        &[
            "run",
            "-q",
            "examples/navigation.ad",
            "--from",
            "1",
            "--plan-digest",
            &digest,
        ],
        &art,
    );
    assert_eq!(code(&o), 0, "{}", err(&o));
}

#[test]
fn help_texts_teach() {
    for cmd in ["run", "test"] {
        let o = ad(&repo()).args([cmd, "--help"]).output().unwrap();
        assert_eq!(code(&o), 0);
        insta::assert_snapshot!(format!("help_{cmd}"), out(&o));
    }
}

// ---- ad test ------------------------------------------------------------------------------------

/// A small XML well-formedness check: balanced tags, quoted attributes, known entities.
type Element = (String, Vec<(String, String)>);

fn check_xml(xml: &str) -> Result<Vec<Element>, String> {
    let mut stack: Vec<String> = Vec::new();
    let mut elements = Vec::new();
    let mut rest = xml.trim_start();
    if let Some(r) = rest.strip_prefix("<?xml") {
        rest = &r[r.find("?>").ok_or("unterminated declaration")? + 2..];
    }
    let check_text = |t: &str| -> Result<(), String> {
        let mut r = t;
        while let Some(i) = r.find('&') {
            let end = r[i..]
                .find(';')
                .ok_or_else(|| format!("bad entity in {t:?}"))?;
            let ent = &r[i + 1..i + end];
            if !matches!(ent, "amp" | "lt" | "gt" | "quot" | "apos") && !ent.starts_with('#') {
                return Err(format!("unknown entity &{ent};"));
            }
            r = &r[i + end..];
        }
        if t.contains('<') {
            return Err("raw < in text".into());
        }
        Ok(())
    };
    while let Some(open) = rest.find('<') {
        check_text(&rest[..open])?;
        let close = rest[open..].find('>').ok_or("unterminated tag")? + open;
        let tag = &rest[open + 1..close];
        rest = &rest[close + 1..];
        if let Some(name) = tag.strip_prefix('/') {
            let top = stack.pop().ok_or("close without open")?;
            if top != name.trim() {
                return Err(format!("</{name}> closes <{top}>"));
            }
            continue;
        }
        let self_closing = tag.ends_with('/');
        let body = tag.trim_end_matches('/');
        let name = body
            .split_whitespace()
            .next()
            .ok_or("empty tag")?
            .to_string();
        let mut attrs = Vec::new();
        let mut a = body[name.len()..].trim();
        while !a.is_empty() {
            let eq = a
                .find('=')
                .ok_or_else(|| format!("attribute without value in <{name}>"))?;
            let key = a[..eq].trim().to_string();
            let v = a[eq + 1..].trim_start();
            let v = v.strip_prefix('"').ok_or("unquoted attribute")?;
            let end = v.find('"').ok_or("unterminated attribute")?;
            check_text(&v[..end])?;
            attrs.push((key, v[..end].to_string()));
            a = v[end + 1..].trim();
        }
        elements.push((name.clone(), attrs));
        if !self_closing {
            stack.push(name);
        }
    }
    if !stack.is_empty() {
        return Err(format!("unclosed {stack:?}"));
    }
    Ok(elements)
}

#[test]
fn test_runs_the_examples_and_writes_valid_junit() {
    let art = scratch("suite");
    let junit = art.join("junit.xml");
    let json = art.join("report.json");
    // The web examples run in headless Chromium (`context platform=web`).
    ad_tests::web_fixture::require_chromium();
    let app = format!(
        "APP=file://{}/examples/web/app/index.html",
        repo().display()
    );
    let o = run(
        &[
            "test",
            "examples",
            "-e",
            "PASSWORD=hunter2",
            "-e",
            &app,
            "--jobs",
            "2",
            "--report-junit",
            junit.to_str().unwrap(),
            "--report-json",
            json.to_str().unwrap(),
        ],
        &art,
    );
    assert_eq!(code(&o), 1, "the divergent example fails");
    // A web run's device time is the wall clock.
    let stdout: String = normalize(&out(&o), &art)
        .lines()
        .map(
            |l| match (l.contains("examples/web/"), l.find(" steps, ")) {
                (true, Some(i)) => format!("{} steps, [wall] device time)", &l[..i]),
                _ => l.to_string(),
            },
        )
        .collect::<Vec<_>>()
        .join("\n");
    insta::assert_snapshot!("test_examples_stdout", stdout);
    let xml = std::fs::read_to_string(&junit).unwrap();
    let elements = check_xml(&xml).unwrap_or_else(|e| panic!("invalid XML ({e}):\n{xml}"));
    let cases: Vec<_> = elements.iter().filter(|e| e.0 == "testcase").collect();
    assert_eq!(cases.len(), 11);
    let failures: Vec<_> = elements.iter().filter(|e| e.0 == "failure").collect();
    assert_eq!(failures.len(), 1);
    let msg = &failures[0].1.iter().find(|a| a.0 == "message").unwrap().1;
    assert!(msg.contains("reshuffled-login.ad:12"), "{msg}");
    let report: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    fits("suite-report", &report);
    assert_eq!(check_runs(&art), 11, "one run folder per script");
    assert_eq!(report["summary"]["passed"], 10);
    assert_eq!(report["summary"]["failed"], 1);
}

#[test]
fn test_shards_and_platform_filter() {
    let art = scratch("shard");
    let o = run(
        &[
            "test",
            "examples",
            "--shard",
            "1/3",
            "--platform",
            "android",
        ],
        &art,
    );
    assert_eq!(code(&o), 0, "{}", out(&o));
    assert!(
        out(&o).contains("left out by --platform android"),
        "{}",
        out(&o)
    );
    let o = run(&["test", "examples", "--shard", "4/3"], &art);
    assert_eq!(code(&o), 2);
}

// ---- crash safety ---------------------------------------------------------------------------------

#[test]
fn kill_9_leaves_a_readable_journal_with_the_last_intent() {
    let dir = scratch("kill");
    let art = dir.join("art");
    std::fs::write(
        dir.join("slow.json"),
        r#"{"app": "com.example.slow", "start": "main", "screens": {"main": {"elements": [
            {"type": "button", "id": "go", "label": "Go"},
            {"type": "button", "id": "slow", "label": "Slow", "on": {"tap": {"stallMs": 60000}}}
        ]}}}"#,
    )
    .unwrap();
    let mut script = String::from("open \"com.example.slow\"\n");
    for _ in 0..30 {
        script.push_str("click \"id=\\\"go\\\"\"\n");
    }
    script.push_str("click \"id=\\\"slow\\\"\"\n");
    for _ in 0..10 {
        script.push_str("click \"id=\\\"go\\\"\"\n");
    }
    script.push_str("close\n");
    std::fs::write(dir.join("long.ad"), &script).unwrap();
    let mut child = ad(&dir)
        .args([
            "run",
            "-q",
            "long.ad",
            "--app",
            "slow.json",
            "--artifacts-dir",
        ])
        .arg(&art)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // Wait (bounded) until the slow step's intent is on disk, then kill -9.
    let mut events_path = None;
    for _ in 0..600 {
        if let Some(p) = std::fs::read_dir(&art)
            .ok()
            .into_iter()
            .flatten()
            .filter_map(|e| e.ok())
            .map(|e| e.path().join("events.jsonl"))
            .find(|p| p.is_file())
        {
            let text = std::fs::read_to_string(&p).unwrap_or_default();
            if text.contains("\"event\":\"action_attempt\",\"step\":32,") {
                events_path = Some(p);
                break;
            }
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    child.kill().unwrap(); // SIGKILL
    child.wait().unwrap();
    let path = events_path.expect("the run reached the slow step");
    let text = std::fs::read_to_string(&path).unwrap();
    let complete: Vec<&str> = text
        .split_inclusive('\n')
        .filter(|l| l.ends_with('\n'))
        .collect();
    let rows: Vec<Value> = complete
        .iter()
        .map(|l| serde_json::from_str(l.trim_end()).expect("every complete line parses"))
        .collect();
    for (i, r) in rows.iter().enumerate() {
        assert_eq!(r["sequence"], i as u64 + 1);
    }
    let last_attempt = rows
        .iter()
        .rev()
        .find(|r| r["event"] == "action_attempt")
        .unwrap();
    assert_eq!(last_attempt["step"], 32);
    let id = last_attempt["attempt_id"].as_str().unwrap();
    assert!(
        !rows
            .iter()
            .any(|r| r["event"] == "action_result" && r["attempt_id"] == id),
        "the interrupted action has no result: its outcome is unknown"
    );
    assert!(!rows.iter().any(|r| r["event"] == "run_end"));
    assert!(!path.parent().unwrap().join("run.json").exists());
    // Every referenced observation is on disk with its hash.
    assert_eq!(
        check_runs(&art),
        1,
        "complete lines of a killed run are valid events"
    );
    for r in rows.iter().filter(|r| r["event"] == "observation") {
        let file = path.parent().unwrap().join(r["path"].as_str().unwrap());
        let bytes = std::fs::read(&file).unwrap();
        assert_eq!(r["bytes"], bytes.len() as u64);
    }
}

/// Every file under `dir`, recursively.
fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else {
                out.push(p);
            }
        }
    }
    out
}

#[test]
fn no_injected_secret_is_persisted_and_live_sessions_stay_private() {
    const SECRET: &str = "S3cr3t-Zebra-9911";
    let art = scratch("secret");
    // Two failing runs (a divergence leaves the session live), the secret from -e and from the
    // environment.
    let kept = run(
        &[
            "run",
            "-q",
            "examples/login.ad",
            "--keep-session",
            "-e",
            &format!("PASSWORD={SECRET}"),
        ],
        &art,
    );
    // The shop model expects another password: the run diverges after the fill, session live.
    assert_eq!(code(&kept), 1, "{}", err(&kept));
    let mut c = ad(&repo());
    c.args([
        "run",
        "examples/divergent/reshuffled-login.ad",
        "--session",
        "div",
        "--artifacts-dir",
    ])
    .arg(&art)
    .env("AD_STATE_DIR", state_for(&art))
    .env("AD_VAR_PASSWORD", SECRET);
    let failed = c.output().unwrap();
    assert_eq!(code(&failed), 1, "{}", err(&failed));
    for o in [&kept, &failed] {
        assert!(!out(o).contains(SECRET) && !err(o).contains(SECRET));
    }
    let state = state_for(&art);
    let sessions: Vec<PathBuf> = files_under(&state.join("sessions"));
    assert_eq!(
        sessions.len(),
        2,
        "both runs left their session live: {sessions:?}"
    );
    for f in files_under(&art).iter().chain(&sessions) {
        let bytes = std::fs::read(f).unwrap();
        assert!(
            !String::from_utf8_lossy(&bytes).contains(SECRET),
            "{} holds the secret in clear",
            f.display()
        );
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        for f in &sessions {
            let mode = std::fs::metadata(f).unwrap().permissions().mode() & 0o777;
            assert_eq!(mode, 0o600, "{}", f.display());
        }
        let mode = std::fs::metadata(state.join("sessions"))
            .unwrap()
            .permissions()
            .mode()
            & 0o777;
        assert_eq!(mode, 0o700);
    }
    // The secure field is kept masked, as the device shows it; the run still resumes from it.
    let saved = std::fs::read_to_string(state.join("sessions/default.json")).unwrap();
    assert!(
        saved.contains(&"•".repeat(SECRET.chars().count())),
        "{saved}"
    );
    assert!(!art.join("sessions").exists());
}

/// An injected value typed into an ordinary field is in the session a divergence leaves live
/// as `<var:NAME>`, never in clear; resuming with `--from` puts the run's value back, so the
/// step that checks the field passes.
#[test]
fn injected_values_in_a_live_session_are_redacted_and_put_back_on_resume() {
    const EMAIL: &str = "Uniq-Mail-4471@example.org";
    let art = scratch("kept-values");
    let dir = scratch("kept-values-src");
    ad_tests::copy_example_models(&dir);
    let script = dir.join("fields.ad");
    std::fs::write(
        &script,
        concat!(
            "open \"com.example.shop\" --relaunch\n",
            "wait \"id=\\\"login.email\\\"\" 5000\n",
            "fill \"id=\\\"login.email\\\"\" \"${EMAIL}\"\n",
            "is \"text\" \"id=\\\"login.email\\\"\" \"${EXPECTED}\"\n",
            "close\n",
        ),
    )
    .unwrap();
    let script = script.to_str().unwrap();
    let email = format!("EMAIL={EMAIL}");
    // The check expects other text: the run diverges at step 4 with the session live.
    let first = run(&["run", script, "-e", &email, "-e", "EXPECTED=other"], &art);
    assert_eq!(code(&first), 1, "{}", err(&first));
    let saved = state_for(&art).join("sessions/default.json");
    let session = std::fs::read_to_string(&saved).unwrap();
    assert!(!session.contains(EMAIL), "{session}");
    assert!(session.contains("<var:EMAIL>"), "{session}");
    for f in files_under(&art) {
        let text = String::from_utf8_lossy(&std::fs::read(&f).unwrap()).into_owned();
        assert!(!text.contains(EMAIL), "{} holds the value", f.display());
    }
    let digest = out(&ad(&repo())
        .args(["parse", "--digest", script])
        .output()
        .unwrap());
    let digest = digest
        .split(|c: char| !c.is_ascii_hexdigit())
        .find(|w| w.len() == 64)
        .expect("a digest")
        .to_string();
    let expected = format!("EXPECTED={EMAIL}");
    let resumed = run(
        &[
            "run",
            script,
            "--from",
            "4",
            "--plan-digest",
            &digest,
            "-e",
            &email,
            "-e",
            &expected,
        ],
        &art,
    );
    assert_eq!(code(&resumed), 0, "{}", err(&resumed));
}

#[test]
fn resume_without_a_live_session_is_refused() {
    let art = scratch("resume-blank");
    let parse = ad(&repo())
        .args(["parse", "--digest", "examples/navigation.ad"])
        .output()
        .unwrap();
    let digest = out(&parse)
        .split(|c: char| !c.is_ascii_hexdigit())
        .find(|w| w.len() == 64)
        .expect("a digest")
        .to_string();
    let o = run(
        &[
            "run",
            "examples/navigation.ad",
            "--from",
            "5",
            "--plan-digest",
            &digest,
        ],
        &art,
    );
    assert_eq!(code(&o), 2, "{}", err(&o));
    let e = err(&o);
    assert!(e.contains("no live session \"default\" to resume"), "{e}");
    assert!(
        e.contains(
            &state_for(&art)
                .join("sessions/default.json")
                .display()
                .to_string()
        ),
        "{e}"
    );
    assert!(!art.exists() || files_under(&art).is_empty(), "nothing ran");
}

#[test]
fn usage_errors_for_jobs_and_shards_are_exact() {
    let art = scratch("usage");
    for (args, want) in [
        (
            vec!["test", "examples/", "--jobs", "0"],
            "must be at least 1",
        ),
        (
            vec!["test", "examples/", "--shard", "1/0"],
            "COUNT must be at least 1",
        ),
        (
            vec!["test", "examples/", "--shard", "3/2"],
            "INDEX must be between 1 and COUNT (2)",
        ),
    ] {
        let o = run(&args, &art);
        assert_eq!(code(&o), 2, "{args:?}: {}", err(&o));
        assert!(err(&o).contains(want), "{args:?}: {}", err(&o));
    }
}

#[test]
fn a_bad_report_path_is_refused_before_the_suite_runs() {
    let art = scratch("reports");
    let ok_json = art.join("ok.json");
    let o = run(
        &[
            "test",
            "examples/navigation.ad",
            "--report-junit",
            "/nonexistent/j.xml",
            "--report-json",
            ok_json.to_str().unwrap(),
        ],
        &art,
    );
    assert_eq!(code(&o), 2, "{}", err(&o));
    assert!(
        err(&o).contains("/nonexistent/j.xml: cannot write the report there"),
        "{}",
        err(&o)
    );
    assert!(err(&o).contains("nothing was run"), "{}", err(&o));
    assert!(
        !out(&o).contains("PASSED"),
        "the suite did not run: {}",
        out(&o)
    );
    // With good destinations the same suite runs and writes both.
    let junit = art.join("j.xml");
    let o = run(
        &[
            "test",
            "examples/navigation.ad",
            "--report-junit",
            junit.to_str().unwrap(),
            "--report-json",
            ok_json.to_str().unwrap(),
        ],
        &art,
    );
    assert_eq!(code(&o), 0, "{}", err(&o));
    assert!(junit.is_file() && ok_json.is_file());
}

#[test]
fn a_one_character_secret_leaves_paths_and_structure_intact() {
    let art = scratch("one-char");
    let o = run(
        &[
            "run",
            "--json",
            "examples/divergent/reshuffled-login.ad",
            "-e",
            "PASSWORD=x",
        ],
        &art,
    );
    assert_eq!(code(&o), 1, "{}", err(&o));
    let text = out(&o);
    let v: Value = serde_json::from_str(&text).unwrap();
    fits("run-result", &v);
    let details = &v["error"]["details"];
    assert_eq!(
        details["replayPath"], "examples/divergent/reshuffled-login.ad",
        "{text}"
    );
    // No role, code or kind anywhere is rewritten.
    for needle in ["te<var:PASSWORD>tfield", "<var:PASSWORD>amples", "RE<var:"] {
        assert!(!text.contains(needle), "{needle} in {text}");
    }
    assert!(
        text.contains("\"role\": \"textfield\"") || text.contains("textfield"),
        "{text}"
    );
}

#[test]
fn a_script_cannot_write_outside_its_run_folder() {
    let art = scratch("escape");
    let dir = scratch("escape-src");
    std::fs::create_dir_all(dir.join("apps")).unwrap();
    std::fs::copy(
        repo().join("examples/apps/shop.json"),
        dir.join("apps/shop.json"),
    )
    .unwrap();
    let victim = dir.join("victim.txt");
    std::fs::write(&victim, "keep me").unwrap();
    std::fs::write(
        dir.join("inside.ad"),
        "open \"com.example.shop\"\nscreenshot \"shots/home.png\"\nclose\n",
    )
    .unwrap();
    let mut c = ad(&dir);
    c.args(["run", "-q", "inside.ad", "--artifacts-dir"])
        .arg(&art);
    let o = c.output().unwrap();
    assert_eq!(code(&o), 0, "{}", err(&o));
    let shots: Vec<PathBuf> = files_under(&art)
        .into_iter()
        .filter(|p| p.ends_with("shots/home.png"))
        .collect();
    assert_eq!(shots.len(), 1, "written inside the run folder");
    for escape in [
        "../victim.txt".to_string(),
        victim.display().to_string(),
        "shots/../../../victim.txt".to_string(),
    ] {
        std::fs::write(
            dir.join("escape.ad"),
            format!("open \"com.example.shop\"\nscreenshot \"{escape}\"\nclose\n"),
        )
        .unwrap();
        // AD735 is a warning: the run starts, and the step is refused.
        let mut c = ad(&dir);
        c.args(["run", "escape.ad", "--artifacts-dir"]).arg(&art);
        let o = c.output().unwrap();
        assert_eq!(code(&o), 1, "{escape}: {}", err(&o));
        assert!(
            err(&o).contains("is outside the run's artifacts folder"),
            "{}",
            err(&o)
        );
        assert_eq!(
            std::fs::read_to_string(&victim).unwrap(),
            "keep me",
            "{escape}"
        );
    }
}

#[test]
fn a_bad_app_model_is_a_usage_error_before_anything_runs() {
    let art = scratch("bad-model");
    let dir = scratch("bad-model-src");
    let malformed = dir.join("broken.json");
    std::fs::write(
        &malformed,
        "{\n  \"app\": \"com.example.shop\",\n  oops\n}\n",
    )
    .unwrap();
    for (model, want) in [
        (
            "/etc/passwd".to_string(),
            "/etc/passwd:1:1: invalid app model".to_string(),
        ),
        (
            malformed.display().to_string(),
            format!("{}:3:3: invalid app model", malformed.display()),
        ),
        (
            dir.join("missing.json").display().to_string(),
            "no such model file".to_string(),
        ),
        (
            dir.display().to_string(),
            "is a folder, not an app model file".to_string(),
        ),
    ] {
        let o = run(&["run", "examples/navigation.ad", "--app", &model], &art);
        assert_eq!(code(&o), 2, "{model}: {}", err(&o));
        assert!(err(&o).contains(&want), "{model}: {}", err(&o));
        assert!(!err(&o).contains("REPLAY_DIVERGENCE"), "{}", err(&o));
    }
    assert!(files_under(&art).is_empty(), "nothing ran, no journal");
}

#[cfg(unix)]
#[test]
fn sigint_and_sigterm_end_the_run_with_its_journal_and_session() {
    for signal in ["INT", "TERM"] {
        let dir = scratch(&format!("signal-{signal}"));
        let art = dir.join("art");
        std::fs::write(
            dir.join("slow.json"),
            r#"{"app": "com.example.slow", "start": "main", "screens": {"main": {"elements": [
                {"type": "button", "id": "go", "label": "Go", "on": {"tap": {"stallMs": 150}}}
            ]}}}"#,
        )
        .unwrap();
        let mut script = String::from("open \"com.example.slow\"\n");
        for _ in 0..200 {
            script.push_str("click \"id=\\\"go\\\"\"\n");
        }
        script.push_str("close\n");
        std::fs::write(dir.join("long.ad"), &script).unwrap();
        let child = ad(&dir)
            .args([
                "run",
                "-q",
                "long.ad",
                "--app",
                "slow.json",
                "--artifacts-dir",
            ])
            .arg(&art)
            .env("AD_STATE_DIR", dir.join("state"))
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        // Bounded wait until a few steps have run, then the signal.
        let mut events = None;
        for _ in 0..400 {
            events = std::fs::read_dir(&art)
                .ok()
                .into_iter()
                .flatten()
                .filter_map(|e| e.ok())
                .map(|e| e.path().join("events.jsonl"))
                .find(|p| {
                    std::fs::read_to_string(p)
                        .unwrap_or_default()
                        .contains("\"step\":4,")
                });
            if events.is_some() {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(25));
        }
        let events = events.expect("the run got going");
        let status = Command::new("kill")
            .args([&format!("-{signal}"), &child.id().to_string()])
            .status()
            .unwrap();
        assert!(status.success());
        let out = child.wait_with_output().unwrap();
        assert_eq!(
            out.status.code(),
            Some(130),
            "{signal}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let text = std::fs::read_to_string(&events).unwrap();
        assert!(
            text.contains("\"event\":\"run_end\""),
            "{signal}: no run_end"
        );
        assert!(text.contains("\"exit_reason\":\"interrupted\""), "{signal}");
        let run_json = events.with_file_name("run.json");
        let summary = std::fs::read_to_string(&run_json).expect("run.json written");
        assert!(
            summary.contains("\"exit_code\": 130") || summary.contains("\"exit_code\":130"),
            "{summary}"
        );
        assert!(
            dir.join("state/sessions/default.json").is_file(),
            "{signal}: the live session was saved for --from"
        );
        assert_eq!(check_runs(&art), 1);
    }
}

// ---- set-up errors (issue 29) -----------------------------------------------------------------

/// What a set-up error never shows: it is not a divergence, and there is nothing to resume.
fn assert_not_a_divergence(text: &str) {
    for divergence in [
        "REPLAY_DIVERGENCE",
        "Divergence at step",
        "Repair hint",
        "--plan-digest",
        "--from",
    ] {
        assert!(!text.contains(divergence), "{divergence}:\n{text}");
    }
}

/// The events of the one run folder under `art`.
fn run_events(art: &Path) -> Vec<Value> {
    let events = files_under(art)
        .into_iter()
        .find(|p| p.ends_with("events.jsonl"))
        .expect("a run folder");
    std::fs::read_to_string(events)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[test]
fn a_missing_app_model_is_a_set_up_error_of_the_sim_not_a_divergence() {
    let dir = scratch("sim-unavailable");
    // Opened by its literal id: missing before any step, so nothing runs and nothing is written.
    let literal = dir.join("literal.ad");
    std::fs::write(&literal, "open \"com.example.nowhere\"\nclose\n").unwrap();
    let art = dir.join("art-literal");
    let o = run(&["run", literal.to_str().unwrap()], &art);
    assert_eq!(code(&o), 2, "{}", err(&o));
    assert!(
        err(&o).contains(
            "error[BACKEND_UNAVAILABLE]: the sim backend cannot start: no app model for \"com.example.nowhere\""
        ),
        "{}",
        err(&o)
    );
    assert!(
        err(&o).contains("help: the sim runs app models: pass --app FILE"),
        "{}",
        err(&o)
    );
    assert_not_a_divergence(&err(&o));
    assert!(files_under(&art).is_empty(), "nothing ran, no journal");
    // Opened through a variable: found missing at its step, which ends the run the same way
    // (exit 2, no divergence report); the journal says why and holds no injected value.
    let variable = dir.join("variable.ad");
    std::fs::write(&variable, "open \"${APP}\"\nclose\n").unwrap();
    let art = dir.join("art-variable");
    let args = [
        "run",
        variable.to_str().unwrap(),
        "-e",
        "APP=com.example.nowhere",
    ];
    let o = run(&args, &art);
    assert_eq!(code(&o), 2, "{}", err(&o));
    assert!(
        err(&o).contains("error[BACKEND_UNAVAILABLE]: the sim backend cannot start: no app model for \"<var:APP>\""),
        "{}",
        err(&o)
    );
    assert_not_a_divergence(&err(&o));
    let events = run_events(&art);
    assert!(
        !events.iter().any(|e| e["event"] == "divergence"),
        "{events:?}"
    );
    let end = events.iter().find(|e| e["event"] == "run_end").unwrap();
    assert_eq!(end["exit_reason"], "setup", "{end}");
    assert_eq!(end["exit_code"], 2, "{end}");
    let art = dir.join("art-json");
    let o = run(&[&args[..], &["--json"]].concat(), &art);
    assert_eq!(code(&o), 2, "{}", err(&o));
    let record: Value = serde_json::from_slice(&o.stdout).unwrap();
    fits("run-result", &record);
    assert_eq!(record["error"]["code"], "BACKEND_UNAVAILABLE", "{record:#}");
    assert_eq!(record["error"]["details"]["setup"]["backend"], "sim");
    assert!(record["error"]["details"].get("divergence").is_none());
    assert!(!out(&o).contains("com.example.nowhere"), "{}", out(&o));
    assert_eq!(check_runs(&art), 1);
}

/// agent-device not installed: the same set-up error for a one-shot run and for a close-less
/// run served by the session daemon, in the words `ad doctor` uses.
#[test]
fn agent_device_not_installed_is_a_set_up_error_saying_how_to_install_it() {
    let dir = scratch("agent-device-missing");
    let nowhere = dir.join("no-agent-device");
    let doctor = ad(&dir)
        .args(["doctor", "--json"])
        .env("AD_AGENT_DEVICE", &nowhere)
        .env("AGENT_DEVICE_STATE_DIR", dir.join("agent-device-state"))
        .env_remove("AGENT_DEVICE_DAEMON_BASE_URL")
        .output()
        .unwrap();
    let rows: Value = serde_json::from_slice(&doctor.stdout).unwrap();
    let row = rows["backends"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["backend"] == "agent-device")
        .unwrap()
        .clone();
    assert_eq!(row["usable"], false, "{row:#}");
    let says = row["missing"][0].as_str().unwrap().to_string();
    assert!(says.contains("npm install -g agent-device@"), "{says}");
    for (name, text) in [
        (
            "once.ad",
            "context platform=linux\nopen ad-gtk-login\nclose\n",
        ),
        ("handoff.ad", "context platform=linux\nopen ad-gtk-login\n"),
    ] {
        let script = dir.join(name);
        std::fs::write(&script, text).unwrap();
        let art = dir.join(format!("art-{name}"));
        let o = ad(&dir)
            .args(["run", script.to_str().unwrap(), "--backend", "agent-device"])
            .arg("--artifacts-dir")
            .arg(&art)
            .env("AD_STATE_DIR", state_for(&art))
            .env("AD_AGENT_DEVICE", &nowhere)
            .env("AGENT_DEVICE_STATE_DIR", dir.join("agent-device-state"))
            .env_remove("AGENT_DEVICE_DAEMON_BASE_URL")
            .output()
            .unwrap();
        assert_eq!(code(&o), 2, "{name}: {}", err(&o));
        assert!(
            err(&o).contains(&format!(
                "error[BACKEND_UNAVAILABLE]: the agent-device backend cannot start: {says}"
            )),
            "{name}: {}",
            err(&o)
        );
        assert_not_a_divergence(&err(&o));
        assert!(files_under(&art).is_empty(), "{name}: nothing ran");
    }
    // A suite on agent-device: its one daemon cannot start, which is said once, before any
    // script runs.
    let art = dir.join("art-suite");
    let o = ad(&dir)
        .args(["test", "once.ad", "handoff.ad", "--backend", "agent-device"])
        .arg("--artifacts-dir")
        .arg(&art)
        .env("AD_AGENT_DEVICE", &nowhere)
        .env("AGENT_DEVICE_STATE_DIR", dir.join("agent-device-state"))
        .env_remove("AGENT_DEVICE_DAEMON_BASE_URL")
        .output()
        .unwrap();
    assert_eq!(code(&o), 2, "{}", err(&o));
    assert_eq!(
        err(&o)
            .matches("error[BACKEND_UNAVAILABLE]: the agent-device backend cannot start")
            .count(),
        1,
        "{}",
        err(&o)
    );
    assert!(files_under(&art).is_empty(), "nothing ran");
}
