//! Redaction of injected values end to end (docs/run.md, "Redaction"; issue 29 items 8 and 9):
//! a value in every encoding it reaches a URL or a text in (a GET form on the web backend) leaves
//! no trace in any file or stream; a short value never turns structure into a placeholder, so a
//! recording replays with other values and messages stay as the tool wrote them.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use ad_tests::web_fixture::{assert_no_browser_left, require_chromium, FixtureServer};
use serde_json::Value;

fn scratch(name: &str) -> PathBuf {
    ad_tests::scratch_dir(&format!("ad-redaction-{name}"))
}

/// `ad` in `dir` with its own state, home and temp folders (where a browser profile goes), so
/// every file the run writes is under `dir`.
fn ad(dir: &Path) -> Command {
    let tmp = dir.join("tmp");
    std::fs::create_dir_all(&tmp).unwrap();
    std::fs::create_dir_all(dir.join("home")).unwrap();
    let mut c = Command::new(env!("CARGO_BIN_EXE_ad"));
    c.current_dir(dir)
        .env("NO_COLOR", "1")
        .env("AD_STATE_DIR", dir.join("state"))
        .env("HOME", dir.join("home"))
        .env("XDG_STATE_HOME", dir.join("home/state"))
        .env("TMPDIR", &tmp)
        // A session daemon a handoff run starts exits soon after its session is closed.
        .env("AD_SESSION_IDLE_MS", "1000")
        .env_remove("AD_VAR_PASSWORD")
        .env_remove("AD_VAR_EMAIL")
        .stdin(Stdio::null());
    c
}

fn run(dir: &Path, args: &[&str]) -> Output {
    ad(dir).args(args).output().unwrap()
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

/// No file under `dir` holds any of `needles` (the daemon's socket is no file to read).
fn assert_absent(dir: &Path, needles: &[&str]) {
    assert!(dir.is_dir(), "{} was not written", dir.display());
    let mut stack = vec![dir.to_path_buf()];
    let mut files = 0;
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let (path, kind) = (e.path(), e.file_type().unwrap());
            if kind.is_dir() {
                stack.push(path);
            } else if kind.is_file() {
                files += 1;
                let bytes = std::fs::read(&path).unwrap();
                for n in needles {
                    assert!(
                        !bytes.windows(n.len()).any(|w| w == n.as_bytes()),
                        "{} holds {n:?}",
                        path.display()
                    );
                }
            }
        }
    }
    assert!(files > 0, "nothing under {}", dir.display());
}

/// The GET form's page and the page it submits to, which shows the submitted value in the
/// address, percent-encoded, HTML-escaped and JSON-escaped.
fn write_form_pages(dir: &Path) {
    std::fs::write(
        dir.join("form.html"),
        r#"<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Get form</title></head>
<body><form action="done.html" method="get" aria-label="Sign in">
<label for="password">Password</label><input id="password" name="password" type="text">
<button id="submit" type="submit">Sign in</button></form></body></html>"#,
    )
    .unwrap();
    std::fs::write(
        dir.join("done.html"),
        r#"<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Done</title></head>
<body><h1 id="done">Done</h1>
<p id="href"></p><p id="url"></p><p id="html"></p><p id="json"></p>
<script>
  const v = new URLSearchParams(location.search).get('password');
  document.getElementById('href').textContent = location.href;
  document.getElementById('url').textContent = encodeURIComponent(v);
  document.getElementById('html').textContent = v.replace(/&/g, '&amp;');
  document.getElementById('json').textContent = JSON.stringify({ p: v }).replace(/[&@\/]/g,
    (c) => '\\u' + c.charCodeAt(0).toString(16).padStart(4, '0'));
</script></body></html>"#,
    )
    .unwrap();
}

/// Issue 29 item 8: `-e "PASSWORD=Qz w&x/y@k9"` submitted in a GET form reaches the address
/// form-encoded (`Qz+w%26x%2Fy%40k9`) and the page percent-encoded, HTML- and JSON-escaped; none
/// of them is in the run's journal, observations and result, the recorded fixture, the HTML
/// report and the files it copies, the session daemon's journal or any stream.
#[test]
fn a_value_submitted_in_a_get_form_leaves_no_trace_in_any_encoding() {
    require_chromium();
    let dir = scratch("get-form");
    let site = dir.join("site");
    std::fs::create_dir_all(&site).unwrap();
    write_form_pages(&site);
    let server = FixtureServer::start(&site);
    let base = server.url("").trim_end_matches('/').to_string();
    let steps = "open \"${BASE}/form.html\"\nfill \"id=\\\"password\\\"\" \"${PASSWORD}\"\nclick \"id=\\\"submit\\\"\"\nwait \"id=\\\"done\\\"\" 5000\n";
    std::fs::write(dir.join("form.ad"), format!("{steps}close\n")).unwrap();
    std::fs::write(dir.join("handoff.ad"), steps).unwrap();
    let password = "PASSWORD=Qz w&x/y@k9";
    let base_arg = format!("BASE={base}");
    let web = [
        "--backend",
        "web",
        "--offline",
        "-e",
        &base_arg,
        "-e",
        password,
    ];
    let needles = [
        "Qz w&x/y@k9",
        "Qz+w%26x%2Fy%40k9",
        "Qz+w%26x%2fy%40k9",
        "Qz%20w%26x%2Fy%40k9",
        "Qz w&amp;x/y@k9",
        "Qz w\\u0026x\\u002fy\\u0040k9",
        // Any piece of it.
        "Qz w",
        "Qz+w",
        "Qz%20w",
        "y@k9",
        "%40k9",
        "\\u0040k9",
    ];
    let mut streams = String::new();

    let o = run(
        &dir,
        &[
            &["run", "form.ad", "--json", "--artifacts-dir", "runs"][..],
            &["--record-fixture", "fixture", "--report-html", "report"],
            &web,
        ]
        .concat(),
    );
    assert_eq!(code(&o), 0, "{}", text(&o));
    streams += &text(&o);
    // The recorded location says where the value was, in its encoding (and BASE too).
    let log = std::fs::read_to_string(dir.join("fixture/session-1.jsonl")).unwrap();
    assert!(
        log.contains(r#""url":"<var:BASE>/done.html?password=<var:PASSWORD:form>""#),
        "{log}"
    );
    // The page's copies of the value are markers in the observations.
    let observations: String = ad_tests::files_under(&dir.join("runs"))
        .into_iter()
        .filter(|(p, _)| p.contains("observations"))
        .map(|(_, b)| String::from_utf8(b).unwrap())
        .collect();
    for marker in [
        "<var:PASSWORD:url>",
        "<var:PASSWORD:html>",
        "<var:PASSWORD:json>",
    ] {
        assert!(observations.contains(marker), "{marker}: {observations}");
    }

    // A close-less run: its journal is the session daemon's.
    let o = run(
        &dir,
        &[
            &[
                "run",
                "handoff.ad",
                "--session",
                "leak",
                "--json",
                "--artifacts-dir",
                "runs-handoff",
            ][..],
            &web,
        ]
        .concat(),
    );
    assert_eq!(code(&o), 0, "{}", text(&o));
    streams += &text(&o);
    let r: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(
        r["location"]["url"], "<var:BASE>/done.html?password=<var:PASSWORD:form>",
        "{r:#}"
    );
    let o = run(&dir, &["session", "--session", "leak", "snapshot"]);
    assert_eq!(code(&o), 0, "{}", text(&o));
    streams += &text(&o);
    let o = run(&dir, &["session", "--session", "leak", "close"]);
    assert_eq!(code(&o), 0, "{}", text(&o));
    streams += &text(&o);
    assert_no_browser_left(&dir);

    for n in needles {
        assert!(!streams.contains(n), "the output holds {n:?}:\n{streams}");
    }
    for folder in ["runs", "runs-handoff", "fixture", "report", "state"] {
        assert_absent(&dir.join(folder), &needles);
    }
    let report: Vec<String> = ad_tests::files_under(&dir.join("report"))
        .into_iter()
        .map(|(p, _)| p)
        .collect();
    assert!(
        report.iter().any(|p| p.starts_with("files/")),
        "the report copied the run's files: {report:?}"
    );
}

fn login_project(name: &str) -> PathBuf {
    let dir = scratch(name);
    ad_tests::copy_example_models(&dir);
    let repo = ad_tests::repo_dir();
    std::fs::copy(repo.join("examples/login.ad"), dir.join("login.ad")).unwrap();
    std::fs::copy(
        repo.join("examples/divergent/reshuffled-login.ad"),
        dir.join("reshuffled-login.ad"),
    )
    .unwrap();
    dir
}

/// Issue 29 item 9: recording with `-e EMAIL=shop` keeps the app id `com.example.shop` (not
/// `com.example.<var:EMAIL>`), and the fixture replays with another value: a replay never needs
/// the recorded values.
#[test]
fn a_short_value_inside_the_app_id_stays_and_the_replay_needs_no_recorded_value() {
    let dir = login_project("app-id");
    let o = run(
        &dir,
        &[
            "run",
            "login.ad",
            "-e",
            "EMAIL=shop",
            "-e",
            "PASSWORD=hunter2",
            "--record-fixture",
            "fixture",
            "--artifacts-dir",
            "runs",
        ],
    );
    assert_eq!(code(&o), 0, "{}", text(&o));
    let log = std::fs::read_to_string(dir.join("fixture/session-1.jsonl")).unwrap();
    assert!(!log.contains("com.example.<var:EMAIL>"), "{log}");
    assert!(log.contains(r#""app":"com.example.shop""#), "{log}");
    // Where the value stands as the value, it is still a marker.
    assert!(log.contains(r#""text":"<var:EMAIL>""#), "{log}");
    let journal: String = ad_tests::files_under(&dir.join("runs"))
        .into_iter()
        .map(|(_, b)| String::from_utf8(b).unwrap())
        .collect();
    assert!(!journal.contains("com.example.<var:EMAIL>"), "{journal}");

    let o = run(
        &dir,
        &[
            "run",
            "login.ad",
            "--backend",
            "recorded:fixture",
            "-e",
            "EMAIL=other",
            "-e",
            "PASSWORD=hunter2",
            "--json",
            "--artifacts-dir",
            "replays",
        ],
    );
    assert_eq!(code(&o), 0, "{}", text(&o));
    let r: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(r["ok"], true, "{r:#}");
    assert_eq!(r["replayed"], 8, "{r:#}");
}

/// What a failing run says, without what changes from run to run (its folder, times).
fn failure(o: &Output) -> (String, Value) {
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    let mut e = v["error"].clone();
    for volatile in ["runDir", "wallMs", "deviceMs"] {
        if let Some(m) = e["details"].as_object_mut() {
            m.remove(volatile);
        }
    }
    let human = String::from_utf8_lossy(&o.stderr)
        .lines()
        .filter(|l| !l.contains("journal") && !l.contains(" ms"))
        .collect::<Vec<_>>()
        .join("\n");
    (human, e)
}

/// Issue 29 item 9: `-e PASSWORD=e` leaves every message as the tool wrote it: the failure, its
/// hint and its divergence report read exactly as with a value that appears nowhere.
#[test]
fn a_one_letter_value_does_not_mangle_messages() {
    let dir = login_project("one-letter");
    let diverge = |password: &str, runs: &str| {
        let arg = format!("PASSWORD={password}");
        let o = run(
            &dir,
            &[
                "run",
                "reshuffled-login.ad",
                "-e",
                &arg,
                "--json",
                "--artifacts-dir",
                runs,
            ],
        );
        assert_eq!(code(&o), 1, "{}", text(&o));
        o
    };
    let one_letter = diverge("e", "runs-e");
    let elsewhere = diverge("Zq9-nowhere", "runs-z");
    let (human, error) = failure(&one_letter);
    assert!(
        !human.contains("<var:") && !error.to_string().contains("<var:"),
        "{human}\n{error:#}"
    );
    assert_eq!((human, error), failure(&elsewhere));
    // The human rendering too.
    let arg = "PASSWORD=e";
    let o = run(
        &dir,
        &[
            "run",
            "reshuffled-login.ad",
            "-e",
            arg,
            "--artifacts-dir",
            "runs-h",
        ],
    );
    assert_eq!(code(&o), 1);
    let shown = text(&o);
    assert!(shown.contains("Replay failed at step 4"), "{shown}");
    assert!(!shown.contains("<var:PASSWORD>"), "{shown}");
}
