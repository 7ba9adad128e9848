//! AD721: a secure field filled with a literal commits the secret in clear; the fix names a
//! variable after the field.

use ad_grammar::annotation::TargetEvidence;
use ad_grammar::placeholder::whole_token_variable;
use ad_grammar::{Diagnostic, Edit};

use crate::codes;
use crate::lower::Step;
use crate::registry::{CommandSpec, ReaderRule};
use crate::rules::Context;

pub(super) fn check(cx: &Context, step: &Step, spec: &CommandSpec, out: &mut Vec<Diagnostic>) {
    if spec.reader != ReaderRule::Fill {
        return;
    }
    let Some(value_arg) = super::fill_text(step) else {
        return;
    };
    let value = value_arg.value.as_str();
    let whole = whole_token_variable(value).is_some();
    // The field's evidence is read only for a literal text (most fills are `${VAR}`s).
    let secure = || step.target_evidence.as_deref().is_some_and(is_secure_field);
    if !whole && !value.is_empty() && secure() {
        let name = variable_name(step.target_evidence.as_ref().unwrap());
        let span = step.arg_span(cx.file(), value_arg);
        out.push(
            Diagnostic::new(codes::SECRET_IN_CLEAR, "a secure field is filled with a literal: the secret is committed in clear", span)
                .with_label(format!("replace it with `\"${{{name}}}\"`"))
                .with_help(format!("supply the value at run time with `-e {name}=…` or by exporting `AD_VAR_{name}`; record it with `fill … --record-as {name}` next time"))
                .with_fix(format!("Replace the literal with `${{{name}}}`"), vec![Edit { span, replacement: format!("\"${{{name}}}\"") }]),
        );
    }
}

/// A secure text field by role (iOS `securetextfield`, web/desktop password roles), or a field
/// whose recorded id or label names a password (Android records plain `edittext`).
fn is_secure_field(e: &TargetEvidence) -> bool {
    // Lowercasing can only turn a non-ASCII character into ASCII `k` or `i`, which none of
    // these words contain: an ASCII case-insensitive search is the same test, with no copies.
    const NAMES: &[&str] = &["password", "passcode", "passwd", "secret"];
    let named = |s: &Option<ad_grammar::annotation::CompactString>| {
        s.as_deref()
            .is_some_and(|s| contains_any_ignore_ascii_case(s, NAMES))
    };
    contains_any_ignore_ascii_case(&e.role, &["secure", "password"])
        || named(&e.id)
        || named(&e.label)
}

/// Whether `haystack` contains one of `needles` (lowercase ASCII words starting with `p` or `s`),
/// ignoring ASCII case. One pass over the starts that leave room for the shortest word: asked of
/// every literal fill, and a window search per word cost more than the rest of the rule.
fn contains_any_ignore_ascii_case(haystack: &str, needles: &[&str]) -> bool {
    let b = haystack.as_bytes();
    let Some(shortest) = needles.iter().map(|w| w.len()).min() else {
        return false;
    };
    let Some(last_start) = b.len().checked_sub(shortest) else {
        return false;
    };
    // A plain loop, not `(0..).any(closure)`: that closure stayed a call per byte.
    for (i, &c) in b[..=last_start].iter().enumerate() {
        // `| 0x20` maps exactly `P`/`p` onto `p` and `S`/`s` onto `s`.
        let c = c | 0x20;
        if (c == b'p' || c == b's')
            && needles.iter().any(|w| {
                b.len() - i >= w.len() && b[i..i + w.len()].eq_ignore_ascii_case(w.as_bytes())
            })
        {
            return true;
        }
    }
    false
}

/// A variable name from the field's id or label: `login.password` → `PASSWORD`.
fn variable_name(e: &TargetEvidence) -> String {
    let source = e.label.as_deref().or(e.id.as_deref()).unwrap_or("password");
    let last = source.rsplit(['.', '/', ':']).next().unwrap_or(source);
    let mut name: String = last
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_uppercase()
            } else {
                '_'
            }
        })
        .collect();
    name = name.trim_matches('_').to_string();
    if name.is_empty() || name.starts_with(|c: char| c.is_ascii_digit()) || name.starts_with("AD_")
    {
        name = format!("SECRET_{name}").trim_end_matches('_').to_string();
    }
    name
}

#[cfg(test)]
mod tests {
    use super::contains_any_ignore_ascii_case as has;

    #[test]
    fn words_are_found_anywhere_in_any_case() {
        let words = &["password", "secret"];
        assert!(has("login.PassWord", words));
        assert!(has("SECRET", words));
        assert!(has("my_secret_field", words));
        assert!(!has("secre", words));
        assert!(!has("passwor", words));
        assert!(!has("", words));
        // A word that ends the text, and one cut short by it.
        assert!(has("user_PASSWORD", words));
        assert!(!has("user_passwor", words));
        // Non-ASCII text around a word does not hide it (byte offsets, not characters).
        assert!(has("mot de passe — password", words));
    }
}
