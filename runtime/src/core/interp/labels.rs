//! How steps are named in progress lines, messages and divergence reports.

/// An argument as a script spells it: bare for `@refs` and plain numbers, JSON-quoted otherwise
/// (agent-device's own formatting of replayed arguments).
pub fn format_arg(s: &str) -> String {
    let plain = !s.is_empty()
        && !s
            .chars()
            .any(|c| c.is_whitespace() || c == '"' || c == '\\');
    if plain && (s.starts_with('@') || is_plain_number(s)) {
        s.to_string()
    } else {
        ad_grammar::json::quote(s)
    }
}

pub(super) fn is_plain_number(s: &str) -> bool {
    let t = s.strip_prefix('-').unwrap_or(s);
    let (int, frac) = match t.split_once('.') {
        Some((a, b)) => (a, Some(b)),
        None => (t, None),
    };
    !int.is_empty()
        && int.bytes().all(|b| b.is_ascii_digit())
        && frac.is_none_or(|f| !f.is_empty() && f.bytes().all(|b| b.is_ascii_digit()))
}

/// The divergence action label: command and script-formatted positionals, with `fill`/`type`
/// text replaced by `<text>`.
pub fn action_label(command: &str, p: &[String]) -> String {
    use ad_compiler::registry::{lookup, Action};
    let action = lookup(command).map(|s| s.action);
    if !matches!(action, Some(Action::Fill | Action::Type)) {
        let mut parts = vec![command.to_string()];
        parts.extend(p.iter().map(|x| format_arg(x)));
        return parts.join(" ");
    }
    let target: Vec<&String> = if action == Some(Action::Type) {
        vec![]
    } else {
        match p.first() {
            None => vec![],
            Some(f) if f.starts_with('@') => vec![f],
            Some(f) if p.len() >= 3 && is_plain_number(f) && is_plain_number(&p[1]) => {
                vec![f, &p[1]]
            }
            Some(f) => vec![f],
        }
    };
    let t: Vec<String> = target.iter().map(|x| format_arg(x)).collect();
    [command.to_string(), t.join(" "), "<text>".to_string()]
        .into_iter()
        .filter(|s| !s.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

/// The live progress line's name for a step: [`action_label`] (typed text still hidden) and
/// the step's flags as a script spells them, in the registry's order (`click "id=row" --double-tap`,
/// `snapshot -i`), so two steps that differ only in their flags read differently.
pub fn progress_label(step: &ad_compiler::Step<'_>) -> String {
    use ad_compiler::registry::FlagValue;
    let mut label = action_label(step.command(), &step.positional_values());
    let Some(spec) = step.spec() else {
        return label;
    };
    for f in spec.flags {
        let value = step
            .flags()
            .get(f.key)
            .or_else(|| step.runtime().and_then(|r| r.get(f.key)));
        let Some(value) = value else {
            continue;
        };
        match (f.value, value) {
            // `--test-ime` and `--no-test-ime` share a key: each names only its own value.
            (FlagValue::Switch(on), serde_json::Value::Bool(b)) if on == *b => {
                label.push(' ');
                label.push_str(f.name);
            }
            (FlagValue::Switch(_), _) => {}
            (_, serde_json::Value::Number(n)) => {
                let n = n
                    .as_f64()
                    .map_or_else(|| n.to_string(), ad_grammar::json::js_number_to_string);
                label.push_str(&format!(" {} {n}", f.name));
            }
            (_, serde_json::Value::String(s)) => {
                label.push_str(&format!(" {} {}", f.name, format_arg(s)));
            }
            (_, other) => label.push_str(&format!(" {} {other}", f.name)),
        }
    }
    label
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_hide_text() {
        let v = |s: &[&str]| s.iter().map(|x| x.to_string()).collect::<Vec<_>>();
        assert_eq!(
            action_label("fill", &v(&["label=\"Email\"", "x"])),
            "fill \"label=\\\"Email\\\"\" <text>"
        );
        assert_eq!(action_label("type", &v(&["hello"])), "type <text>");
        assert_eq!(action_label("click", &v(&["@e3"])), "click @e3");
        assert_eq!(action_label("click", &v(&["10", "20"])), "click 10 20");
        assert_eq!(
            action_label("fill", &v(&["10", "20", "t"])),
            "fill 10 20 <text>"
        );
    }

    /// The progress line shows a step's flags as written (issue 30: `click … --double-tap`
    /// printed as a plain click).
    #[test]
    fn progress_labels_keep_flags() {
        let label = |text: &str| {
            let script = format!("context platform=web\n{text}\n");
            let parse = ad_grammar::parse(&script);
            let mut diagnostics = Vec::new();
            let steps = ad_compiler::lower::lower(&parse.file, &mut diagnostics);
            progress_label(&steps[0])
        };
        assert_eq!(
            label(r#"click "id=row" --double-tap"#),
            r#"click "id=row" --double-tap"#
        );
        assert_eq!(
            label(r#"click "id=row" --count 3 --interval-ms 50"#),
            r#"click "id=row" --count 3 --interval-ms 50"#
        );
        assert_eq!(label("snapshot -i"), "snapshot -i");
        assert_eq!(
            label("open app --no-test-ime"),
            r#"open "app" --no-test-ime"#
        );
        assert_eq!(
            label(r#"fill "id=q" secret --delay-ms 5"#),
            r#"fill "id=q" <text> --delay-ms 5"#
        );
        assert_eq!(label(r#"click "id=row""#), r#"click "id=row""#);
    }
}
