//! Turning path arguments into script sources: files, folders (recursive `*.ad`) and `-`.

use std::io::Read;
use std::path::{Path, PathBuf};

pub struct Source {
    /// What to call the file in output (`-` → `<stdin>`).
    pub name: String,
    pub path: Option<PathBuf>,
    /// The text agent-device reads (invalid UTF-8 replaced, see `ad_grammar::input`).
    pub text: String,
    /// Set when the file is not UTF-8: `text` is then not the file's content, so it must never
    /// be written back.
    pub not_utf8: Option<NotUtf8>,
}

/// A file that is not UTF-8: the AD005 diagnostic and the bytes as read.
pub struct NotUtf8 {
    pub diagnostic: ad_grammar::Diagnostic,
    pub bytes: Vec<u8>,
}

impl Source {
    fn decode(name: String, path: Option<PathBuf>, bytes: Vec<u8>) -> Source {
        // Only a file that is not UTF-8 needs its bytes kept (to echo them untouched).
        let kept = std::str::from_utf8(&bytes).is_err().then(|| bytes.clone());
        let decoded = ad_grammar::input::decode(bytes);
        Source {
            name,
            path,
            text: decoded.text,
            not_utf8: decoded
                .not_utf8
                .zip(kept)
                .map(|(diagnostic, bytes)| NotUtf8 { diagnostic, bytes }),
        }
    }
}

/// A problem reading the inputs (exit code 2).
pub struct InputError(pub String);

/// Expands paths: a folder yields its `*.ad` files (case-insensitive, sorted), `-` reads stdin.
pub fn collect(paths: &[PathBuf]) -> Result<Vec<PathBuf>, InputError> {
    let mut out = Vec::new();
    for p in paths {
        if p.as_os_str() == "-" {
            out.push(p.clone());
        } else if p.is_dir() {
            let before = out.len();
            walk(p, &mut out).map_err(|e| InputError(format!("{}: {e}", p.display())))?;
            out[before..].sort();
        } else if p.exists() {
            out.push(p.clone());
        } else {
            return Err(InputError(format!(
                "{}: no such file or directory",
                p.display()
            )));
        }
    }
    Ok(out)
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    let mut entries: Vec<_> = std::fs::read_dir(dir)?.collect::<Result<_, _>>()?;
    entries.sort_by_key(|e| e.path());
    for entry in entries {
        let path = entry.path();
        let ty = entry.file_type()?;
        if ty.is_dir() {
            let name = entry.file_name();
            if name == "target" || name == "node_modules" || name.to_string_lossy().starts_with('.')
            {
                continue;
            }
            walk(&path, out)?;
        } else if path
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("ad"))
        {
            out.push(path);
        }
    }
    Ok(())
}

/// Reads one input. Invalid UTF-8 is decoded as Node's `readFileSync(…, "utf8")` does, and
/// reported (AD005).
pub fn read(path: &Path) -> Result<Source, InputError> {
    if path.as_os_str() == "-" {
        let mut bytes = Vec::new();
        std::io::stdin()
            .read_to_end(&mut bytes)
            .map_err(|e| InputError(format!("<stdin>: {e}")))?;
        return Ok(Source::decode("<stdin>".into(), None, bytes));
    }
    let bytes = std::fs::read(path).map_err(|e| InputError(format!("{}: {e}", path.display())))?;
    Ok(Source::decode(
        path.display().to_string(),
        Some(path.to_path_buf()),
        bytes,
    ))
}
