//! `--report-html DIR`: the report `ad test` and `ad run` write over the run records, opened in
//! headless Chromium (launched and spoken to by the web backend's own launcher and DevTools
//! client), its DOM checked and a screenshot kept as an artifact under
//! `target/tmp/report-html/` (see `ARTIFACTS`). No injected value may appear in any of its files.
//! Chromium must be installed: the test fails, never skips, saying what to install.

mod common;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use ad_runtime::backends::web::cdp::Cdp;
use ad_runtime::backends::web::launcher::{Browser, LaunchConfig};
use serde_json::{json, Value};

/// The injected e-mail: a value that must appear in no file of the report.
const CANARY: &str = "canary.7f3a9c@example.com";

/// Where the test keeps the screenshots it takes of the report (inspect them after a run).
const ARTIFACTS: &str = "report-html";

fn artifacts_dir() -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(ARTIFACTS);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Runs `ad test` over tests/fixtures/report (one passes, one diverges, one is invalid) from the
/// repository root, with the report written to `<scratch>/report`.
fn suite_report(scratch: &Path) -> PathBuf {
    let report = scratch.join("report");
    let out = common::run_in(
        &common::repo_root(),
        &[
            "test",
            "tests/fixtures/report",
            "-e",
            &format!("EMAIL={CANARY}"),
            "-e",
            "PASSWORD=hunter2",
            "--app",
            "examples/apps/shop.json",
            "--artifacts-dir",
            scratch.join("artifacts").to_str().unwrap(),
            "--report-html",
            report.to_str().unwrap(),
        ],
        None,
    );
    assert_eq!(
        out.status.code(),
        Some(1),
        "one script fails and one is invalid:\n{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    report
}

/// Every file under `dir`, recursively.
fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}

fn assert_no_secret(report: &Path, secrets: &[&str]) {
    let files = files_under(report);
    assert!(
        files.len() > 3,
        "the report has pages and copies: {files:?}"
    );
    for file in files {
        let bytes = std::fs::read(&file).unwrap();
        let text = String::from_utf8_lossy(&bytes);
        for secret in secrets {
            assert!(
                !text.contains(secret),
                "{} contains the injected value {secret}",
                file.display()
            );
        }
    }
}

/// The part of `html` from `start` to the end of the first `end` after it.
fn between<'a>(html: &'a str, start: &str, end: &str) -> &'a str {
    let from = html
        .find(start)
        .unwrap_or_else(|| panic!("{start} in the page"));
    let to = from
        + html[from..]
            .find(end)
            .unwrap_or_else(|| panic!("{end} after {start}"));
    &html[from..to + end.len()]
}

#[test]
fn the_suite_report_is_static_redacted_and_structured() {
    let scratch = ad_tests::scratch_dir("report");
    let report = suite_report(&scratch);
    assert_no_secret(&report, &[CANARY, "hunter2"]);

    let index = std::fs::read_to_string(report.join("index.html")).unwrap();
    insta::assert_snapshot!(
        "suite_counts",
        between(&index, "<div class=\"counts\"", "</div>\n<table")
    );
    for page in files_under(&report)
        .into_iter()
        .filter(|p| p.extension().is_some_and(|e| e == "html"))
    {
        let html = std::fs::read_to_string(&page).unwrap();
        for network in ["http://", "https://", "//cdn", "<script"] {
            assert!(
                !html.contains(network),
                "{} loads nothing from the network and runs no script ({network})",
                page.display()
            );
        }
    }

    let failed = std::fs::read_to_string(report.join("scripts/001-diverges.html")).unwrap();
    insta::assert_snapshot!(
        "divergence_section",
        between(&failed, "<section class=\"divergence\"", "</section>")
    );
    // The screenshot the passing script took is copied beside the pages and shown.
    let passed = std::fs::read_to_string(report.join("scripts/003-passes.html")).unwrap();
    assert!(
        passed.contains("<img src=\"../files/003-passes/attempt-1/shots/home.png\""),
        "{passed}"
    );
    assert!(report
        .join("files/003-passes/attempt-1/shots/home.png")
        .is_file());
    let _ = std::fs::remove_dir_all(&scratch);
}

#[test]
fn ad_run_writes_the_same_report_for_one_script() {
    let scratch = ad_tests::scratch_dir("report-run");
    let report = scratch.join("report");
    let out = common::run_in(
        &common::repo_root(),
        &[
            "run",
            "tests/fixtures/report/diverges.ad",
            "-e",
            &format!("EMAIL={CANARY}"),
            "-e",
            "PASSWORD=hunter2",
            "--app",
            "examples/apps/shop.json",
            "--artifacts-dir",
            scratch.join("artifacts").to_str().unwrap(),
            "--report-html",
            report.to_str().unwrap(),
        ],
        None,
    );
    assert_eq!(out.status.code(), Some(1));
    assert_no_secret(&report, &[CANARY, "hunter2"]);
    let index = std::fs::read_to_string(report.join("index.html")).unwrap();
    assert!(
        index.contains(
            "<div class=\"count\" data-count=\"failed\"><span class=\"n\">1</span>failed</div>"
        ),
        "{index}"
    );
    let page = std::fs::read_to_string(report.join("scripts/001-diverges.html")).unwrap();
    assert!(
        page.contains("<code class=\"resume\">ad run tests/fixtures/report/diverges.ad --app examples/apps/shop.json --from 4 --plan-digest "),
        "{page}"
    );
    let _ = std::fs::remove_dir_all(&scratch);
}

#[test]
fn screenshots_are_copied_from_a_relative_artifacts_folder() {
    let scratch = ad_tests::scratch_dir("report-rel");
    let fixtures = common::repo_root().join("tests/fixtures/report");
    std::fs::copy(fixtures.join("passes.ad"), scratch.join("passes.ad")).unwrap();
    let app = common::repo_root().join("examples/apps/shop.json");
    let out = common::run_in(
        &scratch,
        &[
            "test",
            "passes.ad",
            "-e",
            "EMAIL=demo@example.com",
            "-e",
            "PASSWORD=hunter2",
            "--app",
            app.to_str().unwrap(),
            "--report-html",
            "report",
        ],
        None,
    );
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        scratch.join("ad-artifacts").is_dir(),
        "the default, relative folder"
    );
    assert!(scratch
        .join("report/files/001-passes/attempt-1/shots/home.png")
        .is_file());
    let _ = std::fs::remove_dir_all(&scratch);
}

#[test]
fn a_report_folder_that_is_a_file_is_refused_before_anything_runs() {
    let scratch = ad_tests::scratch_dir("report-file");
    let file = scratch.join("report");
    std::fs::write(&file, "").unwrap();
    let out = common::run_in(
        &common::repo_root(),
        &[
            "test",
            "tests/fixtures/report/passes.ad",
            "--report-html",
            file.to_str().unwrap(),
        ],
        None,
    );
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("it is a file, not a folder (nothing was run)"),
        "{stderr}"
    );
    let _ = std::fs::remove_dir_all(&scratch);
}

/// `ad run` of the passing report fixture (from the repository root) with its HTML report
/// written to `report`, and `extra` arguments.
fn run_with_report(scratch: &Path, report: &Path, extra: &[&str]) -> std::process::Output {
    let artifacts = scratch.join("artifacts");
    let mut args = vec![
        "run",
        "tests/fixtures/report/passes.ad",
        "-e",
        "EMAIL=demo@example.com",
        "-e",
        "PASSWORD=hunter2",
        "--app",
        "examples/apps/shop.json",
        "--artifacts-dir",
        artifacts.to_str().unwrap(),
        "--report-html",
        report.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    common::run_in(&common::repo_root(), &args, None)
}

/// Issue 29 item 10: links inside the report folder are never followed. Before, `index.html`
/// linked to a file outside was overwritten through the link, and a stale `.ad-report-files`
/// naming `scripts/…` (with `scripts` a link out) deleted files outside. Now the folder is
/// refused before the run (exit 2), and with --overwrite the write refuses the link (exit 2):
/// nothing outside is touched either way.
#[test]
fn links_in_the_report_folder_are_never_followed() {
    let scratch = ad_tests::scratch_dir("report-links");
    let outside = scratch.join("outside");
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::write(outside.join("victim.html"), "keep me").unwrap();
    std::fs::write(outside.join("001-passes.html"), "keep me too").unwrap();
    let report = scratch.join("report");
    std::fs::create_dir_all(&report).unwrap();
    std::os::unix::fs::symlink(outside.join("victim.html"), report.join("index.html")).unwrap();
    std::os::unix::fs::symlink(&outside, report.join("scripts")).unwrap();
    std::fs::write(
        report.join(".ad-report-files"),
        "index.html\nscripts/victim.html\nscripts/001-passes.html\n",
    )
    .unwrap();
    let untouched = || {
        assert_eq!(
            std::fs::read_to_string(outside.join("victim.html")).unwrap(),
            "keep me"
        );
        assert_eq!(
            std::fs::read_to_string(outside.join("001-passes.html")).unwrap(),
            "keep me too"
        );
        assert_eq!(std::fs::read_dir(&outside).unwrap().count(), 2);
    };
    let out = run_with_report(&scratch, &report, &[]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("holds files ad did not write")
            && stderr.contains("index.html (a link)")
            && stderr.contains("(nothing was run)"),
        "{stderr}"
    );
    untouched();
    let out = run_with_report(&scratch, &report, &["--overwrite"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("is a symbolic link"), "{stderr}");
    untouched();
    let _ = std::fs::remove_dir_all(&scratch);
}

/// Issue 29 item 10: a user's own `index.html` is not overwritten silently: the folder is
/// refused before the run unless --overwrite; a folder holding only the last report is
/// rewritten as before; a folder where a file goes is an error, exit 2, never "ok".
#[test]
fn a_report_folder_with_files_ad_did_not_write_is_refused_unless_overwrite() {
    let scratch = ad_tests::scratch_dir("report-foreign");
    let report = scratch.join("report");
    std::fs::create_dir_all(&report).unwrap();
    std::fs::write(report.join("index.html"), "my own page").unwrap();
    let out = run_with_report(&scratch, &report, &[]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("holds files ad did not write (index.html)")
            && stderr.contains("--overwrite"),
        "{stderr}"
    );
    assert_eq!(
        std::fs::read_to_string(report.join("index.html")).unwrap(),
        "my own page"
    );
    let out = run_with_report(&scratch, &report, &["--overwrite"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(std::fs::read_to_string(report.join("index.html"))
        .unwrap()
        .contains("<!DOCTYPE html>"));
    // Now every file there is one the report wrote: the next run needs no flag.
    let out = run_with_report(&scratch, &report, &[]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // A folder where a page goes: the write fails, exit 2.
    let blocked = scratch.join("blocked");
    std::fs::create_dir_all(blocked.join("index.html")).unwrap();
    let out = run_with_report(&scratch, &blocked, &[]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("is a folder where ad writes a file"),
        "{stderr}"
    );
    let _ = std::fs::remove_dir_all(&scratch);
}

/// One page of headless Chromium over the web backend's DevTools client.
struct Page {
    cdp: Cdp,
    session: String,
}

impl Page {
    async fn open(browser: &Browser) -> Page {
        let cdp = Cdp::connect(&browser.ws_url)
            .await
            .expect("connect to Chromium");
        let timeout = Duration::from_secs(15);
        let target = cdp
            .call_raw(
                None,
                "Target.createTarget",
                json!({"url": "about:blank"}),
                timeout,
            )
            .await
            .expect("a new tab");
        let attached = cdp
            .call_raw(
                None,
                "Target.attachToTarget",
                json!({"targetId": target["targetId"], "flatten": true}),
                timeout,
            )
            .await
            .expect("attach to the tab");
        let session = attached["sessionId"].as_str().unwrap().to_string();
        Page { cdp, session }
    }

    async fn call(&self, method: &str, params: Value) -> Value {
        self.cdp
            .call_raw(Some(&self.session), method, params, Duration::from_secs(15))
            .await
            .unwrap_or_else(|e| panic!("{method}: {e:?}"))
    }

    /// Navigates and waits (bounded) until the document and its images have loaded.
    async fn goto(&self, url: &str) {
        self.call("Page.navigate", json!({"url": url})).await;
        let start = Instant::now();
        while self
            .eval("document.readyState === 'complete' && location.href")
            .await
            != Value::String(url.to_string())
        {
            assert!(
                start.elapsed() < Duration::from_secs(30),
                "{url} did not load"
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }

    async fn eval(&self, expression: &str) -> Value {
        let r = self
            .call(
                "Runtime.evaluate",
                json!({"expression": expression, "returnByValue": true}),
            )
            .await;
        assert!(r.get("exceptionDetails").is_none(), "{expression}: {r}");
        r["result"]["value"].clone()
    }

    async fn screenshot(&self, name: &str) -> PathBuf {
        let shot = self
            .call(
                "Page.captureScreenshot",
                json!({"format": "png", "captureBeyondViewport": true}),
            )
            .await;
        let bytes = data_encoding::BASE64
            .decode(shot["data"].as_str().unwrap().as_bytes())
            .unwrap();
        assert!(bytes.starts_with(b"\x89PNG"), "a PNG");
        let path = artifacts_dir().join(name);
        std::fs::write(&path, bytes).unwrap();
        path
    }
}

fn file_url(path: &Path) -> String {
    format!("file://{}", path.canonicalize().unwrap().display())
}

#[test]
fn the_report_reads_in_chromium() {
    ad_tests::web_fixture::require_chromium();
    let scratch = ad_tests::scratch_dir("report-browser");
    let report = suite_report(&scratch);
    let mut browser = Browser::launch(&LaunchConfig {
        offline: true,
        window: (1200, 900),
        ..LaunchConfig::default()
    })
    .expect("Chromium starts");
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let page = Page::open(&browser).await;
        page.call("Page.enable", json!({})).await;

        // The summary page: its counts, and every script linked.
        page.goto(&file_url(&report.join("index.html"))).await;
        let counts = page
            .eval(
                "Object.fromEntries([...document.querySelectorAll('#summary .count')]\
                 .map(e => [e.dataset.count, Number(e.querySelector('.n').textContent)]))",
            )
            .await;
        assert_eq!(
            counts,
            json!({"passed": 1, "failed": 1, "flaky": 0, "invalid": 1, "skipped": 0})
        );
        let rows = page
            .eval("[...document.querySelectorAll('#scripts tbody tr')].map(r => r.dataset.status)")
            .await;
        assert_eq!(rows, json!(["failed", "invalid", "passed"]));
        page.screenshot("index.png").await;

        // Following the failed script's link: its divergence section, laid out for reading.
        let link = page
            .eval("document.querySelector('tr[data-status=failed] a').href")
            .await;
        page.goto(link.as_str().unwrap()).await;
        let divergence = page
            .eval(
                "(() => { const d = document.querySelector('section.divergence'); return {\
                   kind: d.dataset.kind,\
                   visible: d.getBoundingClientRect().height > 0,\
                   differs: [...d.querySelectorAll('table.identity tr.differs')].map(r => r.dataset.field),\
                   refs: d.querySelectorAll('table.screen tbody tr').length,\
                   suggestions: [...d.querySelectorAll('ol.suggestions li code')].map(c => c.textContent),\
                   resume: d.querySelector('code.resume').textContent,\
                   failedRow: document.querySelector('tr.failed td').textContent }; })()",
            )
            .await;
        assert_eq!(divergence["kind"], "identity-mismatch", "{divergence}");
        assert_eq!(divergence["visible"], true);
        assert_eq!(divergence["differs"], json!(["id", "role", "ancestry[0]"]));
        assert!(divergence["refs"].as_u64().unwrap() > 3, "{divergence}");
        assert_eq!(divergence["suggestions"][0], "id=\"login.submit\"");
        assert!(
            divergence["resume"]
                .as_str()
                .unwrap()
                .starts_with("ad run tests/fixtures/report/diverges.ad --app examples/apps/shop.json --from 4 --plan-digest "),
            "{divergence}"
        );
        assert_eq!(divergence["failedRow"], "4");
        let shot = page.screenshot("failed-script.png").await;
        eprintln!("report screenshots: {}", shot.parent().unwrap().display());

        // The passing script's screenshot is a copied file the page shows.
        page.goto(&file_url(&report.join("scripts/003-passes.html")))
            .await;
        let width = page
            .eval("document.querySelector('figure img').naturalWidth")
            .await;
        assert!(width.as_u64().unwrap() > 0, "the screenshot loads: {width}");
        let local = page
            .eval(
                "[...document.images].every(i => i.src.startsWith('file://') && i.complete) \
                 && document.querySelectorAll('script, link, iframe, object').length === 0",
            )
            .await;
        assert_eq!(local, true, "images from the report folder only, nothing else loaded");
    });
    browser.shutdown();
    let _ = std::fs::remove_dir_all(&scratch);
}
