//! The message a close-less run prints when it hands its live session over (issue 31, item 8):
//! it names only what the backend knows. A backend without screen names (the web here,
//! agent-device's desktop too) used to be said to be `on screen "?"`; now the sentence names the
//! app (the page) and, where the last capture showed a titled window, that window (the runtime's
//! `interp::tests` cover the window), and never a `?`.

mod common;

use ad_tests::web_fixture::{require_chromium, FixtureServer};
use common::{isolated_ad, output_text};

#[test]
fn a_web_handoff_names_the_page_and_no_unknown_screen() {
    require_chromium();
    let dir = common::session_scratch("handoff-message-web");
    let server = FixtureServer::start(&ad_tests::repo_dir().join("tests/web"));
    let url = server.url("titled.html");
    std::fs::write(
        dir.join("handoff.ad"),
        format!("context platform=web\nopen \"{url}\"\nwait \"id=\\\"apply\\\"\"\n"),
    )
    .unwrap();
    let o = isolated_ad(&dir)
        .args([
            "run",
            "handoff.ad",
            "--offline",
            "--session",
            "web-handoff",
            "--artifacts-dir",
            "runs",
        ])
        .output()
        .unwrap();
    let text = output_text(&o);
    assert_eq!(o.status.code(), Some(0), "{text}");
    let stdout = String::from_utf8_lossy(&o.stdout);
    let line = stdout
        .lines()
        .find(|l| l.starts_with("session \"web-handoff\" is still active: "))
        .unwrap_or_else(|| panic!("no handoff line: {text}"));
    assert_eq!(
        line,
        format!(
            "session \"web-handoff\" is still active: {url}; continue it with `ad session --session web-handoff …`"
        )
    );
    assert!(!text.contains("\"?\""), "{text}");
    // The session is live in the daemon; end it.
    let o = isolated_ad(&dir)
        .args(["session", "--session", "web-handoff", "close"])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", output_text(&o));
}
