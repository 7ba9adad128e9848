//! The language server's cross-file features over `examples/composition` copied into a scratch
//! project: diagnostics of a parent come from its fragments too, go to definition on an include
//! path opens the fragment, hover shows its entry guard and digest, renaming a variable in the
//! parent renames it in the fragment, and editing an open fragment refreshes the parent.

use std::path::{Path, PathBuf};

use ad_tests::lsp_client::{find, pos, Client};
use serde_json::{json, Value};

fn project() -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("ad-lsp-compose-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
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
    let dir = project();
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
