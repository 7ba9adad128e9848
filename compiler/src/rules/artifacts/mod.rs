//! Files steps write: where `ad run` lets them land.
//!
//! One rule so far, in `path_escapes.rs`.

use ad_grammar::Diagnostic;

use super::{At, Context};

mod path_escapes;

pub(super) fn check(cx: &Context, at: &At, out: &mut Vec<Diagnostic>) {
    path_escapes::check(cx, at.step, out);
}
