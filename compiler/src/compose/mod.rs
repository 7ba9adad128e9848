//! Composition (ADR 0020's proposed shape, spec §17): a `composition-v1` parent includes
//! `fragment-v1` files, each include pinned by a `# agent-device:fragment-ref-v1` annotation.
//! [`compose`] reads the parent and every fragment it reaches, reports each preflight reason as
//! its own code (AD800–AD810), and expands the includes into one plain script (the flattened
//! text `ad build` writes and `ad run` runs) with a map from each of its lines back to the source
//! file, line and include chain. The other rules run over that expansion, so profiles and ref
//! frames apply across includes; their findings are mapped back to the file they are in.
//!
//! A fragment's digest is the plan digest (spec §19, [`crate::digest`]) of the fragment read as
//! a script with its `fragment-v1` marker and its own `fragment-ref-v1` / `include` lines blanked:
//! a nested fragment is pinned by its own call site.

mod files;
mod fragment_env;
mod lines;
mod pins;

pub use files::{absolute, normalize, project_root, resolve, Files, FsFiles, MemoryFiles};
pub use lines::{kind_of, ScriptKind};
pub use pins::{changes, read_snapshot, snapshot_path, snapshot_text, PINS_DIR};

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use ad_grammar::codes::{
    COMPOSITION_LINE_REFUSED, FRAGMENT_BOUNDS, FRAGMENT_CALL_SITE_INVALID,
    FRAGMENT_CONTEXT_MISMATCH, FRAGMENT_CONTROL_IDENTITY_INVALID, FRAGMENT_CYCLE,
    FRAGMENT_ENTRY_GUARD, FRAGMENT_LIFECYCLE, FRAGMENT_MISSING, FRAGMENT_STALE,
    FRAGMENT_UNSUPPORTED, FRAGMENT_VARIABLE_UNBOUND,
};
use ad_grammar::{Diagnostic, Edit, Span};

use crate::config::Config;
use crate::registry::Action;
use ad_grammar::fragment_ref as pin;
use lines::{Marker, SourceLines};

/// How deep includes may nest, and how many lines an expansion may hold.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    pub max_depth: usize,
    pub max_lines: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_depth: 8,
            max_lines: 20_000,
        }
    }
}

#[derive(Debug, Clone, Default)]
pub struct Options {
    /// Includes never resolve outside this folder (the nearest `ad.toml`'s, else the repository
    /// root, else the parent's folder: [`project_root`]).
    pub root: PathBuf,
    pub limits: Limits,
    /// Variable names the run supplies (`-e`, `AD_VAR_*`); `ad check` passes none.
    pub supplied: Vec<String>,
    /// Note (AD811) on the entry file's `composition-v1`, `fragment-v1` and `include` lines that
    /// agent-device 0.21.5 refuses them at dispatch: `ad check` asks for it; a run, a build and
    /// the editor's cross-file view do not.
    pub dispatch_notes: bool,
    pub config: Config,
    /// The most bytes read from one fragment: the script's own cap (`--max-file-size`); `None`
    /// takes `[input] max-file-size` of `config`, else agent-device's 2 MiB.
    pub max_file_size: Option<u64>,
}

impl Options {
    /// The cap on one fragment, as on a script (AD006 over it).
    pub fn read_limit(&self) -> u64 {
        self.max_file_size
            .or(self.config.max_file_size)
            .unwrap_or(ad_grammar::input::AGENT_DEVICE_MAX_BYTES)
    }
}

/// One include on the way from the parent to a line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CallSite {
    /// The including file.
    pub file: PathBuf,
    /// 0-based line of its `include`.
    pub line: usize,
    pub span: Span,
    pub call_site_id: String,
    /// The include path as written.
    pub path: String,
    /// The fragment file it resolved to.
    pub fragment: PathBuf,
    /// The fragment's digest now (`sha256:…`).
    pub digest: String,
}

/// Where a line of the expansion comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Origin {
    pub file: PathBuf,
    /// 0-based.
    pub line: usize,
    /// Outermost first.
    pub chain: Vec<CallSite>,
}

/// A finding in one of the files of a composition, spans in that file's text.
#[derive(Debug, Clone)]
pub struct FileDiagnostic {
    pub file: PathBuf,
    pub diagnostic: Diagnostic,
    /// The includes that led to the file, outermost first (empty for the parent).
    pub chain: Vec<CallSite>,
}

#[derive(Debug, Clone, Default)]
pub struct Composition {
    /// The plain script: fragments inlined between `# ad:include` / `# ad:end include` comments.
    pub flattened: String,
    /// One entry per line of `flattened`: `None` for the comments the expansion writes.
    pub origins: Vec<Option<Origin>>,
    pub diagnostics: Vec<FileDiagnostic>,
    /// Every file read, by resolved path, with its text.
    pub files: BTreeMap<PathBuf, String>,
    /// Every include reached, in expansion order.
    pub call_sites: Vec<CallSite>,
}

impl Composition {
    pub fn has_errors(&self) -> bool {
        self.diagnostics
            .iter()
            .any(|d| d.diagnostic.severity == ad_grammar::Severity::Error)
    }
    /// The origin of a 0-based line of the flattened script.
    pub fn origin(&self, flattened_line: usize) -> Option<&Origin> {
        self.origins.get(flattened_line).and_then(Option::as_ref)
    }
    /// The findings in `file`.
    pub fn diagnostics_in<'a>(
        &'a self,
        file: &'a Path,
    ) -> impl Iterator<Item = &'a FileDiagnostic> {
        self.diagnostics.iter().filter(move |d| d.file == file)
    }
}

/// The digest a `fragment-ref-v1` pins: `sha256:` and the fragment's plan digest (module doc).
pub fn fragment_digest(text: &str) -> String {
    digest_of(&read_fragment(text))
}

/// A fragment read as its digest reads it: marker, pins and includes blanked.
fn read_fragment(text: &str) -> crate::Analysis {
    crate::read_owned(SourceLines::new(text).blank_composition_lines())
}

fn digest_of(analysis: &crate::Analysis) -> String {
    let digest = crate::digest::plan_digest(
        analysis.steps(),
        analysis.metadata(),
        &crate::digest::DigestOptions::default(),
    );
    format!("sha256:{digest}")
}

/// Applies the fixes of `diagnostics` (findings in `text`) that are the composition's own: the
/// re-pin of a stale pin (AD806, a digest string replaced) and an `env` line in a fragment turned
/// into fallbacks (AD801). Their edits never overlap; the other codes' fixes go through
/// [`crate::apply_fixes`].
pub fn apply_composition_fixes(text: &str, diagnostics: &[Diagnostic]) -> (String, usize) {
    let fixes: Vec<&ad_grammar::Fix> = diagnostics
        .iter()
        .filter(|d| d.code.composition())
        .filter_map(|d| d.fix.as_ref())
        .collect();
    let mut edits: Vec<&Edit> = fixes.iter().flat_map(|f| &f.edits).collect();
    edits.sort_by_key(|e| std::cmp::Reverse(e.span.start()));
    let mut out = text.to_string();
    for e in &edits {
        out.replace_range(e.span.range(), &e.replacement);
    }
    (out, fixes.len())
}

/// Reads `entry` (whose text is `text`) and every fragment it includes, checks them and expands
/// them (module doc).
pub fn compose(entry: &Path, text: &str, files: &dyn Files, options: &Options) -> Composition {
    let mut c = Composer {
        files,
        options,
        out: Composition::default(),
        lines_out: Vec::new(),
        parent_meta: ad_grammar::parse(&SourceLines::new(text).blank_composition_lines()).metadata,
        stack: Vec::new(),
        bounds_reported: false,
        entry_kind: kind_of(text),
    };
    c.out.files.insert(entry.to_path_buf(), text.to_string());
    let kind = kind_of(text);
    if kind == ScriptKind::Fragment {
        // A fragment checked on its own: its own reasons, against its own context.
        c.check_fragment(entry, text, &read_fragment(text), &[]);
    }
    c.expand(entry, text, kind, &[]);
    let mut flattened = String::new();
    for l in &c.lines_out {
        flattened.push_str(l);
        flattened.push('\n');
    }
    c.out.flattened = flattened;
    c.check_expansion();
    c.out
}

struct Composer<'a> {
    files: &'a dyn Files,
    options: &'a Options,
    out: Composition,
    lines_out: Vec<String>,
    parent_meta: ad_grammar::Metadata,
    /// Files being expanded, outermost first (cycle detection).
    stack: Vec<PathBuf>,
    bounds_reported: bool,
    entry_kind: ScriptKind,
}

impl Composer<'_> {
    fn report(&mut self, file: &Path, chain: &[CallSite], diagnostic: Diagnostic) {
        self.out.diagnostics.push(FileDiagnostic {
            file: file.to_path_buf(),
            diagnostic,
            chain: chain.to_vec(),
        });
    }

    fn emit(&mut self, line: String, origin: Option<Origin>) {
        self.lines_out.push(line);
        self.out.origins.push(origin);
    }

    fn expand(&mut self, file: &Path, text: &str, kind: ScriptKind, chain: &[CallSite]) {
        self.stack.push(file.to_path_buf());
        let src = SourceLines::new(text);
        let in_fragment = kind == ScriptKind::Fragment;
        let mut call_site_ids: BTreeMap<String, usize> = BTreeMap::new();
        let mut pending: Option<usize> = None;
        for (i, line) in src.lines.iter().enumerate() {
            let content = &text[line.content.range()];
            let marker = lines::marker(content);
            if let Some(p) = pending.take() {
                if !matches!(marker, Marker::Include(_)) {
                    let d = Diagnostic::new(
                        FRAGMENT_CALL_SITE_INVALID,
                        "a fragment-ref-v1 pin must be immediately followed by its `include` line",
                        src.lines[p].content,
                    )
                    .with_help("put the `include \"<path>\"` line right after the pin");
                    self.report(file, chain, d);
                }
            }
            if chain.is_empty() && self.options.dispatch_notes && kind != ScriptKind::Plain {
                if let Some(d) = refused_at_dispatch(&marker, kind, line.content) {
                    self.report(file, chain, d);
                }
            }
            match marker {
                Marker::Composition | Marker::Fragment => {}
                Marker::Pin => pending = Some(i),
                Marker::Include(in_line) => {
                    let path_span = Span::new(
                        line.content.start() + in_line.start(),
                        line.content.start() + in_line.end(),
                    );
                    let pin_line = (i > 0
                        && matches!(
                            lines::marker(&text[src.lines[i - 1].content.range()]),
                            Marker::Pin
                        ))
                    .then(|| i - 1);
                    self.include(
                        file,
                        text,
                        &src,
                        i,
                        path_span,
                        pin_line,
                        kind,
                        chain,
                        &mut call_site_ids,
                    );
                }
                Marker::Context if !chain.is_empty() => {}
                Marker::Env if in_fragment => {
                    let mut d = Diagnostic::new(
                        FRAGMENT_UNSUPPORTED,
                        "`env` inside a fragment: a fragment takes its values from the parent",
                        line.content,
                    )
                    .with_help("a fragment's `${KEY}` comes from the parent's `env`, the run (`-e`), or its own fallback `${KEY:-default}`: move the line to the parent, or let the fix turn its value into the fallback of each use");
                    if let Some(edits) = fragment_env::fix(text, i) {
                        d = d.with_fix("turn the `env` value into the fallback of its uses", edits);
                    }
                    self.report(file, chain, d);
                }
                _ => {
                    let origin = Origin {
                        file: file.to_path_buf(),
                        line: i,
                        chain: chain.to_vec(),
                    };
                    self.emit(text[line.span.range()].to_string(), Some(origin));
                    if self.lines_out.len() > self.options.limits.max_lines && !self.bounds_reported
                    {
                        self.bounds_reported = true;
                        let d = Diagnostic::new(
                            FRAGMENT_BOUNDS,
                            format!(
                                "the expansion is over {} lines",
                                self.options.limits.max_lines
                            ),
                            line.content,
                        )
                        .with_help("include fewer or smaller fragments");
                        self.report(file, chain, d);
                    }
                }
            }
        }
        if let Some(p) = pending {
            let d = Diagnostic::new(
                FRAGMENT_CALL_SITE_INVALID,
                "a fragment-ref-v1 pin must be immediately followed by its `include` line",
                src.lines[p].content,
            )
            .with_help("put the `include \"<path>\"` line right after the pin");
            self.report(file, chain, d);
        }
        self.stack.pop();
    }

    #[allow(clippy::too_many_arguments)]
    fn include(
        &mut self,
        file: &Path,
        text: &str,
        src: &SourceLines,
        i: usize,
        path_span: Span,
        pin_line: Option<usize>,
        kind: ScriptKind,
        chain: &[CallSite],
        call_site_ids: &mut BTreeMap<String, usize>,
    ) {
        let include_span = src.lines[i].content;
        if kind == ScriptKind::Plain {
            let d = Diagnostic::new(
                FRAGMENT_UNSUPPORTED,
                "`include` in a script that is not a composition",
                include_span,
            )
            .with_help(
                "make `composition-v1` the first executable line (or `fragment-v1` for a fragment)",
            );
            self.report(file, chain, d);
            return;
        }
        let Some(written) = lines::json_string(&text[path_span.range()]) else {
            let d = Diagnostic::new(
                FRAGMENT_UNSUPPORTED,
                "`include` takes one quoted relative path",
                include_span,
            )
            .with_help("write `include \"fragments/login.ad\"`");
            self.report(file, chain, d);
            return;
        };
        // The pin: a call site id unique in this file and a well-formed digest.
        let Some(pin_line) = pin_line else {
            let d = Diagnostic::new(
                FRAGMENT_CALL_SITE_INVALID,
                "`include` without its `# agent-device:fragment-ref-v1` pin",
                include_span,
            )
            .with_help("add `# agent-device:fragment-ref-v1 {\"callSiteId\":\"<unique name>\",\"digest\":\"sha256:…\"}` on the line before (`ad check --fix` fills the digest once the pin exists)");
            self.report(file, chain, d);
            return;
        };
        let pin_span = src.lines[pin_line].content;
        let pin = pin::read(&text[pin_span.range()], pin_span.start());
        let call_site_id = match &pin.call_site_id {
            Some((id, _)) if !id.trim().is_empty() => id.clone(),
            _ => {
                let d = Diagnostic::new(
                    FRAGMENT_CALL_SITE_INVALID,
                    pin.error.clone().unwrap_or_else(|| {
                        "the pin needs a non-empty string `callSiteId`".to_string()
                    }),
                    pin_span,
                )
                .with_help("give every include a `\"callSiteId\"` unique within this file");
                self.report(file, chain, d);
                return;
            }
        };
        if let Some(first) = call_site_ids.insert(call_site_id.clone(), pin_line) {
            let (_, id_span) = pin.call_site_id.clone().unwrap_or_default();
            let d = Diagnostic::new(
                FRAGMENT_CALL_SITE_INVALID,
                format!("callSiteId \"{call_site_id}\" is used twice in this file"),
                id_span,
            )
            .with_secondary(src.lines[first].content, "first used here")
            .with_help("give each include its own callSiteId");
            self.report(file, chain, d);
        }
        let pinned = match &pin.digest {
            Some((d, span)) if pin::well_formed_digest(d) => Some((d.clone(), *span)),
            Some((d, span)) => {
                let diag = Diagnostic::new(
                    FRAGMENT_CONTROL_IDENTITY_INVALID,
                    format!("digest \"{d}\" is not `sha256:` and 64 lowercase hex digits"),
                    *span,
                )
                .with_help("pin the digest `ad check` reports for the fragment (`ad check --fix` writes it)");
                self.report(file, chain, diag);
                None
            }
            None => {
                let diag = Diagnostic::new(
                    FRAGMENT_CONTROL_IDENTITY_INVALID,
                    "the pin has no `digest`",
                    pin_span,
                )
                .with_help("add `\"digest\":\"sha256:<the fragment's digest>\"`");
                self.report(file, chain, diag);
                None
            }
        };
        // Resolve the path: relative to the including file, never outside the project root.
        let base = file.parent().unwrap_or(Path::new(""));
        let Some(resolved) = files::resolve(&self.options.root, base, &written) else {
            let d = Diagnostic::new(
                FRAGMENT_UNSUPPORTED,
                format!("\"{written}\" is outside the project root"),
                path_span,
            )
            .with_label("resolves outside the project")
            .with_help(
                "include files inside the project (the folder of the nearest ad.toml, else the repository root)",
            );
            self.report(file, chain, d);
            return;
        };
        if let Some(real) = self.files.real_path(&resolved) {
            let root = &self.options.root;
            let real_root = self.files.real_path(root).unwrap_or_else(|| root.clone());
            if !real.starts_with(&real_root) {
                let d = Diagnostic::new(
                    FRAGMENT_UNSUPPORTED,
                    format!("\"{written}\" leads outside the project root through a symbolic link"),
                    path_span,
                )
                .with_label(format!("is {}", real.display()))
                .with_help(
                    "include files inside the project (the folder of the nearest ad.toml, else the repository root); copy the fragment in instead of linking to it",
                );
                self.report(file, chain, d);
                return;
            }
        }
        if chain.len() + 1 > self.options.limits.max_depth {
            let d = Diagnostic::new(
                FRAGMENT_BOUNDS,
                format!(
                    "includes nested deeper than {} levels",
                    self.options.limits.max_depth
                ),
                include_span,
            )
            .with_help("flatten the chain: include the inner fragments from the parent");
            self.report(file, chain, d);
            return;
        }
        if let Some(pos) = self.stack.iter().position(|f| *f == resolved) {
            let mut names: Vec<String> = self.stack[pos..]
                .iter()
                .map(|p| display_name(p, &self.options.root))
                .collect();
            names.push(display_name(&resolved, &self.options.root));
            let d = Diagnostic::new(
                FRAGMENT_CYCLE,
                format!("include cycle: {}", names.join(" → ")),
                include_span,
            )
            .with_help("break the cycle: a fragment must not include, directly or not, a file that includes it");
            self.report(file, chain, d);
            return;
        }
        let limit = self.options.read_limit();
        let (fragment_text, not_utf8) = match self.files.read(&resolved, limit) {
            Ok(decoded) => (decoded.text, decoded.not_utf8),
            Err(e) => {
                let d = self.not_read(&written, &resolved, path_span, e);
                self.report(file, chain, d);
                return;
            }
        };
        self.out
            .files
            .insert(resolved.clone(), fragment_text.clone());
        // One reading of the fragment serves its digest and its checks.
        let analysis = read_fragment(&fragment_text);
        let digest = digest_of(&analysis);
        if let Some((pinned, span)) = &pinned {
            if *pinned != digest {
                let d = self.stale_pin(pinned, *span, &digest, &written, &resolved, &fragment_text);
                self.report(file, chain, d);
            }
        }
        let site = CallSite {
            file: file.to_path_buf(),
            line: i,
            span: include_span,
            call_site_id: call_site_id.clone(),
            path: written.clone(),
            fragment: resolved.clone(),
            digest: digest.clone(),
        };
        self.out.call_sites.push(site.clone());
        let mut inner = chain.to_vec();
        inner.push(site);
        if let Some(d) = not_utf8 {
            // Read as agent-device reads a script (U+FFFD for each invalid sequence), and said.
            self.report(&resolved, &inner, d);
        }
        let fragment_kind = kind_of(&fragment_text);
        if fragment_kind != ScriptKind::Fragment {
            let d = Diagnostic::new(
                FRAGMENT_UNSUPPORTED,
                format!("\"{written}\" is not a fragment"),
                path_span,
            )
            .with_help("make `fragment-v1` the fragment's first executable line");
            self.report(file, chain, d);
            return;
        }
        self.check_fragment(&resolved, &fragment_text, &analysis, &inner);
        let name = display_name(&resolved, &self.options.root);
        let indent = " ".repeat(src.lines[i].content.start() - src.lines[i].span.start());
        self.emit(
            format!(
                "{indent}# ad:include \"{written}\" callSiteId={call_site_id} {digest} ({name})"
            ),
            None,
        );
        self.expand(&resolved, &fragment_text, fragment_kind, &inner);
        self.emit(
            format!("{indent}# ad:end include \"{written}\" ({name})"),
            None,
        );
    }

    /// Why the fragment `written` (resolved to `resolved`) was not read, at its path in the
    /// include: AD006 over the cap, as for a script; else AD800 saying what is there instead.
    fn not_read(
        &self,
        written: &str,
        resolved: &Path,
        path_span: Span,
        e: crate::input_file::ReadError,
    ) -> Diagnostic {
        use crate::input_file::ReadError;
        let name = display_name(resolved, &self.options.root);
        if let ReadError::TooLarge { size, limit } = e {
            // agent-device never reads a fragment (`ad build` flattens it): only the cap speaks.
            let d = ad_grammar::input::refused_too_large(&name, size, limit);
            let mut out = Diagnostic::new(
                d.code,
                format!("fragment \"{written}\": {}", d.message),
                path_span,
            )
            .with_label("nothing in this fragment was checked");
            out.help = d.help;
            return out;
        }
        if e.is_not_found() {
            return Diagnostic::new(
                FRAGMENT_MISSING,
                format!("fragment \"{written}\" not found"),
                path_span,
            )
            .with_label(format!("no file at {name}"))
            .with_help("check the path: it is relative to this file");
        }
        Diagnostic::new(
            FRAGMENT_MISSING,
            format!("fragment \"{written}\" cannot be read"),
            path_span,
        )
        .with_label(format!("{name}: {e}"))
        .with_help("include a regular file (a fragment is never read from a FIFO or a device)")
    }

    /// AD806 for a pin of `written` (resolved to `resolved`) at `pinned` whose fragment is at
    /// `digest` now: what changed, from the pinned snapshot when the project has it.
    fn stale_pin(
        &self,
        pinned: &str,
        span: Span,
        digest: &str,
        written: &str,
        resolved: &Path,
        fragment_text: &str,
    ) -> Diagnostic {
        let root = &self.options.root;
        let review = match pins::read_snapshot(self.files, root, pinned) {
            Some(old) => {
                let lines = pins::changes(&old, fragment_text);
                if lines.is_empty() {
                    "what changed since the pin: nothing a step shows".to_string()
                } else {
                    format!("what changed since the pin:\n  {}", lines.join("\n  "))
                }
            }
            None => format!(
                "no snapshot of the pinned steps in {PINS_DIR}/: review what changed (`git diff {}`)",
                display_name(resolved, root)
            ),
        };
        Diagnostic::new(
            FRAGMENT_STALE,
            format!("\"{written}\" changed since it was pinned"),
            span,
        )
        .with_label(format!("pinned {}", short(pinned)))
        .with_help(format!(
            "pinned {}, the fragment's plan is now {}; {review}\nthen `ad check --fix` rewrites the pin (and keeps a snapshot of what it pins)",
            short(pinned),
            short(digest),
        ))
        .with_fix(
            format!("pin {} at {}", written, short(digest)),
            vec![Edit {
                span: Span::new(span.start() + 1, span.end() - 1),
                replacement: digest.to_string(),
            }],
        )
    }

    /// The reasons found in a fragment alone: lifecycle, entry guard, context, variables.
    fn check_fragment(
        &mut self,
        file: &Path,
        text: &str,
        analysis: &crate::Analysis,
        chain: &[CallSite],
    ) {
        let prepared = analysis.text();
        let meta = analysis.metadata();
        let first_line = SourceLines::new(text)
            .first_executable()
            .unwrap_or_default();
        for step in analysis.steps() {
            if matches!(step.action(), Some(Action::Open) | Some(Action::Close)) {
                let d = Diagnostic::new(
                    FRAGMENT_LIFECYCLE,
                    format!("`{}` inside a fragment", step.command()),
                    step.line_span(analysis.file()),
                )
                .with_help(
                    "the parent opens and closes the app; remove this step from the fragment",
                );
                self.report(file, chain, d);
            }
        }
        match analysis.steps().first() {
            Some(step) => {
                if let Some(why) = entry_guard_problem(step) {
                    let d = Diagnostic::new(
                        FRAGMENT_ENTRY_GUARD,
                        format!("the fragment's first step is not its entry guard: {why}"),
                        step.line_span(analysis.file()),
                    )
                    .with_help("start with a selector `wait` with an explicit timeout and a verified target-v1 annotation, e.g. `wait \"id=\\\"login.email\\\"\" 5000` (record it with agent-device, or copy the annotation from a recorded run)");
                    self.report(file, chain, d);
                }
            }
            None => {
                let d = Diagnostic::new(
                    FRAGMENT_ENTRY_GUARD,
                    "the fragment has no steps, so no entry guard",
                    first_line,
                )
                .with_help("start the fragment with a verified selector `wait` with a timeout");
                self.report(file, chain, d);
            }
        }
        let parent = self.parent_meta.clone();
        for (what, mine, theirs) in [
            ("platform", &meta.platform, &parent.platform),
            ("target", &meta.target, &parent.target),
        ] {
            let mine_v = mine.as_ref().map(|l| l.value.as_str());
            let theirs_v = theirs.as_ref().map(|l| l.value.as_str());
            if mine_v != theirs_v || mine_v.is_none() {
                let span = mine.as_ref().map(|l| l.span).unwrap_or(first_line);
                let d = Diagnostic::new(
                    FRAGMENT_CONTEXT_MISMATCH,
                    format!(
                        "the fragment's {what} is {}, the parent's {}",
                        mine_v.map_or("not set".to_string(), |v| format!("`{v}`")),
                        theirs_v.map_or("is not set".to_string(), |v| format!("is `{v}`"))
                    ),
                    span,
                )
                .with_help(format!(
                    "write `context platform=… target=…` in the fragment with the parent's values{}",
                    theirs_v.map_or(String::new(), |v| format!(" ({what}={v})"))
                ));
                self.report(file, chain, d);
            }
        }
        // Variables: the parent's env, built-ins, the run's values, or the placeholder's fallback.
        // A fragment checked alone has no parent to ask.
        if chain.is_empty() {
            return;
        }
        let mut seen = std::collections::BTreeSet::new();
        for line in &analysis.file().lines {
            if !matches!(line.kind, ad_grammar::tree::LineKind::Action(_)) {
                continue;
            }
            let content = &prepared[line.content.range()];
            for p in ad_grammar::placeholder::placeholders(content) {
                if p.fallback.is_some() {
                    continue;
                }
                let name = p.name(content).to_string();
                let supplied = parent.env_value(&name).is_some()
                    || self.options.config.is_builtin(&name)
                    || self.options.supplied.contains(&name);
                if !supplied && seen.insert(name.clone()) {
                    let span = Span::new(
                        line.content.start() + p.span.start,
                        line.content.start() + p.span.end,
                    );
                    let d = Diagnostic::new(
                        FRAGMENT_VARIABLE_UNBOUND,
                        format!("`${{{name}}}` is supplied neither by the parent nor by the run"),
                        span,
                    )
                    .with_help(format!(
                        "add `env {name}=…` to the parent, pass `-e {name}=…` when running, or write `${{{name}:-fallback}}`"
                    ));
                    self.report(file, chain, d);
                }
            }
        }
    }

    /// Runs the rules over the expansion and maps what they report back to the source files.
    fn check_expansion(&mut self) {
        let mut config = self.options.config.clone();
        if self.entry_kind == ScriptKind::Fragment {
            // A fragment alone is a piece of a flow, not a handoff: its parent has the `open`.
            config.profile = crate::config::ProfileChoice::Flow;
        }
        let analysis = crate::analyze_with(&self.out.flattened, &config);
        let flat = SourceLines::new(&self.out.flattened);
        let mut mapped = Vec::new();
        for d in analysis.diagnostics {
            let Some((origin, _)) = self.map_span(&flat, d.primary_span()) else {
                continue;
            };
            let origin = origin.clone();
            let mut d2 = d.clone();
            d2.labels
                .retain_mut(|l| match self.map_span(&flat, l.span) {
                    Some((o, s)) if o.file == origin.file => {
                        l.span = s;
                        true
                    }
                    _ => false,
                });
            if let Some(fix) = &mut d2.fix {
                let mut ok = true;
                for e in &mut fix.edits {
                    match self.map_span(&flat, e.span) {
                        Some((o, s)) if o.file == origin.file => e.span = s,
                        _ => ok = false,
                    }
                }
                if !ok {
                    d2.fix = None;
                }
            }
            if d2.labels.is_empty() {
                continue;
            }
            // A fragment's variables are AD810's: the parent or the run supplies them.
            let in_fragment = !origin.chain.is_empty() || self.entry_kind == ScriptKind::Fragment;
            if in_fragment && d2.code == ad_grammar::codes::UNDEFINED_VARIABLE {
                continue;
            }
            mapped.push(FileDiagnostic {
                file: origin.file.clone(),
                diagnostic: d2,
                chain: origin.chain.clone(),
            });
        }
        self.out.diagnostics.extend(mapped);
        self.out.diagnostics.sort_by(|a, b| {
            (a.chain.len(), &a.file, a.diagnostic.primary_span().start()).cmp(&(
                b.chain.len(),
                &b.file,
                b.diagnostic.primary_span().start(),
            ))
        });
    }

    /// A span of the flattened text as (origin, span in the origin's file).
    fn map_span(&self, flat: &SourceLines, span: Span) -> Option<(&Origin, Span)> {
        let line = flat.line_of(span.start())?;
        let origin = self.out.origin(line)?;
        let text = self.out.files.get(&origin.file)?;
        let src = SourceLines::new(text);
        let src_line = src.lines.get(origin.line)?;
        let flat_line = flat.lines[line].span;
        let start = src_line.span.start() + (span.start() - flat_line.start());
        let end = (src_line.span.start() + span.end().saturating_sub(flat_line.start()))
            .min(src_line.span.end());
        Some((origin, Span::new(start, end.max(start))))
    }
}

/// Why `step` is not an entry guard, if it is not.
fn entry_guard_problem(step: &crate::Step) -> Option<&'static str> {
    if step.action() != Some(Action::Wait) {
        return Some("it is not a `wait`");
    }
    let selector = step.positional(0).unwrap_or("");
    if selector.is_empty()
        || selector.starts_with('@')
        || selector.parse::<f64>().is_ok()
        || !selector.contains('=')
    {
        return Some("it does not wait for a selector");
    }
    if step
        .positional(1)
        .and_then(|t| t.parse::<f64>().ok())
        .is_none()
    {
        return Some("it has no explicit timeout");
    }
    match &step.target_evidence {
        Some(e) if e.verification == ad_grammar::annotation::VerificationState::Verified => None,
        Some(_) => Some("its target-v1 annotation is not verified"),
        None => Some("it has no target-v1 annotation"),
    }
}

/// AD811 on a composition line of the checked file (`kind`, a composition or a fragment):
/// agent-device 0.21.5 reads `composition-v1`, `fragment-v1` and `include` as commands it does
/// not have, so a replay of this file fails there; `ad build` writes the plain script it runs.
fn refused_at_dispatch(marker: &Marker, kind: ScriptKind, span: Span) -> Option<Diagnostic> {
    let word = match marker {
        Marker::Composition => "composition-v1",
        Marker::Fragment => "fragment-v1",
        Marker::Include(_) => "include",
        _ => return None,
    };
    let help = if kind == ScriptKind::Fragment {
        "a fragment runs inside a composition: `ad run` the composition that includes it, or \
         `ad build <composition> -o <plain>.ad` for the plain script agent-device runs"
    } else {
        "`ad run` runs the composition; for agent-device, `ad build <this file> -o <plain>.ad` \
         writes the expansion as the plain script it runs"
    };
    Some(
        Diagnostic::new(
            COMPOSITION_LINE_REFUSED,
            format!("agent-device 0.21.5 refuses `{word}` at dispatch"),
            span,
        )
        .with_label("an unknown command to agent-device: its replay of this file fails here")
        .with_help(help),
    )
}

fn display_name(path: &Path, root: &Path) -> String {
    path.strip_prefix(root)
        .unwrap_or(path)
        .to_string_lossy()
        .replace('\\', "/")
}

fn short(digest: &str) -> String {
    digest.chars().take(19).collect::<String>() + "…"
}
