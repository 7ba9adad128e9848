//! `ad test` golden transcripts (docs/recorded.md): `--record-fixture DIR` saves the suite's
//! normalized transcript as DIR/golden.txt; `--backend recorded:DIR --golden` diffs the replay's
//! against it, `--update-golden` rewrites it.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};

use ad_runtime::core::records::suite::ScriptReport;
use ad_runtime::session::golden::{transcript, GOLDEN_FILE};

/// What to do with the golden transcript after a suite.
pub enum Golden {
    /// `--record-fixture DIR`: save it.
    Save(PathBuf),
    /// `--golden`: compare against DIR's.
    Check(PathBuf),
    /// `--update-golden`: rewrite DIR's.
    Update(PathBuf),
}

/// The transcript of `summary`, with the run-specific folders collapsed.
fn normalized(
    scripts: &[ScriptReport],
    artifacts: &Path,
    fixture: &Path,
    suite: Option<&Path>,
) -> String {
    let mut paths = Vec::new();
    let suite = suite.unwrap_or(Path::new(""));
    for (p, marker) in [
        (artifacts, "<artifacts>"),
        (fixture, "<fixture>"),
        (suite, "<suite>"),
    ] {
        if p.as_os_str().is_empty() {
            continue;
        }
        paths.push((p.display().to_string(), marker));
        if let Ok(abs) = p.canonicalize() {
            paths.push((abs.display().to_string(), marker));
        }
    }
    if let Ok(cwd) = std::env::current_dir() {
        paths.push((cwd.display().to_string(), "<cwd>"));
    }
    transcript(scripts, &paths)
}

/// Saves, updates or checks the golden transcript; `Err` is the exit code when the check
/// failed (1) or the file could not be read or written (2).
pub fn finish(
    golden: &Golden,
    scripts: &[ScriptReport],
    artifacts: &Path,
    suite: Option<&Path>,
) -> Result<(), i32> {
    let (dir, text) = match golden {
        Golden::Save(d) | Golden::Check(d) | Golden::Update(d) => {
            (d, normalized(scripts, artifacts, d, suite))
        }
    };
    let file = dir.join(GOLDEN_FILE);
    match golden {
        Golden::Save(_) | Golden::Update(_) => {
            // Beside the fixtures, under the same output-folder rules (never through a link).
            let written = ad_runtime::core::output_dir::replace_files(
                dir,
                ad_runtime::core::output_dir::GOLDEN_LISTING,
                &[(
                    GOLDEN_FILE.into(),
                    ad_runtime::core::output_dir::Content::Bytes(text.as_bytes()),
                )],
            );
            if let Err(e) = written {
                eprintln!(
                    "error: cannot write the golden transcript {}: {e}",
                    file.display()
                );
                return Err(2);
            }
            println!("golden transcript written to {}", file.display());
            Ok(())
        }
        Golden::Check(_) => {
            let read = ad_compiler::input_file::read(
                &file,
                ad_runtime::backends::recorded::replay::FIXTURE_FILE_MAX_BYTES,
                ad_compiler::input_file::Accept::RegularFile,
            );
            let saved = match read.map(|b| String::from_utf8_lossy(&b).into_owned()) {
                Ok(s) => s,
                Err(e) => {
                    eprintln!(
                        "error: cannot read the golden transcript {}: {e} (record the fixture with --record-fixture, or write it with --update-golden)",
                        file.display()
                    );
                    return Err(2);
                }
            };
            if saved == text {
                println!("golden transcript matches {}", file.display());
                return Ok(());
            }
            let colour = std::io::stdout().is_terminal();
            println!(
                "golden transcript differs from {} (- saved, + this run):",
                file.display()
            );
            print!("{}", diff(&saved, &text, colour));
            println!("(accept this run's transcript with --update-golden)");
            Err(1)
        }
    }
}

/// A unified line diff with three lines of context.
pub fn diff(old: &str, new: &str, colour: bool) -> String {
    let d = similar::TextDiff::from_lines(old, new);
    let mut out = String::new();
    for group in d.grouped_ops(3) {
        for op in group {
            for change in d.iter_changes(&op) {
                let (sign, start, end) = match change.tag() {
                    similar::ChangeTag::Delete => ("-", "\x1b[31m", "\x1b[0m"),
                    similar::ChangeTag::Insert => ("+", "\x1b[32m", "\x1b[0m"),
                    similar::ChangeTag::Equal => (" ", "", ""),
                };
                let line = change.value().trim_end_matches('\n');
                if colour && !start.is_empty() {
                    out.push_str(&format!("{start}{sign}{line}{end}\n"));
                } else {
                    out.push_str(&format!("{sign}{line}\n"));
                }
            }
        }
        out.push_str("@@\n");
    }
    out
}
