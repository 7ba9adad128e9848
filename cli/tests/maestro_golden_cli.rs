//! Golden transcripts for suites of Maestro flows (issue 33), as for `.ad` suites
//! (docs/recorded.md): `ad test --maestro PATHS --record-fixture DIR` saves the suite's
//! normalized transcript as DIR/golden.txt beside one fixture per flow; a replay with
//! `--backend recorded:DIR --golden` diffs its own transcript against it, and `--update-golden`
//! rewrites it. The transcript holds each flow's verdict and each step's result, with run ids,
//! times and paths collapsed and no injected value.

mod common;

use std::path::{Path, PathBuf};

use common::shop_flows::{shop, LOGIN, WRONG};
use common::{exit_code, isolated_ad, stderr, stdout};

fn ad(dir: &Path, args: &[&str]) -> std::process::Output {
    isolated_ad(dir).args(args).output().unwrap()
}

fn suite(dir: &Path, extra: &[&str]) -> std::process::Output {
    let mut args = vec!["test", "--maestro", "flows", "-e", "PASSWORD=hunter2"];
    args.extend_from_slice(extra);
    ad(dir, &args)
}

fn setup(name: &str) -> PathBuf {
    let dir = common::scratch_dir(name);
    std::fs::create_dir_all(dir.join("flows/nested")).unwrap();
    std::fs::write(dir.join("flows/login.yaml"), LOGIN).unwrap();
    std::fs::write(dir.join("flows/nested/wrong.yaml"), WRONG).unwrap();
    let shop = shop();
    let recorded = suite(
        &dir,
        &[
            "--app",
            shop.to_str().unwrap(),
            "--record-fixture",
            "fixtures",
        ],
    );
    assert_eq!(exit_code(&recorded), 1, "{}", stderr(&recorded));
    dir
}

#[test]
fn a_recorded_suite_saves_its_transcript_and_its_replay_matches_it() {
    let dir = setup("maestro-golden-match");
    let golden = std::fs::read_to_string(dir.join("fixtures/golden.txt")).unwrap();
    // Each flow's verdict, the failure with its line, and the steps from the journals.
    assert!(golden.contains("<suite>/login.yaml: passed"), "{golden}");
    assert!(
        golden.contains("<suite>/nested/wrong.yaml: failed"),
        "{golden}"
    );
    assert!(golden.contains("(line 12)"), "{golden}");
    assert!(golden.contains("step 1 (line 3): "), "{golden}");
    // Nothing run-specific, nothing injected.
    assert!(!golden.contains("hunter2"), "{golden}");
    assert!(!golden.contains(dir.to_str().unwrap()), "{golden}");
    assert!(!golden.contains("Ms\":"), "{golden}");

    let replay = suite(&dir, &["--backend", "recorded:fixtures", "--golden"]);
    let out = stdout(&replay);
    // The suite fails (one flow fails, as recorded), and its transcript is the recorded one.
    assert_eq!(exit_code(&replay), 1, "{out}{}", stderr(&replay));
    assert!(out.contains("golden transcript matches"), "{out}");
}

#[test]
fn a_changed_transcript_is_shown_as_a_diff_and_update_golden_accepts_the_run() {
    let dir = setup("maestro-golden-diff");
    let file = dir.join("fixtures/golden.txt");
    let saved = std::fs::read_to_string(&file).unwrap();
    let edited = saved.replace("<suite>/login.yaml: passed", "<suite>/login.yaml: failed");
    assert_ne!(saved, edited);
    std::fs::write(&file, &edited).unwrap();

    let replay = suite(&dir, &["--backend", "recorded:fixtures", "--golden"]);
    let out = stdout(&replay);
    assert_eq!(exit_code(&replay), 1, "{out}");
    assert!(out.contains("golden transcript differs"), "{out}");
    assert!(out.contains("-<suite>/login.yaml: failed"), "{out}");
    assert!(out.contains("+<suite>/login.yaml: passed"), "{out}");

    let update = suite(&dir, &["--backend", "recorded:fixtures", "--update-golden"]);
    assert!(
        stdout(&update).contains("golden transcript written"),
        "{}",
        stdout(&update)
    );
    assert_eq!(std::fs::read_to_string(&file).unwrap(), saved);
    let again = suite(&dir, &["--backend", "recorded:fixtures", "--golden"]);
    assert!(stdout(&again).contains("golden transcript matches"));
}

#[test]
fn golden_needs_a_recorded_backend() {
    let dir = common::scratch_dir("maestro-golden-usage");
    std::fs::create_dir_all(dir.join("flows")).unwrap();
    std::fs::write(dir.join("flows/login.yaml"), LOGIN).unwrap();
    let out = suite(&dir, &["--golden"]);
    assert_eq!(exit_code(&out), 2);
    assert!(
        stderr(&out).contains("--golden and --update-golden need --backend recorded:DIR"),
        "{}",
        stderr(&out)
    );
}
