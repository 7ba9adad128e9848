//! `ad man --out DIR` (hidden): one roff man page per command (`ad.1`, `ad-check.1`,
//! `ad-session-open.1`, …) generated from the clap definitions. docs/man/ holds them checked in
//! (`cli/tests/generated.rs` keeps them current); packagers copy that folder.

use std::path::PathBuf;

use clap::Args;

#[derive(Args)]
pub struct ManArgs {
    /// The folder the pages are written to (created when missing).
    #[arg(long, value_name = "DIR")]
    out: PathBuf,
}

pub fn run(args: ManArgs, command: clap::Command) -> i32 {
    let written = std::fs::create_dir_all(&args.out)
        .and_then(|()| clap_mangen::generate_to(command, &args.out));
    match written {
        Ok(()) => 0,
        Err(e) => crate::usage_error(&format!("{}: {e}", args.out.display())),
    }
}
