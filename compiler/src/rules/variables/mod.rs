//! `${NAME}` placeholders and where their values can come from.
//!
//! One rule so far, in `placeholders.rs`.

use ad_grammar::Diagnostic;

use super::{At, Context};

mod placeholders;

pub(super) fn check(cx: &Context, at: &At, out: &mut Vec<Diagnostic>) {
    placeholders::check(cx, at.step, out);
}
