#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;
fn main() {
    let which = std::env::args().nth(1).unwrap_or_default();
    let dir = std::path::Path::new("/work/shared/corpus");
    let mut texts: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.path().extension().is_some_and(|x| x == "ad"))
        .map(|e| std::fs::read_to_string(e.path()).unwrap())
        .collect();
    texts.sort();
    let bytes: usize = texts.iter().map(|t| t.len()).sum();
    let rounds = std::env::var("ROUNDS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(20_000_000 / bytes);
    let reps: usize = std::env::var("REPS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(7);
    let mut best = 0f64;
    let mut n = 0;
    for _ in 0..reps {
        let start = std::time::Instant::now();
        for _ in 0..rounds {
            for t in &texts {
                if which == "parse" {
                    n += ad_grammar::parse(t).file.lines.len();
                } else {
                    n += ad_compiler::analyze(t).diagnostics.len();
                }
            }
        }
        let s = start.elapsed().as_secs_f64();
        best = best.max((rounds * bytes) as f64 / s / 1e6);
    }
    println!("{which} best {best:.1} MB/s ({n})");
}
