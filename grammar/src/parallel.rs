//! When reading and checking a script takes a second thread: the parser reads a large text in
//! two parts, and the compiler's lowering and per-step rule families split its steps in two
//! halves. Each part's results are joined in order, so what a check reports never depends on
//! the split.

use std::sync::atomic::{AtomicUsize, Ordering};

/// From how many lines or steps the work is split: below it, starting a thread costs more than it saves
/// (and the language server re-checks small scripts on every edit).
static SPLIT_FROM: AtomicUsize = AtomicUsize::new(20_000);

/// Whether work over `steps` lines or steps is split between two threads.
pub fn worth_splitting(steps: usize) -> bool {
    steps >= SPLIT_FROM.load(Ordering::Relaxed).max(2)
}

/// Sets the number of steps from which the work is split, for the whole process: the tests
/// split every script of two steps or more, to prove the results do not change.
#[doc(hidden)]
pub fn split_from(steps: usize) {
    SPLIT_FROM.store(steps, Ordering::Relaxed);
}

/// Runs `here` on this thread and `there` on a helper thread at the same time, and gives both
/// results: the one way the parser, lowering and the rules share their work.
pub fn both<A, B: Send>(here: impl FnOnce() -> A, there: impl FnOnce() -> B + Send) -> (A, B) {
    std::thread::scope(|scope| {
        let helper = scope.spawn(there);
        let mine = here();
        (
            mine,
            helper.join().expect("the helper thread does not panic"),
        )
    })
}
