//! One open document: its text, line map, the `ad.toml` that applies to it and its analysis
//! (computed once per version, on first use, shared by every handler through a snapshot).

use std::path::PathBuf;
use std::sync::{Arc, OnceLock};

use ad_compiler::check_file;
use ad_compiler::config::Config;
use ad_compiler::Analysis;
use ad_grammar::{Line, SourceFile};
use lsp_types::{TextDocumentContentChangeEvent, Uri};

use crate::lines::{Encoding, LineMap};

/// Documents larger than this are not analysed at all (agent-device itself caps a script at
/// 2 MiB; eight times that keeps every keystroke responsive and still covers any real file).
pub const MAX_ANALYZED_BYTES: usize = 16 * 1024 * 1024;

/// Why a document has no analysis.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NoAnalysis {
    TooLarge,
    /// The analysis panicked (a bug in `ad`); the server keeps running.
    Crashed,
    /// A Maestro flow or another tool's YAML: not an `.ad` script.
    NotAScript,
}

/// How the server reads a document (`maestro::route`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Kind {
    #[default]
    Script,
    /// A `.yaml`/`.yml` file routed as a Maestro flow (client setting or `ad.toml`).
    Maestro,
    /// YAML that is not routed: another tool's, the server says nothing about it.
    Ignored,
}

#[derive(Debug)]
pub struct Document {
    pub uri: Uri,
    pub version: i32,
    pub text: String,
    pub lines: LineMap,
    pub config: Arc<Config>,
    /// The file on disk, for `file:` URIs.
    pub path: Option<PathBuf>,
    /// The other open buffers, by path: a composition reads its fragments from them first.
    pub buffers: Arc<std::collections::BTreeMap<PathBuf, String>>,
    /// The script's last runs and heal records in the artifacts folder (read on open and save).
    pub runs: Arc<crate::runs::Found>,
    pub kind: Kind,
    analysis: OnceLock<Result<Arc<Analysis>, NoAnalysis>>,
    maestro: OnceLock<Option<Arc<ad_maestro::Checked>>>,
    composition: OnceLock<Option<Arc<ad_compiler::compose::Composition>>>,
}

impl Document {
    pub fn new(
        uri: Uri,
        version: i32,
        text: String,
        encoding: Encoding,
        config: Arc<Config>,
        path: Option<PathBuf>,
    ) -> Document {
        Document {
            lines: LineMap::new(&text, encoding),
            uri,
            version,
            text,
            config,
            path,
            buffers: Arc::default(),
            runs: Arc::default(),
            kind: Kind::Script,
            analysis: OnceLock::new(),
            maestro: OnceLock::new(),
            composition: OnceLock::new(),
        }
    }

    /// A new version with `changes` applied in order (incremental or full).
    pub fn changed(&self, version: i32, changes: Vec<TextDocumentContentChangeEvent>) -> Document {
        let encoding = self.lines.encoding();
        let mut text = self.text.clone();
        let mut lines = self.lines.clone();
        let count = changes.len();
        for (i, change) in changes.into_iter().enumerate() {
            match change.range {
                None => text = change.text,
                Some(range) => {
                    let span = lines.span(&text, range);
                    text.replace_range(span.range(), &change.text);
                }
            }
            // The map of the final text is built once, below.
            if i + 1 < count {
                lines = LineMap::new(&text, encoding);
            }
        }
        let mut d = Document::new(
            self.uri.clone(),
            version,
            text,
            encoding,
            self.config.clone(),
            self.path.clone(),
        );
        d.buffers = self.buffers.clone();
        d.runs = self.runs.clone();
        d.kind = self.kind;
        d
    }

    /// The same text checked against another configuration.
    pub fn with_config(&self, config: Arc<Config>) -> Document {
        Document {
            uri: self.uri.clone(),
            version: self.version,
            text: self.text.clone(),
            lines: self.lines.clone(),
            config,
            path: self.path.clone(),
            buffers: self.buffers.clone(),
            runs: self.runs.clone(),
            kind: self.kind,
            analysis: OnceLock::new(),
            maestro: OnceLock::new(),
            composition: OnceLock::new(),
        }
    }

    /// The same text re-checked against the current open buffers (a fragment changed).
    pub fn with_buffers(
        &self,
        buffers: Arc<std::collections::BTreeMap<PathBuf, String>>,
    ) -> Document {
        let mut d = self.with_config(self.config.clone());
        d.buffers = buffers;
        d
    }

    /// The same version with the records read from the artifacts folder again (its analysis is
    /// kept: the text did not change).
    pub fn with_runs(&self, runs: Arc<crate::runs::Found>) -> Document {
        Document {
            uri: self.uri.clone(),
            version: self.version,
            text: self.text.clone(),
            lines: self.lines.clone(),
            config: self.config.clone(),
            path: self.path.clone(),
            buffers: self.buffers.clone(),
            runs,
            kind: self.kind,
            analysis: self.analysis.clone(),
            maestro: self.maestro.clone(),
            composition: self.composition.clone(),
        }
    }

    /// The composition this document is (a `composition-v1` parent or a `fragment-v1` file,
    /// with a path), checked with the files it includes; `None` for plain scripts.
    pub fn composition(&self) -> Option<&ad_compiler::compose::Composition> {
        if self.kind != Kind::Script {
            return None;
        }
        self.composition
            .get_or_init(|| {
                std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    crate::compose::compose_document(self)
                }))
                .ok()
                .flatten()
                .map(Arc::new)
            })
            .as_deref()
    }

    /// `ad check`'s analysis of this text (computed on first use).
    pub fn analysis(&self) -> Result<&Analysis, NoAnalysis> {
        self.analysis
            .get_or_init(|| {
                if self.kind != Kind::Script {
                    return Err(NoAnalysis::NotAScript);
                }
                if self.text.len() > MAX_ANALYZED_BYTES {
                    return Err(NoAnalysis::TooLarge);
                }
                std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    // `ad check`'s entry, on the buffer as one script: a composition's
                    // cross-file findings are `composition`'s (its includes read from the
                    // open buffers).
                    let config = Config::clone(&self.config);
                    check_file::check_text(None, self.text.clone(), config, &Default::default())
                        .into_analysis()
                }))
                .ok()
                .flatten()
                .map(Arc::new)
                .ok_or(NoAnalysis::Crashed)
            })
            .as_ref()
            .map(|a| a.as_ref())
            .map_err(|e| *e)
    }

    /// `ad check --maestro`'s check of a routed flow (computed on first use); `None` for
    /// anything else, a flow over the size limit, or a check that panicked.
    pub fn maestro(&self) -> Option<&ad_maestro::Checked> {
        self.maestro
            .get_or_init(|| {
                if self.kind != Kind::Maestro || self.text.len() > MAX_ANALYZED_BYTES {
                    return None;
                }
                std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    crate::maestro::check(self)
                }))
                .ok()
                .map(Arc::new)
            })
            .as_deref()
    }

    /// The syntax tree (from the analysis).
    pub fn file(&self) -> Option<&SourceFile> {
        self.analysis().ok().map(|a| a.file())
    }

    /// The script line (as agent-device splits lines) holding byte `offset`.
    pub fn line_at(&self, offset: usize) -> Option<&Line> {
        let file = self.file()?;
        let i = file.lines.partition_point(|l| l.span.start() <= offset);
        file.lines.get(i.checked_sub(1)?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use lsp_types::{Position, Range};

    fn doc(text: &str) -> Document {
        Document::new(
            "file:///tmp/a.ad".parse().unwrap(),
            1,
            text.to_string(),
            Encoding::Utf16,
            Arc::new(Config::default()),
            None,
        )
    }

    #[test]
    fn incremental_changes_apply_in_order() {
        let d = doc("click \"label=Café 😀\"\nwait 100\n");
        let d = d.changed(
            2,
            vec![
                TextDocumentContentChangeEvent {
                    range: Some(Range::new(Position::new(0, 20), Position::new(0, 20))),
                    range_length: None,
                    text: "!".into(),
                },
                TextDocumentContentChangeEvent {
                    range: Some(Range::new(Position::new(1, 5), Position::new(1, 8))),
                    range_length: None,
                    text: "250".into(),
                },
            ],
        );
        assert_eq!(d.text, "click \"label=Café 😀!\"\nwait 250\n");
        assert_eq!(d.version, 2);
        assert!(d.analysis().is_ok());
    }
}
