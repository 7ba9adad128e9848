//! Maestro flows beyond the sim (issue 33): the example web flow in headless Chromium (needs
//! Chromium: fails, never skips, saying to install it), and `runScript`'s `http.post`, refused
//! unless the run passes `--allow-http`, and then only to this machine.

mod common;

use std::io::{Read, Write};
use std::path::Path;

use common::{exit_code, isolated_ad, repo_root, stderr};

#[test]
fn the_example_web_flow_signs_in_in_chromium() {
    ad_tests::web_fixture::require_chromium();
    let dir = common::scratch_dir("maestro-web");
    let tmp = dir.join("tmp");
    std::fs::create_dir_all(&tmp).unwrap();
    let app = format!(
        "APP=file://{}",
        repo_root().join("examples/web/app/index.html").display()
    );
    let out = isolated_ad(&dir)
        .env("TMPDIR", &tmp)
        .args(["run", "--maestro"])
        .arg(repo_root().join("examples/maestro/web-login.yaml"))
        .args(["--backend", "web", "--allow-local-urls", "-e", &app])
        .args(["--artifacts-dir", "runs"])
        .output()
        .unwrap();
    assert_eq!(exit_code(&out), 0, "{}", stderr(&out));
    assert!(stderr(&out).contains("7 step(s) run"), "{}", stderr(&out));
    ad_tests::web_fixture::assert_no_browser_left(&dir);
}

/// A one-request HTTP server on 127.0.0.1 that answers `{"token":"t-1"}` and hands back what it
/// was sent.
fn serve_once() -> (u16, std::thread::JoinHandle<String>) {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let handle = std::thread::spawn(move || {
        let (mut s, _) = listener.accept().unwrap();
        s.set_read_timeout(Some(std::time::Duration::from_secs(10)))
            .unwrap();
        let mut got = Vec::new();
        let mut buf = [0u8; 4096];
        // Headers, then the body its Content-Length announces.
        loop {
            let n = s.read(&mut buf).unwrap_or(0);
            got.extend_from_slice(&buf[..n]);
            let text = String::from_utf8_lossy(&got).to_string();
            if let Some(end) = text.find("\r\n\r\n") {
                let len = text
                    .lines()
                    .find_map(|l| l.strip_prefix("Content-Length: "))
                    .and_then(|v| v.trim().parse::<usize>().ok())
                    .unwrap_or(0);
                if got.len() >= end + 4 + len || n == 0 {
                    break;
                }
            }
            if n == 0 {
                break;
            }
        }
        let body = "{\"token\":\"t-1\"}";
        let _ = write!(
            s,
            "HTTP/1.0 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
            body.len()
        );
        String::from_utf8_lossy(&got).to_string()
    });
    (port, handle)
}

fn flow_with_script(dir: &Path, port: u16) {
    std::fs::write(
        dir.join("login.js"),
        format!(
            "var r = http.post('http://127.0.0.1:{port}/token', {{ body: 'user=demo' }});\noutput.token = json(r.body).token;\n"
        ),
    )
    .unwrap();
    std::fs::write(
        dir.join("token.yaml"),
        "appId: com.example.shop\n---\n- launchApp\n- runScript: login.js\n- assertTrue: ${output.token}\n",
    )
    .unwrap();
}

#[test]
fn http_post_reaches_this_machine_only_with_allow_http() {
    let dir = common::scratch_dir("maestro-http");
    let (port, server) = serve_once();
    flow_with_script(&dir, port);
    let app = repo_root().join("examples/apps/shop.json");
    let out = isolated_ad(&dir)
        .args(["run", "--maestro", "token.yaml", "--allow-http", "--app"])
        .arg(&app)
        .output()
        .unwrap();
    assert_eq!(exit_code(&out), 0, "{}", stderr(&out));
    let request = server.join().unwrap();
    assert!(request.starts_with("POST /token HTTP/1.0"), "{request}");
    assert!(request.ends_with("user=demo"), "{request}");

    // Without the flag the script's request is refused, and the step fails there.
    let (port, _server) = serve_once();
    flow_with_script(&dir, port);
    let out = isolated_ad(&dir)
        .args(["run", "--maestro", "token.yaml", "--app"])
        .arg(&app)
        .output()
        .unwrap();
    assert_eq!(exit_code(&out), 1, "{}", stderr(&out));
    assert!(stderr(&out).contains("token.yaml:4:3"), "{}", stderr(&out));
    // Unblock the server thread.
    let _ = std::net::TcpStream::connect(("127.0.0.1", port));
}

#[test]
fn http_post_to_another_host_is_refused_even_with_allow_http() {
    let dir = common::scratch_dir("maestro-http-remote");
    std::fs::write(
        dir.join("login.js"),
        "var r = http.post('http://example.com/token', { body: 'x' });\noutput.token = 'never';\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("remote.yaml"),
        "appId: com.example.shop\n---\n- launchApp\n- runScript: login.js\n",
    )
    .unwrap();
    let out = isolated_ad(&dir)
        .args(["run", "--maestro", "remote.yaml", "--allow-http", "--app"])
        .arg(repo_root().join("examples/apps/shop.json"))
        .output()
        .unwrap();
    assert_eq!(exit_code(&out), 1, "{}", stderr(&out));
    assert!(stderr(&out).contains("remote.yaml:4:3"), "{}", stderr(&out));
}
