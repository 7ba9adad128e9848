//! The language server's cross-file features over `examples/composition` copied into a scratch
//! project: diagnostics of a parent come from its fragments too, go to definition on an include
//! path opens the fragment, hover shows its entry guard and digest, renaming a variable in the
//! parent renames it in the fragment (and in a fragment, renames it in its parents and their
//! other fragments), editing an open fragment refreshes the parent, and a stale pin's quick fix
//! re-pins it and keeps the snapshot of what it pins.

use std::path::{Path, PathBuf};

use ad_tests::lsp_client::{find, pos, Client};
use serde_json::{json, Value};

fn project(name: &str) -> PathBuf {
    let dir = ad_tests::scratch_dir(&format!("ad-lsp-{name}"));
    std::fs::create_dir_all(dir.join("fragments")).unwrap();
    std::fs::write(dir.join("ad.toml"), "").unwrap();
    let src = ad_tests::repo_dir().join("examples/composition");
    for f in [
        "sign-in-and-tour.ad",
        "fragments/login.ad",
        "fragments/onboarding.ad",
    ] {
        std::fs::copy(src.join(f), dir.join(f)).unwrap();
    }
    dir
}

fn uri(path: &Path) -> String {
    format!("file://{}", path.display())
}

fn codes(diagnostics: &[Value]) -> Vec<String> {
    diagnostics
        .iter()
        .map(|d| d["code"].as_str().unwrap_or("").to_string())
        .collect()
}

#[test]
fn cross_file_features_of_a_composition() {
    let dir = project("compose");
    let parent_path = dir.join("sign-in-and-tour.ad");
    let login_path = dir.join("fragments/login.ad");
    let parent = std::fs::read_to_string(&parent_path).unwrap();
    let login = std::fs::read_to_string(&login_path).unwrap();
    let (parent_uri, login_uri) = (uri(&parent_path), uri(&login_path));

    let (mut c, _) = Client::initialized(json!({
        "textDocument": {
            "hover": { "contentFormat": ["markdown"] },
            "publishDiagnostics": { "relatedInformation": true }
        }
    }));
    let diagnostics = c.open(&parent_uri, &parent);
    assert!(
        diagnostics.is_empty(),
        "a clean composition: {diagnostics:?}"
    );

    // Go to definition on the include path.
    let (line, ch) = find(&parent, "include \"fragments/login.ad\"", 12);
    let def = c.request("textDocument/definition", pos(&parent_uri, line, ch));
    assert_eq!(def["uri"], login_uri.as_str());

    // Hover: the fragment, its digest and its entry guard.
    let hover = c.request("textDocument/hover", pos(&parent_uri, line, ch));
    let text = hover["contents"]["value"].as_str().unwrap();
    let digest = ad_compiler::compose::fragment_digest(&login);
    assert!(text.contains(&digest), "{text}");
    assert!(
        text.contains("wait \"id=\\\"login.email\\\"\" 5000"),
        "{text}"
    );
    assert!(text.contains("call site `login`"), "{text}");

    // Rename EMAIL in the parent: the fragment's `${EMAIL}` is renamed too.
    let (line, ch) = find(&parent, "env EMAIL", 5);
    let mut params = pos(&parent_uri, line, ch);
    params["newName"] = json!("USER_EMAIL");
    let edit = c.request("textDocument/rename", params);
    let changes = &edit["changes"];
    assert_eq!(changes[parent_uri.as_str()].as_array().unwrap().len(), 1);
    let in_fragment = changes[login_uri.as_str()]
        .as_array()
        .expect("edits in login.ad");
    assert_eq!(in_fragment.len(), 1);
    assert_eq!(in_fragment[0]["newText"], "USER_EMAIL");
    let (l, ch) = find(&login, "${EMAIL}", 2);
    assert_eq!(
        in_fragment[0]["range"]["start"],
        json!({"line": l, "character": ch})
    );

    // Editing the open fragment refreshes the parent: its pin is stale now.
    let _ = c.open(&login_uri, &login);
    let edited = login.replace("5000", "7000");
    c.notify(
        "textDocument/didChange",
        json!({ "textDocument": { "uri": login_uri, "version": 2 }, "contentChanges": [{ "text": edited }] }),
    );
    // (Opening the fragment republished the parent once already: read on to the stale pin; the
    // client panics when nothing more is published.)
    while !codes(&c.diagnostics(&parent_uri)).contains(&"AD806".to_string()) {}
    // Undoing the edit clears it again.
    c.notify(
        "textDocument/didChange",
        json!({ "textDocument": { "uri": login_uri, "version": 3 }, "contentChanges": [{ "text": login }] }),
    );
    while !c.diagnostics(&parent_uri).is_empty() {}

    // A finding the parent's expansion makes inside the open fragment is published on the
    // fragment, with the include as related information: EMAIL unbound once the parent drops it.
    let without_env = parent.replace("env EMAIL=demo@example.com\n", "");
    c.notify(
        "textDocument/didChange",
        json!({ "textDocument": { "uri": parent_uri, "version": 2 }, "contentChanges": [{ "text": without_env }] }),
    );
    let unbound = loop {
        let d = c.diagnostics(&login_uri);
        if let Some(found) = d.into_iter().find(|d| d["code"] == "AD810") {
            break found;
        }
    };
    assert!(unbound["message"]
        .as_str()
        .unwrap()
        .contains("included via"));
    let related = &unbound["relatedInformation"][0];
    assert_eq!(related["location"]["uri"], parent_uri.as_str());
    assert!(related["message"].as_str().unwrap().contains("`login`"));
    assert_eq!(c.shutdown(), 0);
    let _ = std::fs::remove_dir_all(&dir);
}

/// A rename started in a fragment edits the fragment, the parent that includes it (found on
/// disk, not open) and the parent's other fragments that use the variable.
#[test]
fn rename_in_a_fragment_follows_its_parents_and_siblings() {
    let dir = project("compose-rename");
    let onboarding_path = dir.join("fragments/onboarding.ad");
    let onboarding =
        std::fs::read_to_string(&onboarding_path).unwrap() + "is visible \"label=${EMAIL}\"\n";
    std::fs::write(&onboarding_path, &onboarding).unwrap();
    let (parent_path, login_path) = (
        dir.join("sign-in-and-tour.ad"),
        dir.join("fragments/login.ad"),
    );
    let parent = std::fs::read_to_string(&parent_path).unwrap();
    let login = std::fs::read_to_string(&login_path).unwrap();
    let login_uri = uri(&login_path);
    let (mut c, _) = Client::initialized(json!({}));
    let _ = c.open(&login_uri, &login);
    let (line, ch) = find(&login, "${EMAIL}", 3);
    let mut params = pos(&login_uri, line, ch);
    params["newName"] = json!("USER_EMAIL");
    let edit = c.request("textDocument/rename", params);
    let changes = edit["changes"].as_object().expect("changes");
    let edited = |path: &Path, text: &str| -> Vec<(u32, u32)> {
        changes[&uri(path)]
            .as_array()
            .unwrap_or_else(|| panic!("no edits in {}", path.display()))
            .iter()
            .map(|e| {
                assert_eq!(e["newText"], "USER_EMAIL");
                let _ = text;
                (
                    e["range"]["start"]["line"].as_u64().unwrap() as u32,
                    e["range"]["start"]["character"].as_u64().unwrap() as u32,
                )
            })
            .collect()
    };
    assert_eq!(
        edited(&login_path, &login),
        vec![find(&login, "${EMAIL}", 2)]
    );
    assert_eq!(
        edited(&parent_path, &parent),
        vec![find(&parent, "env EMAIL", 4)]
    );
    assert_eq!(
        edited(&onboarding_path, &onboarding),
        vec![find(&onboarding, "${EMAIL}", 2)]
    );
    assert_eq!(changes.len(), 3, "{changes:?}");
    assert_eq!(c.shutdown(), 0);
    let _ = std::fs::remove_dir_all(&dir);
}

/// The quick fix of a stale pin rewrites the digest and, when the client can create files,
/// writes the snapshot of what it pins (so the next change lists its steps).
#[test]
fn a_stale_pin_quick_fix_repins_and_keeps_the_snapshot() {
    let dir = project("compose-repin");
    let (parent_path, login_path) = (
        dir.join("sign-in-and-tour.ad"),
        dir.join("fragments/login.ad"),
    );
    let parent = std::fs::read_to_string(&parent_path).unwrap();
    let login = std::fs::read_to_string(&login_path).unwrap();
    let (parent_uri, login_uri) = (uri(&parent_path), uri(&login_path));
    // The snapshot of what the example pins, as `ad check --fix` keeps it.
    let old = ad_compiler::compose::fragment_digest(&login);
    let kept = ad_compiler::compose::snapshot_path(&dir, &old).unwrap();
    std::fs::create_dir_all(kept.parent().unwrap()).unwrap();
    std::fs::write(&kept, ad_compiler::compose::snapshot_text(&login)).unwrap();
    let (mut c, _) = Client::initialized(json!({
        "workspace": { "workspaceEdit": { "documentChanges": true, "resourceOperations": ["create"] } },
        "textDocument": { "hover": { "contentFormat": ["markdown"] } }
    }));
    let _ = c.open(&parent_uri, &parent);
    let _ = c.open(&login_uri, &login);
    let edited = login.replace("5000", "7000");
    c.notify(
        "textDocument/didChange",
        json!({ "textDocument": { "uri": login_uri, "version": 2 }, "contentChanges": [{ "text": edited }] }),
    );
    while !codes(&c.diagnostics(&parent_uri)).contains(&"AD806".to_string()) {}
    let new = ad_compiler::compose::fragment_digest(&edited);
    // Hover on the include: the pin is stale, with the steps that changed since the snapshot.
    let (l, ch) = find(&parent, "include \"fragments/login.ad\"", 12);
    let hover = c.request("textDocument/hover", pos(&parent_uri, l, ch));
    let text = hover["contents"]["value"].as_str().unwrap();
    assert!(
        text.contains("stale") && text.contains("- 6: wait \"id=\\\"login.email\\\"\" 5000"),
        "{text}"
    );
    let (line, ch) = find(&parent, &old, 0);
    let actions = c.request(
        "textDocument/codeAction",
        json!({
            "textDocument": { "uri": parent_uri },
            "range": { "start": { "line": line, "character": ch }, "end": { "line": line, "character": ch } },
            "context": { "diagnostics": [] }
        }),
    );
    let fix = actions
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["title"].as_str().unwrap_or("").contains("AD806"))
        .expect("a re-pin quick fix");
    let ops = fix["edit"]["documentChanges"]
        .as_array()
        .expect("documentChanges");
    let snapshot = dir
        .join(".ad/pins")
        .join(format!("{}.pinned", &new["sha256:".len()..]));
    assert_eq!(ops[0]["kind"], "create");
    assert_eq!(ops[0]["uri"], uri(&snapshot).as_str());
    let written = ops[1]["edits"][0]["newText"].as_str().unwrap();
    assert_eq!(
        ad_compiler::compose::fragment_digest(written),
        new,
        "the snapshot is what the pin pins"
    );
    assert_eq!(ops[2]["textDocument"]["uri"], parent_uri.as_str());
    assert_eq!(ops[2]["edits"][0]["newText"], new.as_str());
    assert_eq!(
        ops[2]["edits"][0]["range"]["start"],
        json!({"line": line, "character": ch})
    );
    assert_eq!(c.shutdown(), 0);

    // A client that cannot create files gets the re-pin alone.
    let (mut c, _) = Client::initialized(json!({}));
    let _ = c.open(&parent_uri, &parent);
    let _ = c.open(&login_uri, &edited);
    while !codes(&c.diagnostics(&parent_uri)).contains(&"AD806".to_string()) {}
    let actions = c.request(
        "textDocument/codeAction",
        json!({
            "textDocument": { "uri": parent_uri },
            "range": { "start": { "line": line, "character": ch }, "end": { "line": line, "character": ch } },
            "context": { "diagnostics": [] }
        }),
    );
    let fix = actions
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["title"].as_str().unwrap_or("").contains("AD806"))
        .expect("a re-pin quick fix");
    assert_eq!(
        fix["edit"]["changes"][parent_uri.as_str()][0]["newText"],
        new.as_str()
    );
    assert_eq!(c.shutdown(), 0);
    let _ = std::fs::remove_dir_all(&dir);
}
