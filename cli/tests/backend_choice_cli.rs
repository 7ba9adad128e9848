//! A script's header chooses its backend (issue 31): `context platform=linux` (or android, macos,
//! ios) with no app model for the app it opens goes to agent-device, as `context platform=web`
//! goes to the web backend, in `ad run` and `ad test` alike; where this machine cannot drive the
//! platform it is a set-up error (exit 2) naming the `--backend` to pass; an explicit `--backend`
//! always wins. No device is needed: agent-device is pointed at a folder without it, so the
//! chosen backend says so as its set-up error.

mod common;

use std::path::{Path, PathBuf};
use std::process::Output;

fn scratch(name: &str) -> PathBuf {
    common::session_scratch(&format!("backend-choice-{name}"))
}

/// `ad args…` in `dir`, its agent-device missing (an empty package folder) and its daemons'
/// state kept in `dir`.
fn ad(dir: &Path, args: &[&str]) -> Output {
    let nowhere = dir.join("no-agent-device");
    std::fs::create_dir_all(&nowhere).unwrap();
    common::isolated_ad(dir)
        .args(args)
        .arg("--artifacts-dir")
        .arg(dir.join("runs"))
        .env("AD_AGENT_DEVICE", &nowhere)
        .env("AGENT_DEVICE_STATE_DIR", dir.join("agent-device-state"))
        .env_remove("AGENT_DEVICE_DAEMON_BASE_URL")
        .output()
        .unwrap()
}

const LINUX: &str = "context platform=linux\nopen ad-gtk-login\nclose\n";

#[test]
fn a_linux_header_chooses_agent_device_in_run_and_test() {
    let dir = scratch("linux");
    std::fs::write(dir.join("rec.ad"), LINUX).unwrap();
    let o = ad(&dir, &["run", "rec.ad"]);
    let out = common::output_text(&o);
    assert_eq!(o.status.code(), Some(2), "{out}");
    assert!(
        out.contains("error[BACKEND_UNAVAILABLE]: the agent-device backend cannot start"),
        "the header chose agent-device:\n{out}"
    );
    assert!(!out.contains("no app model"), "{out}");
    // `ad test` chooses as `ad run` does.
    let o = ad(&dir, &["test", "rec.ad"]);
    let out = common::output_text(&o);
    assert_ne!(o.status.code(), Some(0), "{out}");
    assert!(out.contains("agent-device"), "{out}");
    assert!(!out.contains("no app model"), "{out}");
}

#[test]
fn an_explicit_backend_sim_wins_over_the_header() {
    let dir = scratch("sim-wins");
    std::fs::write(dir.join("rec.ad"), LINUX).unwrap();
    let o = ad(&dir, &["run", "rec.ad", "--backend", "sim"]);
    let out = common::output_text(&o);
    assert_eq!(o.status.code(), Some(2), "{out}");
    assert!(
        out.contains("the sim backend cannot start: no app model for \"ad-gtk-login\""),
        "{out}"
    );
    assert!(
        !out.contains("the agent-device backend cannot start"),
        "{out}"
    );
}

#[test]
fn a_header_with_an_app_model_stays_on_the_sim() {
    let dir = scratch("model");
    std::fs::create_dir_all(dir.join("apps")).unwrap();
    std::fs::copy(
        common::repo_root().join("examples/apps/shop.json"),
        dir.join("apps/shop.json"),
    )
    .unwrap();
    std::fs::write(
        dir.join("shop.ad"),
        "context platform=android\nopen \"com.example.shop\"\nclose\n",
    )
    .unwrap();
    let o = ad(&dir, &["run", "shop.ad"]);
    assert_eq!(o.status.code(), Some(0), "{}", common::output_text(&o));
}

#[cfg(target_os = "linux")]
#[test]
fn an_ios_header_without_a_model_or_xcode_names_the_backend_to_pass() {
    let dir = scratch("ios");
    std::fs::write(
        dir.join("ios.ad"),
        "context platform=ios\nopen com.example.nowhere\nclose\n",
    )
    .unwrap();
    for sub in ["run", "test"] {
        let o = ad(&dir, &[sub, "ios.ad"]);
        let out = common::output_text(&o);
        assert_eq!(o.status.code(), Some(2), "{sub}: {out}");
        assert!(out.contains("context platform=ios"), "{sub}: {out}");
        assert!(out.contains("pass --backend agent-device"), "{sub}: {out}");
        assert!(out.contains("no app model for"), "{sub}: {out}");
    }
}
