//! `ad check`: every diagnostic of every script, in one run.

use std::io::{IsTerminal, Write};
use std::path::PathBuf;

use ad_grammar::Severity;
use clap::{Args, ValueEnum};

use ad_compiler::check_file::{self, Checked};
use ad_compiler::config::{Config, ProfileChoice, ProfileOrigin};

use crate::files;
use crate::render::{self, CheckedFile};

#[derive(Args)]
pub struct CheckArgs {
    /// Scripts or folders (searched recursively for *.ad); `-` reads stdin.
    #[arg(default_value = ".")]
    paths: Vec<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Human)]
    format: Format,
    /// Exit 1 on warnings too.
    #[arg(long)]
    deny_warnings: bool,
    /// Apply the available fixes in place, then report what remains.
    #[arg(long)]
    fix: bool,
    /// Only report diagnostics that agent-device 0.21.5 itself would reject the script for.
    #[arg(long)]
    parity_only: bool,
    /// Check scripts as test flows or as handoff scripts (default: inferred; a terminal `close`
    /// or no recorder evidence makes a flow, a close-less script with target-v1 evidence a
    /// handoff). Overrides check.profile and [profiles] in ad.toml.
    #[arg(long, value_parser = ["auto", "flow", "handoff"])]
    profile: Option<String>,
    /// Set a rule's level, e.g. `--rule AD301=off` or `--rule AD733=error` (repeatable;
    /// overrides ad.toml). Levels: off, info, warning, error.
    #[arg(long = "rule", value_name = "CODE=LEVEL")]
    rules: Vec<String>,
    /// Use this configuration file instead of looking for ad.toml beside each script.
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
    /// Keep checking: after the first report, re-check each script you save (and the
    /// compositions that include it), one summary line per cycle, until Ctrl-C.
    #[arg(long)]
    watch: bool,
    /// With --watch: how long a file must stay unchanged before it is re-checked.
    #[arg(long, value_name = "MS", default_value_t = super::watch::DEFAULT_DEBOUNCE_MS, requires = "watch")]
    debounce: u64,
    /// Read .yaml and .yml paths as Maestro flows, as `agent-device replay FLOW.yaml --maestro`
    /// routes them (folders are searched for *.yaml, *.yml and *.ad; .ad scripts are checked as
    /// usual): every refusal of agent-device's Maestro reader, and what would fail when the flow
    /// is planned or run (docs/maestro.md). A .yaml named by `[maestro] paths` of ad.toml is a
    /// flow without it.
    #[arg(long, conflicts_with_all = ["fix", "watch"])]
    maestro: bool,
    #[command(flatten)]
    input: files::InputArgs,
}

/// The configuration for one script: the ad.toml that applies, then the CLI overrides.
fn config_for(args: &CheckArgs, script: Option<&std::path::Path>) -> Result<Config, String> {
    let mut config = match (&args.config, script) {
        (Some(file), _) => {
            let text =
                std::fs::read_to_string(file).map_err(|e| format!("{}: {e}", file.display()))?;
            let config = Config::parse(&text, Some(file)).map_err(|e| e.0)?;
            match script {
                Some(path) => config.for_script(path),
                None => config,
            }
        }
        (None, script) => check_file::discover_config(script.unwrap_or(std::path::Path::new("-")))
            .map_err(|e| e.0)?,
    };
    if let Some(p) = &args.profile {
        config.profile = ProfileChoice::parse(p).unwrap_or_default();
        config.profile_origin = ProfileOrigin::CommandLine;
    }
    let overrides = args.rules.iter().map(|r| {
        format!(
            "{} = \"{}\"",
            r.split_once('=').map_or(r.as_str(), |(c, _)| c),
            r.split_once('=').map_or("", |(_, l)| l)
        )
    });
    let rules_toml = format!("[rules]\n{}", overrides.collect::<Vec<_>>().join("\n"));
    if !args.rules.is_empty() {
        let parsed = Config::parse(&rules_toml, None)
            .map_err(|e| format!("--rule: {}", e.0.trim_start_matches("ad.toml: ")))?;
        config.rules.extend(parsed.rules);
    }
    Ok(config)
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Format {
    /// Rendered reports with source excerpts (colour on a terminal).
    Human,
    /// A JSON array of diagnostics with 1-based positions.
    Json,
    /// SARIF 2.1.0, for code-scanning upload.
    Sarif,
    /// GitHub Actions workflow annotations.
    Github,
}

pub fn run(args: CheckArgs) -> i32 {
    if args.watch {
        let debounce = std::time::Duration::from_millis(args.debounce);
        return super::watch::watch(&args.paths, debounce, true, |paths| {
            let counts = check_paths(&args, paths, false);
            super::watch::CycleOutcome {
                verdict: counts.verdict(),
            }
        });
    }
    let paths = match if args.maestro {
        // As `agent-device test DIR --maestro` collects: flows and .ad scripts.
        files::collect_ext(&args.paths, &["yaml", "yml", "ad"])
    } else {
        files::collect(&args.paths)
    } {
        Ok(p) => p,
        Err(e) => return crate::usage_error(&e.0),
    };
    if paths.is_empty() {
        return crate::usage_error(if args.maestro {
            "no .yaml, .yml or .ad files found in the given paths"
        } else {
            "no .ad scripts found in the given paths"
        });
    }
    check_paths(&args, &paths, true).exit_code
}

/// agent-device's routing under `--maestro`: a `.yaml`/`.yml` file is a Maestro flow, anything
/// else (an `.ad` script) is read as usual.
fn is_flow(path: &std::path::Path) -> bool {
    path.extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("yaml") || e.eq_ignore_ascii_case("yml"))
}

/// A Maestro flow's findings (ad_maestro), with the reading findings (not UTF-8, over
/// agent-device's size limit) and the configuration's levels applied.
fn maestro_flow(args: &CheckArgs, source: files::Source, config: &Config) -> CheckedFile {
    // The files a flow names (runFlow, runScript): regular files, read through the one capped
    // reader; one over agent-device's limit reads as empty (agent-device refuses it too).
    let read = |p: &std::path::Path| {
        use ad_compiler::input_file::{read, Accept, ReadError};
        match read(
            p,
            ad_grammar::input::AGENT_DEVICE_MAX_BYTES,
            Accept::RegularFile,
        ) {
            Ok(bytes) => Some(String::from_utf8_lossy(&bytes).into_owned()),
            Err(ReadError::TooLarge { .. }) => Some(String::new()),
            Err(_) => None,
        }
    };
    let checked = ad_maestro::check(&source.text, source.path.as_deref(), &read);
    let mut diagnostics = checked.diagnostics;
    diagnostics.extend(source.over_agent_device_limit);
    diagnostics.extend(source.not_utf8.map(|bad| bad.diagnostic));
    config.apply(&mut diagnostics);
    diagnostics.sort_by_key(|d| (d.primary_span().start(), d.primary_span().end()));
    if args.parity_only {
        diagnostics.retain(|d| d.is_parity_error());
    }
    CheckedFile::new(source.name, source.text, diagnostics)
}

/// What a check of some scripts found.
struct Counts {
    /// 0 clean, 1 problems, 2 usage or I/O error.
    exit_code: i32,
    errors: usize,
    warnings: usize,
}

impl Counts {
    /// `2 errors, 1 warning` (a watch cycle's summary).
    fn verdict(&self) -> String {
        if self.exit_code == 2 {
            return "could not check (see above)".into();
        }
        let plural = |n: usize, word: &str| format!("{n} {word}{}", if n == 1 { "" } else { "s" });
        format!(
            "{}, {}",
            plural(self.errors, "error"),
            plural(self.warnings, "warning")
        )
    }
}

/// Checks `paths` and prints the report. `last_run`: the process ends after this check, so the
/// last script's analysis is left to the exit (a watch keeps going and frees it).
fn check_paths(args: &CheckArgs, paths: &[PathBuf], last_run: bool) -> Counts {
    let usage = |message: &str| Counts {
        exit_code: crate::usage_error(message),
        errors: 0,
        warnings: 0,
    };
    let mut checked = Vec::with_capacity(paths.len());
    // Findings in a fragment already reported through another parent (file, code, offset).
    let mut seen = std::collections::BTreeSet::new();
    let mut unreadable = 0usize;
    for (nth, path) in paths.iter().enumerate() {
        let script = (path.as_os_str() != "-").then_some(path.as_path());
        let config = match config_for(args, script) {
            Ok(c) => c,
            Err(e) => return usage(&e),
        };
        let source = match files::read_with_limit(path, args.input.limit(&config)) {
            Ok(s) => s,
            Err(files::InputError(_, Some(refused))) => {
                // Not read: the file's one finding is that it is too large.
                let mut check = check_file::FileCheck::not_read(refused.diagnostic, config);
                let diagnostics = check.take_diagnostics();
                checked.push(CheckedFile::new(refused.name, String::new(), diagnostics));
                continue;
            }
            // One file that cannot be read (a dangling link in a folder) is said, and the
            // others are still checked; the exit code is then 2 (an I/O error).
            Err(e) => {
                crate::usage_error(&e.0);
                unreadable += 1;
                continue;
            }
        };
        // `--maestro`, or a flow the `ad.toml`'s `[maestro] paths` names (as the editor routes it).
        if (args.maestro && is_flow(path)) || config.is_maestro_flow(path) {
            checked.push(maestro_flow(args, source, &config));
            continue;
        }
        let (name, path) = (source.name.clone(), source.path.clone());
        let not_utf8 = source.not_utf8.is_some();
        let options = check_file::Options {
            max_file_size: args.input.max_file_size,
            dispatch_notes: true,
            ..check_file::Options::default()
        };
        let mut check =
            check_file::check_decoded(path.as_deref(), source.into_decoded(), config, &options);
        let mut analysis = match check.checked {
            // A composition or a fragment: its findings are in several files.
            Checked::Composed(c) => {
                let p = path.as_deref().unwrap_or(std::path::Path::new("-"));
                match super::compose::check(
                    p,
                    c,
                    &check.config,
                    args.fix,
                    &mut seen,
                    args.input.max_file_size,
                ) {
                    Ok(files) => checked.extend(files),
                    Err(e) => return usage(&e),
                }
                continue;
            }
            Checked::Plain(analysis) => analysis,
            // Read and decoded: never over the cap.
            Checked::NotRead => continue,
        };
        if args.fix {
            if let Some(p) = &path {
                let (fixed, applied) =
                    ad_compiler::apply_fixes(analysis.text(), &analysis.diagnostics);
                if applied > 0 && not_utf8 {
                    // Writing the text back would turn every invalid byte into U+FFFD.
                    eprintln!(
                        "not fixed: {} is not valid UTF-8 ({})",
                        crate::render::escape_controls(&name),
                        ad_grammar::codes::NOT_UTF8
                    );
                } else if applied > 0 {
                    if let Err(e) = crate::atomic_write(p, fixed.as_bytes()) {
                        return usage(&format!("{}: {e}", p.display()));
                    }
                    eprintln!(
                        "fixed {applied} problem(s) in {}",
                        crate::render::escape_controls(&name)
                    );
                    analysis = ad_compiler::analyze_owned(fixed, &check.config);
                }
            }
        }
        check.checked = Checked::Plain(analysis);
        // The analysis's findings with the reading's merged in, as the entry orders them.
        let mut diagnostics = check.take_diagnostics();
        let Checked::Plain(analysis) = check.checked else {
            unreachable!("set above")
        };
        let text: std::borrow::Cow<'static, str> = if last_run && nth + 1 == paths.len() {
            // The last script's tree and steps are left to the process exit, which returns their
            // pages at once: freeing a large script's millions of small blocks one by one costs
            // about as much as a rule family. Its text is read from there.
            let analysis: &'static ad_compiler::Analysis = Box::leak(Box::new(analysis));
            analysis.text().into()
        } else {
            // Freed before the next script is read (the steps first: they borrow the text).
            analysis.into_parse().file.text.into()
        };
        if args.parity_only {
            diagnostics.retain(|d| d.is_parity_error());
        }
        checked.push(CheckedFile::new(name, text, diagnostics));
    }

    let count = |s: Severity| {
        checked
            .iter()
            .flat_map(|f| &f.diagnostics)
            .filter(|d| d.severity == s)
            .count()
    };
    let (errors, warnings, infos) = (
        count(Severity::Error),
        count(Severity::Warning),
        count(Severity::Info),
    );
    let stdout = std::io::stdout();
    let colour = stdout.is_terminal() && std::env::var_os("NO_COLOR").is_none();
    // Reports are written as they are rendered: memory does not grow with the output.
    let mut out = std::io::BufWriter::new(stdout.lock());
    match args.format {
        Format::Human => {
            let mut buf = Vec::new();
            for f in &checked {
                for d in &f.diagnostics {
                    buf.clear();
                    render::human::render(f, d, colour, &mut buf);
                    let _ = out.write_all(&buf);
                }
            }
            let files_with = checked.iter().filter(|f| !f.diagnostics.is_empty()).count();
            let _ = writeln!(
                out,
                "checked {} file{}: {errors} error{}, {warnings} warning{}, {infos} info{}",
                checked.len(),
                if checked.len() == 1 { "" } else { "s" },
                if errors == 1 { "" } else { "s" },
                if warnings == 1 { "" } else { "s" },
                if infos == 1 { "" } else { "s" },
            );
            if unreadable > 0 {
                let _ = writeln!(
                    out,
                    "{unreadable} file{} could not be read (see above)",
                    if unreadable == 1 { "" } else { "s" }
                );
            } else if files_with == 0 {
                let _ = writeln!(out, "all clear");
            }
        }
        Format::Json => {
            let _ = render::json::write(&checked, &mut out);
            let _ = writeln!(out);
        }
        Format::Sarif => {
            let _ = writeln!(
                out,
                "{}",
                serde_json::to_string_pretty(&render::sarif::render(&checked)).unwrap_or_default()
            );
        }
        Format::Github => {
            let _ = write!(out, "{}", render::github::render(&checked));
        }
    }
    let _ = out.flush();
    Counts {
        exit_code: if unreadable > 0 {
            2
        } else {
            i32::from(errors > 0 || (args.deny_warnings && warnings > 0))
        },
        errors,
        warnings,
    }
}
