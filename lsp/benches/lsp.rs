//! Language-server latency. `cargo bench -p ad-lsp --bench lsp`
//!
//! The server runs in-process on a memory connection (the transport is the only thing left
//! out), with the allocator the `ad` binary ships with. For a 5,000-line recorder-style script:
//!
//! 1. diagnostics after a one-character edit: `didChange` sent → `publishDiagnostics` for that
//!    version received (apply the edit, re-analyse, map every diagnostic);
//! 2. completion: request sent → response received, at a flag, a `${` and a command word.
//!
//! Prints the median and the 90th percentile of each.

use std::time::{Duration, Instant};

use ad_tests::lsp_client::Client;
use serde_json::json;

#[global_allocator]
static GLOBAL: ad_alloc::Mimalloc = ad_alloc::Mimalloc;

const URI: &str = "file:///bench/flows/long.ad";

/// A recorded-style script of exactly `lines` lines.
fn script(lines: usize) -> String {
    let mut out = vec![
        "context platform=ios target=mobile timeout=60000".to_string(),
        "env EMAIL=zoë@example.com".to_string(),
        "open \"com.example.shop\" --relaunch".to_string(),
    ];
    let mut i = 0;
    while out.len() < lines - 1 {
        i += 1;
        out.push(format!(
            "# agent-device:target-v1 {{\"id\":\"field.{i}\",\"role\":\"textfield\",\"label\":\"Champ {i} ✉️\",\"ancestry\":[{{\"role\":\"form\",\"label\":\"Profil\"}}],\"sibling\":{i},\"viewportOrder\":0,\"verification\":\"verified\"}}"
        ));
        out.push(format!("fill \"id=\\\"field.{i}\\\"\" \"${{EMAIL}}\""));
        out.push(format!(
            "click \"role=\\\"button\\\" label=\\\"Suivant {i} 😀\\\" || id=next-{i}\" --count 1"
        ));
        out.push(format!("wait \"id=\\\"screen.{i}\\\"\" 5000"));
        out.push("scroll down 0.5".to_string());
    }
    out.truncate(lines - 1);
    out.push("close".to_string());
    out.join("\n") + "\n"
}

/// The number of diagnostics published for `version` of the document.
fn diagnostics(c: &mut Client, version: i32) -> usize {
    let p = c.wait_notification("textDocument/publishDiagnostics", |p| {
        p["version"] == version
    });
    p["diagnostics"].as_array().map_or(0, Vec::len)
}

fn stats(mut v: Vec<Duration>) -> (Duration, Duration) {
    v.sort();
    (v[v.len() / 2], v[v.len() * 9 / 10])
}

fn ms(d: Duration) -> String {
    format!("{:.2} ms", d.as_secs_f64() * 1e3)
}

fn main() {
    let lines = 5_000;
    let text = script(lines);
    assert_eq!(text.lines().count(), lines);

    // The shared in-process test client (ad-tests), with an editor that declares nothing.
    let mut c = Client::with_capabilities(json!({}));
    c.notify(
        "textDocument/didOpen",
        json!({ "textDocument": { "uri": URI, "languageId": "ad", "version": 1, "text": text } }),
    );
    let n = diagnostics(&mut c, 1);

    // 1. One-character edits in the middle of the script: type a letter into a label, delete it.
    let line = (lines / 2) as u32;
    let line_text = text.lines().nth(line as usize).unwrap();
    let col = line_text.encode_utf16().count().min(12) as u32;
    let mut times = Vec::new();
    let mut version = 1;
    for k in 0..60 {
        version += 1;
        let change = if k % 2 == 0 {
            json!({ "range": { "start": { "line": line, "character": col }, "end": { "line": line, "character": col } }, "text": "x" })
        } else {
            json!({ "range": { "start": { "line": line, "character": col }, "end": { "line": line, "character": col + 1 } }, "text": "" })
        };
        let start = Instant::now();
        c.notify(
            "textDocument/didChange",
            json!({ "textDocument": { "uri": URI, "version": version }, "contentChanges": [change] }),
        );
        diagnostics(&mut c, version);
        times.push(start.elapsed());
    }
    let (median, p90) = stats(times[10..].to_vec());
    println!(
        "diagnostics after a one-character edit, {lines} lines ({} KiB, {n} diagnostics): median {}, p90 {}",
        text.len() / 1024,
        ms(median),
        ms(p90)
    );

    // 2. Completion at a flag, inside `${`, and on a command word.
    let find = |needle: &str, from_line: usize| -> (u32, u32) {
        for (i, l) in text.lines().enumerate().skip(from_line) {
            if let Some(at) = l.find(needle) {
                return (i as u32, l[..at].encode_utf16().count() as u32);
            }
        }
        panic!("{needle}");
    };
    let spots = [
        ("--count", 2u32, "flag"),
        ("${EMAIL}", 2, "variable"),
        ("scroll", 2, "command"),
    ];
    for (needle, delta, what) in spots {
        let (l, ch) = find(needle, lines / 2);
        let mut times = Vec::new();
        let mut count = 0;
        for _ in 0..200 {
            let start = Instant::now();
            let r = c.request(
                "textDocument/completion",
                json!({ "textDocument": { "uri": URI }, "position": { "line": l, "character": ch + delta } }),
            );
            times.push(start.elapsed());
            count = r["items"].as_array().map_or(0, Vec::len);
        }
        let (median, p90) = stats(times[20..].to_vec());
        println!(
            "completion ({what}, {count} items), {lines} lines: median {}, p90 {}",
            ms(median),
            ms(p90)
        );
    }

    // For reference: the analysis alone (what `ad check` does for this file).
    let mut times = Vec::new();
    for _ in 0..30 {
        let start = Instant::now();
        let a = ad_compiler::analyze(&text);
        times.push(start.elapsed());
        std::hint::black_box(a);
    }
    let (median, _) = stats(times);
    println!(
        "for reference, ad_compiler::analyze alone: median {}",
        ms(median)
    );

    assert_eq!(c.shutdown(), 0);
}
