//! The repair and heal tests' project: the Shop model (examples/apps/shop.json) copied into a
//! scratch folder, `login.ad` recorded on it with evidence through an authoring session, then
//! the model edited under the script (an element relabelled, its id changed, or removed).

use std::path::{Path, PathBuf};
use std::process::Output;

use serde_json::Value;

use super::{isolated_ad, output_text, repo_root, session_scratch};

/// `ad args…` in `dir`, isolated; a daemon left holding a session by a failed test stops after
/// a minute unused.
pub fn ad(dir: &Path, args: &[&str]) -> Output {
    isolated_ad(dir)
        .env("AD_SESSION_REAP_MS", "60000")
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
