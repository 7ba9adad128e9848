//! AD734: a step that repeats the previous one exactly (a recording stutter).

use ad_grammar::Diagnostic;

use crate::codes;
use crate::registry::Targeting;
use crate::rules::Context;

pub(super) fn check(cx: &Context, out: &mut Vec<Diagnostic>) {
    for pair in cx.steps.windows(2) {
        let (a, b) = (&pair[0], &pair[1]);
        let targets_elements = b.spec.is_some_and(|s| {
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
            continue;
        }
        out.push(
            Diagnostic::new(codes::DUPLICATE_STEP, format!("this `{}` repeats the previous step exactly", b.command()), b.line_span(cx.file()))
                .with_secondary(a.line_span(cx.file()), "the same step")
                .with_help("identical consecutive steps are often a recording stutter; delete one unless the repeat is intended (use --count for repeated taps)"),
        );
    }
}
