//! AD736: an `open` of a URL that shows this machine's files (`file:`) or the browser's own pages
//! (`view-source:`, `chrome:`, `about:version`, …). What a page shows is copied into the run's
//! observations and its HTML report, so the web backend refuses these unless the file lies in the
//! script's folder (a local web app) or the run passes `--allow-local-urls` (docs/web.md).

use ad_grammar::placeholder::has_dollar_brace;
use ad_grammar::Diagnostic;

use crate::codes;
use crate::lower::Step;
use crate::paths::{url_kind, UrlKind};
use crate::registry::{Action, ArgKind};
use crate::rules::Context;

pub(super) fn check(cx: &Context, step: &Step, out: &mut Vec<Diagnostic>) {
    if step.action() != Some(Action::Open) {
        return;
    }
    let Some(form) = crate::rules::dispatch::matching_form(
        step.spec().map_or(&[], |s| s.forms),
        &step.positionals,
    ) else {
        return;
    };
    for (param, arg) in form.positionals.iter().zip(&step.positionals) {
        if !matches!(param.kind, ArgKind::App | ArgKind::Url) || has_dollar_brace(&arg.value) {
            continue;
        }
        let (what, help) = match url_kind(&arg.value) {
            UrlKind::Web => continue,
            UrlKind::LocalFile => (
                "a file of this machine",
                "the web backend opens a local file only inside the script's folder (a local web app); serve other pages over http, or pass `--allow-local-urls` to `ad run` when the run may read this file",
            ),
            UrlKind::BrowserInternal => (
                "a page of the browser itself",
                "open the web app's own URL; pass `--allow-local-urls` to `ad run` when the run may read the browser's pages",
            ),
        };
        out.push(
            Diagnostic::new(
                codes::LOCAL_URL,
                format!("`{}` is {what}", arg.value),
                step.arg_span(cx.file(), arg),
            )
            .with_label("the web backend refuses to open it: what it shows would be copied into the run's records")
            .with_help(help),
        );
    }
}
