//! Which pages the browser may show (docs/web.md). What a page shows is copied into the run's
//! observations, its journal and its HTML report, so a run never shows this machine's files
//! (`file:`) or the browser's own pages (`view-source:`, `chrome:`, `about:version`, …:
//! [`ad_compiler::paths::url_kind`]), unless the file lies inside the script's folder (a local web
//! app, its own pages) or the user passed `--allow-local-urls`.
//!
//! Two doors: the script's `open` is checked before the browser is asked ([`UrlPolicy::check`]),
//! and every `file:` request the page itself makes (a link, a redirect, a frame, an image) is
//! paused by the DevTools `Fetch` domain and only let through when the policy allows it
//! ([`Live::answer_paused`]). Chromium already refuses a web page's own navigations to `file:`
//! and to its internal pages, so `file:` requests (made by local pages) are the ones left.

use std::path::{Component, Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use ad_compiler::paths::{url_kind, UrlKind};

use super::cdp::Cdp;
use super::Live;

/// The hint of every refusal.
pub const ALLOW_HINT: &str = "serve the page over http (a local server on 127.0.0.1 works, also with --offline), keep a local web app inside the script's folder, or pass --allow-local-urls when the run may read this page (docs/web.md)";

/// Which URLs a run may show.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct UrlPolicy {
    /// `--allow-local-urls`: every URL.
    #[serde(default)]
    pub allow_local: bool,
    /// The folder whose files may be shown: the script's own (absolute). None: no file.
    #[serde(default)]
    pub local_root: Option<PathBuf>,
}

impl UrlPolicy {
    /// The policy for a run of `script` (its folder holds the files it may show), keeping the
    /// user's `--allow-local-urls` and a folder already chosen.
    pub fn for_script(&self, script: &Path) -> UrlPolicy {
        let folder = std::path::absolute(script)
            .ok()
            .and_then(|s| s.parent().map(Path::to_path_buf));
        UrlPolicy {
            allow_local: self.allow_local,
            local_root: self.local_root.clone().or(folder),
        }
    }

    /// `Ok` when the browser may show `url`; else why not.
    pub fn check(&self, url: &str) -> Result<(), String> {
        if self.allow_local {
            return Ok(());
        }
        match url_kind(url) {
            UrlKind::Web => Ok(()),
            UrlKind::BrowserInternal => Err(format!(
                "{url} is a page of the browser itself, which a run does not show"
            )),
            UrlKind::LocalFile => {
                let inside = match (&self.local_root, file_path(url)) {
                    (Some(root), Some(path)) => is_inside(root, &path),
                    _ => false,
                };
                if inside {
                    Ok(())
                } else {
                    Err(match &self.local_root {
                        Some(root) => format!(
                            "{url} is a file of this machine outside the script's folder {}",
                            root.display()
                        ),
                        None => format!("{url} is a file of this machine"),
                    })
                }
            }
        }
    }
}

/// The path a `file:` URL names on this machine (`None`: another host, or not a file URL).
fn file_path(url: &str) -> Option<PathBuf> {
    let url = url.trim_start_matches(|c: char| c <= ' ');
    let rest = url.get("file:".len()..)?;
    let rest = rest.split(['?', '#']).next().unwrap_or("");
    let path = match rest.strip_prefix("//") {
        Some(authority_and_path) => {
            let (host, path) = match authority_and_path.find('/') {
                Some(i) => authority_and_path.split_at(i),
                None => (authority_and_path, "/"),
            };
            if !host.is_empty() && !host.eq_ignore_ascii_case("localhost") {
                return None;
            }
            path
        }
        None => rest,
    };
    use std::os::unix::ffi::OsStringExt;
    let bytes = percent_decode(path.replace('\\', "/").as_bytes());
    Some(PathBuf::from(std::ffi::OsString::from_vec(bytes)))
}

fn percent_decode(s: &[u8]) -> Vec<u8> {
    let hex = |c: u8| (c as char).to_digit(16).map(|d| d as u8);
    let mut out = Vec::with_capacity(s.len());
    let mut i = 0;
    while i < s.len() {
        if s[i] == b'%' && i + 2 < s.len() {
            if let (Some(a), Some(b)) = (hex(s[i + 1]), hex(s[i + 2])) {
                out.push(a * 16 + b);
                i += 3;
                continue;
            }
        }
        out.push(s[i]);
        i += 1;
    }
    out
}

/// Is `path` inside `root`, links followed (as the browser reads the file)? A path that does
/// not exist is judged by its text, `..` applied.
fn is_inside(root: &Path, path: &Path) -> bool {
    let real = |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| lexical(p));
    real(path).starts_with(real(root))
}

/// `path` with `.` and `..` applied to its text.
fn lexical(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            c => out.push(c),
        }
    }
    out
}

/// Asks the page to pause its `file:` requests for [`Live::answer_paused`] (nothing to pause
/// when every URL is allowed).
pub(super) async fn intercept(
    cdp: &Cdp,
    session: &str,
    policy: &UrlPolicy,
) -> Result<(), super::cdp::CallError> {
    if policy.allow_local {
        return Ok(());
    }
    cdp.call_raw(
        Some(session),
        "Fetch.enable",
        json!({ "patterns": [{ "urlPattern": "file:*" }] }),
        super::cdp::CALL_TIMEOUT,
    )
    .await
    .map(|_| ())
}

impl Live {
    /// A `file:` request the page paused on (`Fetch.requestPaused`): let through when the policy
    /// allows its URL, else failed as the browser fails a blocked request. The answer is sent
    /// without waiting for it: the page waits for it, not this step.
    pub(super) fn answer_paused(&mut self, params: &Value) {
        let Some(id) = params.get("requestId").and_then(Value::as_str) else {
            return;
        };
        let url = params
            .pointer("/request/url")
            .and_then(Value::as_str)
            .unwrap_or("");
        let (method, params) = match self.urls.check(url) {
            Ok(()) => ("Fetch.continueRequest", json!({ "requestId": id })),
            Err(_) => (
                "Fetch.failRequest",
                json!({ "requestId": id, "errorReason": "BlockedByClient" }),
            ),
        };
        drop(self.cdp.send_raw(Some(&self.session), method, params));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_files_inside_the_scripts_folder_and_web_pages_are_shown() {
        let root = std::env::temp_dir().join(format!("ad-urls-{}", std::process::id()));
        std::fs::create_dir_all(root.join("app")).unwrap();
        std::fs::write(root.join("app/index.html"), "<p>app</p>").unwrap();
        let _ = std::fs::remove_file(root.join("app/passwd"));
        std::os::unix::fs::symlink("/etc/passwd", root.join("app/passwd")).unwrap();
        let policy = UrlPolicy::default().for_script(&root.join("flow.ad"));
        let url = |p: &str| format!("file://{}", root.join(p).display());
        for ok in [
            url("app/index.html"),
            url("app/index.html?x=1#top"),
            url("app/missing.html"),
            format!("file://localhost{}", root.join("app/index.html").display()),
            url("app/%69ndex.html"),
            "https://example.com/".into(),
            "about:blank".into(),
            "data:text/html,<p>hi</p>".into(),
        ] {
            assert_eq!(policy.check(&ok), Ok(()), "{ok}");
        }
        for refused in [
            "file:///etc/passwd".to_string(),
            "file:/etc/passwd".into(),
            "FILE:///etc/passwd".into(),
            url("app/passwd"),
            url("app/../../etc/passwd"),
            url("app/%2e%2e/%2e%2e/etc/passwd"),
            format!("file://otherhost{}", root.join("app/index.html").display()),
            "view-source:https://example.com/".into(),
            "chrome://version".into(),
            "chrome-extension://abc/popup.html".into(),
            "devtools://devtools/bundled/inspector.html".into(),
            "about:version".into(),
        ] {
            assert!(policy.check(&refused).is_err(), "{refused}");
        }
        // No folder: no file at all; the flag: everything.
        assert!(UrlPolicy::default().check(&url("app/index.html")).is_err());
        let open = UrlPolicy {
            allow_local: true,
            local_root: None,
        };
        assert_eq!(open.check("file:///etc/passwd"), Ok(()));
        assert_eq!(open.check("chrome://version"), Ok(()));
        let _ = std::fs::remove_dir_all(&root);
    }
}
