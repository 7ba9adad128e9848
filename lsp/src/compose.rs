//! Compositions in the editor: a `composition-v1` parent or a `fragment-v1` file is checked with
//! the files it includes (open buffers first, then the disk), so its diagnostics are
//! `ad check`'s; go to definition on an `include` path opens the fragment, hover on it shows the
//! fragment's entry guard and digest, and renaming a variable in a parent renames it in every
//! fragment it includes. The server re-checks open compositions whenever any script changes,
//! so a fragment edit refreshes its parents' diagnostics.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use ad_compiler::compose::{
    self, CallSite, Composition, FsFiles, MemoryFiles, Options, ScriptKind,
};
use lsp_types::{Location, Position, Range, TextEdit, Uri};

use crate::document::Document;

/// Whether the text is a composition or a fragment.
pub fn is_composed(text: &str) -> bool {
    compose::kind_of(text) != ScriptKind::Plain
}

/// The composition of `doc` (`None` for plain scripts and buffers without a file path).
pub fn compose_document(doc: &Document) -> Option<Composition> {
    if !is_composed(&doc.text) {
        return None;
    }
    let path = compose::normalize(doc.path.as_ref()?);
    let mut files = MemoryFiles::new(doc.buffers.iter().map(|(p, t)| (p.clone(), t.clone())));
    files.fallback = Some(Box::new(FsFiles));
    let options = Options {
        root: compose::project_root(&path),
        config: (*doc.config).clone(),
        ..Options::default()
    };
    let mut own = compose::compose(&path, &doc.text, &files, &options);
    if compose::kind_of(&doc.text) == ScriptKind::Fragment {
        // What the open parents that include this fragment find in it (ref frames, variables,
        // profiles across the expansion), each with its include chain.
        for (parent, text) in doc.buffers.iter() {
            if *parent == path || compose::kind_of(text) != ScriptKind::Composition {
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
        .find(|s| s.file == path && s.span.start <= offset && offset <= s.span.end)
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
    let stale = c.diagnostics.iter().any(|d| {
        d.diagnostic.code == ad_grammar::codes::FRAGMENT_STALE
            && d.file == site.file
            && d.diagnostic.primary_span().start < site.span.start
            && site.span.start - d.diagnostic.primary_span().start < 400
    });
    let md = format!(
        "**fragment** `{}` (call site `{}`)\n\n**digest** `{}`{}\n\n**entry guard** `{}`",
        site.path,
        site.call_site_id,
        site.digest,
        if stale {
            " — the pin above is stale (`ad check --fix` rewrites it)"
        } else {
            ""
        },
        guard
    );
    Some((md, site.span))
}

/// Edits renaming `${old}` (and `env old=`) to `new` in every fragment `doc` includes.
#[allow(clippy::mutable_key_type)] // lsp-types keys edits by `Uri`
pub fn rename_in_fragments(doc: &Document, old: &str, new: &str) -> HashMap<Uri, Vec<TextEdit>> {
    let mut out = HashMap::new();
    let Some(c) = doc.composition() else {
        return out;
    };
    let own = doc.path.as_ref().map(|p| compose::normalize(p));
    for (path, text) in &c.files {
        if Some(path) == own.as_ref() {
            continue;
        }
        let parse = ad_grammar::parse(text);
        let map = crate::lines::LineMap::new(text, doc.lines.encoding());
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
            .map(|span| TextEdit::new(map.range(text, span), new.to_string()))
            .collect();
        if let (false, Some(uri)) = (edits.is_empty(), file_uri(path)) {
            out.insert(uri, edits);
        }
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
