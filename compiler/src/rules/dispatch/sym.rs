//! Values that may hold `${VAR}`s, and the questions the daemon's readers ask about them,
//! answered yes, no, or "depends on the value" ([`Tri`]). A placeholder may expand to any text,
//! so a value is known only by its literal ends: the text before its first `${` and after the
//! last `}`. Every "no" here holds for every possible value; when in doubt the answer is
//! "depends".
//!
//! The combinators ([`then`], [`branch`], [`fork`]) build a reader's verdict: a step is refused
//! only when every path the values could take refuses it.

use ad_grammar::selector;
use ad_grammar::text::{is_js_whitespace, js_number, js_trim, js_trim_start};

use super::{Refusal, Verdict};

/// Yes, no, or "depends on a `${VAR}` value".
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Tri {
    Yes,
    No,
    Unknown,
}

impl Tri {
    pub(super) fn of(b: bool) -> Tri {
        if b {
            Tri::Yes
        } else {
            Tri::No
        }
    }
    pub(super) fn and(self, other: Tri) -> Tri {
        match (self, other) {
            (Tri::No, _) | (_, Tri::No) => Tri::No,
            (Tri::Yes, Tri::Yes) => Tri::Yes,
            _ => Tri::Unknown,
        }
    }
    pub(super) fn or(self, other: Tri) -> Tri {
        match (self, other) {
            (Tri::Yes, _) | (_, Tri::Yes) => Tri::Yes,
            (Tri::No, Tri::No) => Tri::No,
            _ => Tri::Unknown,
        }
    }
    pub(super) fn not(self) -> Tri {
        match self {
            Tri::Yes => Tri::No,
            Tri::No => Tri::Yes,
            Tri::Unknown => Tri::Unknown,
        }
    }
    /// The answers this can turn out to be.
    pub(super) fn cases(self) -> &'static [bool] {
        match self {
            Tri::Yes => &[true],
            Tri::No => &[false],
            Tri::Unknown => &[true, false],
        }
    }
}

// ---- combinators ---------------------------------------------------------------------------

/// `first`, then `rest` (checks in sequence: a later check that refuses for every value refuses
/// the step whatever an earlier undecided check does).
pub(super) fn then(first: Verdict, rest: impl FnOnce() -> Verdict) -> Verdict {
    match first {
        Verdict::Refused(_) => first,
        Verdict::Pass => rest(),
        Verdict::Unknown => match rest() {
            r @ Verdict::Refused(_) => r,
            _ => Verdict::Unknown,
        },
    }
}

/// The reader takes `yes` or `no` depending on `t`; undecided, it is refused only if both are.
pub(super) fn branch(
    t: Tri,
    yes: impl FnOnce() -> Verdict,
    no: impl FnOnce() -> Verdict,
) -> Verdict {
    match t {
        Tri::Yes => yes(),
        Tri::No => no(),
        Tri::Unknown => join(yes(), no()),
    }
}

/// Every outcome the values could lead to; refused when all are, passed when all pass.
pub(super) fn fork<T>(
    outcomes: impl IntoIterator<Item = T>,
    mut f: impl FnMut(T) -> Verdict,
) -> Verdict {
    let mut acc: Option<Verdict> = None;
    for o in outcomes {
        let v = f(o);
        acc = Some(match acc {
            None => v,
            Some(a) => join(a, v),
        });
    }
    acc.unwrap_or(Verdict::Pass)
}

fn join(a: Verdict, b: Verdict) -> Verdict {
    match (a, b) {
        (r @ Verdict::Refused(_), Verdict::Refused(_)) => r,
        (Verdict::Pass, Verdict::Pass) => Verdict::Pass,
        _ => Verdict::Unknown,
    }
}

/// `t` must hold; `refusal` is the daemon's answer when it does not.
pub(super) fn need(t: Tri, refusal: impl FnOnce() -> Refusal) -> Verdict {
    match t {
        Tri::Yes => Verdict::Pass,
        Tri::No => Verdict::Refused(Box::new(refusal())),
        Tri::Unknown => Verdict::Unknown,
    }
}

// ---- values ------------------------------------------------------------------------------------

pub(super) fn dynamic(v: &str) -> bool {
    // A byte scan: asked of every value of every step, where `str::contains`' searcher setup
    // costs more than the scan.
    ad_grammar::placeholder::has_dollar_brace(v)
}

/// The literal text before the first `${` and after the last `}` of a value with placeholders:
/// whatever the values, the result starts and ends with them.
pub(super) fn literal_ends(v: &str) -> (&str, &str) {
    let start = v.find("${").unwrap_or(v.len());
    let rest = &v[start..];
    let suffix = rest.rfind('}').map_or("", |i| &rest[i + 1..]);
    (&v[..start], suffix)
}

/// Characters of a finite JavaScript numeric literal (decimal, exponent, hex, octal, binary).
fn finite_char(c: char) -> bool {
    c.is_ascii_hexdigit()
        || matches!(
            c,
            '+' | '-' | '.' | 'x' | 'X' | 'o' | 'O' | 'b' | 'B' | 'e' | 'E'
        )
}

/// A numeric test of `Number(v)`. With `${VAR}`s: no when the literal ends cannot begin or end
/// any value that passes (`label=${N}` is never a number).
fn numeric(v: &str, test: impl Fn(f64) -> bool, infinity: bool) -> Tri {
    if !dynamic(v) {
        return Tri::of(test(js_number(v)));
    }
    let (prefix, suffix) = literal_ends(v);
    let words: &[&str] = if infinity {
        &["Infinity", "+Infinity", "-Infinity"]
    } else {
        &[]
    };
    let start = js_trim_start(prefix);
    let end = suffix.trim_end_matches(is_js_whitespace);
    let start_ok = if start.contains(is_js_whitespace) {
        // The number ends inside the prefix: the rest must be blank, and the prefix a number.
        let (number, rest) = start.split_at(start.find(is_js_whitespace).unwrap_or(start.len()));
        rest.chars().all(is_js_whitespace) && end.is_empty() && test(js_number(number))
    } else {
        start.chars().all(finite_char) || words.iter().any(|w| w.starts_with(start))
    };
    let end_ok = end.chars().all(finite_char) || words.iter().any(|w| w.ends_with(end));
    if start_ok && end_ok {
        Tri::Unknown
    } else {
        Tri::No
    }
}

/// `Number.isFinite(Number(v))` (a blank value is 0).
pub(super) fn finite(v: &str) -> Tri {
    numeric(v, f64::is_finite, false)
}

/// A non-blank value whose `Number()` is finite.
pub(super) fn finite_nonblank(v: &str) -> Tri {
    blank(v).not().and(finite(v))
}

/// `Number(v)` is not NaN (`Infinity` counts).
pub(super) fn not_nan(v: &str) -> Tri {
    numeric(v, |n| !n.is_nan(), true)
}

/// `Number(v)` is a whole number within `min..=max`.
pub(super) fn integer(v: &str, min: f64, max: f64) -> Tri {
    numeric(
        v,
        |n| n.is_finite() && n.fract() == 0.0 && n >= min && n <= max,
        false,
    )
}

/// `v.trim()` is empty.
pub(super) fn blank(v: &str) -> Tri {
    if !dynamic(v) {
        return Tri::of(js_trim(v).is_empty());
    }
    let (prefix, suffix) = literal_ends(v);
    if prefix.chars().chain(suffix.chars()).all(is_js_whitespace) {
        Tri::Unknown
    } else {
        Tri::No
    }
}

/// `v === ""`.
pub(super) fn empty(v: &str) -> Tri {
    if !dynamic(v) {
        return Tri::of(v.is_empty());
    }
    let (prefix, suffix) = literal_ends(v);
    if prefix.is_empty() && suffix.is_empty() {
        Tri::Unknown
    } else {
        Tri::No
    }
}

/// `v.startsWith(c)`.
pub(super) fn starts_with(v: &str, c: char) -> Tri {
    if !dynamic(v) {
        return Tri::of(v.starts_with(c));
    }
    let (prefix, _) = literal_ends(v);
    match prefix.chars().next() {
        None => Tri::Unknown,
        Some(first) => Tri::of(first == c),
    }
}

/// `v` equals `word` (both lowercased first when `fold`, as JavaScript's `toLowerCase` does).
fn same_word(v: &str, word: &str, fold: bool) -> bool {
    if !fold {
        v == word
    } else if v.is_ascii() && word.is_ascii() {
        // No allocation for the usual case: ASCII lowercases byte by byte.
        v.eq_ignore_ascii_case(word)
    } else {
        v.to_lowercase() == word.to_lowercase()
    }
}

/// `v` equals one of `words` (lowercased first when `fold`).
pub(super) fn word_in(v: &str, words: &[&str], fold: bool) -> Tri {
    if !dynamic(v) {
        return Tri::of(words.iter().any(|w| same_word(v, w, fold)));
    }
    if words_matching(v, words, fold).is_empty() {
        Tri::No
    } else {
        Tri::Unknown
    }
}

/// The words `v` can turn out to be.
pub(super) fn words_matching<'w>(v: &str, words: &[&'w str], fold: bool) -> Vec<&'w str> {
    if !dynamic(v) {
        return words
            .iter()
            .copied()
            .filter(|w| same_word(v, w, fold))
            .collect();
    }
    let f = |s: &str| {
        if fold {
            s.to_lowercase()
        } else {
            s.to_string()
        }
    };
    let (prefix, suffix) = literal_ends(v);
    let (prefix, suffix) = (f(prefix), f(suffix));
    words
        .iter()
        .copied()
        .filter(|w| {
            let w = f(w);
            w.len() >= prefix.len() + suffix.len() && w.starts_with(&prefix) && w.ends_with(&suffix)
        })
        .collect()
}

/// Whether `v` can be something other than each of `words`.
pub(super) fn can_be_other(v: &str, words: &[&str], fold: bool) -> bool {
    word_in(v, words, fold) != Tri::Yes
}

/// agent-device's "looks like a selector term" test (`key=…` with a known key, a boolean key,
/// or `||`).
pub(super) fn looks_like_term(v: &str) -> Tri {
    if !dynamic(v) {
        return Tri::of(selector::looks_like_term(v));
    }
    let (prefix, _) = literal_ends(v);
    let p = js_trim_start(prefix);
    if let Some(eq) = p.find('=') {
        let key = js_trim(&p[..eq]).to_lowercase();
        return Tri::of(selector::is_key(&key));
    }
    // A complete first word: the value either adds nothing (the word alone is the term) or
    // makes the text contain a space, which no key does.
    if let Some(ws) = p.find(is_js_whitespace) {
        let word = &p[..ws];
        return if word == "||" || selector::is_key(&word.to_lowercase()) {
            Tri::Unknown
        } else {
            Tri::No
        };
    }
    Tri::Unknown
}

/// Whether `text` parses as a selector. With `${VAR}`s: no when a complete term before the
/// first placeholder, or after the last one (when no quote follows it), is already invalid, or
/// an `||` alternative there is empty — no value can repair it.
pub(super) fn selector_valid(text: &str) -> Tri {
    if !dynamic(text) {
        return Tri::of(selector::is_valid(text));
    }
    let (prefix, suffix) = literal_ends(text);
    if prefix_refuses(prefix) || suffix_refuses(suffix) {
        Tri::No
    } else {
        Tri::Unknown
    }
}

/// A complete invalid term (or an empty alternative) in the literal text before the first
/// placeholder: the quote state there is known, so the terms are too.
fn prefix_refuses(prefix: &str) -> bool {
    // A term is the text since the last separator (quotes included), so it is read as a slice.
    let bytes = prefix.as_bytes();
    let escaped = |i: usize| bytes[..i].iter().rev().take_while(|b| **b == b'\\').count() % 2 == 1;
    let mut quote: Option<char> = None;
    let mut term_start = 0;
    let mut segment_has_term = false;
    let mut chars = prefix.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        if (c == '"' || c == '\'') && !escaped(i) {
            quote = match quote {
                None => Some(c),
                Some(q) if q == c => None,
                q => q,
            };
        } else if quote.is_none() && c == '|' && chars.peek().map(|&(_, n)| n) == Some('|') {
            let t = prefix[term_start..i].trim();
            if t.is_empty() && !segment_has_term {
                return true; // an empty alternative
            }
            if !t.is_empty() && !selector::is_valid(t) {
                return true;
            }
            chars.next();
            term_start = i + 2;
            segment_has_term = false;
        } else if quote.is_none() && is_js_whitespace(c) {
            let t = prefix[term_start..i].trim();
            if !t.is_empty() {
                if !selector::is_valid(t) {
                    return true;
                }
                segment_has_term = true;
            }
            term_start = i + c.len_utf8();
        }
    }
    false
}

/// After the last placeholder, with no quote character: the value either leaves no quote open
/// (then the terms after the first whitespace are known) or leaves one open that nothing closes
/// (refused anyway). An invalid complete term there refuses the step.
fn suffix_refuses(suffix: &str) -> bool {
    if suffix.contains(['"', '\'']) {
        return false;
    }
    let mut rest = suffix;
    // The text up to the first separator may still be glued to the value.
    match rest.find(|c: char| is_js_whitespace(c) || c == '|') {
        Some(i) => rest = &rest[i..],
        None => return false,
    }
    let mut trailing_alternative = false;
    for segment in rest.split("||") {
        for term in segment.split(is_js_whitespace).filter(|t| !t.is_empty()) {
            if !selector::is_valid(term) {
                return true;
            }
        }
        trailing_alternative = segment.chars().all(is_js_whitespace);
    }
    // `… ||` at the end: an empty last alternative.
    rest.contains("||") && trailing_alternative
}

/// agent-device's `unknownkey=value` detector for `wait` (a `key=value` token whose key is not a
/// selector key and whose value is not empty).
pub(super) fn unknown_key_term(v: &str) -> Tri {
    if !dynamic(v) {
        let t = js_trim(v);
        let Some(eq) = t.find('=') else {
            return Tri::No;
        };
        let key = js_trim(&t[..eq]).to_lowercase();
        let value = js_trim(&t[eq + 1..]);
        return Tri::of(
            !key.is_empty()
                && !selector::is_key(&key)
                && !value.is_empty()
                && !js_trim(&selector::unquote(value)).is_empty(),
        );
    }
    let (prefix, _) = literal_ends(v);
    let p = js_trim_start(prefix);
    match p.find('=') {
        Some(eq) => {
            let key = js_trim(&p[..eq]).to_lowercase();
            if key.is_empty() || selector::is_key(&key) {
                Tri::No
            } else {
                Tri::Unknown // the value after `=` decides
            }
        }
        None => Tri::Unknown,
    }
}

/// The outcomes of agent-device's selector-prefix split (`b(tokens, {preferTrailingValue})`):
/// how many leading tokens form the selector (`None`: no prefix parses).
/// Inline for the usual one or two (no heap block per step read).
pub(super) type Outcomes = smallvec::SmallVec<[Option<usize>; 2]>;

pub(super) fn split_outcomes(tokens: &[&str], prefer_trailing: bool) -> Outcomes {
    let mut out = Outcomes::new();
    walk(
        tokens,
        prefer_trailing,
        0,
        &mut smallvec::SmallVec::new(),
        &mut out,
    );
    out.dedup();
    out
}

fn walk(
    tokens: &[&str],
    prefer: bool,
    r: usize,
    valid: &mut smallvec::SmallVec<[usize; 4]>,
    out: &mut Outcomes,
) {
    let finish = |valid: &[usize], out: &mut Outcomes| {
        let pick = if prefer {
            valid
                .iter()
                .rev()
                .find(|k| **k < tokens.len())
                .or(valid.last())
        } else {
            valid.last()
        };
        let o = pick.copied();
        if !out.contains(&o) {
            out.push(o);
        }
    };
    if r == tokens.len() {
        return finish(valid, out);
    }
    // Preferring a trailing value, a prefix of every token only counts when no shorter one is
    // valid: with one already, the last token cannot change the pick (and the whole line, the
    // longest text to join and validate, is never read).
    if prefer && r + 1 == tokens.len() && !valid.is_empty() {
        return finish(valid, out);
    }
    let term = looks_like_term(tokens[r]);
    if term != Tri::Yes {
        finish(valid, out);
    }
    if term == Tri::No {
        return;
    }
    // The first token alone needs no joining (the common case: a one-token selector).
    let owned;
    let joined = if r == 0 {
        js_trim(tokens[0])
    } else {
        owned = tokens[..=r].join(" ");
        js_trim(&owned)
    };
    let ok = if joined.is_empty() {
        Tri::No
    } else {
        selector_valid(joined)
    };
    for &yes in ok.cases() {
        if yes {
            valid.push(r + 1);
        }
        walk(tokens, prefer, r + 1, valid, out);
        if yes {
            valid.pop();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn selectors_no_value_repairs() {
        assert_eq!(selector_valid("id=x"), Tri::Yes);
        assert_eq!(selector_valid("at x"), Tri::No);
        // A complete invalid term before the placeholder: refused whatever the value.
        assert_eq!(selector_valid("at ${AD_FILENAME}"), Tri::No);
        assert_eq!(selector_valid("|| ${X}"), Tri::No);
        // …or after it, when no quote could be left open across it.
        assert_eq!(selector_valid("label=${X} --scope id=list"), Tri::No);
        assert_eq!(selector_valid("label=${X} ||"), Tri::No);
        // The placeholder can complete the term, or quote what follows it.
        assert_eq!(selector_valid("at${X}"), Tri::Unknown);
        assert_eq!(selector_valid("label=${X}"), Tri::Unknown);
        assert_eq!(selector_valid("${X}bogus"), Tri::Unknown);
        assert_eq!(selector_valid("${X} bogus\""), Tri::Unknown);
        assert_eq!(selector_valid("label=\"a ${X}\""), Tri::Unknown);
    }

    #[test]
    fn numbers_and_words_by_their_literal_ends() {
        assert_eq!(finite("12"), Tri::Yes);
        assert_eq!(finite("${N}"), Tri::Unknown);
        assert_eq!(finite("1${N}"), Tri::Unknown);
        assert_eq!(finite("label=${N}"), Tri::No);
        assert_eq!(finite("at ${N}"), Tri::No);
        assert_eq!(not_nan("at ${N}"), Tri::No);
        assert_eq!(not_nan("Inf${N}"), Tri::Unknown);
        assert_eq!(finite("5 ${N}"), Tri::Unknown);
        assert_eq!(finite("5 x${N}"), Tri::No);
        let words = &["up", "down", "left", "right"];
        assert_eq!(word_in("Up", words, false), Tri::No);
        assert_eq!(word_in("Up", words, true), Tri::Yes);
        assert_eq!(word_in("d${D}", words, false), Tri::Unknown);
        assert_eq!(word_in("x${D}", words, false), Tri::No);
        assert_eq!(words_matching("${D}t", words, false), vec!["left", "right"]);
    }

    #[test]
    fn terms_by_their_literal_start() {
        assert_eq!(looks_like_term("label=${X}"), Tri::Yes);
        assert_eq!(looks_like_term("bogus=${X}"), Tri::No);
        assert_eq!(looks_like_term("at ${X}"), Tri::No);
        assert_eq!(looks_like_term("visible ${X}"), Tri::Unknown);
        assert_eq!(looks_like_term("${X}"), Tri::Unknown);
    }

    #[test]
    fn split_outcomes_cover_every_value() {
        assert_eq!(
            split_outcomes(&["id=x", "hello"], true).as_slice(),
            [Some(1)]
        );
        assert_eq!(split_outcomes(&["Login", "x"], false).as_slice(), [None]);
        let o = split_outcomes(&["${S}", "5"], false);
        assert!(o.contains(&None) && o.contains(&Some(1)), "{o:?}");
    }
}
