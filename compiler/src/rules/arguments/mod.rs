//! Argument values the registry declares ranges for.
//!
//! One rule so far, in `flag_range.rs`.

use ad_grammar::Diagnostic;

use super::{At, Context};

mod flag_range;

pub(super) fn check(cx: &Context, at: &At, out: &mut Vec<Diagnostic>) {
    flag_range::check(cx, at.step, out);
}
