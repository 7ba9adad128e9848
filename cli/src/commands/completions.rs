//! `ad completions SHELL`: a completion script generated from the clap definitions, so every
//! command and flag completes as `ad --help` lists it. `completions/` holds them checked in
//! (`cli/tests/generated.rs` keeps them current).

use clap::Args;
use clap_complete::Shell;

#[derive(Args)]
pub struct CompletionsArgs {
    /// The shell to complete in.
    #[arg(value_enum)]
    shell: Shell,
}

pub fn run(args: CompletionsArgs, mut command: clap::Command) -> i32 {
    clap_complete::generate(args.shell, &mut command, "ad", &mut std::io::stdout());
    0
}
