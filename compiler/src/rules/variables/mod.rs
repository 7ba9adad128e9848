//! `${NAME}` placeholders and where their values can come from.
//!
//! One rule so far, in `placeholders.rs`.

use ad_grammar::Diagnostic;

use super::Context;

mod placeholders;

pub(super) fn check(cx: &Context, out: &mut Vec<Diagnostic>) {
    placeholders::check(cx, out);
}
