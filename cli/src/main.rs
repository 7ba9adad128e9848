//! `ad`: the toolchain for agent-device `.ad` replay scripts.

use std::sync::LazyLock;

use clap::{CommandFactory, Parser, Subcommand};

#[global_allocator]
static GLOBAL: ad_alloc::Mimalloc = ad_alloc::Mimalloc;

mod commands {
    pub mod agent_device;
    pub mod backend_args;
    pub mod build;
    pub mod check;
    pub mod commands_list;
    pub mod completions;
    pub mod compose;
    pub mod dap;
    pub mod doctor;
    pub mod explain;
    pub mod export;
    pub mod fmt;
    pub mod golden;
    pub mod heal;
    pub mod import;
    pub mod init;
    pub mod lsp;
    pub mod maestro_run;
    pub mod man;
    pub mod parse;
    pub mod run;
    pub mod session;
    pub mod test;
    pub mod watch;
}
mod files;
mod render;

/// `ad --version`: this build's version and the agent-device release it is compatible with.
static VERSION: LazyLock<String> = LazyLock::new(|| {
    format!(
        "{} (compatible with agent-device {})",
        env!("CARGO_PKG_VERSION"),
        ad_runtime::AGENT_DEVICE_VERSION
    )
});

/// The toolchain for agent-device `.ad` scripts: check them before you commit, format them,
/// inspect what agent-device will read, and run them on a simulated device.
#[derive(Parser)]
#[command(name = "ad", version = VERSION.as_str(), propagate_version = true)]
#[command(
    after_help = "Examples:\n  ad check examples/              report every problem in every script\n  ad check --format sarif flows/  the same, for code-scanning upload\n  ad check --watch flows/         re-check each script as you save it (Ctrl-C stops)\n  ad fmt --check flows/           CI: fail when a script is not canonically formatted\n  ad explain AD703                what a diagnostic means and how to fix it\n  ad parse --digest flow.ad       what agent-device 0.21.5 reads, and the plan digest\n\nSettings: ad.toml beside the scripts (see `ad check --help`). Exit codes: 0 ok, 1 problems found, 2 usage or I/O error."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Report every problem in scripts: parity errors agent-device would reject, and mistakes it
    /// would only find on a device. Exit 0 when clean, 1 on errors, 2 on usage or I/O problems.
    Check(commands::check::CheckArgs),
    /// Rewrite scripts in agent-device's own canonical spelling, keeping every comment, every
    /// line and exactly what each step does. `--check` for CI, `--diff` to review.
    Fmt(commands::fmt::FmtArgs),
    /// List the commands scripts can use, with their arguments.
    Commands(commands::commands_list::CommandsArgs),
    /// Explain a diagnostic code (what it means, an example and the fix), or list all codes.
    Explain(commands::explain::ExplainArgs),
    /// Print how a script parses: agent-device's view (default) or ad's syntax tree.
    Parse(commands::parse::ParseArgs),
    /// Run the language server on stdin/stdout (diagnostics, completion, hover, formatting, …)
    /// for editors: see docs/editors.md.
    Lsp(commands::lsp::LspArgs),
    /// Run the debug adapter (Debug Adapter Protocol) on stdin/stdout, or on 127.0.0.1 with
    /// --port, for editors: breakpoints on steps, stepping, the screen and variables at each
    /// stop, script commands in the debug console. See docs/debugging.md.
    Dap(commands::dap::DapArgs),
    /// Run a script on a device backend (the embedded simulated device by default; headless
    /// Chromium, a real device through agent-device, or a recorded fixture with `--backend`): live
    /// progress, a divergence report when a step fails, a crash-safe run journal. Exit 0 passed, 1
    /// failed, 2 usage/static errors.
    Run(commands::run::RunArgs),
    /// Propose a repair of a script the app changed under, proven before you review it: at each
    /// divergence, the report's suggestions are tried as the step's selector (its evidence
    /// captured again) until a fresh run of the whole changed script passes. Prints the diff;
    /// `--write` commits <basename>.healed.ad. Exit 0 healed or passed, 1 a step needs a human.
    Heal(commands::heal::HealArgs),
    /// Run a suite of scripts: static check first, platform filter, shards, retries (flaky
    /// passes reported), parallel jobs, JUnit/JSON reports. Exit 0 all passed, 1 any failed.
    Test(commands::test::TestArgs),
    /// Each device backend, whether it is usable here, and what is missing otherwise
    /// (`--json` for tools).
    Doctor(commands::doctor::DoctorArgs),
    /// Live sessions held by a local daemon: run script commands one at a time, author a
    /// journey (`open --save-script`, actions, a landmark `wait`) and publish it with
    /// `save-script`; `list`, `close`, `replay FILE`. `--session NAME`, `--json`.
    Session(commands::session::SessionArgs),
    /// Flatten a composition (`composition-v1` with `include`d fragments) into one plain script
    /// agent-device 0.21.5 runs: `ad build flow.ad -o dist/flow.ad`.
    Build(commands::build::BuildArgs),
    /// Write a script as a Maestro flow, byte for byte what agent-device 0.21.5's `replay export`
    /// writes: `ad export --maestro flow.ad -o flow.yaml`.
    ///
    /// Each step becomes the Maestro commands agent-device maps it to (open → launchApp or
    /// openLink, click/press → tapOn, doubleTapOn or longPressOn, longpress, fill → tapOn +
    /// inputText, type, wait, find text … exists|missing, screenshot, scroll down, coordinate
    /// swipe, back, home, keyboard dismiss/enter); the first app opened is the flow's `appId`,
    /// header `env` lines its `env`. What maps only approximately is exported with agent-device's
    /// warning on stderr (`Warning: line N: …`), e.g. a `label=` selector, which Maestro matches
    /// as broader text. A step Maestro cannot express (a `@ref`, `snapshot`, `wait absent`, a
    /// `role=` selector, …) refuses the whole export: every such line is listed, nothing is
    /// written.
    Export(commands::export::ExportArgs),
    /// Turn a Maestro flow agent-device 0.21.5 accepts into a `.ad` script with the same
    /// behaviour: `ad import e2e/login.yaml -o flows/login.ad`.
    ///
    /// Each command becomes the `.ad` step agent-device's engine makes it mean (launchApp →
    /// open --relaunch, tapOn → click, assertVisible → wait … visible 17000, …); a selector
    /// becomes a selector chain only where it means the same thing. A `runFlow` file becomes a
    /// fragment beside OUT.ad, included by it (its entry guard derived from what the flows
    /// assert and recorded on the simulated device), or is inlined with `--flatten`. Everything
    /// `.ad` cannot express (an index or relation, `optional`, a regular expression,
    /// conditions, loops, scripts, a fragment without an entry guard) refuses the import: every
    /// such line is listed with why, nothing is written.
    Import(commands::import::ImportArgs),
    /// Start a project: ad.toml, an example script and app model, and the next commands to run.
    ///
    /// Writes an ad.toml with every setting at its default, commented out, and, when the folder
    /// has no scripts yet, an example flow (flows/add-todo.ad) and the app model it runs on in the
    /// simulated device (apps/todo.json). Never overwrites a file: one already there is kept.
    Init(commands::init::InitArgs),
    /// Print a shell completion script (bash, zsh, fish, PowerShell, Elvish).
    ///
    /// bash: `ad completions bash > ~/.local/share/bash-completion/completions/ad`; zsh: `ad
    /// completions zsh > ~/.zfunc/_ad` (with ~/.zfunc on fpath); fish: `ad completions fish >
    /// ~/.config/fish/completions/ad.fish`; PowerShell: `ad completions powershell >> $PROFILE`.
    Completions(commands::completions::CompletionsArgs),
    /// Write the man pages (one per command) into a folder; docs/man/ holds them checked in.
    #[command(hide = true)]
    Man(commands::man::ManArgs),
}

/// Prints a usage or I/O problem and returns exit code 2.
pub fn usage_error(message: &str) -> i32 {
    // Often names a path or quotes a script: escaped like every rendering.
    eprintln!("error: {}", render::escape_controls(message));
    2
}

/// Writes a file atomically: a temp file in the same folder, then a rename; keeps the mode.
/// A symlink is written through: the temp file goes beside the file it points to and replaces
/// that file, so the link stays a link (renaming over the link itself would turn it into a
/// regular file and leave its target untouched).
pub fn atomic_write(path: &std::path::Path, bytes: &[u8]) -> std::io::Result<()> {
    use std::io::Write;
    let is_link = std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink());
    let target = if is_link {
        std::fs::canonicalize(path)?
    } else {
        path.to_path_buf()
    };
    let dir = target
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(std::path::Path::new("."));
    let name = target
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tmp = dir.join(format!(".{name}.ad-tmp-{}", std::process::id()));
    let result = (|| {
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
        if let Ok(meta) = std::fs::metadata(&target) {
            std::fs::set_permissions(&tmp, meta.permissions())?;
        }
        std::fs::rename(&tmp, &target)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

fn main() {
    ad_alloc::use_small_pages();
    // Rust ignores SIGPIPE, which turns `ad commands | head` into a panic on the next write.
    #[cfg(unix)]
    // SAFETY: called once at startup before any thread exists; SIG_DFL is a valid disposition.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    let cli = Cli::parse();
    let code = match cli.command {
        Command::Check(args) => commands::check::run(args),
        Command::Fmt(args) => commands::fmt::run(args),
        Command::Commands(args) => commands::commands_list::run(args),
        Command::Explain(args) => commands::explain::run(args),
        Command::Parse(args) => commands::parse::run(args),
        Command::Lsp(args) => commands::lsp::run(args),
        Command::Dap(args) => commands::dap::run(args),
        Command::Run(args) => commands::run::run(args),
        Command::Heal(args) => commands::heal::run(args),
        Command::Test(args) => commands::test::run(args),
        Command::Doctor(args) => commands::doctor::run(args),
        Command::Session(args) => commands::session::run(args),
        Command::Build(args) => commands::build::run(args),
        Command::Export(args) => commands::export::run(args),
        Command::Import(args) => commands::import::run(args),
        Command::Init(args) => commands::init::run(args),
        Command::Completions(args) => commands::completions::run(args, Cli::command()),
        Command::Man(args) => commands::man::run(args, Cli::command()),
    };
    std::process::exit(code);
}
