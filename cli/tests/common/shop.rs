//! The repair and heal tests' project: the Shop model (examples/apps/shop.json) copied into a
//! scratch folder, `login.ad` recorded on it with evidence through an authoring session, then
//! the model edited under the script (an element relabelled, its id changed, or removed).

use std::path::{Path, PathBuf};
use std::process::Output;

use serde_json::Value;

use super::{exit_code, isolated_ad, output_text, repo_root, session_scratch};

/// `ad args…` in `dir`, isolated; a daemon left holding a session by a failed test stops after
/// a minute unused.
pub fn ad(dir: &Path, args: &[&str]) -> Output {
    isolated_ad(dir)
        .env("AD_SESSION_REAP_MS", "60000")
        .args(args)
        .output()
        .expect("ad runs")
}

/// `ad args…` in `dir`, isolated but for its state folder `state`, whose daemon reaps a session
/// `reap_ms` after its last use.
pub fn ad_reaping(dir: &Path, state: &Path, reap_ms: &str, args: &[&str]) -> Output {
    isolated_ad(dir)
        .env("AD_STATE_DIR", state)
        .env("AD_SESSION_REAP_MS", reap_ms)
        .args(args)
        .output()
        .expect("ad runs")
}

/// [`ad`], which must succeed.
pub fn ok(dir: &Path, args: &[&str]) -> Output {
    let o = ad(dir, args);
    assert!(o.status.success(), "ad {args:?}: {}", output_text(&o));
    o
}

/// Edits the model element `id` (anywhere in the model): `Some("label")` relabels it,
/// `Some("id:NEW")` changes its id, `None` removes it. False when there is no such element.
pub fn edit(model: &mut Value, id: &str, change: Option<&str>) -> bool {
    match model {
        Value::Object(m) => {
            if m.get("id").and_then(Value::as_str) == Some(id) {
                match change.map(|l| l.strip_prefix("id:").ok_or(l)) {
                    Some(Ok(new_id)) => {
                        m.insert("id".into(), Value::String(new_id.into()));
                    }
                    Some(Err(l)) => {
                        m.insert("label".into(), Value::String(l.into()));
                    }
                    None => {}
                }
                return true;
            }
            m.values_mut().any(|v| edit(v, id, change))
        }
        Value::Array(a) => {
            if change.is_none() {
                let before = a.len();
                a.retain(|v| v.get("id").and_then(Value::as_str) != Some(id));
                if a.len() < before {
                    return true;
                }
            }
            a.iter_mut().any(|v| edit(v, id, change))
        }
        _ => false,
    }
}

/// A scratch project with `login.ad` recorded on the Shop model (sign in, then `more` session
/// actions), checked to pass, then every edit applied to the model. The folder and the script.
pub fn recorded_login(
    name: &str,
    more: &[&[&str]],
    edits: &[(&str, Option<&str>)],
) -> (PathBuf, PathBuf) {
    let dir = session_scratch(name);
    std::fs::create_dir_all(dir.join("apps")).unwrap();
    let model = repo_root().join("examples/apps/shop.json");
    std::fs::copy(&model, dir.join("apps/shop.json")).unwrap();
    let open = [
        "session",
        "open",
        "com.example.shop",
        "--relaunch",
        "--save-script=login.ad",
    ];
    ok(&dir, &open);
    ok(
        &dir,
        &["session", "fill", r#"id="login.email""#, "demo@example.com"],
    );
    ok(
        &dir,
        &["session", "fill", r#"id="login.password""#, "hunter2"],
    );
    ok(
        &dir,
        &["session", "click", r#"role="button" label="Sign in""#],
    );
    ok(&dir, &["session", "wait", r#"id="home.title""#]);
    for action in more {
        let mut args = vec!["session"];
        args.extend_from_slice(action);
        ok(&dir, &args);
    }
    ok(&dir, &["session", "close"]);
    let script = dir.join("login.ad");
    // It passes before the edits (its journal kept apart from the tests' own run folders).
    ok(
        &dir,
        &["run", "login.ad", "--artifacts-dir", "recorded-check"],
    );
    let path = dir.join("apps/shop.json");
    let mut m: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    for (id, change) in edits {
        assert!(edit(&mut m, id, *change), "{id}");
    }
    std::fs::write(&path, m.to_string()).unwrap();
    (dir, script)
}

/// The session list's line for `default`, or None.
pub fn listed(dir: &Path) -> Option<String> {
    let o = ok(dir, &["session", "list"]);
    String::from_utf8_lossy(&o.stdout)
        .lines()
        .find(|l| l.starts_with("default\t"))
        .map(str::to_string)
}

/// The healed script passes `ad check`, `ad fmt --check` and agent-device 0.21.5's reader.
pub fn assert_valid_script(dir: &Path, script: &Path) {
    let s = script.to_str().unwrap();
    ok(dir, &["check", s]);
    ok(dir, &["fmt", "--check", s]);
    let oracle = ad_tests::run_oracle_one(script);
    assert_eq!(oracle["ok"], true, "agent-device rejects it: {oracle}");
}

/// `ad run login.ad` with its run recorded into `fx/` (its journal in `recording/`).
pub fn record_fixture_run(dir: &Path) -> Output {
    ad(
        dir,
        &[
            "run",
            "login.ad",
            "--record-fixture",
            "fx",
            "--artifacts-dir",
            "recording",
        ],
    )
}

/// The Shop project with `login.ad` recorded, the model edited (`id` relabelled, or removed:
/// `None`), the failing run recorded into `fx/`, then the model deleted: only the recording is
/// left to heal from.
pub fn failing_recording(name: &str, id: &str, change: Option<&str>) -> (PathBuf, PathBuf) {
    let (dir, script) = recorded_login(name, &[], &[(id, change)]);
    let o = record_fixture_run(&dir);
    assert_eq!(
        exit_code(&o),
        1,
        "the edited app fails: {}",
        output_text(&o)
    );
    assert!(
        dir.join("fx/manifest.json").is_file(),
        "{}",
        output_text(&o)
    );
    std::fs::remove_dir_all(dir.join("apps")).unwrap();
    // No sim can run the script now: its app model is gone.
    let o = ad(&dir, &["run", "login.ad", "--artifacts-dir", "no-sim"]);
    assert_eq!(exit_code(&o), 2, "{}", output_text(&o));
    (dir, script)
}

/// Completes a repair armed on `login.ad`: the `--from` resume (after the corrective action)
/// passes to the end and says the repair is complete, then `ad session close` commits the healed
/// script and names it. Its path.
pub fn resume_and_commit(dir: &Path, from: &str, digest: &str) -> PathBuf {
    let o = ok(
        dir,
        &["run", "login.ad", "--from", from, "--plan-digest", digest],
    );
    let out = output_text(&o);
    assert!(
        out.contains("ok: login.ad") && out.contains("warning: the repair is complete"),
        "{out}"
    );
    assert!(listed(dir).unwrap().contains("repair-complete"));
    let o = ok(dir, &["session", "close"]);
    let healed = dir.join("login.healed.ad");
    assert!(
        output_text(&o).contains(&healed.display().to_string()),
        "{}",
        output_text(&o)
    );
    healed
}
