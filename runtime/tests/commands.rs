//! Every command a script can use has a handler in the interpreter and a documented behaviour
//! on the sim backend: carried out, or refused with the typed `UNSUPPORTED_OPERATION`. The same
//! holds for every sub-command (`gesture drag`, `keyboard dismiss`, `find … fill`, `scroll up`):
//! the registry reads it as a typed step action, the interpreter carries it out on the sim, and
//! docs/sim-model.md says what the sim does with it.

mod common;

use ad_compiler::registry::{
    step_action, Action, AlertOp, ArgKind, ClipboardOp, FindAction, GestureKind, GetOp, KeyboardOp,
    StepAction, COMMANDS,
};
use ad_runtime::backends::sim::Sim;
use ad_runtime::core::backend::Backend;

#[test]
fn every_script_command_has_a_handler() {
    for spec in COMMANDS.iter().filter(|s| s.is_usable_in_scripts()) {
        assert_ne!(
            spec.action,
            Action::Unavailable,
            "`{}` is usable in scripts but has no action for the interpreter",
            spec.name
        );
    }
    // And the reverse: a word scripts cannot use never reaches a handler.
    for spec in COMMANDS.iter().filter(|s| !s.is_usable_in_scripts()) {
        assert!(
            matches!(spec.action, Action::Unavailable | Action::Context),
            "`{}` is not usable in scripts but names {:?}",
            spec.name,
            spec.action
        );
    }
}

#[test]
fn the_sim_carries_out_or_refuses_every_device_command_with_a_typed_error() {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .unwrap();
    let mut carried_out = Vec::new();
    let mut unsupported = Vec::new();
    for spec in COMMANDS
        .iter()
        .filter(|s| s.is_usable_in_scripts() && s.action == Action::Device)
    {
        // The first form's words, a plausible value for anything else.
        let args: Vec<String> = spec
            .forms
            .first()
            .map(|f| {
                f.positionals
                    .iter()
                    .filter(|p| !p.optional)
                    .map(|p| match p.kind {
                        ArgKind::Enum(words) => words[0].to_string(),
                        _ => "x".to_string(),
                    })
                    .collect()
            })
            .unwrap_or_default();
        let mut sim = Sim::with_model(common::shop());
        match rt.block_on(sim.other(spec.name, &args)) {
            Ok(_) => carried_out.push(spec.name),
            Err(e) if e.code() == "UNSUPPORTED_OPERATION" => {
                assert!(
                    e.message().contains(spec.name) && e.message().contains("sim"),
                    "{}: the refusal names the backend and the command: {}",
                    spec.name,
                    e.message()
                );
                unsupported.push(spec.name)
            }
            Err(e) => panic!(
                "`{} {}` on the sim: {} {} (expected success or UNSUPPORTED_OPERATION)",
                spec.name,
                args.join(" "),
                e.code(),
                e.message()
            ),
        }
    }
    // The table docs/sim-model.md documents.
    let docs = std::fs::read_to_string(common::repo().join("docs/sim-model.md")).unwrap();
    for name in carried_out.iter().chain(&unsupported) {
        assert!(
            docs.contains(&format!("`{name}`")),
            "docs/sim-model.md does not say what the sim does with `{name}`"
        );
    }
    assert!(!carried_out.is_empty() && !unsupported.is_empty());
}

/// Whether a step action is its family's "not a sub-command I know".
fn is_unknown(a: StepAction) -> bool {
    matches!(
        a,
        StepAction::Gesture(GestureKind::Unknown)
            | StepAction::Scroll(None)
            | StepAction::Keyboard(KeyboardOp::Unknown)
            | StepAction::Alert(AlertOp::Unknown)
            | StepAction::Clipboard(ClipboardOp::Unknown)
            | StepAction::Find(FindAction::Unknown)
            | StepAction::Get(GetOp::Unknown)
    )
}

/// The positional that names a sub-command, per action with sub-commands.
fn sub_command_positional(action: Action) -> Option<&'static str> {
    match action {
        Action::Gesture => Some("kind"),
        Action::Scroll => Some("direction"),
        Action::Keyboard | Action::Alert | Action::Clipboard | Action::Find => Some("action"),
        Action::Get => Some("subcommand"),
        _ => None,
    }
}

/// Every sub-command word the registry's forms offer reads as a typed sub-command, and every
/// typed sub-command has a word.
#[test]
fn every_sub_command_of_the_registry_is_typed() {
    let mut offered = 0;
    for spec in COMMANDS.iter().filter(|s| s.is_usable_in_scripts()) {
        let Some(name) = sub_command_positional(spec.action) else {
            continue;
        };
        for form in spec.forms {
            let Some(at) = form.positionals.iter().position(|p| p.name == name) else {
                continue;
            };
            let words = match form.positionals[at].kind {
                ArgKind::Enum(words) => words,
                _ => continue,
            };
            for &word in words {
                offered += 1;
                // The form's earlier positionals (a `find` locator, a query) as plausible words.
                let mut args: Vec<&str> = form.positionals[..at]
                    .iter()
                    .map(|p| match p.kind {
                        ArgKind::Enum(w) => w[0],
                        _ => "x",
                    })
                    .collect();
                args.push(word);
                let got = step_action(spec.action, |i| args.get(i).copied());
                assert!(
                    !is_unknown(got),
                    "`{} {}` is offered by the registry but reads as {got:?}",
                    spec.name,
                    args.join(" ")
                );
            }
        }
    }
    assert!(offered > 20, "only {offered} sub-command words found");
}

/// A step that uses each sub-command, run after opening the Shop app on its login screen.
fn example(action: Action, word: &str) -> String {
    let email = r#""id=\"login.email\"""#;
    let password = r#""id=\"login.password\"""#;
    match (action, word) {
        (Action::Gesture, "pan") => "gesture pan 195 400 0 -100".into(),
        (Action::Gesture, "fling") => "gesture fling up 195 400".into(),
        (Action::Gesture, "swipe") => "gesture swipe left".into(),
        (Action::Gesture, "pinch") => "gesture pinch 1.5".into(),
        (Action::Gesture, "rotate") => "gesture rotate 45".into(),
        (Action::Gesture, "transform") => "gesture transform 195 400 0 0 1.2 10".into(),
        (Action::Gesture, "drag") => format!("gesture drag {email} {password}"),
        (Action::Scroll, d) => format!("scroll {d}"),
        (Action::Keyboard, op) => format!("click {email}\nkeyboard {op}"),
        // The login screen shows no alert: `accept`, `dismiss` and `wait` meet their documented
        // failure (see `documented_failure`).
        (Action::Alert, "wait") => "alert wait 500".into(),
        (Action::Alert, op) => format!("alert {op}"),
        (Action::Clipboard, "write") => "clipboard write hello".into(),
        (Action::Clipboard, op) => format!("clipboard {op}"),
        (Action::Get, op) => format!("get {op} {email}"),
        (Action::Find, op @ ("fill" | "type")) => format!("find label Email {op} a@b.c"),
        (Action::Find, "get") => "find label Email get text".into(),
        (Action::Find, op) => format!("find label Email {op}"),
        (a, w) => panic!("no example step for {a:?} `{w}`: add one to this test"),
    }
}

/// The failures a sub-command may meet on the Shop login screen without it being unhandled: what
/// docs/sim-model.md documents for it.
fn documented_failure(action: Action, word: &str, code: &str) -> bool {
    match (action, word) {
        // No alert is shown on the login screen.
        (Action::Alert, "accept" | "dismiss") => code == "COMMAND_FAILED",
        (Action::Alert, "wait") => code == "COMMAND_FAILED",
        _ => false,
    }
}

#[test]
fn every_sub_command_is_carried_out_on_the_sim_and_documented() {
    let docs = std::fs::read_to_string(common::repo().join("docs/sim-model.md")).unwrap();
    let mut problems = Vec::new();
    for (action, word, expected) in StepAction::sub_commands() {
        let command = COMMANDS
            .iter()
            .find(|s| s.action == action && s.is_usable_in_scripts())
            .map(|s| s.name)
            .expect("a command with this action");
        let step = example(action, word);
        let last = step.lines().last().unwrap_or_default().to_string();
        let last_words: Vec<&str> = last.split_whitespace().skip(1).collect();
        let read = step_action(action, |i| last_words.get(i).copied());
        let read = match (read, expected) {
            // The table's fling carries no direction; the example's does.
            (
                StepAction::Gesture(GestureKind::Fling(Some(_))),
                StepAction::Gesture(GestureKind::Fling(None)),
            ) => expected,
            (r, _) => r,
        };
        assert_eq!(
            read, expected,
            "the example `{last}` is not `{command} {word}`"
        );
        let script = format!("context platform=ios\nopen \"com.example.shop\"\n{step}\n");
        let ran = common::run_text("sub-command.ad", &script, &[]);
        if let Some(e) = &ran.result.error {
            if !documented_failure(action, word, &e.code) {
                problems.push(format!(
                    "`{last}` on the sim: {} {} (step {:?})",
                    e.code, e.message, e.step
                ));
            }
        }
        if !docs.contains(&format!("`{command} {word}`")) {
            problems.push(format!(
                "docs/sim-model.md does not say what the sim does with `{command} {word}`"
            ));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// agent-device's daemon lowercases the clipboard sub-command (`clipboard Write` writes), so the
/// registry and the interpreter read it any case too.
#[test]
fn clipboard_sub_commands_are_read_in_any_case() {
    let script =
        "context platform=ios\nopen \"com.example.shop\"\nclipboard Write hello\nclipboard READ\n";
    let ran = common::run_text("clipboard-case.ad", script, &[]);
    assert!(ran.result.error.is_none(), "{:?}", ran.result.error);
    assert_eq!(
        step_action(Action::Clipboard, |i| ["Write", "hello"].get(i).copied()),
        StepAction::Clipboard(ClipboardOp::Write)
    );
}
