//! `ad-lsp`: the language server. The only crate that knows LSP.
