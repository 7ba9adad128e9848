//! `ad dap`: the time from a `next` request to the `stopped` event, on the simulated device
//! (and on the web backend in headless Chromium when `--web` is passed and Chromium is
//! installed). Each `next` runs one step of a read-only script (`wait`, `is visible`,
//! `get text` in turn) and stops before the following one.
//!
//! `cargo bench -p ad-cli --bench dap` (a debug build works too: `cargo build -p ad-cli` then
//! `cargo bench -p ad-cli --bench dap --profile dev`). Prints the median, p90, minimum and
//! maximum over the steps; nothing is asserted.

#[path = "../tests/dap_support/mod.rs"]
mod dap_support;

use std::time::Instant;

use serde_json::json;

const STEPS: usize = 60;

fn script(open: &str, field: &str) -> String {
    let mut s = String::from(open);
    for i in 0..STEPS {
        s.push_str(match i % 3 {
            0 => "wait \"id=\\\"FIELD\\\"\" 5000\n",
            1 => "is visible \"id=\\\"FIELD\\\"\"\n",
            _ => "get text \"id=\\\"FIELD\\\"\"\n",
        });
    }
    s.replace("FIELD", field)
}

fn measure(label: &str, text: &str, launch: serde_json::Value, env: &[(&str, &str)]) {
    let dir = ad_tests::scratch_dir("ad-dap-bench");
    ad_tests::copy_example_models(&dir);
    std::fs::write(dir.join("bench.ad"), text).unwrap();
    let mut launch = launch;
    launch["program"] = json!("bench.ad");
    launch["artifactsDir"] = json!(dir.join("runs"));
    launch["stopOnEntry"] = json!(true);
    let mut dap = dap_support::Dap::spawn_with(&dir, &dir.join("state"), env);
    dap.ok("initialize", json!({"adapterID": "ad"}));
    dap.ok("launch", launch);
    dap.ok("configurationDone", json!({}));
    dap.event("stopped");
    // Past `open`: every measured step is a read of the same screen.
    dap.ok("next", json!({"threadId": 1}));
    dap.event("stopped");
    let mut times = Vec::new();
    for _ in 0..STEPS - 1 {
        let t0 = Instant::now();
        let seq = dap.send("next", json!({"threadId": 1}));
        dap.response(seq);
        dap.event("stopped");
        times.push(t0.elapsed().as_secs_f64() * 1000.0);
    }
    dap.ok("disconnect", json!({}));
    dap.finish();
    times.sort_by(f64::total_cmp);
    let at = |q: f64| times[((times.len() - 1) as f64 * q).round() as usize];
    println!(
        "{label}: next → stopped over {} steps: median {:.2} ms, p90 {:.2} ms, min {:.2} ms, max {:.2} ms",
        times.len(),
        at(0.5),
        at(0.9),
        times[0],
        times[times.len() - 1]
    );
}

fn main() {
    measure(
        "sim",
        &script(
            "context platform=ios target=mobile\nopen \"com.example.shop\" --relaunch\n",
            "login.email",
        ),
        json!({}),
        &[],
    );
    if std::env::args().any(|a| a == "--web") {
        let server =
            ad_tests::web_fixture::FixtureServer::start(&ad_tests::web_fixture::fixture_dir());
        let base = server.url("").trim_end_matches('/').to_string();
        measure(
            "web",
            &script("open \"${BASE}/login.html\"\n", "email"),
            json!({"backend": "web", "env": {"BASE": base}}),
            &[],
        );
    }
}
