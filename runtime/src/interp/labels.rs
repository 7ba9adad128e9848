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
}
