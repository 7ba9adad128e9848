//! Writes the speed targets' input (a clean recorded flow, see `ad_tests::bench_input`) of
//! BYTES bytes to stdout: `cargo run -p ad-tests --bin ad-bench-input -- 50000000 > flow.ad`.

fn main() {
    let bytes = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or_else(|| {
            eprintln!("usage: ad-bench-input BYTES");
            std::process::exit(2);
        });
    let text = ad_tests::bench_input::recorded_flow(bytes);
    use std::io::Write;
    std::io::stdout()
        .write_all(text.as_bytes())
        .expect("stdout is writable");
}
