//! [`BuiltText`]: the text a reader built for an argument (an escape decoded, tokens joined), in
//! one word and shared between the steps that build the same text.
//!
//! A step keeps up to two arguments inline, and every argument's value is either a slice of the
//! source or built text, in one word ([`ArgText`](super::ArgText): a block pointer, or a slice
//! packed with its length); and a script repeats its
//! selectors (the same element tapped again, waited for again), so an equal text built while one
//! file is lowered shares the block of the last one ([`Interner`]). A 50 MB script of short
//! steps holds over a million steps and as many escaped selectors.

use std::alloc::{alloc, dealloc, handle_alloc_error, Layout};
use std::ptr::NonNull;
use std::sync::atomic::{fence, AtomicUsize, Ordering};

/// An immutable string one pointer wide, reference-counted like an `Arc<str>`: the pointer is to
/// one heap block holding the count, the length and then the bytes.
pub struct BuiltText(NonNull<Header>);

struct Header {
    count: AtomicUsize,
    len: usize,
}

// SAFETY: the bytes are never written after `new`, and the count is atomic, as in an `Arc<str>`.
unsafe impl Send for BuiltText {}
// SAFETY: as above; shared references only read the bytes.
unsafe impl Sync for BuiltText {}

/// The block of a text of `len` bytes: the header, then the bytes.
fn layout(len: usize) -> Layout {
    Layout::new::<Header>()
        .extend(Layout::array::<u8>(len).expect("a value is at most a source's 4 GiB"))
        .expect("a value is at most a source's 4 GiB")
        .0
}

impl BuiltText {
    pub fn new(text: &str) -> BuiltText {
        let layout = layout(text.len());
        // SAFETY: the layout is never zero-sized (it holds the header).
        let block = unsafe { alloc(layout) }.cast::<Header>();
        let Some(block) = NonNull::new(block) else {
            handle_alloc_error(layout)
        };
        // SAFETY: the block is aligned for the header and holds it followed by `text.len()` bytes.
        unsafe {
            block.as_ptr().write(Header {
                count: AtomicUsize::new(1),
                len: text.len(),
            });
            std::ptr::copy_nonoverlapping(text.as_ptr(), bytes_of(block), text.len());
        }
        BuiltText(block)
    }

    pub fn as_str(&self) -> &str {
        // SAFETY: `new` wrote the header and then `len` bytes copied from a `str`; they are never
        // written again while a reference to the block lives.
        unsafe {
            let len = (*self.0.as_ptr()).len;
            let bytes = std::slice::from_raw_parts(bytes_of(self.0), len);
            std::str::from_utf8_unchecked(bytes)
        }
    }
}

impl BuiltText {
    /// The block pointer, owned by the caller until [`BuiltText::from_raw`] takes it back (an
    /// [`ArgText`](super::ArgText) keeps it in its one word). Aligned to a word.
    pub(super) fn into_raw(self) -> NonNull<u8> {
        std::mem::ManuallyDrop::new(self).0.cast()
    }
    /// Takes back a block pointer from [`BuiltText::into_raw`].
    ///
    /// # Safety
    /// `raw` came from `into_raw` and is taken back once.
    pub(super) unsafe fn from_raw(raw: NonNull<u8>) -> BuiltText {
        BuiltText(raw.cast())
    }
    /// The text of a block pointer from [`BuiltText::into_raw`], without taking it.
    ///
    /// # Safety
    /// `raw` came from `into_raw`, and its owner outlives `'a`.
    pub(super) unsafe fn str_of_raw<'a>(raw: NonNull<u8>) -> &'a str {
        // SAFETY: the block lives for `'a` (the caller's promise); `as_str` only reads it.
        let built = std::mem::ManuallyDrop::new(unsafe { BuiltText::from_raw(raw) });
        let text: *const str = built.as_str();
        // SAFETY: the bytes are in the block, not in the `ManuallyDrop` on this stack frame.
        unsafe { &*text }
    }
}

/// Where a block's bytes start: right after its header (a `u8` array needs no padding).
fn bytes_of(block: NonNull<Header>) -> *mut u8 {
    // SAFETY: the block is at least a header long.
    unsafe { block.as_ptr().add(1).cast::<u8>() }
}

impl Drop for BuiltText {
    fn drop(&mut self) {
        // SAFETY: the block lives while its count is positive, and this reference holds one.
        let header = unsafe { &*self.0.as_ptr() };
        // Release then Acquire, as `Arc` does: every use of the text by another owner happens
        // before the block is freed.
        if header.count.fetch_sub(1, Ordering::Release) != 1 {
            return;
        }
        fence(Ordering::Acquire);
        let len = header.len;
        // SAFETY: the last reference: the block was allocated by `new` with this layout.
        unsafe { dealloc(self.0.as_ptr().cast::<u8>(), layout(len)) }
    }
}

impl Clone for BuiltText {
    fn clone(&self) -> BuiltText {
        // SAFETY: the block lives while `self` does.
        let header = unsafe { &*self.0.as_ptr() };
        // Relaxed, as `Arc::clone`: a new reference is made from an existing one.
        header.count.fetch_add(1, Ordering::Relaxed);
        BuiltText(self.0)
    }
}

impl std::ops::Deref for BuiltText {
    type Target = str;
    fn deref(&self) -> &str {
        self.as_str()
    }
}

impl PartialEq for BuiltText {
    fn eq(&self, other: &BuiltText) -> bool {
        self.as_str() == other.as_str()
    }
}

impl Eq for BuiltText {}

impl From<&str> for BuiltText {
    fn from(text: &str) -> BuiltText {
        BuiltText::new(text)
    }
}

impl From<String> for BuiltText {
    fn from(text: String) -> BuiltText {
        BuiltText::new(&text)
    }
}

impl std::fmt::Debug for BuiltText {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Debug::fmt(self.as_str(), f)
    }
}

/// The texts built while one file is lowered, remembered in a fixed table indexed by a hash of
/// the text: an equal text found in its slot is shared, not built again. A slot holds the last
/// text that hashed to it, so the table never grows and a crafted file cannot make lookups slow
/// (a collision only costs the sharing). Cheaper than a hash set with a keyed hash, which cost
/// 4% of checking a file of short steps.
#[derive(Default)]
pub(super) struct Interner(Vec<Option<BuiltText>>);

/// The table's slots: 4096 (32 KB, made at the first built text).
const SLOT_BITS: u32 = 12;

impl Interner {
    pub(super) fn intern(&mut self, text: &str) -> BuiltText {
        if self.0.is_empty() {
            self.0.resize(1 << SLOT_BITS, None);
        }
        let slot = &mut self.0[slot_of(text)];
        if let Some(shared) = slot.as_ref().filter(|shared| shared.as_str() == text) {
            return shared.clone();
        }
        let built = BuiltText::new(text);
        *slot = Some(built.clone());
        built
    }
}

/// The slot of `text`: its bytes folded a word at a time with a multiply (rustc's FxHash step),
/// the top bits of the last product taken (the best mixed).
fn slot_of(text: &str) -> usize {
    const K: u64 = 0xf135_7aea_2e62_a9c5;
    let mut hash = text.len() as u64;
    let mut words = text.as_bytes().chunks_exact(8);
    for word in &mut words {
        let word = u64::from_le_bytes(word.try_into().expect("eight bytes"));
        hash = (hash.rotate_left(26) ^ word).wrapping_mul(K);
    }
    let mut last = [0u8; 8];
    last[..words.remainder().len()].copy_from_slice(words.remainder());
    hash = (hash.rotate_left(26) ^ u64::from_le_bytes(last)).wrapping_mul(K);
    (hash >> (64 - SLOT_BITS)) as usize
}

#[cfg(test)]
mod tests {
    use super::{BuiltText, Interner};

    #[test]
    fn built_text_keeps_its_bytes_and_is_one_word() {
        for text in [
            "",
            "a",
            "id=\"login\" || label=\"Sign in\"",
            "naïve ☕ line\nbreak",
        ] {
            let built = BuiltText::from(text);
            assert_eq!(&*built, text);
            let copy = built.clone();
            drop(built);
            assert_eq!(&*copy, text);
            assert_eq!(&*BuiltText::from(text.to_string()), text);
            let moved = std::thread::spawn(move || copy.to_string()).join().unwrap();
            assert_eq!(moved, text);
        }
        assert_eq!(
            std::mem::size_of::<BuiltText>(),
            std::mem::size_of::<usize>()
        );
        // An argument's value, a slice or built text, is one word: the point of the type.
        assert_eq!(
            std::mem::size_of::<super::super::ArgText<'_>>(),
            std::mem::size_of::<usize>()
        );
    }

    #[test]
    fn equal_texts_built_for_one_file_share_a_block() {
        let mut interner = Interner::default();
        let a = interner.intern("id=\"x\"");
        let b = interner.intern("id=\"x\"");
        let c = interner.intern("id=\"y\"");
        assert_eq!(a.as_ptr(), b.as_ptr());
        assert_ne!(a.as_ptr(), c.as_ptr());
        drop(interner);
        assert_eq!((&*a, &*b, &*c), ("id=\"x\"", "id=\"x\"", "id=\"y\""));
    }
}
