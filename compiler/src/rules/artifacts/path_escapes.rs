//! AD735: a file a step writes (screenshot, recording, trace) named outside the run's artifacts
//! folder. `ad run` resolves these paths inside the run folder and refuses one that escapes it;
//! agent-device would write it relative to wherever it runs.

use ad_grammar::placeholder::has_dollar_brace;
use ad_grammar::Diagnostic;

use crate::codes;
use crate::lower::Step;
use crate::registry::ArgKind;
use crate::rules::Context;

pub(super) fn check(cx: &Context, step: &Step, out: &mut Vec<Diagnostic>) {
    let Some(spec) = step.spec() else { return };
    // Only commands with a path among their forms' positionals can name one: the others
    // skip the (costly) form matching.
    let writes_files = spec.forms.iter().any(|f| {
        f.positionals
            .iter()
            .any(|p| p.kind == ArgKind::ArtifactPath)
    });
    if !writes_files {
        return;
    }
    let Some(form) = crate::rules::dispatch::matching_form(spec.forms, &step.positionals) else {
        return;
    };
    for (param, arg) in form.positionals.iter().zip(&step.positionals) {
        if param.kind != ArgKind::ArtifactPath
            || has_dollar_brace(&arg.value)
            || !crate::paths::escapes_folder(&arg.value)
        {
            continue;
        }
        out.push(
            Diagnostic::new(
                codes::ARTIFACT_PATH_ESCAPES,
                format!("`{}` is outside the run's artifacts folder", arg.value),
                step.arg_span(cx.file(), arg),
            )
            .with_label("`ad run` refuses to write here")
            .with_help("name the file relative to the artifacts folder (`shots/login.png`): runs write into their own folder, never over other files"),
        );
    }
}
