//! Compositions in the editor: a `composition-v1` parent or a `fragment-v1` file is checked with
//! the files it includes (open buffers first, then the disk), so its diagnostics are
//! `ad check`'s; go to definition on an `include` path opens the fragment, hover on it shows the
//! fragment's entry guard and digest, renaming a variable renames it in every file of the
//! compositions the document belongs to (a parent's fragments; a fragment's parents and their
//! other fragments), and a stale pin's quick fix re-pins it and keeps the snapshot of what it
//! pins. The server re-checks open compositions whenever any script changes,
//! so a fragment edit refreshes its parents' diagnostics.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use ad_compiler::compose::{
    self, CallSite, Composition, FsFiles, MemoryFiles, Options, ScriptKind,
};
use lsp_types::{
    CodeAction, CodeActionKind, CreateFile, CreateFileOptions, DocumentChangeOperation,
    DocumentChanges, Location, OneOf, OptionalVersionedTextDocumentIdentifier, Position, Range,
    ResourceOp, TextDocumentEdit, TextEdit, Uri, WorkspaceEdit,
};

use crate::document::Document;

/// Whether the text is a composition or a fragment (`ad check`'s answer).
pub use ad_compiler::check_file::is_composed;

/// The composition of `doc` (`None` for plain scripts and buffers without a file path).
pub fn compose_document(doc: &Document) -> Option<Composition> {
    if !is_composed(&doc.text) {
        return None;
    }
    let path = compose::normalize(doc.path.as_ref()?);
    let files = files_of(doc);
    let options = options_for(doc, &path);
    let mut own = compose::compose(&path, &doc.text, &files, &options);
    if ad_compiler::check_file::kind_of(&doc.text) == ScriptKind::Fragment {
        // What the open parents that include this fragment find in it (ref frames, variables,
        // profiles across the expansion), each with its include chain.
        for (parent, text) in doc.buffers.iter() {
            if *parent == path || ad_compiler::check_file::kind_of(text) != ScriptKind::Composition
            {
                continue;
            }
            let c = compose::compose(parent, text, &files, &options);
            if !c.diagnostics.iter().any(|d| d.file == path) {
                continue;
            }
            // The texts of the files on the way, for the include locations.
            for (p, t) in &c.files {
                own.files.entry(p.clone()).or_insert_with(|| t.clone());
            }
            for fd in c.diagnostics.into_iter().filter(|d| d.file == path) {
                let duplicate = own.diagnostics.iter().any(|o| {
                    o.file == fd.file
                        && o.diagnostic.code == fd.diagnostic.code
                        && o.diagnostic.primary_span() == fd.diagnostic.primary_span()
                });
                if !duplicate {
                    own.diagnostics.push(fd);
                }
            }
        }
    }
    Some(own)
}

/// The include call site whose line holds `offset`, in `doc`'s own file.
fn call_site_at<'a>(doc: &Document, c: &'a Composition, offset: usize) -> Option<&'a CallSite> {
    let path = compose::normalize(doc.path.as_ref()?);
    c.call_sites
        .iter()
        .find(|s| s.file == path && s.span.start() <= offset && offset <= s.span.end())
}

pub fn file_uri(path: &Path) -> Option<Uri> {
    let s = format!("file://{}", path.to_string_lossy().replace(' ', "%20"));
    s.parse().ok()
}

/// Go to definition on an `include` line: the fragment file.
pub fn definition(doc: &Document, offset: usize) -> Option<Location> {
    let c = doc.composition()?;
    let site = call_site_at(doc, c, offset)?;
    Some(Location::new(
        file_uri(&site.fragment)?,
        Range::new(Position::new(0, 0), Position::new(0, 0)),
    ))
}

/// Hover on an `include` line: the fragment, its digest (and whether the pin matches) and its
/// entry guard.
pub fn hover(doc: &Document, offset: usize) -> Option<(String, ad_grammar::Span)> {
    let c = doc.composition()?;
    let site = call_site_at(doc, c, offset)?;
    let text = c.files.get(&site.fragment)?;
    let guard = text
        .lines()
        .map(str::trim)
        .find(|l| l.starts_with("wait "))
        .unwrap_or("(none)");
    // The stale pin is on the line before the include; its help lists what changed.
    let stale = c.diagnostics.iter().find(|d| {
        d.diagnostic.code == ad_grammar::codes::FRAGMENT_STALE
            && d.file == site.file
            && c.files.get(&site.file).is_some_and(|t| {
                t[..d.diagnostic.primary_span().start()]
                    .matches('\n')
                    .count()
                    + 1
                    == site.line
            })
    });
    let stale_note = match stale {
        Some(d) => {
            let changes: Vec<&str> = d
                .diagnostic
                .help
                .as_deref()
                .unwrap_or("")
                .lines()
                .filter(|l| l.starts_with("  "))
                .map(str::trim)
                .collect();
            let list = if changes.is_empty() {
                String::new()
            } else {
                format!("\n\n```\n{}\n```", changes.join("\n"))
            };
            format!(" — the pin above is stale (`ad check --fix` rewrites it){list}")
        }
        None => String::new(),
    };
    let md = format!(
        "**fragment** `{}` (call site `{}`)\n\n**digest** `{}`{stale_note}\n\n**entry guard** `{}`",
        site.path, site.call_site_id, site.digest, guard
    );
    Some((md, site.span))
}

/// The files that share `doc`'s variables: for a parent, every fragment it includes; for a
/// fragment, every composition that includes it (open, or on disk under the project root) with
/// all the fragments those include. `doc`'s own file is left out.
fn sharing_files(doc: &Document) -> BTreeMap<PathBuf, String> {
    let mut out = BTreeMap::new();
    let Some(own) = doc.path.as_ref().map(|p| compose::normalize(p)) else {
        return out;
    };
    let Some(c) = doc.composition() else {
        return out;
    };
    out.extend(c.files.iter().map(|(p, t)| (p.clone(), t.clone())));
    if ad_compiler::check_file::kind_of(&doc.text) == ScriptKind::Fragment {
        let files = files_of(doc);
        let options = options_for(doc, &own);
        for (parent, text) in parents_on_disk(&options.root, doc) {
            let c = compose::compose(&parent, &text, &files, &options);
            if c.files.contains_key(&own) {
                out.extend(c.files);
            }
        }
    }
    out.remove(&own);
    out
}

/// Open buffers first, then the disk.
fn files_of(doc: &Document) -> MemoryFiles {
    let mut files = MemoryFiles::new(doc.buffers.iter().map(|(p, t)| (p.clone(), t.clone())));
    files.fallback = Some(Box::new(FsFiles));
    files
}

fn options_for(doc: &Document, path: &Path) -> Options {
    Options {
        root: compose::project_root(path),
        config: (*doc.config).clone(),
        ..Options::default()
    }
}

/// The compositions under `root`: the open buffers' text first, then the `*.ad` files on disk
/// (hidden folders, `target` and `node_modules` skipped; at most a few thousand files read).
fn parents_on_disk(root: &Path, doc: &Document) -> Vec<(PathBuf, String)> {
    const MAX_FILES: usize = 5000;
    let mut out: BTreeMap<PathBuf, String> = doc
        .buffers
        .iter()
        .filter(|(p, t)| {
            p.starts_with(root) && ad_compiler::check_file::kind_of(t) == ScriptKind::Composition
        })
        .map(|(p, t)| (p.clone(), t.clone()))
        .collect();
    let mut dirs = vec![root.to_path_buf()];
    let mut seen = 0;
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            let path = entry.path();
            let name = entry.file_name();
            let name = name.to_string_lossy();
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            if kind.is_dir() {
                if !name.starts_with('.') && name != "target" && name != "node_modules" {
                    dirs.push(path);
                }
                continue;
            }
            if !name.ends_with(".ad") || out.contains_key(&path) {
                continue;
            }
            seen += 1;
            if seen > MAX_FILES {
                return out.into_iter().collect();
            }
            if let Ok(text) = std::fs::read_to_string(&path) {
                if ad_compiler::check_file::kind_of(&text) == ScriptKind::Composition {
                    out.insert(compose::normalize(&path), text);
                }
            }
        }
    }
    out.into_iter().collect()
}

/// Edits renaming `${old}` (and `env old=`) to `new` in every other file of the compositions
/// `doc` belongs to ([`sharing_files`]): a parent's fragments, or a fragment's parents and their
/// other fragments.
#[allow(clippy::mutable_key_type)] // lsp-types keys edits by `Uri`
pub fn rename_across(doc: &Document, old: &str, new: &str) -> HashMap<Uri, Vec<TextEdit>> {
    let mut out = HashMap::new();
    for (path, text) in sharing_files(doc) {
        let parse = ad_grammar::parse(&text);
        let map = crate::lines::LineMap::new(&text, doc.lines.encoding());
        let edits: Vec<TextEdit> = crate::vars::uses(&parse.file)
            .into_iter()
            .filter(|u| u.name == old && u.literal)
            .map(|u| u.name_span)
            .chain(
                crate::vars::definitions(&parse.file)
                    .into_iter()
                    .filter(|d| d.name == old)
                    .map(|d| d.key_span),
            )
            .map(|span| TextEdit::new(map.range(&text, span), new.to_string()))
            .collect();
        if let (false, Some(uri)) = (edits.is_empty(), file_uri(&path)) {
            out.insert(uri, edits);
        }
    }
    out
}

/// Quick fixes of the composition's own findings in `doc` whose span touches `range` (an `env`
/// line in a fragment, AD801; a stale pin, AD806). A re-pin rewrites the digest and, when the
/// client can create files and the project has no snapshot of that digest yet, writes it
/// (`.ad/pins/<hex>.pinned`) as `ad check --fix` does.
#[allow(clippy::mutable_key_type)] // lsp-types keys edits by `Uri`
pub fn composition_actions(
    doc: &Document,
    range: ad_grammar::Span,
    create_files: bool,
) -> Vec<CodeAction> {
    let mut out = Vec::new();
    let (Some(c), Some(path)) = (doc.composition(), doc.path.as_ref()) else {
        return out;
    };
    let own = compose::normalize(path);
    let root = compose::project_root(&own);
    for fd in c.diagnostics_in(&own) {
        let d = &fd.diagnostic;
        let own_fix = d.code.composition();
        let Some(fix) = d.fix.as_ref().filter(|_| own_fix) else {
            continue;
        };
        let at = d.primary_span();
        if !(at.start() <= range.end() && range.start() <= at.end()) {
            continue;
        }
        let edits: Vec<TextEdit> = fix
            .edits
            .iter()
            .map(|e| TextEdit::new(doc.lines.range(&doc.text, e.span), e.replacement.clone()))
            .collect();
        // A re-pin's include is the line after the pin.
        let pin_line = doc.text[..at.start()].matches('\n').count();
        let snapshot = c
            .call_sites
            .iter()
            .filter(|_| d.code == ad_grammar::codes::FRAGMENT_STALE)
            .find(|s| s.file == own && s.line == pin_line + 1)
            .and_then(|s| {
                let target = compose::snapshot_path(&root, &s.digest)?;
                let text = c.files.get(&s.fragment)?;
                (!target.exists()).then(|| (file_uri(&target), compose::snapshot_text(text)))
            });
        let edit = match snapshot {
            Some((Some(uri), text)) if create_files => {
                let insert = TextEdit::new(Range::default(), text);
                WorkspaceEdit {
                    document_changes: Some(DocumentChanges::Operations(vec![
                        DocumentChangeOperation::Op(ResourceOp::Create(CreateFile {
                            uri: uri.clone(),
                            options: Some(CreateFileOptions {
                                overwrite: Some(true),
                                ignore_if_exists: None,
                            }),
                            annotation_id: None,
                        })),
                        DocumentChangeOperation::Edit(TextDocumentEdit {
                            text_document: OptionalVersionedTextDocumentIdentifier {
                                uri,
                                version: None,
                            },
                            edits: vec![OneOf::Left(insert)],
                        }),
                        DocumentChangeOperation::Edit(TextDocumentEdit {
                            text_document: OptionalVersionedTextDocumentIdentifier {
                                uri: doc.uri.clone(),
                                version: Some(doc.version),
                            },
                            edits: edits.into_iter().map(OneOf::Left).collect(),
                        }),
                    ])),
                    ..Default::default()
                }
            }
            _ => WorkspaceEdit::new(HashMap::from([(doc.uri.clone(), edits)])),
        };
        out.push(CodeAction {
            title: format!("{} ({})", fix.title, d.code),
            kind: Some(CodeActionKind::QUICKFIX),
            diagnostics: Some(vec![crate::diagnostics::convert(doc, d)]),
            edit: Some(edit),
            is_preferred: Some(true),
            ..Default::default()
        });
    }
    out
}

/// The open buffers a composition reads instead of the disk, by path.
#[allow(clippy::mutable_key_type)] // lsp-types keys documents by `Uri`
pub fn buffers(docs: &HashMap<Uri, Arc<Document>>) -> Arc<BTreeMap<PathBuf, String>> {
    Arc::new(
        docs.values()
            .filter_map(|d| Some((compose::normalize(d.path.as_ref()?), d.text.clone())))
            .collect(),
    )
}
