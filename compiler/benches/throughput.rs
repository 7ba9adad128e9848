//! Parse + validate throughput. `cargo bench -p ad-compiler --bench throughput`
//!
//! 1. the repository's scripts (tests/conformance, tests/fixtures/check, examples) analysed file
//!    by file, repeated until 50 MB have been processed; the same for the public corpus
//!    (../shared/corpus, or AD_SHARED_DIR/corpus) when it is present;
//! 2. one generated 2 MiB script (recorded-style lines with annotations, selectors, variables);
//!
//! each parsed and validated (`ad check`'s work), parsed only, and (the 2 MiB script) formatted.
//!
//! Reports MB/s: the median and the best of several runs (a script of 20,000 lines or steps or
//! more is parsed, lowered and ruled on two threads, see `grammar/src/parallel.rs`).

use std::path::{Path, PathBuf};
use std::time::Instant;

// The allocator the `ad` binary ships with.
#[global_allocator]
static GLOBAL: ad_alloc::Mimalloc = ad_alloc::Mimalloc;

/// The `.ad` files of `dir` (and of its subfolders when `recursive`), sorted by path, as text.
fn scripts_in(dir: &Path, recursive: bool) -> Vec<String> {
    let mut paths = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        let entries = std::fs::read_dir(&d).unwrap_or_else(|e| panic!("{}: {e}", d.display()));
        for path in entries.filter_map(|e| e.ok().map(|e| e.path())) {
            if path.is_dir() && recursive {
                todo.push(path);
            } else if path.extension().is_some_and(|x| x == "ad") {
                paths.push(path);
            }
        }
    }
    paths.sort();
    paths
        .iter()
        .map(|p| String::from_utf8_lossy(&std::fs::read(p).unwrap()).into_owned())
        .collect()
}

/// The repository's own scripts: the conformance scripts, the check fixtures and the examples.
fn repository_texts() -> Vec<String> {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut texts = scripts_in(&repo.join("tests/conformance"), false);
    texts.extend(scripts_in(&repo.join("tests/fixtures/check"), false));
    texts.extend(scripts_in(&repo.join("examples"), true));
    texts
}

/// The public corpus of the optional shared/ folder, when it is present.
fn corpus_texts() -> Option<Vec<String>> {
    let shared = std::env::var_os("AD_SHARED_DIR")
        .filter(|d| !d.is_empty())
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared"));
    let dir = shared.join("corpus");
    if dir.is_dir() {
        Some(scripts_in(&dir, false))
    } else {
        println!(
            "corpus: {} not present; measuring the repository's own scripts only",
            dir.display()
        );
        None
    }
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

/// Runs `work` (which processes `bytes` bytes) `runs` times; prints the median and best MB/s.
/// The machine this runs on is shared, so single runs swing by 10-20%: the median is the
/// figure to quote, the best shows what the code does when nothing else competes.
fn measure(label: &str, runs: usize, bytes: usize, mut work: impl FnMut() -> usize) {
    let mut rates: Vec<f64> = (0..runs)
        .map(|_| {
            let start = Instant::now();
            std::hint::black_box(work());
            bytes as f64 / start.elapsed().as_secs_f64() / 1e6
        })
        .collect();
    rates.sort_by(|a, b| a.partial_cmp(b).unwrap());
    println!(
        "{label}: median {:.1} MB/s, best {:.1} MB/s ({runs} runs)",
        rates[rates.len() / 2],
        rates[rates.len() - 1]
    );
}

/// Parse + validate, then parse only, over `texts` file by file, repeated to about 50 MB.
fn measure_files(name: &str, texts: &[String]) {
    let bytes: usize = texts.iter().map(|t| t.len()).sum();
    let rounds = 50 * 1024 * 1024 / bytes + 1;
    measure(
        &format!(
            "{name} x{rounds} ({:.1} MB, {} files each round), parse+validate",
            (rounds * bytes) as f64 / 1e6,
            texts.len()
        ),
        5,
        rounds * bytes,
        || {
            let mut n = 0;
            for _ in 0..rounds {
                for t in texts {
                    n += ad_compiler::analyze(t).diagnostics.len();
                }
            }
            n
        },
    );
    measure(
        &format!("{name} x{rounds}, parse only"),
        5,
        rounds * bytes,
        || {
            let mut n = 0;
            for _ in 0..rounds {
                for t in texts {
                    n += ad_grammar::parse(t).file.lines.len();
                }
            }
            n
        },
    );
}

fn main() {
    measure_files("repository scripts", &repository_texts());
    if let Some(corpus) = corpus_texts() {
        measure_files("corpus", &corpus);
    }

    let big = big_script(2 * 1024 * 1024);
    let lines = ad_grammar::parse(&big).file.lines.len();
    measure(
        &format!("single 2 MiB script ({lines} lines), parse+validate"),
        15,
        big.len(),
        || ad_compiler::analyze(&big).steps().len(),
    );
    measure("single 2 MiB script, parse only", 15, big.len(), || {
        ad_grammar::parse(&big).file.lines.len()
    });

    // `ad fmt` on a script that is not yet canonical (hand-written spacing, flags mid-line).
    let messy = big
        .replace(" --count 1", "  --count  1")
        .replace("scroll down 0.5", "scroll   down   0.5");
    measure(
        "format a 2 MiB script (each action line rewritten and read back)",
        5,
        messy.len(),
        || ad_compiler::format::format(&messy).output.len(),
    );
}
