//! `ad fmt`: rewrite scripts in agent-device's canonical spelling without changing what they do.

use std::io::{IsTerminal, Write};
use std::path::PathBuf;

use clap::Args;

use crate::files;
use crate::render::{self, escape_controls, CheckedFile};

#[derive(Args)]
pub struct FmtArgs {
    /// Scripts or folders (recursive *.ad); `-` formats stdin to stdout.
    #[arg(default_value = ".")]
    paths: Vec<PathBuf>,
    /// Do not write; exit 1 and list the files that would change.
    #[arg(long)]
    check: bool,
    /// Do not write; print a unified diff of the changes.
    #[arg(long)]
    diff: bool,
    #[command(flatten)]
    input: files::InputArgs,
}

pub fn run(args: FmtArgs) -> i32 {
    let paths = match files::collect(&args.paths) {
        Ok(p) => p,
        Err(e) => return crate::usage_error(&e.0),
    };
    let mut would_change = 0;
    let mut with_errors = 0;
    let stdout = std::io::stdout();
    let colour = std::io::stderr().is_terminal() && std::env::var_os("NO_COLOR").is_none();
    for path in &paths {
        let source = match files::read(path, &args.input) {
            Ok(s) => s,
            Err(files::InputError(_, Some(refused))) => {
                with_errors += 1;
                let file = CheckedFile::new(refused.name, String::new(), vec![refused.diagnostic]);
                let mut buf = Vec::new();
                render::human::render(&file, &file.diagnostics[0], colour, &mut buf);
                let _ = std::io::stderr().write_all(&buf);
                eprintln!(
                    "{}: not formatted: the file is too large",
                    escape_controls(&file.name)
                );
                continue;
            }
            Err(e) => return crate::usage_error(&e.0),
        };
        if let Some(bad) = &source.not_utf8 {
            // The formatter works on the decoded text: writing it back would replace every
            // invalid byte with U+FFFD. For fmt that is an error, whatever its level in check.
            with_errors += 1;
            let mut d = bad.diagnostic.clone();
            d.severity = ad_grammar::Severity::Error;
            let file = CheckedFile::new(source.name.clone(), source.text.clone(), vec![d]);
            let mut buf = Vec::new();
            render::human::render(&file, &file.diagnostics[0], colour, &mut buf);
            let _ = std::io::stderr().write_all(&buf);
            eprintln!(
                "{}: not formatted: the file is not valid UTF-8",
                escape_controls(&source.name)
            );
            if source.path.is_none() {
                // A filter passes what it cannot format through unchanged.
                let _ = stdout.lock().write_all(&bad.bytes);
            }
            continue;
        }
        let formatted = ad_compiler::format::format(&source.text);
        if !formatted.errors.is_empty() {
            with_errors += 1;
            let file = CheckedFile::new(
                source.name.clone(),
                source.text.clone(),
                formatted.errors.clone(),
            );
            let mut buf = Vec::new();
            for d in &file.diagnostics {
                render::human::render(&file, d, colour, &mut buf);
            }
            let _ = std::io::stderr().write_all(&buf);
            eprintln!(
                "{}: lines agent-device rejects were left as written",
                escape_controls(&source.name)
            );
        }
        if source.path.is_none() {
            let _ = stdout.lock().write_all(formatted.output.as_bytes());
            continue;
        }
        if !formatted.changed {
            continue;
        }
        would_change += 1;
        if args.diff {
            let _ = stdout
                .lock()
                .write_all(unified_diff(&source.name, &source.text, &formatted.output).as_bytes());
        } else if args.check {
            println!("would reformat {}", escape_controls(&source.name));
        } else if let Some(p) = &source.path {
            if let Err(e) = crate::atomic_write(p, formatted.output.as_bytes()) {
                return crate::usage_error(&format!("{}: {e}", p.display()));
            }
            eprintln!("formatted {}", escape_controls(&source.name));
        }
    }
    if args.check || args.diff {
        let n = paths.len();
        eprintln!(
            "{would_change} of {n} file{} would be reformatted",
            if n == 1 { "" } else { "s" }
        );
    }
    if with_errors > 0 || ((args.check || args.diff) && would_change > 0) {
        1
    } else {
        0
    }
}

/// A unified diff. `fmt` keeps one output line per input line, so changes are replacements at the
/// same line numbers and hunks are runs of changed lines with three lines of context.
pub fn unified_diff(name: &str, old: &str, new: &str) -> String {
    fn lines(t: &str) -> Vec<&str> {
        let mut v: Vec<&str> = t.split('\n').collect();
        if t.ends_with('\n') {
            v.pop();
        }
        v
    }
    let (a, b) = (lines(old), lines(new));
    let n = a.len().max(b.len());
    fn line<'a>(v: &[&'a str], i: usize) -> Option<&'a str> {
        v.get(i).copied()
    }
    let changed: Vec<usize> = (0..n).filter(|&i| line(&a, i) != line(&b, i)).collect();
    let mut out = format!("--- {name}\n+++ {name} (formatted)\n");
    let mut i = 0;
    while i < changed.len() {
        let start = changed[i].saturating_sub(3);
        let mut end = changed[i] + 3;
        let mut j = i;
        while j + 1 < changed.len() && changed[j + 1] <= end + 3 {
            j += 1;
            end = changed[j] + 3;
        }
        let end = end.min(n - 1);
        let count = |v: &[&str]| (start..=end).filter(|k| *k < v.len()).count();
        out.push_str(&format!(
            "@@ -{},{} +{},{} @@\n",
            start + 1,
            count(&a),
            start + 1,
            count(&b)
        ));
        for k in start..=end {
            match (line(&a, k), line(&b, k)) {
                (Some(x), Some(y)) if x == y => out.push_str(&format!(" {x}\n")),
                (x, y) => {
                    if let Some(x) = x {
                        out.push_str(&format!("-{}\n", x.replace('\r', "\\r")));
                    }
                    if let Some(y) = y {
                        out.push_str(&format!("+{y}\n"));
                    }
                }
            }
        }
        i = j + 1;
    }
    out
}
