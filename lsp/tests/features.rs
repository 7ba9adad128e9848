//! Every feature, driven in-process over lsp-server's memory connection, with insta snapshots
//! of what an editor would show.

use ad_tests::lsp_client::{find, labels, pos, Client};
use insta::{assert_json_snapshot, assert_snapshot};
use serde_json::{json, Value};

const URI: &str = "file:///nonexistent-ad-lsp-test/features.ad";

fn completion_at(c: &mut Client, text: &str, needle: &str, delta: usize) -> Value {
    c.request("textDocument/completion", {
        let (l, ch) = find(text, needle, delta);
        pos(URI, l, ch)
    })
}

fn hover_at(c: &mut Client, text: &str, needle: &str, delta: usize) -> String {
    let (l, ch) = find(text, needle, delta);
    let h = c.request("textDocument/hover", pos(URI, l, ch));
    h["contents"]["value"].as_str().unwrap_or("").to_string()
}

const SCRIPT: &str = r#"context platform=ios target=mobile
env EMAIL=zoë@example.com
env UNUSED_TOO=1

open "com.example.app"
gesture fling up 100 200
click "role=\"but"
click "visible=tr"
click id=ok --button sec
is visible "id=\"x\""
type "${AD_PL"
# agent-device:targets-v1 {"source":{"id":"card","role":"cell","label":"Carte 🃏","verification":"verified"},"destination":{"role":"list","label":"Terminé","verification":"unverifiable"}}
gesture drag "id=\"card\"" "label=\"Terminé\""
scrollintoview "id=x"
press label=Save
fill "id=\"pw\"" "${PASSWORD}"
close
"#;

#[test]
fn completion_everywhere() {
    let mut c = Client::new();
    c.open(URI, SCRIPT);
    let mut out = serde_json::Map::new();
    let mut put = |name: &str, v: Value| {
        out.insert(name.into(), json!(labels(&v)));
    };
    put(
        "blank line in the header",
        completion_at(&mut c, SCRIPT, "\nopen", 1),
    );
    put(
        "context key",
        completion_at(&mut c, SCRIPT, "target=mobile", 0),
    );
    put(
        "context platform value",
        completion_at(&mut c, SCRIPT, "platform=ios", 9),
    );
    put(
        "context target value",
        completion_at(&mut c, SCRIPT, "target=mobile", 7),
    );
    put("gesture kind", completion_at(&mut c, SCRIPT, "fling up", 0));
    put(
        "fling direction",
        completion_at(&mut c, SCRIPT, "up 100", 0),
    );
    put(
        "role value in a quoted selector",
        completion_at(&mut c, SCRIPT, "\\\"but", 5),
    );
    put(
        "boolean selector value",
        completion_at(&mut c, SCRIPT, "visible=tr", 10),
    );
    put(
        "flag enum value",
        completion_at(&mut c, SCRIPT, "--button sec", 12),
    );
    put(
        "is predicate",
        completion_at(&mut c, SCRIPT, "visible \"id", 0),
    );
    put(
        "built-in variable",
        completion_at(&mut c, SCRIPT, "${AD_PL", 7),
    );
    put(
        "env key for an undefined placeholder",
        completion_at(&mut c, SCRIPT, "UNUSED_TOO", 0),
    );
    assert_json_snapshot!("completion-contexts", out);

    // A typed command word: the snippets carry placeholders for clients that support them.
    let items = completion_at(&mut c, SCRIPT, "\nopen", 1);
    let snippets: Vec<Value> = items["items"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|i| i["kind"] == 15)
        .map(|i| json!({ "label": i["label"], "insert": i["textEdit"]["newText"], "format": i["insertTextFormat"] }))
        .collect();
    assert_json_snapshot!("snippets", snippets);
    assert_eq!(c.shutdown(), 0);

    // Without snippet support the same items insert plain text.
    let mut plain = Client::with_capabilities(json!({}));
    plain.open(URI, SCRIPT);
    let items = completion_at(&mut plain, SCRIPT, "\nopen", 1);
    let wait = items["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["label"] == "wait for element")
        .unwrap()
        .clone();
    assert_eq!(wait["insertTextFormat"], 1);
    assert_eq!(
        wait["textEdit"]["newText"],
        "wait \"label=\\\"Title\\\"\" 10000"
    );
    assert_eq!(plain.shutdown(), 0);
}

#[test]
fn hovers() {
    let mut c = Client::new();
    c.open(URI, SCRIPT);
    let mut out = String::new();
    for (title, needle, delta) in [
        ("context key", "platform=ios", 2),
        ("env keyword", "env EMAIL", 1),
        ("targets-v1 annotation", "# agent-device:targets-v1", 3),
        ("drag step (annotated)", "gesture drag", 2),
        ("retired command", "scrollintoview", 2),
        ("bare selector argument", "label=Save", 2),
        ("built-in variable", "${AD_PL", 3),
        ("undefined variable", "${PASSWORD}", 4),
        ("enum positional", "up 100", 0),
    ] {
        out.push_str(&format!(
            "## {title}\n{}\n\n",
            hover_at(&mut c, SCRIPT, needle, delta)
        ));
    }
    assert_snapshot!("hovers", out);
    assert_eq!(c.shutdown(), 0);
}

/// Semantic tokens decoded back to (text, type, modifiers).
#[test]
fn semantic_tokens() {
    let mut c = Client::new();
    let text = "context platform=ios\nenv NAME=Zoë\n# a comment\n# agent-device:target-v1 {\"role\":\"button\",\"label\":\"Café 😀\",\"sibling\":2,\"verification\":\"verified\"}\nclick \"label=\\\"Café 😀\\\" || id=${NAME}\" --count 2\nwait @e3 500\nscroll down ${AD_SESSION}\n";
    c.open(URI, text);
    let init_types = [
        "function",
        "parameter",
        "property",
        "string",
        "variable",
        "macro",
        "decorator",
        "comment",
        "number",
        "keyword",
        "operator",
        "enumMember",
    ];
    let r = c.request(
        "textDocument/semanticTokens/full",
        json!({ "textDocument": { "uri": URI } }),
    );
    let data: Vec<u64> = r["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_u64().unwrap())
        .collect();
    let lines: Vec<Vec<u16>> = text
        .split('\n')
        .map(|l| l.encode_utf16().collect())
        .collect();
    let (mut line, mut col) = (0usize, 0usize);
    let mut out = String::new();
    for t in data.chunks(5) {
        if t[0] > 0 {
            line += t[0] as usize;
            col = t[1] as usize;
        } else {
            col += t[1] as usize;
        }
        let s = String::from_utf16(&lines[line][col..col + t[2] as usize]).unwrap();
        out.push_str(&format!(
            "{line}:{col} {s:?} {} {}\n",
            init_types[t[3] as usize], t[4]
        ));
    }
    assert_snapshot!("semantic-tokens", out);
    // A range request returns the tokens of the lines it touches.
    let r = c.request(
        "textDocument/semanticTokens/range",
        json!({ "textDocument": { "uri": URI }, "range": { "start": { "line": 5, "character": 0 }, "end": { "line": 5, "character": 3 } } }),
    );
    assert_eq!(r["data"].as_array().unwrap().len(), 3 * 5, "{r}");
    assert_eq!(c.shutdown(), 0);
}

#[test]
fn symbols_folding_and_signatures() {
    let mut c = Client::new();
    c.open(URI, SCRIPT);
    let folds = c.request(
        "textDocument/foldingRange",
        json!({ "textDocument": { "uri": URI } }),
    );
    assert_json_snapshot!("folding", folds);
    let sig = c.request("textDocument/signatureHelp", {
        let (l, ch) = find(SCRIPT, "up 100", 3);
        pos(URI, l, ch)
    });
    assert_json_snapshot!("signature-fling", sig);
    assert_eq!(c.shutdown(), 0);

    // A client without hierarchical symbols gets a flat list with containers.
    let mut flat = Client::with_capabilities(json!({}));
    flat.open(URI, SCRIPT);
    let symbols = flat.request(
        "textDocument/documentSymbol",
        json!({ "textDocument": { "uri": URI } }),
    );
    let names: Vec<String> = symbols
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            format!(
                "{} [{}]",
                s["name"].as_str().unwrap(),
                s["containerName"].as_str().unwrap_or("")
            )
        })
        .collect();
    assert_json_snapshot!("flat-symbols", names);
    assert_eq!(flat.shutdown(), 0);
}

#[test]
fn rename_refuses_built_ins_clashes_and_bad_names() {
    let mut c = Client::new();
    let text = "env A=1\nenv B=2\ntype \"${A}\" \"${B}\" ${AD_SESSION}\n";
    c.open(URI, text);
    let (l, ch) = find(text, "${AD_SESSION}", 3);
    let e = c
        .request_raw("textDocument/prepareRename", pos(URI, l, ch))
        .unwrap_err();
    assert!(e["message"].as_str().unwrap().contains("built-in"), "{e}");
    let (l, ch) = find(text, "${A}", 2);
    let ok = c.request("textDocument/prepareRename", pos(URI, l, ch));
    assert_eq!(ok["placeholder"], "A");
    let mut p = pos(URI, l, ch);
    p["newName"] = json!("B");
    let e = c.request_raw("textDocument/rename", p.clone()).unwrap_err();
    assert!(
        e["message"]
            .as_str()
            .unwrap()
            .contains("already defined on line 2"),
        "{e}"
    );
    p["newName"] = json!("AD_X");
    assert!(c.request_raw("textDocument/rename", p.clone()).is_err());
    p["newName"] = json!("RENAMED");
    let edit = c.request("textDocument/rename", p);
    assert_eq!(edit["changes"][URI].as_array().unwrap().len(), 2);
    let highlights = c.request("textDocument/documentHighlight", pos(URI, l, ch));
    assert_eq!(highlights.as_array().unwrap().len(), 2);
    assert_eq!(c.shutdown(), 0);
}

/// `ad.toml` applies as in `ad check`, and a change to it re-checks open scripts.
#[test]
fn ad_toml_is_honoured() {
    let dir = std::env::temp_dir().join(format!("ad-lsp-config-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join(".git")).unwrap();
    std::fs::write(dir.join("ad.toml"), "[rules]\nAD301 = \"off\"\n").unwrap();
    let file = dir.join("flow.ad");
    let text = "open app\ntype \"${MISSING}\"\nclose\n";
    std::fs::write(&file, text).unwrap();
    let uri = format!("file://{}", file.display());
    let mut c = Client::new();
    let d = c.open(&uri, text);
    assert!(!d.iter().any(|d| d["code"] == "AD301"), "{d:?}");

    std::fs::write(dir.join("ad.toml"), "[rules]\nAD301 = \"error\"\n").unwrap();
    let toml_uri = format!("file://{}", dir.join("ad.toml").display());
    c.notify(
        "workspace/didChangeWatchedFiles",
        json!({ "changes": [{ "uri": toml_uri, "type": 2 }] }),
    );
    let d = c.diagnostics(&uri);
    let missing: Vec<&Value> = d.iter().filter(|d| d["code"] == "AD301").collect();
    assert_eq!(missing.len(), 1, "{d:?}");
    assert_eq!(missing[0]["severity"], 1);

    // A broken ad.toml: default settings, and the user is told once.
    std::fs::write(dir.join("ad.toml"), "[rules]\nAD999 = \"off\"\n").unwrap();
    c.notify(
        "textDocument/didSave",
        json!({ "textDocument": { "uri": toml_uri } }),
    );
    let shown = c.wait_notification("window/showMessage", |_| true);
    assert!(
        shown["message"].as_str().unwrap().contains("AD999"),
        "{shown}"
    );
    let d = c.diagnostics(&uri);
    assert!(
        d.iter().any(|d| d["code"] == "AD301" && d["severity"] == 3),
        "{d:?}"
    );
    assert_eq!(c.shutdown(), 0);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Incremental edits (several in one notification, then a full replacement), a lone CR (a line
/// break for the protocol, not for agent-device) and UTF-8 positions when the client offers them.
#[test]
fn edits_positions_and_encodings() {
    let mut c = Client::new();
    c.open(URI, "click \"label=😀\"\nwait 100\n");
    let d = c.change(
        URI,
        2,
        json!([
            { "range": { "start": { "line": 0, "character": 15 }, "end": { "line": 0, "character": 15 } }, "text": "!" },
            { "range": { "start": { "line": 1, "character": 0 }, "end": { "line": 1, "character": 4 } }, "text": "waitt" }
        ]),
    );
    // The emoji is two UTF-16 units: the `!` landed after it, inside the quotes.
    let fmt = c.request(
        "textDocument/formatting",
        json!({ "textDocument": { "uri": URI }, "options": { "tabSize": 2, "insertSpaces": true } }),
    );
    assert_eq!(fmt, json!([]), "already canonical: {fmt}");
    assert!(d.iter().any(|d| d["code"] == "AD101"), "{d:?}");
    let d = c.change(URI, 3, json!([{ "text": "click id=a\rwait 100\n" }]));
    let cr: Vec<&Value> = d.iter().filter(|d| d["code"] == "AD004").collect();
    assert_eq!(
        cr[0]["range"],
        json!({ "start": { "line": 0, "character": 10 }, "end": { "line": 1, "character": 0 } })
    );
    assert_eq!(c.shutdown(), 0);

    let mut utf8 = Client::with_capabilities(
        json!({ "general": { "positionEncodings": ["utf-8", "utf-16"] } }),
    );
    let d = utf8.open(URI, "type \"😀\" ${X}\n");
    let x = d.iter().find(|d| d["code"] == "AD301").unwrap();
    // Byte columns: `type "` (6) + the emoji (4) + `" ` (2).
    assert_eq!(
        x["range"]["start"],
        json!({ "line": 0, "character": 12 }),
        "{d:?}"
    );
    assert_eq!(utf8.shutdown(), 0);
}

/// A document that once crashed the analysis (an unterminated quote holding a placeholder and
/// non-ASCII text), requests on it, unknown documents and notifications: the server goes on
/// serving the other documents. (A panicking handler itself is tested in `server.rs`.)
#[test]
fn a_crashing_analysis_is_contained() {
    let mut c = Client::new();
    let bad = "type \"${NAME}\u{e9}\n";
    let d = c.open("file:///nonexistent-ad-lsp-test/bad.ad", bad);
    assert!(!d.is_empty());
    let _ = c.request_raw(
        "textDocument/hover",
        pos("file:///nonexistent-ad-lsp-test/bad.ad", 0, 8),
    );
    let _ = c.request_raw(
        "textDocument/completion",
        pos("file:///nonexistent-ad-lsp-test/bad.ad", 0, 8),
    );
    let good = c.open(URI, "open app\nwait 100\nclose\n");
    assert!(good.is_empty(), "{good:?}");
    let h = c.request("textDocument/hover", pos(URI, 1, 1));
    assert!(h["contents"]["value"].as_str().unwrap().contains("wait"));
    // Unknown documents and unknown notifications are harmless too.
    assert_eq!(
        c.request("textDocument/hover", pos("file:///nowhere.ad", 0, 0)),
        Value::Null
    );
    c.notify("$/somethingNew", json!({}));
    c.notify("textDocument/didChange", json!({ "textDocument": { "uri": "file:///nowhere.ad", "version": 2 }, "contentChanges": [] }));
    assert_eq!(c.shutdown(), 0);
}

/// Applies LSP text edits (UTF-16 positions) to `text`.
fn apply(text: &str, edits: &[Value]) -> String {
    let offset = |p: &Value| -> usize {
        let line = p["line"].as_u64().unwrap() as usize;
        let ch = p["character"].as_u64().unwrap() as usize;
        let start: usize = text.split_inclusive('\n').take(line).map(str::len).sum();
        let mut units = 0;
        for (i, c) in text[start..].char_indices() {
            if units >= ch || c == '\n' {
                return start + i;
            }
            units += c.len_utf16();
        }
        text.len()
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
    for (a, b, t) in spans {
        out.replace_range(a..b, &t);
    }
    out
}

/// Quick fixes come from whatever fixes the diagnostics carry: a secure-field fill turned into
/// `${NAME}` and a destination guard repeated from the landmark the script already waits for.
#[test]
fn code_actions_carry_every_fix() {
    let text = "context platform=ios\nopen \"com.example.shop\"\n# agent-device:target-v1 {\"id\":\"home.title\",\"role\":\"statictext\",\"label\":\"Accueil 🏠\",\"verification\":\"verified\"}\nwait \"id=\\\"home.title\\\"\"\n# agent-device:target-v1 {\"id\":\"login.password\",\"role\":\"securetextfield\",\"label\":\"Mot de passe\",\"verification\":\"verified\"}\nfill \"id=\\\"login.password\\\"\" \"hunter2\"\n";
    let mut c = Client::new();
    c.open(URI, text);
    let last = text.lines().count() as u32 - 1;
    let actions = c.request(
        "textDocument/codeAction",
        json!({
            "textDocument": { "uri": URI },
            "range": { "start": { "line": last, "character": 0 }, "end": { "line": last, "character": 40 } },
            "context": { "diagnostics": [] }
        }),
    );
    let summary: Vec<Value> = actions
        .as_array()
        .unwrap()
        .iter()
        .map(|a| json!({ "title": a["title"], "kind": a["kind"], "edits": a["edit"]["changes"][URI] }))
        .collect();
    assert_json_snapshot!("code-actions-secret-and-guard", summary);
    let fix_all = actions
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["kind"] == "source.fixAll")
        .expect("a fix-all action");
    let fixed = apply(text, fix_all["edit"]["changes"][URI].as_array().unwrap());
    let after = ad_compiler::analyze(&fixed);
    let codes: Vec<&str> = after.diagnostics.iter().map(|d| d.code.id()).collect();
    assert!(
        !codes.contains(&"AD721") && !codes.contains(&"AD703"),
        "{codes:?}\n{fixed}"
    );
    assert_eq!(c.shutdown(), 0);
}
