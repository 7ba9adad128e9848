//! Parse + validate throughput. `cargo bench -p ad-compiler --bench throughput`
//!
//! 1. the corpus (../shared/corpus, or AD_SHARED_DIR/corpus) analysed file by file, repeated
//!    until 50 MB have been processed;
//! 2. one generated 2 MiB script (recorded-style lines with annotations, selectors, variables).
//!
//! Reports MB/s (single-threaded) as the median of several runs.

use std::time::Instant;

// The allocator the `ad` binary ships with.
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
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    v[v.len() / 2]
}

fn main() {
    let corpus = corpus_texts();
    let corpus_bytes: usize = corpus.iter().map(|t| t.len()).sum();
    let target = 50 * 1024 * 1024;
    let rounds = target / corpus_bytes + 1;
    let mut rates = Vec::new();
    for _ in 0..3 {
        let start = Instant::now();
        let mut n = 0usize;
        for _ in 0..rounds {
            for t in &corpus {
                let a = ad_compiler::analyze(t);
                n += a.diagnostics.len();
            }
        }
        let secs = start.elapsed().as_secs_f64();
        std::hint::black_box(n);
        rates.push((rounds * corpus_bytes) as f64 / secs / 1e6);
    }
    println!(
        "corpus x{rounds} ({:.1} MB, {} files each round): parse+validate median {:.1} MB/s",
        (rounds * corpus_bytes) as f64 / 1e6,
        corpus.len(),
        median(rates)
    );

    let big = big_script(2 * 1024 * 1024);
    let mut rates = Vec::new();
    let mut lines = 0;
    for _ in 0..5 {
        let start = Instant::now();
        let a = ad_compiler::analyze(&big);
        let secs = start.elapsed().as_secs_f64();
        lines = a.parse.file.lines.len();
        rates.push(big.len() as f64 / secs / 1e6);
    }
    println!(
        "single 2 MiB script ({lines} lines): parse+validate median {:.1} MB/s",
        median(rates)
    );

    let mut rates = Vec::new();
    for _ in 0..5 {
        let start = Instant::now();
        let p = ad_grammar::parse(&big);
        std::hint::black_box(p.file.lines.len());
        rates.push(big.len() as f64 / start.elapsed().as_secs_f64() / 1e6);
    }
    println!(
        "single 2 MiB script: parse only median {:.1} MB/s",
        median(rates)
    );

    // `ad fmt` on a script that is not yet canonical (hand-written spacing, flags mid-line).
    let messy = big
        .replace(" --count 1", "  --count  1")
        .replace("scroll down 0.5", "scroll   down   0.5");
    let mut rates = Vec::new();
    for _ in 0..5 {
        let start = Instant::now();
        let f = ad_compiler::format::format(&messy);
        std::hint::black_box(f.output.len());
        rates.push(messy.len() as f64 / start.elapsed().as_secs_f64() / 1e6);
    }
    println!(
        "format a 2 MiB script (each action line rewritten and read back): median {:.1} MB/s",
        median(rates)
    );
}
