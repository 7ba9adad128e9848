//! Shared helpers for the integration tests: locating ../shared, the oracle, normalization.
//!
//! * [`shared_dir`], [`corpus_dir`], [`oracle_script`] find the read-only `shared/` folder that
//!   sits beside the repository (or `$AD_SHARED_DIR`) and panic with a clear message when it, or a
//!   part of it, is missing.
//! * [`run_oracle`] runs agent-device 0.21.5's own parser (`ref-parse.mjs --digest`) on many
//!   files, in batches, and returns one JSON object per file.
//! * [`ours`] is our side: `ad_compiler::agent_device::report` on the analysed text.
//! * [`normalize`], [`compare`], [`compare_messages`], [`compare_exact`] and [`diff`] decide and
//!   explain (dis)agreement.

pub mod fuzz;
pub mod gen;
pub mod minimize;

use std::borrow::Cow;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{Map, Number, Value};

/// The panic message when `ref-parse.mjs` cannot find the agent-device package.
pub const ORACLE_MISSING: &str =
    "agent-device 0.21.5 oracle is not installed: run ../shared/oracle/setup.sh (needs node and npm)";

/// Files per `node ref-parse.mjs` process.
pub const ORACLE_BATCH: usize = 200;

/// The `shared/` folder: `$AD_SHARED_DIR` if set, else `<CARGO_MANIFEST_DIR>/../../shared`
/// (i.e. `<repo>/../shared`). Panics, saying what is missing, when it does not exist.
pub fn shared_dir() -> PathBuf {
    let (dir, origin) = match std::env::var_os("AD_SHARED_DIR") {
        Some(d) if !d.is_empty() => (PathBuf::from(d), "$AD_SHARED_DIR"),
        _ => (
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared"),
            "<repo>/../shared (set AD_SHARED_DIR to override)",
        ),
    };
    if !dir.is_dir() {
        panic!(
            "the shared/ folder (spec, corpus, oracle) is missing: expected a directory at {} \
             from {origin}; CI provides a read-only copy of shared/ beside the repository",
            dir.display()
        );
    }
    dir.canonicalize().unwrap_or(dir)
}

fn shared_path(rel: &str, what: &str) -> PathBuf {
    let p = shared_dir().join(rel);
    if !p.exists() {
        panic!(
            "{what} is missing: expected {} inside the shared/ folder",
            p.display()
        );
    }
    p
}

/// `shared/corpus`: the `.ad` corpus, with the oracle's output in `expected/<name>.json`.
pub fn corpus_dir() -> PathBuf {
    shared_path("corpus", "the .ad corpus (shared/corpus)")
}

/// `shared/oracle/ref-parse.mjs`.
pub fn oracle_script() -> PathBuf {
    shared_path(
        "oracle/ref-parse.mjs",
        "the oracle script (shared/oracle/ref-parse.mjs)",
    )
}

/// The oracle's output for one file: `node ref-parse.mjs --digest FILE`.
pub fn run_oracle_one(file: &Path) -> Value {
    run_oracle(&[file.to_path_buf()], 1)
        .pop()
        .expect("one oracle result")
}

/// Runs the oracle (`ref-parse.mjs --digest`) on `files`, [`ORACLE_BATCH`] files per node
/// process and up to `jobs` processes at a time; returns one object per file, in order.
pub fn run_oracle(files: &[PathBuf], jobs: usize) -> Vec<Value> {
    if files.is_empty() {
        return Vec::new();
    }
    let script = oracle_script();
    let batches: Vec<&[PathBuf]> = files.chunks(ORACLE_BATCH).collect();
    let jobs = jobs.clamp(1, batches.len());
    let mut results: Vec<Option<Vec<Value>>> = vec![None; batches.len()];
    let next = std::sync::atomic::AtomicUsize::new(0);
    std::thread::scope(|scope| {
        let handles: Vec<_> = (0..jobs)
            .map(|_| {
                scope.spawn(|| {
                    let mut done = Vec::new();
                    loop {
                        let i = next.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                        let Some(batch) = batches.get(i) else { break };
                        done.push((i, oracle_batch(&script, batch)));
                    }
                    done
                })
            })
            .collect();
        for h in handles {
            for (i, values) in h.join().expect("oracle worker panicked") {
                results[i] = Some(values);
            }
        }
    });
    results
        .into_iter()
        .flat_map(|r| r.expect("every batch ran"))
        .collect()
}

fn oracle_batch(script: &Path, files: &[PathBuf]) -> Vec<Value> {
    let output = Command::new("node")
        .arg(script)
        .arg("--digest")
        .args(files)
        .output()
        .unwrap_or_else(|e| {
            panic!("cannot run `node` ({e}); the oracle needs node on PATH. {ORACLE_MISSING}")
        });
    let stderr = String::from_utf8_lossy(&output.stderr);
    match output.status.code() {
        Some(0) | Some(1) => {}
        Some(2) if stderr.contains("cannot find the agent-device package") => {
            panic!("{ORACLE_MISSING}\n(ref-parse.mjs said: {})", stderr.trim())
        }
        other => panic!(
            "ref-parse.mjs failed (exit status {other:?}) on {} file(s): {}",
            files.len(),
            stderr.trim()
        ),
    }
    let stdout = String::from_utf8_lossy(&output.stdout);
    let text = replace_lone_surrogates(&stdout);
    let value: Value = serde_json::from_str(&text).unwrap_or_else(|e| {
        panic!(
            "ref-parse.mjs printed invalid JSON ({e}); stderr: {}",
            stderr.trim()
        )
    });
    let values = match value {
        Value::Array(items) if files.len() != 1 => items,
        single if files.len() == 1 => vec![single],
        other => panic!("unexpected ref-parse.mjs output shape: {other}"),
    };
    assert_eq!(
        values.len(),
        files.len(),
        "ref-parse.mjs returned one result per file"
    );
    values
}

/// `JSON.stringify` writes a lone UTF-16 surrogate (from `"\uD800"` in a script) as the escape
/// `\ud800`, which serde_json refuses. A Rust string cannot hold one either: `ad` keeps it as
/// its stand-in character (`ad_grammar::json::lone_surrogate_char`), so each lone surrogate
/// escape becomes that character. Surrogate pairs are kept.
pub fn replace_lone_surrogates(json: &str) -> Cow<'_, str> {
    if !json.contains("\\u") {
        return Cow::Borrowed(json);
    }
    let b = json.as_bytes();
    let hex_at = |i: usize| -> Option<u32> {
        if i + 6 <= b.len() && b[i] == b'\\' && b[i + 1] == b'u' {
            u32::from_str_radix(std::str::from_utf8(&b[i + 2..i + 6]).ok()?, 16).ok()
        } else {
            None
        }
    };
    let mut out = String::with_capacity(json.len());
    let mut i = 0;
    let mut last = 0;
    while i < b.len() {
        if b[i] != b'\\' {
            i += 1;
            continue;
        }
        match hex_at(i) {
            Some(0xD800..=0xDBFF) => {
                if matches!(hex_at(i + 6), Some(0xDC00..=0xDFFF)) {
                    i += 12;
                } else {
                    out.push_str(&json[last..i]);
                    out.push(ad_grammar::json::lone_surrogate_char(
                        hex_at(i).unwrap_or(0xD800),
                    ));
                    i += 6;
                    last = i;
                }
            }
            Some(0xDC00..=0xDFFF) => {
                out.push_str(&json[last..i]);
                out.push(ad_grammar::json::lone_surrogate_char(
                    hex_at(i).unwrap_or(0xDC00),
                ));
                i += 6;
                last = i;
            }
            Some(_) => i += 6,
            None => i += 2,
        }
    }
    out.push_str(&json[last..]);
    Cow::Owned(out)
}

/// Our view of a script, in the oracle's shape (without `file` / `agentDeviceVersion`).
pub fn ours(text: &str) -> Value {
    let analysis = ad_compiler::analyze(text);
    ad_compiler::agent_device::report(
        &analysis,
        Some(&ad_compiler::digest::DigestOptions::default()),
    )
}

thread_local! {
    static CATCHING: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Installs (once) a panic hook that stays quiet for panics [`ours_catching`] catches.
fn quiet_caught_panics() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let default = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if !CATCHING.with(|c| c.get()) {
                default(info);
            }
        }));
    });
}

/// [`ours`], turning a panic into `Err(message)` (without printing it).
pub fn ours_catching(text: &str) -> Result<Value, String> {
    quiet_caught_panics();
    CATCHING.with(|c| c.set(true));
    let result = std::panic::catch_unwind(|| ours(text));
    CATCHING.with(|c| c.set(false));
    result.map_err(|e| {
        let msg = e
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_else(|| "non-string panic".into());
        format!("ad_compiler panicked: {msg}")
    })
}

/// [`ours_catching`], with a panic reported as `{"panic": message}` (which then disagrees with
/// every oracle answer).
pub fn ours_value(text: &str) -> Value {
    ours_catching(text).unwrap_or_else(|e| serde_json::json!({ "panic": e }))
}

/// Drops `file` and `agentDeviceVersion` and turns every JSON number into an f64 (`2` == `2.0`).
pub fn normalize(value: Value) -> Value {
    fn numbers(v: Value) -> Value {
        match v {
            Value::Number(n) => n
                .as_f64()
                .and_then(Number::from_f64)
                .map(Value::Number)
                .unwrap_or(Value::Number(n)),
            Value::Array(items) => Value::Array(items.into_iter().map(numbers).collect()),
            Value::Object(map) => {
                Value::Object(map.into_iter().map(|(k, v)| (k, numbers(v))).collect())
            }
            other => other,
        }
    }
    let mut v = numbers(value);
    if let Value::Object(map) = &mut v {
        map.remove("file");
        map.remove("agentDeviceVersion");
    }
    v
}

fn show(v: Option<&Value>) -> String {
    match v {
        None => "(absent)".into(),
        Some(v) => {
            let s = v.to_string();
            if s.chars().count() > 240 {
                let cut: String = s.chars().take(240).collect();
                format!("{cut}…")
            } else {
                s
            }
        }
    }
}

/// Field-level differences between two JSON values, as `path: ours X, oracle Y` lines.
pub fn diff(path: &str, ours: Option<&Value>, oracle: Option<&Value>, out: &mut Vec<String>) {
    match (ours, oracle) {
        (Some(Value::Object(a)), Some(Value::Object(b))) => {
            let mut keys: Vec<&String> = a.keys().chain(b.keys()).collect();
            keys.sort();
            keys.dedup();
            for k in keys {
                let p = if path.is_empty() {
                    k.clone()
                } else {
                    format!("{path}.{k}")
                };
                diff(&p, a.get(k), b.get(k), out);
            }
        }
        (Some(Value::Array(a)), Some(Value::Array(b))) => {
            for i in 0..a.len().max(b.len()) {
                diff(&format!("{path}[{i}]"), a.get(i), b.get(i), out);
            }
        }
        (a, b) if a == b => {}
        (a, b) => out.push(format!("{path}: ours {}, oracle {}", show(a), show(b))),
    }
}

fn field<'a>(v: &'a Value, key: &str) -> Option<&'a Value> {
    v.as_object().and_then(|m| m.get(key))
}

/// The parity check: the same `ok`; when the oracle accepted, equal `metadata`, `parse` and
/// `planDigest` (after [`normalize`]). Error messages are checked by [`compare_messages`].
pub fn compare(ours: &Value, oracle: &Value) -> Result<(), String> {
    let (a, b) = (normalize(ours.clone()), normalize(oracle.clone()));
    let mut out = Vec::new();
    diff("ok", field(&a, "ok"), field(&b, "ok"), &mut out);
    if field(&b, "ok") == Some(&Value::Bool(true)) {
        for key in ["metadata", "parse", "planDigest"] {
            diff(key, field(&a, key), field(&b, key), &mut out);
        }
    }
    if out.is_empty() {
        Ok(())
    } else {
        Err(out.join("\n"))
    }
}

/// For a rejected script: whether the rejection messages (`parseError.message`,
/// `metadataError.message`, `daemonPreflightError.message`, each present or absent) agree.
pub fn compare_messages(ours: &Value, oracle: &Value) -> Result<(), String> {
    let mut out = Vec::new();
    for key in ["parseError", "metadataError", "daemonPreflightError"] {
        let a = field(ours, key).and_then(|e| field(e, "message"));
        let b = field(oracle, key).and_then(|e| field(e, "message"));
        diff(&format!("{key}.message"), a, b, &mut out);
    }
    if out.is_empty() {
        Ok(())
    } else {
        Err(out.join("\n"))
    }
}

/// Exact agreement of the whole normalized objects (used for the corpus).
pub fn compare_exact(ours: &Value, oracle: &Value) -> Result<(), String> {
    let (a, b) = (normalize(ours.clone()), normalize(oracle.clone()));
    let mut out = Vec::new();
    diff("", Some(&a), Some(&b), &mut out);
    if out.is_empty() {
        Ok(())
    } else {
        Err(out.join("\n"))
    }
}

/// The cargo target directory (`…/target`), derived from the running test executable
/// (`target/<profile>/deps/<test>`), else `$CARGO_TARGET_DIR`, else `<workspace>/target`.
pub fn target_dir() -> PathBuf {
    if let Some(d) = std::env::var_os("CARGO_TARGET_DIR") {
        return PathBuf::from(d);
    }
    if let Ok(exe) = std::env::current_exe() {
        if let Some(t) = exe.parent().and_then(Path::parent).and_then(Path::parent) {
            if t.join("CACHEDIR.TAG").exists() || t.file_name().is_some_and(|n| n == "target") {
                return t.to_path_buf();
            }
        }
    }
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../target")
}

/// A JSON object as pretty text with a trailing newline.
pub fn pretty(v: &Value) -> String {
    let mut s = serde_json::to_string_pretty(v).unwrap_or_else(|_| v.to_string());
    s.push('\n');
    s
}

/// An object holding only `keys` of `v` (for compact failure listings).
pub fn pick_fields(v: &Value, keys: &[&str]) -> Value {
    let mut m = Map::new();
    for k in keys {
        if let Some(x) = field(v, k) {
            m.insert((*k).to_string(), x.clone());
        }
    }
    Value::Object(m)
}
