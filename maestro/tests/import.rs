//! `ad import` (maestro/src/import.rs) on the fixtures of `tests/fixtures/maestro-import/`: each
//! flow's script, refusals or `ad check --maestro` errors are snapshotted, and every script it
//! writes passes `ad check` with no error, is already `ad fmt`-formatted and is accepted by
//! agent-device 0.21.5's own `.ad` reader (oracle/parse.mjs). `flatten-*` fixtures are imported
//! with `--flatten`.

use std::path::{Path, PathBuf};

use ad_grammar::Severity;
use ad_maestro::import::{import, Imported, Options};

fn dir() -> PathBuf {
    ad_tests::repo_dir().join("tests/fixtures/maestro-import")
}

fn read(p: &Path) -> Option<String> {
    std::fs::read_to_string(p).ok()
}

fn run(name: &str) -> Imported {
    let path = dir().join(name);
    let text = std::fs::read_to_string(&path).unwrap();
    let options = Options {
        flatten: name.starts_with("flatten-"),
    };
    import(&text, &path, &read, options)
}

fn render(outcome: &Imported) -> String {
    let rel = |p: &Path| {
        p.strip_prefix(dir())
            .unwrap_or(p)
            .to_string_lossy()
            .into_owned()
    };
    match outcome {
        Imported::Script(s) => s.clone(),
        Imported::Refused(rs) => rs
            .iter()
            .map(|r| {
                format!(
                    "refused {}:{}:{}: {}: {}\n",
                    rel(&r.file),
                    r.line,
                    r.column,
                    r.what,
                    r.why
                )
            })
            .collect(),
        Imported::Invalid {
            file,
            text,
            diagnostics,
        } => {
            let index = ad_grammar::LineIndex::new(text);
            diagnostics
                .iter()
                .map(|d| {
                    let (l, c) = index.line_col(text, d.primary_span().start());
                    format!("invalid {}:{l}:{c}: {} {}\n", rel(file), d.code, d.message)
                })
                .collect()
        }
    }
}

/// The script passes `ad check`, `ad fmt --check` and agent-device's reader.
fn assert_valid_script(name: &str, script: &str) {
    let analysis = ad_compiler::analyze(script);
    let errors: Vec<String> = analysis
        .diagnostics
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .map(|d| format!("{} {}", d.code, d.message))
        .collect();
    assert!(
        errors.is_empty(),
        "{name}: ad check errors {errors:?}\n{script}"
    );
    let formatted = ad_compiler::format::format(script);
    assert_eq!(formatted.output, script, "{name}: not ad fmt-formatted");
    let tmp = ad_tests::scratch_dir("maestro-import")
        .join(name.replace(".yaml", ".ad").replace('/', "-"));
    std::fs::write(&tmp, script).unwrap();
    let oracle = ad_tests::run_oracle_one(&tmp);
    assert_eq!(
        oracle["ok"], true,
        "{name}: agent-device's reader refuses the import: {oracle}"
    );
}

fn fixture(name: &str) -> String {
    let outcome = run(name);
    if let Imported::Script(s) = &outcome {
        assert_valid_script(name, s);
    }
    render(&outcome)
}

#[test]
fn every_mapped_command_imports_to_a_script_agent_device_accepts() {
    let out = fixture("mapped-commands.yaml");
    assert!(
        !out.starts_with("refused") && !out.starts_with("invalid"),
        "{out}"
    );
    insta::assert_snapshot!("mapped-commands", out);
}

#[test]
fn selectors_without_a_ad_equivalent_are_all_refused_with_their_line() {
    let out = fixture("refused-selectors.yaml");
    // index, childOf, below, optional, a regular expression, two percentage points.
    assert_eq!(out.lines().count(), 7, "{out}");
    insta::assert_snapshot!("refused-selectors", out);
}

#[test]
fn conditions_loops_and_scripts_are_all_refused_with_their_line() {
    let out = fixture("refused-control.yaml");
    assert_eq!(out.lines().count(), 13, "{out}");
    insta::assert_snapshot!("refused-control", out);
}

#[test]
fn env_entries_and_variables_a_ad_script_cannot_hold_are_refused() {
    let out = fixture("refused-env.yaml");
    assert_eq!(out.lines().count(), 6, "{out}");
    insta::assert_snapshot!("refused-env", out);
}

#[test]
fn a_flow_ad_check_maestro_refuses_is_refused_with_its_diagnostics() {
    let out = fixture("invalid-flow.yaml");
    assert!(out.contains("AD908") && out.contains("AD903"), "{out}");
    insta::assert_snapshot!("invalid-flow", out);
}

#[test]
fn a_run_flow_file_is_refused_without_flatten_and_inlined_with_it() {
    let out = fixture("runflow-file.yaml");
    assert!(out.starts_with("refused runflow-file.yaml:4:"), "{out}");
    insta::assert_snapshot!("runflow-file", out);
    let out = fixture("flatten-runflow-file.yaml");
    assert_eq!(
        out.matches("click \"id=\\\"login.email\\\"\"").count(),
        2,
        "{out}"
    );
    insta::assert_snapshot!("flatten-runflow-file", out);
}

#[test]
fn every_fixture_has_a_test() {
    let mut names: Vec<String> = std::fs::read_dir(dir())
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".yaml"))
        .collect();
    names.sort();
    assert_eq!(
        names,
        [
            "flatten-runflow-file.yaml",
            "invalid-flow.yaml",
            "mapped-commands.yaml",
            "refused-control.yaml",
            "refused-env.yaml",
            "refused-selectors.yaml",
            "runflow-file.yaml"
        ]
    );
}

#[test]
fn the_flows_cli_tests_run_on_the_sim_import_to_valid_scripts() {
    for name in ["sim/shop-login.yaml", "sim/shop-login-fails.yaml"] {
        let out = fixture(name);
        assert!(out.starts_with("# Imported"), "{name}: {out}");
        insta::assert_snapshot!(name.replace(['/', '.'], "-"), out);
    }
}
