//! What `ad` adds on top of the agent-device daemon, on agent-device 0.21.5's Linux (AT-SPI)
//! platform driving tests/apps/gtk_login on a virtual display (same tools as the bridge tests).
//!
//! - Per step: the daemon's own latency for the requests a step makes (`snapshot`, `press`,
//!   timed raw with the runtime's client) next to the step's wall time in `ad`'s journal; the
//!   difference is `ad`'s overhead (resolution, verification, journaling, process glue).
//! - Per suite: the same scripts by `agent-device test` and by `ad test --backend agent-device`,
//!   both on one attached daemon, side by side in one run; and `ad test` with no daemon running.
//!
//! - Whole process (issue 31): a 30-step journey by `ad run --backend agent-device` and by
//!   `agent-device replay`, alternating, each starting (and stopping) a daemon of its own as a
//!   user's first run does: both medians, and each tool's time outside the steps (`ad`'s from
//!   its journal: the wall minus the steps' `wall_ms`; agent-device's from the duration its
//!   replay reports, to 0.1 s).
//!
//! `cargo bench -p ad-cli --bench agent_device` (`AD_BENCH_RUNS`, default 3; the whole-process
//! case runs at least 5 times). `cargo bench -p ad-cli --bench agent_device -- startup` runs the
//! whole-process case alone.
//!
//! `agent-device test` gets explicit paths: its glob expansion needs Node 22 (`fs.globSync`),
//! and the machine's Node is 20.

#[path = "../tests/agent_device_support/mod.rs"]
mod agent_device_support;

use std::path::Path;
use std::time::{Duration, Instant};

use ad_runtime::backends::agent_device::client::Client;
use ad_runtime::backends::agent_device::daemon::DaemonInfo;
use agent_device_support::{json, Desktop};
use serde_json::{Map, Value};

const SCRIPT: &str = r#"context platform=linux
open ad-gtk-login
fill "label=Username" "alice"
fill "label=Password" "secret"
click "label=\"Remember me\""
click "label=\"Sign In\""
wait "label=\"Welcome, alice\"" 8000
click "label=Bananas"
wait "label=\"Chosen: Bananas\"" 5000
click "label=Cherries"
wait "label=\"Chosen: Cherries\"" 5000
close
"#;

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    if v.is_empty() {
        0.0
    } else {
        v[v.len() / 2]
    }
}

/// Raw daemon latency (ms) of `command positionals` on session `session`, `n` times.
fn raw_latency(d: &Desktop, session: &str, command: &str, positionals: &[&str], n: usize) -> f64 {
    let info = DaemonInfo::read(&d.state_dir()).expect("daemon.json");
    let mut client = Client::new(info.endpoint(false), info.token.clone(), session);
    let mut flags = Map::new();
    flags.insert("platform".into(), Value::String("linux".into()));
    client.base_flags = flags;
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let p: Vec<String> = positionals.iter().map(|s| s.to_string()).collect();
    let mut times = Vec::new();
    for _ in 0..n {
        let t = Instant::now();
        rt.block_on(client.send(command, &p, &Map::new(), Some(Duration::from_secs(30))))
            .unwrap_or_else(|e| panic!("{command}: {}", e.message()));
        times.push(t.elapsed().as_secs_f64() * 1000.0);
    }
    median(times)
}

fn step_walls(run_dir: &Path) -> Vec<(usize, f64)> {
    std::fs::read_to_string(run_dir.join("events.jsonl"))
        .unwrap()
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|e| e["event"] == "step_end")
        .map(|e| {
            (
                e["step"].as_u64().unwrap_or(0) as usize,
                e["wall_ms"].as_f64().unwrap_or(0.0),
            )
        })
        .collect()
}

/// A 30-step journey through every page of the app, ending with `close`.
const JOURNEY: &str = r#"context platform=linux
open ad-gtk-login
fill "label=Username" "alice"
fill "label=Password" "secret"
click "label=\"Remember me\""
click "label=\"Sign In\""
wait "label=\"Welcome, alice\"" 8000
click "label=Bananas"
wait "label=\"Chosen: Bananas\"" 5000
click "label=Cherries"
wait "label=\"Chosen: Cherries\"" 5000
click "label=Dates"
wait "label=\"Chosen: Dates\"" 5000
click "label=Delete"
wait "label=\"Delete Dates?\"" 5000
click "label=Cancel"
wait "label=\"Kept Dates\"" 5000
click "label=Apples"
wait "label=\"Chosen: Apples\"" 5000
click "label=\"Sign Out\""
wait "label=\"Signed out\"" 5000
fill "label=Username" "bob"
fill "label=Password" "pw"
click "label=\"Sign In\""
wait "label=\"Welcome, bob\"" 8000
click "label=Elderberries"
wait "label=\"Chosen: Elderberries\"" 5000
click "label=Bananas"
wait "label=\"Chosen: Bananas\"" 5000
click "label=Cherries"
close
"#;

/// `agent-device replay`'s own duration of its steps ("Replayed 30 steps in 8.4s"), in ms.
fn replay_ms(stdout: &[u8]) -> Option<f64> {
    let text = String::from_utf8_lossy(stdout);
    let secs = text.split(" in ").nth(1)?.split('s').next()?;
    secs.trim().parse::<f64>().ok().map(|s| s * 1000.0)
}

/// The same journey, whole process, by `ad run` and by `agent-device replay`, alternating; each
/// starts a daemon of its own in an empty state dir and stops it (nothing is attached).
fn whole_process(d: &mut Desktop, runs: usize) {
    let script = d.script("journey.ad", JOURNEY);
    let script = script.to_str().unwrap().to_string();
    let attached_state = d.state_dir();
    let (mut ad_walls, mut ad_outside) = (Vec::new(), Vec::new());
    let (mut adv_walls, mut adv_outside) = (Vec::new(), Vec::new());
    for i in 0..runs {
        for ours in [i % 2 == 0, i % 2 != 0] {
            let state = d.dir.join(format!("whole-{i}-{ours}"));
            std::fs::create_dir_all(&state).unwrap();
            d.set_env("AGENT_DEVICE_STATE_DIR", state.to_str().unwrap());
            let t = Instant::now();
            let out = if ours {
                d.ad(&[
                    "run",
                    &script,
                    "--backend",
                    "agent-device",
                    "--json",
                    "-q",
                    "--session",
                    &format!("whole-{i}"),
                ])
            } else {
                d.agent_device(&["replay", &script, "--platform", "linux"])
            };
            let wall = t.elapsed().as_secs_f64() * 1000.0;
            let tool = if ours {
                "ad run"
            } else {
                "agent-device replay"
            };
            assert!(
                out.status.success(),
                "{tool} failed:\n{}{}",
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            );
            if ours {
                let r = json(&out);
                let steps: f64 = step_walls(&d.dir.join(r["runDir"].as_str().unwrap()))
                    .iter()
                    .map(|(_, ms)| ms)
                    .sum();
                ad_walls.push(wall);
                ad_outside.push(wall - steps);
            } else {
                adv_walls.push(wall);
                adv_outside.extend(replay_ms(&out.stdout).map(|ms| wall - ms));
            }
            // agent-device's `close` leaves the app running; ad's run ends it.
            d.kill_app();
        }
    }
    d.set_env("AGENT_DEVICE_STATE_DIR", attached_state.to_str().unwrap());
    let s = |v: &[f64]| {
        v.iter()
            .map(|x| format!("{:.2}", x / 1000.0))
            .collect::<Vec<_>>()
            .join(" ")
    };
    let (ad, adv) = (median(ad_walls.clone()), median(adv_walls.clone()));
    println!(
        "whole process, {}-step journey, {runs} alternating runs each, a daemon started per run:",
        JOURNEY
            .lines()
            .filter(|l| !l.starts_with("context"))
            .count()
    );
    println!(
        "  ad run --backend agent-device: median {:.2} s (runs {}), outside the steps median {:.2} s (runs {})",
        ad / 1000.0,
        s(&ad_walls),
        median(ad_outside.clone()) / 1000.0,
        s(&ad_outside)
    );
    println!(
        "  agent-device replay:           median {:.2} s (runs {}), outside the steps median {:.2} s (runs {})",
        adv / 1000.0,
        s(&adv_walls),
        median(adv_outside.clone()) / 1000.0,
        s(&adv_outside)
    );
    println!("  ad / agent-device: {:.2}x", ad / adv);
}

fn main() {
    let runs: usize = std::env::var("AD_BENCH_RUNS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(3);
    let only_startup = std::env::args().any(|a| a == "startup");
    let mut d = Desktop::start("bench");
    whole_process(&mut d, runs.max(5));
    if only_startup {
        return;
    }
    d.start_daemon();
    let script = d.script("bench.ad", SCRIPT);
    let script = script.to_str().unwrap();

    // Per step: ad's journal.
    let mut walls: std::collections::BTreeMap<usize, Vec<f64>> = Default::default();
    for i in 0..runs {
        let session = format!("bench-{i}");
        let out = d.ad(&[
            "run",
            script,
            "--backend",
            "agent-device",
            "--json",
            "-q",
            "--session",
            &session,
        ]);
        let r = json(&out);
        assert_eq!(r["ok"], true, "{r:#}");
        for (step, ms) in step_walls(&d.dir.join(r["runDir"].as_str().unwrap())) {
            walls.entry(step).or_default().push(ms);
        }
        d.kill_app();
    }
    // The daemon's own latency for the requests those steps make, on a live app.
    d.agent_device(&[
        "open",
        "ad-gtk-login",
        "--session",
        "raw",
        "--platform",
        "linux",
    ]);
    std::thread::sleep(Duration::from_millis(800));
    let snapshot = raw_latency(&d, "raw", "snapshot", &[], 10);
    // A press on the static heading: no state change.
    let press = raw_latency(&d, "raw", "press", &["200", "24"], 10);
    let fill = raw_latency(&d, "raw", "fill", &["200", "58", "alice"], 5);
    d.agent_device(&["close", "--session", "raw", "--platform", "linux"]);
    d.kill_app();
    println!("daemon latency (median): snapshot {snapshot:.1} ms, press {press:.1} ms, fill {fill:.1} ms");
    let lines: Vec<&str> = SCRIPT
        .lines()
        .filter(|l| !l.starts_with("context"))
        .collect();
    println!(
        "{:<4} {:<40} {:>10} {:>12} {:>10}",
        "step", "action", "ad wall", "daemon est.", "overhead"
    );
    let mut overheads = Vec::new();
    for (step, times) in &walls {
        let line = lines.get(step.wrapping_sub(1)).copied().unwrap_or("");
        let wall = median(times.clone());
        // What the daemon must spend on the step: one capture to resolve, plus the action.
        let daemon = if line.starts_with("click") {
            Some(snapshot + press)
        } else if line.starts_with("fill") {
            Some(snapshot + fill)
        } else {
            None
        };
        let over = daemon.map(|dm| wall - dm);
        if let Some(o) = over {
            overheads.push(o);
        }
        println!(
            "{step:<4} {line:<40} {wall:>8.1}ms {:>10} {:>10}",
            daemon
                .map(|x| format!("{x:.1}ms"))
                .unwrap_or_else(|| "-".into()),
            over.map(|x| format!("{x:+.1}ms"))
                .unwrap_or_else(|| "-".into())
        );
    }
    println!(
        "ad overhead per element step (median): {:+.1} ms",
        median(overheads)
    );

    // Per suite: the same scripts by both runners, one attached daemon.
    let suite = d.dir.join("suite");
    std::fs::create_dir_all(&suite).unwrap();
    for i in 0..4 {
        std::fs::write(suite.join(format!("s{i}.ad")), SCRIPT).unwrap();
    }
    let t = Instant::now();
    let adt = d.agent_device(&[
        "test",
        "suite/s0.ad",
        "suite/s1.ad",
        "suite/s2.ad",
        "suite/s3.ad",
        "--platform",
        "linux",
    ]);
    let agent_device_wall = t.elapsed().as_secs_f64();
    d.kill_app();
    let t = Instant::now();
    let ours = d.ad(&["test", "suite", "--backend", "agent-device"]);
    let ad_wall = t.elapsed().as_secs_f64();
    d.kill_app();
    // No daemon to attach to: ad test starts one for the suite (and stops it).
    let attached_state = d.state_dir();
    d.set_env(
        "AGENT_DEVICE_STATE_DIR",
        d.dir.join("no-daemon").to_str().unwrap(),
    );
    let t = Instant::now();
    let owned = d.ad(&["test", "suite", "--backend", "agent-device"]);
    let owned_wall = t.elapsed().as_secs_f64();
    d.set_env("AGENT_DEVICE_STATE_DIR", attached_state.to_str().unwrap());
    println!(
        "ad test --backend agent-device, no daemon running (ad starts one for the suite): {owned_wall:.2} s (exit {:?})",
        owned.status.code()
    );
    if !adt.status.success() {
        eprintln!(
            "agent-device test failed:\n{}{}",
            String::from_utf8_lossy(&adt.stdout),
            String::from_utf8_lossy(&adt.stderr)
        );
    }
    println!(
        "suite of 4 scripts: agent-device test {agent_device_wall:.2} s (exit {:?}), ad test --backend agent-device {ad_wall:.2} s (exit {:?})",
        adt.status.code(),
        ours.status.code()
    );
}
