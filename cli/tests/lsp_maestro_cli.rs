//! Maestro flows in the language server (docs/editors.md), through the real `ad lsp` over stdio:
//! a `.yaml` routed as a flow (the client's `maestro.paths` or `ad.toml`'s `[maestro] paths`)
//! gets exactly `ad check --maestro`'s diagnostics at the same ranges, hover on command names
//! and go to definition on `runFlow`/`runScript` files; YAML that is not routed gets nothing.

mod common;
#[path = "lsp_client.rs"]
mod lsp_client;

use std::path::{Path, PathBuf};

use lsp_client::{at, find, Client};
use serde_json::{json, Value};

fn uri_of(path: &Path) -> String {
    format!("file://{}", path.display())
}

/// A fresh project folder (with a `.git` marker, so no `ad.toml` above it applies).
fn project(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("lsp-maestro-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join(".git"), "").unwrap();
    dir.canonicalize().unwrap()
}

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        if e.file_type().unwrap().is_dir() {
            copy_dir(&e.path(), &to.join(e.file_name()));
        } else {
            std::fs::copy(e.path(), to.join(e.file_name())).unwrap();
        }
    }
}

/// `ad lsp` on the project `root`, with these `initializationOptions`.
fn server(root: &Path, options: Value) -> Client {
    let mut c = Client::spawn();
    c.request(
        "initialize",
        json!({
            "processId": null,
            "rootUri": uri_of(root),
            "initializationOptions": options,
            "capabilities": {
                "textDocument": {
                    "publishDiagnostics": { "relatedInformation": true },
                    "hover": { "contentFormat": ["markdown", "plaintext"] }
                }
            }
        }),
    );
    c.notify("initialized", json!({}));
    c
}

/// Opens `path` (its text from disk) as VS Code opens a YAML file; its first diagnostics.
fn open_yaml(c: &mut Client, path: &Path) -> Vec<Value> {
    let uri = uri_of(path);
    c.notify(
        "textDocument/didOpen",
        json!({ "textDocument": {
            "uri": uri, "languageId": "yaml", "version": 1,
            "text": std::fs::read_to_string(path).unwrap()
        } }),
    );
    c.diagnostics(&uri)["diagnostics"]
        .as_array()
        .unwrap()
        .clone()
}

fn code(d: &Value) -> &str {
    d["code"].as_str().unwrap_or_default()
}

/// A diagnostic as `ad check --format json` places it: code, severity, 1-based start and end,
/// whether agent-device rejects the flow.
type Placed = (String, String, u64, u64, u64, u64, bool);

fn placed_lsp(d: &Value) -> Placed {
    let r = &d["range"];
    let n = |v: &Value| v.as_u64().unwrap() + 1;
    let severity = match d["severity"].as_u64() {
        Some(1) => "error",
        Some(2) => "warning",
        _ => "info",
    };
    (
        code(d).to_string(),
        severity.to_string(),
        n(&r["start"]["line"]),
        n(&r["start"]["character"]),
        n(&r["end"]["line"]),
        n(&r["end"]["character"]),
        d["message"]
            .as_str()
            .unwrap()
            .contains("agent-device 0.21.5 rejects the script"),
    )
}

fn placed_cli(d: &Value) -> Placed {
    let n = |k: &str| d[k].as_u64().unwrap();
    (
        code(d).to_string(),
        d["severity"].as_str().unwrap().to_string(),
        n("line"),
        n("column"),
        n("end_line"),
        n("end_column"),
        d["agent_device_rejects"].as_bool().unwrap(),
    )
}

fn check_json(root: &Path, file: &Path) -> Vec<Value> {
    let out = common::ad(root)
        .args(["check", "--maestro", "--format", "json"])
        .arg(file)
        .output()
        .unwrap();
    serde_json::from_slice::<Value>(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stdout)))
        .as_array()
        .unwrap()
        .clone()
}

#[test]
fn routed_flows_get_ad_check_maestro_diagnostics_at_the_same_ranges() {
    let root = project("fixtures");
    let fixtures = common::repo_root().join("tests/fixtures/maestro");
    copy_dir(&fixtures, &root.join("e2e"));
    let mut c = server(&root, json!({ "maestro": { "paths": ["e2e/*.yaml"] } }));
    let mut files: Vec<PathBuf> = std::fs::read_dir(root.join("e2e"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "yaml"))
        .collect();
    files.sort();
    assert!(files.len() >= 25, "the Maestro fixtures: {files:?}");
    let (mut compared, mut rejects) = (0, 0);
    for file in &files {
        let lsp = open_yaml(&mut c, file);
        let cli = check_json(&root, file);
        let mut got: Vec<Placed> = lsp.iter().map(placed_lsp).collect();
        let mut want: Vec<Placed> = cli.iter().map(placed_cli).collect();
        got.sort();
        want.sort();
        assert_eq!(got, want, "{}", file.display());
        // Each fixture named for a code reports it.
        let name = file.file_name().unwrap().to_string_lossy().into_owned();
        if let Some(expected) = name.split('-').next().filter(|c| c.starts_with("AD")) {
            assert!(lsp.iter().any(|d| code(d) == expected), "{name}: {lsp:#?}");
        } else {
            assert!(lsp.is_empty(), "{name} is accepted: {lsp:#?}");
        }
        // The help and agent-device's own message are in the editor's message.
        for d in &cli {
            let m = lsp.iter().find(|l| placed_lsp(l) == placed_cli(d)).unwrap();
            let message = m["message"].as_str().unwrap();
            assert!(
                message.starts_with(d["message"].as_str().unwrap()),
                "{message}"
            );
            if let Some(help) = d["help"].as_str() {
                assert!(message.contains(&format!("help: {help}")), "{message}");
            }
            if let Some(own) = d["agent_device_message"].as_str() {
                assert!(message.contains(own), "{message}");
            }
            assert_eq!(m["source"], "ad");
        }
        compared += cli.len();
        rejects += cli
            .iter()
            .filter(|d| d["agent_device_rejects"] == true)
            .count();
    }
    assert!(compared >= 40, "{compared} diagnostics compared");
    assert!(rejects >= 20, "{rejects} agent_device_rejects diagnostics");

    // The refused fixture's first command, at its line and column.
    let flow = root.join("e2e/AD903-unsupported-commands.yaml");
    let text = std::fs::read_to_string(&flow).unwrap();
    c.notify(
        "textDocument/didClose",
        json!({ "textDocument": { "uri": uri_of(&flow) } }),
    );
    c.diagnostics(&uri_of(&flow));
    let lsp = open_yaml(&mut c, &flow);
    let first = lsp.iter().find(|d| code(d) == "AD903").unwrap();
    let (line, character) = find(&text, "copyTextFrom", 0);
    assert_eq!(
        first["range"]["start"],
        json!({ "line": line, "character": character })
    );
    assert_eq!(first["severity"], 1);
}

#[test]
fn yaml_that_is_not_routed_gets_nothing() {
    let root = project("unrouted");
    let refused = "- copyTextFrom: x\n- tapOn:\n    nope: 1\n";
    write(&root.join("e2e/flow.yaml"), refused);
    write(&root.join(".github/workflows/ci.yml"), refused);
    write(
        &root.join("docker-compose.yaml"),
        "services:\n  web:\n    image: x\n",
    );
    let mut c = server(&root, json!({ "maestro": { "paths": ["e2e/**/*.yaml"] } }));
    let routed = open_yaml(&mut c, &root.join("e2e/flow.yaml"));
    assert!(routed.iter().any(|d| code(d) == "AD903"), "{routed:#?}");
    assert!(routed.iter().any(|d| code(d) == "AD904"), "{routed:#?}");
    for other in [".github/workflows/ci.yml", "docker-compose.yaml"] {
        let path = root.join(other);
        assert_eq!(open_yaml(&mut c, &path), Vec::<Value>::new(), "{other}");
        let uri = uri_of(&path);
        assert_eq!(
            c.request("textDocument/hover", at(&uri, (0, 3))),
            Value::Null
        );
        assert_eq!(
            c.request("textDocument/formatting", json!({ "textDocument": { "uri": uri }, "options": { "tabSize": 2, "insertSpaces": true } })),
            Value::Null,
            "{other} is not formatted as a script"
        );
        assert_eq!(
            c.request(
                "textDocument/semanticTokens/full",
                json!({ "textDocument": { "uri": uri } })
            ),
            Value::Null
        );
    }
    // An unsaved YAML buffer has no path to route.
    c.notify(
        "textDocument/didOpen",
        json!({ "textDocument": { "uri": "untitled:Untitled-1", "languageId": "yaml", "version": 1, "text": refused } }),
    );
    assert_eq!(
        c.diagnostics("untitled:Untitled-1")["diagnostics"],
        json!([])
    );
    // Without any setting, no YAML is routed.
    let mut plain = server(&root, json!({}));
    assert_eq!(
        open_yaml(&mut plain, &root.join("e2e/flow.yaml")),
        Vec::<Value>::new()
    );
}

#[test]
fn hover_on_commands_and_definition_on_run_flow_and_run_script_paths() {
    let root = project("navigate");
    let text = "appId: com.example\n---\n- launchApp\n- tapOn: \"Log in\"\n- runFlow: sub/login.yaml\n- runFlow:\n    file: sub/login.yaml\n    env:\n      USER: a\n- runScript: scripts/seed.js\n- retry:\n    maxRetries: 2\n    commands:\n      - pressKey: enter\n";
    write(&root.join("e2e/main.yaml"), text);
    write(&root.join("e2e/sub/login.yaml"), "- back\n");
    write(&root.join("e2e/scripts/seed.js"), "output.user = 'a'\n");
    let mut c = server(&root, json!({ "maestro": { "paths": ["e2e/**/*.yaml"] } }));
    let flow = root.join("e2e/main.yaml");
    let uri = uri_of(&flow);
    assert_eq!(open_yaml(&mut c, &flow), Vec::<Value>::new());

    let hover = c.request("textDocument/hover", at(&uri, find(text, "tapOn", 2)));
    let value = hover["contents"]["value"].as_str().unwrap();
    assert!(value.starts_with("**tapOn**"), "{value}");
    assert!(
        value.contains("polling"),
        "what agent-device's engine does: {value}"
    );
    assert!(value.contains("`ad`:"), "what ad checks: {value}");
    let (line, character) = find(text, "tapOn", 0);
    assert_eq!(
        hover["range"],
        json!({ "start": { "line": line, "character": character }, "end": { "line": line, "character": character + 5 } })
    );
    let nested = c.request("textDocument/hover", at(&uri, find(text, "pressKey", 1)));
    assert!(nested["contents"]["value"]
        .as_str()
        .unwrap()
        .contains("back, enter, return and home"));
    // On a value, nothing.
    assert_eq!(
        c.request("textDocument/hover", at(&uri, find(text, "Log in", 1))),
        Value::Null
    );

    let target = |c: &mut Client, needle: &str, delta: usize| {
        c.request(
            "textDocument/definition",
            at(&uri, find(text, needle, delta)),
        )
    };
    let login = uri_of(&root.join("e2e/sub/login.yaml"));
    assert_eq!(target(&mut c, "sub/login.yaml", 3)["uri"], login);
    assert_eq!(target(&mut c, "file: sub/login.yaml", 10)["uri"], login);
    assert_eq!(
        target(&mut c, "scripts/seed.js", 0)["uri"],
        uri_of(&root.join("e2e/scripts/seed.js"))
    );
    assert_eq!(
        target(&mut c, "sub/login.yaml", 3)["range"]["start"],
        json!({ "line": 0, "character": 0 })
    );
    assert_eq!(target(&mut c, "launchApp", 1), Value::Null);
}

#[test]
fn ad_toml_maestro_paths_route_flows_and_the_client_setting_can_change() {
    let root = project("adtoml");
    write(
        &root.join("ad.toml"),
        "[maestro]\npaths = [\"flows/*.yaml\"]\n",
    );
    let refused = "- launchApp:\n    appId: a\n- copyTextFrom: x\n";
    write(&root.join("flows/a.yaml"), refused);
    write(&root.join("other/b.yaml"), refused);
    let mut c = server(&root, json!({}));
    let a = open_yaml(&mut c, &root.join("flows/a.yaml"));
    assert_eq!(a.iter().map(code).collect::<Vec<_>>(), ["AD903"]);
    assert_eq!(a[0]["range"]["start"], json!({ "line": 2, "character": 2 }));
    assert_eq!(
        open_yaml(&mut c, &root.join("other/b.yaml")),
        Vec::<Value>::new()
    );

    // Editing ad.toml routes again: b.yaml becomes a flow once saved.
    write(
        &root.join("ad.toml"),
        "[maestro]\npaths = [\"flows/*.yaml\", \"other/*.yaml\"]\n",
    );
    c.notify(
        "textDocument/didSave",
        json!({ "textDocument": { "uri": uri_of(&root.join("ad.toml")) } }),
    );
    let b = c.diagnostics(&uri_of(&root.join("other/b.yaml")));
    assert_eq!(b["diagnostics"][0]["code"], "AD903");

    // The client's setting adds a folder; ad.toml's still applies.
    write(&root.join("third/c.yaml"), refused);
    assert_eq!(
        open_yaml(&mut c, &root.join("third/c.yaml")),
        Vec::<Value>::new()
    );
    c.notify(
        "workspace/didChangeConfiguration",
        json!({ "settings": { "ad": { "maestro": { "paths": ["third/**"] } } } }),
    );
    let third = c.diagnostics(&uri_of(&root.join("third/c.yaml")));
    assert_eq!(third["diagnostics"][0]["code"], "AD903");
    let a = c.diagnostics(&uri_of(&root.join("flows/a.yaml")));
    assert_eq!(a["diagnostics"][0]["code"], "AD903");

    // A wrong type in ad.toml is reported, and routing falls back to the default (none).
    write(
        &root.join("ad.toml"),
        "[maestro]\npaths = \"flows/*.yaml\"\n",
    );
    let out = common::ad(&root)
        .args(["check", "--maestro"])
        .arg(root.join("flows/a.yaml"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("maestro.paths must be a list of globs"),
        "{stderr}"
    );
}
