//! Document symbols (the header, then every step numbered as replay counts it) and folding
//! ranges (an annotation with its action, comment blocks, the header).

use ad_grammar::annotation::Evidence;
use ad_grammar::{LineKind, Span};
use lsp_types::{
    DocumentSymbol, DocumentSymbolResponse, FoldingRange, FoldingRangeKind, Location,
    SymbolInformation, SymbolKind, SymbolTag,
};

use crate::request::Snapshot;

const MAX_NAME: usize = 80;

fn shorten(s: &str) -> String {
    if s.chars().count() <= MAX_NAME {
        return s.to_string();
    }
    let mut out: String = s.chars().take(MAX_NAME - 1).collect();
    out.push('…');
    out
}

/// A symbol before conversion to protocol ranges.
struct Sym {
    name: String,
    detail: Option<String>,
    kind: SymbolKind,
    span: Span,
    selection: Span,
    children: Option<Vec<DocumentSymbol>>,
    deprecated: bool,
}

#[allow(deprecated)] // `DocumentSymbol::deprecated` must still be written.
fn symbol(snap: &Snapshot, s: Sym) -> DocumentSymbol {
    let doc = &snap.doc;
    DocumentSymbol {
        name: if s.name.trim().is_empty() {
            "(empty)".into()
        } else {
            s.name
        },
        detail: s.detail,
        kind: s.kind,
        tags: s.deprecated.then(|| vec![SymbolTag::DEPRECATED]),
        deprecated: None,
        range: doc.lines.range(&doc.text, s.span),
        selection_range: doc.lines.range(&doc.text, s.selection),
        children: s.children,
    }
}

pub fn document_symbols(snap: &Snapshot) -> Option<DocumentSymbolResponse> {
    let doc = &snap.doc;
    let analysis = doc.analysis().ok()?;
    let file = analysis.file();
    let text = file.text.as_str();
    let mut out = Vec::new();

    // The header: context and env lines before the first action.
    let first_action = analysis
        .steps()
        .first()
        .map(|s| s.line())
        .unwrap_or(usize::MAX);
    let mut header_children = Vec::new();
    let mut header_span: Option<Span> = None;
    for line in file.lines.iter().take_while(|l| l.index() < first_action) {
        match &line.kind {
            LineKind::Context(c) => {
                for e in &c.entries {
                    let s = e.value.map(|v| e.key.cover(v)).unwrap_or(e.key);
                    header_children.push(symbol(
                        snap,
                        Sym {
                            name: text[s.range()].to_string(),
                            detail: Some("context".into()),
                            kind: SymbolKind::PROPERTY,
                            span: s,
                            selection: e.key,
                            children: None,
                            deprecated: false,
                        },
                    ));
                }
            }
            LineKind::Env(e) => {
                header_children.push(symbol(
                    snap,
                    Sym {
                        name: text[e.key.range()].to_string(),
                        detail: e.decoded.clone().map(|v| shorten(&format!("= {v}"))),
                        kind: SymbolKind::VARIABLE,
                        span: line.content,
                        selection: if e.key.is_empty() { e.keyword } else { e.key },
                        children: None,
                        deprecated: false,
                    },
                ));
            }
            _ => continue,
        }
        header_span = Some(header_span.map_or(line.content, |h| h.cover(line.content)));
    }
    if let Some(span) = header_span {
        let first = file
            .lines
            .iter()
            .find(|l| l.content == span || l.content.start() == span.start());
        let selection = first.map(|l| l.content).unwrap_or(span);
        out.push(symbol(
            snap,
            Sym {
                name: "header".into(),
                detail: Some(header_detail(analysis)),
                kind: SymbolKind::NAMESPACE,
                span,
                selection: Span::new(selection.start(), selection.start()),
                children: Some(header_children),
                deprecated: false,
            },
        ));
    }

    for (n, step) in analysis.steps().iter().enumerate() {
        let line = &file.lines[step.line()];
        let mut words = vec![step.command().to_string()];
        words.extend(step.positionals.iter().map(|a| a.value.to_string()));
        let name = shorten(&format!("{}. {}", n + 1, words.join(" ")));
        let mut span = line.content;
        let mut detail = None;
        if let Some(a) = step.annotation_line() {
            span = file.lines[a].content.cover(span);
            detail = file
                .annotation(a)
                .and_then(|a| a.evidence.as_ref())
                .map(|e| match e {
                    Evidence::Single(e) => identity(&e.role, e.label.as_deref(), e.id.as_deref()),
                    Evidence::Dual(d) => format!(
                        "{} → {}",
                        identity(
                            &d.source.role,
                            d.source.label.as_deref(),
                            d.source.id.as_deref()
                        ),
                        identity(
                            &d.destination.role,
                            d.destination.label.as_deref(),
                            d.destination.id.as_deref()
                        )
                    ),
                });
        }
        if step
            .spec()
            .is_some_and(|s| s.effect == ad_compiler::registry::Effect::Skipped)
        {
            detail = Some("skipped by replay: never dispatched".into());
        }
        let retired = step.spec().is_none_or(|s| !s.is_usable_in_scripts());
        out.push(symbol(
            snap,
            Sym {
                name,
                detail,
                kind: SymbolKind::FUNCTION,
                span,
                selection: step.command_span(file),
                children: None,
                deprecated: retired,
            },
        ));
    }

    if snap.caps.hierarchical_symbols {
        return Some(DocumentSymbolResponse::Nested(out));
    }
    // Flat list for older clients.
    let mut flat = Vec::new();
    for s in out {
        flatten(snap, s, None, &mut flat);
    }
    Some(DocumentSymbolResponse::Flat(flat))
}

#[allow(deprecated)]
fn flatten(
    snap: &Snapshot,
    s: DocumentSymbol,
    container: Option<String>,
    out: &mut Vec<SymbolInformation>,
) {
    out.push(SymbolInformation {
        name: s.name.clone(),
        kind: s.kind,
        tags: s.tags.clone(),
        deprecated: None,
        location: Location::new(snap.doc.uri.clone(), s.range),
        container_name: container,
    });
    for c in s.children.unwrap_or_default() {
        flatten(snap, c, Some(s.name.clone()), out);
    }
}

fn identity(role: &str, label: Option<&str>, id: Option<&str>) -> String {
    match (label, id) {
        (Some(l), _) => format!("{role} \"{l}\""),
        (None, Some(id)) => format!("{role} #{id}"),
        (None, None) => role.to_string(),
    }
}

fn header_detail(analysis: &ad_compiler::Analysis) -> String {
    let m = analysis.metadata();
    let mut parts = Vec::new();
    if let Some(p) = &m.platform {
        parts.push(format!("platform={}", p.value));
    }
    if let Some(t) = &m.target {
        parts.push(format!("target={}", t.value));
    }
    if !m.env.is_empty() {
        parts.push(format!("{} env", m.env.len()));
    }
    parts.join(" ")
}

pub fn folding_ranges(snap: &Snapshot) -> Option<Vec<FoldingRange>> {
    let doc = &snap.doc;
    let analysis = doc.analysis().ok()?;
    let file = analysis.file();
    let text = doc.text.as_str();
    let line_of = |offset: usize| doc.lines.position(text, offset).line;
    let mut out = Vec::new();
    let mut push =
        |start: usize, end: usize, kind: Option<FoldingRangeKind>, collapsed: Option<String>| {
            let (s, e) = (line_of(start), line_of(end));
            if e > s {
                out.push(FoldingRange {
                    start_line: s,
                    start_character: None,
                    end_line: e,
                    end_character: None,
                    kind,
                    collapsed_text: collapsed.filter(|_| snap.caps.folding_collapsed_text),
                });
            }
        };

    // The header block.
    let first_action = analysis
        .steps()
        .first()
        .map(|s| s.line())
        .unwrap_or(file.lines.len());
    let header: Vec<_> = file.lines[..first_action.min(file.lines.len())]
        .iter()
        .filter(|l| matches!(l.kind, LineKind::Context(_) | LineKind::Env(_)))
        .collect();
    if let (Some(a), Some(b)) = (header.first(), header.last()) {
        push(
            a.content.start(),
            b.content.end(),
            Some(FoldingRangeKind::Region),
            Some("header".into()),
        );
    }

    // Runs of plain comment lines.
    let mut run: Option<(usize, usize)> = None;
    for line in &file.lines {
        let is_comment = matches!(line.kind, LineKind::Comment(_));
        match (&mut run, is_comment) {
            (Some((_, end)), true) => *end = line.content.end(),
            (None, true) => run = Some((line.content.start(), line.content.end())),
            (Some((s, e)), false) => {
                push(*s, *e, Some(FoldingRangeKind::Comment), None);
                run = None;
            }
            (None, false) => {}
        }
    }
    if let Some((s, e)) = run {
        push(s, e, Some(FoldingRangeKind::Comment), None);
    }

    // Each annotation with the action it describes.
    for line in &file.lines {
        if let LineKind::Annotation(a) = &line.kind {
            if let Some(action) = a.binds_to().and_then(|i| file.lines.get(i)) {
                let collapsed = format!("# {} {}", a.kind.marker(), &text[action.content.range()]);
                push(
                    line.content.start(),
                    action.content.end(),
                    Some(FoldingRangeKind::Comment),
                    Some(collapsed),
                );
            }
        }
    }
    out.sort_by_key(|f| (f.start_line, f.end_line));
    Some(out)
}
