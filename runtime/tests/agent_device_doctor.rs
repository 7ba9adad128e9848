//! The `ad doctor` row for the agent-device bridge, against agent-device 0.21.5 from
//! oracle/node_modules: with no daemon running it starts one for the check, lists what it sees
//! and stops it again. Needs node and `(cd oracle && npm ci)`; fails saying so otherwise.

use std::path::Path;

use ad_runtime::backends::agent_device::doctor;

#[test]
fn the_doctor_row_reports_version_daemon_and_platforms() {
    let package = Path::new(env!("CARGO_MANIFEST_DIR")).join("../oracle/node_modules/agent-device");
    assert!(
        package.join("dist/src/internal/daemon.js").is_file(),
        "agent-device 0.21.5 is missing: run (cd oracle && npm ci) (scripts/test-all.sh does)"
    );
    // This test binary holds one test, so the process environment is its own.
    std::env::set_var("AD_AGENT_DEVICE", &package);
    std::env::remove_var("AGENT_DEVICE_DAEMON_BASE_URL");
    let state =
        Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("doctor-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&state);
    let row = doctor::check(&state);
    assert!(row.ok, "{row:?}");
    assert_eq!(row.version.as_deref(), Some("0.21.5"));
    assert!(row.daemon.contains("started for this check"), "{row:?}");
    // The Linux desktop is always listed on Linux hosts.
    assert!(row.platforms.iter().any(|p| p == "linux"), "{row:?}");
    assert!(row.summary().starts_with("agent-device 0.21.5; daemon: "));
    // Nothing is left running: the daemon's state dir is gone.
    let leftovers = std::fs::read_dir(std::env::temp_dir())
        .unwrap()
        .flatten()
        .filter(|e| {
            e.file_name()
                .to_string_lossy()
                .starts_with(&format!("ad-agent-device-{}-", std::process::id()))
        })
        .count();
    assert_eq!(leftovers, 0);
}
