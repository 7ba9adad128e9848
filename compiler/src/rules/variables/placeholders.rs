//! AD301, AD302, AD304: `${NAME}` placeholders: names no `env` directive defines (they must come
//! from `-e` or `AD_VAR_<NAME>`), names that can never be defined, and unknown `AD_*` names. One
//! file because one walk over each value's placeholders decides among them.

use ad_grammar::metadata::is_var_name;
use ad_grammar::placeholder::placeholders;
use ad_grammar::{Diagnostic, Edit};

use crate::codes;
use crate::lower::Step;
use crate::rules::Context;

pub(super) fn check(cx: &Context, step: &Step, out: &mut Vec<Diagnostic>) {
    // The replay interpolates positionals and string flag values, never an @ref's label:
    // `${…}` there stays text and refuses nothing.
    for arg in &step.positionals {
        if arg.has_dollar_brace() {
            // One span map per value serves all its placeholders (linear in the value).
            let map = std::cell::OnceCell::new();
            let span_of = |r: std::ops::Range<usize>| {
                map.get_or_init(|| step.value_map(arg, &cx.parse.file))
                    .span(r)
            };
            report(cx, &arg.value, &span_of, out);
        }
    }
    for value in step
        .flags()
        .values()
        .chain(step.runtime().into_iter().flat_map(|r| r.values()))
    {
        let Some(v) = value.as_str().filter(|v| v.contains("${")) else {
            continue;
        };
        // The flag's value token (flags keep no spans: the token that reads as the value).
        let Some(token) = cx
            .file()
            .action_tokens(step.line())
            .iter()
            .skip(1)
            .find(|t| t.value(cx.text()) == v)
        else {
            continue;
        };
        let whole = token.span();
        let span_of = |_: std::ops::Range<usize>| whole;
        report(cx, v, &span_of, out);
    }
}

/// The findings for the placeholders of one interpolated value; `span_of` maps a byte range of
/// the value to the source.
fn report(
    cx: &Context,
    value: &str,
    span_of: &dyn Fn(std::ops::Range<usize>) -> ad_grammar::Span,
    out: &mut Vec<Diagnostic>,
) {
    let meta = &cx.parse.metadata;
    for p in placeholders(value) {
        let name = p.name(value);
        // Only a finding needs the source span.
        let span = || span_of(p.span.clone());
        let has_fallback = p.fallback.is_some();
        if !is_var_name(name) {
            let upper = name.to_ascii_uppercase().replace('.', "_");
            let (severity_error, label) = if has_fallback {
                (false, "the fallback is always used")
            } else {
                (true, "this step always fails: the variable is never set")
            };
            let message =
                format!("`${{{name}}}` can never be defined: variable names are [A-Z_][A-Z0-9_]*");
            let mut d = if severity_error {
                Diagnostic::new(codes::UNDEFINABLE_VARIABLE, message, span())
            } else {
                Diagnostic::new(codes::UNDEFINABLE_WITH_FALLBACK, message, span())
            }
            .with_label(label)
            .with_help("env directives, -e and AD_VAR_* only define uppercase names");
            if is_var_name(&upper) {
                let name_span = span_of(p.name.clone());
                if name_span.len() == name.len() {
                    d = d.with_fix(
                        format!("Rename to `{upper}`"),
                        vec![Edit {
                            span: name_span,
                            replacement: upper,
                        }],
                    );
                }
            }
            out.push(d);
        } else if name.starts_with("AD_") {
            if !cx.config.is_builtin(name) && !has_fallback {
                let names: Vec<&str> = crate::builtins::BUILTIN_VARIABLES
                    .iter()
                    .map(|(n, _)| *n)
                    .collect();
                out.push(
                    Diagnostic::new(
                        codes::UNDEFINABLE_VARIABLE,
                        format!("`${{{name}}}` is not a built-in variable"),
                        span(),
                    )
                    .with_label(
                        "AD_* is reserved for built-ins; nothing else can define it",
                    )
                    .with_help(match name.strip_prefix(crate::builtins::SHELL_IMPORT_PREFIX) {
                        // `${AD_VAR_PASSWORD}`: the prefix belongs on the shell side only.
                        Some(rest) if !rest.is_empty() => format!(
                            "AD_VAR_ is the shell import prefix: write `${{{rest}}}` in the script and export AD_VAR_{rest} (or pass -e {rest}=…)"
                        ),
                        _ => format!("built-ins: {}", names.join(", ")),
                    }),
                );
            }
        } else if meta.env_value(name).is_none() && !has_fallback {
            out.push(
                Diagnostic::new(codes::UNDEFINED_VARIABLE, format!("`${{{name}}}` is not defined in this script"), span())
                    .with_label("must be supplied when the script runs")
                    .with_help(format!(
                        "pass `-e {name}=…` or export `AD_VAR_{name}`; or add `env {name}=…` to the header for a default"
                    )),
            );
        }
    }
}
