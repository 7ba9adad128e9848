//! The language server and the artifacts folder (docs/editors.md): after a real `ad run` of a
//! script diverges on the sim, `ad lsp` shows the divergence on the failing line while the
//! document's plan is the one that ran (not once it changes); after a real `ad heal`, it offers
//! the proven proposal as a quick fix whose edit gives exactly the healed script, which passes.

mod common;
#[path = "lsp_client.rs"]
mod lsp_client;

use std::path::Path;

use common::output_text;
use common::shop::{ad, ok, recorded_login};
use lsp_client::Client;
use serde_json::{json, Value};

fn uri_of(path: &Path) -> String {
    format!("file://{}", path.display())
}

/// `ad lsp` initialized on the project folder `root`.
fn server(root: &Path) -> Client {
    let mut c = Client::spawn();
    c.request(
        "initialize",
        json!({
            "processId": null,
            "rootUri": uri_of(root),
            "capabilities": { "textDocument": { "publishDiagnostics": { "relatedInformation": true } } }
        }),
    );
    c.notify("initialized", json!({}));
    c
}

fn last_run(published: &Value) -> Vec<Value> {
    published["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["code"] == "last-run-diverged")
        .cloned()
        .collect()
}

/// `edits` (LSP text edits of ASCII text, lines split on `\n`) applied to `text`.
fn apply(text: &str, edits: &[Value]) -> String {
    let starts: Vec<usize> = std::iter::once(0)
        .chain(text.match_indices('\n').map(|(i, _)| i + 1))
        .collect();
    let offset = |p: &Value| {
        let line = p["line"].as_u64().unwrap() as usize;
        let col = p["character"].as_u64().unwrap() as usize;
        starts.get(line).map_or(text.len(), |s| s + col)
    };
    let mut spans: Vec<(usize, usize, String)> = edits
        .iter()
        .map(|e| {
            (
                offset(&e["range"]["start"]),
                offset(&e["range"]["end"]),
                e["newText"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    spans.sort_by_key(|s| std::cmp::Reverse(s.0));
    let mut out = text.to_string();
    for (s, e, t) in spans {
        out.replace_range(s..e, &t);
    }
    out
}

fn code_actions(c: &mut Client, uri: &str, line: u32) -> Vec<Value> {
    c.request(
        "textDocument/codeAction",
        json!({
            "textDocument": { "uri": uri },
            "range": { "start": { "line": line, "character": 0 }, "end": { "line": line, "character": 0 } },
            "context": { "diagnostics": [] }
        }),
    )
    .as_array()
    .cloned()
    .unwrap_or_default()
}

#[test]
fn a_real_divergence_is_shown_on_its_line_and_the_proven_heal_is_a_quick_fix_that_passes() {
    let (dir, script) = recorded_login("lsp-heal", &[], &[("login.submit", Some("Log in"))]);
    let original = std::fs::read_to_string(&script).unwrap();
    let line = original
        .lines()
        .position(|l| l == r#"click "role=\"button\" label=\"Sign in\"""#)
        .expect("the sign-in click") as u32;
    let o = ad(&dir, &["run", "login.ad"]);
    assert_eq!(o.status.code(), Some(1), "{}", output_text(&o));

    let uri = uri_of(&script);
    let mut c = server(&dir);
    let published = c.open(&uri, &original);
    let shown = last_run(&published);
    assert_eq!(shown.len(), 1, "{published}");
    let d = &shown[0];
    assert_eq!(d["range"]["start"]["line"], line, "{d}");
    assert_eq!(d["range"]["start"]["character"], 0, "{d}");
    assert_eq!(d["source"], "ad");
    let message = d["message"].as_str().unwrap();
    assert!(
        message.contains("diverged at step 4 (selector-miss)"),
        "{message}"
    );
    assert!(message.contains("\nrepair hint: "), "{message}");
    assert!(
        message.contains("\nresume: ad run login.ad --from ")
            && message.contains(" --plan-digest "),
        "{message}"
    );
    // No heal yet: no proposal to apply.
    assert!(!code_actions(&mut c, &uri, line).iter().any(|a| a["title"]
        .as_str()
        .unwrap_or("")
        .starts_with("Apply the proven heal")),);

    // Another plan (a step added): the run's record is stale, so it is not shown; the plan that
    // ran again: it is.
    let changed = original.replace("\nclose\n", "\nwait 100\nclose\n");
    assert_ne!(changed, original);
    c.notify(
        "textDocument/didChange",
        json!({ "textDocument": { "uri": uri, "version": 2 }, "contentChanges": [{ "text": changed }] }),
    );
    let published = c.diagnostics(&uri);
    assert!(last_run(&published).is_empty(), "{published}");
    c.notify(
        "textDocument/didChange",
        json!({ "textDocument": { "uri": uri, "version": 3 }, "contentChanges": [{ "text": original }] }),
    );
    assert_eq!(last_run(&c.diagnostics(&uri)).len(), 1);

    // A real heal: saving (or the record appearing on disk) re-reads the artifacts folder.
    ok(&dir, &["heal", "login.ad"]);
    c.notify(
        "textDocument/didSave",
        json!({ "textDocument": { "uri": uri } }),
    );
    let published = c.diagnostics(&uri);
    assert_eq!(last_run(&published).len(), 1, "{published}");
    let actions = code_actions(&mut c, &uri, line);
    let heal: Vec<&Value> = actions
        .iter()
        .filter(|a| {
            a["title"]
                .as_str()
                .unwrap_or("")
                .starts_with("Apply the proven heal")
        })
        .collect();
    assert_eq!(heal.len(), 1, "{actions:#?}");
    let action = heal[0];
    assert_eq!(
        action["title"],
        r#"Apply the proven heal proposal (step 4: role="button" label="Sign in" → id="login.submit")"#
    );
    assert_eq!(action["kind"], "quickfix");
    assert_eq!(action["diagnostics"][0]["code"], "last-run-diverged");
    // Not offered on a line it does not change.
    assert!(!code_actions(&mut c, &uri, 0).iter().any(|a| a["title"]
        .as_str()
        .unwrap_or("")
        .starts_with("Apply the proven heal")));
    let edits = action["edit"]["changes"][uri.as_str()]
        .as_array()
        .expect("edits of this document")
        .clone();
    let applied = apply(&original, &edits);

    // Exactly the script `ad heal --write` commits, without its heal-complete line.
    ok(&dir, &["heal", "login.ad", "--write"]);
    let healed = std::fs::read_to_string(dir.join("login.healed.ad")).unwrap();
    assert_eq!(
        healed.strip_suffix("# agent-device:heal-complete\n"),
        Some(applied.as_str())
    );

    // Applied in the editor: the text no longer hashes to the record (no action), and its plan
    // is the one the heal's proving run passed with (no divergence shown).
    c.notify(
        "textDocument/didChange",
        json!({ "textDocument": { "uri": uri, "version": 4 }, "contentChanges": [{ "text": applied }] }),
    );
    let published = c.diagnostics(&uri);
    assert!(last_run(&published).is_empty(), "{published}");
    assert!(!code_actions(&mut c, &uri, line).iter().any(|a| a["title"]
        .as_str()
        .unwrap_or("")
        .starts_with("Apply the proven heal")));
    // Saved, it passes `ad run` on the changed app.
    std::fs::write(&script, &applied).unwrap();
    let o = ok(&dir, &["run", "login.ad"]);
    assert!(
        output_text(&o).contains("ok: login.ad"),
        "{}",
        output_text(&o)
    );
}

#[test]
fn an_ad_toml_artifacts_dir_is_where_runs_and_heals_write_and_where_the_server_reads() {
    let (dir, script) = recorded_login("lsp-heal-toml", &[], &[("login.submit", Some("Log in"))]);
    std::fs::write(
        dir.join("ad.toml"),
        "[run]\nartifacts-dir = \"build/art\"\n",
    )
    .unwrap();
    let original = std::fs::read_to_string(&script).unwrap();
    let o = ad(&dir, &["run", "login.ad"]);
    assert_eq!(o.status.code(), Some(1), "{}", output_text(&o));
    ok(&dir, &["heal", "login.ad"]);
    assert!(!dir.join("ad-artifacts").exists());
    assert!(dir.join("build/art/heal/login.ad.json").is_file());
    let runs = std::fs::read_dir(dir.join("build/art"))
        .unwrap()
        .filter(|e| e.as_ref().unwrap().path().join("run.json").is_file())
        .count();
    assert!(runs >= 2, "the run and the heal's proving run: {runs}");

    // No workspace root: the ad.toml beside the script names the folder.
    let uri = uri_of(&script);
    let mut c = Client::spawn();
    c.initialize(json!({}));
    let published = c.open(&uri, &original);
    assert_eq!(last_run(&published).len(), 1, "{published}");
    let line = last_run(&published)[0]["range"]["start"]["line"]
        .as_u64()
        .unwrap() as u32;
    assert!(code_actions(&mut c, &uri, line).iter().any(|a| a["title"]
        .as_str()
        .unwrap_or("")
        .starts_with("Apply the proven heal")));
}
