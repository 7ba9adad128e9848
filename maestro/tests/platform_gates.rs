//! `runFlow` with `when.platform` (issue 33): agent-device's plan loads it on that platform
//! alone, so its plan findings (a missing file, an included flow it refuses) stop a run there
//! and nowhere else. Checked without a platform they are warnings that name it, and kept as the
//! errors a run on that platform meets ([`ad_maestro::Checked::gated`], `Program::refusal_on`).

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use ad_grammar::codes::{MAESTRO_INCLUDED_FLOW_REFUSED, MAESTRO_RUNFLOW_MISSING};
use ad_grammar::Severity;
use ad_maestro::run::program::Program;

fn files(entries: &[(&str, &str)]) -> HashMap<PathBuf, String> {
    entries
        .iter()
        .map(|(p, t)| (PathBuf::from("/flows").join(p), t.to_string()))
        .collect()
}

fn codes(diagnostics: &[ad_grammar::Diagnostic]) -> Vec<(String, Severity)> {
    diagnostics
        .iter()
        .map(|d| (d.code.id().to_string(), d.severity))
        .collect()
}

const GATED_MISSING: &str = "appId: a\n---\n- launchApp\n- runFlow:\n    file: gone.yaml\n    when:\n      platform: Android\n";

#[test]
fn a_gated_missing_file_is_an_error_on_its_platform_only() {
    let fs = files(&[("main.yaml", GATED_MISSING)]);
    let read = |p: &Path| fs.get(p).cloned();
    let main = Path::new("/flows/main.yaml");

    let unknown = ad_maestro::check(GATED_MISSING, Some(main), &read);
    assert_eq!(
        codes(&unknown.diagnostics),
        [("AD920".to_string(), Severity::Warning)]
    );
    let help = unknown.diagnostics[0].help.as_ref().unwrap().to_string();
    assert!(help.contains("only on android"), "{help}");
    assert_eq!(unknown.gated.len(), 1);
    assert_eq!(unknown.gated[0].platform, "android");
    assert_eq!(unknown.gated[0].diagnostic.severity, Severity::Error);

    let ios = ad_maestro::check_on(GATED_MISSING, Some(main), &read, "ios");
    assert!(ios.diagnostics.is_empty(), "{:?}", codes(&ios.diagnostics));
    let android = ad_maestro::check_on(GATED_MISSING, Some(main), &read, "android");
    assert_eq!(
        codes(&android.diagnostics),
        [("AD920".to_string(), Severity::Error)]
    );
    assert!(android.gated.is_empty());
}

#[test]
fn what_an_included_flow_meets_on_one_platform_refuses_its_runflow_there() {
    // main includes shared.yaml on every platform; shared.yaml's own runFlow is for iOS.
    let shared = "appId: a\n---\n- runFlow:\n    file: gone.yaml\n    when:\n      platform: iOS\n";
    let main = "appId: a\n---\n- launchApp\n- runFlow: shared.yaml\n";
    let fs = files(&[("main.yaml", main), ("shared.yaml", shared)]);
    let read = |p: &Path| fs.get(p).cloned();
    let path = Path::new("/flows/main.yaml");

    let unknown = ad_maestro::check(main, Some(path), &read);
    assert_eq!(
        codes(&unknown.diagnostics),
        [("AD924".to_string(), Severity::Warning)]
    );
    assert_eq!(unknown.gated.len(), 1);
    assert_eq!(unknown.gated[0].platform, "ios");
    assert_eq!(
        unknown.gated[0].diagnostic.code,
        MAESTRO_INCLUDED_FLOW_REFUSED
    );

    let ios = ad_maestro::check_on(main, Some(path), &read, "ios");
    assert_eq!(
        codes(&ios.diagnostics),
        [("AD924".to_string(), Severity::Error)]
    );
    let android = ad_maestro::check_on(main, Some(path), &read, "android");
    assert!(android.diagnostics.is_empty());

    // Under a runFlow for Android, shared.yaml's iOS-only finding never happens.
    let main_android =
        "appId: a\n---\n- runFlow:\n    file: shared.yaml\n    when:\n      platform: Android\n";
    let fs = files(&[("main.yaml", main_android), ("shared.yaml", shared)]);
    let read = |p: &Path| fs.get(p).cloned();
    let checked = ad_maestro::check(main_android, Some(path), &read);
    assert!(
        checked.diagnostics.is_empty(),
        "{:?}",
        codes(&checked.diagnostics)
    );
    assert!(checked.gated.is_empty());
}

#[test]
fn a_program_loads_and_is_refused_only_on_the_gated_platform() {
    let fs = files(&[("main.yaml", GATED_MISSING)]);
    let read = |p: &Path| fs.get(p).cloned();
    let program = Program::load(Path::new("/flows/main.yaml"), "main.yaml", &read)
        .expect("a flow refused on Android alone loads");
    assert!(program.refusal_on("ios").is_none());
    let refused = program.refusal_on("android").expect("refused on Android");
    assert_eq!(refused.display, "main.yaml");
    assert_eq!(refused.diagnostics.len(), 1);
    assert_eq!(refused.diagnostics[0].code, MAESTRO_RUNFLOW_MISSING);
    assert_eq!(refused.diagnostics[0].severity, Severity::Error);
}
