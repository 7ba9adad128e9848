//! A deterministic generator of `.ad` scripts that stress parity with agent-device 0.21.5.
//!
//! `script(seed, i)` is a pure function of its arguments, so any case can be regenerated alone.
//! Most scripts are "clean" (several lines that the reference reader should accept, full of
//! quoting, whitespace, flag and annotation corners); about 40% carry one or two "bad" items
//! (a construct that spec §1–§13 says is rejected), and a few are whole-file oddities (JSON
//! payloads, Maestro YAML, empty or whitespace-only files, single lines). The generator never
//! looks at either implementation's output.
//!
//! `rng` is the random source, `pools` the values scripts are built from, `script/` the parity
//! generator by part of a script, `dispatch` the dispatch-time generator.

mod dispatch;
mod pools;
mod rng;
mod script;

pub use dispatch::{dispatch_script, DISPATCH_SEED};
pub use rng::Rng;
pub use script::{script, DEFAULT_SEED};

/// ECMAScript `\s` (and `String.prototype.trim`) whitespace.
pub fn is_js_whitespace(c: char) -> bool {
    matches!(
        c,
        '\t' | '\n' | '\u{b}' | '\u{c}' | '\r' | ' ' | '\u{a0}' | '\u{1680}' | '\u{2000}'
            ..='\u{200a}'
                | '\u{2028}'
                | '\u{2029}'
                | '\u{202f}'
                | '\u{205f}'
                | '\u{3000}'
                | '\u{feff}'
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deterministic() {
        for i in 0..50 {
            assert_eq!(script(DEFAULT_SEED, i), script(DEFAULT_SEED, i));
        }
        assert_ne!(script(1, 0), script(2, 0));
        for i in 0..50 {
            assert_eq!(
                dispatch_script(DISPATCH_SEED, i),
                dispatch_script(DISPATCH_SEED, i)
            );
        }
        assert_ne!(dispatch_script(1, 0), dispatch_script(2, 0));
    }
}
