//! The handoff message on the Linux desktop (issue 31, item 8): a close-less run on the GTK app
//! said `on screen "?"` (agent-device names no screen); it now names the window the last capture
//! showed, its title, and never a `?`.

mod agent_device_support;

use agent_device_support::Desktop;

#[test]
fn a_desktop_handoff_names_the_window_not_an_unknown_screen() {
    let mut d = Desktop::start("handoff-message");
    // The session daemon the run hands its session to exits soon after the session is closed.
    d.set_env("AD_SESSION_IDLE_MS", "1500");
    d.script(
        "handoff.ad",
        "context platform=linux\nopen ad-gtk-login\nwait \"label=Password\"\n",
    );
    let run = d.ad(&[
        "run",
        "handoff.ad",
        "--backend",
        "agent-device",
        "--session",
        "gtk-message",
    ]);
    let stdout = String::from_utf8_lossy(&run.stdout);
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(run.status.success(), "{stdout}{stderr}");
    let line = stdout
        .lines()
        .find(|l| l.starts_with("session \"gtk-message\" is still active: "))
        .unwrap_or_else(|| panic!("no handoff line: {stdout}{stderr}"));
    assert_eq!(
        line,
        "session \"gtk-message\" is still active: ad-gtk-login in window \"AD Login\"; continue it with `ad session --session gtk-message …`"
    );
    let close = d.ad(&["session", "--session", "gtk-message", "close"]);
    assert!(
        close.status.success(),
        "{}",
        String::from_utf8_lossy(&close.stderr)
    );
}
