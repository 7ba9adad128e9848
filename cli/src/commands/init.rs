//! `ad init [DIR]`: starts a project. Writes an `ad.toml` with every setting commented out at its
//! default and, when the folder has no scripts yet, an example flow and the app model it runs on
//! in the simulated device; then prints the next commands to run. It never overwrites a file:
//! each one is created only if nothing is at its path (`create_new`, so not even a race can).

use std::io::Write;
use std::path::{Path, PathBuf};

use ad_runtime::backends::BackendKind;
use clap::Args;

use crate::files;

#[derive(Args)]
pub struct InitArgs {
    /// The project folder (created when missing).
    #[arg(default_value = ".")]
    dir: PathBuf,
}

const AD_TOML: &str = include_str!("init/ad.toml");
const EXAMPLE_SCRIPT_PATH: &str = "flows/add-todo.ad";
const EXAMPLE_SCRIPT: &str = include_str!("init/add-todo.ad");
const EXAMPLE_MODEL_PATH: &str = "apps/todo.json";
const EXAMPLE_MODEL: &str = include_str!("init/todo.json");

/// The `ad.toml` written: the template with the backend names the runtime knows.
fn ad_toml() -> String {
    let names: Vec<&str> = BackendKind::ALL.iter().map(|k| k.name()).collect();
    AD_TOML.replace(
        "BACKENDS",
        &format!("the default of ad run / ad test: {}", names.join(" | ")),
    )
}

pub fn run(args: InitArgs) -> i32 {
    let dir = &args.dir;
    if dir.exists() && !dir.is_dir() {
        return crate::usage_error(&format!("{}: not a folder", dir.display()));
    }
    if let Err(e) = std::fs::create_dir_all(dir) {
        return crate::usage_error(&format!("{}: {e}", dir.display()));
    }
    let scripts = match files::collect(std::slice::from_ref(dir)) {
        Ok(scripts) => scripts,
        Err(e) => return crate::usage_error(&e.0),
    };
    let with_example = scripts.is_empty();
    let mut planned = vec![(
        "ad.toml",
        ad_toml(),
        "every setting with its default, commented out",
    )];
    if with_example {
        planned.push((
            EXAMPLE_SCRIPT_PATH,
            EXAMPLE_SCRIPT.to_string(),
            "an example flow",
        ));
        planned.push((
            EXAMPLE_MODEL_PATH,
            EXAMPLE_MODEL.to_string(),
            "the app it runs on in the simulated device (docs/sim-model.md)",
        ));
    }
    // A file where a folder of the plan goes (`flows`, `apps`): said before anything is written.
    for (path, _, what) in &planned {
        if let Some(file) = file_in_the_way(dir, path) {
            return crate::usage_error(&format!(
                "{} is a file, where ad init makes the folder of {what} ({}): rename or move it, or run ad init in another folder",
                file.display(),
                shown(dir, path)
            ));
        }
    }
    let width = planned
        .iter()
        .map(|(path, ..)| shown(dir, path).len())
        .max()
        .unwrap_or(0);
    for (path, text, what) in &planned {
        let name = shown(dir, path);
        match create_new(&dir.join(path), text.as_bytes()) {
            Ok(true) => println!("created {name:width$}  {what}"),
            Ok(false) => println!("kept    {name:width$}  already there, left as it is"),
            Err(e) => return crate::usage_error(&format!("{name}: {e}")),
        }
    }
    if !with_example {
        println!(
            "(no example script: the folder already has {} script{})",
            scripts.len(),
            if scripts.len() == 1 { "" } else { "s" }
        );
    }
    let folder = quoted(&dir.display().to_string());
    let second = if with_example {
        (
            format!("ad run {}", quoted(&shown(dir, EXAMPLE_SCRIPT_PATH))),
            "run the example on the simulated device",
        )
    } else {
        (
            format!("ad fmt --check {folder}"),
            "are the scripts in agent-device's canonical spelling? (`ad fmt` rewrites them)",
        )
    };
    let next = [
        (
            format!("ad check {folder}"),
            "report every problem in every script",
        ),
        second,
        (
            format!("ad test {folder}"),
            "run every script as a suite (`--report-junit junit.xml` in CI)",
        ),
    ];
    let width = next.iter().map(|(c, _)| c.len()).max().unwrap_or(0);
    println!("\nNext:");
    for (command, what) in next {
        println!("  {command:width$}  {what}");
    }
    0
}

/// Creates `path` with `bytes` unless something is already there (`Ok(false)`).
fn create_new(path: &Path, bytes: &[u8]) -> std::io::Result<bool> {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent)?;
    }
    match std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(path)
    {
        Ok(mut file) => {
            file.write_all(bytes)?;
            Ok(true)
        }
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(false),
        Err(e) => Err(e),
    }
}

/// The first folder on the way to `dir/relative` that exists as something else (a file).
fn file_in_the_way(dir: &Path, relative: &str) -> Option<PathBuf> {
    let parent = Path::new(relative).parent()?;
    let mut at = dir.to_path_buf();
    for c in parent.components() {
        at.push(c);
        if at.exists() && !at.is_dir() {
            return Some(at);
        }
    }
    None
}

/// A project file's path as the user reaches it from where `ad init` ran.
fn shown(dir: &Path, relative: &str) -> String {
    if dir == Path::new(".") {
        relative.to_string()
    } else {
        dir.join(relative).display().to_string()
    }
}

/// A path quoted for a POSIX shell when it holds anything but plain path characters.
fn quoted(path: &str) -> String {
    let plain = path
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || "._-/+,:@".contains(c));
    if plain && !path.is_empty() {
        path.to_string()
    } else {
        format!("'{}'", path.replace('\'', r"'\''"))
    }
}
