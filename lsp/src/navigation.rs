//! Go to definition, find references, highlights and rename for `env` variables and their
//! `${NAME}` uses.

use ad_grammar::Span;
use lsp_server::ErrorCode;
use lsp_types::{
    DocumentHighlight, DocumentHighlightKind, DocumentHighlightParams, GotoDefinitionParams,
    GotoDefinitionResponse, Location, PrepareRenameResponse, ReferenceParams, RenameParams,
    TextDocumentPositionParams, TextEdit, WorkspaceEdit,
};

use crate::request::{RequestError, Snapshot};
use crate::vars;

struct Symbol {
    name: String,
    span: Span,
    defs: Vec<vars::Definition>,
    uses: Vec<vars::Use>,
}

fn symbol_at(snap: &Snapshot, pos: &TextDocumentPositionParams) -> Option<Symbol> {
    let doc = &snap.doc;
    let file = doc.file()?;
    let offset = doc.lines.offset(&doc.text, pos.position);
    let (name, span) = vars::name_at(file, offset)?;
    let defs = vars::definitions(file)
        .into_iter()
        .filter(|d| d.name == name)
        .collect();
    let uses = vars::uses(file)
        .into_iter()
        .filter(|u| u.name == name)
        .collect();
    Some(Symbol {
        name,
        span,
        defs,
        uses,
    })
}

fn location(snap: &Snapshot, span: Span) -> Location {
    let doc = &snap.doc;
    Location::new(doc.uri.clone(), doc.lines.range(&doc.text, span))
}

pub fn definition(snap: &Snapshot, params: GotoDefinitionParams) -> Option<GotoDefinitionResponse> {
    let pos = &params.text_document_position_params;
    let offset = snap.doc.lines.offset(&snap.doc.text, pos.position);
    if let Some(fragment) = crate::compose::definition(&snap.doc, offset) {
        return Some(GotoDefinitionResponse::Scalar(fragment));
    }
    let s = symbol_at(snap, &params.text_document_position_params)?;
    // The directive agent-device reads (a header one) first.
    let mut defs = s.defs;
    defs.sort_by_key(|d| (!d.in_header, d.line));
    let d = defs.first()?;
    Some(GotoDefinitionResponse::Scalar(location(snap, d.key_span)))
}

pub fn references(snap: &Snapshot, params: ReferenceParams) -> Option<Vec<Location>> {
    let s = symbol_at(snap, &params.text_document_position)?;
    let mut out = Vec::new();
    if params.context.include_declaration {
        out.extend(s.defs.iter().map(|d| location(snap, d.key_span)));
    }
    out.extend(s.uses.iter().map(|u| location(snap, u.name_span)));
    Some(out)
}

pub fn highlight(
    snap: &Snapshot,
    params: DocumentHighlightParams,
) -> Option<Vec<DocumentHighlight>> {
    let s = symbol_at(snap, &params.text_document_position_params)?;
    let doc = &snap.doc;
    let mut out: Vec<DocumentHighlight> = s
        .defs
        .iter()
        .map(|d| DocumentHighlight {
            range: doc.lines.range(&doc.text, d.key_span),
            kind: Some(DocumentHighlightKind::WRITE),
        })
        .collect();
    out.extend(s.uses.iter().map(|u| DocumentHighlight {
        range: doc.lines.range(&doc.text, u.name_span),
        kind: Some(DocumentHighlightKind::READ),
    }));
    Some(out)
}

fn renamable(s: &Symbol) -> Result<(), RequestError> {
    if s.name.starts_with("AD_") {
        return Err(RequestError::new(
            ErrorCode::RequestFailed,
            format!("`{}` is a built-in variable: it cannot be renamed", s.name),
        ));
    }
    if let Some(u) = s.uses.iter().find(|u| !u.literal) {
        return Err(RequestError::new(
            ErrorCode::RequestFailed,
            format!(
                "`${{{}}}` on line {} is spelled with JSON escapes; rewrite it plainly before renaming",
                s.name,
                u.line + 1
            ),
        ));
    }
    Ok(())
}

pub fn prepare_rename(
    snap: &Snapshot,
    params: TextDocumentPositionParams,
) -> Result<Option<PrepareRenameResponse>, RequestError> {
    let Some(s) = symbol_at(snap, &params) else {
        return Ok(None);
    };
    renamable(&s)?;
    let doc = &snap.doc;
    Ok(Some(PrepareRenameResponse::RangeWithPlaceholder {
        range: doc.lines.range(&doc.text, s.span),
        placeholder: s.name,
    }))
}

#[allow(clippy::mutable_key_type)] // lsp-types keys edits by `Uri`
pub fn rename(
    snap: &Snapshot,
    params: RenameParams,
) -> Result<Option<WorkspaceEdit>, RequestError> {
    let Some(s) = symbol_at(snap, &params.text_document_position) else {
        return Ok(None);
    };
    renamable(&s)?;
    let new = params.new_name.trim();
    if !vars::definable(new) {
        return Err(RequestError::new(
            ErrorCode::InvalidParams,
            format!(
                "`{new}` cannot be a variable name: use uppercase letters, digits and underscores (e.g. APP_ID), not starting with AD_"
            ),
        ));
    }
    let doc = &snap.doc;
    if new != s.name {
        if let Some(file) = doc.file() {
            if let Some(d) = vars::definitions(file).iter().find(|d| d.name == new) {
                return Err(RequestError::new(
                    ErrorCode::RequestFailed,
                    format!("`{new}` is already defined on line {}", d.line + 1),
                ));
            }
        }
    }
    let edits: Vec<TextEdit> = s
        .defs
        .iter()
        .map(|d| d.key_span)
        .chain(s.uses.iter().map(|u| u.name_span))
        .map(|span| TextEdit::new(doc.lines.range(&doc.text, span), new.to_string()))
        .collect();
    // In a composition, its parents and fragments share the variables.
    let mut changes = crate::compose::rename_across(doc, &s.name, new);
    changes.insert(doc.uri.clone(), edits);
    Ok(Some(WorkspaceEdit {
        changes: Some(changes),
        ..Default::default()
    }))
}
