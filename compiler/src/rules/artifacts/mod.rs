//! Files steps write: where `ad run` lets them land.
//!
//! One rule so far, in `path_escapes.rs`.

use ad_grammar::Diagnostic;

use super::Context;

mod path_escapes;

pub(super) fn check(cx: &Context, out: &mut Vec<Diagnostic>) {
    path_escapes::check(cx, out);
}
