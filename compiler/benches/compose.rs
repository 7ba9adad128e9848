//! Checking a composition. `cargo bench -p ad-compiler --bench compose`
//!
//! A `composition-v1` parent with N includes, each a chain three fragments deep (parent →
//! `f<i>_1.ad` → `f<i>_2.ad` → `f<i>_3.ad`, every fragment an entry guard and nine steps, every
//! pin current), composed as `ad check` composes it: every file read, every preflight reason
//! checked, every digest computed, the expansion built and the rules run over it. Files come
//! from memory (the language server's case) and from a temporary folder on disk (`ad check`'s).
//!
//! Prints the median and the best of several runs for N = 10, 50 and 200, and for scale the
//! rules alone over the same expansion (what `ad check` of the `ad build` output costs).

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use ad_compiler::compose::{self, Files, FsFiles, MemoryFiles, Options};

#[global_allocator]
static GLOBAL: ad_alloc::Mimalloc = ad_alloc::Mimalloc;

const GUARD: &str = "# agent-device:target-v1 {\"id\":\"screen.title\",\"role\":\"statictext\",\"label\":\"Title\",\"ancestry\":[],\"sibling\":0,\"viewportOrder\":0,\"verification\":\"verified\"}\nwait \"id=\\\"screen.title\\\"\" 5000";

/// A fragment: marker, context, entry guard, nine steps, and its include of `next` if any.
fn fragment(tag: &str, next: Option<(&str, &str)>) -> String {
    let mut out = format!("fragment-v1\ncontext platform=ios target=mobile\n{GUARD}\n");
    for k in 0..3 {
        out.push_str(&format!(
            "# agent-device:target-v1 {{\"id\":\"{tag}.b{k}\",\"role\":\"button\",\"label\":\"Next {k}\",\"ancestry\":[{{\"role\":\"form\",\"label\":\"Step\"}}],\"sibling\":{k},\"viewportOrder\":{k},\"verification\":\"verified\"}}\nclick \"id=\\\"{tag}.b{k}\\\"\"\n"
        ));
        out.push_str(&format!("fill \"id=\\\"{tag}.f{k}\\\"\" \"${{EMAIL}}\"\n"));
        out.push_str(&format!("is visible \"label=\\\"Done {k}\\\"\"\n"));
    }
    if let Some((path, digest)) = next {
        out.push_str(&format!(
            "# agent-device:fragment-ref-v1 {{\"callSiteId\":\"next\",\"digest\":\"{digest}\"}}\ninclude \"{path}\"\n"
        ));
    }
    out
}

/// The parent and its 3·n fragments, by path under `root`.
fn project(root: &Path, n: usize) -> (PathBuf, String, Vec<(PathBuf, String)>) {
    let mut files = Vec::new();
    let mut parent = String::from(
        "composition-v1\ncontext platform=ios target=mobile\nenv EMAIL=demo@example.com\nopen \"com.example.shop\" --relaunch\n",
    );
    for i in 0..n {
        let mut next: Option<(String, String)> = None;
        for depth in (1..=3).rev() {
            let name = format!("f{i}_{depth}.ad");
            let text = fragment(
                &format!("f{i}d{depth}"),
                next.as_ref().map(|(p, d)| (p.as_str(), d.as_str())),
            );
            let digest = compose::fragment_digest(&text);
            files.push((root.join("fragments").join(&name), text));
            next = Some((name, digest));
        }
        let (name, digest) = next.unwrap();
        parent.push_str(&format!(
            "# agent-device:fragment-ref-v1 {{\"callSiteId\":\"c{i}\",\"digest\":\"{digest}\"}}\ninclude \"fragments/{name}\"\n"
        ));
    }
    parent.push_str("close\n");
    (root.join("main.ad"), parent, files)
}

/// Median and best of `runs` timings of `f`.
fn measure(runs: usize, mut f: impl FnMut()) -> (Duration, Duration) {
    f(); // warm-up
    let mut times: Vec<Duration> = (0..runs)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed()
        })
        .collect();
    times.sort();
    (times[times.len() / 2], times[0])
}

fn main() {
    let disk = std::env::temp_dir().join(format!("ad-bench-compose-{}", std::process::id()));
    for n in [10, 50, 200] {
        let root = PathBuf::from("/bench");
        let (entry, parent, fragments) = project(&root, n);
        let memory = MemoryFiles::new(fragments.clone());
        let options = Options {
            root: root.clone(),
            ..Options::default()
        };
        let check = |entry: &Path, files: &dyn Files, options: &Options| {
            let c = compose::compose(entry, &parent, files, options);
            assert!(c.diagnostics.is_empty(), "{:?}", c.diagnostics.first());
            c.flattened.lines().count()
        };
        let lines = check(&entry, &memory, &options);
        let (median, best) = measure(15, || {
            std::hint::black_box(check(&entry, &memory, &options));
        });
        println!(
            "compose N={n:>3} includes × depth 3 ({} files, {lines} expanded lines), in memory: median {:.2} ms, best {:.2} ms",
            fragments.len() + 1,
            median.as_secs_f64() * 1e3,
            best.as_secs_f64() * 1e3
        );
        // For scale: the rules alone over the same expansion (a plain script of its lines).
        let flat = compose::compose(&entry, &parent, &memory, &options).flattened;
        let (median, best) = measure(15, || {
            std::hint::black_box(ad_compiler::analyze(&flat));
        });
        println!(
            "  of which the rules over the expansion alone (ad check of the built script): median {:.2} ms, best {:.2} ms",
            median.as_secs_f64() * 1e3,
            best.as_secs_f64() * 1e3
        );
        // The same project on disk.
        let _ = std::fs::remove_dir_all(&disk);
        let (entry, parent_disk, fragments) = project(&disk, n);
        assert_eq!(parent_disk.len(), parent.len());
        std::fs::create_dir_all(disk.join("fragments")).unwrap();
        for (p, t) in &fragments {
            std::fs::write(p, t).unwrap();
        }
        std::fs::write(&entry, &parent_disk).unwrap();
        let options = Options {
            root: disk.clone(),
            ..Options::default()
        };
        let (median, best) = measure(15, || {
            let c = compose::compose(&entry, &parent_disk, &FsFiles, &options);
            assert!(c.diagnostics.is_empty(), "{:?}", c.diagnostics.first());
            std::hint::black_box(c);
        });
        println!(
            "compose N={n:>3} includes × depth 3, from disk:  median {:.2} ms, best {:.2} ms",
            median.as_secs_f64() * 1e3,
            best.as_secs_f64() * 1e3
        );
    }
    let _ = std::fs::remove_dir_all(&disk);
}
