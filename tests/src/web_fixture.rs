//! The web backend's test support: the fixture web apps (`tests/web/*.html`, the example app
//! in `examples/web/app/`) served by a tiny in-process HTTP server on 127.0.0.1 only, which
//! also remembers every path it was asked for (so a test can prove a button was never
//! clicked), and the check that Chromium is installed.

use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// The message a web test fails with when there is no browser to drive.
pub const CHROMIUM_MISSING: &str = "the web backend tests need Chromium: install it with \
     `apt-get install chromium` as root (Debian/Ubuntu; `bash scripts/test-all.sh` does), or \
     point CHROME_PATH at a Chromium or Chrome binary";

/// Panics with [`CHROMIUM_MISSING`] unless a browser is installed (web tests never skip).
pub fn require_chromium() {
    let found = std::env::var_os("CHROME_PATH")
        .filter(|p| !p.is_empty())
        .map(PathBuf::from)
        .into_iter()
        .chain(
            [
                "/usr/bin/chromium",
                "/usr/bin/chromium-browser",
                "/usr/bin/google-chrome",
            ]
            .map(PathBuf::from),
        )
        .any(|p| p.is_file());
    assert!(found, "{CHROMIUM_MISSING}");
}

/// The fixture apps' folder (`tests/web/`).
pub fn fixture_dir() -> PathBuf {
    crate::repo_dir().join("tests/web")
}

/// A static file server on `127.0.0.1:<random port>` for as long as it lives.
pub struct FixtureServer {
    pub port: u16,
    requests: Arc<Mutex<Vec<String>>>,
}

impl FixtureServer {
    /// Serves the files of `root` (and nothing outside it).
    pub fn start(root: &Path) -> FixtureServer {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1:0");
        let port = listener.local_addr().expect("local address").port();
        let requests = Arc::new(Mutex::new(Vec::new()));
        let seen = requests.clone();
        let root = root.to_path_buf();
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(stream) = stream else { continue };
                let root = root.clone();
                let seen = seen.clone();
                std::thread::spawn(move || serve(stream, &root, &seen));
            }
        });
        FixtureServer { port, requests }
    }

    /// `http://127.0.0.1:<port>/<path>`.
    pub fn url(&self, path: &str) -> String {
        format!(
            "http://127.0.0.1:{}/{}",
            self.port,
            path.trim_start_matches('/')
        )
    }

    /// Every path requested so far, in order.
    pub fn requests(&self) -> Vec<String> {
        self.requests.lock().expect("requests lock").clone()
    }
}

fn serve(stream: TcpStream, root: &Path, seen: &Mutex<Vec<String>>) {
    let mut reader = BufReader::new(match stream.try_clone() {
        Ok(s) => s,
        Err(_) => return,
    });
    let mut line = String::new();
    if reader.read_line(&mut line).is_err() {
        return;
    }
    // Skip the headers.
    let mut header = String::new();
    while reader.read_line(&mut header).is_ok_and(|n| n > 2) {
        header.clear();
    }
    let path = line.split_whitespace().nth(1).unwrap_or("/").to_string();
    seen.lock().expect("requests lock").push(path.clone());
    let clean = path
        .split(['?', '#'])
        .next()
        .unwrap_or("/")
        .trim_start_matches('/');
    let clean = if clean.is_empty() {
        "index.html"
    } else {
        clean
    };
    let file = (!clean.split('/').any(|seg| seg == ".." || seg.is_empty()))
        .then(|| root.join(clean))
        .filter(|p| p.is_file());
    let (status, kind, body) = match file.and_then(|p| std::fs::read(&p).ok().map(|b| (p, b))) {
        Some((p, body)) => {
            let kind = match p.extension().and_then(|e| e.to_str()) {
                Some("html") => "text/html; charset=utf-8",
                Some("js") => "text/javascript",
                Some("css") => "text/css",
                Some("json") => "application/json",
                _ => "application/octet-stream",
            };
            ("200 OK", kind, body)
        }
        None => ("404 Not Found", "text/plain", b"not found".to_vec()),
    };
    // `no-store` keeps a page out of the browser's back/forward cache; the `bfcache-*` pages
    // are there to be restored from it.
    let store = if clean.starts_with("bfcache-") {
        ""
    } else {
        "Cache-Control: no-store\r\n"
    };
    let mut out = stream;
    let _ = write!(
        out,
        "HTTP/1.1 {status}\r\nContent-Type: {kind}\r\nContent-Length: {}\r\n{store}Connection: close\r\n\r\n",
        body.len()
    );
    let _ = out.write_all(&body);
    let _ = out.flush();
}

/// Processes whose command line names `<art>/tmp` (the browser profiles of the runs and
/// sessions whose artifacts or state live in `art`).
pub fn browsers_of(art: &Path) -> Vec<u32> {
    let needle = art.join("tmp").display().to_string();
    let mut out = Vec::new();
    for entry in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let Ok(cmdline) = std::fs::read(format!("/proc/{pid}/cmdline")) else {
            continue;
        };
        let zombie = std::fs::read_to_string(format!("/proc/{pid}/stat"))
            .ok()
            .and_then(|s| {
                s.rsplit_once(')')
                    .map(|(_, r)| r.trim_start().starts_with('Z'))
            })
            .unwrap_or(true);
        if !zombie && String::from_utf8_lossy(&cmdline).contains(&needle) {
            out.push(pid);
        }
    }
    out
}

/// No browser process of this test's runs or sessions is alive (the kernel may take a moment to deliver a
/// parent-death signal: bounded wait on the behaviour, no timing asserted).
pub fn assert_no_browser_left(art: &Path) {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    loop {
        let left = browsers_of(art);
        if left.is_empty() {
            return;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "browser processes outlived the run: {left:?}"
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
}
