//! A repair-armed run's divergence says the session is held (`resume.repairSessionHeld: true`)
//! in every record of it, as agent-device marks the report it returns: the `--json` result, the
//! run folder's `run.json` and the journal's divergence event (docs/repair.md). A run that is not
//! repair-armed says nothing of it.

mod common;

use std::path::Path;
use std::process::Output;

use common::{isolated_ad, output_text, session_scratch};
use serde_json::Value;

fn ad(dir: &Path, args: &[&str]) -> Output {
    isolated_ad(dir)
        .env("AD_SESSION_REAP_MS", "60000")
        .args(args)
        .output()
        .expect("ad runs")
}

/// The `--json` result's divergence resume, and those of the run folder's run.json and of the
/// journal's divergence event.
fn resumes(dir: &Path, o: &Output) -> [Value; 3] {
    assert_eq!(o.status.code(), Some(1), "{}", output_text(o));
    let r: Value = serde_json::from_slice(&o.stdout)
        .unwrap_or_else(|e| panic!("no JSON ({e}): {}", output_text(o)));
    // The run folder, relative to the folder the run was started in.
    let dir = dir.join(r["runDir"].as_str().unwrap_or_else(|| panic!("{r:#}")));
    let run: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("run.json")).unwrap()).unwrap();
    let events = std::fs::read_to_string(dir.join("events.jsonl")).unwrap();
    let event = events
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .find(|e| e["event"] == "divergence")
        .expect("the journal's divergence event");
    [
        r["error"]["details"]["divergence"]["resume"].clone(),
        run["error"]["divergence"]["resume"].clone(),
        event["report"]["resume"].clone(),
    ]
}

#[test]
fn the_run_records_of_a_held_repair_say_the_session_is_held() {
    let dir = session_scratch("repair-records");
    std::fs::create_dir_all(dir.join("apps")).unwrap();
    let repo = common::repo_root();
    std::fs::copy(
        repo.join("examples/apps/shop.json"),
        dir.join("apps/shop.json"),
    )
    .unwrap();
    std::fs::copy(
        repo.join("examples/divergent/reshuffled-login.ad"),
        dir.join("login.ad"),
    )
    .unwrap();

    // Not repair-armed: the session is not held for a repair, and no record says it is.
    let plain = ad(&dir, &["run", "login.ad", "--session", "plain", "--json"]);
    for resume in resumes(&dir, &plain) {
        assert_eq!(resume["allowed"], true, "{resume:#}");
        assert!(resume.get("repairSessionHeld").is_none(), "{resume:#}");
    }

    // Repair-armed: the divergence holds the session, and every record says so.
    let armed = ad(
        &dir,
        &[
            "run",
            "login.ad",
            "--session",
            "fix",
            "--save-script",
            "--json",
        ],
    );
    for resume in resumes(&dir, &armed) {
        assert_eq!(resume["repairSessionHeld"], true, "{resume:#}");
    }
    let o = ad(&dir, &["session", "close", "--session", "fix"]);
    assert!(o.status.success(), "{}", output_text(&o));
    assert!(!dir.join("login.healed.ad").exists());
}
