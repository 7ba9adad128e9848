//! Paths a script names for files a command writes (screenshots, recordings, traces). `ad run`
//! resolves them inside the run's artifacts folder; one that escapes it is refused there and
//! reported by `ad check` (AD735). And the URLs an `open` names that show this machine's files
//! or the browser's own pages ([`url_kind`]): the web backend refuses them (docs/web.md) and
//! `ad check` warns of them (AD736).

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

/// What a URL shows, as the web backend's URL policy reads it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UrlKind {
    /// A file of this machine (`file:`).
    LocalFile,
    /// A page of the browser itself: `view-source:`, `chrome:` and the other `chrome-*:`
    /// schemes (`chrome-extension:`, `chrome-untrusted:`, …), `devtools:`, `edge:`, and `about:`
    /// but `about:blank` (Chromium maps `about:version` to `chrome://version`).
    BrowserInternal,
    /// Everything else: what the web serves (`http:`, `https:`) or what the script writes itself
    /// (`data:`, which Chromium gives an opaque origin that cannot read local files).
    Web,
}

/// The scheme of `url`, lowercased, as a browser reads it (leading blanks and controls
/// skipped); `None` when it has none.
pub fn url_scheme(url: &str) -> Option<String> {
    let url = url.trim_start_matches(|c: char| c <= ' ');
    let (scheme, _) = url.split_once(':')?;
    let mut chars = scheme.chars();
    (chars.next()?.is_ascii_alphabetic()
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.')))
    .then(|| scheme.to_ascii_lowercase())
}

/// What `url` shows (see [`UrlKind`]).
pub fn url_kind(url: &str) -> UrlKind {
    let Some(scheme) = url_scheme(url) else {
        return UrlKind::Web;
    };
    match scheme.as_str() {
        "file" => UrlKind::LocalFile,
        "about" => {
            let rest = url.trim_start_matches(|c: char| c <= ' ')["about:".len()..]
                .split(['?', '#'])
                .next()
                .unwrap_or("");
            if rest.eq_ignore_ascii_case("blank") {
                UrlKind::Web
            } else {
                UrlKind::BrowserInternal
            }
        }
        "view-source" | "devtools" | "edge" => UrlKind::BrowserInternal,
        s if s == "chrome" || s.starts_with("chrome-") => UrlKind::BrowserInternal,
        _ => UrlKind::Web,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn url_kinds() {
        for u in [
            "file:///etc/passwd",
            "FILE:/etc/passwd",
            " file://localhost/x",
        ] {
            assert_eq!(url_kind(u), UrlKind::LocalFile, "{u}");
        }
        for u in [
            "view-source:http://127.0.0.1/",
            "chrome://version",
            "Chrome://settings",
            "chrome-extension://abc/x.html",
            "chrome-untrusted://terminal/",
            "devtools://devtools/bundled/inspector.html",
            "about:version",
            "about:settings",
            "edge://settings",
        ] {
            assert_eq!(url_kind(u), UrlKind::BrowserInternal, "{u}");
        }
        for u in [
            "https://example.com/",
            "http://127.0.0.1:8080/file:///x",
            "about:blank",
            "ABOUT:BLANK#x",
            "data:text/html,<p>hi</p>",
            "com.example.shop",
            "${URL}",
            "",
        ] {
            assert_eq!(url_kind(u), UrlKind::Web, "{u}");
        }
    }

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
