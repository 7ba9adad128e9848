//! Paths a script names for files a command writes (screenshots, recordings, traces). `ad run`
//! resolves them inside the run's artifacts folder; one that escapes it is refused there and
//! reported by `ad check` (AD735).

use std::path::{Path, PathBuf};

/// Does `path` leave the folder it is resolved in: absolute (`/x`, `\x`, `C:\x`), or a `..` that
/// climbs above the start (`../x`, `a/../../x`)?
pub fn escapes_folder(path: &str) -> bool {
    let b = path.as_bytes();
    if b.first().is_some_and(|c| *c == b'/' || *c == b'\\')
        || (b.len() >= 2 && b[1] == b':' && b[0].is_ascii_alphabetic())
    {
        return true;
    }
    let mut depth: i64 = 0;
    for part in path.split(['/', '\\']) {
        match part {
            "" | "." => {}
            ".." => {
                depth -= 1;
                if depth < 0 {
                    return true;
                }
            }
            _ => depth += 1,
        }
    }
    false
}

/// `path` inside `folder`, or `None` when it escapes it.
pub fn inside(folder: &Path, path: &str) -> Option<PathBuf> {
    (!escapes_folder(path) && !path.trim().is_empty()).then(|| folder.join(path))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes() {
        for p in [
            "/etc/passwd",
            "../victim.txt",
            "a/../../b",
            "\\\\server\\x",
            "C:\\x",
            "..",
            "./../x",
        ] {
            assert!(escapes_folder(p), "{p}");
        }
        for p in [
            "shot.png",
            "shots/a.png",
            "a/../b.png",
            "./x.png",
            "~/x.png",
            "..x/y",
            "a..b",
        ] {
            assert!(!escapes_folder(p), "{p}");
        }
        assert_eq!(
            inside(Path::new("/run"), "a/b.png"),
            Some(PathBuf::from("/run/a/b.png"))
        );
        assert_eq!(inside(Path::new("/run"), "../x"), None);
    }
}
