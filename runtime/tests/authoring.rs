//! Authoring sessions on the sim, in process (`ad_runtime::session::authoring::Sessions`, the daemon's
//! engine): one test per validation bullet of agent-device ADR 0016 and per data-flow / echo
//! rule of ADR 0017 (with #1398) that applies to `ad`. Every published script must pass
//! `ad check` (handoff profile) and `ad fmt --check` unchanged, and agent-device 0.21.5's own
//! parser must accept it (the oracle: `npm ci` in oracle/).

use std::path::{Path, PathBuf};

use ad_runtime::session::authoring::{Request, Response, Sessions};
use serde_json::Value;

const SECRET: &str = "hunter2";

fn repo() -> PathBuf {
    ad_tests::repo_dir()
}

fn scratch(name: &str) -> PathBuf {
    let dir = ad_tests::scratch_dir(&format!("ad-authoring-{name}"));
    dir
}

/// A daemon engine with its state folder, and the folder scripts are published to.
struct Env {
    sessions: Sessions,
    rt: tokio::runtime::Runtime,
    dir: PathBuf,
    session: String,
    shell_env: Vec<(String, String)>,
}

impl Env {
    fn new(name: &str) -> Env {
        let dir = scratch(name);
        Env {
            sessions: Sessions::new(dir.join("state")),
            rt: tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .unwrap(),
            dir,
            session: "default".into(),
            shell_env: Vec::new(),
        }
    }

    fn cmd(&mut self, words: &[&str]) -> Response {
        let req = Request {
            session: self.session.clone(),
            words: words.iter().map(|w| w.to_string()).collect(),
            cwd: self.dir.clone(),
            shell_env: self.shell_env.clone(),
            ..Request::default()
        };
        let r = self.rt.block_on(self.sessions.handle(req));
        // Every answer fits its schema.
        let schema = ad_runtime::core::records::schemas()
            .into_iter()
            .find(|(n, _)| *n == "session-response")
            .map(|(_, s)| serde_json::to_value(s).unwrap())
            .unwrap();
        let v = serde_json::to_value(&r).unwrap();
        if let Err(e) = ad_runtime::core::records::validate::validate(&schema, &v) {
            panic!("{words:?}: the answer does not fit its schema: {e:?}\n{v:#}");
        }
        // Every script a session publishes passes `ad check` (the handoff profile; a closed test
        // flow, the flow profile), `ad fmt --check` and agent-device 0.21.5's parser.
        if let (true, Some(path)) = (r.ok, &r.path) {
            let profile = if words[0] == "close" {
                ad_compiler::config::ProfileChoice::Flow
            } else {
                ad_compiler::config::ProfileChoice::Handoff
            };
            assert_publishable_as(path, profile);
        }
        r
    }

    fn ok(&mut self, words: &[&str]) -> Response {
        let r = self.cmd(words);
        assert!(r.ok, "{words:?}: {r:?}");
        r
    }

    fn refused(&mut self, words: &[&str], code: &str) -> Response {
        let r = self.cmd(words);
        assert!(!r.ok, "{words:?} should be refused: {r:?}");
        assert_eq!(r.code.as_deref(), Some(code), "{words:?}: {r:?}");
        r
    }

    fn shop(&self) -> String {
        repo().join("examples/apps/shop.json").display().to_string()
    }

    fn echo_app(&self) -> String {
        repo()
            .join("runtime/tests/fixtures/authoring/echo.json")
            .display()
            .to_string()
    }

    /// `open` on the shop, armed to `name` in the scratch folder.
    fn arm(&mut self, name: &str) {
        let app = self.shop();
        let save = format!("--save-script={name}");
        let r = self.ok(&[
            "open",
            "com.example.shop",
            "--relaunch",
            &save,
            "--app",
            &app,
        ]);
        assert_eq!(r.lifecycle.as_deref(), Some("armed"));
    }

    /// The login journey: email, password (parameterized), submit, the Home landmark.
    fn login(&mut self) {
        self.ok(&["fill", "id=\"login.email\"", "demo@example.com"]);
        self.ok(&[
            "fill",
            "id=\"login.password\"",
            SECRET,
            "--record-as",
            "PASSWORD",
        ]);
        self.ok(&["press", "label=\"Sign in\" role=\"button\""]);
        self.ok(&["wait", "id=\"home.title\""]);
    }

    /// Every file under the scratch folder (state, journals, scripts, temp files).
    fn files(&self) -> Vec<PathBuf> {
        let mut out = Vec::new();
        let mut stack = vec![self.dir.clone()];
        while let Some(d) = stack.pop() {
            for e in std::fs::read_dir(&d).unwrap().flatten() {
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
}

/// A script the session published (`Env::cmd` has checked it with `assert_publishable_as`).
fn published(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap()
}

/// The script passes `ad check` with `profile` (no error, no warning), `ad fmt --check` and the
/// oracle.
fn assert_publishable_as(path: &Path, profile: ad_compiler::config::ProfileChoice) -> String {
    let text = std::fs::read_to_string(path).unwrap();
    let config = ad_compiler::config::Config {
        profile,
        ..Default::default()
    };
    let analysis = ad_compiler::analyze_with(&text, &config);
    let errors: Vec<_> = analysis
        .diagnostics
        .iter()
        .filter(|d| d.severity != ad_grammar::Severity::Info)
        .map(|d| format!("{} {}", d.code, d.message))
        .collect();
    assert!(errors.is_empty(), "ad check: {errors:?}\n{text}");
    let f = ad_compiler::format::format(&text);
    assert!(
        !f.changed,
        "ad fmt --check would rewrite it:\n{text}\n---\n{}",
        f.output
    );
    let oracle = ad_tests::run_oracle_one(path);
    assert_eq!(
        oracle["ok"], true,
        "agent-device rejects it: {oracle}\n{text}"
    );
    text
}

// ---- ADR 0016 -------------------------------------------------------------------------------

#[test]
fn an_unarmed_session_refuses_publication_naming_open_save_script() {
    let mut e = Env::new("unarmed");
    let app = e.shop();
    e.ok(&["open", "com.example.shop", "--app", &app]);
    e.ok(&["wait", "id=\"login.email\""]);
    let r = e.refused(&["save-script", "out.ad"], "NOT_ARMED");
    assert!(r.message.unwrap().contains("open --save-script"));
    assert!(!e.dir.join("out.ad").exists(), "no file work");
    assert!(r.session_active);
}

#[test]
fn no_active_session_refuses_publication() {
    let mut e = Env::new("none");
    let r = e.refused(&["save-script", "out.ad"], "NO_SESSION");
    assert!(r.message.unwrap().contains("--save-script"));
    assert!(!e.dir.join("out.ad").exists());
}

#[test]
fn an_armed_session_without_a_destination_guard_refuses_naming_a_selector_wait() {
    let mut e = Env::new("noguard");
    e.arm("flow.ad");
    e.ok(&["fill", "id=\"login.email\"", "demo@example.com"]);
    let r = e.refused(&["save-script"], "AD703");
    assert!(
        r.message.unwrap().contains("selector wait"),
        "names the recovery"
    );
    // Covered non-guards: a duration wait, wait stable.
    e.ok(&["wait", "100"]);
    e.ok(&["wait", "stable"]);
    let r = e.refused(&["save-script"], "AD703");
    let m = r.message.unwrap();
    assert!(
        m.contains("AD704") && m.contains("duration wait") && m.contains("wait stable"),
        "{m}"
    );
    assert!(!e.dir.join("flow.ad").exists());
    // Still ARMED: a landmark wait then publishes.
    e.ok(&["wait", "id=\"login.email\""]);
    let r = e.ok(&["save-script"]);
    assert_eq!(r.path.as_deref(), Some(e.dir.join("flow.ad").as_path()));

    // `wait @ref` is no guard either (and its session-local ref can never be published).
    let mut e = Env::new("refguard");
    e.arm("flow.ad");
    e.ok(&["fill", "id=\"login.email\"", "demo@example.com"]);
    e.ok(&["snapshot", "-i"]);
    e.ok(&["wait", "@e1"]);
    let r = e.refused(&["save-script"], "AD703");
    let m = r.message.unwrap();
    assert!(
        m.contains("`wait @ref` uses a session-local ref") && m.contains("AD705"),
        "{m}"
    );
    assert!(!e.dir.join("flow.ad").exists());
}

#[test]
fn a_second_open_aborts_and_open_save_script_on_an_existing_session_is_refused_before_dispatch() {
    let mut e = Env::new("abort");
    e.arm("flow.ad");
    e.login();
    // Refused before any app action: no relaunch, the screen stays Home.
    let r = e.refused(
        &[
            "open",
            "com.example.shop",
            "--relaunch",
            "--save-script=x.ad",
        ],
        "ALREADY_OPEN",
    );
    assert_eq!(r.lifecycle.as_deref(), Some("armed"));
    e.ok(&["wait", "id=\"home.title\"", "1"]);
    let r = e.ok(&["open", "com.example.shop", "--relaunch"]);
    assert_eq!(r.lifecycle.as_deref(), Some("aborted"));
    assert!(
        r.warnings.iter().any(|w| w.contains("fresh session")),
        "{r:?}"
    );
    e.ok(&["wait", "id=\"login.email\""]);
    e.refused(&["save-script"], "RECORDING_ABORTED");
    // Terminal: a later open --relaunch keeps it ABORTED.
    let r = e.ok(&["open", "com.example.shop", "--relaunch"]);
    assert_eq!(r.lifecycle.as_deref(), Some("aborted"));
    assert!(!e.dir.join("flow.ad").exists());
}

#[test]
fn publication_writes_open_and_annotated_actions_without_close_and_the_session_stays_live() {
    let mut e = Env::new("publish");
    e.arm("login.ad");
    e.ok(&["snapshot", "-i"]);
    e.login();
    let r = e.ok(&["save-script"]);
    assert_eq!(r.actions, Some(5));
    assert_eq!(r.lifecycle.as_deref(), Some("published"));
    assert!(r.session_active);
    let path = r.path.unwrap();
    let text = published(&path);
    insta::assert_snapshot!("published_login", text);
    assert!(!text.contains("close") && !text.contains("snapshot") && !text.contains("save-script"));
    assert!(!text.contains(SECRET));
    // The session continues.
    e.ok(&["press", "id=\"tab.profile\""]);
    e.ok(&["wait", "id=\"profile.title\""]);
}

#[test]
fn refs_are_published_as_selectors_and_a_ref_that_never_resolved_refuses_publication() {
    let mut e = Env::new("refs");
    e.arm("refs.ad");
    let r = e.ok(&["snapshot", "-i"]);
    let nodes = r.nodes.unwrap();
    let email = nodes
        .as_array()
        .unwrap()
        .iter()
        .find(|n| n["id"] == "login.email")
        .map(|n| format!("@{}", n["ref"].as_str().unwrap()))
        .expect("the email field in the snapshot");
    e.ok(&["fill", &email, "demo@example.com"]);
    e.ok(&["wait", "id=\"login.email\""]);
    let r = e.ok(&["save-script"]);
    let text = published(&r.path.unwrap());
    assert!(
        text.contains("fill \"id=\\\"login.email\\\" || label=\\\"Email\\\"\""),
        "{text}"
    );
    assert!(!text.contains(" @e"), "{text}");

    // An unlabeled element's ref has no selector to become: publication refuses it.
    let mut e = Env::new("refs-unresolved");
    let app = e.echo_app();
    e.ok(&[
        "open",
        "com.example.echo",
        "--save-script=refs.ad",
        "--app",
        &app,
    ]);
    let r = e.ok(&["snapshot"]);
    let anon = r
        .nodes
        .unwrap()
        .as_array()
        .unwrap()
        .iter()
        .find(|n| n["type"] == "image")
        .map(|n| format!("@{}", n["ref"].as_str().unwrap()))
        .expect("the unlabeled image");
    e.ok(&["hover", &anon]);
    e.ok(&["wait", "id=\"form.title\""]);
    let r = e.refused(&["save-script"], "AD705");
    assert!(r.message.unwrap().contains(&anon));
    assert!(!e.dir.join("refs.ad").exists());
}

#[test]
fn an_existing_target_is_refused_untouched_force_replaces_and_a_failed_publish_stays_retryable() {
    let mut e = Env::new("target");
    std::fs::write(e.dir.join("taken.ad"), b"original bytes\n").unwrap();
    e.arm("taken.ad");
    e.login();
    let r = e.refused(&["save-script"], "TARGET_EXISTS");
    assert!(r.message.unwrap().contains("--force"));
    assert_eq!(
        std::fs::read(e.dir.join("taken.ad")).unwrap(),
        b"original bytes\n"
    );
    assert_eq!(r.lifecycle.as_deref(), Some("armed"));
    // A folder that does not exist: the write fails, the recording stays ARMED.
    let r = e.refused(&["save-script", "missing/dir/x.ad"], "PUBLISH_FAILED");
    assert_eq!(r.lifecycle.as_deref(), Some("armed"));
    // No temp file left beside the target.
    let leftovers: Vec<_> = std::fs::read_dir(&e.dir)
        .unwrap()
        .flatten()
        .filter(|f| f.file_name().to_string_lossy().contains("ad-publish"))
        .collect();
    assert!(leftovers.is_empty());
    let r = e.ok(&["save-script", "--force"]);
    assert_eq!(r.path.as_deref(), Some(e.dir.join("taken.ad").as_path()));
    published(&e.dir.join("taken.ad"));
}

#[test]
fn after_publication_actions_work_but_nothing_rearms_or_republishes() {
    let mut e = Env::new("published");
    e.arm("a.ad");
    e.login();
    e.ok(&["save-script"]);
    e.ok(&["press", "id=\"tab.profile\""]);
    e.ok(&["wait", "id=\"profile.title\""]);
    e.refused(&["save-script", "b.ad"], "ALREADY_PUBLISHED");
    let r = e.ok(&["open", "com.example.shop", "--relaunch"]);
    assert_eq!(
        r.lifecycle.as_deref(),
        Some("published"),
        "a plain open cannot re-arm"
    );
    e.refused(
        &["open", "com.example.shop", "--save-script=c.ad"],
        "ALREADY_OPEN",
    );
    assert!(!e.dir.join("b.ad").exists() && !e.dir.join("c.ad").exists());
}

#[test]
fn close_save_script_is_refused_before_teardown_when_aborted_published_or_never_armed() {
    for state in ["aborted", "published", "unarmed"] {
        let mut e = Env::new(&format!("close-{state}"));
        let app = e.shop();
        match state {
            "unarmed" => {
                e.ok(&["open", "com.example.shop", "--app", &app]);
            }
            "aborted" => {
                e.arm("a.ad");
                e.ok(&["open", "com.example.shop"]);
            }
            _ => {
                e.arm("a.ad");
                e.login();
                e.ok(&["save-script"]);
                std::fs::remove_file(e.dir.join("a.ad")).unwrap();
            }
        }
        let r = e.refused(&["close", "--save-script=other.ad"], "NOT_RECORDING");
        assert!(
            r.session_active,
            "{state}: the rejected request keeps the session"
        );
        let m = r.message.unwrap();
        assert!(m.contains("plain `ad session close`"), "{m}");
        if state == "unarmed" {
            assert!(m.contains("open --save-script"), "{m}");
        }
        // The app was not closed: the session still acts.
        e.ok(&["wait", "role=\"application\""]);
        let r = e.ok(&["close"]);
        assert!(!r.session_active);
        assert!(r.path.is_none());
        let written: Vec<_> = std::fs::read_dir(&e.dir)
            .unwrap()
            .flatten()
            .filter(|f| f.file_name().to_string_lossy().ends_with(".ad"))
            .collect();
        assert!(
            written.is_empty(),
            "{state}: plain close writes nothing: {written:?}"
        );
    }
}

#[test]
fn closing_an_unpublished_armed_recording_publishes_a_closed_test_flow() {
    let mut e = Env::new("close-armed");
    e.arm("flow.ad");
    e.login();
    let r = e.ok(&["close"]);
    assert!(!r.session_active);
    let path = r.path.unwrap();
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(text.ends_with("close\n"), "{text}");
    let f = ad_compiler::format::format(&text);
    assert!(!f.changed);
    e.refused(&["press", "id=\"tab.profile\""], "NO_SESSION");
}

#[test]
fn the_artifact_replays_from_a_cold_start_and_hands_over_a_live_session() {
    let mut e = Env::new("cold");
    e.arm("login.ad");
    e.login();
    e.ok(&["save-script"]);
    e.ok(&["close"]);
    // Cold replay in a fresh session: the password comes from AD_VAR_PASSWORD.
    e.session = "replayed".into();
    e.shell_env = vec![("PASSWORD".into(), SECRET.into())];
    let app = e.shop();
    let r = e.ok(&["replay", "login.ad", "--app", &app]);
    assert_eq!(r.replayed, Some(5));
    assert!(
        r.session_active,
        "a close-less script leaves its session live"
    );
    e.ok(&["press", "id=\"tab.profile\""]);
    e.ok(&["wait", "id=\"profile.title\""]);
    let list = e.ok(&["list"]).sessions.unwrap();
    assert_eq!(list.len(), 1);
    assert_eq!(list[0].name, "replayed");
    // Without the variable the replay fails loudly before the fill.
    e.session = "no-var".into();
    e.shell_env.clear();
    let r = e.refused(&["replay", "login.ad", "--app", &app], "INVALID_ARGS");
    assert!(r.message.unwrap().contains("${PASSWORD}"));
}

#[test]
fn a_published_guard_fails_closed_on_a_reshuffled_screen() {
    let mut e = Env::new("reshuffled");
    let app = e.echo_app();
    e.ok(&[
        "open",
        "com.example.echo",
        "--relaunch",
        "--save-script=guard.ad",
        "--app",
        &app,
    ]);
    e.ok(&["fill", "id=\"token\"", "tok3n-XYZ"]);
    e.ok(&["wait", "label=\"All set\""]);
    let r = e.ok(&["save-script"]);
    published(&r.path.unwrap());
    e.ok(&["close"]);
    // The same script on the real screen passes …
    e.session = "same".into();
    e.ok(&["replay", "guard.ad", "--app", &app]);
    e.ok(&["close"]);
    // … and on a screen where the same label sits on another element it fails closed.
    e.session = "reshuffled".into();
    let other = repo()
        .join("runtime/tests/fixtures/authoring/echo-reshuffled.json")
        .display()
        .to_string();
    let r = e.refused(
        &["replay", "guard.ad", "--app", &other],
        "IDENTITY_MISMATCH",
    );
    assert_eq!(
        r.replayed,
        Some(2),
        "the open and the fill ran; the guard did not pass"
    );
}

#[test]
fn a_drag_between_elements_records_targets_v1_for_both_endpoints() {
    let mut e = Env::new("drag");
    let app = e.echo_app();
    e.ok(&[
        "open",
        "com.example.echo",
        "--save-script=drag.ad",
        "--app",
        &app,
    ]);
    e.ok(&["gesture", "drag", "id=\"user\"", "id=\"blank\""]);
    e.ok(&["wait", "id=\"form.title\""]);
    let r = e.ok(&["save-script"]);
    let text = published(&r.path.unwrap());
    let analysis = ad_compiler::analyze(&text);
    let drag = analysis
        .steps()
        .iter()
        .find(|s| s.command() == "gesture")
        .unwrap();
    let ev = drag.target_evidences().map(|d| &**d).expect("targets-v1");
    assert_eq!(ev.source.id.as_deref(), Some("user"));
    assert_eq!(ev.destination.id.as_deref(), Some("blank"));
}

#[test]
fn a_bare_save_script_publishes_under_the_state_folder() {
    let mut e = Env::new("default-path");
    let app = e.shop();
    e.ok(&["open", "com.example.shop", "--save-script", "--app", &app]);
    e.ok(&["wait", "id=\"login.email\""]);
    let path = e.ok(&["save-script"]).path.unwrap();
    assert!(
        path.starts_with(e.dir.join("state/scripts")),
        "{}",
        path.display()
    );
    assert!(path
        .file_name()
        .unwrap()
        .to_string_lossy()
        .starts_with("default-"));
    published(&path);
}

#[test]
fn read_steps_carry_evidence_too_and_publish() {
    let mut e = Env::new("reads");
    e.arm("reads.ad");
    e.ok(&["is", "visible", "id=\"login.email\""]);
    e.ok(&["get", "text", "id=\"login.submit\""]);
    e.login();
    let r = e.ok(&["save-script"]);
    let text = published(&r.path.unwrap());
    let analysis = ad_compiler::analyze(&text);
    for cmd in ["is", "get"] {
        let step = analysis
            .steps()
            .iter()
            .find(|s| s.command() == cmd)
            .unwrap();
        assert!(step.target_evidence.is_some(), "{cmd}: {text}");
    }
}

#[test]
fn every_target_binding_action_carries_canonical_evidence_with_the_writers_fields() {
    let mut e = Env::new("evidence");
    e.arm("ev.ad");
    e.login();
    let r = e.ok(&["save-script"]);
    let text = std::fs::read_to_string(r.path.unwrap()).unwrap();
    let analysis = ad_compiler::analyze(&text);
    for step in &analysis.steps()[1..] {
        let ev = step
            .target_evidence
            .as_deref()
            .unwrap_or_else(|| panic!("line {}", step.line() + 1));
        assert_eq!(
            ev.verification,
            ad_grammar::annotation::VerificationState::Verified
        );
        assert!(ev.rect.is_some());
    }
    let fill = &analysis.steps()[1];
    let ev = fill.target_evidence.as_deref().unwrap();
    assert_eq!(ev.id.as_deref(), Some("login.email"));
    assert_eq!(ev.ancestry[0].role, "form");
    assert_eq!(ev.ancestry[0].label.as_deref(), Some("Sign in"));
}

// ---- ADR 0017 -------------------------------------------------------------------------------

#[test]
fn record_as_is_validated_before_any_app_work() {
    let mut e = Env::new("record-as-rules");
    let app = e.shop();
    e.ok(&["open", "com.example.shop", "--app", &app]);
    // Not armed.
    let r = e.refused(
        &[
            "fill",
            "id=\"login.password\"",
            SECRET,
            "--record-as",
            "PASSWORD",
        ],
        "NOT_ARMED",
    );
    assert!(!format!("{r:?}").contains(SECRET));
    e.ok(&["close"]);
    e.arm("x.ad");
    for (words, why) in [
        (vec!["type", SECRET, "--record-as", "PASSWORD"], "fill only"),
        (
            vec![
                "fill",
                "id=\"login.password\"",
                SECRET,
                "--record-as",
                "password",
            ],
            "lowercase",
        ),
        (
            vec![
                "fill",
                "id=\"login.password\"",
                SECRET,
                "--record-as",
                "AD_PASSWORD",
            ],
            "AD_*",
        ),
        (
            vec![
                "fill",
                "id=\"login.password\"",
                SECRET,
                "--record-as",
                " PASSWORD",
            ],
            "untrimmed",
        ),
        (
            vec![
                "fill",
                "id=\"login.password\"",
                SECRET,
                "--record-as",
                "PASSWORD",
                "--no-record",
            ],
            "--no-record",
        ),
    ] {
        let r = e.refused(&words, "INVALID_ARGS");
        assert!(!format!("{r:?}").contains(SECRET), "{why}");
    }
    // None of them reached the app: the password field is still empty.
    let r = e.ok(&["get", "attrs", "id=\"login.password\""]);
    assert!(!r.result.unwrap().to_string().contains('•'));
}

#[test]
fn the_backend_gets_the_literal_and_every_record_only_the_placeholder() {
    let mut e = Env::new("literal");
    e.arm("login.ad");
    e.ok(&["fill", "id=\"login.email\"", "demo@example.com"]);
    let r = e.ok(&[
        "fill",
        "id=\"login.password\"",
        SECRET,
        "--record-as",
        "PASSWORD",
    ]);
    let response = serde_json::to_string(&r).unwrap();
    assert!(!response.contains(SECRET), "{response}");
    e.ok(&["press", "id=\"login.submit\""]);
    // Only the literal signs in: the app got it.
    e.ok(&["wait", "id=\"home.title\""]);
    let r = e.ok(&["save-script"]);
    let text = published(&r.path.unwrap());
    assert!(text.contains("\"${PASSWORD}\""), "{text}");
    assert!(!text.contains("--record-as"));
    e.ok(&["close"]);
    assert_no_literal(&e, SECRET);
    let journal = journal_text(&e);
    assert!(journal.contains("${PASSWORD}"), "{journal}");
}

fn journal_text(e: &Env) -> String {
    e.files()
        .iter()
        .filter(|f| f.starts_with(e.dir.join("state/journals")))
        .map(|f| std::fs::read_to_string(f).unwrap_or_default())
        .collect()
}

fn assert_no_literal(e: &Env, literal: &str) {
    let files = e.files();
    assert!(!files.is_empty());
    for f in files {
        let bytes = std::fs::read(&f).unwrap();
        let hit = bytes
            .windows(literal.len())
            .any(|w| w == literal.as_bytes());
        assert!(!hit, "{} holds the literal", f.display());
    }
}

#[test]
fn later_echoes_of_a_parameterized_literal_are_redacted_downgraded_or_dropped() {
    const TOKEN: &str = "tok3n-XYZ";
    let mut e = Env::new("echo");
    let app = e.echo_app();
    e.ok(&[
        "open",
        "com.example.echo",
        "--save-script=echo.ad",
        "--app",
        &app,
    ]);
    e.ok(&["fill", "id=\"token\"", TOKEN, "--record-as", "TOKEN"]);
    // A landmark whose label echoes it records no annotation: not a destination guard.
    let r = e.ok(&["wait", "id=\"welcome\""]);
    assert!(
        !serde_json::to_string(&r).unwrap().contains(TOKEN),
        "the result is redacted"
    );
    let r = e.refused(&["save-script"], "AD703");
    assert!(r.message.unwrap().contains("landmark"));
    // An action on an element echoing it: label redacted, evidence unverifiable.
    e.ok(&["press", "id=\"echo.button\""]);
    e.ok(&["wait", "id=\"copied.title\""]);
    let r = e.ok(&["save-script"]);
    let text = std::fs::read_to_string(r.path.unwrap()).unwrap();
    assert!(!text.contains(TOKEN), "{text}");
    let analysis = ad_compiler::analyze(&text);
    let press = analysis
        .steps()
        .iter()
        .find(|s| s.command() == "press")
        .unwrap();
    let ev = press.target_evidence.as_deref().unwrap();
    assert_eq!(ev.label.as_deref(), Some("Copy ${TOKEN}"));
    assert_eq!(
        ev.verification,
        ad_grammar::annotation::VerificationState::Unverifiable
    );
    let welcome = analysis
        .steps()
        .iter()
        .find(|s| s.positional(0) == Some("id=\"welcome\""))
        .unwrap();
    assert!(welcome.target_evidence.is_none(), "dropped for the wait");
    e.ok(&["close"]);
    assert_no_literal(&e, TOKEN);
}

#[test]
fn empty_and_whitespace_literals_stay_fill_scoped() {
    let mut e = Env::new("blank");
    let app = e.echo_app();
    e.ok(&[
        "open",
        "com.example.echo",
        "--save-script=b.ad",
        "--app",
        &app,
    ]);
    // agent-device's fill reader refuses whitespace-only text after a selector (the `ad check`
    // reader, which reads each filled-in step): a blank value is typed into a field by ref.
    let blank_ref = |e: &mut Env| {
        let nodes = e.ok(&["snapshot", "-i"]).nodes.unwrap();
        nodes
            .as_array()
            .unwrap()
            .iter()
            .find(|n| n["id"] == "blank")
            .map(|n| format!("@{}", n["ref"].as_str().unwrap()))
            .expect("the blank field in the snapshot")
    };
    let blank = blank_ref(&mut e);
    e.ok(&["fill", &blank, " ", "--record-as", "BLANK"]);
    e.ok(&["fill", "id=\"blank\"", "", "--record-as", "EMPTY"]);
    let blank = blank_ref(&mut e);
    e.ok(&["fill", &blank, "\t", "--record-as", "TAB"]);
    e.refused(
        &["fill", "id=\"blank\"", " ", "--record-as", "SPACE"],
        "INVALID_ARGS",
    );
    // Through replay too: a whole-placeholder fill whose value is blank is refused as the
    // daemon refuses it, and the value stays out of the answer.
    std::fs::write(
        e.dir.join("blank-part.ad"),
        "fill \"id=\\\"blank\\\"\" \"${SPACES}\"\n",
    )
    .unwrap();
    let r = e.cmd(&["replay", "blank-part.ad", "-e", "SPACES=  "]);
    assert!(!r.ok, "{r:?}");
    e.ok(&["fill", "id=\"user\"", "a b", "--record-as", "USER"]);
    // No blank literal is redacted from later records: "Token form" keeps its space, in the
    // result and in the journal.
    let r = e.ok(&["wait", "id=\"form.title\""]);
    let text = serde_json::to_string(&r.result).unwrap();
    assert!(text.contains("Token form"), "{text}");
    // The wait's own capture (the last observation; each blank fill's own capture is redacted
    // under that fill's scope only).
    let last = e
        .files()
        .into_iter()
        .filter(|f| f.to_string_lossy().contains("/observations/"))
        .max()
        .unwrap();
    // A blank literal never leaks past its fill's scope into later records. (Within the scope a
    // string holding it collapses to the placeholder whole: `vars.rs`'s unit test; a by-ref fill
    // captures nothing inside its scope.)
    let journal = journal_text(&e);
    assert!(!journal.contains("Token${BLANK}form"), "{journal}");
    let observed = std::fs::read_to_string(last).unwrap();
    assert!(observed.contains("\"Token form\""), "{observed}");
    for name in ["BLANK", "EMPTY", "TAB", "SPACE", "SPACES"] {
        assert!(
            !text.contains(name) && !observed.contains(name),
            "{name}: {text}"
        );
    }
    let r = e.ok(&["save-script"]);
    let script = std::fs::read_to_string(r.path.unwrap()).unwrap();
    for name in ["BLANK", "EMPTY", "TAB", "USER"] {
        assert!(
            script.contains(&format!("\"${{{name}}}\"")),
            "{name}: {script}"
        );
    }
    assert!(script.contains("label\":\"Token form\""), "{script}");
}

#[test]
fn one_literal_under_two_names_is_attributed_to_the_first() {
    const TOKEN: &str = "tok3n-XYZ";
    let mut e = Env::new("two-names");
    let app = e.echo_app();
    e.ok(&[
        "open",
        "com.example.echo",
        "--save-script=t.ad",
        "--app",
        &app,
    ]);
    e.ok(&["fill", "id=\"user\"", TOKEN, "--record-as", "FIRST"]);
    e.ok(&["fill", "id=\"token\"", TOKEN, "--record-as", "SECOND"]);
    e.ok(&["press", "id=\"echo.button\""]);
    e.ok(&["wait", "id=\"copied.title\""]);
    let r = e.ok(&["save-script"]);
    let text = std::fs::read_to_string(r.path.unwrap()).unwrap();
    assert!(
        text.contains("\"${FIRST}\"") && text.contains("\"${SECOND}\""),
        "{text}"
    );
    assert!(text.contains("Copy ${FIRST}"), "{text}");
}

#[test]
fn replay_inside_an_armed_session_keeps_a_whole_placeholder_fill_as_the_placeholder() {
    let mut e = Env::new("replay-armed");
    std::fs::write(
        e.dir.join("part.ad"),
        "fill \"id=\\\"login.email\\\"\" \"demo@example.com\"\nfill \"id=\\\"login.password\\\"\" \"${PASSWORD}\"\n",
    )
    .unwrap();
    e.arm("whole.ad");
    e.shell_env = vec![("PASSWORD".into(), SECRET.into())];
    let r = e.ok(&["replay", "part.ad"]);
    assert_eq!(r.replayed, Some(2));
    e.ok(&["press", "id=\"login.submit\""]);
    e.ok(&["wait", "id=\"home.title\""]);
    let r = e.ok(&["save-script"]);
    let text = published(&r.path.unwrap());
    assert!(text.contains("\"${PASSWORD}\""), "{text}");
    e.ok(&["close"]);
    assert_no_literal(&e, SECRET);
}

#[test]
fn the_session_list_shows_each_session_and_its_recording() {
    let mut e = Env::new("list");
    e.arm("a.ad");
    e.session = "other".into();
    let app = e.shop();
    e.ok(&["open", "com.example.shop", "--app", &app]);
    let list = e.ok(&["list"]).sessions.unwrap();
    let v: Vec<(String, String, usize)> = list
        .into_iter()
        .map(|s| (s.name, s.lifecycle, s.recorded_actions))
        .collect();
    assert_eq!(
        v,
        vec![
            ("default".into(), "armed".into(), 1),
            ("other".into(), "unarmed".into(), 0)
        ]
    );
    let _: Value = Value::Null;
}

/// Polls `f` once: is it still waiting?
async fn still_pending<F: std::future::Future>(f: std::pin::Pin<&mut F>) -> bool {
    let mut f = Some(f);
    std::future::poll_fn(|cx| {
        let pending = f.take().unwrap().poll(cx).is_pending();
        std::task::Poll::Ready(pending)
    })
    .await
}

#[test]
fn requests_for_different_sessions_proceed_concurrently_and_one_sessions_keep_their_order() {
    ad_tests::web_fixture::require_chromium();
    let server = ad_tests::web_fixture::FixtureServer::start(&ad_tests::web_fixture::fixture_dir());
    let mut e = Env::new("concurrent");
    e.sessions.web.offline = true;
    let app = e.shop();
    e.session = "slow".into();
    e.ok(&["open", &server.url("login.html")]);
    let req = |session: &str, words: &[&str]| Request {
        session: session.into(),
        words: words.iter().map(|w| w.to_string()).collect(),
        cwd: e.dir.clone(),
        shell_env: Vec::new(),
        ..Request::default()
    };
    let sessions = &e.sessions;
    e.rt.block_on(async {
        // Session "slow" waits (up to a minute) for an element that never appears, and then
        // has a snapshot queued behind that wait.
        let mut wait = Box::pin(sessions.handle(req("slow", &["wait", "id=\"never\"", "60000"])));
        let mut snapshot = Box::pin(sessions.handle(req("slow", &["snapshot"])));
        assert!(still_pending(wait.as_mut()).await, "the wait is under way");
        assert!(still_pending(snapshot.as_mut()).await, "queued behind it");
        // Meanwhile another session opens and acts, and the list answers.
        let other = tokio::select! {
            biased;
            _ = &mut wait => panic!("the wait ended before the other session's command"),
            _ = &mut snapshot => panic!("the snapshot overtook the wait of its own session"),
            r = sessions.handle(req("fast", &["open", "com.example.shop", "--app", &app])) => r,
        };
        assert!(other.ok, "{other:?}");
        let list = tokio::select! {
            biased;
            _ = &mut wait => panic!("the wait ended before the list"),
            r = sessions.handle(req("x", &["list"])) => r,
        };
        let names: Vec<String> = list.sessions.unwrap().into_iter().map(|s| s.name).collect();
        assert_eq!(names, ["fast", "slow"]);
        let fast = sessions
            .handle(req("fast", &["wait", "id=\"login.email\""]))
            .await;
        assert!(fast.ok, "{fast:?}");
        assert!(
            still_pending(wait.as_mut()).await,
            "the slow wait is still waiting"
        );
        assert!(
            still_pending(snapshot.as_mut()).await,
            "and its session's next request too"
        );
        // Abandoning the wait (its client hung up) lets the session's next request run.
        drop(wait);
        let snap = snapshot.await;
        assert!(snap.ok, "{snap:?}");
    });
    e.ok(&["close"]);
    e.session = "fast".into();
    e.ok(&["close"]);
}

#[test]
fn a_fill_text_starting_with_a_dash_is_the_positional_and_publishes_as_one() {
    let mut e = Env::new("dash");
    e.arm("dash.ad");
    e.ok(&["fill", "id=\"login.email\"", "-starts-with-dash"]);
    let nodes = e.ok(&["snapshot"]).nodes.unwrap().to_string();
    assert!(
        nodes.contains("\"-starts-with-dash\""),
        "the field holds the text: {nodes}"
    );
    e.ok(&["wait", "id=\"login.submit\""]);
    let r = e.ok(&["save-script"]);
    let text = published(&r.path.unwrap());
    let fills: Vec<&str> = text.lines().filter(|l| l.starts_with("fill")).collect();
    assert_eq!(
        fills,
        ["fill \"id=\\\"login.email\\\"\" \"-starts-with-dash\"",],
        "{text}"
    );
    // agent-device reads each as the fill's text.
    let oracle = ad_tests::run_oracle_one(&e.dir.join("dash.ad"));
    let texts: Vec<&Value> = oracle["parse"]["actions"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|a| a["command"] == "fill")
        .map(|a| &a["positionals"][1])
        .collect();
    assert_eq!(texts, ["-starts-with-dash"], "{oracle}");
    e.ok(&["close"]);
    // After `--` every word is positional, even a session flag's spelling (agent-device's CLI
    // ends its flags there too).
    let app = e.shop();
    e.ok(&["open", "com.example.shop", "--app", &app]);
    e.ok(&["fill", "id=\"login.email\"", "--", "--force"]);
    let nodes = e.ok(&["snapshot"]).nodes.unwrap().to_string();
    assert!(nodes.contains("\"value\":\"--force\""), "{nodes}");
    e.ok(&["close"]);
}

#[test]
fn replay_records_embedded_placeholders_as_dispatched_with_parameterized_values_put_back() {
    let mut e = Env::new("replay-embedded");
    std::fs::write(
        e.dir.join("part.ad"),
        concat!(
            "env GREETING=hello\n",
            "fill \"id=\\\"login.email\\\"\" \"${GREETING}@example.com\"\n",
            "fill \"id=\\\"login.password\\\"\" \"${PASSWORD}\"\n",
            "fill \"id=\\\"login.email\\\"\" \"${GREETING}-${USER_NAME}\"\n",
            "fill \"id=\\\"login.email\\\"\" \"x-${PASSWORD}-y\"\n",
        ),
    )
    .unwrap();
    e.arm("embedded.ad");
    e.shell_env = vec![("PASSWORD".into(), SECRET.into())];
    let r = e.ok(&["replay", "part.ad", "-e", "USER_NAME=demo"]);
    assert_eq!(r.replayed, Some(4));
    e.ok(&["wait", "id=\"login.submit\""]);
    let r = e.ok(&["save-script"]);
    let text = published(&r.path.unwrap());
    let fills: Vec<&str> = text.lines().filter(|l| l.starts_with("fill")).collect();
    assert_eq!(
        fills,
        [
            // The script's own `env` value: recorded as dispatched (agent-device's recorder).
            "fill \"id=\\\"login.email\\\"\" \"hello@example.com\"",
            // A whole-placeholder fill keeps its placeholder.
            "fill \"id=\\\"login.password\\\"\" \"${PASSWORD}\"",
            // An injected value (-e) is never written: it goes back to its placeholder.
            "fill \"id=\\\"login.email\\\"\" \"hello-${USER_NAME}\"",
            // The registered literal inside other text: echo protection.
            "fill \"id=\\\"login.email\\\"\" \"x-${PASSWORD}-y\"",
        ],
        "{text}"
    );
    e.ok(&["close"]);
    assert_no_literal(&e, SECRET);
}

#[test]
fn the_originating_fill_is_matched_exactly_and_a_short_literal_inside_a_word_stays() {
    let mut e = Env::new("exact");
    let app = e.echo_app();
    e.ok(&[
        "open",
        "com.example.echo",
        "--save-script=exact.ad",
        "--app",
        &app,
    ]);
    // "Use" is inside the field's own label "User": the fill's own evidence keeps it (exact
    // match only), and a later action on the same field too, since a literal shorter than a
    // secret (8 characters) is redacted only where it stands as a word (docs/run.md).
    e.ok(&["fill", "id=\"user\"", "Use", "--record-as", "NAME"]);
    e.ok(&["press", "id=\"user\""]);
    e.ok(&["wait", "id=\"form.title\""]);
    let r = e.ok(&["save-script"]);
    let text = std::fs::read_to_string(r.path.unwrap()).unwrap();
    let analysis = ad_compiler::analyze(&text);
    let evidence = |cmd: &str| {
        analysis
            .steps()
            .iter()
            .find(|s| s.command() == cmd)
            .and_then(|s| s.target_evidence.clone())
            .unwrap()
    };
    let fill = evidence("fill");
    assert_eq!(fill.label.as_deref(), Some("User"), "{text}");
    assert_eq!(
        fill.verification,
        ad_grammar::annotation::VerificationState::Verified
    );
    let press = evidence("press");
    assert_eq!(press.label.as_deref(), Some("User"), "{text}");
    assert_eq!(
        press.verification,
        ad_grammar::annotation::VerificationState::Verified
    );
    assert!(text.contains("\"${NAME}\""), "{text}");
    e.ok(&["close"]);
}

#[test]
fn a_missing_variable_fails_the_replay_before_its_action() {
    let mut e = Env::new("replay-missing");
    std::fs::write(
        e.dir.join("missing.ad"),
        "fill \"id=\\\"login.email\\\"\" \"${NOT_GIVEN}\"\n",
    )
    .unwrap();
    e.arm("m.ad");
    let r = e.cmd(&["replay", "missing.ad"]);
    assert!(!r.ok, "{r:?}");
    assert_eq!(r.replayed, Some(0));
    assert!(r.message.unwrap().contains("NOT_GIVEN"));
    let nodes = e.ok(&["snapshot"]).nodes.unwrap();
    let email = nodes
        .as_array()
        .unwrap()
        .iter()
        .find(|n| n["id"] == "login.email")
        .unwrap();
    assert!(
        email.get("value").is_none_or(|v| v == "" || v.is_null()),
        "nothing was filled: {email}"
    );
    assert_eq!(
        e.ok(&["list"]).sessions.unwrap()[0].recorded_actions,
        1,
        "only the open is recorded"
    );
    e.ok(&["close"]);
}

#[test]
fn the_echo_registry_is_per_session_and_dies_with_it() {
    const TOKEN: &str = "tok3n-XYZ";
    let mut e = Env::new("registry");
    let app = e.echo_app();
    let open = [
        "open",
        "com.example.echo",
        "--save-script=r.ad",
        "--app",
        &app,
    ];
    e.ok(&open);
    e.ok(&["fill", "id=\"token\"", TOKEN, "--record-as", "TOKEN"]);
    let r = e.ok(&["wait", "id=\"welcome\""]);
    assert!(!serde_json::to_string(&r.result).unwrap().contains(TOKEN));
    // Another session never registered it; this one, once closed and opened again, neither.
    for session in ["other", "default"] {
        e.session = session.into();
        if session == "default" {
            e.ok(&["close"]);
        }
        e.ok(&["open", "com.example.echo", "--app", &app]);
        e.ok(&["fill", "id=\"token\"", TOKEN]);
        let r = e.ok(&["wait", "id=\"welcome\""]);
        let text = serde_json::to_string(&r.result).unwrap();
        assert!(
            text.contains(&format!("Welcome, {TOKEN}")),
            "{session}: {text}"
        );
        e.ok(&["close"]);
    }
}
