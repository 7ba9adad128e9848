//! Turning path arguments into script sources: files, folders (recursive `*.ad`) and `-`.

use std::io::Read;
use std::path::{Path, PathBuf};

pub struct Source {
    /// What to call the file in output (`-` → `<stdin>`).
    pub name: String,
    pub path: Option<PathBuf>,
    pub text: String,
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

/// Reads one input. Invalid UTF-8 is decoded lossily, as Node's `readFileSync(…, "utf8")` does.
pub fn read(path: &Path) -> Result<Source, InputError> {
    if path.as_os_str() == "-" {
        let mut bytes = Vec::new();
        std::io::stdin()
            .read_to_end(&mut bytes)
            .map_err(|e| InputError(format!("<stdin>: {e}")))?;
        return Ok(Source {
            name: "<stdin>".into(),
            path: None,
            text: String::from_utf8_lossy(&bytes).into_owned(),
        });
    }
    let bytes = std::fs::read(path).map_err(|e| InputError(format!("{}: {e}", path.display())))?;
    Ok(Source {
        name: path.display().to_string(),
        path: Some(path.to_path_buf()),
        text: String::from_utf8_lossy(&bytes).into_owned(),
    })
}
