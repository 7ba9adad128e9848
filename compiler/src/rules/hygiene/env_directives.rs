//! AD730 unused `env` directive (with its removal as a fix) and AD731 `${…}` in an env value:
//! both read the directives against the placeholders the steps use.

use ad_grammar::placeholder::has_dollar_brace;
use ad_grammar::{Diagnostic, Edit, Span};

use crate::codes;
use crate::lower::Step;
use crate::rules::Context;

/// Which directives some `${NAME}` in the steps reads (positionals, flag and runtime values),
/// learned at each step and reported once the walk is over.
pub(super) struct EnvUse {
    used: Vec<bool>,
}

impl EnvUse {
    /// None when the script has no `env` directive (the rule has nothing to do).
    pub(super) fn new(cx: &Context) -> Option<EnvUse> {
        let env = &cx.parse.metadata.env;
        (!env.is_empty()).then(|| EnvUse {
            used: vec![false; env.len()],
        })
    }

    pub(super) fn step(&mut self, cx: &Context, step: &Step) {
        // Scripts declare a handful of names, so a linear match beats hashing every use.
        let env = &cx.parse.metadata.env;
        let used = &mut self.used;
        let flag_strings = step
            .flags()
            .values()
            .chain(step.runtime().into_iter().flat_map(|r| r.values()));
        let strings = step
            .positionals
            .iter()
            .filter(|a| a.has_dollar_brace())
            .map(|a| a.value.as_str())
            .chain(
                flag_strings
                    .filter_map(|v| v.as_str())
                    .filter(|v| has_dollar_brace(v)),
            );
        for value in strings {
            for p in ad_grammar::placeholder::placeholders(value) {
                let name = p.name(value);
                for (e, used) in env.iter().zip(used.iter_mut()) {
                    *used |= e.key == name;
                }
            }
        }
    }

    pub(super) fn finish(self, cx: &Context, out: &mut Vec<Diagnostic>) {
        let text = cx.text();
        let env = &cx.parse.metadata.env;
        for (entry, used) in env.iter().zip(self.used) {
            let line = &cx.parse.file.lines[entry.line];
            if !used {
                let end = if line.span.end() < text.len() {
                    line.span.end() + 1
                } else {
                    line.span.end()
                };
                out.push(
                    Diagnostic::new(
                        codes::UNUSED_ENV,
                        format!("`{}` is never used", entry.key),
                        entry.key_span,
                    )
                    .with_label("no step reads `${…}` of this name")
                    .with_help("delete the directive, or use the variable in a step")
                    .with_fix(
                        format!("Remove `env {}`", entry.key),
                        vec![Edit {
                            span: Span::new(line.span.start(), end),
                            replacement: String::new(),
                        }],
                    ),
                );
            }
            if has_dollar_brace(&entry.value) {
                out.push(
                Diagnostic::new(codes::ENV_VALUE_PLACEHOLDER, format!("`${{…}}` in the value of `{}` is never expanded", entry.key), line.content)
                    .with_label("env values are taken literally")
                    .with_help("a placeholder in an env value stays literal text; supply the value with -e or AD_VAR_* instead"),
            );
            }
        }
    }
}
