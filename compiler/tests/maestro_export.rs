//! `ad export --maestro` against agent-device 0.21.5's own `replay export`
//! (`oracle/maestro-export.mjs`): on every file of every data set, the same verdict, the same
//! YAML bytes, the same warnings (line, action, message) and the same refusal (every unsupported
//! line, and the message that lists them). Data sets: the export fixtures
//! (`tests/fixtures/export/`), the conformance scripts and check fixtures, the parity
//! generator's scripts, and scripts generated here from what the exporter maps (selectors,
//! flags, and strings that stress the YAML writer's quoting and line folding).

use std::path::{Path, PathBuf};
use std::process::Command;

use ad_compiler::export::maestro::{
    export, reader_refusal_message, reader_refusals, ExportError, ExportNote,
};
use ad_tests::gen::{script, Rng, DEFAULT_SEED};
use ad_tests::{read_script, repo_dir, scratch_dir};
use serde_json::{json, Value};

/// The exportable scripts' seed: any case regenerates alone from (seed, index).
const EXPORT_SEED: u64 = 0x6578_706f;
const GENERATED_EXPORTABLE: usize = 1000;
const GENERATED_PARITY: usize = 1000;

fn fixtures_dir() -> PathBuf {
    repo_dir().join("tests/fixtures/export")
}

fn ad_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("cannot list {}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "ad"))
        .collect();
    files.sort();
    files
}

/// agent-device's answer for each file, in order.
fn oracle(files: &[PathBuf]) -> Vec<Value> {
    // Panics with the install hint when agent-device is missing.
    let script = ad_tests::oracle_script().with_file_name("maestro-export.mjs");
    let mut out = Vec::new();
    for batch in files.chunks(ad_tests::ORACLE_BATCH) {
        let run = Command::new("node")
            .arg(&script)
            .args(batch)
            .output()
            .unwrap_or_else(|e| panic!("cannot run node ({e}): {}", ad_tests::ORACLE_MISSING));
        assert!(
            run.status.code().is_some_and(|c| c <= 1),
            "{} failed: {}",
            script.display(),
            String::from_utf8_lossy(&run.stderr)
        );
        let text = ad_tests::replace_lone_surrogates(std::str::from_utf8(&run.stdout).unwrap())
            .into_owned();
        let v: Vec<Value> = serde_json::from_str(&text).expect("the oracle prints JSON");
        out.extend(v);
    }
    assert_eq!(out.len(), files.len());
    out
}

fn notes(n: &[ExportNote]) -> Value {
    serde_json::to_value(n).unwrap()
}

/// Our answer in the oracle's shape (minus what only agent-device's reader words: a script its
/// reader refuses is compared by verdict).
fn ours(text: &str) -> Value {
    let analysis = ad_compiler::read(text);
    if reader_refusals(&analysis).next().is_some() {
        let message = reader_refusal_message(&analysis);
        return json!({ "ok": false, "refusedByReader": true, "message": message });
    }
    match export(&analysis) {
        Ok(e) => json!({ "ok": true, "yaml": e.yaml, "warnings": notes(&e.warnings) }),
        Err(ExportError::Failed { message, .. }) => json!({ "ok": false, "failed": message }),
        Err(ExportError::Unsupported(u)) => json!({
            "ok": false,
            "error": { "code": "INVALID_ARGS", "message": u.message(), "unsupported": notes(&u.0) },
        }),
    }
}

fn theirs(v: &Value) -> Value {
    if v["ok"] == true {
        return json!({ "ok": true, "yaml": v["yaml"], "warnings": v["warnings"] });
    }
    if v["error"]["code"] == "UNKNOWN" {
        // A JavaScript error of the exporter itself.
        return json!({ "ok": false, "failed": v["error"]["message"] });
    }
    if v["error"].get("unsupported").is_none() {
        return json!({ "ok": false, "refusedByReader": true, "message": v["error"]["message"] });
    }
    json!({ "ok": false, "error": v["error"] })
}

#[derive(Default)]
struct Tally {
    files: usize,
    identical: usize,
    exported: usize,
    refused_steps: usize,
    refused_reader: usize,
    warnings: usize,
    failed: usize,
}

fn compare(name: &str, files: &[PathBuf]) -> Tally {
    let answers = oracle(files);
    let mut tally = Tally::default();
    let mut failures = Vec::new();
    for (file, answer) in files.iter().zip(&answers) {
        let text = read_script(file);
        let (a, b) = (ours(&text), theirs(answer));
        tally.files += 1;
        if a == b {
            tally.identical += 1;
        } else {
            failures.push(format!("{}:\n  ours:   {a}\n  theirs: {b}", file.display()));
        }
        match (&b["ok"], b.get("refusedByReader")) {
            (Value::Bool(true), _) => {
                tally.exported += 1;
                tally.warnings += b["warnings"].as_array().map_or(0, Vec::len);
            }
            (_, Some(_)) => tally.refused_reader += 1,
            _ if b.get("failed").is_some() => tally.failed += 1,
            _ => tally.refused_steps += 1,
        }
    }
    eprintln!(
        "{name}: {} files, {} identical ({} exported with {} warnings, {} refused for unsupported steps, {} refused by the reader, {} failing in the exporter)",
        tally.files,
        tally.identical,
        tally.exported,
        tally.warnings,
        tally.refused_steps,
        tally.refused_reader,
        tally.failed
    );
    assert!(
        failures.is_empty(),
        "{name}: {} of {} files differ from agent-device's replay export:\n{}",
        failures.len(),
        files.len(),
        failures.join("\n")
    );
    tally
}

fn write_all(dir: &Path, texts: impl Iterator<Item = String>) -> Vec<PathBuf> {
    texts
        .enumerate()
        .map(|(i, t)| {
            let p = dir.join(format!("{i:04}.ad"));
            std::fs::write(&p, t).unwrap();
            p
        })
        .collect()
}

#[test]
fn fixtures_export_as_agent_device_does() {
    let files = ad_files(&fixtures_dir());
    assert!(files.len() >= 15, "the export fixtures are missing");
    let t = compare("export fixtures", &files);
    // The fixtures cover both outcomes and warnings.
    assert!(t.exported >= 8 && t.refused_steps >= 3 && t.refused_reader >= 1 && t.warnings >= 10);
    assert_eq!(t.failed, 1, "object-proto-word.ad makes the exporter throw");
}

#[test]
fn conformance_and_check_fixtures_export_as_agent_device_does() {
    let mut files = ad_tests::conformance().scripts();
    files.extend(ad_tests::check_fixtures().scripts());
    compare("conformance + check fixtures", &files);
}

#[test]
fn public_corpus_exports_as_agent_device_does() {
    // The optional shared corpus (`ad_tests::corpus`); its absence is said once, or fails when
    // AD_REQUIRE_SHARED=1.
    let Some(corpus) = ad_tests::corpus() else {
        eprintln!("public corpus: not present (shared/corpus), skipped");
        return;
    };
    compare("public corpus", &corpus.scripts());
}

#[test]
fn parity_generator_scripts_export_as_agent_device_does() {
    let dir = scratch_dir("export-parity");
    let files = write_all(
        &dir,
        (0..GENERATED_PARITY as u64).map(|i| script(DEFAULT_SEED, i)),
    );
    compare("parity generator", &files);
}

#[test]
fn generated_exportable_scripts_export_as_agent_device_does() {
    let dir = scratch_dir("export-generated");
    let files = write_all(
        &dir,
        (0..GENERATED_EXPORTABLE).map(|i| exportable(EXPORT_SEED, i)),
    );
    let t = compare("generated exportable", &files);
    assert!(
        t.exported * 2 >= t.files,
        "most generated scripts should export"
    );
}

#[test]
fn snapshots_of_exported_fixtures() {
    for name in [
        "selectors",
        "tap-flags",
        "wait-find",
        "yaml-quoting",
        "env-header",
    ] {
        let text = read_script(&fixtures_dir().join(format!("{name}.ad")));
        let e = export(&ad_compiler::read(&text)).expect("the fixture exports");
        let warnings: Vec<String> = e
            .warnings
            .iter()
            .map(|w| format!("Warning: line {}: {}", w.line, w.message))
            .collect();
        insta::assert_snapshot!(
            format!("export_{}", name.replace('-', "_")),
            format!("{}\n--- stderr\n{}", e.yaml, warnings.join("\n"))
        );
    }
}

#[test]
fn snapshots_of_refused_fixtures() {
    for name in [
        "refuse-refs",
        "refuse-many",
        "refuse-open",
        "reader-rejects",
        "object-proto-word",
    ] {
        let text = read_script(&fixtures_dir().join(format!("{name}.ad")));
        let analysis = ad_compiler::read(&text);
        let shown = if let Some(message) = reader_refusal_message(&analysis) {
            format!("refused by the reader: {message}")
        } else {
            match export(&analysis) {
                Ok(e) => panic!("{name} exports:\n{}", e.yaml),
                Err(ExportError::Failed { line, message }) => {
                    format!("the exporter fails at line {line}: {message}")
                }
                Err(ExportError::Unsupported(u)) => {
                    let lines: Vec<String> =
                        u.0.iter()
                            .map(|n| format!("line {} ({}): {}", n.line, n.action, n.message))
                            .collect();
                    format!("{}\n\n{}", u.message(), lines.join("\n"))
                }
            }
        };
        insta::assert_snapshot!(format!("refused_{}", name.replace('-', "_")), shown);
    }
}

// --- exportable scripts ---------------------------------------------------------------------

/// Text that stresses the YAML writer: quoting, numbers and keywords, indicators, long lines
/// (folding), newlines (block scalars), control characters, non-ASCII.
fn text(rng: &mut Rng) -> String {
    const POOL: &[&str] = &[
        "Login",
        "Sign in",
        "hello world",
        "true",
        "False",
        "null",
        "~",
        "123",
        "-4.5",
        "0x1F",
        "0o17",
        "1e3",
        ".inf",
        ".NaN",
        "- item",
        "? what",
        "key: value",
        "a:b",
        "#tag",
        "a #b",
        "trailing ",
        " leading",
        "it's",
        "say \"hi\"",
        "\"both\" it's",
        "%percent",
        "---",
        "...more",
        "@at",
        "`tick`",
        "[list]",
        "{map}",
        "a, b",
        "line one\nline two",
        "ends with newline\n",
        "two\n\nparagraphs",
        "  indented\nnext",
        "tab\there",
        "bell\u{7}",
        "nul\u{0}",
        "esc\u{1b}[0m",
        "caf\u{e9} \u{1f600}",
        "\u{85}next",
        "wide \u{4e2d}\u{6587} text",
    ];
    match rng.below(5) {
        0 => {
            // A long sentence, sometimes with a long unbreakable word or a newline inside.
            let words = [
                "the", "quick", "brown", "fox", "jumps", "over", "lazy", "dog", "and", "keeps",
                "running", "far", "beyond", "the", "eighty", "column", "limit",
            ];
            let n = rng.range(10, 40);
            // A prefix that makes the writer quote the text, so quoted strings fold too.
            let mut s = rng
                .pick(&["", "", " ", "- ", "\u{1}", "'", "\"", "@"])
                .to_string();
            for i in 0..n {
                if i > 0 {
                    s.push(if rng.chance(5) { '\n' } else { ' ' });
                }
                if rng.chance(4) {
                    s.push_str(&"x".repeat(rng.range(20, 90)));
                } else {
                    let word: &str = rng.pick::<&str>(&words);
                    s.push_str(word);
                }
                if rng.chance(8) {
                    let mark: &str = rng.pick::<&str>(&[":", "\"", "'", "\\", " #"]);
                    s.push_str(mark);
                }
            }
            s
        }
        1 => format!("{} {}", rng.pick(POOL), rng.pick(POOL)),
        _ => rng.pick(POOL).to_string(),
    }
}

fn quoted(s: &str) -> String {
    serde_json::to_string(s).unwrap()
}

fn selector(rng: &mut Rng) -> String {
    let value = |rng: &mut Rng| {
        let t = text(rng).replace('\n', " ");
        if rng.chance(50) && !t.contains([' ', '"', '=', '|']) && !t.is_empty() {
            t
        } else {
            quoted(&t)
        }
    };
    match rng.below(9) {
        0 => quoted(&text(rng)),
        1 => format!("id={}", value(rng)),
        2 => format!("text={}", value(rng)),
        3 => format!("label={}", value(rng)),
        4 => format!(
            "id={} {}",
            value(rng),
            rng.pick(&["enabled", "selected=false", "enabled=true"])
        ),
        5 => {
            let v = value(rng);
            format!("\"text={v} || label={v}\"").replace("\"\"", "\"")
        }
        6 => format!("role=button label={}", value(rng)),
        7 => "@e3".into(),
        _ => rng.pick(&["Continue", "OK", "Next", "Done"]).to_string(),
    }
}

fn number(rng: &mut Rng) -> String {
    rng.pick(&[
        "0", "10", "250", "1500", "-0", "0.5", "1e3", "0x10", "3.25", "100000",
    ])
    .to_string()
}

fn step(rng: &mut Rng) -> String {
    match rng.below(22) {
        0 => format!(
            "open {}",
            rng.pick(&["com.example.app", "com.other.app", "Settings"])
        ),
        1 => format!(
            "open {}",
            rng.pick(&[
                "https://example.com/a?b=c",
                "myapp://home",
                "tel:+1555",
                "http:/bad",
                "ftp://files"
            ])
        ),
        2 => format!(
            "open com.example.app {}",
            rng.pick(&["myapp://deep", "https://x.y/z", "Other"])
        ),
        3 => "open com.example.app --relaunch".to_string(),
        4 | 5 => {
            let mut flags = String::new();
            for (chance, flag) in [
                (20, "--count 3 "),
                (15, "--interval-ms 120 "),
                (10, "--double-tap "),
                (10, "--hold-ms 700 "),
                (4, "--jitter-px 2 "),
                (4, "--button secondary "),
            ] {
                if rng.chance(chance) {
                    flags.push_str(flag);
                }
            }
            let target = if rng.chance(20) {
                format!("{} {}", number(rng), number(rng))
            } else {
                selector(rng)
            };
            format!("{} {flags}{target}", rng.pick(&["click", "press"]))
        }
        6 => {
            let target = if rng.chance(30) {
                format!("{} {}", number(rng), number(rng))
            } else {
                selector(rng)
            };
            let dur = if rng.chance(50) {
                format!(" {}", number(rng))
            } else {
                String::new()
            };
            format!("longpress {target}{dur}")
        }
        7 | 8 => {
            let t = if rng.chance(15) {
                String::new()
            } else {
                text(rng)
            };
            format!("fill {} {}", selector(rng), quoted(&t))
        }
        9 | 10 => {
            let t = match rng.below(6) {
                0 => "\u{8}\u{8}".to_string(),
                1 => String::new(),
                _ => text(rng),
            };
            format!("type {}", quoted(&t))
        }
        11 => format!("wait {}", number(rng)),
        12 => {
            let timeout = if rng.chance(50) {
                format!(" {}", number(rng))
            } else {
                String::new()
            };
            if rng.chance(50) {
                format!(
                    "wait text {}{timeout}",
                    quoted(&text(rng).replace('\n', " "))
                )
            } else {
                format!("wait {}{timeout}", selector(rng))
            }
        }
        13 => format!(
            "find text {} {}",
            quoted(&text(rng)),
            rng.pick(&["exists", "missing", "not-exists", "visible"])
        ),
        14 => format!(
            "screenshot {}",
            quoted(rng.pick::<&str>(&["home.png", "shots/a b.png", "true", "- x.png"]))
        ),
        15 => format!("scroll{}", rng.pick(&["", " down", " up"])),
        16 => {
            let count = rng.pick(&["", " --count 2", " --count 3", " --count 1"]);
            format!(
                "swipe {} {} {} {}{count}",
                number(rng),
                number(rng),
                number(rng),
                number(rng)
            )
        }
        17 => rng
            .pick(&[
                "back",
                "home",
                "keyboard dismiss",
                "keyboard enter",
                "keyboard return",
            ])
            .to_string(),
        18 => rng
            .pick(&[
                "snapshot",
                "keyboard status",
                "wait absent id=x",
                "app-switcher",
            ])
            .to_string(),
        19 => format!("# {}", text(rng).replace('\n', " ")),
        _ => String::new(),
    }
}

/// A script of what the exporter maps, mostly accepted, with an occasional refusal.
fn exportable(seed: u64, i: usize) -> String {
    let mut rng = Rng::new(seed ^ (i as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15));
    let mut lines = Vec::new();
    if rng.chance(30) {
        lines.push(format!(
            "context platform={}",
            rng.pick(&["ios", "android"])
        ));
    }
    if rng.chance(35) {
        // Distinct keys, some of which the YAML writer must quote.
        let mut keys = ["USER", "PASS", "NULL", "TRUE", "Y", "HOST_1"];
        rng.shuffle(&mut keys);
        for key in &keys[..rng.range(1, 4)] {
            let v = text(&mut rng).replace('\n', " ");
            lines.push(format!("env {key}={}", quoted(&v)));
        }
    }
    for _ in 0..rng.range(1, 9) {
        let s = step(&mut rng);
        // Keep most scripts exportable: a refused step only now and then.
        let refused = [
            "@e3",
            "snapshot",
            "role=",
            "keyboard status",
            "wait absent",
            "app-switcher",
            "scroll up",
            " Other",
            " visible",
            "--jitter-px",
            "--button",
        ];
        if refused.iter().any(|r| s.contains(r)) && !rng.chance(15) {
            continue;
        }
        lines.push(s);
    }
    lines.join("\n") + "\n"
}
