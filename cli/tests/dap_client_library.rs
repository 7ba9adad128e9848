//! `ad dap` driven by a DAP client library (issue 35): Microsoft's `@vscode/debugadapter-testsupport`
//! `DebugClient`, the client VS Code's own debug adapters are tested with, runs
//! editors/vscode/test/dap.test.mjs against the built `ad`: launch, a breakpoint hit, scopes and
//! variables (the injected password as `<var:PASSWORD>`), next, the divergence stop, continue,
//! exited 1 and terminated; and the VS Code extension registers `ad dap` and its debug lens.
//!
//! Needs node and `npm ci` in editors/vscode/test (scripts/test-all.sh does both); a missing one
//! fails the test with what to run.

use std::path::Path;
use std::process::Command;

/// The divergent login (examples/divergent): line 10's click refuses the impostor "Sign in".
const DIVERGENT: &str = "\
# Diverges on purpose at the click (identity mismatch).
context platform=ios target=mobile
env USER=alice

# a comment line
open \"com.example.shop\" --relaunch
fill \"id=\\\"login.email\\\"\" \"demo@example.com\"
fill \"id=\\\"login.password\\\"\" \"${PASSWORD}\"
# agent-device:target-v1 {\"id\":\"login.signin\",\"role\":\"button\",\"label\":\"Sign in\",\"ancestry\":[{\"role\":\"form\",\"label\":\"Sign in\"}],\"sibling\":2,\"viewportOrder\":2,\"verification\":\"verified\"}
click \"label=\\\"Sign in\\\"\"
wait \"id=\\\"home.title\\\"\" 3000
close
";

#[test]
fn a_dap_client_library_debugs_a_script_on_the_sim() {
    let test_dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../editors/vscode/test");
    assert!(
        test_dir
            .join("node_modules/@vscode/debugadapter-testsupport")
            .is_dir(),
        "the DAP client library is not installed: run `npm ci` in editors/vscode/test (scripts/test-all.sh does)"
    );
    let dir = ad_tests::scratch_dir("ad-dap-client-library");
    ad_tests::copy_example_models(&dir);
    std::fs::write(dir.join("login.ad"), DIVERGENT).unwrap();
    let out = Command::new("node")
        .arg("dap.test.mjs")
        .arg(env!("CARGO_BIN_EXE_ad"))
        .arg(&dir)
        .current_dir(&test_dir)
        .output()
        .expect("node is needed for the DAP client library test (apt-get install nodejs)");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "{text}");
    assert!(text.contains("divergence stop, exit 1"), "{text}");
}

/// The VS Code extension's debugging side, loaded with a stand-in `vscode` module
/// (editors/vscode/test/extension.test.mjs): the `ad` debug adapter is `ad dap`, every `.ad`
/// script gets a "Debug this script" code lens, and its command launches that script.
#[test]
fn the_vscode_extension_registers_ad_dap_and_a_debug_lens() {
    let test_dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../editors/vscode/test");
    let out = Command::new("node")
        .arg("extension.test.mjs")
        .current_dir(&test_dir)
        .output()
        .expect("node is needed for the VS Code extension test (apt-get install nodejs)");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "{text}");
    assert!(text.contains("Debug this script lens and launch"), "{text}");
}
