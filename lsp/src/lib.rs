//! `ad-lsp`: the language server for agent-device `.ad` scripts. The only crate that knows LSP.
//!
//! It adds no understanding of the language of its own: diagnostics are `ad check`'s
//! (`ad_compiler::analyze_with` with the `ad.toml` that applies), formatting is `ad fmt`'s
//! printer, completion and hover read the command registry, navigation reads the syntax tree.
//! Maestro flows routed to it (`maestro.rs`) get `ad check --maestro`'s diagnostics and hover
//! from the maestro crate's command table; other YAML is left alone.
//! This crate maps all of that to the protocol: positions, ranges, markdown, edits.
//!
//! ```text
//! stdin ─▶ transport (tolerant framing) ─▶ main loop (state, notifications, diagnostics)
//!                                              └─▶ workers: requests on snapshots, panics caught
//! ```

mod actions;
pub mod caps;
mod completion;
mod compose;
mod cursor;
mod diagnostics;
mod docs;
pub mod document;
mod formatting;
mod hover;
pub mod lines;
mod maestro;
mod navigation;
mod request;
pub mod runs;
mod semantic;
pub mod server;
mod signature;
mod symbols;
mod text_map;
pub mod transport;
mod vars;

pub use server::run;

/// Serves the protocol on stdin/stdout until `exit`; returns the process exit code.
pub fn run_stdio() -> i32 {
    let (connection, io) = transport::stdio();
    let code = run(connection);
    // Everything answered so far reaches the client before the process ends.
    io.finish(std::time::Duration::from_secs(2));
    code
}
