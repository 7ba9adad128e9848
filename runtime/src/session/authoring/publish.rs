//! Publication: the recorded actions become a `.ad` script (the writer's spelling, the context
//! header, canonical annotations), checked by the same rules as `ad check` before any file work,
//! then written through a same-directory temp file and an atomic publish.

pub use crate::core::records::session::LineFinding;
use std::io::Write;
use std::path::{Path, PathBuf};

use crate::core::records::error_codes;
use ad_compiler::config::{Config, ProfileChoice, ProfileOrigin};
use ad_grammar::annotation::Evidence;
use ad_grammar::printer::print_annotation;
use ad_grammar::{codes, AnnotationKind, Severity};

/// One recorded action: its line in the writer's spelling and the evidence captured when it ran.
#[derive(Debug, Clone)]
pub struct Recorded {
    pub line: String,
    /// `target-v1` (one element) or `targets-v1` (a drag's endpoints).
    pub evidence: Option<Evidence>,
    pub is_open: bool,
    /// Why the recorder could not make the step's selector single out its element as replay
    /// resolves it: written as a comment above the step, never silently dropped.
    pub note: Option<String>,
}

/// A refused request: a code, what is wrong and how to recover.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Refusal {
    pub code: String,
    pub message: String,
    /// A script command `ad check` would report: the line as the readers read it, and each
    /// error on it (what the client renders as `ad check` does; exit 2).
    pub line: Option<String>,
    pub findings: Vec<LineFinding>,
}

impl Refusal {
    pub fn new(code: &str, message: impl Into<String>) -> Refusal {
        Refusal {
            code: code.into(),
            message: message.into(),
            ..Refusal::default()
        }
    }
}

/// The script text: the context header, then each action with its annotation.
pub fn script_text(header: &str, actions: &[Recorded], terminal_close: bool) -> String {
    let mut out = String::new();
    out.push_str(header);
    out.push('\n');
    for a in actions {
        if let Some(n) = &a.note {
            // Before the annotation, which must stay immediately above its action line.
            out.push_str("# ad: ");
            out.push_str(&n.replace(['\n', '\r'], " "));
            out.push('\n');
        }
        if let Some(e) = &a.evidence {
            let kind = match e {
                Evidence::Single(_) => AnnotationKind::Target,
                Evidence::Dual(_) => AnnotationKind::Targets,
            };
            out.push_str(&print_annotation(kind, e));
            out.push('\n');
        }
        out.push_str(&a.line);
        out.push('\n');
    }
    if terminal_close {
        out.push_str("close\n");
    }
    out
}

/// Active-session publication's artifact checks (before any file work): exactly one open,
/// first; then every error the handoff profile of `ad check` reports on the text (destination
/// guard, session-local refs, missing evidence, …), with the same codes and recoveries.
pub fn check_handoff(actions: &[Recorded], text: &str) -> Result<(), Refusal> {
    let opens = actions.iter().filter(|a| a.is_open).count();
    if opens != 1 || !actions.first().is_some_and(|a| a.is_open) {
        return Err(Refusal::new(
            error_codes::NOT_SINGLE_OPEN,
            format!("the recording must hold exactly one open, as its first action (it has {opens}); author the script in a fresh session that starts with `ad session open <app> --save-script`"),
        ));
    }
    check_text(text, ProfileChoice::Handoff)
}

/// The errors `ad check` (with `profile`) reports on `text`, as one refusal naming each.
pub fn check_text(text: &str, profile: ProfileChoice) -> Result<(), Refusal> {
    let config = Config {
        profile,
        profile_origin: ProfileOrigin::CommandLine,
        ..Config::default()
    };
    let analysis = ad_compiler::analyze_with(text, &config);
    let errors: Vec<_> = analysis
        .diagnostics
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .collect();
    let Some(first) = errors.first() else {
        return Ok(());
    };
    let index = ad_grammar::LineIndex::new(text);
    // A help two findings share (AD703 and AD704 name the same guard) is said once.
    let mut said: Vec<String> = Vec::new();
    let mut describe = |d: &ad_grammar::Diagnostic| {
        let line = index.line_of(d.primary_span().start()) + 1;
        let help = match d.help.as_deref().map(|h| h.lines().next().unwrap_or("")) {
            Some(h) if !said.iter().any(|s| s == h) => {
                said.push(h.to_string());
                format!(" ({h})")
            }
            _ => String::new(),
        };
        format!("{}: line {line}: {}{help}", d.code, d.message)
    };
    Err(Refusal {
        code: first.code.to_string(),
        line: None,
        findings: Vec::new(),
        message: format!(
            // ADR 0016: a refused publication leaves the recording ARMED; its first way out is
            // to fix the recording and retry (the caller adds the other: abort, then close).
            "the recording cannot be published: {}; nothing was written and the recording is \
             still armed: fix it by recording what a finding asks for (such as the destination \
             guard) and run the request again",
            errors
                .iter()
                .map(|d| describe(d))
                .collect::<Vec<_>>()
                .join("; ")
        ),
    })
}

/// The errors close-time publication (`ad check`, flow profile) would report on `line` were it
/// recorded after `actions`: a step that fails here can never be published (nor, for a refused
/// value such as AD118 or a missing argument such as AD119, dispatched by agent-device), so a
/// session refuses it before dispatch rather than record a journey that no `close` can write.
/// The readers' own rejections (the grammar, agent-device's reader) are among them, with their
/// codes. Only the step's own line counts: what later steps can still fix (a missing guard) is
/// publication's business, and so are its `@ref`s: a live session's refs come from its own
/// snapshots (the recorder writes a target's as a selector), so the ref-frame findings of a
/// script that has none are not the step's. The refusal carries each finding placed in `line`.
pub fn check_step(header: &str, actions: &[Recorded], line: &str) -> Result<(), Refusal> {
    let before = script_text(header, actions, false);
    let text = format!("{before}{line}\nclose\n");
    let span = before.len()..before.len() + line.len();
    let config = Config {
        profile: ProfileChoice::Flow,
        profile_origin: ProfileOrigin::CommandLine,
        ..Config::default()
    };
    let analysis = ad_compiler::analyze_with(&text, &config);
    let errors: Vec<_> = analysis
        .diagnostics
        .iter()
        .filter(|d| d.severity == Severity::Error && span.contains(&d.primary_span().start()))
        .filter(|d| ![codes::REF_WITHOUT_SNAPSHOT, codes::REF_FRAME_EXPIRED].contains(&d.code))
        .collect();
    let Some(first) = errors.first() else {
        return Ok(());
    };
    let describe = |d: &&ad_grammar::Diagnostic| {
        let help = d
            .help
            .as_deref()
            .map(|h| format!(" ({})", h.lines().next().unwrap_or("")))
            .unwrap_or_default();
        format!("{}: {}{help}", d.code, d.message)
    };
    let findings = errors
        .iter()
        .map(|d| {
            let at = d.primary_span();
            let primary = d.labels.iter().find(|l| l.primary);
            LineFinding {
                code: d.code.to_string(),
                message: d.message.to_string(),
                start: at.start() - span.start,
                end: at.end().min(span.end).max(at.start()) - span.start,
                label: primary
                    .map(|l| l.message.to_string())
                    .filter(|m| !m.is_empty()),
                help: d.help.as_deref().map(str::to_string),
            }
        })
        .collect();
    Err(Refusal {
        code: first.code.to_string(),
        message: format!(
            "the step was not sent (nothing was run or recorded): {}; `ad check` reports the same on a script holding it",
            errors.iter().map(describe).collect::<Vec<_>>().join("; ")
        ),
        line: Some(line.to_string()),
        findings,
    })
}

/// Refuses an existing target unless `force` (its bytes stay untouched).
pub fn check_target(path: &Path, force: bool) -> Result<(), Refusal> {
    if !force && std::fs::symlink_metadata(path).is_ok() {
        return Err(Refusal::new(
            error_codes::TARGET_EXISTS,
            format!(
                "A file already exists at {}; pass --force to replace it, or give another path",
                path.display()
            ),
        ));
    }
    Ok(())
}

/// What a failed write of [`publish_atomically`] tells an authoring session to do; a caller
/// with another recovery (a repair's commit) replaces it.
pub const PUBLISH_RECOVERY: &str = "; fix the folder or its permissions (or give another path) and run the request (save-script or close) again: the recording is still armed";

/// Writes `text` to `path`: a temp file in the same folder (0600 until published), then an
/// exclusive link (refusing an existing target) or, with `force`, an atomic rename over it. The
/// temp file is removed whatever happens.
pub fn publish_atomically(path: &Path, text: &str, force: bool) -> Result<(), Refusal> {
    check_target(path, force)?;
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tmp: PathBuf = dir.join(format!(
        ".{name}.ad-publish-{}-{}",
        std::process::id(),
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or(0)
    ));
    let io = |what: &str, e: std::io::Error| {
        Refusal::new(
            error_codes::PUBLISH_FAILED,
            format!("could not {what} {}: {e}{PUBLISH_RECOVERY}", path.display()),
        )
    };
    let result = (|| {
        let mut f = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&tmp)
            .map_err(|e| io("create a temp file beside", e))?;
        f.write_all(text.as_bytes())
            .and_then(|_| f.sync_all())
            .map_err(|e| io("write a temp file beside", e))?;
        if force {
            std::fs::rename(&tmp, path).map_err(|e| io("replace", e))
        } else {
            match std::fs::hard_link(&tmp, path) {
                Ok(()) => Ok(()),
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                    Err(check_target(path, false)
                        .err()
                        .unwrap_or_else(|| io("publish", e)))
                }
                Err(e) => Err(io("publish", e)),
            }
        }
    })();
    let _ = std::fs::remove_file(&tmp);
    result
}
