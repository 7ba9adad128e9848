//! Checking one file: the single path from a file's bytes to what `ad check` reports on it.
//!
//! ```text
//! bytes ──decode──▶ text + read-time findings ──kind_of──▶ plain: analyze_owned
//!                                                        └▶ composition / fragment: compose
//! ```
//!
//! `ad check`, `ad run`, `ad test`, `ad build`, the language server and the fixture tests come
//! through here, so they cannot disagree on what a file is (a composition or not), which
//! `ad.toml` applies, or what its findings are. The `ad.toml` is looked up by the caller, once
//! ([`discover_config`]), and handed in: everything downstream (the run gate, the backend
//! factory) takes the [`Config`] it was given and never looks it up again.

use std::path::Path;

use ad_grammar::Diagnostic;

pub use crate::compose::ScriptKind;
use crate::compose::{self, Composition};
use crate::config::{Config, ConfigError};
use crate::Analysis;

/// The `ad.toml` that applies to `path`: the nearest one above it (`-`, standard input: above
/// the current folder), with its `[profiles]` for the script applied.
pub fn discover_config(path: &Path) -> Result<Config, ConfigError> {
    if path.as_os_str() == "-" {
        return Config::discover(Path::new("."));
    }
    Config::discover(path)
}

/// What `text` is, by its first executable line: a `composition-v1` parent, a `fragment-v1`
/// file, or a plain script.
pub fn kind_of(text: &str) -> ScriptKind {
    compose::kind_of(text)
}

/// A composition or a fragment: its findings are in several files, and it runs as its expansion.
pub fn is_composed(text: &str) -> bool {
    kind_of(text) != ScriptKind::Plain
}

/// A file's bytes as agent-device reads them, with what the reading found.
#[derive(Debug)]
pub struct Decoded {
    /// Invalid UTF-8 replaced as Node's `readFileSync(…, "utf8")` replaces it.
    pub text: String,
    /// Set when the file is not UTF-8: `text` is then not the file's content, so it must never
    /// be written back.
    pub not_utf8: Option<NotUtf8>,
    /// AD006 when the file is over agent-device's own 2 MiB (a raised `--max-file-size`).
    pub over_agent_device_limit: Option<Diagnostic>,
}

/// A file that is not UTF-8: the AD005 diagnostic and the bytes as read.
#[derive(Debug)]
pub struct NotUtf8 {
    pub diagnostic: Diagnostic,
    pub bytes: Vec<u8>,
}

/// Decodes the bytes of the file shown as `name`.
pub fn decode(name: &str, bytes: Vec<u8>) -> Decoded {
    // Only a file that is not UTF-8 needs its bytes kept (to echo them untouched); a UTF-8 file
    // is validated once and becomes the text without a copy.
    let (text, not_utf8) = match String::from_utf8(bytes) {
        Ok(text) => (text, None),
        Err(e) => {
            let bytes = e.into_bytes();
            let decoded = ad_grammar::input::decode(bytes.clone());
            let not_utf8 = decoded
                .not_utf8
                .map(|diagnostic| NotUtf8 { diagnostic, bytes });
            (decoded.text, not_utf8)
        }
    };
    let over_agent_device_limit =
        ad_grammar::input::over_agent_device_limit(name, text.len() as u64);
    Decoded {
        text,
        not_utf8,
        over_agent_device_limit,
    }
}

/// How the file is checked besides its configuration.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// `--max-file-size`: the cap on the script and on every fragment it includes (`None`: the
    /// configuration's `[input] max-file-size`, else agent-device's 2 MiB).
    pub max_file_size: Option<u64>,
    /// Variable names the run supplies (`-e`, `AD_VAR_*`); `ad check` passes none.
    pub supplied: Vec<String>,
    /// `ad check`'s notes (AD811) on the composition lines agent-device refuses at dispatch.
    pub dispatch_notes: bool,
}

impl Options {
    /// The most bytes read from the file under `config`.
    pub fn read_limit(&self, config: &Config) -> u64 {
        self.max_file_size
            .or(config.max_file_size)
            .unwrap_or(ad_grammar::input::AGENT_DEVICE_MAX_BYTES)
    }
}

/// What the file was checked as.
#[derive(Debug)]
pub enum Checked {
    /// Over the cap: not read, nothing in it checked (its one finding is AD006).
    NotRead,
    /// A plain script (or a composition read from standard input, which has no folder to
    /// resolve includes in): its analysis.
    Plain(Analysis),
    /// A composition or a fragment with a path: every file it reaches, checked and expanded.
    /// Its findings are per file, as the composition reports them.
    Composed(Composition),
}

/// One file checked.
#[derive(Debug)]
pub struct FileCheck {
    /// The configuration it was checked with.
    pub config: Config,
    /// What the file is by its first executable line.
    pub kind: ScriptKind,
    pub checked: Checked,
    /// What the reading found (over a cap, not UTF-8, over agent-device's 2 MiB), the
    /// configuration's levels applied. A binary file's AD002 says it is not text: its AD005
    /// is left out.
    pub read_diagnostics: Vec<Diagnostic>,
    /// The bytes as read when the file is not UTF-8 (never write its text back).
    pub not_utf8_bytes: Option<Vec<u8>>,
}

impl FileCheck {
    /// A file refused unread: over the cap (`refusal`, AD006), under `config`.
    pub fn not_read(refusal: Diagnostic, config: Config) -> FileCheck {
        let mut read_diagnostics = vec![refusal];
        config.apply(&mut read_diagnostics);
        FileCheck {
            config,
            kind: ScriptKind::Plain,
            checked: Checked::NotRead,
            read_diagnostics,
            not_utf8_bytes: None,
        }
    }

    /// The analysis of a plain script.
    pub fn analysis(&self) -> Option<&Analysis> {
        match &self.checked {
            Checked::Plain(a) => Some(a),
            _ => None,
        }
    }

    /// The analysis of a plain script, the check dropped.
    pub fn into_analysis(self) -> Option<Analysis> {
        match self.checked {
            Checked::Plain(a) => Some(a),
            _ => None,
        }
    }

    /// The composition of a composition or fragment.
    pub fn composition(&self) -> Option<&Composition> {
        match &self.checked {
            Checked::Composed(c) => Some(c),
            _ => None,
        }
    }

    /// Every finding on a plain or unread file, as `ad check` reports them: the analysis's
    /// (levels applied, sorted by position) with the read-time ones merged in by position. Taken
    /// out of the check, so the analysis's own list is left empty; a composition's findings
    /// are in its files ([`Checked::Composed`]) and are not among them.
    pub fn take_diagnostics(&mut self) -> Vec<Diagnostic> {
        let read = std::mem::take(&mut self.read_diagnostics);
        let mut diagnostics = match &mut self.checked {
            Checked::Plain(a) => std::mem::take(&mut a.diagnostics),
            Checked::NotRead | Checked::Composed(_) => Vec::new(),
        };
        if !read.is_empty() {
            diagnostics.extend(read);
            // Stable: the analysis's own order is kept among findings at one place.
            diagnostics.sort_by_key(|d| (d.primary_span().start(), d.primary_span().end()));
        }
        diagnostics
    }
}

/// Checks the file at `path` (`None`: standard input) whose bytes are `bytes`, shown as `name`,
/// under `config`: bytes over the cap are refused unread (AD006), as the capped reader refuses
/// them.
pub fn check_bytes(
    path: Option<&Path>,
    name: &str,
    bytes: Vec<u8>,
    config: Config,
    options: &Options,
) -> FileCheck {
    let limit = options.read_limit(&config);
    if bytes.len() as u64 > limit {
        let refusal = ad_grammar::input::refused_too_large(name, Some(bytes.len() as u64), limit);
        return FileCheck::not_read(refusal, config);
    }
    check_decoded(path, decode(name, bytes), config, options)
}

/// Checks a text that was never bytes on a disk (an editor's buffer): no read-time findings.
pub fn check_text(
    path: Option<&Path>,
    text: String,
    config: Config,
    options: &Options,
) -> FileCheck {
    let decoded = Decoded {
        text,
        not_utf8: None,
        over_agent_device_limit: None,
    };
    check_decoded(path, decoded, config, options)
}

/// Checks a file already read and decoded ([`decode`]).
pub fn check_decoded(
    path: Option<&Path>,
    decoded: Decoded,
    config: Config,
    options: &Options,
) -> FileCheck {
    let Decoded {
        text,
        not_utf8,
        over_agent_device_limit,
    } = decoded;
    let kind = kind_of(&text);
    let (not_utf8, not_utf8_bytes) = match not_utf8 {
        Some(NotUtf8 { diagnostic, bytes }) => (Some(diagnostic), Some(bytes)),
        None => (None, None),
    };
    let mut read_diagnostics: Vec<Diagnostic> = over_agent_device_limit.into_iter().collect();
    let checked = match path.filter(|_| kind != ScriptKind::Plain) {
        Some(path) => Checked::Composed(compose_file(path, &text, &config, options)),
        None => {
            // The analysis keeps the text without a copy.
            let analysis = crate::analyze_owned(text, &config);
            // A binary file gets AD002 alone; its bytes not being UTF-8 goes without saying.
            read_diagnostics.extend(not_utf8.filter(|_| !analysis.parse().binary));
            Checked::Plain(analysis)
        }
    };
    config.apply(&mut read_diagnostics);
    FileCheck {
        config,
        kind,
        checked,
        read_diagnostics,
        not_utf8_bytes,
    }
}

/// Composes the composition or fragment at `path` (whose text is `text`) from the files on
/// disk, each fragment read through the script's cap.
pub fn compose_file(path: &Path, text: &str, config: &Config, options: &Options) -> Composition {
    let entry = absolute(path);
    let compose_options = compose::Options {
        root: compose::project_root(&entry),
        supplied: options.supplied.clone(),
        config: config.clone(),
        max_file_size: options.max_file_size,
        dispatch_notes: options.dispatch_notes,
        ..compose::Options::default()
    };
    compose::compose(&entry, text, &compose::FsFiles, &compose_options)
}

/// `path` made absolute against the current folder, `.` and `..` resolved without following
/// links (how a composition names its files).
pub use crate::compose::absolute;
