//! `ad`: the toolchain for agent-device `.ad` replay scripts.

use clap::{Parser, Subcommand};

mod commands {
    pub mod parse;
}
mod files;

/// The toolchain for agent-device `.ad` scripts: check them before you commit, format them,
/// inspect what agent-device will read, and run them on a simulated device.
#[derive(Parser)]
#[command(name = "ad", version, propagate_version = true)]
#[command(after_help = "Examples:\n  ad check examples/            report every problem in every script\n  ad parse --digest flow.ad     what agent-device 0.21.5 reads, and the plan digest")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Print how a script parses: agent-device's view (default) or ad's syntax tree.
    Parse(commands::parse::ParseArgs),
}

/// Prints a usage or I/O problem and returns exit code 2.
pub fn usage_error(message: &str) -> i32 {
    eprintln!("error: {message}");
    2
}

fn main() {
    let cli = Cli::parse();
    let code = match cli.command {
        Command::Parse(args) => commands::parse::run(args),
    };
    std::process::exit(code);
}
