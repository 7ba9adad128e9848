//! Fuzz targets for every entry point that takes untrusted input, on stable Rust: a
//! structure-aware mutator over a checked-in seed corpus (`tests/fuzz/seeds/`, plus the
//! repository's fixtures and examples), and one invariant checker per target:
//!
//! * `parser`: parsing never panics, every span lies on character boundaries inside the text,
//!   and the lines cover the text;
//! * `formatter`: `ad fmt` never panics, is idempotent, and never changes what a script accepted
//!   by agent-device means (our model of it: metadata, actions, lines, plan digest);
//! * `check`: `ad check` with every fix applied never panics, every edit lies on character
//!   boundaries, and a script agent-device accepts stays accepted with every annotation still
//!   bound;
//! * `lsp`: the language server, in process, answers every request about a fuzzed document
//!   (opened, edited with random and out-of-range edits, queried at random positions, sent
//!   malformed parameters) and exits 0 after `shutdown` + `exit`;
//! * `framing`: the stdio transport, fed fuzzed bytes around valid frames, never stops reading and
//!   still delivers the valid frames after the junk.
//!
//! A target reports a violated invariant by panicking; [`run`] catches it and returns the input.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::gen::Rng;

/// The fuzz targets, by name.
pub const TARGETS: &[&str] = &["parser", "formatter", "check", "lsp", "framing"];

/// The seed corpus: the checked-in seeds, then every fixture and example script.
pub fn seeds() -> Vec<Vec<u8>> {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut files = Vec::new();
    for dir in [
        "tests/fuzz/seeds",
        "tests/fixtures/check",
        "tests/fixtures/fmt",
        "examples",
        "examples/divergent",
    ] {
        let Ok(entries) = std::fs::read_dir(repo.join(dir)) else {
            continue;
        };
        let mut found: Vec<PathBuf> = entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.is_file())
            .collect();
        found.sort();
        files.extend(found);
    }
    let seeds: Vec<Vec<u8>> = files.iter().filter_map(|p| std::fs::read(p).ok()).collect();
    assert!(
        seeds.len() >= 20,
        "the fuzz seed corpus is missing: expected tests/fuzz/seeds and the fixtures"
    );
    seeds
}

/// Words that steer mutations into the grammar's corners.
const DICTIONARY: &[&str] = &[
    "\"",
    "\\",
    "\\\"",
    "\\u00e9",
    "\\ud800",
    "${",
    "}",
    "${A}",
    "${A:-x}",
    "\\${",
    "#",
    " # ",
    "@e1",
    "@e12~s3",
    "||",
    "=",
    "id=",
    "label=\"x\"",
    "role=button",
    "\n",
    "\r",
    "\r\n",
    "\t",
    "\0",
    "\u{2028}",
    "\u{feff}",
    "é",
    "🃏",
    " ",
    "--",
    "--count",
    "--relaunch",
    "-i",
    "context ",
    "env ",
    "platform=ios",
    "target=mobile",
    "timeout=5000",
    "retries=2",
    "KEY=value",
    "# agent-device:target-v1 ",
    "# agent-device:targets-v1 ",
    "{\"id\":\"a\",\"role\":\"button\",\"label\":\"A\",\"verification\":\"verified\"}",
    "{",
    "[",
    "open ",
    "close",
    "click ",
    "fill ",
    "wait ",
    "is ",
    "gesture drag ",
    "swipe ",
    "scroll down ",
    "snapshot",
    "find label ",
    "press ",
    "type ",
    "back",
    "replay ",
    "---",
    "- tapOn: ",
    "appId: ",
    "100",
    "-1",
    "1e309",
    "0x10",
    "NaN",
];

/// One mutation of `input`, using `others` for splices.
pub fn mutate(rng: &mut Rng, input: &[u8], others: &[Vec<u8>]) -> Vec<u8> {
    let mut out = input.to_vec();
    for _ in 0..rng.range(1, 4) {
        let at = if out.is_empty() {
            0
        } else {
            rng.below(out.len() + 1)
        };
        match rng.below(9) {
            0 => {
                let word = rng.pick(DICTIONARY).as_bytes();
                out.splice(at..at, word.iter().copied());
            }
            1 if !out.is_empty() => {
                let end = (at + rng.range(1, 16)).min(out.len());
                out.drain(at.min(end)..end);
            }
            2 => out.insert(at, rng.next_u64() as u8),
            3 if !out.is_empty() => {
                // Duplicate a run (a line, often).
                let start = rng.below(out.len());
                let end = (start + rng.range(1, 80)).min(out.len());
                let run: Vec<u8> = out[start..end].to_vec();
                out.splice(at..at, run);
            }
            4 if !others.is_empty() => {
                // Splice a line from another seed.
                let other = rng.pick(others);
                let lines: Vec<&[u8]> = other.split(|b| *b == b'\n').collect();
                let line = rng.pick(&lines);
                let mut piece = line.to_vec();
                piece.push(b'\n');
                let at = line_start(&out, at);
                out.splice(at..at, piece);
            }
            5 if !out.is_empty() => {
                // Swap two lines.
                let mut lines: Vec<Vec<u8>> =
                    out.split(|b| *b == b'\n').map(<[u8]>::to_vec).collect();
                let (a, b) = (rng.below(lines.len()), rng.below(lines.len()));
                lines.swap(a, b);
                out = lines.join(&b'\n');
            }
            6 if !out.is_empty() => {
                // Flip an ASCII byte into a quote, space or backslash.
                let i = rng.below(out.len());
                out[i] = *rng.pick(b"\" \\${=#");
            }
            7 => {
                // A long run: long lines and many placeholders, without blowing up the test.
                let word = rng.pick(DICTIONARY).as_bytes();
                let n = rng.range(2, 200);
                let run: Vec<u8> = word.iter().copied().cycle().take(word.len() * n).collect();
                out.splice(at..at, run);
            }
            _ => {
                if !out.is_empty() {
                    let end = rng.below(out.len() + 1);
                    out.truncate(end.max(1));
                }
            }
        }
    }
    out.truncate(256 * 1024);
    out
}

fn line_start(bytes: &[u8], at: usize) -> usize {
    bytes[..at.min(bytes.len())]
        .iter()
        .rposition(|b| *b == b'\n')
        .map_or(0, |i| i + 1)
}

/// The result of a fuzzing run.
#[derive(Debug, Default)]
pub struct Report {
    pub target: String,
    pub executions: u64,
    /// The first failing input and the failure message.
    pub failure: Option<(Vec<u8>, String)>,
}

/// Runs `target` on mutated seeds for at most `iterations` inputs and at most `budget` time
/// (whichever ends first), starting from `seed`.
pub fn run(target: &str, seed: u64, iterations: u64, budget: Duration) -> Report {
    let seeds = seeds();
    let mut rng = Rng::new(seed ^ fnv(target));
    let started = Instant::now();
    let mut report = Report {
        target: target.to_string(),
        ..Report::default()
    };
    // Quiet panics: a failure is reported with its input, not as a backtrace per attempt.
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let trace = std::env::var_os("AD_FUZZ_TRACE").is_some();
    // Every seed as is first, then mutations.
    let mut index = 0u64;
    while index < iterations && started.elapsed() < budget {
        let input = match seeds.get(index as usize) {
            Some(s) => s.clone(),
            None => {
                let base = rng.pick(&seeds).clone();
                mutate(&mut rng, &base, &seeds)
            }
        };
        index += 1;
        if trace {
            // A crash that is not a panic (a stack overflow aborts) leaves its input behind.
            let _ = std::fs::write(
                crate::target_dir().join(format!("fuzz-current-{target}.ad")),
                &input,
            );
        }
        let outcome = catch_unwind(AssertUnwindSafe(|| run_one(target, &input)));
        report.executions += 1;
        if let Err(panic) = outcome {
            let message = panic
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_else(|| "panic".into());
            report.failure = Some((input, message));
            break;
        }
    }
    std::panic::set_hook(hook);
    report
}

fn fnv(s: &str) -> u64 {
    s.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ b as u64).wrapping_mul(0x100_0000_01b3)
    })
}

/// Runs one target on one input; panics when an invariant does not hold.
pub fn run_one(target: &str, input: &[u8]) {
    match target {
        "parser" => parser(input),
        "formatter" => formatter(input),
        "check" => check(input),
        "lsp" => lsp(input),
        "framing" => framing(input),
        other => panic!(
            "unknown fuzz target {other} (known: {})",
            TARGETS.join(", ")
        ),
    }
}

/// The text a tool sees for these bytes: scripts are read as UTF-8 (lossily where the tool
/// does; a tool that refuses non-UTF-8 never gets this far).
fn text_of(input: &[u8]) -> String {
    String::from_utf8_lossy(input).into_owned()
}

fn parser(input: &[u8]) {
    let text = text_of(input);
    let parse = ad_grammar::parse(&text);
    let mut covered = 0;
    for line in &parse.file.lines {
        for span in [line.span, line.content] {
            assert!(
                span.start() <= span.end() && span.end() <= text.len(),
                "span {span:?} outside the text"
            );
            assert!(
                text.is_char_boundary(span.start()) && text.is_char_boundary(span.end()),
                "span {span:?} splits a character"
            );
        }
        assert!(
            line.span.start() >= covered,
            "lines overlap or go backwards"
        );
        covered = line.span.end();
    }
    for d in &parse.diagnostics {
        for l in &d.labels {
            assert!(
                l.span.end() <= text.len()
                    && text.is_char_boundary(l.span.start())
                    && text.is_char_boundary(l.span.end())
            );
        }
    }
}

fn formatter(input: &[u8]) {
    let text = text_of(input);
    let before = crate::ours(&text);
    let f = ad_compiler::format::format(&text);
    let after = crate::ours(&f.output);
    if before["ok"] == serde_json::Value::Bool(true) {
        if let Err(e) = crate::compare_exact(
            &crate::normalize(after.clone()),
            &crate::normalize(before.clone()),
        ) {
            panic!("fmt changed the meaning: {e}\n--- output\n{}", f.output);
        }
    } else {
        assert!(
            after["ok"] != serde_json::Value::Bool(true),
            "fmt made a rejected script accepted"
        );
    }
    let twice = ad_compiler::format::format(&f.output).output;
    assert_eq!(twice, f.output, "fmt is not idempotent");
}

fn check(input: &[u8]) {
    let text = text_of(input);
    let analysis = ad_compiler::analyze(&text);
    for d in &analysis.diagnostics {
        if let Some(fix) = &d.fix {
            for e in &fix.edits {
                assert!(
                    e.span.end() <= text.len()
                        && text.is_char_boundary(e.span.start())
                        && text.is_char_boundary(e.span.end()),
                    "{}: fix edit {:?} outside the text or inside a character",
                    d.code,
                    e.span
                );
            }
        }
    }
    let (fixed, _) = ad_compiler::apply_fixes(&text, &analysis.diagnostics);
    let after = ad_compiler::analyze(&fixed);
    if analysis.accepted_by_agent_device() {
        assert!(
            after.accepted_by_agent_device(),
            "the fixes made agent-device reject the script:\n{fixed}"
        );
        let evidence = |a: &ad_compiler::Analysis| {
            a.steps()
                .iter()
                .filter(|s| s.target_evidence.is_some() || s.target_evidences().is_some())
                .count()
        };
        assert!(
            evidence(&after) >= evidence(&analysis),
            "a fix unbound an annotation:\n{fixed}"
        );
    }
    // Fixing again never panics either.
    let _ = ad_compiler::apply_fixes(&fixed, &after.diagnostics);
}

fn lsp(input: &[u8]) {
    use lsp_server::{Connection, Message, Notification, Request, RequestId};
    use serde_json::json;

    let text = text_of(input);
    let mut rng = Rng::new(fnv(&text));
    let (server, client) = Connection::memory();
    let handle = std::thread::spawn(move || ad_lsp::run(server));
    let uri = "file:///nonexistent-ad-fuzz/doc.ad";
    let mut next = 0;
    let mut send_request = |method: &str, params: serde_json::Value| {
        next += 1;
        client
            .sender
            .send(Message::Request(Request::new(
                RequestId::from(next),
                method.into(),
                params,
            )))
            .expect("the server is listening");
        next
    };
    let notify = |method: &str, params: serde_json::Value| {
        client
            .sender
            .send(Message::Notification(Notification::new(
                method.into(),
                params,
            )))
            .expect("the server is listening");
    };
    let init = send_request("initialize", json!({"capabilities": {}}));
    notify("initialized", json!({}));
    notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": uri, "languageId": "ad", "version": 1, "text": text}}),
    );
    let lines = text.split('\n').count() as u32;
    let mut expected = vec![init];
    let mut version = 1;
    let methods = [
        "textDocument/hover",
        "textDocument/completion",
        "textDocument/definition",
        "textDocument/references",
        "textDocument/documentHighlight",
        "textDocument/prepareRename",
        "textDocument/rename",
        "textDocument/signatureHelp",
        "textDocument/documentSymbol",
        "textDocument/foldingRange",
        "textDocument/semanticTokens/full",
        "textDocument/semanticTokens/range",
        "textDocument/formatting",
        "textDocument/rangeFormatting",
        "textDocument/codeAction",
    ];
    for _ in 0..12 {
        let line = rng.below(lines as usize + 2) as u32;
        let character = rng.below(120) as u32;
        let position = json!({"line": line, "character": character});
        let range = json!({"start": position, "end": {"line": line + rng.below(3) as u32, "character": rng.below(50)}});
        match rng.below(4) {
            0 => {
                version += 1;
                let insert = *rng.pick(DICTIONARY);
                notify(
                    "textDocument/didChange",
                    json!({"textDocument": {"uri": uri, "version": version},
                           "contentChanges": [{"range": range, "text": insert}]}),
                );
            }
            1 => {
                // Malformed parameters: the server answers with an error, and goes on.
                let method = *rng.pick(&methods);
                expected.push(send_request(
                    method,
                    json!({"textDocument": 5, "position": "x"}),
                ));
            }
            _ => {
                let method = *rng.pick(&methods);
                expected.push(send_request(
                    method,
                    json!({
                        "textDocument": {"uri": uri},
                        "position": position,
                        "range": range,
                        "newName": "NEW_NAME",
                        "context": {"includeDeclaration": true, "diagnostics": []},
                        "options": {"tabSize": 2, "insertSpaces": true},
                    }),
                ));
            }
        }
    }
    let shutdown = send_request("shutdown", serde_json::Value::Null);
    expected.push(shutdown);
    let deadline = Instant::now() + Duration::from_secs(30);
    let mut answered = std::collections::BTreeSet::new();
    while answered.len() < expected.len() {
        let left = deadline.saturating_duration_since(Instant::now());
        match client.receiver.recv_timeout(left) {
            Ok(Message::Response(r)) => {
                answered.insert(format!("{:?}", r.id));
            }
            Ok(_) => {}
            Err(_) => panic!(
                "the server stopped answering: {} of {} requests answered",
                answered.len(),
                expected.len()
            ),
        }
    }
    notify("exit", serde_json::Value::Null);
    let code = handle.join().expect("the server thread does not panic");
    assert_eq!(code, 0, "exit after shutdown");
}

fn framing(input: &[u8]) {
    use std::io::Cursor;
    // Fuzzed bytes, then one valid frame: the transport must deliver the valid frame.
    let valid = br#"{"jsonrpc":"2.0","id":777,"method":"shutdown"}"#;
    let mut stream = input.to_vec();
    stream.extend_from_slice(b"\r\n\r\n");
    stream.extend_from_slice(format!("Content-Length: {}\r\n\r\n", valid.len()).as_bytes());
    stream.extend_from_slice(valid);
    let (messages, inbox) = crossbeam_channel::unbounded();
    let (errors, _error_inbox) = crossbeam_channel::unbounded();
    ad_lsp::transport::read_loop(
        std::io::BufReader::new(Cursor::new(stream)),
        messages,
        errors,
    );
    assert!(
        inbox
            .try_iter()
            .any(|m| matches!(m, lsp_server::Message::Request(r) if r.id == 777.into())),
        "the valid frame after the junk was lost"
    );
}

/// Writes a failing input to `target/fuzz-failures/<target>-<seed>.ad` and returns the path.
pub fn save_failure(target: &str, seed: u64, input: &[u8]) -> PathBuf {
    let dir = crate::target_dir().join("fuzz-failures");
    let _ = std::fs::create_dir_all(&dir);
    let path = dir.join(format!("{target}-{seed:x}.ad"));
    let _ = std::fs::write(&path, input);
    path
}
