//! Code actions: every fix a diagnostic carries becomes a quick fix (did-you-mean, quoting a
//! selector whose whitespace would collapse, a secure-field fill turned into `${NAME}`, removing
//! ignored flags, a destination guard, …), plus "fix all" applying them together the way
//! `ad check --fix` does. Nothing here knows what a fix means.

use std::collections::HashMap;

use ad_grammar::{Fix, Span};
use lsp_types::{
    CodeAction, CodeActionKind, CodeActionOrCommand, CodeActionParams, TextEdit, WorkspaceEdit,
};

use crate::diagnostics;
use crate::request::Snapshot;

#[allow(clippy::mutable_key_type)] // lsp-types keys edits by `Uri`
fn edit(snap: &Snapshot, edits: Vec<TextEdit>) -> WorkspaceEdit {
    let mut changes = HashMap::new();
    changes.insert(snap.doc.uri.clone(), edits);
    WorkspaceEdit {
        changes: Some(changes),
        ..Default::default()
    }
}

fn text_edits(snap: &Snapshot, fix: &Fix) -> Vec<TextEdit> {
    let doc = &snap.doc;
    fix.edits
        .iter()
        .map(|e| TextEdit::new(doc.lines.range(&doc.text, e.span), e.replacement.clone()))
        .collect()
}

fn wants(params: &CodeActionParams, kind: &CodeActionKind) -> bool {
    match &params.context.only {
        None => true,
        Some(only) => only.iter().any(|o| {
            kind.as_str() == o.as_str() || kind.as_str().starts_with(&format!("{}.", o.as_str()))
        }),
    }
}

pub fn code_actions(snap: &Snapshot, params: CodeActionParams) -> Option<Vec<CodeActionOrCommand>> {
    let doc = &snap.doc;
    let analysis = doc.analysis().ok()?;
    let range = doc.lines.span(&doc.text, params.range);
    let mut out = Vec::new();
    if wants(&params, &CodeActionKind::QUICKFIX) {
        // A composition's stale pins: their fix is the composition's, not the one-file analysis'.
        out.extend(
            crate::compose::composition_actions(doc, range, snap.caps.create_files)
                .into_iter()
                .map(CodeActionOrCommand::CodeAction),
        );
    }
    if wants(&params, &CodeActionKind::QUICKFIX) {
        for d in &analysis.diagnostics {
            let Some(fix) = &d.fix else { continue };
            let at = d.primary_span();
            let touches = |s: Span| s.start() <= range.end() && range.start() <= s.end();
            if !touches(at) && !fix.edits.iter().any(|e| touches(e.span)) {
                continue;
            }
            // The same guarantee as `ad check --fix`: never offer an edit that would make
            // agent-device reject the script or unbind an annotation.
            if !ad_compiler::fix_keeps_script_whole(analysis, fix) {
                continue;
            }
            out.push(CodeActionOrCommand::CodeAction(CodeAction {
                title: format!("{} ({})", fix.title, d.code),
                kind: Some(CodeActionKind::QUICKFIX),
                diagnostics: Some(vec![diagnostics::convert(doc, d)]),
                edit: Some(edit(snap, text_edits(snap, fix))),
                command: None,
                is_preferred: Some(true),
                disabled: None,
                data: None,
            }));
        }
    }
    if wants(&params, &CodeActionKind::QUICKFIX) {
        out.extend(heal_action(snap, range).map(CodeActionOrCommand::CodeAction));
    }
    let fixable = analysis
        .diagnostics
        .iter()
        .filter(|d| d.fix.is_some())
        .count();
    if fixable > 0 && wants(&params, &CodeActionKind::SOURCE_FIX_ALL) {
        let (fixed, applied) = ad_compiler::apply_fixes(&doc.text, &analysis.diagnostics);
        if applied > 0 {
            let edits = crate::formatting::line_edits(doc, &fixed, None);
            out.push(CodeActionOrCommand::CodeAction(CodeAction {
                title: format!(
                    "Fix all auto-fixable problems ({applied} fix{})",
                    if applied == 1 { "" } else { "es" }
                ),
                kind: Some(CodeActionKind::SOURCE_FIX_ALL),
                edit: Some(edit(snap, edits)),
                ..Default::default()
            }));
        }
    }
    Some(out)
}

/// The proven heal proposal `ad heal` recorded for exactly this text (docs/editors.md), offered
/// on the lines it changes: its line edits applied give the healed script.
fn heal_action(snap: &Snapshot, range: Span) -> Option<CodeAction> {
    let doc = &snap.doc;
    let record = crate::runs::heal_for(doc)?;
    let line_of = |offset: usize| doc.text[..offset.min(doc.text.len())].matches('\n').count() + 1;
    let (first, last) = (line_of(range.start()), line_of(range.end()));
    if !crate::runs::touched_lines(record)
        .iter()
        .any(|&(a, b)| a <= last && first < b)
    {
        return None;
    }
    let edits = crate::runs::text_edits(doc, record)?;
    let changes: Vec<String> = record
        .proposals
        .iter()
        .map(|p| format!("step {}: {} → {}", p.step, p.old_selector, p.new_selector))
        .collect();
    let diagnostics = crate::runs::diagnostics(doc);
    Some(CodeAction {
        title: format!(
            "Apply the proven heal proposal{} ({})",
            if changes.len() == 1 { "" } else { "s" },
            changes.join("; ")
        ),
        kind: Some(CodeActionKind::QUICKFIX),
        diagnostics: (!diagnostics.is_empty()).then_some(diagnostics),
        edit: Some(edit(snap, edits)),
        is_preferred: Some(true),
        ..Default::default()
    })
}
