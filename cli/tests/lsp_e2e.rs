//! End to end: spawn the real `ad lsp` and speak JSON-RPC over stdio. What each feature answers
//! is snapshotted in process by `lsp/tests/session.rs`; here the binary must answer the same
//! over its real transport, and survive what only a real transport sees (bad frames, exit
//! codes, a closed stdin).

#[path = "lsp_client.rs"]
mod lsp_client;

use lsp_client::{at, find, Client};
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
fn a_session_over_stdio_answers_as_the_server_in_process() {
    let (mut local, local_init) = ad_tests::lsp_client::Client::initialized(capabilities());
    let mut c = Client::spawn();
    let init = c.initialize(capabilities());
    assert_eq!(init, local_init, "initialize");

    // Diagnostics on open: the in-process server's, which are exactly `ad check`'s.
    let published = c.open(URI, SCRIPT);
    local.notify(
        "textDocument/didOpen",
        json!({ "textDocument": { "uri": URI, "languageId": "ad", "version": 1, "text": SCRIPT } }),
    );
    assert_eq!(published, local.published(URI), "open diagnostics");
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

    // An incremental edit after the emoji (`click` → `clik` on the 😀 line) is applied at the
    // same UTF-16 position over stdio.
    let (line, col) = find(SCRIPT, "click \"label=\\\"Se", 3);
    let edit = json!({
        "textDocument": { "uri": URI, "version": 2 },
        "contentChanges": [{
            "range": { "start": { "line": line, "character": col }, "end": { "line": line, "character": col + 1 } },
            "text": ""
        }]
    });
    c.notify("textDocument/didChange", edit.clone());
    local.notify("textDocument/didChange", edit);
    let after = c.diagnostics(URI);
    assert_eq!(after["version"], 2);
    assert!(
        after["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .any(|d| d["code"] == "AD101"),
        "{after}"
    );
    assert_eq!(after, local.published(URI), "diagnostics after the edit");

    // Requests of each kind answer as in process.
    let mut requests = vec![
        (
            "textDocument/completion",
            at(URI, find(SCRIPT, "--count", 2)),
        ),
        ("textDocument/hover", at(URI, find(SCRIPT, "fill", 1))),
        (
            "textDocument/definition",
            at(URI, find(SCRIPT, "${EMAIL}", 3)),
        ),
        (
            "textDocument/formatting",
            json!({ "textDocument": { "uri": URI }, "options": { "tabSize": 2, "insertSpaces": true } }),
        ),
        (
            "textDocument/documentSymbol",
            json!({ "textDocument": { "uri": URI } }),
        ),
    ];
    let mut rename = at(URI, find(SCRIPT, "${EMAIL}", 3));
    rename["newName"] = json!("USER_EMAIL");
    requests.push(("textDocument/rename", rename.clone()));
    for (method, params) in requests {
        assert_eq!(
            c.request(method, params.clone()),
            local.request(method, params),
            "{method}"
        );
    }
    rename["newName"] = json!("lowercase");
    let bad = c.request_message("textDocument/rename", rename);
    assert_eq!(bad["error"]["code"], -32602, "{bad}");
    assert_eq!(local.shutdown(), 0);

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
