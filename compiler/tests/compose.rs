//! Every composition fixture in `tests/fixtures/compose/<name>/`, composed as `ad check` does
//! with the fixture folder as the project root:
//!
//! * `ADxxx-<slug>/main.ad` must report `ADxxx` (positive) and `fixed.ad` beside it, the same
//!   composition with the fix, must report neither that code nor any error or warning
//!   (negative); `clean-<slug>/main.ad` reports nothing. A `limits` file (`max_depth=N`) lowers
//!   the composition limits for that fixture; `dispatch_notes=true` in it composes as `ad check`
//!   does, with its notes on the composition lines (AD811).
//! * Every composition code (AD800–AD810) has a fixture and a docs entry.
//! * What each `main.ad` reports is an insta snapshot, with each finding's file and include chain.

use std::path::{Path, PathBuf};

use ad_compiler::codes::TABLE;
use ad_compiler::compose::{self, Composition, FsFiles, Limits, MemoryFiles, Options};
use ad_compiler::Severity;

fn fixtures_dir() -> PathBuf {
    ad_tests::repo_dir().join("tests/fixtures/compose")
}

fn fixture_names() -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(fixtures_dir())
        .expect("tests/fixtures/compose")
        .filter_map(|e| e.ok())
        .filter(|e| e.path().is_dir())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

fn options_for(dir: &Path) -> Options {
    let mut limits = Limits::default();
    if let Ok(text) = std::fs::read_to_string(dir.join("limits")) {
        for line in text.lines() {
            if let Some(n) = line.strip_prefix("max_depth=") {
                limits.max_depth = n.trim().parse().expect("max_depth=N");
            }
        }
    }
    let dispatch_notes = std::fs::read_to_string(dir.join("limits"))
        .is_ok_and(|text| text.lines().any(|l| l.trim() == "dispatch_notes=true"));
    Options {
        root: dir.to_path_buf(),
        limits,
        dispatch_notes,
        ..Options::default()
    }
}

fn compose_fixture(dir: &Path, file: &str) -> Composition {
    let entry = dir.join(file);
    let text = std::fs::read_to_string(&entry).expect("fixture");
    compose::compose(&entry, &text, &FsFiles, &options_for(dir))
}

fn codes(c: &Composition) -> Vec<&'static str> {
    let mut v: Vec<_> = c
        .diagnostics
        .iter()
        .map(|d| d.diagnostic.code.id())
        .collect();
    v.sort();
    v.dedup();
    v
}

fn serious(c: &Composition) -> Vec<String> {
    c.diagnostics
        .iter()
        .filter(|d| d.diagnostic.severity != Severity::Info)
        .map(|d| format!("{} {}", d.diagnostic.code, d.diagnostic.message))
        .collect()
}

#[test]
fn every_fixture_reports_its_code_and_its_fix_does_not() {
    let mut problems = Vec::new();
    for name in fixture_names() {
        let dir = fixtures_dir().join(&name);
        let main = compose_fixture(&dir, "main.ad");
        if name.starts_with("clean-") {
            if !main.diagnostics.is_empty() {
                problems.push(format!(
                    "{name}: expected nothing, got {:?}",
                    serious(&main)
                ));
            }
            continue;
        }
        let code = &name[..5];
        if !codes(&main).contains(&code) {
            problems.push(format!(
                "{name}/main.ad: expected {code}, got {:?}",
                codes(&main)
            ));
        }
        let fixed = compose_fixture(&dir, "fixed.ad");
        if codes(&fixed).contains(&code) || !serious(&fixed).is_empty() {
            problems.push(format!(
                "{name}/fixed.ad: expected clean, got {:?}",
                serious(&fixed)
            ));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn every_composition_code_has_a_fixture_and_a_docs_entry() {
    let names = fixture_names();
    let docs = std::fs::read_to_string(ad_tests::repo_dir().join("docs/diagnostics.md")).unwrap();
    for c in TABLE.iter().filter(|c| c.composition()) {
        assert!(
            names.iter().any(|n| n.starts_with(c.id())),
            "{c}: no fixture in tests/fixtures/compose"
        );
        assert!(
            docs.contains(&format!("### {c} — {}", c.title())),
            "{c}: no `### {c} — {}` entry in docs/diagnostics.md",
            c.title()
        );
    }
}

/// What each fixture reports: file, position, code, message, help and include chain.
#[test]
fn what_every_fixture_reports() {
    for name in fixture_names() {
        let dir = fixtures_dir().join(&name);
        let c = compose_fixture(&dir, "main.ad");
        let mut out = String::new();
        for d in &c.diagnostics {
            let text = &c.files[&d.file];
            let start = d.diagnostic.primary_span().start();
            let line = text[..start].matches('\n').count() + 1;
            let file = d.file.strip_prefix(&dir).unwrap_or(&d.file).display();
            out.push_str(&format!(
                "{file}:{line} {} {:?}: {}\n",
                d.diagnostic.code, d.diagnostic.severity, d.diagnostic.message
            ));
            if let Some(h) = &d.diagnostic.help {
                out.push_str(&format!("  help: {h}\n"));
            }
            for s in &d.chain {
                let f = s.file.strip_prefix(&dir).unwrap_or(&s.file).display();
                out.push_str(&format!("  via {f}:{} [{}]\n", s.line + 1, s.call_site_id));
            }
        }
        insta::assert_snapshot!(name.clone(), out);
    }
}

/// A stale pin after an edit: the fragment changes, the pin is reported (with the old and the
/// new digest) and `--fix` rewrites exactly the digest, after which the composition is clean.
#[test]
fn a_stale_pin_after_an_edit_is_rewritten_by_the_fix() {
    let dir = fixtures_dir().join("clean-two-fragments");
    let parent = std::fs::read_to_string(dir.join("main.ad")).unwrap();
    let frag = std::fs::read_to_string(dir.join("frag.ad")).unwrap();
    let other = std::fs::read_to_string(dir.join("other.ad")).unwrap();
    let root = PathBuf::from("/project");
    let files = |frag: &str| {
        MemoryFiles::new([
            (root.join("frag.ad"), frag.to_string()),
            (root.join("other.ad"), other.clone()),
        ])
    };
    let options = Options {
        root: root.clone(),
        ..Options::default()
    };
    let entry = root.join("main.ad");
    assert!(compose::compose(&entry, &parent, &files(&frag), &options)
        .diagnostics
        .is_empty());
    let edited = frag.replace("tab.profile", "tab.catalog");
    let c = compose::compose(&entry, &parent, &files(&edited), &options);
    assert_eq!(codes(&c), vec!["AD806"]);
    let stale = &c.diagnostics[0].diagnostic;
    let new_digest = compose::fragment_digest(&edited);
    assert!(stale
        .help
        .as_ref()
        .unwrap()
        .to_string()
        .contains(&new_digest[..19]));
    let (fixed, applied) = compose::apply_composition_fixes(&parent, std::slice::from_ref(stale));
    assert_eq!(applied, 1);
    assert_eq!(
        fixed,
        parent.replace(&compose::fragment_digest(&frag), &new_digest),
        "the fix changes the digest and nothing else"
    );
    assert!(compose::compose(&entry, &fixed, &files(&edited), &options)
        .diagnostics
        .is_empty());
}

/// A cycle across three files is reported once, at the include that closes it, naming the
/// whole chain; the expansion stops there instead of recursing.
#[test]
fn a_cycle_across_three_files_names_the_chain() {
    let dir = fixtures_dir().join("AD803-fragment-cycle");
    let c = compose_fixture(&dir, "main.ad");
    let cycles: Vec<_> = c
        .diagnostics
        .iter()
        .filter(|d| d.diagnostic.code.id() == "AD803")
        .collect();
    assert_eq!(cycles.len(), 1);
    assert_eq!(
        cycles[0].diagnostic.message.to_string(),
        "include cycle: a.ad → b.ad → c.ad → a.ad"
    );
    assert_eq!(cycles[0].file, dir.join("c.ad"));
    assert_eq!(cycles[0].chain.len(), 3, "main → a → b → c");
}

/// Rules run over the expansion: a finding in a fragment is reported in the fragment's file
/// with the include chain, at the fragment's own line.
#[test]
fn rules_run_across_the_expansion_and_point_into_the_fragment() {
    let root = PathBuf::from("/p");
    let dir = fixtures_dir().join("clean-two-fragments");
    let parent = std::fs::read_to_string(dir.join("main.ad")).unwrap();
    let frag = std::fs::read_to_string(dir.join("frag.ad")).unwrap();
    let other = std::fs::read_to_string(dir.join("other.ad")).unwrap();
    // A ref issued by a snapshot in the parent does not survive the fragment's mutating click.
    let frag_with_ref = format!("{frag}click @e3\n");
    let parent = parent.replacen(
        "open \"com.example.shop\"",
        "open \"com.example.shop\"\nsnapshot",
        1,
    );
    let files = MemoryFiles::new([
        (root.join("frag.ad"), frag_with_ref.clone()),
        (root.join("other.ad"), other),
    ]);
    let options = Options {
        root: root.clone(),
        ..Options::default()
    };
    // The pins are stale now (the fragment changed): rewrite them first.
    let c = compose::compose(&root.join("main.ad"), &parent, &files, &options);
    let (parent, _) = compose::apply_composition_fixes(
        &parent,
        &c.diagnostics
            .iter()
            .map(|d| d.diagnostic.clone())
            .collect::<Vec<_>>(),
    );
    let c = compose::compose(&root.join("main.ad"), &parent, &files, &options);
    let in_fragment: Vec<_> = c
        .diagnostics
        .iter()
        .filter(|d| d.file == root.join("frag.ad"))
        .collect();
    assert!(
        !in_fragment.is_empty(),
        "expected a ref-frame finding in frag.ad, got {:?}",
        serious(&c)
    );
    let d = in_fragment[0];
    let line = frag_with_ref[..d.diagnostic.primary_span().start()]
        .matches('\n')
        .count();
    assert_eq!(line, 5, "the `click @e3` line of the fragment");
    assert_eq!(d.chain[0].call_site_id, "a");
}

/// With a snapshot of the pinned fragment in the project (`.ad/pins/<hex>.pinned`, written when
/// the pin was), a stale pin names the steps that changed; without one it says so.
#[test]
fn a_stale_pin_shows_the_steps_that_changed_since_its_snapshot() {
    let dir = fixtures_dir().join("clean-two-fragments");
    let parent = std::fs::read_to_string(dir.join("main.ad")).unwrap();
    let frag = std::fs::read_to_string(dir.join("frag.ad")).unwrap();
    let other = std::fs::read_to_string(dir.join("other.ad")).unwrap();
    let root = PathBuf::from("/project");
    let pinned = compose::fragment_digest(&frag);
    let snapshot = compose::snapshot_path(&root, &pinned).unwrap();
    assert_eq!(
        snapshot,
        root.join(".ad/pins")
            .join(format!("{}.pinned", &pinned[7..]))
    );
    let edited = frag.replace("tab.profile", "tab.catalog");
    let options = Options {
        root: root.clone(),
        ..Options::default()
    };
    let stale_help = |with_snapshot: bool| {
        let mut files = vec![
            (root.join("frag.ad"), edited.clone()),
            (root.join("other.ad"), other.clone()),
        ];
        if with_snapshot {
            files.push((snapshot.clone(), compose::snapshot_text(&frag)));
        }
        let c = compose::compose(
            &root.join("main.ad"),
            &parent,
            &MemoryFiles::new(files),
            &options,
        );
        assert_eq!(codes(&c), vec!["AD806"]);
        c.diagnostics[0]
            .diagnostic
            .help
            .as_ref()
            .unwrap()
            .to_string()
    };
    let help = stale_help(true);
    assert!(
        help.contains("what changed since the pin:\n  - 5: click \"id=\\\"tab.profile\\\"\"\n  + 5: click \"id=\\\"tab.catalog\\\"\""),
        "{help}"
    );
    let help = stale_help(false);
    assert!(
        help.contains("no snapshot of the pinned steps in .ad/pins/")
            && help.contains("git diff frag.ad"),
        "{help}"
    );
}

/// Paths are checked where they really lead: an include whose file (or a folder on its way) is a
/// symbolic link out of the project root is refused like `../` out of it; a link that stays
/// inside is followed.
#[cfg(unix)]
#[test]
fn an_include_through_a_symlink_out_of_the_project_is_refused() {
    use std::os::unix::fs::symlink;
    let scratch = ad_tests::scratch_dir("compose-links");
    let root = scratch.join("project");
    let outside = scratch.join("outside");
    std::fs::create_dir_all(root.join("fragments")).unwrap();
    std::fs::create_dir_all(&outside).unwrap();
    let dir = fixtures_dir().join("clean-two-fragments");
    let frag = std::fs::read_to_string(dir.join("frag.ad")).unwrap();
    let other = std::fs::read_to_string(dir.join("other.ad")).unwrap();
    let parent = std::fs::read_to_string(dir.join("main.ad")).unwrap();
    std::fs::write(outside.join("frag.ad"), &frag).unwrap();
    std::fs::write(root.join("fragments/other.ad"), &other).unwrap();
    // A file link and a folder link out of the project, a file link inside it.
    symlink(outside.join("frag.ad"), root.join("frag.ad")).unwrap();
    symlink(&outside, root.join("shared")).unwrap();
    symlink(root.join("fragments/other.ad"), root.join("other.ad")).unwrap();
    let options = Options {
        root: root.clone(),
        ..Options::default()
    };
    let compose_with = |text: &str| {
        std::fs::write(root.join("main.ad"), text).unwrap();
        compose::compose(&root.join("main.ad"), text, &FsFiles, &options)
    };
    let c = compose_with(&parent);
    let refused: Vec<_> = c
        .diagnostics
        .iter()
        .filter(|d| d.diagnostic.code.id() == "AD801")
        .collect();
    assert_eq!(refused.len(), 1, "{:?}", serious(&c));
    assert!(refused[0]
        .diagnostic
        .message
        .to_string()
        .contains("\"frag.ad\" leads outside the project root through a symbolic link"));
    assert!(
        !c.flattened.contains("tab.profile"),
        "nothing from outside is inlined"
    );
    // The inside link (other.ad) is followed: its steps are in the expansion.
    assert!(
        c.flattened.contains("include \"other.ad\"")
            || c.call_sites.iter().any(|s| s.path == "other.ad")
    );
    let c = compose_with(&parent.replace("include \"frag.ad\"", "include \"shared/frag.ad\""));
    assert!(
        c.diagnostics
            .iter()
            .any(|d| d.diagnostic.code.id() == "AD801"
                && d.diagnostic.message.to_string().contains("symbolic link")),
        "{:?}",
        serious(&c)
    );
    let _ = std::fs::remove_dir_all(&scratch);
}

/// An `env` line in a fragment (AD801) is fixed by turning its value into the fallback of the
/// fragment's uses: the parent or the run still supply the value, the fragment keeps its
/// default, and after a re-pin the composition is clean.
#[test]
fn an_env_line_in_a_fragment_becomes_the_fallback_of_its_uses() {
    let root = PathBuf::from("/p");
    let dir = fixtures_dir().join("AD801-env-in-fragment");
    let parent = std::fs::read_to_string(dir.join("main.ad")).unwrap();
    let frag = std::fs::read_to_string(dir.join("env.ad")).unwrap()
        + "fill \"id=\\\"search\\\"\" \"${WHO}\"\n";
    let options = Options {
        root: root.clone(),
        ..Options::default()
    };
    let compose_with = |parent: &str, frag: &str| {
        let files = MemoryFiles::new([(root.join("env.ad"), frag.to_string())]);
        compose::compose(&root.join("main.ad"), parent, &files, &options)
    };
    let c = compose_with(&parent, &frag);
    let in_fragment: Vec<_> = c
        .diagnostics
        .iter()
        .filter(|d| d.file == root.join("env.ad"))
        .map(|d| d.diagnostic.clone())
        .collect();
    assert!(in_fragment
        .iter()
        .any(|d| d.code.id() == "AD801" && d.fix.is_some()));
    let (fixed, applied) = compose::apply_composition_fixes(&frag, &in_fragment);
    assert_eq!(applied, 1);
    assert!(!fixed.contains("env WHO"), "{fixed}");
    assert!(fixed.contains("\"${WHO:-demo}\""), "{fixed}");
    let stale: Vec<_> = compose_with(&parent, &fixed)
        .diagnostics
        .into_iter()
        .map(|d| d.diagnostic)
        .collect();
    assert_eq!(
        stale.iter().map(|d| d.code.id()).collect::<Vec<_>>(),
        vec!["AD806"]
    );
    let (parent, _) = compose::apply_composition_fixes(&parent, &stale);
    let c = compose_with(&parent, &fixed);
    assert!(c.diagnostics.is_empty(), "{:?}", serious(&c));
    assert!(c.flattened.contains("\"${WHO:-demo}\""));
}
