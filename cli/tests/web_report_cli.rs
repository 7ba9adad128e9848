//! What a web run reports (the binary, spawned, on fixture pages of tests/web/ served on
//! 127.0.0.1): the divergence report offers only what the backend can do (no `--from` resume on
//! the web, where the browser ends with the run; the sim still offers it); the HTML report shows
//! the screen at the failing step, the changed identity field as a highlighted row and the
//! renamed element ranked by the other evidence; `--json` has per-step timings. Needs Chromium:
//! the tests fail, never skip, saying what to install.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use ad_tests::web_fixture::{assert_no_browser_left, fixture_dir, require_chromium, FixtureServer};
use serde_json::Value;

/// A script recorded when the to-do filter was labelled "Completed"; the page now labels it
/// "Done" (tests/web/renamed-filter.html): a selector miss.
const RENAMED: &str = "context platform=web\n\
open \"${BASE}/renamed-filter.html\"\n\
# agent-device:target-v1 {\"role\":\"link\",\"label\":\"Completed\",\"ancestry\":[{\"role\":\"navigation\",\"label\":\"Filters\"}],\"sibling\":4,\"viewportOrder\":0,\"verification\":\"verified\"}\n\
click \"label=\\\"Completed\\\"\"\n\
close\n";

/// `ad` in the repository root with a state and temp folder of the test's own scratch folder
/// (the browser profile goes to the temp folder, so every browser the run started is found).
fn ad(art: &Path) -> Command {
    let tmp = art.join("tmp");
    std::fs::create_dir_all(&tmp).unwrap();
    let mut c = Command::new(env!("CARGO_BIN_EXE_ad"));
    c.current_dir(ad_tests::repo_dir())
        .env("NO_COLOR", "1")
        .env("AD_STATE_DIR", art.join("state"))
        .env("TMPDIR", &tmp)
        .env_remove("CLICOLOR_FORCE")
        .env_remove("FORCE_COLOR")
        .stdin(Stdio::null());
    c
}

/// Runs `script` (written to the scratch folder `art`) on the web backend against the fixture
/// pages, with `extra` arguments.
fn run_web(art: &Path, script: &str, extra: &[&str]) -> (Output, FixtureServer) {
    require_chromium();
    let server = FixtureServer::start(&fixture_dir());
    let path = art.join("flow.ad");
    std::fs::write(&path, script).unwrap();
    let base = format!("BASE={}", server.url("").trim_end_matches('/'));
    let o = ad(art)
        .args([
            "run",
            path.to_str().unwrap(),
            "--backend",
            "web",
            "-e",
            &base,
        ])
        .arg("--artifacts-dir")
        .arg(art.join("runs"))
        .args(extra)
        .output()
        .unwrap();
    assert_no_browser_left(art);
    (o, server)
}

fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

fn scratch(name: &str) -> PathBuf {
    ad_tests::scratch_dir(&format!("ad-web-report-{name}"))
}

#[test]
fn a_web_divergence_offers_no_resume_the_backend_refuses() {
    let art = scratch("no-resume");
    let (o, _server) = run_web(&art, RENAMED, &[]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let out = text(&o);
    assert!(out.contains("Divergence at step 2"), "{out}");
    assert!(
        !out.contains("--from") && !out.contains("--plan-digest"),
        "the web backend refuses --from (exit 2), so the report must not propose it:\n{out}"
    );
    assert!(out.contains("cannot currently be resumed"), "{out}");

    let (o, _server) = run_web(&art, RENAMED, &["--json"]);
    let record: Value = serde_json::from_slice(&o.stdout).unwrap();
    let resume = &record["error"]["details"]["divergence"]["resume"];
    assert_eq!(resume["allowed"], false, "{record:#}");
    assert!(resume.get("alternateFrom").is_none(), "{record:#}");
    let _ = std::fs::remove_dir_all(&art);
}

#[test]
fn a_sim_divergence_still_offers_the_resume() {
    let art = scratch("sim-resume");
    let o = ad(&art)
        .args([
            "run",
            "tests/fixtures/report/diverges.ad",
            "-e",
            "EMAIL=demo@example.com",
            "-e",
            "PASSWORD=hunter2",
            "--app",
            "examples/apps/shop.json",
        ])
        .arg("--artifacts-dir")
        .arg(art.join("runs"))
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let out = text(&o);
    assert!(
        // The command chooses the same app model again (never the injected values).
        out.contains("`ad run tests/fixtures/report/diverges.ad --app examples/apps/shop.json --from 4 --plan-digest "),
        "{out}"
    );
    let _ = std::fs::remove_dir_all(&art);
}

/// `ad run --json` lists each step that ran with its wall and device time, from the journal.
#[test]
fn json_has_per_step_timings_from_the_journal() {
    let art = scratch("timings");
    let script = "context platform=web\n\
open \"${BASE}/renamed-filter.html\"\n\
click \"label=\\\"Done\\\"\"\n\
wait 150\n\
close\n";
    let (o, _server) = run_web(&art, script, &["--json"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let record: Value = serde_json::from_slice(&o.stdout).unwrap();
    let steps = record["steps"].as_array().expect("steps in the result");
    let commands: Vec<&str> = steps
        .iter()
        .map(|s| s["command"].as_str().unwrap())
        .collect();
    assert_eq!(commands, ["open", "click", "wait", "close"], "{record:#}");
    for (i, s) in steps.iter().enumerate() {
        assert_eq!(s["step"], i + 1, "{s}");
        assert_eq!(s["status"], "ok", "{s}");
        assert!(s["wallMs"].as_f64().is_some_and(|w| w > 0.0), "{s}");
        assert!(s["deviceMs"].is_u64(), "{s}");
    }
    assert!(
        steps[2]["deviceMs"].as_u64().unwrap() >= 150,
        "the wait took its time: {record:#}"
    );
    // The same figures as the journal's step_end records.
    let run_dir = record["runDir"].as_str().unwrap();
    let journal = std::fs::read_to_string(Path::new(run_dir).join("events.jsonl")).unwrap();
    let ends: Vec<Value> = journal
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|e| e["event"] == "step_end")
        .collect();
    for (s, e) in steps.iter().zip(&ends) {
        assert_eq!(s["wallMs"], e["wall_ms"]);
        assert_eq!(s["deviceMs"], e["device_ms"]);
        assert_eq!(s["line"], e["line"]);
    }
    let _ = std::fs::remove_dir_all(&art);
}

/// The filter recorded as "Completed" is now "Done": the HTML report shows the screen at the
/// failing step, compares the record with the element the other evidence points at (the label
/// row highlighted) and suggests it first; the terminal report suggests it too.
#[test]
fn the_html_report_shows_the_failure_screen_and_the_renamed_element() {
    let art = scratch("html");
    let report = art.join("report");
    let (o, _server) = run_web(&art, RENAMED, &["--report-html", report.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let out = text(&o);
    assert!(
        out.contains("Suggestions:\n  - [evidence] \"Done\" role=\"link\" label=\"Done\" (label changed; same role, ancestry, sibling, viewportOrder)"),
        "{out}"
    );
    let page = std::fs::read_to_string(report.join("scripts/001-flow.html")).unwrap();
    // The screenshot taken at the failure, copied beside the page and shown at step 2's row.
    let shot = "files/001-flow/attempt-1/failure-step-002.png";
    let png = std::fs::read(report.join(shot)).expect("the failure screenshot is copied");
    assert!(png.starts_with(b"\x89PNG"), "a PNG");
    let row = &page[page.find("id=\"step-2-1\"").expect("step 2's row")..];
    let row = &row[..row.find("</tr>").unwrap()];
    assert!(row.contains(&format!("<img src=\"../{shot}\"")), "{row}");
    // The identity table compares the record with the renamed element; its label row differs.
    let identity = &page[page
        .find("<table class=\"identity\">")
        .expect("the identity table")..];
    let identity = &identity[..identity.find("</table>").unwrap()];
    assert!(
        identity.contains("closest on screen <code>@e"),
        "{identity}"
    );
    assert!(
        identity.contains("<tr class=\"differs\" data-field=\"label\"><th>label</th><td>Completed</td><td>Done</td></tr>"),
        "{identity}"
    );
    assert!(
        identity.contains(
            "<tr class=\"same\" data-field=\"role\"><th>role</th><td>link</td><td>link</td></tr>"
        ),
        "{identity}"
    );
    let suggestions = &page[page
        .find("<ol class=\"suggestions\">")
        .expect("suggestions")..];
    let first = &suggestions[..suggestions.find("</li>").unwrap()];
    assert!(
        first.contains("data-basis=\"evidence\"") && first.contains("&quot;Done&quot;"),
        "{first}"
    );
    assert!(!page.contains("--plan-digest"), "no resume on the web");
    // The re-run it offers instead chooses the web backend again, as the terminal's does.
    let next = &page[page.find("<h4>Next</h4>").expect("the next step")..];
    let next = &next[..next.find("</p>").unwrap()];
    assert!(next.contains("--backend web"), "{next}");
    let _ = std::fs::remove_dir_all(&art);
}
