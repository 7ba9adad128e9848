//! `ad-alloc`: the global allocator of the `ad` binary and of the benchmarks that measure it.
//!
//! It is mimalloc, called the way the C library is meant to be called: `mi_malloc` for the
//! ordinary alignments mimalloc guarantees anyway, `mi_malloc_aligned` only beyond them. The
//! `mimalloc` crate takes the aligned path for every request, which costs checking a script
//! (allocation-heavy: strings, token lists, diagnostics) several percent for nothing.
//!
//! ```text
//! #[global_allocator]
//! static GLOBAL: ad_alloc::Mimalloc = ad_alloc::Mimalloc;
//! ```

use std::alloc::{GlobalAlloc, Layout};
use std::ffi::c_void;

use libmimalloc_sys as mi;

/// mimalloc on its fast path.
pub struct Mimalloc;

/// Every mimalloc block of at least this size is aligned to it (`MI_MAX_ALIGN_SIZE` on 64-bit
/// targets; smaller blocks are aligned to their size class, a multiple of the word size).
const GUARANTEED_ALIGN: usize = 16;

/// Whether `mi_malloc(size)` already satisfies the layout. The same rule as the standard
/// library's `System` allocator uses for `malloc`: the alignment is at most the guaranteed one
/// and no larger than the size.
fn plain(align: usize, size: usize) -> bool {
    align <= GUARANTEED_ALIGN && align <= size
}

// SAFETY: every block comes from mimalloc and goes back to it; alignment is either guaranteed by
// `mi_malloc` (see `plain`) or requested explicitly.
unsafe impl GlobalAlloc for Mimalloc {
    #[inline]
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: plain C calls; mimalloc accepts any size.
        unsafe {
            if plain(layout.align(), layout.size()) {
                mi::mi_malloc(layout.size()) as *mut u8
            } else {
                mi::mi_malloc_aligned(layout.size(), layout.align()) as *mut u8
            }
        }
    }

    #[inline]
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: as in `alloc`.
        unsafe {
            if plain(layout.align(), layout.size()) {
                mi::mi_zalloc(layout.size()) as *mut u8
            } else {
                mi::mi_zalloc_aligned(layout.size(), layout.align()) as *mut u8
            }
        }
    }

    #[inline]
    unsafe fn dealloc(&self, ptr: *mut u8, _layout: Layout) {
        // SAFETY: `ptr` was returned by this allocator (the `GlobalAlloc` contract).
        unsafe { mi::mi_free(ptr as *mut c_void) }
    }

    #[inline]
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: `ptr` was returned by this allocator with `layout` (the `GlobalAlloc` contract).
        unsafe {
            if plain(layout.align(), new_size) {
                mi::mi_realloc(ptr as *mut c_void, new_size) as *mut u8
            } else {
                mi::mi_realloc_aligned(ptr as *mut c_void, new_size, layout.align()) as *mut u8
            }
        }
    }
}

extern "C" {
    // mimalloc's own; `libmimalloc-sys` declares it only with its `extended` feature.
    fn mi_collect(force: bool);
}

/// Gives the memory mimalloc holds free back to the system. mimalloc keeps freed pages for
/// reuse, so a long-lived process (the session daemon, after a request of megabytes) would
/// otherwise stay at its peak size.
pub fn release_free_memory() {
    // SAFETY: a plain C call with no preconditions.
    unsafe { mi_collect(true) }
}

/// Small pages only, for the rest of the process: on Linux the kernel gives this process no
/// transparent huge pages, whatever mimalloc asks for. A huge page is 2 MiB of memory for any
/// byte touched in it, which cost a short-lived `ad` several megabytes of its peak (about 4% of
/// checking a 50 MB script), and the faults it saves were not measurably faster. Call it first
/// in `main`.
pub fn use_small_pages() {
    #[cfg(target_os = "linux")]
    // SAFETY: PR_SET_THP_DISABLE takes a flag and changes only this process's setting.
    unsafe {
        libc::prctl(libc::PR_SET_THP_DISABLE, 1, 0, 0, 0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[cfg(target_os = "linux")]
    fn small_pages_are_the_process_setting() {
        use_small_pages();
        // SAFETY: a read of this process's setting.
        assert_eq!(
            unsafe { libc::prctl(libc::PR_GET_THP_DISABLE, 0, 0, 0, 0) },
            1
        );
    }

    #[test]
    fn blocks_honour_their_layouts() {
        let a = Mimalloc;
        for align in [1, 2, 4, 8, 16, 32, 64, 4096] {
            for size in [1, 7, 8, 15, 16, 24, 40, 100, 1000, 70_000] {
                let layout = Layout::from_size_align(size, align).unwrap();
                unsafe {
                    let p = a.alloc(layout);
                    assert!(!p.is_null());
                    assert_eq!(p as usize % align, 0, "alloc {size} @ {align}");
                    p.write_bytes(0xAB, size);
                    let q = a.realloc(p, layout, size * 3);
                    assert_eq!(q as usize % align, 0, "realloc {size} @ {align}");
                    assert_eq!(*q, 0xAB);
                    a.dealloc(q, Layout::from_size_align(size * 3, align).unwrap());
                    let z = a.alloc_zeroed(layout);
                    assert_eq!(z as usize % align, 0, "zalloc {size} @ {align}");
                    assert!((0..size).all(|i| *z.add(i) == 0));
                    a.dealloc(z, layout);
                }
            }
        }
    }
}
