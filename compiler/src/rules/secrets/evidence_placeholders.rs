//! AD723: placeholders inside verified target evidence.

use ad_grammar::annotation::VerificationState;
use ad_grammar::placeholder::has_dollar_brace;
use ad_grammar::Diagnostic;

use crate::codes;
use crate::lower::Step;
use crate::registry::Targeting;
use crate::rules::Context;

/// Evidence labels that carry a placeholder: action steps must be `unverifiable`, waits carry none.
pub(super) fn check(cx: &Context, step: &Step, out: &mut Vec<Diagnostic>) {
    let Some(e) = &step.target_evidence else {
        return;
    };
    let labels = e
        .label
        .iter()
        .chain(e.ancestry.iter().filter_map(|a| a.label.as_ref()))
        .chain(e.scroll_region.iter().filter_map(|r| r.label.as_ref()));
    if !labels.into_iter().any(|l| has_dollar_brace(l)) {
        return;
    }
    let Some(line) = step.annotation_line() else {
        return;
    };
    let span = cx.parse.file.lines[line].content;
    let is_wait = step
        .spec()
        .is_some_and(|s| s.targeting == Targeting::WaitTarget);
    if is_wait {
        out.push(
            Diagnostic::new(codes::PLACEHOLDER_IN_EVIDENCE, "a wait's landmark evidence echoes a `${VAR}` value", span)
                .with_label("agent-device records no annotation for a landmark whose identity is a parameterized value")
                .with_help("remove this annotation, and guard the destination with a stable, non-value-bearing landmark"),
        );
    } else if e.verification == VerificationState::Verified {
        out.push(
            Diagnostic::new(codes::PLACEHOLDER_IN_EVIDENCE, "verified evidence with a `${VAR}` label can never verify", span)
                .with_label("replay compares labels with the live screen, which shows the real value")
                .with_help("evidence whose label echoes a parameterized value must be \"verification\":\"unverifiable\" (agent-device downgrades it when recording)"),
        );
    }
}
