//! Shared helpers for the integration tests: the data sets, the oracle, normalization.
//!
//! * [`conformance`], [`check_fixtures`] and [`corpus`] are the data sets: folders of `.ad`
//!   scripts with agent-device 0.21.5's parse of each checked in as `expected/<stem>.json`
//!   (written by `oracle/regenerate.sh`). The first two live in the repository; the public
//!   corpus comes from the optional `shared/` folder beside it ([`shared_dir`], `$AD_SHARED_DIR`)
//!   and is an extra data set: without it the tests run on the repository's own scripts and say
//!   so in one line, unless `AD_REQUIRE_SHARED=1` (CI) makes its absence a failure.
//! * [`run_oracle`] runs agent-device 0.21.5's own parser (`oracle/parse.mjs --digest`, from
//!   `npm ci` in `oracle/`) on many files, in batches, and returns one JSON object per file.
//! * [`ours`] is our side: `ad_compiler::agent_device::report` on the analysed text.
//! * [`check_fixture_names`], [`check_fixture_args`] and [`fixture_code`] locate the check
//!   fixtures; [`diagnostics_docs`] reads `docs/diagnostics.md`'s entries and examples.
//! * [`normalize`], [`compare`], [`compare_messages`], [`compare_exact`] and [`diff`] decide and
//!   explain (dis)agreement.

pub mod bench_input;
pub mod diagnostics_docs;
pub mod fuzz;
pub mod gen;
pub mod lsp_client;
pub mod maestro;
pub mod minimize;
pub mod web_fixture;

use std::borrow::Cow;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{Map, Number, Value};

/// The panic message when the oracle (agent-device 0.21.5 under `oracle/node_modules`) is missing.
pub const ORACLE_MISSING: &str = "the agent-device 0.21.5 oracle is not installed: run `npm ci` \
     in the repository's oracle/ folder (needs node and npm; `bash scripts/test-all.sh` installs \
     everything), or point AD_AGENT_DEVICE_DIR at an installed agent-device 0.21.5 package";

/// Files per `node parse.mjs` process.
pub const ORACLE_BATCH: usize = 200;

/// Scripts in the public corpus (`shared/corpus`).
pub const CORPUS_FILES: usize = 64;

/// The repository root.
pub fn repo_dir() -> PathBuf {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    manifest.parent().unwrap_or(manifest).to_path_buf()
}

/// Where every test's scratch folders go: `<temp>/ad-tests-<user>`, never inside the repository
/// or cargo's target folder. A scratch project inside the repository would see the repository's
/// own `apps/`, `examples/apps` and `ad.toml` by walking up (the sim's model search, the project
/// root), so a test would pass only where the target folder happens to lie inside the checkout.
pub fn scratch_root() -> PathBuf {
    let user = std::env::var("USER").unwrap_or_else(|_| "user".into());
    std::env::temp_dir().join(format!("ad-tests-{user}"))
}

/// A fresh, empty scratch folder `<scratch_root>/<prefix>-<pid>-<n>` for one test; unique across
/// the tests of one process.
pub fn scratch_dir(prefix: &str) -> PathBuf {
    static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let dir = scratch_root().join(format!("{prefix}-{}-{n}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create a scratch folder");
    dir
}

/// Copies the repository's example app models (`examples/apps/*.json`) into `<dir>/apps`, where
/// the sim finds them for a script in `dir`: a scratch project holds the models it runs on.
pub fn copy_example_models(dir: &Path) {
    let apps = dir.join("apps");
    std::fs::create_dir_all(&apps).expect("create the apps folder");
    let src = repo_dir().join("examples/apps");
    for entry in std::fs::read_dir(&src).expect("examples/apps is listed") {
        let path = entry.expect("a directory entry").path();
        if path.extension().is_some_and(|x| x == "json") {
            std::fs::copy(&path, apps.join(file_name(&path))).expect("copy an app model");
        }
    }
}

/// A folder of `.ad` scripts with the oracle's output for each in `expected/<stem>.json`.
#[derive(Clone, Debug)]
pub struct DataSet {
    /// A short name for messages (`conformance`, `check fixtures`, `corpus`).
    pub name: &'static str,
    pub dir: PathBuf,
    /// The exact number of scripts the folder must hold, when it is fixed.
    pub expected_count: Option<usize>,
}

impl DataSet {
    /// The `.ad` files of the folder, sorted.
    pub fn scripts(&self) -> Vec<PathBuf> {
        let mut files: Vec<PathBuf> = std::fs::read_dir(&self.dir)
            .unwrap_or_else(|e| panic!("cannot list {}: {e}", self.dir.display()))
            .map(|e| e.expect("a directory entry").path())
            .filter(|p| p.extension().is_some_and(|x| x == "ad") && p.is_file())
            .collect();
        files.sort();
        files
    }

    /// Every script with its text, as the oracle reads it (lossy UTF-8). Names are
    /// `<data set>/<file name>`.
    pub fn texts(&self) -> Vec<(String, String)> {
        self.scripts()
            .into_iter()
            .map(|p| (format!("{}/{}", self.name, file_name(&p)), read_script(&p)))
            .collect()
    }

    /// `expected/`.
    pub fn expected_dir(&self) -> PathBuf {
        self.dir.join("expected")
    }

    /// The checked-in oracle output for `script` (lone surrogate escapes read as in
    /// [`replace_lone_surrogates`]).
    pub fn expected(&self, script: &Path) -> Result<Value, String> {
        let stem = script.file_stem().unwrap_or_default().to_string_lossy();
        let path = self.expected_dir().join(format!("{stem}.json"));
        let text = std::fs::read_to_string(&path).map_err(|e| {
            format!(
                "cannot read {}: {e}{}",
                path.display(),
                self.regenerate_hint()
            )
        })?;
        serde_json::from_str(&replace_lone_surrogates(&text))
            .map_err(|e| format!("{} is not JSON: {e}", path.display()))
    }

    /// Problems with the folder's shape: expected files without a script, a wrong script count.
    pub fn layout_problems(&self) -> Vec<String> {
        let scripts = self.scripts();
        let mut problems = Vec::new();
        match self.expected_count {
            Some(n) if scripts.len() != n => problems.push(format!(
                "expected {n} scripts in {}, found {}",
                self.dir.display(),
                scripts.len()
            )),
            _ if scripts.is_empty() => {
                problems.push(format!("no .ad scripts in {}", self.dir.display()))
            }
            _ => {}
        }
        if let Ok(entries) = std::fs::read_dir(self.expected_dir()) {
            let mut orphans: Vec<String> = entries
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|x| x == "json"))
                .filter(|p| {
                    let stem = p.file_stem().unwrap_or_default().to_string_lossy();
                    !self.dir.join(format!("{stem}.ad")).is_file()
                })
                .map(|p| file_name(&p))
                .collect();
            orphans.sort();
            for o in orphans {
                problems.push(format!(
                    "expected/{o} has no script in {}{}",
                    self.dir.display(),
                    self.regenerate_hint()
                ));
            }
        }
        problems
    }

    fn regenerate_hint(&self) -> &'static str {
        if self.name == "corpus" {
            ""
        } else {
            " (bash oracle/regenerate.sh rewrites the expected outputs)"
        }
    }
}

/// `tests/conformance`: scripts written to exercise every rule of agent-device's reader.
pub fn conformance() -> DataSet {
    DataSet {
        name: "conformance",
        dir: repo_dir().join("tests/conformance"),
        expected_count: None,
    }
}

/// `tests/fixtures/check`: one script per `ad check` diagnostic code plus clean scripts.
pub fn check_fixtures() -> DataSet {
    DataSet {
        name: "check fixtures",
        dir: repo_dir().join("tests/fixtures/check"),
        expected_count: None,
    }
}

/// The check fixtures' file names (`AD101-unknown-command.ad`, `clean-….ad`), sorted: the one
/// fixture locator the compiler's per-code tests and the CLI's rendering tests share.
pub fn check_fixture_names() -> Vec<String> {
    check_fixtures()
        .scripts()
        .iter()
        .map(|p| file_name(p))
        .collect()
}

/// The extra `ad check` arguments of a check fixture: `<stem>.args` beside it, whitespace
/// separated (e.g. `--max-file-size 64` for AD006), or none.
pub fn check_fixture_args(name: &str) -> Vec<String> {
    let stem = name.trim_end_matches(".ad");
    std::fs::read_to_string(check_fixtures().dir.join(format!("{stem}.args")))
        .map(|s| s.split_whitespace().map(str::to_string).collect())
        .unwrap_or_default()
}

/// The code a check fixture is named for: `AD101-unknown-command.ad` → `Some("AD101")`;
/// `clean-….ad` → `None`.
pub fn fixture_code(name: &str) -> Option<&str> {
    let code = name.split('-').next()?;
    (code.len() == 5 && code.starts_with("AD") && code[2..].bytes().all(|b| b.is_ascii_digit()))
        .then_some(code)
}

/// The repository's own data sets: [`conformance`] and [`check_fixtures`].
pub fn own_data_sets() -> Vec<DataSet> {
    vec![conformance(), check_fixtures()]
}

/// Every data set: the repository's own, then the public [`corpus`] when it is there.
pub fn data_sets() -> Vec<DataSet> {
    let mut sets = own_data_sets();
    sets.extend(corpus());
    sets
}

/// Whether `AD_REQUIRE_SHARED=1`: CI makes the public corpus a required data set.
pub fn shared_required() -> bool {
    std::env::var("AD_REQUIRE_SHARED").is_ok_and(|v| v.trim() == "1")
}

/// Where the optional `shared/` folder (spec, corpus) is looked for: `$AD_SHARED_DIR` if set,
/// else `<repo>/../shared`. It may not exist.
pub fn shared_dir() -> PathBuf {
    match std::env::var_os("AD_SHARED_DIR") {
        Some(d) if !d.is_empty() => PathBuf::from(d),
        _ => repo_dir().join("../shared"),
    }
}

/// `shared/corpus`: the public `.ad` corpus, with the oracle's output in `expected/<name>.json`.
///
/// `None` when it is absent, after printing (once per test process, to stderr, past the test
/// harness's capture) the line saying that only the repository's own data sets run. With
/// `AD_REQUIRE_SHARED=1` its absence panics instead.
pub fn corpus_dir() -> Option<PathBuf> {
    let dir = shared_dir().join("corpus");
    if dir.join("expected").is_dir() {
        return Some(dir.canonicalize().unwrap_or(dir));
    }
    if shared_required() {
        panic!(
            "AD_REQUIRE_SHARED=1 but the public corpus is missing: expected {} with its expected/ \
             outputs (the shared/ folder is $AD_SHARED_DIR, else <repo>/../shared); CI provides \
             it, elsewhere unset AD_REQUIRE_SHARED to run on the repository's own fixtures only",
            dir.display()
        );
    }
    static NOTE: std::sync::Once = std::sync::Once::new();
    NOTE.call_once(|| {
        use std::io::Write;
        let _ = writeln!(
            std::io::stderr(),
            "corpus: {} not present; running on the repository's own fixtures only",
            dir.display()
        );
    });
    None
}

/// The public corpus as a data set (see [`corpus_dir`]).
pub fn corpus() -> Option<DataSet> {
    corpus_dir().map(|dir| DataSet {
        name: "corpus",
        dir,
        expected_count: Some(CORPUS_FILES),
    })
}

/// Every file under `dir`, sorted: (path relative to `dir`, contents). What a test compares when
/// it asks whether two recordings or two runs wrote the same files.
pub fn files_under(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d)
            .unwrap_or_else(|e| panic!("{} is readable: {e}", d.display()))
            .flatten()
        {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else {
                let rel = p.strip_prefix(dir).unwrap().display().to_string();
                out.push((rel, std::fs::read(&p).unwrap()));
            }
        }
    }
    out.sort();
    out
}

/// A script's text as agent-device reads it: Node's lossy UTF-8 decoding.
pub fn read_script(path: &Path) -> String {
    let bytes =
        std::fs::read(path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    String::from_utf8_lossy(&bytes).into_owned()
}

fn file_name(path: &Path) -> String {
    path.file_name()
        .unwrap_or_default()
        .to_string_lossy()
        .into_owned()
}

/// `oracle/parse.mjs`, after checking that the package it reads is installed
/// (`oracle/node_modules/agent-device`, or `$AD_AGENT_DEVICE_DIR`). Panics with
/// [`ORACLE_MISSING`] otherwise.
pub fn oracle_script() -> PathBuf {
    let oracle = repo_dir().join("oracle");
    let package = match std::env::var_os("AD_AGENT_DEVICE_DIR") {
        Some(d) if !d.is_empty() => PathBuf::from(d),
        _ => oracle.join("node_modules/agent-device"),
    };
    if !package.join("package.json").is_file() {
        panic!(
            "{ORACLE_MISSING}\n(no agent-device package at {})",
            package.display()
        );
    }
    oracle.join("parse.mjs")
}

/// The oracle's output for one file: `node oracle/parse.mjs --digest FILE`.
pub fn run_oracle_one(file: &Path) -> Value {
    run_oracle(&[file.to_path_buf()], 1)
        .pop()
        .expect("one oracle result")
}

/// Runs the oracle (`oracle/parse.mjs --digest`) on `files`, [`ORACLE_BATCH`] files per node
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
        Some(2) if stderr.contains("is not installed") || stderr.contains("the tests need") => {
            panic!(
                "{ORACLE_MISSING}\n(oracle/parse.mjs said: {})",
                stderr.trim()
            )
        }
        other => panic!(
            "oracle/parse.mjs failed (exit status {other:?}) on {} file(s): {}",
            files.len(),
            stderr.trim()
        ),
    }
    let stdout = String::from_utf8_lossy(&output.stdout);
    let text = replace_lone_surrogates(&stdout);
    let value: Value = serde_json::from_str(&text).unwrap_or_else(|e| {
        panic!(
            "oracle/parse.mjs printed invalid JSON ({e}); stderr: {}",
            stderr.trim()
        )
    });
    let values = match value {
        Value::Array(items) if files.len() != 1 => items,
        single if files.len() == 1 => vec![single],
        other => panic!("unexpected oracle/parse.mjs output shape: {other}"),
    };
    assert_eq!(
        values.len(),
        files.len(),
        "oracle/parse.mjs returned one result per file"
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A scratch project inside the checkout sees the repository's `examples/apps` and `ad.toml`
    /// by walking up, so tests written against one pass only where cargo's target folder lies
    /// inside the repository (issue 29: six tests failed with `CARGO_TARGET_DIR` elsewhere).
    #[test]
    fn scratch_folders_lie_outside_the_repository() {
        let dir = scratch_dir("outside-check");
        let dir = std::fs::canonicalize(&dir).unwrap();
        let repo = std::fs::canonicalize(repo_dir()).unwrap();
        assert!(
            !dir.starts_with(&repo),
            "{} lies inside the repository {}: set TMPDIR to a folder outside it",
            dir.display(),
            repo.display()
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
