//! A step's arguments: each value borrowed from the source text where the reader takes a token
//! as written, with the indices of the tokens it came from.

use super::built_text::BuiltText;
use ad_grammar::placeholder::has_dollar_brace;
use std::borrow::Cow;
use std::marker::PhantomData;
use std::mem::MaybeUninit;
use std::ptr::NonNull;

/// One value handed to the daemon, with the tokens it was read from. `repr(C)`: its value is
/// its first word, which [`Positionals`] reads.
#[derive(Debug, Clone, PartialEq)]
#[repr(C)]
pub struct Arg<'src> {
    /// Borrowed from the source text when the reader takes a token as written (almost always).
    pub value: ArgText<'src>,
    /// Indices into the action line's tokens (0 is the command word).
    pub tokens: TokenIndices,
}

/// An argument's value: the source's own characters when the reader takes a token as written,
/// else the text it built (a JSON string with an escape decoded, tokens joined) in a block of
/// its own. Either way it reads as a `str`, and it is one word wide: a script of short steps
/// holds over a million steps of up to two inline arguments, and a slice's two words made every
/// step 16 bytes larger.
///
/// The word is a [`BuiltText`]'s block pointer (aligned, so its low bit is clear), or a source
/// slice packed with its length: the low bit set, the address in the next 47 bits and the
/// length in the top 16. A slice that does not pack (a token of 64 KiB or more, an address
/// beyond 47 bits, a 32-bit target) is kept as built text instead: the same text, in a copy.
#[repr(transparent)]
pub struct ArgText<'src> {
    word: NonNull<u8>,
    source: PhantomData<&'src str>,
}

// SAFETY: the word is a `&str` or a `BuiltText`, both `Send` and `Sync`.
unsafe impl Send for ArgText<'_> {}
// SAFETY: as above.
unsafe impl Sync for ArgText<'_> {}

/// The low bit of a word that holds a source slice.
const SOURCE_TAG: usize = 1;

#[cfg(target_pointer_width = "64")]
mod packing {
    use std::num::NonZeroUsize;
    use std::ptr::NonNull;

    /// Where a packed slice's length starts.
    const LEN_SHIFT: u32 = 48;
    /// The addresses a packed slice can hold (below 2^47: every user-space address of today's
    /// 64-bit systems, unless a program asks the kernel for more).
    const ADDR_MASK: usize = (1 << 47) - 1;

    /// `text` as one tagged word, when it fits.
    pub(super) fn pack(text: &str) -> Option<NonNull<u8>> {
        let len = text.len();
        if text.as_ptr().addr() > ADDR_MASK || len >> (usize::BITS - LEN_SHIFT) != 0 {
            return None;
        }
        // `as_ptr` of a `str` is never null (an empty one's is dangling, not null).
        let ptr = NonNull::new(text.as_ptr().cast_mut())?;
        Some(ptr.map_addr(|addr| {
            let word = addr.get() << 1 | super::SOURCE_TAG | len << LEN_SHIFT;
            NonZeroUsize::new(word).expect("the tag bit is set")
        }))
    }

    /// The slice's pointer (with the provenance `pack` was given) and its length.
    pub(super) fn unpack(word: NonNull<u8>) -> (*const u8, usize) {
        let len = word.as_ptr().addr() >> LEN_SHIFT;
        let ptr = word.as_ptr().map_addr(|w| (w >> 1) & ADDR_MASK);
        (ptr.cast_const(), len)
    }
}

#[cfg(not(target_pointer_width = "64"))]
mod packing {
    use std::ptr::NonNull;

    /// Too few bits for an address and a length: every value is kept as built text.
    pub(super) fn pack(_text: &str) -> Option<NonNull<u8>> {
        None
    }

    pub(super) fn unpack(_word: NonNull<u8>) -> (*const u8, usize) {
        unreachable!("nothing is packed on this target")
    }
}

impl<'src> ArgText<'src> {
    /// The source's own characters (a copy in the rare case they do not pack into a word).
    pub fn source(text: &'src str) -> ArgText<'src> {
        match packing::pack(text) {
            Some(word) => ArgText {
                word,
                source: PhantomData,
            },
            None => ArgText::built(BuiltText::new(text)),
        }
    }
    /// Text the reader built.
    pub fn built(text: BuiltText) -> ArgText<'src> {
        let word = text.into_raw();
        debug_assert_eq!(word.addr().get() & SOURCE_TAG, 0, "a block is aligned");
        ArgText {
            word,
            source: PhantomData,
        }
    }
    /// The source slice, when the value is the source's own characters.
    pub fn as_source(&self) -> Option<&'src str> {
        if self.word.addr().get() & SOURCE_TAG == 0 {
            return None;
        }
        let (ptr, len) = packing::unpack(self.word);
        // SAFETY: `pack` took the pointer and length of a `&'src str`, and gave back its
        // provenance; the source outlives `'src`.
        Some(unsafe { std::str::from_utf8_unchecked(std::slice::from_raw_parts(ptr, len)) })
    }
    /// Whether the value is text the reader built (not the source's own characters).
    pub fn is_built(&self) -> bool {
        self.word.addr().get() & SOURCE_TAG == 0
    }
    pub fn as_str(&self) -> &str {
        self
    }
    /// A token's value: the source's own slice, or its decoded text shared through `interner`.
    pub(super) fn from_cow(
        value: Cow<'src, str>,
        interner: &mut super::built_text::Interner,
    ) -> ArgText<'src> {
        match value {
            Cow::Borrowed(source) => ArgText::source(source),
            Cow::Owned(built) => ArgText::built(interner.intern(&built)),
        }
    }
    /// The same text, no longer borrowed from the source (a step that outlives its analysis).
    pub fn into_owned(self) -> ArgText<'static> {
        match self.as_source() {
            Some(source) => ArgText::built(source.into()),
            None => {
                let word = self.word;
                std::mem::forget(self);
                ArgText {
                    word,
                    source: PhantomData,
                }
            }
        }
    }
}

impl Drop for ArgText<'_> {
    fn drop(&mut self) {
        if self.is_built() {
            // SAFETY: an untagged word is the block of the `BuiltText` this value owns.
            drop(unsafe { BuiltText::from_raw(self.word) });
        }
    }
}

impl Clone for ArgText<'_> {
    fn clone(&self) -> Self {
        if self.is_built() {
            // SAFETY: as in `drop`; the copy is not dropped (it stays owned by `self`).
            let built = std::mem::ManuallyDrop::new(unsafe { BuiltText::from_raw(self.word) });
            return ArgText::built(BuiltText::clone(&built));
        }
        ArgText {
            word: self.word,
            source: PhantomData,
        }
    }
}

impl From<String> for ArgText<'_> {
    fn from(text: String) -> Self {
        ArgText::built(text.into())
    }
}

impl std::ops::Deref for ArgText<'_> {
    type Target = str;
    fn deref(&self) -> &str {
        match self.as_source() {
            Some(source) => source,
            // SAFETY: as in `drop`; the block lives while `self` does.
            None => unsafe { BuiltText::str_of_raw(self.word) },
        }
    }
}

impl std::fmt::Debug for ArgText<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Debug::fmt(&**self, f)
    }
}

impl std::fmt::Display for ArgText<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self)
    }
}

impl serde::Serialize for ArgText<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self)
    }
}

/// Equal when the text is: where it is kept does not matter.
impl PartialEq for ArgText<'_> {
    fn eq(&self, other: &ArgText<'_>) -> bool {
        **self == **other
    }
}

impl Eq for ArgText<'_> {}

impl PartialEq<str> for ArgText<'_> {
    fn eq(&self, other: &str) -> bool {
        **self == *other
    }
}

impl PartialEq<&str> for ArgText<'_> {
    fn eq(&self, other: &&str) -> bool {
        **self == **other
    }
}

impl<'src> Arg<'src> {
    pub(super) fn new(value: ArgText<'src>, tokens: TokenIndices) -> Arg<'src> {
        Arg { value, tokens }
    }
    /// Whether the value contains `${` (a placeholder, or text that looks like one). Asked, not
    /// stored: a scan of a short value costs less than a field in every argument of every step.
    pub fn has_dollar_brace(&self) -> bool {
        has_dollar_brace(&self.value)
    }
    /// The same argument, no longer borrowed from the source.
    pub fn into_owned(self) -> Arg<'static> {
        Arg {
            value: self.value.into_owned(),
            tokens: self.tokens,
        }
    }
}

/// The token indices of an argument (0 is the command word), in one word. Almost every argument
/// is one token: its index is kept in the word itself, tagged by the low bit, and read as a
/// one-element slice of a static table ([`INDICES`]); the rare joined argument points to a boxed
/// list. One word instead of two makes every argument, and a step, 8 bytes smaller.
pub struct TokenIndices(NonNull<Vec<usize>>);

/// How many indices are kept inline: a line's first 256 tokens (a later one is boxed).
const INLINE: usize = 256;

/// Each inline index as a slice to read: `INDICES[i] == i`.
static INDICES: [usize; INLINE] = {
    let mut table = [0; INLINE];
    let mut i = 0;
    while i < INLINE {
        table[i] = i;
        i += 1;
    }
    table
};

// SAFETY: an inline index is plain data; a boxed list is owned alone, as a `Box<Vec<usize>>`.
unsafe impl Send for TokenIndices {}
// SAFETY: as above; shared references only read.
unsafe impl Sync for TokenIndices {}

impl TokenIndices {
    pub fn one(index: usize) -> TokenIndices {
        if index >= INLINE {
            return TokenIndices::many(vec![index]);
        }
        // An odd address is never a boxed list's (a `Vec` is aligned to a word).
        let tagged = std::num::NonZeroUsize::new(index << 1 | 1).expect("odd, so not zero");
        TokenIndices(NonNull::without_provenance(tagged))
    }
    pub fn many(indices: Vec<usize>) -> TokenIndices {
        TokenIndices(NonNull::from(Box::leak(Box::new(indices))))
    }
    fn inline(&self) -> Option<usize> {
        let word = self.0.addr().get();
        (word & 1 == 1).then_some(word >> 1)
    }
}

impl Drop for TokenIndices {
    fn drop(&mut self) {
        if self.inline().is_none() {
            // SAFETY: not inline, so the pointer is the one `many` leaked from its box.
            drop(unsafe { Box::from_raw(self.0.as_ptr()) });
        }
    }
}

impl Clone for TokenIndices {
    fn clone(&self) -> TokenIndices {
        match self.inline() {
            Some(index) => TokenIndices::one(index),
            None => TokenIndices::many(self.to_vec()),
        }
    }
}

impl std::ops::Deref for TokenIndices {
    type Target = [usize];
    fn deref(&self) -> &[usize] {
        match self.inline() {
            Some(index) => std::slice::from_ref(&INDICES[index]),
            // SAFETY: not inline, so the pointer is to the list `many` boxed, owned by `self`.
            None => unsafe { self.0.as_ref() },
        }
    }
}

impl PartialEq for TokenIndices {
    fn eq(&self, other: &TokenIndices) -> bool {
        **self == **other
    }
}

impl Eq for TokenIndices {}

/// As the two-variant enum it replaced printed itself.
impl std::fmt::Debug for TokenIndices {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // A list of one is an index past the inline ones (a joined argument has several).
        match &**self {
            [one] => f.debug_tuple("One").field(&[*one]).finish(),
            many => f.debug_tuple("Many").field(&many).finish(),
        }
    }
}

impl<'a> IntoIterator for &'a TokenIndices {
    type Item = &'a usize;
    type IntoIter = std::slice::Iter<'a, usize>;
    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

impl AsRef<str> for Arg<'_> {
    fn as_ref(&self) -> &str {
        &self.value
    }
}

/// A step's positionals: up to two inline (almost every step), so a step needs no heap block of
/// its own for them, and no tag beside them either: how many there are is read from the words
/// of the slots themselves (an argument's first word, its value, is never zero), which keeps a
/// step 8 bytes smaller. Not a `SmallVec` because a step borrows from the source, and the
/// analysis that keeps both needs steps covariant in that borrow (a `SmallVec` is invariant;
/// `MaybeUninit` is not).
///
/// The slots' first words say what is kept:
/// - slot 0 holds an argument: one positional, or two when slot 1 holds one too (else slot 1's
///   first word is zero);
/// - slot 0's first word is zero: none when its second word is zero too, else the second word
///   points to a boxed list of three or more.
pub struct Positionals<'src> {
    slots: [MaybeUninit<Arg<'src>>; 2],
}

/// What a [`Positionals`] keeps, read from its words.
enum Kept<'src> {
    Zero,
    One,
    Two,
    Many(*mut Vec<Arg<'src>>),
}

impl<'src> Positionals<'src> {
    fn zero() -> Positionals<'src> {
        let mut p = Positionals {
            slots: [MaybeUninit::uninit(), MaybeUninit::uninit()],
        };
        p.set_word(0, 0, std::ptr::null_mut());
        p.set_word(0, 1, std::ptr::null_mut());
        p.set_word(1, 0, std::ptr::null_mut());
        p
    }
    pub(super) fn one(arg: Arg<'src>) -> Positionals<'src> {
        let mut p = Positionals::zero();
        p.slots[0].write(arg);
        p
    }
    pub(super) fn two(a: Arg<'src>, b: Arg<'src>) -> Positionals<'src> {
        let mut p = Positionals::zero();
        p.slots[0].write(a);
        p.slots[1].write(b);
        p
    }
    fn many(list: Vec<Arg<'src>>) -> Positionals<'src> {
        let mut p = Positionals::zero();
        p.set_word(0, 1, Box::into_raw(Box::new(list)).cast());
        p
    }

    /// Word `word` (0 or 1) of slot `slot`, as a pointer.
    fn word(&self, slot: usize, word: usize) -> *mut u8 {
        // SAFETY: the words read are written in every state (see the type's comment): slot 0's
        // first word always, its second when the first is zero, slot 1's first when slot 0
        // holds an argument. An argument is two pointer-sized words (`Arg` is `repr(C)`).
        unsafe { self.slots[slot].as_ptr().cast::<*mut u8>().add(word).read() }
    }
    fn set_word(&mut self, slot: usize, word: usize, value: *mut u8) {
        // SAFETY: in bounds of the slot (two words); overwrites nothing that needs dropping
        // (callers set words only of a slot that holds no argument).
        unsafe {
            self.slots[slot]
                .as_mut_ptr()
                .cast::<*mut u8>()
                .add(word)
                .write(value)
        }
    }
    fn kept(&self) -> Kept<'src> {
        match (self.word(0, 0).is_null(), self.word(0, 1)) {
            (true, list) if list.is_null() => Kept::Zero,
            (true, list) => Kept::Many(list.cast()),
            (false, _) if self.word(1, 0).is_null() => Kept::One,
            (false, _) => Kept::Two,
        }
    }
    /// Whether the positionals are in a list of their own (more than two).
    pub fn spilled(&self) -> bool {
        matches!(self.kept(), Kept::Many(_))
    }

    pub fn push(&mut self, arg: Arg<'src>) {
        match self.kept() {
            Kept::Zero => {
                self.slots[0].write(arg);
                // Slot 1 was left with a zero first word by `zero` (the only way to none).
            }
            Kept::One => {
                self.slots[1].write(arg);
            }
            Kept::Two => {
                // SAFETY: both slots hold arguments, moved out here and not dropped again: the
                // words are overwritten with the list's right after.
                let (a, b) = unsafe {
                    (
                        self.slots[0].assume_init_read(),
                        self.slots[1].assume_init_read(),
                    )
                };
                self.set_word(0, 0, std::ptr::null_mut());
                self.set_word(0, 1, Box::into_raw(Box::new(vec![a, b, arg])).cast());
            }
            // SAFETY: the list is owned by `self`, borrowed mutably here.
            Kept::Many(list) => unsafe { (*list).push(arg) },
        }
    }
    /// The same positionals, no longer borrowed from the source.
    pub fn into_owned(self) -> Positionals<'static> {
        let this = std::mem::ManuallyDrop::new(self);
        // SAFETY: `this` is not dropped, so every argument and the list are moved out once.
        unsafe {
            match this.kept() {
                Kept::Zero => Positionals::zero(),
                Kept::One => Positionals::one(this.slots[0].assume_init_read().into_owned()),
                Kept::Two => Positionals::two(
                    this.slots[0].assume_init_read().into_owned(),
                    this.slots[1].assume_init_read().into_owned(),
                ),
                Kept::Many(list) => Positionals::many(
                    Box::from_raw(list)
                        .into_iter()
                        .map(Arg::into_owned)
                        .collect(),
                ),
            }
        }
    }
}

impl Drop for Positionals<'_> {
    fn drop(&mut self) {
        match self.kept() {
            Kept::Zero => {}
            // SAFETY: the slots that hold arguments are dropped once, the list is freed once.
            Kept::One => unsafe { self.slots[0].assume_init_drop() },
            Kept::Two => unsafe {
                self.slots[0].assume_init_drop();
                self.slots[1].assume_init_drop();
            },
            Kept::Many(list) => drop(unsafe { Box::from_raw(list) }),
        }
    }
}

impl Default for Positionals<'_> {
    fn default() -> Self {
        Positionals::zero()
    }
}

impl Clone for Positionals<'_> {
    fn clone(&self) -> Self {
        self.iter().cloned().collect()
    }
}

impl<'src> std::ops::Deref for Positionals<'src> {
    type Target = [Arg<'src>];
    fn deref(&self) -> &[Arg<'src>] {
        let inline = self.slots.as_ptr().cast::<Arg<'src>>();
        // SAFETY: the first one or two slots hold arguments (an array of `MaybeUninit<Arg>` is
        // laid out as an array of `Arg`); a list is owned by `self`.
        unsafe {
            match self.kept() {
                Kept::Zero => &[],
                Kept::One => std::slice::from_raw_parts(inline, 1),
                Kept::Two => std::slice::from_raw_parts(inline, 2),
                Kept::Many(list) => &*list,
            }
        }
    }
}

impl<'src> std::ops::DerefMut for Positionals<'src> {
    fn deref_mut(&mut self) -> &mut [Arg<'src>] {
        let inline = self.slots.as_mut_ptr().cast::<Arg<'src>>();
        // SAFETY: as in `deref`, borrowed mutably.
        unsafe {
            match self.kept() {
                Kept::Zero => &mut [],
                Kept::One => std::slice::from_raw_parts_mut(inline, 1),
                Kept::Two => std::slice::from_raw_parts_mut(inline, 2),
                Kept::Many(list) => &mut *list,
            }
        }
    }
}

/// Equal when the lists are, however they are kept.
impl PartialEq for Positionals<'_> {
    fn eq(&self, other: &Positionals<'_>) -> bool {
        self[..] == other[..]
    }
}

impl<'src> FromIterator<Arg<'src>> for Positionals<'src> {
    fn from_iter<I: IntoIterator<Item = Arg<'src>>>(iter: I) -> Positionals<'src> {
        let mut positionals = Positionals::zero();
        for arg in iter {
            positionals.push(arg);
        }
        positionals
    }
}

impl<'a, 'src> IntoIterator for &'a Positionals<'src> {
    type Item = &'a Arg<'src>;
    type IntoIter = std::slice::Iter<'a, Arg<'src>>;
    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

impl std::fmt::Debug for Positionals<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Whether `value` is a slice of `text` itself, not a copy of it.
    fn inside(value: &str, text: &str) -> bool {
        let (v, t) = (value.as_ptr() as usize, text.as_ptr() as usize);
        v >= t && v + value.len() <= t + text.len()
    }

    #[test]
    fn a_token_taken_as_written_is_borrowed_from_the_source() {
        let analysis = crate::read(concat!(
            "open com.example.app\n",
            "click @e12~s4\n",
            "fill \"id=email\" \"a long sentence that does not fit in twenty four bytes\"\n",
            "fill \"id=name\" \"line\\nbreak\"\n",
            "fill \"id=who\" Signed  in\n",
            "fill \"id=who\" Signed in as \"Ada\"\n",
            "fill \"id=who\" Signed in as Ada\n",
        ));
        let text = analysis.text();
        let steps = analysis.steps();
        let values: Vec<Vec<&ArgText>> = steps
            .iter()
            .map(|s| s.positionals.iter().map(|a| &a.value).collect())
            .collect();
        // Bare, quoted without an escape, a stripped pin: the source's own characters.
        for value in [
            values[0][0],
            values[1][0],
            values[2][0],
            values[2][1],
            values[3][0],
        ] {
            assert!(value.as_source().is_some(), "{value:?} is a copy");
            assert!(inside(value, text), "{value:?} is not in the source");
        }
        assert_eq!(values[1][0], "@e12");
        assert_eq!(
            values[2][1],
            "a long sentence that does not fit in twenty four bytes"
        );
        // An escape decoded and tokens joined are text the reader built.
        let built = [
            (values[3][1], "line\nbreak"),
            (values[4][1], "Signed in"),
            (values[5][1], "Signed in as Ada"),
        ];
        for (value, built) in built {
            assert!(value.is_built(), "{value:?} is not built");
            assert_eq!(value, built);
        }
        // Equal values are equal wherever they are kept.
        assert_eq!(ArgText::built("@e12".into()), *values[1][0]);
        // A step kept after its analysis owns its values.
        let owned = steps[2].clone().into_owned();
        assert!(owned.positionals[1].value.is_built());
        assert_eq!(owned.positionals[1].value, *values[2][1]);
    }

    #[test]
    fn a_value_in_one_word_reads_as_its_text() {
        let long = "x".repeat(70_000);
        let source = format!("é{long}");
        for text in ["", "a", "naïve ☕", &source[2..], &source[..2]] {
            let value = ArgText::source(text);
            assert_eq!(&*value, text);
            assert_eq!(value.clone(), text);
            let owned = value.clone().into_owned();
            assert!(owned.is_built());
            drop(value);
            assert_eq!(&*owned, text);
            let built = ArgText::built(text.into());
            assert!(built.is_built() && built.as_source().is_none());
            assert_eq!(built.clone().into_owned(), text);
            let moved = std::thread::spawn(move || built.to_string())
                .join()
                .unwrap();
            assert_eq!(moved, text);
        }
        // A short slice is the source's own characters; one too long for a word is a copy.
        let short = ArgText::source(&source[..2]);
        assert_eq!(short.as_source().map(str::as_ptr), Some(source.as_ptr()));
        assert!(ArgText::source(&source[2..]).is_built());
        // An argument (value and token indices) is two words, so two fit inline in a step.
        assert_eq!(std::mem::size_of::<Arg>(), 2 * std::mem::size_of::<usize>());
    }

    #[test]
    fn positionals_keep_up_to_two_inline_and_read_as_a_slice() {
        let arg = |v: &'static str| Arg::new(ArgText::source(v), TokenIndices::one(1));
        let mut p = Positionals::default();
        assert!(p.is_empty());
        for (n, v) in ["a", "b", "c", "d"].into_iter().enumerate() {
            p.push(arg(v));
            assert_eq!(p.len(), n + 1);
            assert_eq!(p.spilled(), n >= 2);
        }
        let values: Vec<&str> = p.iter().map(|a| a.value.as_str()).collect();
        assert_eq!(values, ["a", "b", "c", "d"]);
        let collected: Positionals = ["x", "y"].into_iter().map(arg).collect();
        assert!(collected.len() == 2 && !collected.spilled());
        assert_eq!(format!("{collected:?}"), format!("{:?}", &collected[..]));
    }

    #[test]
    fn positionals_own_their_arguments_however_many() {
        let text = String::from("a b c d e");
        for n in 0..=5 {
            let words: Vec<&str> = text.split(' ').take(n).collect();
            let mut p: Positionals = words
                .iter()
                .enumerate()
                .map(|(i, w)| {
                    // Every other one built, to drop and clone both kinds.
                    let value = match i % 2 {
                        0 => ArgText::source(w),
                        _ => ArgText::built((*w).into()),
                    };
                    Arg::new(value, TokenIndices::one(i + 1))
                })
                .collect();
            let read = |p: &Positionals| -> Vec<String> {
                p.iter().map(|a| a.value.to_string()).collect()
            };
            assert_eq!(read(&p), words);
            assert_eq!(p.spilled(), n > 2);
            let copy = p.clone();
            for arg in p.iter_mut() {
                arg.value = format!("{}!", arg.value).into();
            }
            assert_eq!(read(&copy), words);
            let owned = copy.into_owned();
            drop(text.clone());
            assert_eq!(read(&owned), words);
            assert!(owned.iter().all(|a| a.value.is_built()));
            let changed: Vec<String> = words.iter().map(|w| format!("{w}!")).collect();
            assert_eq!(read(&p), changed);
            assert_eq!(p == owned, n == 0);
        }
        // Two arguments inline and nothing else: a step is 8 bytes smaller than with a tag.
        assert_eq!(
            std::mem::size_of::<Positionals>(),
            2 * std::mem::size_of::<Arg>()
        );
    }

    #[test]
    #[cfg(target_pointer_width = "64")]
    fn a_step_is_seven_words() {
        // The line, the registry index and the annotation flag share a word; then the two
        // inline arguments (four), the target evidence and the rare fields.
        assert_eq!(std::mem::size_of::<super::super::Step>(), 56);
    }

    #[test]
    fn token_indices_read_as_a_slice_in_one_word() {
        for index in [0, 1, 7, 255, 256, 100_000] {
            let one = TokenIndices::one(index);
            assert_eq!(&*one, &[index]);
            assert_eq!(one.clone(), one);
            assert_eq!(format!("{one:?}"), format!("One([{index}])"));
        }
        let many = TokenIndices::many(vec![2, 3, 4]);
        assert_eq!(&*many, &[2, 3, 4]);
        let copy = many.clone();
        drop(many);
        assert_eq!(&*copy, &[2, 3, 4]);
        assert_eq!(format!("{copy:?}"), "Many([2, 3, 4])");
        assert_ne!(copy, TokenIndices::one(2));
        assert_eq!(
            std::mem::size_of::<TokenIndices>(),
            std::mem::size_of::<usize>()
        );
    }
}
