//! Every command a script can use has a handler in the interpreter and a documented behaviour
//! on the sim backend: carried out, or refused with the typed `UNSUPPORTED_OPERATION`.

mod common;

use ad_compiler::registry::{Action, ArgKind, COMMANDS};
use ad_runtime::backend::Backend;
use ad_runtime::sim::Sim;

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
