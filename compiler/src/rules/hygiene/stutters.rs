//! AD734: a step that repeats the previous one exactly (a recording stutter).

use ad_grammar::Diagnostic;

use crate::codes;
use crate::lower::Step;
use crate::registry::Targeting;
use crate::rules::Context;

/// `a` is the step before `b`.
pub(super) fn check(cx: &Context, a: &Step, b: &Step, out: &mut Vec<Diagnostic>) {
    let targets_elements = b.spec().is_some_and(|s| {
        matches!(
            s.targeting,
            Targeting::Element | Targeting::ElementAfterSubcommand
        )
    });
    if !targets_elements
        || a.command() != b.command()
        || !a
            .positionals
            .iter()
            .map(|p| &p.value)
            .eq(b.positionals.iter().map(|p| &p.value))
        || a.flags() != b.flags()
    {
        return;
    }
    out.push(
        Diagnostic::new(codes::DUPLICATE_STEP, format!("this `{}` repeats the previous step exactly", b.command()), b.line_span(cx.file()))
            .with_secondary(a.line_span(cx.file()), "the same step")
            .with_help("identical consecutive steps are often a recording stutter; delete one unless the repeat is intended (use --count for repeated taps)"),
    );
}
