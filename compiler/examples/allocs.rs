use std::sync::atomic::{AtomicUsize, Ordering};
struct Counting;
static N: AtomicUsize = AtomicUsize::new(0);
unsafe impl std::alloc::GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: std::alloc::Layout) -> *mut u8 {
        N.fetch_add(1, Ordering::Relaxed);
        unsafe { std::alloc::System.alloc(l) }
    }
    unsafe fn dealloc(&self, p: *mut u8, l: std::alloc::Layout) {
        unsafe { std::alloc::System.dealloc(p, l) }
    }
    unsafe fn realloc(&self, p: *mut u8, l: std::alloc::Layout, n: usize) -> *mut u8 {
        N.fetch_add(1, Ordering::Relaxed);
        unsafe { std::alloc::System.realloc(p, l, n) }
    }
}
#[global_allocator]
static G: Counting = Counting;
fn main() {
    if std::env::args().nth(1).as_deref() == Some("per") {
        per_command();
        return;
    }
    let dir = std::path::Path::new("/work/shared/corpus");
    let texts: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.path().extension().is_some_and(|x| x == "ad"))
        .map(|e| std::fs::read_to_string(e.path()).unwrap())
        .collect();
    let bytes: usize = texts.iter().map(|t| t.len()).sum();
    let lines: usize = texts.iter().map(|t| t.lines().count()).sum();
    let a0 = N.load(Ordering::Relaxed);
    for t in &texts {
        std::hint::black_box(ad_grammar::parse(t));
    }
    let a1 = N.load(Ordering::Relaxed);
    let parses: Vec<_> = texts.iter().map(|t| ad_grammar::parse(t)).collect();
    let b0 = N.load(Ordering::Relaxed);
    for p in &parses {
        let mut d = Vec::new();
        std::hint::black_box(ad_compiler::lower::lower(&p.file, &mut d));
    }
    let b1 = N.load(Ordering::Relaxed);
    println!("lower allocs {}", b1 - b0);
    let mut steps = 0;
    let mut diags = 0;
    for t in &texts {
        let a = ad_compiler::analyze(t);
        steps += a.steps.len();
        diags += a.diagnostics.len();
    }
    let a2 = N.load(Ordering::Relaxed);
    println!(
        "sizes: Step {} Line {} Diagnostic {} Arg {} Token {}",
        std::mem::size_of::<ad_compiler::Step>(),
        std::mem::size_of::<ad_grammar::Line>(),
        std::mem::size_of::<ad_grammar::Diagnostic>(),
        std::mem::size_of::<ad_compiler::Arg>(),
        std::mem::size_of::<ad_grammar::Token>()
    );
    println!("bytes {bytes} lines {lines} steps {steps} diags {diags}; parse allocs {} ; analyze allocs {}", a1-a0, a2-a1);
}
#[allow(dead_code)]
fn sizes() {}
pub fn per_command() {
    let dir = std::path::Path::new("/work/shared/corpus");
    let mut by: std::collections::BTreeMap<String, (usize, usize)> = Default::default();
    for e in std::fs::read_dir(dir).unwrap().filter_map(|e| e.ok()) {
        if e.path().extension().is_none_or(|x| x != "ad") {
            continue;
        }
        let text = std::fs::read_to_string(e.path()).unwrap();
        let p = ad_grammar::parse(&text);
        for (line, action) in p.file.actions() {
            let word = action.command().value(&text).to_string();
            let _ = line;
            let one = ad_grammar::parse(p.file.line_text(line));
            let mut d = Vec::new();
            let a0 = N.load(Ordering::Relaxed);
            let steps = ad_compiler::lower::lower(&one.file, &mut d);
            let a1 = N.load(Ordering::Relaxed);
            drop(steps);
            let ent = by.entry(word).or_default();
            ent.0 += 1;
            ent.1 += a1 - a0;
        }
    }
    for (k, (n, a)) in by {
        println!("{k:20} steps {n:4} allocs/step {:.1}", a as f64 / n as f64);
    }
}
