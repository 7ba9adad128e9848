//! `ad export --maestro FILE.ad [-o OUT]` (issue 33): stdout or a file, agent-device's warnings
//! on stderr, every unsupported line listed on a refusal, exit codes 0 / 1 / 2; and, end to end,
//! the same file and the same warning lines as `agent-device replay export FILE --out OUT`.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::{ad, exit_code, repo_root, stderr, stdout};

const SCRIPT: &str =
    "context platform=ios\nopen com.example.app\nclick label=\"Sign in\"\nwait 500\n";
const YAML: &str = "appId: com.example.app\n---\n- launchApp:\n    appId: com.example.app\n- tapOn:\n    text: Sign in\n- waitForAnimationToEnd:\n    timeout: 500\n";

fn script(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

#[test]
fn exports_to_stdout_with_warnings_on_stderr() {
    let dir = common::scratch_dir("export-cli");
    let f = script(&dir, "login.ad", SCRIPT);
    let out = ad(&dir)
        .args(["export", "--maestro"])
        .arg(&f)
        .output()
        .unwrap();
    assert_eq!(exit_code(&out), 0, "{}", stderr(&out));
    assert_eq!(stdout(&out), YAML);
    assert_eq!(
        stderr(&out),
        "Warning: line 3: label= selectors export as Maestro text; Maestro text matching is broader than agent-device label-only matching\n\
         Warning: line 4: wait <ms> exports as waitForAnimationToEnd and may return before the full duration\n"
    );
}

#[test]
fn output_file_creates_folders_replaces_a_file_and_prints_its_path() {
    let dir = common::scratch_dir("export-cli");
    let f = script(&dir, "login.ad", SCRIPT);
    let target = dir.join("e2e/flows/login.yaml");
    for _ in 0..2 {
        // The second run replaces the file the first wrote, as agent-device's --out does.
        let out = ad(&dir)
            .args([
                "export",
                "--maestro",
                "login.ad",
                "-o",
                "e2e/flows/login.yaml",
            ])
            .output()
            .unwrap();
        assert_eq!(exit_code(&out), 0, "{}", stderr(&out));
        assert_eq!(std::fs::read_to_string(&target).unwrap(), YAML);
        let printed = PathBuf::from(stdout(&out).trim_end());
        assert!(printed.is_absolute(), "{printed:?}");
        assert_eq!(
            std::fs::canonicalize(&printed).unwrap(),
            std::fs::canonicalize(&target).unwrap()
        );
    }
    // `-o -` is stdout.
    let out = ad(&dir)
        .args(["export", "--maestro", "-o", "-"])
        .arg(&f)
        .output()
        .unwrap();
    assert_eq!(stdout(&out), YAML);
}

#[test]
fn the_script_itself_is_never_overwritten() {
    let dir = common::scratch_dir("export-cli");
    let f = script(&dir, "login.ad", SCRIPT);
    let out = ad(&dir)
        .args(["export", "--maestro", "login.ad", "-o", "./login.ad"])
        .output()
        .unwrap();
    assert_eq!(exit_code(&out), 2, "{}", stderr(&out));
    assert!(
        stderr(&out).contains("the script being exported"),
        "{}",
        stderr(&out)
    );
    assert_eq!(std::fs::read_to_string(&f).unwrap(), SCRIPT);
}

#[test]
fn a_refusal_lists_every_unsupported_line_and_writes_nothing() {
    let dir = common::scratch_dir("export-cli");
    script(
        &dir,
        "refs.ad",
        "open com.example.app\nsnapshot\nclick @e3\nwait absent id=spinner\n",
    );
    let out = ad(&dir)
        .args(["export", "--maestro", "refs.ad", "-o", "out.yaml"])
        .output()
        .unwrap();
    assert_eq!(exit_code(&out), 1, "{}", stderr(&out));
    let err = stderr(&out);
    assert!(err.starts_with("error: Cannot export replay to Maestro YAML: unsupported .ad action line 2 (snapshot): snapshot has no Maestro equivalent; line 3 (click @e3): tap target is not Maestro-compatible; line 4 (wait absent id=spinner): strict wait absent requires zero selector matches and is unsupported by Maestro.\n"), "{err}");
    for line in [
        "refs.ad:2: snapshot:",
        "refs.ad:3: click @e3:",
        "refs.ad:4: wait absent id=spinner:",
    ] {
        assert!(err.contains(line), "{line} missing in {err}");
    }
    assert!(stdout(&out).is_empty());
    assert!(!dir.join("out.yaml").exists());
}

#[test]
fn a_script_agent_devices_reader_refuses_is_not_exported() {
    let dir = common::scratch_dir("export-cli");
    script(&dir, "late-env.ad", "open com.example.app\nenv LATE=1\n");
    let out = ad(&dir)
        .args(["export", "--maestro", "late-env.ad"])
        .output()
        .unwrap();
    assert_eq!(exit_code(&out), 1, "{}", stderr(&out));
    assert!(
        stderr(&out).contains("late-env.ad:2: error["),
        "{}",
        stderr(&out)
    );
    assert!(stdout(&out).is_empty());
}

#[test]
fn usage_errors_exit_2() {
    let dir = common::scratch_dir("export-cli");
    script(&dir, "login.ad", SCRIPT);
    // --maestro is required: it names the format.
    let out = ad(&dir).args(["export", "login.ad"]).output().unwrap();
    assert_eq!(exit_code(&out), 2);
    let out = ad(&dir)
        .args(["export", "--maestro", "missing.ad"])
        .output()
        .unwrap();
    assert_eq!(exit_code(&out), 2);
    assert!(stderr(&out).contains("missing.ad"), "{}", stderr(&out));
}

#[test]
fn help_teaches_the_command() {
    let dir = common::scratch_dir("export-cli");
    let out = ad(&dir).args(["export", "--help"]).output().unwrap();
    let help = stdout(&out);
    for needle in [
        "--maestro",
        "-o, --output",
        "Examples:",
        "Exit codes:",
        "label=",
    ] {
        assert!(help.contains(needle), "{needle} missing in:\n{help}");
    }
}

/// The package's own CLI, run from the repository's oracle folder.
fn agent_device() -> PathBuf {
    let bin = repo_root().join("oracle/node_modules/agent-device/bin");
    let found = std::fs::read_dir(&bin).ok().and_then(|mut d| {
        d.find_map(|e| {
            let p = e.ok()?.path();
            p.file_name()?
                .to_str()?
                .starts_with("agent-device")
                .then_some(p)
        })
    });
    found.unwrap_or_else(|| {
        panic!(
            "agent-device 0.21.5 is not installed under oracle/node_modules: run `npm ci` in oracle/ (needs node and npm; `bash scripts/test-all.sh` installs everything)"
        )
    })
}

#[test]
fn every_export_fixture_writes_what_agent_device_replay_export_writes() {
    let cli = agent_device();
    let dir = common::scratch_dir("export-cli-oracle");
    let home = dir.join("home");
    std::fs::create_dir_all(&home).unwrap();
    let mut fixtures: Vec<PathBuf> = std::fs::read_dir(repo_root().join("tests/fixtures/export"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "ad"))
        .collect();
    fixtures.sort();
    assert!(fixtures.len() >= 15);
    let (mut same, mut exported) = (0, 0);
    for (i, f) in fixtures.iter().enumerate() {
        let theirs_path = dir.join(format!("theirs-{i}.yaml"));
        let ours_path = dir.join(format!("ours-{i}.yaml"));
        let theirs = Command::new("node")
            .arg(&cli)
            .args(["replay", "export"])
            .arg(f)
            .arg("--out")
            .arg(&theirs_path)
            .env("HOME", &home)
            .output()
            .expect("node runs agent-device");
        let ours = ad(&dir)
            .args(["export", "--maestro"])
            .arg(f)
            .arg("-o")
            .arg(&ours_path)
            .output()
            .unwrap();
        let name = f.display();
        assert_eq!(
            exit_code(&ours),
            theirs.status.code().unwrap_or(-1),
            "{name}: exit codes differ; agent-device said {}",
            String::from_utf8_lossy(&theirs.stderr)
        );
        if theirs.status.success() {
            exported += 1;
            assert_eq!(
                std::fs::read(&ours_path).unwrap(),
                std::fs::read(&theirs_path).unwrap(),
                "{name}: the written files differ"
            );
            // agent-device's warnings, then ad's own notes.
            let err = stderr(&ours);
            let (warnings, notes): (Vec<&str>, Vec<&str>) =
                err.lines().partition(|l| l.starts_with("Warning: "));
            assert_eq!(
                warnings
                    .iter()
                    .map(|l| format!("{l}\n"))
                    .collect::<String>(),
                String::from_utf8_lossy(&theirs.stderr),
                "{name}: the warnings differ"
            );
            let aliases = std::fs::read_to_string(&ours_path)
                .unwrap()
                .contains(": *a");
            assert!(notes.iter().all(|l| l.starts_with("note: line ")), "{err}");
            assert_eq!(
                !notes.is_empty(),
                aliases,
                "{name}: a note for each aliased swipe"
            );
        } else {
            assert!(
                !ours_path.exists(),
                "{name}: nothing is written on a refusal"
            );
            // agent-device's message is our first line, after `error: ` for
            // its `Error (CODE): `.
            let their_first = String::from_utf8_lossy(&theirs.stderr)
                .lines()
                .next()
                .unwrap_or_default()
                .split_once("): ")
                .map(|(_, m)| m.to_string())
                .unwrap_or_default();
            let our_first = stderr(&ours).lines().next().unwrap_or_default().to_string();
            assert_eq!(our_first, format!("error: {their_first}"), "{name}");
        }
        same += 1;
    }
    eprintln!("{same} fixtures agree with agent-device replay export ({exported} exported)");
}

/// What the export writes is a flow agent-device's Maestro reader accepts, except the aliases its
/// exporter writes for `swipe --count N`, which its own reader refuses: `ad check --maestro` says
/// the same as agent-device's reader of every exported fixture, and `ad export` notes the aliases.
#[test]
fn exported_flows_are_read_back_as_agent_devices_maestro_reader_reads_them() {
    let dir = common::scratch_dir("export-cli-round-trip");
    let mut flows = Vec::new();
    for entry in std::fs::read_dir(repo_root().join("tests/fixtures/export")).unwrap() {
        let f = entry.unwrap().path();
        if f.extension().is_none_or(|x| x != "ad") {
            continue;
        }
        let flow = dir.join(f.file_stem().unwrap()).with_extension("yaml");
        let out = ad(&dir)
            .args(["export", "--maestro"])
            .arg(&f)
            .arg("-o")
            .arg(&flow)
            .output()
            .unwrap();
        if exit_code(&out) == 0 {
            flows.push(flow);
        }
    }
    flows.sort();
    assert!(flows.len() >= 12, "{flows:?}");
    let theirs = ad_tests::maestro::run_oracle(&flows);
    let mut refused = 0;
    for (flow, verdict) in flows.iter().zip(&theirs) {
        let out = ad(&dir)
            .args(["check", "--maestro", "--parity-only"])
            .arg(flow)
            .output()
            .unwrap();
        let aliases = std::fs::read_to_string(flow).unwrap().contains(": *a");
        let accepted = verdict["ok"] == true;
        assert_eq!(accepted, !aliases, "{}: {verdict}", flow.display());
        assert_eq!(
            exit_code(&out) == 0,
            accepted,
            "{}: ad check --maestro disagrees with agent-device's reader ({verdict}):\n{}",
            flow.display(),
            stdout(&out)
        );
        refused += usize::from(!accepted);
    }
    assert_eq!(refused, 1, "only the repeated swipes' flow is refused");
}
