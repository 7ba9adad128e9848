//! What the client can do (read once from `initialize`) and what the server offers.

use lsp_types::{
    ClientCapabilities, CodeActionKind, CodeActionOptions, CodeActionProviderCapability,
    CompletionOptions, DocumentFormattingOptions, DocumentRangeFormattingOptions,
    FoldingRangeProviderCapability, HoverProviderCapability, InitializeParams, OneOf,
    PositionEncodingKind, RenameOptions, SaveOptions, SemanticTokenModifier, SemanticTokenType,
    SemanticTokensFullOptions, SemanticTokensLegend, SemanticTokensOptions,
    SemanticTokensServerCapabilities, ServerCapabilities, SignatureHelpOptions,
    TextDocumentSyncCapability, TextDocumentSyncKind, TextDocumentSyncOptions,
    TextDocumentSyncSaveOptions, WorkDoneProgressOptions,
};

use crate::lines::Encoding;

/// The client features the handlers adapt to.
#[derive(Debug, Clone, Default)]
pub struct ClientCaps {
    pub encoding: Encoding,
    pub snippets: bool,
    pub markdown: bool,
    pub folding_collapsed_text: bool,
    pub line_folding_only: bool,
    pub hierarchical_symbols: bool,
    pub watch_files_dynamically: bool,
    /// Workspace edits may create files (a re-pin keeps the snapshot of what it pins).
    pub create_files: bool,
}

impl ClientCaps {
    pub fn from_params(params: &InitializeParams) -> ClientCaps {
        let c: &ClientCapabilities = &params.capabilities;
        let td = c.text_document.as_ref();
        let encodings = c
            .general
            .as_ref()
            .and_then(|g| g.position_encodings.clone())
            .unwrap_or_default();
        // UTF-8 is exact and cheapest; UTF-16 is what every client must understand.
        let encoding = if encodings.contains(&PositionEncodingKind::UTF8) {
            Encoding::Utf8
        } else if encodings.contains(&PositionEncodingKind::UTF16) || encodings.is_empty() {
            Encoding::Utf16
        } else if encodings.contains(&PositionEncodingKind::UTF32) {
            Encoding::Utf32
        } else {
            Encoding::Utf16
        };
        let completion = td.and_then(|t| t.completion.as_ref());
        let item = completion.and_then(|c| c.completion_item.as_ref());
        let hover = td.and_then(|t| t.hover.as_ref());
        let folding = td.and_then(|t| t.folding_range.as_ref());
        ClientCaps {
            encoding,
            snippets: item.and_then(|i| i.snippet_support).unwrap_or(false),
            markdown: hover
                .and_then(|h| h.content_format.as_ref())
                .is_some_and(|f| f.contains(&lsp_types::MarkupKind::Markdown)),
            folding_collapsed_text: folding
                .and_then(|f| f.folding_range.as_ref())
                .and_then(|f| f.collapsed_text)
                .unwrap_or(false),
            line_folding_only: folding.and_then(|f| f.line_folding_only).unwrap_or(false),
            hierarchical_symbols: td
                .and_then(|t| t.document_symbol.as_ref())
                .and_then(|s| s.hierarchical_document_symbol_support)
                .unwrap_or(false),
            watch_files_dynamically: c
                .workspace
                .as_ref()
                .and_then(|w| w.did_change_watched_files.as_ref())
                .and_then(|w| w.dynamic_registration)
                .unwrap_or(false),
            create_files: c
                .workspace
                .as_ref()
                .and_then(|w| w.workspace_edit.as_ref())
                .is_some_and(|e| {
                    e.document_changes == Some(true)
                        && e.resource_operations
                            .as_ref()
                            .is_some_and(|r| r.contains(&lsp_types::ResourceOperationKind::Create))
                }),
        }
    }
}

/// Semantic token types, in legend order (see `semantic.rs`).
pub const TOKEN_TYPES: &[SemanticTokenType] = &[
    SemanticTokenType::FUNCTION,    // command word
    SemanticTokenType::PARAMETER,   // flag
    SemanticTokenType::PROPERTY,    // selector key, context key
    SemanticTokenType::STRING,      // value
    SemanticTokenType::VARIABLE,    // ${NAME}, env key
    SemanticTokenType::MACRO,       // @ref
    SemanticTokenType::DECORATOR,   // annotation marker
    SemanticTokenType::COMMENT,     // comment
    SemanticTokenType::NUMBER,      // number
    SemanticTokenType::KEYWORD,     // context, env
    SemanticTokenType::OPERATOR,    // ||, =
    SemanticTokenType::ENUM_MEMBER, // enum words (directions, predicates, …)
];

pub const TOKEN_MODIFIERS: &[SemanticTokenModifier] = &[
    SemanticTokenModifier::DECLARATION,
    SemanticTokenModifier::DEFAULT_LIBRARY,
    SemanticTokenModifier::DEPRECATED,
];

pub fn server_capabilities(caps: &ClientCaps) -> ServerCapabilities {
    let encoding = match caps.encoding {
        Encoding::Utf8 => PositionEncodingKind::UTF8,
        Encoding::Utf16 => PositionEncodingKind::UTF16,
        Encoding::Utf32 => PositionEncodingKind::UTF32,
    };
    ServerCapabilities {
        position_encoding: Some(encoding),
        text_document_sync: Some(TextDocumentSyncCapability::Options(
            TextDocumentSyncOptions {
                open_close: Some(true),
                change: Some(TextDocumentSyncKind::INCREMENTAL),
                will_save: None,
                will_save_wait_until: None,
                save: Some(TextDocumentSyncSaveOptions::SaveOptions(SaveOptions {
                    include_text: Some(false),
                })),
            },
        )),
        completion_provider: Some(CompletionOptions {
            trigger_characters: Some(
                ["$", "{", "-", "=", "\"", " ", "|"]
                    .iter()
                    .map(|s| s.to_string())
                    .collect(),
            ),
            resolve_provider: Some(false),
            ..Default::default()
        }),
        hover_provider: Some(HoverProviderCapability::Simple(true)),
        signature_help_provider: Some(SignatureHelpOptions {
            trigger_characters: Some(vec![" ".into()]),
            retrigger_characters: None,
            work_done_progress_options: WorkDoneProgressOptions::default(),
        }),
        definition_provider: Some(OneOf::Left(true)),
        references_provider: Some(OneOf::Left(true)),
        document_highlight_provider: Some(OneOf::Left(true)),
        rename_provider: Some(OneOf::Right(RenameOptions {
            prepare_provider: Some(true),
            work_done_progress_options: WorkDoneProgressOptions::default(),
        })),
        document_symbol_provider: Some(OneOf::Left(true)),
        folding_range_provider: Some(FoldingRangeProviderCapability::Simple(true)),
        semantic_tokens_provider: Some(SemanticTokensServerCapabilities::SemanticTokensOptions(
            SemanticTokensOptions {
                work_done_progress_options: WorkDoneProgressOptions::default(),
                legend: SemanticTokensLegend {
                    token_types: TOKEN_TYPES.to_vec(),
                    token_modifiers: TOKEN_MODIFIERS.to_vec(),
                },
                range: Some(true),
                full: Some(SemanticTokensFullOptions::Bool(true)),
            },
        )),
        document_formatting_provider: Some(OneOf::Right(DocumentFormattingOptions {
            work_done_progress_options: WorkDoneProgressOptions::default(),
        })),
        document_range_formatting_provider: Some(OneOf::Right(DocumentRangeFormattingOptions {
            work_done_progress_options: WorkDoneProgressOptions::default(),
        })),
        code_action_provider: Some(CodeActionProviderCapability::Options(CodeActionOptions {
            code_action_kinds: Some(vec![
                CodeActionKind::QUICKFIX,
                CodeActionKind::SOURCE_FIX_ALL,
            ]),
            work_done_progress_options: WorkDoneProgressOptions::default(),
            resolve_provider: Some(false),
        })),
        ..Default::default()
    }
}
