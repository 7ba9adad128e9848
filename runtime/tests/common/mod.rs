//! Helpers for the runtime integration tests: run a script in-process on the sim with an
//! in-memory journal and a fixed clock.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

use ad_runtime::backends::sim::{AppModel, Sim};
use ad_runtime::core::interp::{run, Plan, Quiet, RunOptions, RunResult};
use ad_runtime::Journal;
use serde_json::Value;

pub fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("workspace")
        .to_path_buf()
}

pub fn shop_path() -> PathBuf {
    repo().join("examples/apps/shop.json")
}

pub fn shop() -> AppModel {
    AppModel::load(&shop_path()).expect("examples/apps/shop.json loads")
}

pub fn example(rel: &str) -> String {
    std::fs::read_to_string(repo().join("examples").join(rel)).expect("example exists")
}

/// What one in-process run produced.
pub struct Ran {
    pub result: RunResult,
    /// Journal rows, parsed.
    pub rows: Vec<Value>,
    /// Observation files and run.json: (path, contents).
    pub files: Vec<(String, String)>,
    pub sim: Sim,
}

impl Ran {
    pub fn events(&self, kind: &str) -> Vec<&Value> {
        self.rows.iter().filter(|r| r["event"] == kind).collect()
    }
    /// The divergence report, as JSON.
    pub fn divergence(&self) -> Value {
        let d = self
            .result
            .error
            .as_ref()
            .and_then(|e| e.divergence())
            .expect("a divergence report");
        serde_json::to_value(d).expect("a report serializes")
    }
    pub fn attempts_for(&self, step: u64) -> usize {
        self.events("action_attempt")
            .iter()
            .filter(|r| r["step"] == step)
            .count()
    }
    pub fn screen(&self) -> String {
        self.sim.describe()["screen"]
            .as_str()
            .unwrap_or("")
            .to_string()
    }
}

#[derive(Default)]
pub struct Opts<'a> {
    pub env: &'a [(&'a str, &'a str)],
    pub shell: &'a [(&'a str, &'a str)],
    pub model: Option<AppModel>,
    pub keep_session: bool,
    pub from: Option<(usize, String)>,
    pub timeout_ms: Option<u64>,
}

fn pairs(p: &[(&str, &str)]) -> Vec<(String, String)> {
    p.iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

pub fn run_with(name: &str, text: &str, o: Opts) -> Ran {
    let analysis = ad_compiler::analyze(text);
    let plan = Plan {
        steps: analysis.steps(),
        metadata: analysis.metadata(),
    };
    let mut sim = Sim::with_model(o.model.unwrap_or_else(shop));
    let mut journal = Journal::memory("test").with_clock(|| "2025-01-01T00:00:00.000Z".into());
    let opts = RunOptions {
        script_path: name.to_string(),
        cli_env: pairs(o.env),
        shell_env: pairs(o.shell),
        session: "test".into(),
        keep_session: o.keep_session,
        from: o.from.as_ref().map(|f| f.0),
        plan_digest: o.from.map(|f| f.1),
        timeout_ms: o.timeout_ms,
        resume_command: format!("ad run {name}"),
        ..RunOptions::default()
    };
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .expect("runtime");
    let result = rt.block_on(run(&plan, &mut sim, &mut journal, &mut Quiet, &opts));
    let rows = journal
        .rows()
        .iter()
        .map(|r| serde_json::from_str(r).expect("every journal row is JSON"))
        .collect();
    let files = journal.memory_files().to_vec();
    Ran {
        result,
        rows,
        files,
        sim,
    }
}

pub fn run_text(name: &str, text: &str, env: &[(&str, &str)]) -> Ran {
    run_with(
        name,
        text,
        Opts {
            env,
            ..Opts::default()
        },
    )
}

pub fn run_example(rel: &str, env: &[(&str, &str)]) -> Ran {
    run_text(&format!("examples/{rel}"), &example(rel), env)
}

/// A journal row with its volatile fields (wall-clock durations) replaced.
pub fn stable_row(v: &Value) -> Value {
    let mut v = v.clone();
    if let Some(m) = v.as_object_mut() {
        for k in ["wall_ms"] {
            if m.contains_key(k) {
                m.insert(k.into(), "[wall]".into());
            }
        }
    }
    v
}

/// A run error's details, as JSON.
pub fn details(e: &ad_runtime::RunError) -> Value {
    serde_json::to_value(&e.details).expect("details serialize")
}

/// The login prefix every shop script starts with.
pub const LOGIN: &str = "context platform=ios target=mobile
open \"com.example.shop\" --relaunch
fill \"id=\\\"login.email\\\"\" \"demo@example.com\"
fill \"id=\\\"login.password\\\"\" \"hunter2\"
click \"id=\\\"login.submit\\\"\"
wait \"id=\\\"home.title\\\"\"
";

/// A checked-in record schema (docs/schemas/NAME.schema.json).
pub fn schema(name: &str) -> Value {
    let path = repo().join(format!("docs/schemas/{name}.schema.json"));
    serde_json::from_str(&std::fs::read_to_string(&path).expect("a checked-in schema"))
        .expect("a schema is JSON")
}

/// Checks `doc` against `schema`, naming the document on failure.
pub fn fits(schema: &Value, doc: &Value, what: &str) {
    if let Err(e) = ad_runtime::core::records::validate::validate(schema, doc) {
        panic!(
            "{what} does not fit its schema:\n  {}\n{doc:#}",
            e.join("\n  ")
        );
    }
}

/// Checks every record of a run folder on disk: each event, each observation file, run.json.
/// Returns how many documents were checked.
pub fn check_run_dir(dir: &Path) -> usize {
    let (events, observation, summary) = (
        schema("journal-event"),
        schema("observation"),
        schema("run-summary"),
    );
    let mut checked = 0;
    let text = std::fs::read_to_string(dir.join("events.jsonl")).expect("events.jsonl");
    for line in text.lines() {
        let row: Value = serde_json::from_str(line).expect("an event is JSON");
        fits(
            &events,
            &row,
            &format!("{}: event {}", dir.display(), row["sequence"]),
        );
        checked += 1;
    }
    for entry in std::fs::read_dir(dir.join("observations")).expect("observations/") {
        let path = entry.unwrap().path();
        let doc: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        fits(&observation, &doc, &path.display().to_string());
        checked += 1;
    }
    let doc: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("run.json")).expect("run.json"))
            .unwrap();
    fits(&summary, &doc, &format!("{}/run.json", dir.display()));
    checked + 1
}

/// Every line of code (comment lines left out) of the Rust sources under `src/<layer>`, with
/// its place (`<path under src>:<line>`): what the layering tests read.
pub fn code_lines(layer: &str) -> Vec<(String, String)> {
    fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
        for entry in std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
            let path = entry.unwrap().path();
            if path.is_dir() {
                rust_files(&path, out);
            } else if path.extension().is_some_and(|x| x == "rs") {
                out.push(path);
            }
        }
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&root.join(layer), &mut files);
    assert!(!files.is_empty(), "no sources under src/{layer}");
    let mut out = Vec::new();
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap();
        let shown = file.strip_prefix(&root).unwrap().display().to_string();
        for (n, line) in text.lines().enumerate() {
            if !line.trim_start().starts_with("//") {
                out.push((format!("{shown}:{}", n + 1), line.to_string()));
            }
        }
    }
    out
}
