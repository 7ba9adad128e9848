//! Argument values the registry declares ranges for.
//!
//! One rule so far, in `flag_range.rs`.

use ad_grammar::Diagnostic;

use super::Context;

mod flag_range;

pub(super) fn check(cx: &Context, out: &mut Vec<Diagnostic>) {
    flag_range::check(cx, out);
}
