//! What `ad check`, `ad run` and `ad build` share about compositions (`composition-v1` parents
//! and `fragment-v1` files): reading the files a parent includes from the disk and turning the
//! findings into per-file reports, the include chain written under each.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use ad_compiler::check_file::{self, ScriptKind};
use ad_compiler::compose::{self, Composition};
use ad_compiler::config::Config;
use ad_compiler::Diagnostic;

use crate::render::escape_controls;

/// Composes the script at `path` (whose text is `text`) from the files on disk; each fragment
/// is read through the script's cap (`max_file_size`: the `--max-file-size` flag, else
/// `config`'s, else 2 MiB).
pub fn compose_file(
    path: &Path,
    text: &str,
    config: &Config,
    supplied: Vec<String>,
    max_file_size: Option<u64>,
) -> Composition {
    compose_with(path, text, config, supplied, max_file_size, false)
}

/// [`compose_file`]; `dispatch_notes`: `ad check`'s notes (AD811) on the composition lines
/// agent-device refuses.
fn compose_with(
    path: &Path,
    text: &str,
    config: &Config,
    supplied: Vec<String>,
    max_file_size: Option<u64>,
    dispatch_notes: bool,
) -> Composition {
    let options = check_file::Options {
        max_file_size,
        supplied,
        dispatch_notes,
    };
    check_file::compose_file(path, text, config, &options)
}

pub fn absolute(path: &Path) -> PathBuf {
    check_file::absolute(path)
}

/// A file name as the user sees it: relative to the current folder when it is below it.
pub fn shown(path: &Path) -> String {
    let cwd = std::env::current_dir().unwrap_or_default();
    path.strip_prefix(&cwd)
        .unwrap_or(path)
        .to_string_lossy()
        .into_owned()
}

/// The include chain of a finding, outermost first: `main.ad:7 [login] → fragments/a.ad:3 [x]`.
pub fn chain_text(c: &Composition, chain: &[compose::CallSite]) -> String {
    chain
        .iter()
        .map(|s| {
            let _ = c;
            format!("{}:{} [{}]", shown(&s.file), s.line + 1, s.call_site_id)
        })
        .collect::<Vec<_>>()
        .join(" → ")
}

/// The findings in one file of a composition.
pub struct FileFindings {
    pub file: PathBuf,
    pub text: String,
    pub diagnostics: Vec<Diagnostic>,
    /// Per diagnostic, the includes that reached the file (outermost first), as places in the
    /// including files.
    pub related: Vec<Vec<crate::render::Related>>,
}

/// The findings grouped by file (the entry first), each diagnostic's help naming the include
/// chain that reached its file.
pub fn by_file(c: &Composition, entry: &Path) -> Vec<FileFindings> {
    let entry = absolute(entry);
    type Found = (Diagnostic, Vec<crate::render::Related>);
    let mut files: BTreeMap<PathBuf, Vec<Found>> = BTreeMap::new();
    files.entry(entry.clone()).or_default();
    let texts: BTreeMap<&PathBuf, std::rc::Rc<str>> = c
        .files
        .iter()
        .map(|(p, t)| (p, std::rc::Rc::from(t.as_str())))
        .collect();
    for fd in &c.diagnostics {
        let mut d = fd.diagnostic.clone();
        if !fd.chain.is_empty() {
            let via = format!("included via {}", chain_text(c, &fd.chain));
            let help = match d.help.take() {
                Some(h) => format!("{h}\n{via}"),
                None => via,
            };
            d = d.with_help(help);
        }
        let related = fd
            .chain
            .iter()
            .filter_map(|s| {
                Some(crate::render::Related {
                    name: shown(&s.file),
                    text: texts.get(&s.file)?.clone(),
                    span: s.span,
                    message: format!("included here as `{}`", s.call_site_id),
                })
            })
            .collect();
        files.entry(fd.file.clone()).or_default().push((d, related));
    }
    let mut out: Vec<_> = files
        .into_iter()
        .map(|(p, found)| {
            let text = c.files.get(&p).cloned().unwrap_or_default();
            let (diagnostics, related) = found.into_iter().unzip();
            FileFindings {
                file: p,
                text,
                diagnostics,
                related,
            }
        })
        .collect();
    out.sort_by_key(|f| f.file != entry);
    out
}

/// `ad check` of a composition or fragment (`c`, as [`check_file`] composed it with its
/// dispatch notes): the files it reports on, each finding once across the run (`seen`); with
/// `fix`, the pins `--fix` can rewrite are rewritten first.
pub fn check(
    path: &Path,
    mut c: Composition,
    config: &Config,
    fix: bool,
    seen: &mut std::collections::BTreeSet<(PathBuf, ad_grammar::codes::Code, usize)>,
    max_file_size: Option<u64>,
) -> Result<Vec<crate::render::CheckedFile>, String> {
    // A fix in a fragment (AD801) changes its digest: a second round re-pins it.
    for _round in 0..2 {
        if !fix {
            break;
        }
        let mut total = 0;
        for FileFindings {
            file,
            text: file_text,
            diagnostics,
            ..
        } in by_file(&c, path)
        {
            // What changed is shown before a pin is rewritten over it.
            for d in diagnostics
                .iter()
                .filter(|d| d.code == ad_grammar::codes::FRAGMENT_STALE && d.fix.is_some())
            {
                let line = file_text[..d.primary_span().start()].matches('\n').count() + 1;
                eprintln!(
                    "{}:{line}: {} — re-pinning",
                    escape_controls(&shown(&file)),
                    escape_controls(&d.message)
                );
                for l in d.help.iter().flat_map(|h| h.lines()) {
                    eprintln!("  {}", escape_controls(l));
                }
            }
            let (composed, own) = compose::apply_composition_fixes(&file_text, &diagnostics);
            let rest: Vec<_> = diagnostics
                .into_iter()
                .filter(|d| !d.code.composition())
                .collect();
            let (fixed, others) = if check_file::kind_of(&file_text) == ScriptKind::Plain {
                ad_compiler::apply_fixes(&composed, &rest)
            } else {
                // The one-file fix check reads composition lines as unknown commands.
                (composed, 0)
            };
            let applied = own + others;
            let not_utf8 = diagnostics_not_utf8(&c, &file);
            if applied > 0 && not_utf8 {
                // Writing the text back would turn every invalid byte into U+FFFD.
                eprintln!(
                    "not fixed: {} is not valid UTF-8 ({})",
                    escape_controls(&shown(&file)),
                    ad_grammar::codes::NOT_UTF8
                );
            } else if applied > 0 {
                crate::atomic_write(&file, fixed.as_bytes())
                    .map_err(|e| format!("{}: {e}", file.display()))?;
                eprintln!(
                    "fixed {applied} problem(s) in {}",
                    escape_controls(&shown(&file))
                );
                total += applied;
            }
        }
        if total == 0 {
            break;
        }
        let limit = max_file_size.or(config.max_file_size);
        let limit = limit.unwrap_or(ad_grammar::input::AGENT_DEVICE_MAX_BYTES);
        let text = crate::files::read_with_limit(path, limit)
            .map_err(|e| e.0)?
            .text;
        c = compose_with(path, &text, config, Vec::new(), max_file_size, true);
    }
    if fix {
        write_snapshots(&c, path)?;
    }
    let mut out = Vec::new();
    for f in by_file(&c, path) {
        let mut diagnostics = Vec::new();
        let mut related = Vec::new();
        for (d, r) in f.diagnostics.into_iter().zip(f.related) {
            if !seen.insert((f.file.clone(), d.code, d.primary_span().start())) {
                continue;
            }
            // The configured severity, or nothing when the rule is off.
            let mut one = vec![d];
            config.apply(&mut one);
            if let Some(d) = one.pop() {
                diagnostics.push(d);
                related.push(r);
            }
        }
        if diagnostics.is_empty() && absolute(path) != f.file {
            continue;
        }
        out.push(crate::render::CheckedFile::with_related(
            shown(&f.file),
            f.text,
            diagnostics,
            related,
        ));
    }
    Ok(out)
}

/// Was `file` of the composition not UTF-8 (its text then holds U+FFFD, never to be written)?
fn diagnostics_not_utf8(c: &Composition, file: &Path) -> bool {
    c.diagnostics_in(file)
        .any(|d| d.diagnostic.code == ad_grammar::codes::NOT_UTF8)
}

/// Keeps a snapshot of each fragment as it is now pinned (`.ad/pins/<hex>.pinned` under the
/// project root, content-addressed), so a later AD806 can show which steps changed.
fn write_snapshots(c: &Composition, path: &Path) -> Result<(), String> {
    let root = compose::project_root(&absolute(path));
    let mut written = 0;
    for site in &c.call_sites {
        let Some(target) = compose::snapshot_path(&root, &site.digest) else {
            continue;
        };
        let Some(text) = c.files.get(&site.fragment) else {
            continue;
        };
        if target.exists() {
            continue;
        }
        if let Some(dir) = target.parent() {
            std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        }
        crate::atomic_write(&target, compose::snapshot_text(text).as_bytes())
            .map_err(|e| format!("{}: {e}", target.display()))?;
        written += 1;
    }
    if written > 0 {
        eprintln!(
            "kept {written} pinned fragment snapshot(s) in {}",
            escape_controls(&shown(&root.join(compose::PINS_DIR)))
        );
    }
    Ok(())
}

/// A composition ready to run: its expanded plan's text and each plan line's source.
pub struct Expanded {
    pub composition: Composition,
    pub sources: Vec<Option<ad_runtime::core::records::journal::StepSource>>,
}

impl Expanded {
    /// `file:line (included at …)` for a 1-based plan line.
    pub fn describe(&self, plan_line: usize) -> Option<String> {
        plan_line
            .checked_sub(1)
            .and_then(|l| self.sources.get(l).cloned().flatten())
            .map(|s| s.to_string())
    }
}

/// Composes `path` for `ad run` / `ad test` with the names the run supplies (`-e`, `AD_VAR_*`),
/// under `config` (the `ad.toml` the caller read). Composition errors refuse the run: the report
/// is printed and `Err(2)` returned.
pub fn expand_for_run(
    path: &Path,
    text: &str,
    config: &Config,
    supplied: Vec<String>,
    max_file_size: Option<u64>,
) -> Result<Expanded, i32> {
    let composition = compose_file(path, text, config, supplied, max_file_size);
    expansion(path, composition).map_err(print_composition_refusal)
}

/// Prints what [`expansion`] refused; the exit code of the refusal.
pub fn print_composition_refusal((report, summary): (String, String)) -> i32 {
    eprint!("{report}");
    eprintln!("{summary}");
    2
}

/// A composition of `path` ready to run, or, when it has errors, its refusal: `(the errors
/// rendered, one summary line)` (`ad dap` says it as an output event).
pub fn expansion(path: &Path, composition: Composition) -> Result<Expanded, (String, String)> {
    if composition.has_errors() {
        let mut buf = Vec::new();
        let mut errors = 0;
        for f in by_file(&composition, path) {
            let checked = crate::render::CheckedFile::with_related(
                shown(&f.file),
                f.text,
                f.diagnostics,
                f.related,
            );
            for d in checked
                .diagnostics
                .iter()
                .filter(|d| d.severity == ad_grammar::Severity::Error)
            {
                errors += 1;
                crate::render::human::render(&checked, d, false, &mut buf);
            }
        }
        return Err((
            String::from_utf8_lossy(&buf).into_owned(),
            format!(
                "{}: {errors} composition error(s): nothing was run (`ad check {}`)",
                shown(path),
                shown(path)
            ),
        ));
    }
    let sources = composition
        .origins
        .iter()
        .map(|o| {
            o.as_ref()
                .map(|o| ad_runtime::core::records::journal::StepSource {
                    file: shown(&o.file),
                    line: o.line + 1,
                    includes: o
                        .chain
                        .iter()
                        .map(|s| ad_runtime::core::records::journal::IncludeSite {
                            file: shown(&s.file),
                            line: s.line + 1,
                            call_site_id: s.call_site_id.clone(),
                            digest: s.digest.clone(),
                        })
                        .collect(),
                })
        })
        .collect();
    Ok(Expanded {
        composition,
        sources,
    })
}

/// The text `ad test` runs for a script and the source of each of its plan lines: a
/// composition's expansion (its errors printed, and the composition itself kept, so the run gate
/// reports the case INVALID); any other script as is.
pub fn text_for_suite(
    path: &Path,
    text: String,
    project: &Result<Config, ad_compiler::config::ConfigError>,
    cli_env: &[String],
    max_file_size: Option<u64>,
) -> (
    String,
    Vec<Option<ad_runtime::core::records::journal::StepSource>>,
) {
    if check_file::kind_of(&text) != ScriptKind::Composition {
        return (text, Vec::new());
    }
    let config = match project {
        Ok(config) => config,
        Err(e) => {
            // Said here; the run gate reports the script INVALID for it.
            crate::usage_error(&e.0);
            return (text, Vec::new());
        }
    };
    let supplied = cli_env
        .iter()
        .filter_map(|e| e.split_once('=').map(|(k, _)| k.to_string()))
        .chain(std::env::vars().filter_map(|(k, _)| k.strip_prefix("AD_VAR_").map(str::to_string)))
        .collect();
    match expand_for_run(path, &text, config, supplied, max_file_size) {
        Ok(e) => (e.composition.flattened, e.sources),
        Err(_) => (text, Vec::new()),
    }
}

/// The compositions of the project `fragment` is in (its [`compose::project_root`]) that
/// include it, directly or through other fragments: shown names, sorted. Read when a fragment
/// is run on its own, to say what runs it.
pub fn compositions_including(fragment: &Path) -> Vec<String> {
    let target = absolute(fragment);
    let root = compose::project_root(&target);
    let scripts = crate::files::collect(&[root]).unwrap_or_default();
    let mut out = Vec::new();
    for path in scripts {
        let limit = ad_grammar::input::AGENT_DEVICE_MAX_BYTES;
        let Ok(source) = crate::files::read_with_limit(&path, limit) else {
            continue;
        };
        if check_file::kind_of(&source.text) != ScriptKind::Composition {
            continue;
        }
        let config = Config::discover(&path).unwrap_or_default();
        let c = compose_file(&path, &source.text, &config, Vec::new(), None);
        if c.files.contains_key(&target) {
            out.push(shown(&absolute(&path)));
        }
    }
    out.sort();
    out
}
