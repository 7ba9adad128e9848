//! `ad lsp`: the language server over stdio (see `lsp/` and docs/editors.md).

use clap::Args;

#[derive(Args)]
pub struct LspArgs {
    /// Accepted for editors that always pass it; stdio is the only transport.
    #[arg(long)]
    stdio: bool,
    /// Accepted (and ignored) for clients that pass their process id.
    #[arg(long = "clientProcessId", value_name = "PID", hide = true)]
    client_process_id: Option<String>,
}

pub fn run(args: LspArgs) -> i32 {
    let _ = (args.stdio, args.client_process_id);
    ad_lsp::run_stdio()
}
