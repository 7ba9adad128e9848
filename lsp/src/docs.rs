//! Markdown for hovers and completion documentation, written from the registry, the built-in
//! variable table and the annotation evidence.

use std::fmt::Write;

use ad_compiler::registry::{Availability, CommandSpec, Effect, FlagSpec, FlagValue, Verification};
use ad_grammar::annotation::{TargetEvidence, VerificationState};

/// `<1–200>`, `<primary|secondary|middle>`, or nothing for a switch.
pub fn flag_value_hint(flag: &FlagSpec) -> String {
    match flag.value {
        FlagValue::Switch(_) => String::new(),
        FlagValue::Integer { min, max } if max == i64::MAX => format!("<≥{min}>"),
        FlagValue::Integer { min, max } => format!("<{min}–{max}>"),
        FlagValue::Number { min, max } => format!("<{}–{}>", num(min), num(max)),
        FlagValue::Enum(words) => format!("<{}>", words.join("|")),
        FlagValue::String => "<value>".into(),
    }
}

pub fn flag_usage(flag: &FlagSpec) -> String {
    let hint = flag_value_hint(flag);
    if hint.is_empty() {
        flag.name.to_string()
    } else {
        format!("{} {hint}", flag.name)
    }
}

pub fn flag_markdown(command: &str, flag: &FlagSpec) -> String {
    let mut s = format!("```ad\n{command} … {}\n```\n{}", flag_usage(flag), flag.doc);
    if !flag.aliases.is_empty() {
        let aliases: Vec<String> = flag.aliases.iter().map(|a| format!("`{a}`")).collect();
        let _ = write!(s, "\n\nAlso spelled {}.", aliases.join(", "));
    }
    s
}

pub fn availability_note(spec: &CommandSpec) -> Option<String> {
    match spec.availability {
        Availability::Script => None,
        Availability::Legacy => Some(
            "Legacy `.ad`-only form: the reader still understands it; new scripts should not use it."
                .into(),
        ),
        Availability::Retired { migration } => Some(format!(
            "**Retired**: agent-device removed this command; the step fails when it runs. {migration}"
        )),
        Availability::CliAlias { canonical } => Some(format!(
            "**CLI alias only**: scripts do not apply CLI aliases, so this word fails when the step \
             runs. Write `{canonical}`."
        )),
        Availability::ClientOnly => Some(
            "**Client-only**: this command has no daemon route and cannot run from a script.".into(),
        ),
        Availability::Internal => Some(
            "**Internal**: a daemon request the agent-device CLI sends with structured input; not a script command."
                .into(),
        ),
    }
}

fn effect_text(effect: Effect) -> &'static str {
    match effect {
        Effect::Mutates => "changes app state",
        Effect::Observes => "only reads app state",
        Effect::BySubcommand { .. } => "reads or changes app state, depending on the subcommand",
        Effect::FindAction => "reads app state for exists/wait/get/list, changes it otherwise",
        Effect::NotRecorded => "not recorded into scripts (device management and diagnostics)",
        Effect::Skipped => "skipped by replay: never dispatched",
    }
}

fn verification_text(v: Verification) -> Option<&'static str> {
    match v {
        Verification::None => None,
        Verification::PreDispatch => {
            Some("its `target-v1` identity is verified before the step runs")
        }
        Verification::PostResolution => {
            Some("its `target-v1` annotation is a landmark guard checked while it polls")
        }
        Verification::DragEndpoints => {
            Some("both drag endpoints are verified (`targets-v1`) before the drag")
        }
    }
}

/// The hover / completion documentation of a command.
pub fn command_markdown(spec: &CommandSpec) -> String {
    let mut s = String::new();
    if let Some(note) = availability_note(spec) {
        let _ = writeln!(s, "{note}\n");
    }
    let _ = writeln!(
        s,
        "```ad\n{}{}{}\n```",
        spec.name,
        if spec.signature.is_empty() { "" } else { " " },
        spec.signature
    );
    let _ = writeln!(s, "{}", spec.summary);
    if !spec.flags.is_empty() {
        let _ = writeln!(s, "\n**Flags** the `.ad` reader reads for `{}`:", spec.name);
        for f in spec.flags {
            let _ = writeln!(s, "- `{}` — {}", flag_usage(f), f.doc);
        }
    }
    if !spec.is_usable_in_scripts() {
        return s.trim_end().to_string();
    }
    let mut facts = vec![effect_text(spec.effect).to_string()];
    if let Some(v) = verification_text(spec.verification) {
        facts.push(v.to_string());
    }
    let _ = write!(s, "\n_{}_", capitalize(&facts.join("; ")));
    s
}

fn capitalize(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_uppercase().chain(c).collect(),
        None => String::new(),
    }
}

/// A number without a trailing `.0` and with at most two decimals.
pub fn num(x: f64) -> String {
    if x.fract() == 0.0 && x.abs() < 1e15 {
        format!("{}", x as i64)
    } else {
        let s = format!("{x:.2}");
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    }
}

fn node(role: &str, label: Option<&str>) -> String {
    let role = if role.is_empty() { "(no role)" } else { role };
    match label {
        Some(l) => format!("{role} \"{l}\""),
        None => role.to_string(),
    }
}

/// A `target-v1` evidence as a readable identity.
pub fn identity_markdown(e: &TargetEvidence, verification: Verification, title: &str) -> String {
    let mut s = String::new();
    let state = match e.verification {
        VerificationState::Verified => "verified",
        VerificationState::Unverifiable => "unverifiable",
    };
    let _ = writeln!(s, "**{title}** · {state}\n");
    let _ = writeln!(
        s,
        "- **role** `{}`",
        if e.role.is_empty() {
            "(empty)"
        } else {
            &e.role
        }
    );
    if let Some(id) = &e.id {
        let _ = writeln!(s, "- **id** `{id}`");
    }
    if let Some(label) = &e.label {
        let _ = writeln!(s, "- **label** \"{label}\"");
    }
    // Ancestry is recorded nearest-first; read it from the root down.
    let mut path: Vec<String> = e
        .ancestry
        .iter()
        .rev()
        .map(|a| node(&a.role, a.label.as_deref()))
        .collect();
    path.push(format!("**{}**", node(&e.role, e.label.as_deref())));
    let _ = writeln!(s, "- **path** {}", path.join(" › "));
    if let Some(r) = &e.scroll_region {
        let name =
            r.id.as_ref()
                .map(|id| format!("{} #{id}", r.role))
                .unwrap_or_else(|| node(&r.role, r.label.as_deref()));
        let _ = writeln!(s, "- **scroll region** {name}");
    }
    let _ = writeln!(
        s,
        "- **position** sibling {}, viewport order {}",
        e.sibling, e.viewport_order
    );
    if let Some(r) = &e.rect {
        let _ = writeln!(
            s,
            "- **rect** x {} y {}, {} × {} (diagnostic only, never compared)",
            num(r.x),
            num(r.y),
            num(r.width),
            num(r.height)
        );
    }
    let meaning = match (e.verification, verification) {
        (_, Verification::None) => {
            "This step's command does not read target evidence: the annotation is ignored."
        }
        (VerificationState::Unverifiable, _) => {
            "Recorded as unverifiable: replay stops at this step with `identity-unverifiable` \
             instead of acting on an element it cannot confirm."
        }
        (VerificationState::Verified, Verification::PostResolution) => {
            "Landmark guard: the wait keeps polling until a match carries this identity; only \
             impostors at the deadline stop the replay (`identity-mismatch`)."
        }
        (VerificationState::Verified, _) => {
            "Before dispatch, the selector's match must carry this identity (id, else role and \
             label, with the ancestry prefix); otherwise replay stops with `selector-miss` or \
             `identity-mismatch`."
        }
    };
    let _ = write!(s, "\n{meaning}");
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_read_naturally() {
        assert_eq!(num(28.0), "28");
        assert_eq!(num(311.666_666), "311.67");
        assert_eq!(num(0.5), "0.5");
    }
}
