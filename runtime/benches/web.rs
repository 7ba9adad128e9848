//! Web backend benchmark (no criterion: `cargo bench -p ad-runtime --bench web`; needs Chromium).
//!
//! A 50-step script on the fixture login page (tests/web/login.html, served on 127.0.0.1) in
//! headless Chromium, in process, journal on disk as `ad run` writes it:
//!
//! - cold start to first step: from nothing to the end of step 1 (`open`: browser launch,
//!   DevTools connection, navigation and load);
//! - the whole script's wall time and steps per second (goal: under 5 s);
//! - per-step overhead `ad` adds on top of the browser's own latency: each step's `wall_ms`
//!   from the journal minus the time spent inside the backend's calls (CDP round trips and the
//!   browser's work), measured by a wrapper around the backend;
//! - the 7-step login script alone (the figure to set beside agent-device's own web replay);
//! - two journeys of the shapes real apps have, to set beside a Playwright run of the same
//!   steps (docs/web.md quotes both): a table page of about 1,400 accessibility nodes whose
//!   rows link to a detail page and back (the page returns from the back/forward cache), and a
//!   list app (a to-do list: add items with Enter, complete one, wait for the counter); with
//!   the median time of `back` and of one capture of the table page (read from the browser, not
//!   answered by the capture before it).
//!
//! `-- once-table` / `-- once-todo` runs that journey once and prints its wall time (ms), to
//! alternate process by process with another tool's run of the same steps.

use std::path::Path;
use std::time::{Duration, Instant};

use ad_runtime::backends::web::{LaunchConfig, Web};
use ad_runtime::core::backend::*;
use ad_runtime::core::interp::{run, Plan, Progress, Quiet, RunOptions, StepEnd, StepInfo};
use ad_runtime::core::tree::Point;
use ad_runtime::Journal;
use ad_tests::web_fixture::{fixture_dir, require_chromium, FixtureServer};
use serde_json::Value;

/// The web backend, with the time spent inside its calls added up.
struct Timed {
    inner: Web,
    inside: Duration,
    /// Captures the interpreter asked for.
    captures: u64,
}

macro_rules! timed {
    ($self:ident, $call:expr) => {{
        let t = Instant::now();
        let r = $call;
        $self.inside += t.elapsed();
        r
    }};
}

impl Backend for Timed {
    fn name(&self) -> &str {
        self.inner.name()
    }
    fn platform(&self) -> &str {
        self.inner.platform()
    }
    fn now_ms(&self) -> u64 {
        self.inner.now_ms()
    }
    async fn sleep(&mut self, ms: u64) {
        // A poll interval is waiting, not overhead.
        timed!(self, self.inner.sleep(ms).await)
    }
    async fn poll_wait(&mut self, ms: u64) -> bool {
        timed!(self, self.inner.poll_wait(ms).await)
    }
    async fn launch(&mut self, app: &str, o: &LaunchOptions) -> BackendResult<()> {
        timed!(self, self.inner.launch(app, o).await)
    }
    async fn close(&mut self, app: Option<&str>) -> BackendResult<()> {
        timed!(self, self.inner.close(app).await)
    }
    async fn capture(&mut self) -> BackendResult<Capture> {
        self.captures += 1;
        timed!(self, self.inner.capture().await)
    }
    async fn tap(&mut self, at: Point, o: &TapOptions) -> BackendResult<()> {
        timed!(self, self.inner.tap(at, o).await)
    }
    async fn long_press(&mut self, at: Point, ms: u64) -> BackendResult<()> {
        timed!(self, self.inner.long_press(at, ms).await)
    }
    async fn hover(&mut self, at: Point) -> BackendResult<()> {
        timed!(self, self.inner.hover(at).await)
    }
    async fn focus(&mut self, at: Point) -> BackendResult<()> {
        timed!(self, self.inner.focus(at).await)
    }
    async fn fill(&mut self, at: Point, text: &str, d: u64) -> BackendResult<()> {
        timed!(self, self.inner.fill(at, text, d).await)
    }
    async fn type_text(&mut self, text: &str, d: u64) -> BackendResult<()> {
        timed!(self, self.inner.type_text(text, d).await)
    }
    async fn scroll(&mut self, dir: Direction, a: Option<f64>) -> BackendResult<()> {
        timed!(self, self.inner.scroll(dir, a).await)
    }
    async fn gesture(&mut self, p: &GesturePlan) -> BackendResult<()> {
        timed!(self, self.inner.gesture(p).await)
    }
    async fn press_key(&mut self, k: SystemKey) -> BackendResult<()> {
        timed!(self, self.inner.press_key(k).await)
    }
    async fn keyboard(&mut self, a: KeyboardAction) -> BackendResult<KeyboardState> {
        timed!(self, self.inner.keyboard(a).await)
    }
    async fn alert(&mut self, a: AlertAction) -> BackendResult<Option<AlertInfo>> {
        timed!(self, self.inner.alert(a).await)
    }
    async fn clipboard_read(&mut self) -> BackendResult<String> {
        timed!(self, self.inner.clipboard_read().await)
    }
    async fn clipboard_write(&mut self, t: &str) -> BackendResult<()> {
        timed!(self, self.inner.clipboard_write(t).await)
    }
    async fn screenshot(&mut self) -> BackendResult<Vec<u8>> {
        timed!(self, self.inner.screenshot().await)
    }
    async fn other(&mut self, c: &str, p: &[String]) -> BackendResult<Value> {
        timed!(self, self.inner.other(c, p).await)
    }
    fn location(&self) -> Value {
        self.inner.location()
    }
}

struct FirstStep {
    start: Instant,
    first: Option<Duration>,
}
impl Progress for FirstStep {
    fn step_end(&mut self, _s: &StepInfo, _e: &StepEnd) {
        self.first.get_or_insert(self.start.elapsed());
    }
}

const FIFTY: &str = "open \"${URL}\"
wait \"id=\\\"email\\\"\"
";

fn fifty_steps() -> String {
    let mut s = String::from(FIFTY);
    let cycle = [
        "fill \"id=\\\"email\\\"\" \"demo@example.com\"",
        "fill \"id=\\\"password\\\"\" \"nope\"",
        "click \"id=\\\"login-submit\\\"\"",
        "wait \"text\" \"Wrong email or password\"",
        "is \"visible\" \"id=\\\"login-error\\\"\"",
        "get \"text\" \"id=\\\"login-error\\\"\"",
    ];
    for i in 0..47 {
        s.push_str(cycle[i % cycle.len()]);
        s.push('\n');
    }
    s.push_str("close\n");
    s
}

const SEVEN: &str = "open \"${URL}\"
fill \"id=\\\"email\\\"\" \"demo@example.com\"
fill \"id=\\\"password\\\"\" \"hunter2\"
click \"id=\\\"login-submit\\\"\"
wait \"id=\\\"home-title\\\"\" 5000
is \"visible\" \"label=\\\"Welcome, Demo\\\"\"
close
";

/// The table journey (tests/web/bfcache-table.html, ~1,400 accessibility nodes).
const TABLE: &str = "open \"${URL}\"
wait \"id=\\\"row-37\\\"\" 5000
click \"id=\\\"row-37\\\"\"
wait \"id=\\\"detail-title\\\"\" 5000
back
wait \"id=\\\"row-64\\\"\" 5000
click \"id=\\\"row-64\\\"\"
wait \"id=\\\"detail-title\\\"\" 5000
back
is \"visible\" \"id=\\\"row-64\\\"\"
close
";

/// The list-app journey (tests/web/todo.html).
const TODO: &str = "open \"${URL}\"
fill \"id=\\\"new-todo\\\"\" \"Buy milk\"
keyboard \"enter\"
wait text \"1 item left\" 5000
fill \"id=\\\"new-todo\\\"\" \"Walk the dog\"
keyboard \"enter\"
wait text \"2 items left\" 5000
fill \"id=\\\"new-todo\\\"\" \"Read a book\"
keyboard \"enter\"
wait text \"3 items left\" 5000
click \"id=\\\"toggle-2\\\"\"
wait text \"2 items left\" 5000
is \"visible\" \"label=\\\"Walk the dog\\\"\"
close
";

struct Measured {
    steps: usize,
    /// Each step's command and journal wall time.
    step_ms: Vec<(String, f64)>,
    wall: Duration,
    first: Duration,
    inside: Duration,
    journal_ms: f64,
    /// Captures asked for, and read from the browser (the others reused the one before).
    captures: (u64, u64),
}

fn measure(text: &str, url: &str, artifacts: &Path) -> Measured {
    let analysis = ad_compiler::analyze(text);
    let plan = Plan {
        steps: analysis.steps(),
        metadata: analysis.metadata(),
    };
    let mut journal = Journal::create(artifacts, "bench").expect("a run folder");
    let opts = RunOptions {
        script_path: "bench.ad".into(),
        cli_env: vec![("URL".into(), url.into())],
        session: "bench".into(),
        resume_command: "ad run bench.ad".into(),
        ..RunOptions::default()
    };
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let start = Instant::now();
    let mut backend = Timed {
        inner: Web::new(LaunchConfig {
            offline: true,
            ..LaunchConfig::default()
        }),
        inside: Duration::ZERO,
        captures: 0,
    };
    let mut progress = FirstStep { start, first: None };
    let result = rt.block_on(run(&plan, &mut backend, &mut journal, &mut progress, &opts));
    let wall = start.elapsed();
    assert!(result.error.is_none(), "{:#?}", result.error);
    let dir = journal.dir().expect("a run folder").to_path_buf();
    drop(journal);
    let rows: Vec<Value> = std::fs::read_to_string(dir.join("events.jsonl"))
        .unwrap()
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .collect();
    let journal_ms: f64 = rows
        .iter()
        .filter(|v| v["event"] == "step_end")
        .filter_map(|v| v["wall_ms"].as_f64())
        .sum();
    let commands: Vec<String> = rows
        .iter()
        .filter(|v| v["event"] == "step_start")
        .map(|v| v["command"].as_str().unwrap_or("").to_string())
        .collect();
    let step_ms = commands
        .into_iter()
        .zip(
            rows.iter()
                .filter(|v| v["event"] == "step_end")
                .map(|v| v["wall_ms"].as_f64().unwrap_or(0.0)),
        )
        .collect();
    let _ = &Quiet;
    Measured {
        steps: analysis.steps().len(),
        step_ms,
        wall,
        first: progress.first.unwrap_or_default(),
        inside: backend.inside,
        journal_ms,
        captures: (backend.captures, backend.inner.captures_taken()),
    }
}

fn main() {
    require_chromium();
    let server = FixtureServer::start(&fixture_dir());
    let url = server.url("login.html");
    let artifacts = std::env::temp_dir().join(format!("ad-web-bench-{}", std::process::id()));
    // `-- once-table` / `-- once-todo`: that journey once, its wall time in ms on one line (to
    // alternate with another tool's run of the same steps, process by process).
    if let Some(which) = std::env::args().find_map(|a| a.strip_prefix("once-").map(String::from)) {
        let (text, page) = match which.as_str() {
            "table" => (TABLE, "bfcache-table.html"),
            "todo" => (TODO, "todo.html"),
            other => panic!("no journey {other:?} (once-table, once-todo)"),
        };
        let m = measure(text, &server.url(page), &artifacts);
        println!("{:.0}", m.wall.as_secs_f64() * 1000.0);
        // Where the time went, step by step (the journal's wall_ms), on stderr.
        let steps: Vec<String> = m
            .step_ms
            .iter()
            .map(|(c, ms)| format!("{c} {ms:.0}"))
            .collect();
        eprintln!(
            "{} (captures: {} asked for, {} read)",
            steps.join(", "),
            m.captures.0,
            m.captures.1
        );
        let _ = std::fs::remove_dir_all(&artifacts);
        return;
    }
    let fifty = fifty_steps();
    // One warm-up run (page cache of the binary), then the measured runs.
    let _ = measure(SEVEN, &url, &artifacts);
    let runs: Vec<Measured> = (0..3).map(|_| measure(&fifty, &url, &artifacts)).collect();
    let median = |f: &dyn Fn(&Measured) -> f64| {
        let mut v: Vec<f64> = runs.iter().map(f).collect();
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    let steps = runs[0].steps;
    assert_eq!(steps, 50);
    let wall = median(&|m| m.wall.as_secs_f64());
    let first = median(&|m| m.first.as_secs_f64() * 1000.0);
    let overhead = median(&|m| (m.journal_ms - m.inside.as_secs_f64() * 1000.0) / m.steps as f64);
    let browser = median(&|m| m.inside.as_secs_f64() * 1000.0 / m.steps as f64);
    println!("web backend, {steps}-step script (median of 3 runs, journal on disk):");
    println!(
        "  whole script          {wall:.2} s wall ({:.1} steps/s)   goal < 5 s",
        steps as f64 / wall
    );
    println!("  cold start → step 1   {first:.0} ms (browser launch, DevTools, navigation, load)");
    println!("  per step, browser     {browser:.2} ms (inside backend calls: CDP round trips + Chromium)");
    println!(
        "  per step, ad overhead {overhead:.2} ms (journal step wall_ms − time inside the backend)"
    );
    let seven: Vec<Measured> = (0..3).map(|_| measure(SEVEN, &url, &artifacts)).collect();
    let mut w: Vec<f64> = seven.iter().map(|m| m.wall.as_secs_f64()).collect();
    w.sort_by(f64::total_cmp);
    println!(
        "7-step login script: {:.2} s wall (median of 3), browser launch included",
        w[1]
    );
    journey(
        "table page (~1,400 nodes) with back navigation",
        TABLE,
        &server.url("bfcache-table.html"),
        &artifacts,
    );
    journey("list app", TODO, &server.url("todo.html"), &artifacts);
    let (wall, cpu) = capture_ms(&server.url("bfcache-table.html"));
    println!(
        "  one capture of the table page: {wall:.1} ms (median of 15), {cpu:.1} ms of it ad's own CPU"
    );
    let _ = std::fs::remove_dir_all(&artifacts);
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// A journey's whole time (browser launch included, as a Playwright script's process) and its
/// `back` steps', median of 5 runs.
fn journey(name: &str, text: &str, url: &str, artifacts: &Path) {
    let runs: Vec<Measured> = (0..5).map(|_| measure(text, url, artifacts)).collect();
    let wall = median(runs.iter().map(|m| m.wall.as_secs_f64()).collect());
    println!(
        "{name}, {} steps: {wall:.2} s wall (median of 5, browser launch included)",
        runs[0].steps
    );
    let (asked, read) = runs[0].captures;
    println!("  captures: {asked} asked for, {read} read from the browser (first run)");
    let backs: Vec<f64> = runs
        .iter()
        .flat_map(|m| {
            m.step_ms
                .iter()
                .filter(|(c, _)| c == "back")
                .map(|(_, ms)| *ms)
        })
        .collect();
    if !backs.is_empty() {
        println!(
            "  back: {:.1} ms (median of {})",
            median(backs.clone()),
            backs.len()
        );
    }
}

/// One capture of the page at `url` (the accessibility tree, the layout and the viewport): its
/// wall time and the CPU time `ad` spent on it (reading and decoding the answers, mapping the
/// tree), medians.
fn capture_ms(url: &str) -> (f64, f64) {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let mut web = Web::new(LaunchConfig {
        offline: true,
        ..LaunchConfig::default()
    });
    // Every capture read from the browser (none answered by the one before).
    web.reuse_captures_within(Duration::ZERO);
    rt.block_on(async {
        let options = LaunchOptions {
            url: Some(url.to_string()),
            ..LaunchOptions::default()
        };
        web.launch(url, &options).await.expect("the page opens");
        let mut times = Vec::new();
        let mut cpu = Vec::new();
        for _ in 0..15 {
            let t = Instant::now();
            let c0 = thread_cpu_ms();
            let c = web.capture().await.expect("a capture");
            times.push(t.elapsed().as_secs_f64() * 1000.0);
            cpu.push(thread_cpu_ms() - c0);
            assert!(!c.roots.is_empty());
        }
        (median(times), median(cpu))
    })
}

/// The CPU time this thread has used (ms): the runtime is single-threaded, so the connection's
/// reading and every decoding of a capture are in it, and the browser's own work is not.
fn thread_cpu_ms() -> f64 {
    std::fs::read_to_string("/proc/thread-self/schedstat")
        .ok()
        .and_then(|s| s.split_whitespace().next()?.parse::<f64>().ok())
        .map_or(0.0, |ns| ns / 1e6)
}
