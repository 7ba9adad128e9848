//! The one entry that checks a file (`ad_compiler::check_file`): what it reads a file as
//! (plain or composed), the read-time findings merged into the analysis's, and the `ad.toml`
//! it is handed applied to both.

use std::path::{Path, PathBuf};

use ad_compiler::check_file::{self, Checked, Options};
use ad_compiler::codes::{FILE_TOO_LARGE, NOT_UTF8};
use ad_compiler::compose::ScriptKind;
use ad_compiler::config::Config;
use ad_compiler::Severity;

/// A fresh folder of this test's own, with a `.git` so no `ad.toml` above it applies.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("ad-check-file-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join(".git")).unwrap();
    dir
}

fn codes(diagnostics: &[ad_compiler::Diagnostic]) -> Vec<String> {
    diagnostics.iter().map(|d| d.code.to_string()).collect()
}

const ALIAS: &str =
    "context platform=ios\nopen \"com.example.shop\"\ntap \"label=Sign in\"\nclose\n";

#[test]
fn a_plain_script_is_analysed_and_a_composition_with_a_path_is_composed() {
    let dir = ad_tests::repo_dir().join("tests/fixtures/compose/AD804-duplicate-call-site");
    let main = dir.join("main.ad");
    let bytes = std::fs::read(&main).unwrap();
    let options = Options::default();

    let plain = check_file::check_bytes(
        Some(Path::new("plain.ad")),
        "plain.ad",
        ALIAS.as_bytes().to_vec(),
        Config::default(),
        &options,
    );
    assert_eq!(plain.kind, ScriptKind::Plain);
    assert!(plain.analysis().is_some_and(|a| a.text() == ALIAS));

    let composed = check_file::check_bytes(
        Some(&main),
        "main.ad",
        bytes.clone(),
        Config::default(),
        &options,
    );
    assert_eq!(composed.kind, ScriptKind::Composition);
    let composition = composed.composition().expect("composed");
    assert!(
        composition.files.contains_key(&dir.join("frag.ad")),
        "the fragment is read: {:?}",
        composition.files.keys()
    );
    assert!(composition
        .diagnostics
        .iter()
        .any(|d| d.diagnostic.code.id() == "AD804"));

    // From standard input there is no folder to resolve includes in: read as one script.
    let stdin = check_file::check_bytes(None, "<stdin>", bytes, Config::default(), &options);
    assert_eq!(stdin.kind, ScriptKind::Composition);
    assert!(matches!(stdin.checked, Checked::Plain(_)));
}

#[test]
fn read_time_findings_are_merged_in_position_order() {
    // Latin-1 `é` on the third line: AD005 there, among the analysis's findings.
    let mut bytes = b"context platform=ios\nopen \"com.example.shop\"\nclick \"label=Caf".to_vec();
    bytes.extend([0xE9, b'"', b'\n']);
    bytes.extend(b"tap \"label=Sign in\"\nclose\n");
    let mut check = check_file::check_bytes(
        None,
        "latin1.ad",
        bytes,
        Config::default(),
        &Options::default(),
    );
    assert!(check.not_utf8_bytes.is_some(), "the bytes are kept");
    let analysed = codes(&check.analysis().unwrap().diagnostics);
    assert!(!analysed.contains(&NOT_UTF8.to_string()));
    let diagnostics = check.take_diagnostics();
    let all = codes(&diagnostics);
    assert!(all.contains(&NOT_UTF8.to_string()), "{all:?}");
    assert_eq!(all.len(), analysed.len() + 1, "{all:?}");
    let starts: Vec<usize> = diagnostics
        .iter()
        .map(|d| d.primary_span().start())
        .collect();
    assert!(starts.windows(2).all(|w| w[0] <= w[1]), "{starts:?}");

    // A binary file says what it is (AD007): no AD005 besides.
    let mut binary = check_file::check_bytes(
        None,
        "blob.ad",
        vec![0, 159, 146, 150, 0, 1, 2, 255],
        Config::default(),
        &Options::default(),
    );
    assert!(binary.analysis().unwrap().parse().binary);
    let all = codes(&binary.take_diagnostics());
    assert!(all.contains(&"AD007".to_string()), "{all:?}");
    assert!(!all.contains(&NOT_UTF8.to_string()), "{all:?}");
}

#[test]
fn the_configuration_handed_in_sets_levels_and_the_cap() {
    let dir = scratch("config");
    std::fs::write(
        dir.join("ad.toml"),
        "[rules]\nAD005 = \"error\"\n\n[input]\nmax-file-size = 64\n",
    )
    .unwrap();
    let script = dir.join("flow.ad");
    let config = check_file::discover_config(&script).expect("the ad.toml reads");
    assert_eq!(config.max_file_size, Some(64));

    let mut latin1 = b"open \"x\"\nclick \"label=Caf".to_vec();
    latin1.extend([0xE9, b'"', b'\n']);
    let mut check = check_file::check_bytes(
        Some(&script),
        "flow.ad",
        latin1,
        config.clone(),
        &Options::default(),
    );
    let diagnostics = check.take_diagnostics();
    let not_utf8 = diagnostics.iter().find(|d| d.code == NOT_UTF8).unwrap();
    assert_eq!(not_utf8.severity, Severity::Error, "the ad.toml's level");

    // Over the ad.toml's cap: not read, its one finding AD006.
    let mut large = check_file::check_bytes(
        Some(&script),
        "flow.ad",
        vec![b'\n'; 65],
        config.clone(),
        &Options::default(),
    );
    assert!(matches!(large.checked, Checked::NotRead));
    assert_eq!(
        codes(&large.take_diagnostics()),
        [FILE_TOO_LARGE.to_string()]
    );

    // `--max-file-size` overrides the ad.toml's.
    let raised = Options {
        max_file_size: Some(65),
        ..Options::default()
    };
    let read = check_file::check_bytes(Some(&script), "flow.ad", vec![b'\n'; 65], config, &raised);
    assert!(matches!(read.checked, Checked::Plain(_)));

    let _ = std::fs::remove_dir_all(&dir);
}
