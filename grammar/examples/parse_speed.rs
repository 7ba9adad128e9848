//! Parser throughput, single-threaded, with the allocator the `ad` binary ships with.
//!
//! ```text
//! cargo run --release -p ad-grammar --example parse_speed
//! ```
//!
//! 1. the corpus (`../shared/corpus` beside the repository, or `$AD_SHARED_DIR/corpus`), parsed
//!    file by file, repeated until ~50 MB have been processed;
//! 2. one generated 2 MiB script of recorded-style lines (the generator of
//!    `compiler/benches/throughput.rs`).
//!
//! Each figure is the median MB/s of several runs.

use std::time::Instant;

#[global_allocator]
static GLOBAL: ad_alloc::Mimalloc = ad_alloc::Mimalloc;

fn corpus_texts() -> Vec<String> {
    let shared = std::env::var("AD_SHARED_DIR")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|_| std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared"));
    let dir = shared.join("corpus");
    let mut texts: Vec<String> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| {
            panic!(
                "{}: {e} (set AD_SHARED_DIR to the shared/ folder)",
                dir.display()
            )
        })
        .filter_map(|e| e.ok())
        .filter(|e| e.path().extension().is_some_and(|x| x == "ad"))
        .map(|e| std::fs::read_to_string(e.path()).unwrap())
        .collect();
    texts.sort();
    texts
}

/// Recorded-style lines: annotations, quoted selectors with escapes, variables.
fn big_script(target: usize) -> String {
    let mut s = String::from("context platform=ios target=mobile timeout=60000\nenv EMAIL=demo@example.com\nopen com.example.shop --relaunch\n");
    let mut i = 0;
    while s.len() < target {
        i += 1;
        s.push_str(&format!(
            "# agent-device:target-v1 {{\"id\":\"field.{i}\",\"role\":\"textfield\",\"label\":\"Field {i}\",\"ancestry\":[{{\"role\":\"form\",\"label\":\"Profile\"}}],\"sibling\":{i},\"viewportOrder\":0,\"verification\":\"verified\"}}\n\
             fill \"id=\\\"field.{i}\\\"\" \"${{EMAIL}}\"\n\
             click \"role=\\\"button\\\" label=\\\"Next {i}\\\" || id=next-{i}\" --count 1\n\
             wait \"id=\\\"screen.{i}\\\"\" 5000\n\
             scroll down 0.5\n"
        ));
    }
    s.push_str("close\n");
    s
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

fn main() {
    let corpus = corpus_texts();
    let corpus_bytes: usize = corpus.iter().map(|t| t.len()).sum();
    let rounds = 50_000_000 / corpus_bytes + 1;
    let mut rates = Vec::new();
    for _ in 0..5 {
        let start = Instant::now();
        let mut n = 0usize;
        for _ in 0..rounds {
            for t in &corpus {
                n += ad_grammar::parse(t).file.lines.len();
            }
        }
        std::hint::black_box(n);
        rates.push((rounds * corpus_bytes) as f64 / start.elapsed().as_secs_f64() / 1e6);
    }
    println!(
        "corpus: {} files x{rounds} ({:.1} MB per run): parse median {:.1} MB/s",
        corpus.len(),
        (rounds * corpus_bytes) as f64 / 1e6,
        median(rates)
    );

    let big = big_script(2 * 1024 * 1024);
    let mut rates = Vec::new();
    let mut lines = 0;
    for _ in 0..15 {
        let start = Instant::now();
        let p = ad_grammar::parse(&big);
        rates.push(big.len() as f64 / start.elapsed().as_secs_f64() / 1e6);
        lines = p.file.lines.len();
    }
    println!(
        "single 2 MiB script ({lines} lines): parse median {:.1} MB/s",
        median(rates)
    );
}
