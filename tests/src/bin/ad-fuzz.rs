//! Runs the fuzz targets of `ad_tests::fuzz` for as long as you like:
//!
//! ```text
//! cargo run --release -p ad-tests --bin ad-fuzz -- [TARGET…] [--seconds N] [--seed S]
//! ```
//!
//! Without targets, all of them (each for `--seconds`, default 60). A failing input is written
//! to `target/fuzz-failures/<target>-<seed>.ad`; reproduce it with `--replay FILE TARGET`.

use std::time::Duration;

fn main() {
    let mut args = std::env::args().skip(1);
    let mut targets = Vec::new();
    let mut seconds = 60u64;
    let mut seed = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--seconds" => seconds = args.next().and_then(|v| v.parse().ok()).unwrap_or(seconds),
            "--seed" => seed = args.next().and_then(|v| v.parse().ok()).unwrap_or(seed),
            "--replay" => {
                let (Some(file), Some(target)) = (args.next(), args.next()) else {
                    eprintln!("usage: ad-fuzz --replay FILE TARGET");
                    std::process::exit(2);
                };
                let input = std::fs::read(&file).unwrap_or_else(|e| {
                    eprintln!("{file}: {e}");
                    std::process::exit(2)
                });
                ad_tests::fuzz::run_one(&target, &input);
                println!("{target}: {file} passes");
                return;
            }
            t if ad_tests::fuzz::TARGETS.contains(&t) => targets.push(t.to_string()),
            other => {
                eprintln!(
                    "unknown argument {other}; targets: {}",
                    ad_tests::fuzz::TARGETS.join(", ")
                );
                std::process::exit(2);
            }
        }
    }
    if targets.is_empty() {
        targets = ad_tests::fuzz::TARGETS
            .iter()
            .map(|t| t.to_string())
            .collect();
    }
    let mut failed = false;
    for t in &targets {
        let r = ad_tests::fuzz::run(t, seed, u64::MAX, Duration::from_secs(seconds));
        match &r.failure {
            None => println!("{t}: {} inputs, no failure (seed {seed})", r.executions),
            Some((input, message)) => {
                failed = true;
                let path = ad_tests::fuzz::save_failure(t, seed, input);
                println!(
                    "{t}: FAILED after {} inputs: {message}\n  input: {}",
                    r.executions,
                    path.display()
                );
            }
        }
    }
    std::process::exit(i32::from(failed));
}
