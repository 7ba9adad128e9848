//! `ad test --backend web` runs a suite in one browser per worker, each script in a fresh
//! browser context of its own: what one script stores (cookies, localStorage) is gone for the
//! next, one browser is launched per worker (counted by a `CHROME_PATH` wrapper that logs each
//! start), and every browser is reaped when the suite ends or is interrupted. Needs Chromium:
//! the tests fail, never skip, saying to `apt-get install chromium`.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use ad_tests::web_fixture::{
    assert_no_browser_left, browsers_of, fixture_dir, require_chromium, FixtureServer,
};
use serde_json::Value;

/// Stores a cookie and a localStorage entry, and checks that its own context keeps them.
const REMEMBER: &str = r#"context platform=web
open "${URL}"
wait "id=\"cookie-no\"" 5000
click "id=\"remember\""
wait "id=\"cookie-yes\"" 2000
open "${URL}"
wait "id=\"cookie-yes\"" 5000
wait "id=\"storage-yes\"" 2000
close
"#;

/// Sees neither the cookie nor the storage entry.
const FRESH: &str = r#"context platform=web
open "${URL}"
wait "id=\"cookie-no\"" 5000
wait "id=\"storage-no\"" 2000
close
"#;

/// A scratch suite folder (its scripts, the browser's temp folder `tmp/`, the state folder)
/// and a `CHROME_PATH` wrapper that appends a line to `launches.log` for each browser started.
fn suite(name: &str, scripts: &[(&str, &str)]) -> PathBuf {
    require_chromium();
    let art = ad_tests::scratch_dir(&format!("ad-web-suite-{name}"));
    std::fs::create_dir_all(art.join("tmp")).unwrap();
    std::fs::create_dir_all(art.join("suite")).unwrap();
    for (file, text) in scripts {
        std::fs::write(art.join("suite").join(file), text).unwrap();
    }
    let chromium = std::env::var_os("CHROME_PATH")
        .filter(|p| !p.is_empty())
        .map(PathBuf::from)
        .into_iter()
        .chain(
            [
                "/usr/bin/chromium",
                "/usr/bin/chromium-browser",
                "/usr/bin/google-chrome",
            ]
            .map(PathBuf::from),
        )
        .find(|p| p.is_file())
        .expect("Chromium is installed");
    let wrapper = art.join("chromium-wrapper");
    std::fs::write(
        &wrapper,
        format!(
            "#!/bin/sh\necho launch >> '{}'\nexec '{}' \"$@\"\n",
            art.join("launches.log").display(),
            chromium.display()
        ),
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&wrapper, std::fs::Permissions::from_mode(0o755)).unwrap();
    art
}

/// `ad test <art>/suite --backend web` with the wrapper as the browser.
fn ad_test(art: &Path, url: &str, jobs: &str) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_ad"));
    c.current_dir(art)
        .env("NO_COLOR", "1")
        .env("AD_STATE_DIR", art.join("state"))
        .env("HOME", art)
        .env("XDG_STATE_HOME", art.join("xdg"))
        .env("TMPDIR", art.join("tmp"))
        .env("CHROME_PATH", art.join("chromium-wrapper"))
        .args(["test", "suite", "--backend", "web", "--jobs", jobs, "-e"])
        .arg(format!("URL={url}"))
        .arg("--artifacts-dir")
        .arg(art.join("runs"))
        .arg("--report-json")
        .arg(art.join("report.json"))
        .stdin(Stdio::null());
    c
}

fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

fn launches(art: &Path) -> usize {
    std::fs::read_to_string(art.join("launches.log"))
        .unwrap_or_default()
        .lines()
        .count()
}

fn statuses(art: &Path) -> Vec<(String, String)> {
    let r: Value =
        serde_json::from_str(&std::fs::read_to_string(art.join("report.json")).unwrap()).unwrap();
    r["scripts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            (
                s["path"].as_str().unwrap().to_string(),
                s["status"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

/// With --jobs 1 the three scripts run in one browser (one launch), yet the scripts after the
/// one that stored a cookie and a localStorage entry see neither; nothing outlives the suite.
#[test]
fn a_suite_runs_in_one_browser_per_worker_with_a_fresh_context_per_script() {
    let server = FixtureServer::start(&fixture_dir());
    let url = server.url("suite-storage.html");
    let art = suite(
        "one",
        &[
            ("a-remember.ad", REMEMBER),
            ("b-fresh.ad", FRESH),
            ("c-fresh.ad", FRESH),
        ],
    );
    let o = ad_test(&art, &url, "1").output().unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let passed: Vec<_> = statuses(&art)
        .into_iter()
        .map(|(path, status)| (path.rsplit('/').next().unwrap().to_string(), status))
        .collect();
    assert_eq!(
        passed,
        [
            ("a-remember.ad".to_string(), "passed".to_string()),
            ("b-fresh.ad".into(), "passed".into()),
            ("c-fresh.ad".into(), "passed".into()),
        ]
    );
    assert_eq!(
        launches(&art),
        1,
        "one browser for the worker's three scripts"
    );
    assert_no_browser_left(&art);
    let profiles = std::fs::read_dir(art.join("tmp"))
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with("ad-chromium-"))
        .count();
    assert_eq!(profiles, 0, "the browser's profile is removed");

    // Two workers: at most one browser each, and the same isolation.
    std::fs::write(art.join("suite/d-fresh.ad"), FRESH).unwrap();
    std::fs::remove_file(art.join("launches.log")).unwrap();
    let o = ad_test(&art, &url, "2").output().unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert!(
        (1..=2).contains(&launches(&art)),
        "{} browsers for 2 workers",
        launches(&art)
    );
    assert_no_browser_left(&art);
}

/// Ctrl-C while the suite's second script waits: the suite stops (exit 130) and the worker's
/// browser, which outlives each script, is reaped.
#[test]
fn ctrl_c_during_a_suite_reaps_the_workers_browser() {
    let server = FixtureServer::start(&fixture_dir());
    let url = server.url("suite-storage.html");
    let art = suite(
        "sigint",
        &[
            ("a-remember.ad", REMEMBER),
            (
                "b-long.ad",
                "context platform=web\nopen \"${URL}\"\nwait 60000\nclose\n",
            ),
        ],
    );
    let child = ad_test(&art, &url, "1")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let waiting = std::fs::read_dir(art.join("runs"))
            .into_iter()
            .flatten()
            .flatten()
            .any(|run| {
                let events =
                    std::fs::read_to_string(run.path().join("events.jsonl")).unwrap_or_default();
                events.contains("b-long.ad")
                    && events
                        .lines()
                        .any(|l| l.contains("\"step_start\"") && l.contains("\"step\":2"))
            });
        if waiting && !browsers_of(&art).is_empty() {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the suite never reached its wait"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    assert_eq!(
        launches(&art),
        1,
        "the second script runs in the first's browser"
    );
    // SAFETY: kill has no memory preconditions; the pid is our own child's.
    unsafe {
        libc::kill(child.id() as i32, libc::SIGINT);
    }
    let o = child.wait_with_output().unwrap();
    assert_eq!(o.status.code(), Some(130), "{}", text(&o));
    assert_no_browser_left(&art);
}
