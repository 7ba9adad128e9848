//! Round trip `.ad` → `ad export --maestro` → `ad import`: every script of the export fixtures,
//! the conformance scripts, the check fixtures and the public corpus (when present) that
//! exports is imported back. Each import is
//! a script that passes `ad check`, `ad fmt --check` and agent-device 0.21.5's `.ad` reader, or
//! refusals with their reasons; or the diagnostics of a flow `ad check --maestro` refuses: only
//! the export's known cases (repeated swipes as YAML aliases, lone surrogates, `${…:-…}`).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use ad_grammar::Severity;
use ad_maestro::import::{import, Imported, Options};

fn scripts() -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut dirs = vec![
        ad_tests::repo_dir().join("tests/fixtures/export"),
        ad_tests::conformance().dir,
        ad_tests::check_fixtures().dir,
    ];
    // The public corpus, when it is there (`ad_tests::corpus`).
    dirs.extend(ad_tests::corpus().map(|c| c.dir));
    for dir in dirs {
        let mut here: Vec<PathBuf> = std::fs::read_dir(&dir)
            .unwrap()
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|e| e == "ad"))
            .collect();
        here.sort();
        files.extend(here);
    }
    files
}

#[test]
fn exported_scripts_import_back_to_scripts_agent_device_accepts() {
    let scratch = ad_tests::scratch_dir("maestro-import-roundtrip");
    let read = |p: &Path| std::fs::read_to_string(p).ok();
    let (mut exported, mut imported, mut aliases) = (0, Vec::new(), 0);
    let mut refused: BTreeMap<String, usize> = BTreeMap::new();
    for (i, script) in scripts().iter().enumerate() {
        let Ok(text) = std::fs::read_to_string(script) else {
            continue; // not UTF-8: some check fixtures
        };
        let analysis = ad_compiler::read(&text);
        let Ok(export) = ad_compiler::export::maestro::export(&analysis) else {
            continue;
        };
        exported += 1;
        let flow = scratch.join(format!("{i}.yaml"));
        std::fs::write(&flow, &export.yaml).unwrap();
        match import(&export.yaml, &flow, &read, Options::default()) {
            Imported::Script(s) => {
                let analysis = ad_compiler::analyze(&s);
                let errors: Vec<&str> = analysis
                    .diagnostics
                    .iter()
                    .filter(|d| d.severity == Severity::Error)
                    .map(|d| d.code.id())
                    .collect();
                assert!(errors.is_empty(), "{}: {errors:?}\n{s}", script.display());
                assert_eq!(
                    ad_compiler::format::format(&s).output,
                    s,
                    "{}: not formatted",
                    script.display()
                );
                let out = scratch.join(format!("{i}.ad"));
                std::fs::write(&out, &s).unwrap();
                imported.push((script.clone(), out));
            }
            Imported::Refused(rs) => {
                for r in rs {
                    *refused.entry(r.what).or_default() += 1;
                }
            }
            Imported::Invalid { diagnostics, .. } => {
                // The export's known cases (docs/maestro.md): a repeated swipe's YAML aliases
                // (AD905), a lone surrogate no YAML reader takes (AD901), and a `${…:-…}`
                // fallback Maestro does not resolve (AD923: the flow would fail when run).
                for d in &diagnostics {
                    assert!(
                        ["AD901", "AD905", "AD923"].contains(&d.code.id()),
                        "{}: ad check --maestro refuses the exported flow: {} {}\n{}",
                        script.display(),
                        d.code,
                        d.message,
                        export.yaml
                    );
                }
                aliases += 1;
            }
        }
    }
    let files: Vec<PathBuf> = imported.iter().map(|(_, o)| o.clone()).collect();
    for ((script, _), verdict) in imported.iter().zip(ad_tests::run_oracle(&files, 2)) {
        assert_eq!(
            verdict["ok"],
            true,
            "{}: agent-device's reader refuses the import: {verdict}",
            script.display()
        );
    }
    eprintln!(
        "exported {exported}, imported {}, refused by import {} ({refused:?}), refused by ad check --maestro (aliases, surrogates, ${{…:-…}}) {aliases}",
        imported.len(),
        exported - imported.len() - aliases
    );
    assert!(
        imported.len() * 2 >= exported,
        "most exported flows import back"
    );
}
