//! `ad import` on the public flows (`tests/data/maestro-public`, other projects' flows with their
//! licenses; issue 33): every flow either becomes a script that `ad check` passes and agent-device
//! 0.21.5's reader accepts (oracle/parse.mjs), or is refused with exit 1, nothing written and each
//! refusal at its `file:line:col`. Flows with `runFlow` files are imported with `--flatten`.

mod common;

use common::{ad, exit_code, stderr, stdout};

#[test]
fn public_flows_import_to_scripts_agent_device_reads_or_are_refused_by_line() {
    let flows = ad_tests::maestro::flows_under(&ad_tests::maestro::public_dir());
    assert!(
        flows.len() >= 7,
        "the public flows are missing ({})",
        ad_tests::maestro::public_dir().display()
    );
    let dir = common::scratch_dir("import-public");
    let (mut imported, mut refused) = (Vec::new(), Vec::new());
    for (i, flow) in flows.iter().enumerate() {
        let target = dir.join(format!("flow-{i}.ad"));
        let out = ad(&dir)
            .arg("import")
            .arg(flow)
            .arg("--flatten")
            .arg("-o")
            .arg(&target)
            .output()
            .unwrap();
        let name = flow.display();
        match exit_code(&out) {
            0 => {
                let check = ad(&dir).arg("check").arg(&target).output().unwrap();
                assert_eq!(
                    exit_code(&check),
                    0,
                    "{name}: the imported script fails ad check: {}{}",
                    stdout(&check),
                    stderr(&check)
                );
                imported.push(target);
            }
            1 => {
                assert!(
                    !target.exists(),
                    "{name}: a refused import wrote {}",
                    target.display()
                );
                // Each refusal names the flow's line and column (`path:L:C:`), or the flow is
                // one `ad check --maestro` refuses, with its diagnostics.
                let err = stderr(&out);
                let at = format!("{}:", flow.display());
                let located = err.split(at.as_str()).skip(1).any(|rest| {
                    let mut place = rest.splitn(3, ':');
                    place.next().is_some_and(|l| l.parse::<u32>().is_ok())
                        && place.next().is_some_and(|c| c.parse::<u32>().is_ok())
                }) || err.contains("─[ ");
                assert!(located, "{name}: a refusal without its place:\n{err}");
                refused.push(flow);
            }
            code => panic!("{name}: ad import exited {code:?}: {}", stderr(&out)),
        }
    }
    // Both outcomes occur on these flows: a test that only ever refuses proves nothing.
    assert!(!imported.is_empty(), "no public flow imported");
    assert!(!refused.is_empty(), "no public flow refused");
    for (script, verdict) in imported.iter().zip(ad_tests::run_oracle(&imported, 1)) {
        assert_eq!(
            verdict["ok"],
            true,
            "agent-device's reader refuses {}: {verdict}",
            script.display()
        );
    }
    eprintln!(
        "public flows: {} imported (agent-device reads each), {} refused",
        imported.len(),
        refused.len()
    );
}
