//! Every fuzz target (`ad_tests::fuzz`) for a bounded number of inputs and a bounded time, from
//! the checked-in seed corpus: the parser, the formatter, check with fixes, the language server
//! and its transport. `AD_FUZZ_SEED` picks another stream (default: fixed, so a CI failure
//! reproduces), `AD_FUZZ_SCALE` multiplies the input counts, `AD_FUZZ_SECONDS` caps each target
//! (default 60). Longer runs: `cargo run --release -p ad-tests --bin ad-fuzz`.

use std::time::Duration;

fn env_u64(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(default)
}

fn fuzz(target: &str, inputs: u64) {
    let seed = env_u64("AD_FUZZ_SEED", 0x00AD_F022);
    let inputs = inputs * env_u64("AD_FUZZ_SCALE", 1);
    let budget = Duration::from_secs(env_u64("AD_FUZZ_SECONDS", 60));
    let r = ad_tests::fuzz::run(target, seed, inputs, budget);
    println!("fuzz {target}: {} inputs (seed {seed:#x})", r.executions);
    if let Some((input, message)) = r.failure {
        let path = ad_tests::fuzz::save_failure(target, seed, &input);
        panic!(
            "fuzz {target} failed after {} inputs: {message}\ninput saved to {}\nreproduce: cargo run -p ad-tests --bin ad-fuzz -- --replay {} {target}",
            r.executions,
            path.display(),
            path.display()
        );
    }
    assert!(r.executions > 0, "no input ran");
}

#[test]
fn fuzz_parser() {
    fuzz("parser", 20_000);
}

#[test]
fn fuzz_formatter() {
    fuzz("formatter", 8_000);
}

#[test]
fn fuzz_check_with_fixes() {
    fuzz("check", 8_000);
}

#[test]
fn fuzz_language_server() {
    fuzz("lsp", 600);
}

#[test]
fn fuzz_transport_framing() {
    fuzz("framing", 15_000);
}
