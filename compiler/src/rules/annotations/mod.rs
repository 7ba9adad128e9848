//! Annotations: where a `target-v1`/`targets-v1` annotation may bind.
//!
//! One rule so far, in `misplaced.rs`.

use ad_grammar::Diagnostic;

use super::{At, Context};

mod misplaced;

pub(super) fn check(cx: &Context, at: &At, out: &mut Vec<Diagnostic>) {
    misplaced::check(cx, at.step, out);
}
