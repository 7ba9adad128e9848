//! The last runs and the heal record of an open script, read from the artifacts folder `ad run`
//! and `ad heal` write (docs/editors.md): a run of this exact plan that diverged is shown on its
//! failing line, and a heal record of this exact text is offered as a quick fix.
//!
//! The records are `ad_runtime::core::records`' own types (`RunSummary`, `HealRecord`): one contract,
//! read the way `ad` writes it. They are read when a document is opened or saved, or a record
//! changes on disk; which run applies is decided per document version, by its plan digest.

use std::path::{Path, PathBuf};

use ad_runtime::core::records::{HealRecord, RunSummary};
use lsp_types::{DiagnosticSeverity, NumberOrString, TextEdit};

use crate::document::Document;

/// The code of the diagnostic that shows the last run's divergence (declared here once: it is a
/// run's finding, not the analysis', so it has no entry in the check code table).
pub const LAST_RUN_DIVERGED: &str = "last-run-diverged";

/// At most this many run folders are read per artifacts folder, newest first.
const MAX_RUNS_READ: usize = 500;

/// What the artifacts folders hold for one script.
#[derive(Debug, Default)]
pub struct Found {
    /// The newest run of the script for each plan digest it ran with, newest first.
    pub runs: Vec<RunSummary>,
    /// Heal records of the script, newest first (the one whose sha256 matches the text applies).
    pub heals: Vec<HealRecord>,
}

/// Where to look for the records of the script at `path`: the folder the client named
/// (`initializationOptions.artifactsDir`), else `[run] artifacts-dir` of the `ad.toml` that
/// applies, else `ad-artifacts` beside that `ad.toml`, in the workspace root and beside the
/// script (where `ad run` puts it when run from there).
pub fn artifacts_dirs(
    path: &Path,
    configured: Option<&Path>,
    config: &ad_compiler::config::Config,
    root: Option<&Path>,
) -> Vec<PathBuf> {
    if let Some(dir) = configured.or(config.run_artifacts_dir.as_deref()) {
        return vec![dir.to_path_buf()];
    }
    let config_file = config.source.as_deref();
    let mut dirs: Vec<PathBuf> = Vec::new();
    let candidates = [config_file.and_then(Path::parent), root, path.parent()];
    for base in candidates.into_iter().flatten() {
        let dir = base.join(ad_compiler::config::DEFAULT_ARTIFACTS_DIR);
        if !dirs.contains(&dir) {
            dirs.push(dir);
        }
    }
    dirs
}

/// Does a record's `script` (the path `ad` was given, relative to where it ran) name `path`? It
/// is resolved against the artifacts folder's parent (where `ad` ran, with the default
/// `--artifacts-dir`); else its components must end `path`'s (`flows/login.ad`).
fn names(script: &str, artifacts: &Path, path: &Path) -> bool {
    let canon = |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
    let written = Path::new(script);
    let resolved = if written.is_absolute() {
        written.to_path_buf()
    } else {
        artifacts.parent().unwrap_or(Path::new(".")).join(written)
    };
    if canon(&resolved) == canon(path) {
        return true;
    }
    let normal = |p: &Path| -> Vec<std::ffi::OsString> {
        p.components()
            .filter_map(|c| match c {
                std::path::Component::Normal(n) => Some(n.to_os_string()),
                _ => None,
            })
            .collect()
    };
    let (w, p) = (normal(written), normal(path));
    !w.is_empty() && p.ends_with(&w)
}

/// Reads the records of the script at `path` from `dirs`.
pub fn read(path: &Path, dirs: &[PathBuf]) -> Found {
    let mut runs: Vec<(String, RunSummary)> = Vec::new();
    let mut heals: Vec<(std::time::SystemTime, HealRecord)> = Vec::new();
    for dir in dirs {
        let Ok(entries) = std::fs::read_dir(dir) else {
            continue;
        };
        // Run ids start with the UTC time: their names sort by time.
        let mut ids: Vec<String> = entries
            .filter_map(|e| e.ok())
            .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
            .filter_map(|e| e.file_name().into_string().ok())
            .filter(|n| n != ad_runtime::core::records::heal::HEAL_DIR && !n.starts_with('.'))
            .collect();
        ids.sort_unstable_by(|a, b| b.cmp(a));
        for id in ids.into_iter().take(MAX_RUNS_READ) {
            let Ok(text) = std::fs::read_to_string(dir.join(&id).join("run.json")) else {
                continue;
            };
            let Ok(summary) = serde_json::from_str::<RunSummary>(&text) else {
                continue;
            };
            if names(&summary.script, dir, path) {
                runs.push((id, summary));
            }
        }
        let mut pending = vec![dir.join(ad_runtime::core::records::heal::HEAL_DIR)];
        while let Some(d) = pending.pop() {
            let Ok(entries) = std::fs::read_dir(&d) else {
                continue;
            };
            for e in entries.filter_map(|e| e.ok()) {
                let p = e.path();
                if e.file_type().is_ok_and(|t| t.is_dir()) {
                    pending.push(p);
                    continue;
                }
                if p.extension().is_none_or(|x| x != "json") {
                    continue;
                }
                let Ok(text) = std::fs::read_to_string(&p) else {
                    continue;
                };
                let Ok(record) = serde_json::from_str::<HealRecord>(&text) else {
                    continue;
                };
                if names(&record.script, dir, path) {
                    let modified = e
                        .metadata()
                        .and_then(|m| m.modified())
                        .unwrap_or(std::time::UNIX_EPOCH);
                    heals.push((modified, record));
                }
            }
        }
    }
    runs.sort_by(|a, b| b.0.cmp(&a.0));
    let mut newest: Vec<RunSummary> = Vec::new();
    for (_, run) in runs {
        if !newest.iter().any(|r| r.plan_digest == run.plan_digest) {
            newest.push(run);
        }
    }
    heals.sort_by_key(|h| std::cmp::Reverse(h.0));
    Found {
        runs: newest,
        heals: heals.into_iter().map(|(_, r)| r).collect(),
    }
}

/// The plan digest `ad run` gives this text (no `--platform`/`--target`); `None` for a
/// composition (its run's plan is the expansion) or a text that does not analyze.
fn digest(doc: &Document) -> Option<String> {
    if doc.composition().is_some() {
        return None;
    }
    let a = doc.analysis().ok()?;
    Some(ad_compiler::digest::plan_digest(
        a.steps(),
        a.metadata(),
        &ad_compiler::digest::DigestOptions::default(),
    ))
}

/// The last run of this exact plan, when it diverged: a diagnostic on its failing line (the
/// cause, the repair hint and the resume command). A run of another plan says nothing here.
pub fn diagnostics(doc: &Document) -> Vec<lsp_types::Diagnostic> {
    if doc.runs.runs.is_empty() {
        return Vec::new();
    }
    let Some(digest) = digest(doc) else {
        return Vec::new();
    };
    let Some(run) = doc.runs.runs.iter().find(|r| r.plan_digest == digest) else {
        return Vec::new();
    };
    let Some(error) = run.error.as_ref().filter(|_| !run.ok) else {
        return Vec::new();
    };
    let (Some(d), Some(line)) = (error.divergence.as_ref(), error.line) else {
        return Vec::new();
    };
    let Some(range) = line_range(doc, line) else {
        return Vec::new();
    };
    let hint = serde_json::to_value(d.repair_hint)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default();
    let mut message = format!(
        "the last run ({}) diverged at step {} ({}): {}: {}",
        run.run_id,
        d.step.index,
        d.kind.as_str(),
        d.cause.code,
        d.cause.message
    );
    message.push_str(&format!("\nrepair hint: {hint}"));
    if let Some(resume) = &error.resume_command {
        message.push_str(&format!("\nresume: {resume}"));
    }
    vec![lsp_types::Diagnostic {
        range,
        severity: Some(DiagnosticSeverity::WARNING),
        code: Some(NumberOrString::String(LAST_RUN_DIVERGED.into())),
        source: Some(crate::diagnostics::SOURCE.into()),
        message,
        ..Default::default()
    }]
}

/// The heal record of exactly this text whose proposals were proven to the end of the script
/// (not one a recording could prove only in part), if any.
pub fn heal_for(doc: &Document) -> Option<&HealRecord> {
    if doc.runs.heals.is_empty() {
        return None;
    }
    let sha = ad_runtime::core::records::heal::text_sha256(&doc.text);
    doc.runs
        .heals
        .iter()
        .find(|r| r.script_sha256 == sha && r.proven_to_the_end() && !r.proposals.is_empty())
}

/// The record's line edits as text edits of the document.
pub fn text_edits(doc: &Document, record: &HealRecord) -> Option<Vec<TextEdit>> {
    let starts = line_starts(&doc.text);
    let offset = |line: usize| starts.get(line.checked_sub(1)?).copied();
    record
        .edits()
        .into_iter()
        .map(|e| {
            let span = ad_grammar::Span::new(offset(e.start)?, offset(e.end)?);
            Some(TextEdit::new(
                doc.lines.range(&doc.text, span),
                e.text.clone(),
            ))
        })
        .collect()
}

/// The lines (1-based) a record's proposal touches, with its title part.
pub fn touched_lines(record: &HealRecord) -> Vec<(usize, usize)> {
    record
        .edits()
        .into_iter()
        .map(|e| (e.start, e.end.max(e.start + 1)))
        .chain(record.proposals.iter().map(|p| (p.line, p.line + 1)))
        .collect()
}

/// Byte offsets of each line's start (agent-device's lines: split on `\n`), and one past the end.
fn line_starts(text: &str) -> Vec<usize> {
    let mut starts = vec![0];
    starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
    if starts.last() != Some(&text.len()) {
        starts.push(text.len());
    }
    starts
}

/// The range of 1-based `line`'s text (without its line end).
fn line_range(doc: &Document, line: usize) -> Option<lsp_types::Range> {
    let starts = line_starts(&doc.text);
    let start = *starts.get(line.checked_sub(1)?)?;
    let end = starts.get(line).copied().unwrap_or(doc.text.len());
    if start >= doc.text.len() && line > 1 {
        return None;
    }
    let content = doc.text[start..end].trim_end_matches(['\n', '\r']);
    Some(doc.lines.range(
        &doc.text,
        ad_grammar::Span::new(start, start + content.len()),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use ad_compiler::config::Config;

    #[test]
    fn a_records_script_names_the_file_it_was_run_from() {
        let art = Path::new("/w/ad-artifacts");
        assert!(names("flows/login.ad", art, Path::new("/w/flows/login.ad")));
        assert!(names(
            "login.ad",
            Path::new("/w/flows/ad-artifacts"),
            Path::new("/w/flows/login.ad")
        ));
        assert!(names(
            "flows/login.ad",
            Path::new("/tmp/art"),
            Path::new("/w/flows/login.ad")
        ));
        assert!(!names("other.ad", art, Path::new("/w/flows/login.ad")));
        assert!(!names("flows/login.ad", art, Path::new("/w/login.ad")));
    }

    #[test]
    fn the_client_or_ad_toml_named_folder_is_the_only_one_read() {
        let p = Path::new("/w/flows/login.ad");
        let toml = |text: &str| Config::parse(text, Some(Path::new("/w/ad.toml"))).unwrap();
        let named = toml("[run]\nartifacts-dir = \"build/art\"\n");
        let w = Some(Path::new("/w"));
        assert_eq!(
            artifacts_dirs(p, Some(Path::new("/x")), &named, w),
            vec![PathBuf::from("/x")]
        );
        assert_eq!(
            artifacts_dirs(p, None, &named, w),
            vec![PathBuf::from("/w/build/art")]
        );
        assert_eq!(
            artifacts_dirs(p, None, &toml(""), w),
            vec![
                PathBuf::from("/w/ad-artifacts"),
                PathBuf::from("/w/flows/ad-artifacts")
            ]
        );
        assert_eq!(
            artifacts_dirs(p, None, &Config::default(), None),
            vec![PathBuf::from("/w/flows/ad-artifacts")]
        );
    }
}
