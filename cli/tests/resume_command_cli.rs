//! The command a divergence report offers (issue 31): `ad run FILE` with every option that chose
//! the run's backend and device (`--backend`, `--app`, the web backend's `--offline`, `--session`,
//! …), never an injected value, in the terminal report and as `details.resumeCommand` of the
//! `--json` result; run verbatim, it resumes (sim, a recorded fixture) or, where the backend
//! cannot resume (web), it is the fresh full replay the report's `resume.reason` says to run.
//! The web case needs Chromium: it fails, never skips, saying what to install.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use ad_tests::web_fixture::{assert_no_browser_left, fixture_dir, require_chromium, FixtureServer};
use serde_json::Value;

const RESHUFFLED: &str = "examples/divergent/reshuffled-login.ad";

/// `ad` in the repository root with the scratch folder's own state and temp folders.
fn ad(dir: &Path) -> Command {
    let tmp = dir.join("tmp");
    std::fs::create_dir_all(&tmp).unwrap();
    let mut c = Command::new(env!("CARGO_BIN_EXE_ad"));
    c.current_dir(ad_tests::repo_dir())
        .env("NO_COLOR", "1")
        .env("AD_STATE_DIR", dir.join("state"))
        .env("AD_SESSION_IDLE_MS", "1500")
        .env("TMPDIR", &tmp)
        .env_remove("AD_VAR_PASSWORD")
        .stdin(Stdio::null());
    c
}

fn run(dir: &Path, args: &[&str]) -> Output {
    ad(dir)
        .args(args)
        .arg("--artifacts-dir")
        .arg(dir.join("runs"))
        .output()
        .unwrap()
}

fn text(o: &Output) -> String {
    common::output_text(o)
}

fn json(o: &Output) -> Value {
    serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("not JSON ({e}):\n{}", text(o)))
}

/// The commands the terminal report quotes in backticks.
fn quoted_commands(report: &str) -> Vec<String> {
    report
        .split('`')
        .skip(1)
        .step_by(2)
        .filter(|s| s.starts_with("ad run "))
        .map(str::to_string)
        .collect()
}

fn scratch(name: &str) -> PathBuf {
    common::scratch_dir(&format!("resume-command-{name}"))
}

#[test]
fn a_sim_resume_command_carries_the_backend_app_and_session_and_resumes_verbatim() {
    let dir = scratch("sim");
    let args = [
        "run",
        RESHUFFLED,
        "--backend",
        "sim",
        "--app",
        "examples/apps/shop.json",
        "--session",
        "resume-sim",
        "-e",
        "PASSWORD=sesame-31",
    ];
    let first = run(&dir, &args);
    assert_eq!(first.status.code(), Some(1), "{}", text(&first));
    let report = text(&first);
    let printed = quoted_commands(&report);
    assert_eq!(printed.len(), 2, "the resume and the alternate:\n{report}");
    let mut json_args = args.to_vec();
    json_args.push("--json");
    let r = json(&run(&dir, &json_args));
    let digest = r["planDigest"].as_str().unwrap();
    let command = r["error"]["details"]["resumeCommand"].as_str().unwrap();
    assert_eq!(
        command,
        format!(
            "ad run {RESHUFFLED} --backend sim --app examples/apps/shop.json --session resume-sim --from 4 --plan-digest {digest}"
        )
    );
    // The terminal offers the same command (the digest is the script's, run after run).
    assert_eq!(printed[0], command, "{report}");
    assert!(!report.contains("sesame-31") && !command.contains("sesame-31"));
    // Verbatim (with the value the script's own `env` supplies): it resumes at step 4 on the
    // session the divergence left, where the same impostor is refused again — a resumed run's
    // divergence (exit 1), not a refusal (exit 2).
    let argv = common::command_words(command);
    let resumed = run(&dir, &argv.iter().map(String::as_str).collect::<Vec<_>>());
    assert_eq!(resumed.status.code(), Some(1), "{}", text(&resumed));
    assert!(
        text(&resumed).contains("Divergence at step 4"),
        "{}",
        text(&resumed)
    );
    assert!(
        text(&resumed).contains("0 of 6 step(s) replayed"),
        "it started at step 4:\n{}",
        text(&resumed)
    );
}

#[test]
fn a_recorded_replay_offers_its_resume_with_the_recorded_backend() {
    let dir = scratch("recorded");
    let fixture = dir.join("fixture");
    let recorded = run(
        &dir,
        &[
            "run",
            RESHUFFLED,
            "--record-fixture",
            fixture.to_str().unwrap(),
        ],
    );
    assert_eq!(recorded.status.code(), Some(1), "{}", text(&recorded));
    let backend = format!("recorded:{}", fixture.display());
    let replay = run(&dir, &["run", RESHUFFLED, "--backend", &backend, "--json"]);
    let r = json(&replay);
    let command = r["error"]["details"]["resumeCommand"].as_str().unwrap();
    let argv = common::command_words(command);
    let at = argv.iter().position(|w| w == "--backend").expect(command);
    assert_eq!(argv[at + 1], backend, "{command}");
    assert!(
        !argv.iter().any(|w| w == "--record-fixture"),
        "a resume must not record over the fixture: {command}"
    );
    assert!(argv.iter().any(|w| w == "--from"), "{command}");
}

/// A script recorded when the to-do filter was labelled "Completed"; the page now labels it
/// "Done" (tests/web/renamed-filter.html): a selector miss.
const RENAMED: &str = "context platform=web\n\
open \"${BASE}/renamed-filter.html\"\n\
# agent-device:target-v1 {\"role\":\"link\",\"label\":\"Completed\",\"ancestry\":[{\"role\":\"navigation\",\"label\":\"Filters\"}],\"sibling\":4,\"viewportOrder\":0,\"verification\":\"verified\"}\n\
click \"label=\\\"Completed\\\"\"\n\
close\n";

#[test]
fn a_web_report_refuses_the_resume_with_its_reason_and_offers_the_rerun_with_its_options() {
    require_chromium();
    let dir = scratch("web");
    let server = FixtureServer::start(&fixture_dir());
    let script = dir.join("flow.ad");
    std::fs::write(&script, RENAMED).unwrap();
    let base_url = server.url("").trim_end_matches('/').to_string();
    let base = format!("BASE={base_url}");
    let args = [
        "run",
        script.to_str().unwrap(),
        "--offline",
        "--session",
        "resume-web",
        "-e",
        &base,
    ];
    let first = run(&dir, &args);
    assert_no_browser_left(&dir);
    assert_eq!(first.status.code(), Some(1), "{}", text(&first));
    let report = text(&first);
    let printed = quoted_commands(&report);
    assert_eq!(printed.len(), 1, "{report}");
    assert!(
        report.contains("cannot currently be resumed automatically (the web backend's session ends with the run) — run a fresh full replay instead"),
        "{report}"
    );
    let mut json_args = args.to_vec();
    json_args.push("--json");
    let r = json(&run(&dir, &json_args));
    assert_no_browser_left(&dir);
    let resume = &r["error"]["details"]["divergence"]["resume"];
    assert_eq!(resume["allowed"], false, "{r:#}");
    assert!(
        resume["reason"].as_str().is_some_and(|s| s.contains("web")),
        "{r:#}"
    );
    let command = r["error"]["details"]["resumeCommand"].as_str().unwrap();
    assert_eq!(printed[0], command);
    // The header chose the web backend; the command names it, with the option that shaped it,
    // and no injected value.
    let argv = common::command_words(command);
    assert_eq!(
        argv[2..],
        ["--backend", "web", "--offline", "--session", "resume-web"],
        "{command}"
    );
    assert!(!command.contains(&base_url), "{command}");
    // Verbatim plus the value it needs: the fresh replay, which diverges where the first did.
    let mut again: Vec<&str> = argv.iter().map(String::as_str).collect();
    again.extend(["-e", &base]);
    let rerun = run(&dir, &again);
    assert_no_browser_left(&dir);
    assert_eq!(rerun.status.code(), Some(1), "{}", text(&rerun));
    assert!(
        text(&rerun).contains("Divergence at step 2"),
        "{}",
        text(&rerun)
    );
}
