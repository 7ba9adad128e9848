//! End to end: spawn the real `ad lsp`, speak JSON-RPC over stdio, snapshot the responses.
//! The script has non-ASCII labels and emoji before the positions asked about, so every
//! position in these snapshots is a UTF-16 one.

#[path = "lsp_client.rs"]
mod lsp_client;

use insta::assert_json_snapshot;
use lsp_client::{at, find, items, Client};
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

#[test]
fn a_session_over_stdio() {
    let mut c = Client::spawn();
    let init = c.initialize(capabilities());
    assert_json_snapshot!("initialize", init);

    // Diagnostics on open: exactly `ad check`'s.
    let published = c.open(URI, SCRIPT);
    assert_json_snapshot!("open-diagnostics", published);
    let codes: Vec<&str> = published["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["code"].as_str().unwrap())
        .collect();
    let check = ad_compiler::analyze(SCRIPT);
    let expected: Vec<&str> = check.diagnostics.iter().map(|d| d.code).collect();
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
    let after = c.diagnostics(URI);
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
    assert_eq!(c.diagnostics(URI)["diagnostics"], published["diagnostics"]);

    // Completion: flags of the command at the cursor, after the emoji.
    let (l, ch) = find(SCRIPT, "--count", 2);
    let flags = c.request("textDocument/completion", at(URI, (l, ch)));
    assert_json_snapshot!("completion-flags", items(&flags));
    // Enum positional: scroll directions.
    let dir = c.request("textDocument/completion", at(URI, find(SCRIPT, "down", 2)));
    assert_json_snapshot!("completion-scroll-direction", items(&dir));
    // `${` variables with where they come from.
    let vars = c.request(
        "textDocument/completion",
        at(URI, find(SCRIPT, "${EMAIL}", 2)),
    );
    assert_json_snapshot!("completion-variables", items(&vars));
    // Selector keys inside a quoted selector, after non-ASCII text.
    let keys = c.request(
        "textDocument/completion",
        at(URI, find(SCRIPT, "\"label=\\\"Bienvenue", 1)),
    );
    assert_json_snapshot!("completion-selector-keys", items(&keys));

    // Hover: a command (with the recorded identity of its annotation), a flag after an emoji,
    // a variable.
    let hover_fill = c.request("textDocument/hover", at(URI, find(SCRIPT, "fill", 1)));
    assert_json_snapshot!("hover-fill-annotated", hover_fill);
    let hover_flag = c.request("textDocument/hover", at(URI, find(SCRIPT, "--count", 3)));
    assert_json_snapshot!("hover-flag-after-emoji", hover_flag);
    let hover_var = c.request("textDocument/hover", at(URI, find(SCRIPT, "${EMAIL}", 4)));
    assert_json_snapshot!("hover-variable", hover_var);

    // Definition, references and rename of the env variable.
    let def = c.request(
        "textDocument/definition",
        at(URI, find(SCRIPT, "${EMAIL}", 3)),
    );
    assert_json_snapshot!("definition", def);
    let mut refs_params = at(URI, find(SCRIPT, "EMAIL=", 1));
    refs_params["context"] = json!({ "includeDeclaration": true });
    let refs = c.request("textDocument/references", refs_params);
    assert_json_snapshot!("references", refs);
    let mut rename_params = at(URI, find(SCRIPT, "${EMAIL}", 3));
    rename_params["newName"] = json!("USER_EMAIL");
    let rename = c.request("textDocument/rename", rename_params.clone());
    assert_json_snapshot!("rename", rename);
    rename_params["newName"] = json!("lowercase");
    let bad = c.request_message("textDocument/rename", rename_params);
    assert_eq!(bad["error"]["code"], -32602, "{bad}");

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

    // Robustness on the real transport: garbage, an unknown method, bad parameters.
    c.send_raw(b"Content-Length: 9\r\n\r\n{garbage}");
    let unknown = c.request_message("textDocument/unknownThing", json!({}));
    assert_eq!(unknown["error"]["code"], -32601, "{unknown}");
    let invalid = c.request_message("textDocument/hover", json!({ "textDocument": 5 }));
    assert_eq!(invalid["error"]["code"], -32602, "{invalid}");
    let parse_error = c.response(&Value::Null);
    assert_eq!(parse_error["error"]["code"], -32700, "{parse_error}");

    // Shutdown, then exit: exit code 0.
    assert_eq!(c.request("shutdown", Value::Null), Value::Null);
    let late = c.request_message("textDocument/hover", at(URI, (0, 0)));
    assert_eq!(
        late["error"]["code"], -32600,
        "requests after shutdown are refused"
    );
    c.notify("exit", Value::Null);
    assert_eq!(c.wait(), Some(0));
}

#[test]
fn exit_without_shutdown_is_code_1_and_eof_ends_the_server() {
    let mut c = Client::spawn();
    c.initialize(json!({}));
    c.notify("exit", Value::Null);
    assert_eq!(c.wait(), Some(1));

    let mut c = Client::spawn();
    c.initialize(json!({}));
    assert_eq!(c.wait(), Some(1), "stdin closed without exit");
}

#[test]
fn requests_before_initialize_are_refused() {
    let mut c = Client::spawn();
    let early = c.request_message("textDocument/hover", at(URI, (0, 0)));
    assert_eq!(early["error"]["code"], -32002, "{early}");
    c.initialize(json!({}));
    c.request("shutdown", Value::Null);
    c.notify("exit", Value::Null);
    assert_eq!(c.wait(), Some(0));
}

/// A 2 MiB script and binary content: diagnostics arrive, requests answer, nothing hangs.
#[test]
fn huge_and_binary_documents() {
    let mut c = Client::spawn();
    c.initialize(capabilities());
    let mut big = String::from("context platform=ios\nenv EMAIL=a@b.c\nopen \"com.example\"\n");
    let mut i = 0;
    while big.len() < 2 * 1024 * 1024 {
        i += 1;
        big.push_str(&format!(
            "# agent-device:target-v1 {{\"id\":\"f{i}\",\"role\":\"textfield\",\"label\":\"Champ {i} ✉️\",\"verification\":\"verified\"}}\nfill \"id=\\\"f{i}\\\"\" \"${{EMAIL}}\"\nwait \"label=\\\"Écran {i} 😀\\\"\" 5000\n"
        ));
    }
    big.push_str("close\n");
    let started = std::time::Instant::now();
    let d = c.open("file:///nonexistent-ad-lsp-test/big.ad", &big);
    assert!(d["diagnostics"].is_array());
    let lines = big.lines().count() as u32;
    let hover = c.request(
        "textDocument/hover",
        at("file:///nonexistent-ad-lsp-test/big.ad", (lines - 3, 1)),
    );
    assert!(hover["contents"]["value"]
        .as_str()
        .unwrap()
        .contains("fill"));
    assert!(
        started.elapsed() < std::time::Duration::from_secs(30),
        "a 2 MiB script took {:?}",
        started.elapsed()
    );

    let binary: String = (0u8..=255).map(char::from).collect::<String>() + "\0\u{1}\u{7f}\n";
    let d = c.open("file:///nonexistent-ad-lsp-test/binary.ad", &binary);
    assert!(d["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .any(|d| d["code"] == "AD007"));
    let sym = c.request(
        "textDocument/documentSymbol",
        json!({ "textDocument": { "uri": "file:///nonexistent-ad-lsp-test/binary.ad" } }),
    );
    assert!(sym.is_array());
    c.request("shutdown", Value::Null);
    c.notify("exit", Value::Null);
    assert_eq!(c.wait(), Some(0));
}

/// One malformed frame used to wedge the server: every later message got an `id: null`
/// ParseError and `exit` no longer ended it. After each kind of bad frame, the session that
/// follows is served whole and ends with exit code 0.
#[test]
fn a_malformed_frame_is_answered_and_the_session_goes_on() {
    let body = r#"{"jsonrpc":"2.0","id":99,"method":"initialize","params":{"capabilities":{}}}"#;
    let cases: Vec<(&str, Vec<u8>)> = vec![
        (
            "Content-Length: abc",
            format!("Content-Length: abc\r\n\r\n{body}").into_bytes(),
        ),
        (
            "Content-Length: -5",
            format!("Content-Length: -5\r\n\r\n{body}").into_bytes(),
        ),
        (
            "a huge Content-Length",
            format!("Content-Length: 99999999999999\r\n\r\n{body}").into_bytes(),
        ),
        (
            "no Content-Length",
            format!("Content-Type: application/vscode-jsonrpc\r\n\r\n{body}").into_bytes(),
        ),
        // The client announces more than it sends, then goes on with the session: the server
        // must not wait for the missing bytes (or swallow the next messages as the body).
        (
            "a short body",
            format!("Content-Length: 5000\r\n\r\n{}", &body[..30]).into_bytes(),
        ),
        (
            "binary junk",
            b"\xff\xfe\x00\x01\x02\x03junk\x7f\x1b[0m".to_vec(),
        ),
    ];
    for (what, bad) in cases {
        let mut c = Client::spawn();
        c.send_raw(&bad);
        let init = c.request_message(
            "initialize",
            json!({ "processId": null, "rootUri": null, "capabilities": {} }),
        );
        assert!(init["result"]["capabilities"].is_object(), "{what}: {init}");
        c.notify("initialized", json!({}));
        let parse_error = c.response(&Value::Null);
        assert_eq!(
            parse_error["error"]["code"], -32700,
            "{what}: {parse_error}"
        );
        let shutdown = c.request_message("shutdown", Value::Null);
        assert_eq!(shutdown["result"], Value::Null, "{what}: {shutdown}");
        assert!(shutdown.get("error").is_none(), "{what}: {shutdown}");
        c.notify("exit", Value::Null);
        assert_eq!(c.wait(), Some(0), "{what}");
    }
}
