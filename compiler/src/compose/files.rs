//! Where fragments come from: the file system for the CLI and the language server, memory for
//! tests and unsaved editor buffers. Paths resolve relative to the including file and never
//! leave the project root. The disk is read as scripts are ([`crate::input_file`]): regular
//! files only, through the size cap, decoded as agent-device decodes a script.

use std::collections::BTreeMap;
use std::path::{Component, Path, PathBuf};

use ad_grammar::input::Decoded;

use crate::input_file::{self, Accept, ReadError};

pub trait Files {
    /// The text of `path` (at most `limit` bytes; invalid UTF-8 replaced and reported, as in a
    /// script), or why it was not read.
    fn read(&self, path: &Path, limit: u64) -> Result<Decoded, ReadError>;
    /// `path` with every symbolic link followed, when it names an existing file or folder (the
    /// root check is on where an include really leads, not only on what is written).
    fn real_path(&self, _path: &Path) -> Option<PathBuf> {
        None
    }
}

/// The file system.
pub struct FsFiles;

impl Files for FsFiles {
    fn read(&self, path: &Path, limit: u64) -> Result<Decoded, ReadError> {
        input_file::read(path, limit, Accept::RegularFile).map(ad_grammar::input::decode)
    }
    fn real_path(&self, path: &Path) -> Option<PathBuf> {
        std::fs::canonicalize(path).ok()
    }
}

/// Files held in memory, looked up by path (an editor's open buffers over the file system, or a
/// test's files).
#[derive(Default)]
pub struct MemoryFiles {
    pub files: BTreeMap<PathBuf, String>,
    /// Asked when a path is not in `files`.
    pub fallback: Option<Box<dyn Files + Send + Sync>>,
}

impl MemoryFiles {
    pub fn new<P: Into<PathBuf>, S: Into<String>>(files: impl IntoIterator<Item = (P, S)>) -> Self {
        MemoryFiles {
            files: files
                .into_iter()
                .map(|(p, s)| (normalize(&p.into()), s.into()))
                .collect(),
            fallback: None,
        }
    }
}

impl Files for MemoryFiles {
    fn read(&self, path: &Path, limit: u64) -> Result<Decoded, ReadError> {
        match self.files.get(&normalize(path)) {
            Some(t) if t.len() as u64 > limit => Err(ReadError::TooLarge {
                size: Some(t.len() as u64),
                limit,
            }),
            Some(t) => Ok(Decoded {
                text: t.clone(),
                not_utf8: None,
            }),
            None => match &self.fallback {
                Some(f) => f.read(path, limit),
                None => Err(ReadError::Io(std::io::ErrorKind::NotFound.into())),
            },
        }
    }
    fn real_path(&self, path: &Path) -> Option<PathBuf> {
        // An open buffer of a linked file is still that link on disk.
        self.fallback.as_ref().and_then(|f| f.real_path(path))
    }
}

/// `.` and `..` removed lexically (no symlinks followed: [`Files::real_path`] does that).
pub fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                if !out.pop() {
                    out.push("..");
                }
            }
            other => out.push(other.as_os_str()),
        }
    }
    out
}

/// `written` (an include path) from the folder `base`, if it stays inside `root`.
pub fn resolve(root: &Path, base: &Path, written: &str) -> Option<PathBuf> {
    let p = Path::new(written);
    if p.is_absolute() || written.is_empty() {
        return None;
    }
    let resolved = normalize(&base.join(p));
    resolved.starts_with(normalize(root)).then_some(resolved)
}

/// `path` made absolute against the current folder, `.` and `..` resolved without following
/// links (how a composition names its files).
pub fn absolute(path: &Path) -> PathBuf {
    let abs = if path.is_absolute() {
        path.to_path_buf()
    } else {
        std::env::current_dir()
            .map(|d| d.join(path))
            .unwrap_or_else(|_| path.to_path_buf())
    };
    normalize(&abs)
}

/// The project root of `script`: the folder of the nearest `ad.toml` above it, else of the
/// nearest `.git`, else the script's own folder.
pub fn project_root(script: &Path) -> PathBuf {
    let abs = absolute(script);
    let start = abs.parent().unwrap_or(Path::new("/")).to_path_buf();
    for marker in ["ad.toml", ".git"] {
        let mut dir = Some(start.as_path());
        while let Some(d) = dir {
            if d.join(marker).exists() {
                return d.to_path_buf();
            }
            dir = d.parent();
        }
    }
    start
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_stay_inside_the_root() {
        let root = Path::new("/p");
        assert_eq!(
            resolve(root, Path::new("/p/flows"), "../fragments/a.ad"),
            Some(PathBuf::from("/p/fragments/a.ad"))
        );
        assert_eq!(
            resolve(root, Path::new("/p/flows"), "../../etc/passwd"),
            None
        );
        assert_eq!(resolve(root, Path::new("/p"), "/etc/passwd"), None);
        assert_eq!(resolve(root, Path::new("/p"), ""), None);
    }
}
