//! `ad-dap`: the debug adapter for agent-device `.ad` scripts. The only crate that knows the
//! Debug Adapter Protocol, as `ad-lsp` is the only one that knows LSP.
//!
//! ```text
//! client ─▶ transport (Content-Length frames) ─▶ server (main loop: requests, state)
//!                                                   │ ▲ stopped / output / finished
//!                                                   ▼ │ continue / step / evaluate / end
//!                              run thread: interp::run with the debugger hook (run.rs)
//! ```
//!
//! The adapter adds no meaning of its own: the launch goes through the caller's [`Host`]
//! (the `ad` command: the same static gate as `ad run`, its refusals rendered as `ad run`
//! renders them), the run is the runtime's interpreter, and what a stop shows comes from the
//! runtime's paused run (variables redacted, the last capture, the journal so far).

pub mod breakpoints;
pub mod condition;
pub mod inspect;
pub mod protocol;
pub mod run;
pub mod server;
pub mod transport;

use std::path::PathBuf;

use ad_runtime::backends::BackendKind;
use ad_runtime::core::interp::RunOptions;
use ad_runtime::session::SessionConfig;

pub use protocol::LaunchArguments;
pub use server::{serve, serve_tcp};

/// A launch the static gate let through: what the run thread runs.
pub struct Prepared {
    /// The script as launched (breakpoints in it are matched against this path).
    pub script: PathBuf,
    /// The script's name in messages.
    pub name: String,
    /// The checked plan (a composition's expansion).
    pub analysis: ad_compiler::Analysis,
    pub options: RunOptions,
    pub config: SessionConfig,
    pub kind: BackendKind,
    /// Said before the run starts (a `--force`-like warning, a composition note).
    pub warnings: Vec<String>,
}

/// A launch the static gate refused: nothing runs.
#[derive(Debug, Clone, PartialEq)]
pub struct Refused {
    /// One line: what is wrong and what to do.
    pub summary: String,
    /// The diagnostics, rendered as `ad run` renders them (no colour).
    pub rendered: String,
}

/// What the adapter asks of the program that embeds it (the `ad` command).
pub trait Host: Send + Sync {
    /// Reads and gates the script of a launch, as `ad run` does before its first step.
    fn prepare(&self, launch: &LaunchArguments) -> Result<Prepared, Refused>;

    /// Runs one command (its words, as a shell passes them to `ad session`) on the live
    /// session `session` held by the session daemon (`attach`): the daemon's answer as
    /// `ad session … --json` prints it. `Err`: the daemon cannot be reached.
    fn session_command(
        &self,
        session: &str,
        words: Vec<String>,
        cwd: &std::path::Path,
    ) -> Result<serde_json::Value, String> {
        let _ = (session, words, cwd);
        Err("attaching to a live session is not supported by this host".into())
    }
}

/// What the main loop waits for: the client's next frame, or news from the run.
#[derive(Debug)]
pub enum Input {
    Frame(transport::Frame),
    /// The client closed the stream.
    Closed,
    Run(run::RunEvent),
}
