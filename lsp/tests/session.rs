//! One editing session with every feature, in process, over a script with non-ASCII labels and
//! emoji before the positions asked about, so every position in these snapshots is a UTF-16
//! one. `cli/tests/lsp_e2e.rs` speaks to the real `ad lsp` over stdio and checks that it answers
//! as this server does.

use ad_tests::lsp_client::{find, items, pos, Client};
use insta::assert_json_snapshot;
use serde_json::{json, Value};

const URI: &str = "file:///nonexistent-ad-lsp-test/flows/login.ad";

const SCRIPT: &str = r#"context platform=ios target=mobile
env EMAIL=zoë@example.com

open "com.example.app"
# agent-device:target-v1 {"id":"login.email","role":"textfield","label":"E-mail ✉️","ancestry":[{"role":"form","label":"Connexion"},{"role":"application","label":"Démo"}],"sibling":1,"viewportOrder":0,"verification":"verified"}
fill "id=\"login.email\"" "${EMAIL}"
click "label=\"Se connecter 😀\"" --count 2
tap "label=Next"
click label="Café  au lait"
scroll   down
wait "label=\"Bienvenue 👋\"" 5000
close
"#;

fn capabilities() -> Value {
    json!({
        "textDocument": {
            "completion": { "completionItem": { "snippetSupport": true } },
            "hover": { "contentFormat": ["markdown", "plaintext"] },
            "documentSymbol": { "hierarchicalDocumentSymbolSupport": true },
            "publishDiagnostics": { "relatedInformation": true }
        }
    })
}

/// A text-document position in the session's document.
fn at((line, character): (u32, u32)) -> Value {
    pos(URI, line, character)
}

#[test]
fn a_session_with_every_feature() {
    let (mut c, init) = Client::initialized(capabilities());
    assert_json_snapshot!("initialize", init);

    // Diagnostics on open: exactly `ad check`'s.
    c.notify(
        "textDocument/didOpen",
        json!({ "textDocument": { "uri": URI, "languageId": "ad", "version": 1, "text": SCRIPT } }),
    );
    let published = c.published(URI);
    assert_json_snapshot!("open-diagnostics", published);
    let codes: Vec<&str> = published["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["code"].as_str().unwrap())
        .collect();
    let check = ad_compiler::analyze(SCRIPT);
    let expected: Vec<&str> = check.diagnostics.iter().map(|d| d.code.id()).collect();
    assert_eq!(
        codes, expected,
        "the server publishes what `ad check` reports"
    );

    // An incremental edit after the emoji: `click` → `clik` on the 😀 line.
    let (line, col) = find(SCRIPT, "click \"label=\\\"Se", 3);
    c.notify(
        "textDocument/didChange",
        json!({
            "textDocument": { "uri": URI, "version": 2 },
            "contentChanges": [{
                "range": { "start": { "line": line, "character": col }, "end": { "line": line, "character": col + 1 } },
                "text": ""
            }]
        }),
    );
    let after = c.published(URI);
    assert_eq!(after["version"], 2);
    let typo: Vec<&Value> = after["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["code"] == "AD101")
        .collect();
    assert_json_snapshot!("change-diagnostics-typo", typo);

    // Quick fix for the typo (did-you-mean), from the diagnostic's own fix.
    let actions = c.request(
        "textDocument/codeAction",
        json!({
            "textDocument": { "uri": URI },
            "range": { "start": { "line": line, "character": 0 }, "end": { "line": line, "character": 0 } },
            "context": { "diagnostics": [], "only": ["quickfix"] }
        }),
    );
    assert_json_snapshot!("code-action-did-you-mean", actions);
    // Undo the typo through the same incremental path.
    c.notify(
        "textDocument/didChange",
        json!({
            "textDocument": { "uri": URI, "version": 3 },
            "contentChanges": [{
                "range": { "start": { "line": line, "character": col }, "end": { "line": line, "character": col } },
                "text": "c"
            }]
        }),
    );
    assert_eq!(c.published(URI)["diagnostics"], published["diagnostics"]);

    // Completion: flags of the command at the cursor, after the emoji.
    let (l, ch) = find(SCRIPT, "--count", 2);
    let flags = c.request("textDocument/completion", pos(URI, l, ch));
    assert_json_snapshot!("completion-flags", items(&flags));
    // Enum positional: scroll directions.
    let dir = c.request("textDocument/completion", at(find(SCRIPT, "down", 2)));
    assert_json_snapshot!("completion-scroll-direction", items(&dir));
    // `${` variables with where they come from.
    let vars = c.request("textDocument/completion", at(find(SCRIPT, "${EMAIL}", 2)));
    assert_json_snapshot!("completion-variables", items(&vars));
    // Selector keys inside a quoted selector, after non-ASCII text.
    let keys = c.request(
        "textDocument/completion",
        at(find(SCRIPT, "\"label=\\\"Bienvenue", 1)),
    );
    assert_json_snapshot!("completion-selector-keys", items(&keys));

    // Hover: a command (with the recorded identity of its annotation), a flag after an emoji,
    // a variable.
    let hover_fill = c.request("textDocument/hover", at(find(SCRIPT, "fill", 1)));
    assert_json_snapshot!("hover-fill-annotated", hover_fill);
    let hover_flag = c.request("textDocument/hover", at(find(SCRIPT, "--count", 3)));
    assert_json_snapshot!("hover-flag-after-emoji", hover_flag);
    let hover_var = c.request("textDocument/hover", at(find(SCRIPT, "${EMAIL}", 4)));
    assert_json_snapshot!("hover-variable", hover_var);

    // Definition, references and rename of the env variable.
    let def = c.request("textDocument/definition", at(find(SCRIPT, "${EMAIL}", 3)));
    assert_json_snapshot!("definition", def);
    let mut refs_params = at(find(SCRIPT, "EMAIL=", 1));
    refs_params["context"] = json!({ "includeDeclaration": true });
    let refs = c.request("textDocument/references", refs_params);
    assert_json_snapshot!("references", refs);
    let mut rename_params = at(find(SCRIPT, "${EMAIL}", 3));
    rename_params["newName"] = json!("USER_EMAIL");
    let rename = c.request("textDocument/rename", rename_params.clone());
    assert_json_snapshot!("rename", rename);
    rename_params["newName"] = json!("lowercase");
    let bad = c
        .request_raw("textDocument/rename", rename_params)
        .unwrap_err();
    assert_eq!(bad["code"], -32602, "{bad}");

    // Formatting through `ad fmt`'s printer: the whole document, then one line.
    let fmt = c.request(
        "textDocument/formatting",
        json!({ "textDocument": { "uri": URI }, "options": { "tabSize": 2, "insertSpaces": true } }),
    );
    assert_json_snapshot!("formatting", fmt);
    let (sl, _) = find(SCRIPT, "scroll", 0);
    let range_fmt = c.request(
        "textDocument/rangeFormatting",
        json!({
            "textDocument": { "uri": URI },
            "range": { "start": { "line": sl, "character": 0 }, "end": { "line": sl, "character": 3 } },
            "options": { "tabSize": 2, "insertSpaces": true }
        }),
    );
    assert_json_snapshot!("range-formatting", range_fmt);

    // Code actions on the collapsing bare selector and the CLI alias.
    let (wl, _) = find(SCRIPT, "click label=", 0);
    let (tl, _) = find(SCRIPT, "tap", 0);
    let fixes = c.request(
        "textDocument/codeAction",
        json!({
            "textDocument": { "uri": URI },
            "range": { "start": { "line": tl, "character": 0 }, "end": { "line": wl, "character": 12 } },
            "context": { "diagnostics": [] }
        }),
    );
    assert_json_snapshot!("code-actions", fixes);

    let symbols = c.request(
        "textDocument/documentSymbol",
        json!({ "textDocument": { "uri": URI } }),
    );
    assert_json_snapshot!("document-symbols", symbols);

    assert_eq!(c.shutdown(), 0);
}
