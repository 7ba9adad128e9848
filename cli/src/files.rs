//! Turning path arguments into script sources: files, folders (recursive `*.ad`) and `-`.
//!
//! Reading is capped: at most `--max-file-size` bytes (else `[input] max-file-size` from the
//! `ad.toml` that applies, else agent-device's own 2 MiB) are read from any input, through the
//! cap, so `/dev/zero` or a runaway pipe cannot exhaust memory (`ad_compiler::input_file`, the
//! reader fragments and fixtures go through too). Folder walks take regular files
//! only: a FIFO named `*.ad` would block the walk forever.

use std::path::{Path, PathBuf};

use ad_compiler::check_file;
use ad_compiler::input_file::{self, Accept, ReadError};

use ad_grammar::input::AGENT_DEVICE_MAX_BYTES;
use ad_grammar::Diagnostic;
use clap::Args;

/// The input options of every command that reads scripts.
#[derive(Args, Clone, Debug, Default)]
pub struct InputArgs {
    /// Read at most this many bytes from one script; a larger file is refused with AD006
    /// (default: agent-device's own limit, 2097152; or `[input] max-file-size` in ad.toml;
    /// at most 4294967295).
    #[arg(long, value_name = "BYTES", value_parser = clap::value_parser!(u64).range(1..=ad_grammar::Span::MAX_SOURCE as u64))]
    pub max_file_size: Option<u64>,
}

impl InputArgs {
    /// The cap for `script`: the flag, else the `ad.toml` that applies to it, else 2 MiB.
    pub fn limit_for(&self, script: &Path) -> Result<u64, InputError> {
        if let Some(n) = self.max_file_size {
            return Ok(n);
        }
        let config = check_file::discover_config(script).map_err(|e| InputError::new(e.0))?;
        Ok(self.limit(&config))
    }
    /// The cap for a script whose `ad.toml` the caller looked up once (`project`): the flag,
    /// else the configuration's; a broken `ad.toml` stops the read only without the flag.
    pub fn limit_in(
        &self,
        project: &Result<ad_compiler::config::Config, ad_compiler::config::ConfigError>,
    ) -> Result<u64, InputError> {
        match (self.max_file_size, project) {
            (Some(n), _) => Ok(n),
            (None, Ok(config)) => Ok(self.limit(config)),
            (None, Err(e)) => Err(InputError::new(e.0.clone())),
        }
    }
    /// The cap given the configuration that applies.
    pub fn limit(&self, config: &ad_compiler::config::Config) -> u64 {
        self.max_file_size
            .or(config.max_file_size)
            .unwrap_or(AGENT_DEVICE_MAX_BYTES)
    }
}

pub struct Source {
    /// What to call the file in output (`-` → `<stdin>`).
    pub name: String,
    pub path: Option<PathBuf>,
    /// The text agent-device reads (invalid UTF-8 replaced, see `ad_grammar::input`).
    pub text: String,
    /// Set when the file is not UTF-8: `text` is then not the file's content, so it must never
    /// be written back.
    pub not_utf8: Option<NotUtf8>,
    /// AD006 when the limit was raised and the script is over agent-device's 2 MiB.
    pub over_agent_device_limit: Option<Diagnostic>,
}

pub use ad_compiler::check_file::NotUtf8;

impl Source {
    fn decode(name: String, path: Option<PathBuf>, bytes: Vec<u8>) -> Source {
        let decoded = check_file::decode(&name, bytes);
        Source {
            name,
            path,
            text: decoded.text,
            not_utf8: decoded.not_utf8,
            over_agent_device_limit: decoded.over_agent_device_limit,
        }
    }

    /// The text and what its reading found, for the one check of a file
    /// ([`check_file::check_decoded`]).
    pub fn into_decoded(self) -> check_file::Decoded {
        check_file::Decoded {
            text: self.text,
            not_utf8: self.not_utf8,
            over_agent_device_limit: self.over_agent_device_limit,
        }
    }
}

/// A problem reading the inputs. With a diagnostic (AD006, a file over the limit), commands that
/// report diagnostics report it with the file's name and go on; the others stop (exit code 2).
pub struct InputError(pub String, pub Option<Box<Refused>>);

/// A file that was not read: its name as shown and the AD006 diagnostic.
pub struct Refused {
    pub name: String,
    pub diagnostic: Diagnostic,
}

impl InputError {
    fn new(message: String) -> InputError {
        InputError(message, None)
    }
}

/// Expands paths: a folder yields its `*.ad` files (case-insensitive, sorted), `-` reads stdin.
/// Entries of a folder that are not regular files (FIFOs, sockets, devices) are skipped, with
/// one line on stderr each; a path named explicitly is taken as it is.
pub fn collect(paths: &[PathBuf]) -> Result<Vec<PathBuf>, InputError> {
    collect_ext(paths, &["ad"])
}

/// [`collect`] with folders searched for files of these extensions (`--maestro`: yaml, yml).
pub fn collect_ext(paths: &[PathBuf], extensions: &[&str]) -> Result<Vec<PathBuf>, InputError> {
    let mut out = Vec::new();
    for p in paths {
        if p.as_os_str() == "-" {
            out.push(p.clone());
        } else if p.is_dir() {
            let before = out.len();
            walk(p, extensions, &mut out)
                .map_err(|e| InputError::new(format!("{}: {e}", p.display())))?;
            out[before..].sort();
        } else if p.exists() {
            out.push(p.clone());
        } else {
            return Err(InputError::new(format!(
                "{}: no such file or directory",
                p.display()
            )));
        }
    }
    Ok(out)
}

/// Folders a search for scripts does not enter: build output, dependencies, hidden folders.
pub fn skipped_folder(name: &std::ffi::OsStr) -> bool {
    name == "target" || name == "node_modules" || name.to_string_lossy().starts_with('.')
}

fn walk(dir: &Path, extensions: &[&str], out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    let mut entries: Vec<_> = std::fs::read_dir(dir)?.collect::<Result<_, _>>()?;
    entries.sort_by_key(|e| e.path());
    for entry in entries {
        let path = entry.path();
        let ty = entry.file_type()?;
        if ty.is_dir() {
            if skipped_folder(&entry.file_name()) {
                continue;
            }
            walk(&path, extensions, out)?;
        } else if path
            .extension()
            .is_some_and(|e| extensions.iter().any(|x| e.eq_ignore_ascii_case(x)))
        {
            // A symlink counts as what it points to; a dangling one is left for the read to
            // report.
            let target = if ty.is_symlink() {
                std::fs::metadata(&path).map(|m| m.file_type()).ok()
            } else {
                Some(ty)
            };
            match target {
                Some(t) if !t.is_file() && !t.is_dir() => {
                    eprintln!("skipped {}: {}", path.display(), input_file::kind_of(t));
                }
                Some(t) if t.is_dir() => {}
                _ => out.push(path),
            }
        }
    }
    Ok(())
}

/// Reads one input through the cap that applies to it (see [`InputArgs::limit_for`]).
pub fn read(path: &Path, input: &InputArgs) -> Result<Source, InputError> {
    read_with_limit(path, input.limit_for(path)?)
}

/// Reads one input, at most `limit` bytes. Invalid UTF-8 is decoded as Node's
/// `readFileSync(…, "utf8")` does, and reported (AD005); a larger input is not read (AD006).
pub fn read_with_limit(path: &Path, limit: u64) -> Result<Source, InputError> {
    let refuse = |name: String, size: Option<u64>| {
        let diagnostic = ad_grammar::input::refused_too_large(&name, size, limit);
        InputError(
            format!("{name}: {} ({})", diagnostic.message, diagnostic.code),
            Some(Box::new(Refused { name, diagnostic })),
        )
    };
    let not_read = |name: String, e: ReadError| match e {
        ReadError::TooLarge { size, .. } => refuse(name, size),
        e if e.is_not_found() => match std::fs::read_link(path) {
            // A link whose target is gone (found by a folder walk): say where it leads.
            Ok(target) => InputError::new(format!(
                "{name}: a symbolic link to {}, which does not exist",
                target.display()
            )),
            Err(_) => InputError::new(format!("{name}: {e}")),
        },
        e => InputError::new(format!("{name}: {e}")),
    };
    if path.as_os_str() == "-" {
        let bytes = input_file::read_stream(std::io::stdin().lock(), limit, 0)
            .map_err(|e| not_read("<stdin>".into(), e))?;
        return Ok(Source::decode("<stdin>".into(), None, bytes));
    }
    let name = path.display().to_string();
    // A script named on the command line may be a pipe (`ad check <(…)`); the cap still holds.
    match input_file::read(path, limit, Accept::Named) {
        Ok(bytes) => Ok(Source::decode(name, Some(path.to_path_buf()), bytes)),
        Err(e) => Err(not_read(name, e)),
    }
}

/// Writes a converted file (`ad export`, `ad import`) to `-o OUT`, or to stdout without it or
/// with `-o -`. OUT's missing folders are made and the absolute path written is printed (as
/// agent-device's `replay export --out` does); OUT may never be the `source` it was made from.
/// Returns the exit code (2 for a refusal or an I/O error).
pub fn write_output(out: Option<&Path>, source: &Path, text: &str, made_from: &str) -> i32 {
    let Some(out) = out.filter(|p| p.as_os_str() != "-") else {
        print!("{text}");
        return 0;
    };
    let same = match (std::fs::canonicalize(out), std::fs::canonicalize(source)) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    };
    if same {
        return crate::usage_error(&format!(
            "{}: that is the {made_from}; choose another output file",
            out.display()
        ));
    }
    if let Some(dir) = out.parent().filter(|d| !d.as_os_str().is_empty()) {
        if let Err(e) = std::fs::create_dir_all(dir) {
            return crate::usage_error(&format!("{}: {e}", dir.display()));
        }
    }
    if let Err(e) = crate::atomic_write(out, text.as_bytes()) {
        return crate::usage_error(&format!("{}: {e}", out.display()));
    }
    let shown = std::path::absolute(out).unwrap_or_else(|_| out.to_path_buf());
    println!("{}", shown.display());
    0
}
