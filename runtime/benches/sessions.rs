//! Session daemon benchmark (no criterion: `cargo bench -p ad-runtime --bench sessions`): the
//! daemon's own time per session command on the sim (target: under 5 ms), and the round trip
//! through its Unix socket. A login journey is recorded (armed, with evidence capture and the
//! journal on disk, as the daemon runs it) and then a loop of typical commands (press, wait,
//! fill, get, snapshot) runs on the live session.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use ad_runtime::session::authoring::daemon::{self, Client, Message};
use ad_runtime::session::authoring::{Request, Sessions};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

const LOOP: &[&[&str]] = &[
    &["press", "id=\"tab.catalog\""],
    &["wait", "id=\"product.red-mug\""],
    &["press", "id=\"tab.profile\""],
    &["wait", "id=\"profile.title\""],
    &["get", "text", "id=\"profile.name\""],
    &["snapshot", "-i"],
    &["press", "id=\"tab.home\""],
    &["wait", "id=\"home.title\""],
];

fn journey(app: &str) -> Vec<Vec<String>> {
    let w = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    vec![
        w(&[
            "open",
            "com.example.shop",
            "--relaunch",
            "--save-script=bench.ad",
            "--app",
            app,
        ]),
        w(&["fill", "id=\"login.email\"", "demo@example.com"]),
        w(&[
            "fill",
            "id=\"login.password\"",
            "hunter2",
            "--record-as",
            "PASSWORD",
        ]),
        w(&["press", "id=\"login.submit\""]),
        w(&["wait", "id=\"home.title\""]),
    ]
}

fn report(name: &str, mut v: Vec<f64>) {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    let pct = |p: f64| v[((v.len() as f64 - 1.0) * p) as usize];
    let mean = v.iter().sum::<f64>() / v.len() as f64;
    println!(
        "{name:<44} n={:<5} mean {mean:.3} ms  p50 {:.3}  p95 {:.3}  max {:.3}",
        v.len(),
        pct(0.5),
        pct(0.95),
        pct(1.0)
    );
}

fn in_process(dir: &Path, app: &str, no_journal: bool, rounds: usize) -> (Vec<f64>, Vec<f64>) {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let mut s = Sessions::new(dir.join("state"));
    s.no_journal = no_journal;
    let req = |words: Vec<String>| Request {
        session: "bench".into(),
        words,
        cwd: dir.to_path_buf(),
        shell_env: Vec::new(),
        ..Request::default()
    };
    let mut record = Vec::new();
    for words in journey(app) {
        let r = rt.block_on(s.handle(req(words.clone())));
        assert!(r.ok, "{words:?}: {r:?}");
        record.push(r.daemon_ms);
    }
    let mut live = Vec::new();
    for _ in 0..rounds {
        for words in LOOP {
            let r = rt.block_on(s.handle(req(words.iter().map(|w| w.to_string()).collect())));
            assert!(r.ok, "{words:?}: {r:?}");
            live.push(r.daemon_ms);
        }
    }
    rt.block_on(s.handle(req(vec!["close".into()])));
    (record, live)
}

fn main() {
    let app = repo().join("examples/apps/shop.json");
    let app = app.to_str().unwrap();
    let base = std::env::temp_dir().join(format!("ad-bench-sessions-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&base);
    std::fs::create_dir_all(&base).unwrap();

    let (rec, live) = in_process(&base.join("mem"), app, true, 200);
    report("daemon time, recording (journal in memory)", rec);
    report("daemon time, live commands (journal in memory)", live);
    let (rec, live) = in_process(&base.join("disk"), app, false, 200);
    report("daemon time, recording (journal on disk)", rec);
    report("daemon time, live commands (journal on disk)", live);

    // Through the socket: a daemon thread, one client connection per command (as `ad` does).
    let state = base.join("sock/state");
    let st = state.clone();
    let server = std::thread::spawn(move || daemon::serve(&st, Duration::from_millis(500)));
    let cwd = base.join("sock");
    let send = |words: &[String]| {
        let mut c = Client::connect(&state, || Ok(())).unwrap();
        let t = Instant::now();
        let r = c
            .send(&Message::Command(Request {
                session: "bench".into(),
                words: words.to_vec(),
                cwd: cwd.clone(),
                shell_env: Vec::new(),
                ..Request::default()
            }))
            .unwrap();
        assert!(r.ok, "{words:?}: {r:?}");
        (t.elapsed().as_secs_f64() * 1000.0, r.daemon_ms)
    };
    for words in journey(app) {
        send(&words);
    }
    let (mut rtt, mut own) = (Vec::new(), Vec::new());
    for _ in 0..100 {
        for words in LOOP {
            let (a, b) = send(&words.iter().map(|w| w.to_string()).collect::<Vec<_>>());
            rtt.push(a);
            own.push(b);
        }
    }
    report("socket round trip, live commands (disk journal)", rtt);
    report("  of which daemon time", own);
    send(&["close".to_string()]);
    server.join().unwrap().unwrap();
    let _ = std::fs::remove_dir_all(&base);
}
