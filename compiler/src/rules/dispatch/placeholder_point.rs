//! AD126: two whole `${…}` tokens where a point may stand are never read as `x y`.

use ad_grammar::Diagnostic;

use crate::codes;
use crate::lower::Step;
use crate::rules::Context;

/// AD126: `press "${X}" "${Y}"`. The reader reads two tokens as a point only when both are
/// numbers as written, so two placeholders become one selector (or a target and text) before any
/// value exists: with numbers for values the daemon refuses the step.
pub(super) fn check(cx: &Context, step: &Step, out: &mut Vec<Diagnostic>) {
    // Only the readers that decide "point or not" themselves (`longpress` and `hover` pass the
    // tokens on, and the daemon reads the values).
    use crate::registry::ReaderRule;
    if !step
        .spec()
        .is_some_and(|s| matches!(s.reader, ReaderRule::ClickLike | ReaderRule::Fill))
    {
        return;
    }
    // A whole `${…}` token leaves `${` in the value it is read into (the tree is read only then).
    if !step.positionals.iter().any(|a| a.has_dollar_brace()) {
        return;
    }
    let tokens = cx.file().action_tokens(step.line());
    let text = cx.text();
    let whole = |t: usize| {
        // Most tokens here are selectors: decode only one whose text can start with `$` (raw,
        // or as a `\u` escape).
        let raw = tokens[t].raw(text);
        let inner = raw.strip_prefix('"').unwrap_or(raw);
        if !(inner.starts_with('$') || inner.starts_with("\\u")) {
            return false;
        }
        let v = tokens[t].value(text);
        v.starts_with("${") && v.ends_with('}') && v[2..v.len() - 1].find('}').is_none()
    };
    let mut tokens = step
        .positionals
        .iter()
        .flat_map(|a| a.tokens.iter().copied());
    let (Some(a), Some(b)) = (tokens.next(), tokens.next()) else {
        return;
    };
    if b != a + 1 || !whole(a) || !whole(b) {
        return;
    }
    let span = step
        .token_spans(cx.file())
        .at(a)
        .cover(step.token_spans(cx.file()).at(b));
    out.push(
        Diagnostic::new(
            codes::PLACEHOLDER_POINT,
            "two `${…}` tokens are never read as an `x y` point",
            span,
        )
        .with_label(
            "the reader decides before the values exist: only numbers written as numbers make a \
             point, so these become one selector (or a target and its text)",
        )
        .with_help(
            "write the point as numbers (`press 120 480`), or pass a whole selector in one \
             variable (`press \"${TARGET}\"`); with numbers for values the daemon refuses the step",
        ),
    );
}
