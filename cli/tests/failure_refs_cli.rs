//! The failure screen of a selector miss, as `ad run` renders it (issue 31, item 6): on a
//! calculator whose menus hold hidden items before the keypad in document order, the screen lists
//! the keypad nearest the recorded key first and says how many refs it left out; the HTML report
//! says it too. The model and script are runtime/tests/fixtures/failure-refs (the runtime test
//! runtime/tests/failure_refs.rs checks the report's order on the same screen).

mod common;

use std::path::{Path, PathBuf};

use common::{isolated_ad, output_text};

fn scratch(name: &str) -> PathBuf {
    common::session_scratch(&format!("failure-refs-{name}"))
}

/// The calculator model and the script, copied into `dir`.
fn copy_fixtures(dir: &Path) {
    let from = ad_tests::repo_dir().join("runtime/tests/fixtures/failure-refs");
    for f in ["calc.json", "renamed-key.ad"] {
        std::fs::copy(from.join(f), dir.join(f)).unwrap();
    }
}

/// The divergence report's lines from the screen on, without the resume command (its spelling
/// is the resume's business) and the run's own paths.
fn screen_part(stderr: &str) -> String {
    let from = stderr.find("Screen:").expect("a screen section");
    let to = stderr[from..]
        .find("\nfailed:")
        .map_or(stderr.len(), |i| from + i);
    stderr[from..to]
        .lines()
        .map(|l| {
            // refsGeneration counts the run's captures.
            match l.find("(refsGeneration ") {
                Some(i) => format!("{}(refsGeneration N).", &l[..i]),
                None => l.to_string(),
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn a_selector_miss_shows_the_keypad_and_how_many_refs_were_left_out() {
    let dir = scratch("run");
    copy_fixtures(&dir);
    let o = isolated_ad(&dir)
        .args([
            "run",
            "renamed-key.ad",
            "--app",
            "calc.json",
            "--artifacts-dir",
            "art",
            "--report-html",
            "report",
        ])
        .output()
        .unwrap();
    let text = output_text(&o);
    assert_eq!(o.status.code(), Some(1), "{text}");
    let stderr = String::from_utf8_lossy(&o.stderr);
    // 20 refs listed, 8 of them shown here: 12 more listed and 19 left out of the report.
    assert!(stderr.contains("  … and 31 more"), "{stderr}");
    insta::assert_snapshot!("failure_refs_keypad_screen", screen_part(&stderr));
    // The HTML report's screen says how many it left out, and lists the recorded key first.
    let pages: Vec<PathBuf> = std::fs::read_dir(dir.join("report/scripts"))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "html"))
        .collect();
    assert_eq!(pages.len(), 1, "{pages:?}");
    let page = std::fs::read_to_string(&pages[0]).unwrap();
    let screen = &page[page.find("<h4>Screen (").expect("the screen section")..];
    let heading = &screen[..screen.find("</h4>").unwrap()];
    assert!(
        heading.starts_with("<h4>Screen (20 refs, refsGeneration "),
        "{heading}"
    );
    assert!(heading.ends_with(", … and 19 more)"), "{heading}");
    let first_row = &screen[screen.find("<tbody>").unwrap()..];
    let first_row = &first_row[..first_row.find("</tr>").unwrap()];
    assert!(first_row.contains("×"), "{first_row}");
}
