//! One pass over a `target-v1` payload in the shape agent-device's writer gives it: no whitespace,
//! known fields at most once, ASCII strings without escapes, integers as plain digits, ancestry
//! entries of `role` and `label`. Almost every recorded annotation has that shape, and for it the
//! field rules reduce to a few checks made while reading, with no second pass over the JSON.
//!
//! Anything else (whitespace, an escape, a non-ASCII character, a duplicate or unknown field, a
//! `rect` or `scrollRegion`, a value the rules reject) answers `None` and the caller takes the
//! general reader, which gives the reference's exact verdict and message. So this reader only
//! decides when its answer is the general reader's: the tests check the two agree.

use super::{
    normalize_label_owned, AncestryEntry, CompactString, TargetEvidence, VerificationState,
    ANCESTRY_CAP, FIELD_CAP,
};
use crate::text::find_ascii_string_stop;
use std::borrow::Cow;

/// Reads `payload` when it has the writer's shape and passes every field rule.
pub(super) fn read(payload: &str) -> Option<TargetEvidence> {
    let mut r = Reader {
        text: payload,
        b: payload.as_bytes(),
        i: 0,
    };
    r.byte(b'{')?;
    let (mut seen, mut next_key) = (0u8, 0);
    let (mut id, mut role, mut label, mut verification) = (None, None, None, None);
    let mut ancestry = Vec::new();
    let (mut sibling, mut viewport_order) = (0, 0);
    loop {
        let key = r.key(TOP_KEYS, &mut next_key)?;
        let bit = 1u8 << key as u8;
        if seen & bit != 0 {
            return None; // the last one wins in JSON.parse: the general reader knows which
        }
        seen |= bit;
        match key {
            Key::Role => role = Some(r.string()?),
            Key::Id => id = Some(r.string()?),
            Key::Label => label = Some(r.string()?),
            Key::Ancestry => ancestry = r.ancestry()?,
            Key::Sibling => sibling = r.integer()?,
            Key::ViewportOrder => viewport_order = r.integer()?,
            Key::Verification => {
                verification = Some(match r.string()? {
                    "verified" => VerificationState::Verified,
                    "unverifiable" => VerificationState::Unverifiable,
                    _ => return None,
                })
            }
        }
        match r.next()? {
            b',' => continue,
            b'}' if r.i == r.b.len() => break,
            _ => return None,
        }
    }
    Some(TargetEvidence {
        id: id.filter(|s| !s.is_empty()).map(CompactString::new),
        role: CompactString::new(role?),
        label: optional_label(label),
        ancestry,
        sibling,
        viewport_order,
        scroll_region: None,
        rect: None,
        verification: verification?,
    })
}

/// A label as the rules keep it: whitespace runs collapsed, empty → absent. The strings read here
/// are ASCII from the space up, where the only whitespace is the space: a label without a leading,
/// trailing or doubled one is already normal.
fn optional_label(label: Option<&str>) -> Option<CompactString> {
    let label = label?;
    let b = label.as_bytes();
    let normal = b.first() != Some(&b' ')
        && b.last() != Some(&b' ')
        && !b.windows(2).any(|w| w[0] == b' ' && w[1] == b' ');
    let label = match normal {
        true => CompactString::new(label),
        false => normalize_label_owned(Cow::Borrowed(label)),
    };
    Some(label).filter(|l| !l.is_empty())
}

#[derive(Clone, Copy)]
enum Key {
    Role,
    Id,
    Label,
    Ancestry,
    Sibling,
    ViewportOrder,
    Verification,
}

/// A field's name as written, with its quotes and the colon after it (at most 16 bytes), packed
/// into an integer: the writer's names are plain ASCII, so a name is recognized by one masked
/// comparison of the next 16 bytes, with no string to scan and decode.
#[derive(Clone, Copy)]
struct Name {
    packed: u128,
    mask: u128,
    len: usize,
    key: Key,
}

const fn name(written: &[u8], key: Key) -> Name {
    assert!(written.len() <= 16);
    let mut buf = [0u8; 16];
    let mut i = 0;
    while i < written.len() {
        buf[i] = written[i];
        i += 1;
    }
    Name {
        packed: u128::from_le_bytes(buf),
        mask: u128::MAX >> (8 * (16 - written.len())),
        len: written.len(),
        key,
    }
}

const TOP_KEYS: &[Name] = &[
    name(b"\"id\":", Key::Id),
    name(b"\"role\":", Key::Role),
    name(b"\"label\":", Key::Label),
    name(b"\"ancestry\":", Key::Ancestry),
    name(b"\"sibling\":", Key::Sibling),
    name(b"\"viewportOrder\":", Key::ViewportOrder),
    name(b"\"verification\":", Key::Verification),
];
const ENTRY_KEYS: &[Name] = &[
    name(b"\"role\":", Key::Role),
    name(b"\"label\":", Key::Label),
];

/// The next 16 bytes of `b` as an integer, zeros past its end (a name whose bytes are not all
/// there cannot match: its own bytes are not zero).
fn next_16(b: &[u8]) -> u128 {
    match b.first_chunk::<16>() {
        Some(chunk) => u128::from_le_bytes(*chunk),
        None => {
            let mut buf = [0u8; 16];
            for (slot, &c) in buf.iter_mut().zip(b) {
                *slot = c;
            }
            u128::from_le_bytes(buf)
        }
    }
}

struct Reader<'a> {
    text: &'a str,
    b: &'a [u8],
    i: usize,
}

impl<'a> Reader<'a> {
    fn next(&mut self) -> Option<u8> {
        let c = *self.b.get(self.i)?;
        self.i += 1;
        Some(c)
    }

    fn byte(&mut self, want: u8) -> Option<()> {
        (self.next()? == want).then_some(())
    }

    /// One of `keys` (name and colon). The writer's order is `keys`' order, so the search starts
    /// after the last one found (`next`): the first comparison usually matches.
    fn key(&mut self, keys: &[Name], next: &mut usize) -> Option<Key> {
        let head = next_16(&self.b[self.i..]);
        let found = |k: &usize| keys.get(*k).is_some_and(|n| head & n.mask == n.packed);
        let k = match found(next) {
            true => *next,
            false => (0..keys.len()).find(found)?,
        };
        self.i += keys[k].len;
        *next = k + 1;
        Some(keys[k].key)
    }

    /// A string of ASCII without a backslash or control character, at most the field cap long:
    /// its value is its text, already NFC, and under the cap.
    fn string(&mut self) -> Option<&'a str> {
        self.byte(b'"')?;
        let start = self.i;
        let end = find_ascii_string_stop(self.b, start);
        if self.b.get(end) != Some(&b'"') || end - start > FIELD_CAP {
            return None;
        }
        self.i = end + 1;
        Some(&self.text[start..end])
    }

    /// `0` or a digit run without a leading zero, short enough to be an exact safe integer.
    fn integer(&mut self) -> Option<u64> {
        let start = self.i;
        while self.b.get(self.i).is_some_and(u8::is_ascii_digit) {
            self.i += 1;
        }
        let digits = &self.b[start..self.i];
        if digits.is_empty() || digits.len() > 15 || (digits.len() > 1 && digits[0] == b'0') {
            return None;
        }
        Some(digits.iter().fold(0, |n, &d| n * 10 + u64::from(d - b'0')))
    }

    /// `[{"role":…,"label":…},…]`: entries with a role, at most the cap of them.
    fn ancestry(&mut self) -> Option<Vec<AncestryEntry>> {
        self.byte(b'[')?;
        let mut entries = Vec::new();
        if self.b.get(self.i) == Some(&b']') {
            self.i += 1;
            return Some(entries);
        }
        loop {
            self.byte(b'{')?;
            let (mut role, mut label, mut next_key) = (None, None, 0);
            loop {
                let slot = match self.key(ENTRY_KEYS, &mut next_key)? {
                    Key::Role => &mut role,
                    _ => &mut label,
                };
                if slot.replace(self.string()?).is_some() {
                    return None;
                }
                match self.next()? {
                    b',' => continue,
                    b'}' => break,
                    _ => return None,
                }
            }
            if entries.len() == ANCESTRY_CAP {
                return None;
            }
            // Exact capacity, as the general reader keeps it (a list of one is the usual case).
            entries.reserve_exact(1);
            entries.push(AncestryEntry {
                role: CompactString::new(role?),
                label: optional_label(label),
            });
            match self.next()? {
                b',' => continue,
                b']' => return Some(entries),
                _ => return None,
            }
        }
    }
}
