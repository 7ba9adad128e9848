//! The `ad.toml` is looked up once per command, by the command (`ad_compiler::check_file::
//! discover_config`), and handed down: the run gate and the backend factory take the
//! [`Config`] they are given and have no way to look one up. These tests hold that: neither
//! the core nor the backends call a lookup, and what the gate and the factory decide follows
//! the configuration handed in, whatever is on the disk.

mod common;

use std::path::Path;

use ad_compiler::config::Config;
use ad_runtime::backends::{project_default, BackendKind};
use ad_runtime::core::gate;

/// Lines of code (comments left out) under `src/<layer>` that look an `ad.toml` up.
fn lookups(layer: &str) -> Vec<String> {
    common::code_lines(layer)
        .into_iter()
        .filter(|(_, line)| line.contains("Config::discover") || line.contains("discover_config"))
        .map(|(place, line)| format!("{place}: {}", line.trim_start()))
        .collect()
}

#[test]
fn neither_the_core_nor_the_backends_look_up_an_ad_toml() {
    for layer in ["core", "backends"] {
        let found = lookups(layer);
        assert!(
            found.is_empty(),
            "src/{layer} looks an ad.toml up (take the caller's Config instead):\n{}",
            found.join("\n")
        );
    }
}

const ALIAS: &str =
    "context platform=ios\nopen \"com.example.shop\"\ntap \"label=Sign in\"\nclose\n";

#[test]
fn the_gate_refuses_by_the_configuration_it_is_handed() {
    // A CLI alias is an error by default, which an ad.toml may lower.
    let refusal = gate::analyze(&Config::default(), "alias.ad", ALIAS, false).unwrap_err();
    assert_eq!(
        refusal.kind,
        gate::RefusalKind::StaticErrors {
            agent_device_rejects: false
        }
    );
    assert_eq!(refusal.diagnostics[0].code.id(), "AD103");
    let lenient = Config::parse("[rules]\nAD103 = \"warning\"\n", None).unwrap();
    let analysis = gate::analyze(&lenient, "alias.ad", ALIAS, false).expect("not refused");
    assert!(analysis
        .diagnostics
        .iter()
        .any(|d| d.code.id() == "AD103" && d.severity == ad_compiler::Severity::Warning));
}

#[test]
fn a_broken_ad_toml_is_refused_as_the_caller_found_it() {
    let error = Config::parse("[nope]\n", Some(Path::new("/p/ad.toml"))).unwrap_err();
    let refusal = gate::config_refusal(&error, ALIAS);
    assert_eq!(refusal.kind, gate::RefusalKind::Config);
    assert!(refusal.summary.starts_with(&error.0), "{}", refusal.summary);
    assert!(refusal
        .summary
        .ends_with("nothing was run (fix the ad.toml, or move it out of the way)"));
}

#[test]
fn the_factory_reads_the_project_default_from_the_configuration_it_is_handed() {
    let source = Path::new("/p/ad.toml");
    let web = Config::parse("[run]\nbackend = \"web\"\n", Some(source)).unwrap();
    assert_eq!(project_default(&web), Ok(Some(BackendKind::Web)));
    assert_eq!(project_default(&Config::default()), Ok(None));
    let unknown = Config::parse("[run]\nbackend = \"nope\"\n", Some(source)).unwrap();
    let message = project_default(&unknown).unwrap_err();
    assert!(
        message.starts_with("/p/ad.toml: run.backend must be one of"),
        "{message}"
    );
}
