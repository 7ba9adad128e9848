//! A step's arguments: each value borrowed from the source text where the reader takes a token
//! as written, with the indices of the tokens it came from.

use super::built_text::BuiltText;
use ad_grammar::placeholder::has_dollar_brace;
use std::borrow::Cow;
use std::ptr::NonNull;

/// One value handed to the daemon, with the tokens it was read from.
#[derive(Debug, Clone, PartialEq)]
pub struct Arg<'src> {
    /// Borrowed from the source text when the reader takes a token as written (almost always).
    pub value: ArgText<'src>,
    /// Indices into the action line's tokens (0 is the command word).
    pub tokens: TokenIndices,
}

/// An argument's value: the source's own characters when the reader takes a token as written,
/// else the text it built (a JSON string with an escape decoded, tokens joined) in a block of
/// its own. Either way it reads as a `str`, and it is two words wide (see [`BuiltText`]).
#[derive(Clone)]
pub enum ArgText<'src> {
    Source(&'src str),
    Built(BuiltText),
}

impl<'src> ArgText<'src> {
    pub fn as_str(&self) -> &str {
        self
    }
    /// A token's value: the source's own slice, or its decoded text shared through `interner`.
    pub(super) fn from_cow(
        value: Cow<'src, str>,
        interner: &mut super::built_text::Interner,
    ) -> ArgText<'src> {
        match value {
            Cow::Borrowed(source) => ArgText::Source(source),
            Cow::Owned(built) => ArgText::Built(interner.intern(&built)),
        }
    }
    /// The same text, no longer borrowed from the source (a step that outlives its analysis).
    pub fn into_owned(self) -> ArgText<'static> {
        match self {
            ArgText::Source(source) => ArgText::Built(source.into()),
            ArgText::Built(built) => ArgText::Built(built),
        }
    }
}

impl From<String> for ArgText<'_> {
    fn from(text: String) -> Self {
        ArgText::Built(text.into())
    }
}

impl std::ops::Deref for ArgText<'_> {
    type Target = str;
    fn deref(&self) -> &str {
        match self {
            ArgText::Source(source) => source,
            ArgText::Built(built) => built,
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
/// its own for them. An enum rather than a `SmallVec` because a step borrows from the source, and
/// the analysis that keeps both needs steps covariant in that borrow (a `SmallVec` is invariant).
#[derive(Clone, Default)]
pub enum Positionals<'src> {
    #[default]
    Zero,
    One([Arg<'src>; 1]),
    Two([Arg<'src>; 2]),
    Many(Vec<Arg<'src>>),
}

impl<'src> Positionals<'src> {
    pub fn push(&mut self, arg: Arg<'src>) {
        // The first push (most steps have one positional) writes in place, without moving the
        // list out and back.
        match self {
            Positionals::Zero => *self = Positionals::One([arg]),
            Positionals::Many(many) => many.push(arg),
            Positionals::One(_) | Positionals::Two(_) => {
                *self = match std::mem::take(self) {
                    Positionals::One([a]) => Positionals::Two([a, arg]),
                    Positionals::Two([a, b]) => Positionals::Many(vec![a, b, arg]),
                    _ => unreachable!("matched above"),
                }
            }
        }
    }
    /// The same positionals, no longer borrowed from the source.
    pub fn into_owned(self) -> Positionals<'static> {
        match self {
            Positionals::Zero => Positionals::Zero,
            Positionals::One([a]) => Positionals::One([a.into_owned()]),
            Positionals::Two([a, b]) => Positionals::Two([a.into_owned(), b.into_owned()]),
            Positionals::Many(many) => {
                Positionals::Many(many.into_iter().map(Arg::into_owned).collect())
            }
        }
    }
}

impl<'src> std::ops::Deref for Positionals<'src> {
    type Target = [Arg<'src>];
    fn deref(&self) -> &[Arg<'src>] {
        match self {
            Positionals::Zero => &[],
            Positionals::One(one) => one,
            Positionals::Two(two) => two,
            Positionals::Many(many) => many,
        }
    }
}

impl<'src> std::ops::DerefMut for Positionals<'src> {
    fn deref_mut(&mut self) -> &mut [Arg<'src>] {
        match self {
            Positionals::Zero => &mut [],
            Positionals::One(one) => one,
            Positionals::Two(two) => two,
            Positionals::Many(many) => many,
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
        let mut positionals = Positionals::Zero;
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
            assert!(matches!(value, ArgText::Source(_)), "{value:?} is a copy");
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
            assert!(matches!(value, ArgText::Built(_)), "{value:?} is not built");
            assert_eq!(value, built);
        }
        // Equal values are equal wherever they are kept.
        assert_eq!(ArgText::Built("@e12".into()), *values[1][0]);
        // A step kept after its analysis owns its values.
        let owned = steps[2].clone().into_owned();
        assert!(matches!(owned.positionals[1].value, ArgText::Built(_)));
        assert_eq!(owned.positionals[1].value, *values[2][1]);
    }

    #[test]
    fn positionals_keep_up_to_two_inline_and_read_as_a_slice() {
        let arg = |v: &'static str| Arg::new(ArgText::Source(v), TokenIndices::one(1));
        let mut p = Positionals::default();
        assert!(p.is_empty());
        for (n, v) in ["a", "b", "c", "d"].into_iter().enumerate() {
            p.push(arg(v));
            assert_eq!(p.len(), n + 1);
            assert_eq!(matches!(p, Positionals::Many(_)), n >= 2);
        }
        let values: Vec<&str> = p.iter().map(|a| a.value.as_str()).collect();
        assert_eq!(values, ["a", "b", "c", "d"]);
        let collected: Positionals = ["x", "y"].into_iter().map(arg).collect();
        assert!(matches!(collected, Positionals::Two(_)));
        assert_eq!(format!("{collected:?}"), format!("{:?}", &collected[..]));
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
