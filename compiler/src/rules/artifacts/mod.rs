//! Files steps write, and what they copy into the run's records: where `ad run` lets a file land
//! (`path_escapes.rs`), and which pages the web backend opens (`local_urls.rs`).

use ad_grammar::Diagnostic;

use super::{At, Context};

mod local_urls;
mod path_escapes;

pub(super) fn check(cx: &Context, at: &At, out: &mut Vec<Diagnostic>) {
    path_escapes::check(cx, at.step, out);
    local_urls::check(cx, at.step, out);
}
