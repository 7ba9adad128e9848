//! Syntax-tree snapshots and robustness of `ad_grammar::parse`.
//!
//! * `fixtures/valid/*.ad` and `fixtures/invalid/*.ad` (read as bytes, decoded lossily like the
//!   CLI does) are parsed and snapshotted: the source with byte offsets, the tree as JSON, and the
//!   diagnostics with their spans. `valid/` files may only have infos; `invalid/` ones must have
//!   at least one warning or error.
//! * A generated 2 MiB script must parse, with one node per line.
//! * 2000 pseudo-random byte strings must parse without panicking, with lines that tile the
//!   input exactly and every span in bounds and on a char boundary.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use ad_grammar::{parse, Diagnostic, LineKind, LineTerminator, Parse, Severity, Span};

fn fixture_dir(kind: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(kind)
}

fn fixtures(kind: &str) -> Vec<PathBuf> {
    let dir = fixture_dir(kind);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("cannot list {}: {e}", dir.display()))
        .map(|e| e.expect("a directory entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "ad"))
        .collect();
    files.sort();
    files
}

/// Reads a fixture the way `ad` does: bytes, then lossy UTF-8 (invalid bytes become U+FFFD).
fn read(path: &Path) -> String {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    String::from_utf8_lossy(&bytes).into_owned()
}

fn terminator_len(t: LineTerminator) -> usize {
    match t {
        LineTerminator::None => 0,
        LineTerminator::Lf => 1,
        LineTerminator::CrLf => 2,
    }
}

/// A span's text, escaped so control characters stay visible in snapshots.
fn excerpt(text: &str, span: Span) -> String {
    format!("{:?}", &text[span.range()])
}

fn severity(s: Severity) -> &'static str {
    s.as_str()
}

fn render_diagnostic(text: &str, d: &Diagnostic, out: &mut String) {
    let primary = d.primary_span();
    let _ = writeln!(
        out,
        "{} {} {}..{} {}: {}",
        d.code,
        severity(d.severity),
        primary.start(),
        primary.end(),
        excerpt(text, primary),
        d.message
    );
    for label in &d.labels {
        if !label.message.is_empty() {
            let _ = writeln!(
                out,
                "    {} {}..{}: {}",
                if label.primary { "label" } else { "note" },
                label.span.start(),
                label.span.end(),
                label.message
            );
        }
    }
    if let Some(r) = &d.rejection {
        let _ = writeln!(
            out,
            "    agent-device rejects ({:?}): {}",
            r.reader, r.message
        );
    }
}

/// The snapshot of one fixture: the source line by line with byte ranges, the diagnostics, then
/// the tree as JSON.
fn describe(text: &str, p: &Parse) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "== source ({} bytes)", text.len());
    for line in &p.file.lines {
        let _ = writeln!(
            out,
            "{:>3} {:>4}..{:<4} {:?}",
            line.index() + 1,
            line.span.start(),
            line.span.end(),
            &text[line.span.range()]
        );
    }
    let _ = writeln!(out, "== diagnostics ({})", p.diagnostics.len());
    for d in &p.diagnostics {
        render_diagnostic(text, d, &mut out);
    }
    let _ = writeln!(out, "== tree");
    out.push_str(&serde_json::to_string_pretty(&p.file).expect("the tree serializes"));
    out.push('\n');
    out
}

fn snapshot_fixtures(kind: &str) {
    let files = fixtures(kind);
    assert!(!files.is_empty(), "no fixtures in {kind}/");
    for path in files {
        let text = read(&path);
        let p = parse(&text);
        check_invariants(&text, &p).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let worst = p.diagnostics.iter().map(|d| d.severity).max();
        let name = path.file_stem().unwrap().to_string_lossy().into_owned();
        match kind {
            "valid" => assert!(
                worst.is_none_or(|s| s == Severity::Info),
                "{name}: a valid fixture has only infos: {:#?}",
                p.diagnostics
            ),
            _ => assert!(
                worst.is_some_and(|s| s >= Severity::Warning),
                "{name}: an invalid fixture reports a warning or an error"
            ),
        }
        insta::assert_snapshot!(format!("{kind}-{name}"), describe(&text, &p));
    }
}

#[test]
fn valid_trees() {
    snapshot_fixtures("valid");
}

#[test]
fn invalid_trees() {
    snapshot_fixtures("invalid");
}

/// Spot checks of facts the snapshots encode, so a regression fails with a readable message.
#[test]
fn fixture_facts() {
    let bom = parse(&read(&fixture_dir("valid").join("bom.ad")));
    assert_eq!(
        bom.file.lines[0].content.start(),
        3,
        "the BOM is trimmed away"
    );
    assert!(matches!(bom.file.lines[0].kind, LineKind::Context(_)));
    assert_eq!(bom.metadata.platform.as_ref().unwrap().value, "ios");

    let crlf = parse(&read(&fixture_dir("valid").join("crlf.ad")));
    let terms: Vec<LineTerminator> = crlf.file.lines.iter().map(|l| l.terminator).collect();
    assert_eq!(terms.len(), 6);
    assert!(terms[..5].iter().all(|t| *t == LineTerminator::CrLf));
    assert_eq!(terms[5], LineTerminator::None, "no newline at the end");

    let empty = parse("");
    assert_eq!(empty.file.lines.len(), 1, "an empty file is one blank line");
    assert!(matches!(empty.file.lines[0].kind, LineKind::Blank));
    assert!(empty.diagnostics.is_empty());

    // A lone CR does not end a line: the comment swallows the context and open lines.
    let cr_text = read(&fixture_dir("invalid").join("lone-cr.ad"));
    let cr = parse(&cr_text);
    assert_eq!(cr.file.lines.len(), 3);
    assert!(matches!(cr.file.lines[0].kind, LineKind::Comment(_)));
    assert!(cr.metadata.platform.is_none());

    // Invalid UTF-8 is replaced, NUL bytes are kept.
    let junk_text = read(&fixture_dir("invalid").join("binary-junk.ad"));
    assert!(junk_text.contains('\u{FFFD}') && junk_text.contains('\0'));
    let junk = parse(&junk_text);
    assert!(junk.diagnostics.iter().any(|d| d.code.id() == "AD002"));

    let ann = parse(&read(&fixture_dir("valid").join("annotations.ad")));
    let bound: Vec<(usize, Option<usize>)> = ann
        .file
        .lines
        .iter()
        .filter_map(|l| match &l.kind {
            LineKind::Annotation(a) => Some((l.index(), a.binds_to())),
            _ => None,
        })
        .collect();
    assert_eq!(
        bound,
        [(2, Some(3)), (4, Some(5)), (6, Some(7))],
        "target-v1, targets-v1 and target-v01 bind to the next line; target-v2 is a comment"
    );
}

// ---- invariants ---------------------------------------------------------------------------------

fn in_bounds(text: &str, span: Span, what: &str) -> Result<(), String> {
    if span.start() > span.end() || span.end() > text.len() {
        return Err(format!(
            "{what} {}..{} is out of bounds (len {})",
            span.start(),
            span.end(),
            text.len()
        ));
    }
    if !text.is_char_boundary(span.start()) || !text.is_char_boundary(span.end()) {
        return Err(format!(
            "{what} {}..{} is not on char boundaries",
            span.start(),
            span.end()
        ));
    }
    Ok(())
}

/// Every byte of the input belongs to exactly one line (its span or its terminator), lines are in
/// order, and every span (line, content, tokens, diagnostics, fixes) is in bounds and on a char
/// boundary.
fn check_invariants(text: &str, p: &Parse) -> Result<(), String> {
    let lines = &p.file.lines;
    if lines.is_empty() {
        return Err("no lines".into());
    }
    let mut at = 0;
    for (i, line) in lines.iter().enumerate() {
        if line.index() != i {
            return Err(format!("line {i} has index {}", line.index()));
        }
        if line.span.start() != at {
            return Err(format!(
                "line {i} starts at {} but the previous line ended at {at}",
                line.span.start()
            ));
        }
        in_bounds(text, line.span, "line span")?;
        let term = terminator_len(line.terminator);
        let after = &text[line.span.end()..];
        let ok = match line.terminator {
            LineTerminator::None => i + 1 == lines.len() && line.span.end() == text.len(),
            LineTerminator::Lf => after.starts_with('\n'),
            LineTerminator::CrLf => after.starts_with("\r\n"),
        };
        if !ok {
            return Err(format!(
                "line {i}: terminator {:?} does not match the text",
                line.terminator
            ));
        }
        if text[line.span.range()].contains('\n') {
            return Err(format!("line {i} contains a newline"));
        }
        in_bounds(text, line.content, "content")?;
        if line.content.start() < line.span.start() || line.content.end() > line.span.end() {
            return Err(format!("line {i}: content outside the line"));
        }
        let tokens = match &line.kind {
            LineKind::Action(a) => Some(p.file.read_action(line, a).tokens),
            LineKind::Context(c) => Some(&c.tokens[..]),
            _ => None,
        };
        let mut prev_end = line.content.start();
        for t in tokens.into_iter().flatten() {
            in_bounds(text, t.span(), "token")?;
            if t.span().start() < prev_end
                || t.span().end() > line.content.end()
                || t.span().is_empty()
            {
                return Err(format!(
                    "line {i}: token {}..{} overlaps, is empty or leaves the line",
                    t.span().start(),
                    t.span().end()
                ));
            }
            prev_end = t.span().end();
        }
        at = line.span.end() + term;
    }
    if at != text.len() {
        return Err(format!(
            "lines cover {at} bytes of {}: the tail is lost",
            text.len()
        ));
    }
    for d in &p.diagnostics {
        for l in &d.labels {
            in_bounds(text, l.span, d.code.id())?;
        }
        for e in d.fix.iter().flat_map(|f| &f.edits) {
            in_bounds(text, e.span, "fix edit")?;
        }
    }
    Ok(())
}

// ---- large input --------------------------------------------------------------------------------

/// About 2 MiB of a realistic script: a header, then recorder-style steps with annotations.
fn large_script() -> String {
    const STEPS: &[&str] = &[
        "# agent-device:target-v1 {\"id\":\"login.email\",\"role\":\"textfield\",\"label\":\"Email\",\"ancestry\":[{\"role\":\"scrollview\",\"label\":\"Sign in\"}],\"sibling\":1,\"viewportOrder\":0,\"verification\":\"verified\"}",
        "fill \"id=\\\"login.email\\\"\" \"ada@example.com\"",
        "press \"id=\\\"login.submit\\\"\"",
        "wait \"label=\\\"Home\\\"\" 5000",
        "",
        "# scroll the feed",
        "scroll down 0.5",
        "swipe 540 1600 540 400 --count 2",
        "type \"${GREETING} \\u00e9\\t!\"",
        "click @e12 \"Save\"",
    ];
    let mut text = String::from("context platform=ios target=mobile\nenv GREETING=hi\r\n");
    let mut i = 0;
    while text.len() < 2 * 1024 * 1024 {
        text.push_str(STEPS[i % STEPS.len()]);
        text.push_str(if i % 7 == 0 { "\r\n" } else { "\n" });
        i += 1;
    }
    text
}

#[test]
fn a_2_mib_script_parses_with_one_node_per_line() {
    let text = large_script();
    assert!(text.len() >= 2 * 1024 * 1024);
    let started = Instant::now();
    let p = parse(&text);
    let took = started.elapsed();
    assert!(
        took < Duration::from_secs(60),
        "parsing 2 MiB took {took:?}: something is quadratic"
    );
    let newlines = text.bytes().filter(|b| *b == b'\n').count();
    assert_eq!(
        p.file.lines.len(),
        newlines + 1,
        "one node per line (the last one empty)"
    );
    check_invariants(&text, &p).unwrap();
    let actions = p
        .file
        .lines
        .iter()
        .filter(|l| matches!(l.kind, LineKind::Action(_)))
        .count();
    let annotations = p
        .file
        .lines
        .iter()
        .filter(|l| matches!(l.kind, LineKind::Annotation(_)))
        .count();
    assert!(actions > 20_000, "{actions} actions");
    assert!(annotations > 3_000, "{annotations} annotations");
    assert!(
        p.diagnostics.is_empty(),
        "the generated script is clean: {:?}",
        p.diagnostics.first()
    );
}

// ---- random input -------------------------------------------------------------------------------

// The shared test RNG (SplitMix64).
use ad_tests::gen::Rng;

/// Fragments that exercise the grammar's corners; mixed with raw random bytes.
const PIECES: &[&[u8]] = &[
    b"\n",
    b"\r\n",
    b"\r",
    b" ",
    b"\t",
    b"\"",
    b"\\",
    b"\\u",
    b"\\uD800",
    b"#",
    b"# agent-device:target-v1 ",
    b"# agent-device:targets-v1 ",
    b"#agent-device:target-v2 {}",
    b"{\"role\":\"button\",\"verification\":\"verified\"}",
    b"{\"source\":{\"role\":\"a\",\"verification\":\"verified\"},\"destination\":{\"role\":\"b\",\"verification\":\"unverifiable\"}}",
    b"{",
    b"[",
    b"env ",
    b"env\t",
    b"KEY=",
    b"AD_X=",
    b"=",
    b"context ",
    b"platform=ios ",
    b"timeout=",
    b"retries=",
    b"click ",
    b"fill ",
    b"swipe 1 2 3 4 5",
    b"gesture drag ",
    b"id=\"x\"",
    b"${NAME}",
    b"${lower:-x}",
    b"@e12~s3",
    b"'",
    b"\xef\xbb\xbf",
    b"\xc2\xa0",
    b"\xe2\x80\xa8",
    b"\xe3\x80\x80",
    b"\x00",
    b"\xff",
    b"\xc3",
    b"\xf0\x9f\x98\x80",
    b"appId: x\n---\n- launchApp",
];

fn random_bytes(rng: &mut Rng) -> Vec<u8> {
    let len = rng.below(200);
    let mut out = Vec::with_capacity(len * 4);
    for _ in 0..len {
        if rng.below(3) == 0 {
            out.push(rng.next_u64() as u8);
        } else {
            out.extend_from_slice(PIECES[rng.below(PIECES.len())]);
        }
    }
    out
}

#[test]
fn random_bytes_never_panic_and_lines_tile_the_input() {
    let mut rng = Rng::new(0x00AD_5EED_2024);
    for case in 0..2000 {
        let bytes = random_bytes(&mut rng);
        let text = String::from_utf8_lossy(&bytes).into_owned();
        let result = std::panic::catch_unwind(|| parse(&text));
        let p = match result {
            Ok(p) => p,
            Err(_) => panic!("case {case}: parse panicked on {text:?}"),
        };
        if let Err(e) = check_invariants(&text, &p) {
            panic!("case {case}: {e}\ninput: {text:?}");
        }
    }
}
