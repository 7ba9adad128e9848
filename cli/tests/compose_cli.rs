//! Compositions through the binary: `ad build` output is accepted by agent-device 0.21.5's own
//! parser (the oracle) and runs with the same step results as the composition; `ad run` records
//! each step's source and include chain, names the fragment line and call site of a failure,
//! resumes with `--from N --plan-digest` on the expanded plan, and refuses a composition with
//! errors; `ad check --fix` rewrites a stale pin.

mod common;

use std::path::{Path, PathBuf};

use common::{exit_code, run_in, scratch_dir, stderr, stdout};
use serde_json::Value;

const EXAMPLES: [&str; 2] = [
    "examples/composition/sign-in-and-tour.ad",
    "examples/composition/sign-in-and-sign-out.ad",
];

fn repo() -> PathBuf {
    common::repo_root()
}

/// `ad run --json FILE` from the repository root: (result, journal events).
fn run_json(file: &str, extra: &[&str]) -> (i32, Value, Vec<Value>, String) {
    let art = scratch_dir("compose-run");
    let art = art.to_string_lossy().into_owned();
    let mut args = vec!["run", "-q", "--json", file, "--artifacts-dir", &art];
    args.extend_from_slice(extra);
    let out = run_in(&repo(), &args, None);
    let result: Value = serde_json::from_str(&stdout(&out)).unwrap_or(Value::Null);
    let events = result["runDir"]
        .as_str()
        .map(|d| {
            std::fs::read_to_string(Path::new(d).join("events.jsonl"))
                .unwrap_or_default()
                .lines()
                .map(|l| serde_json::from_str(l).expect("a journal line is JSON"))
                .collect()
        })
        .unwrap_or_default();
    (exit_code(&out), result, events, stderr(&out))
}

/// What each step did: the command, the action as written, status and result (no timings, no
/// sources, no plan lines).
fn step_results(events: &[Value]) -> Vec<Value> {
    events
        .iter()
        .filter(|e| e["event"] == "step_start" || e["event"] == "step_end")
        .map(|e| {
            let mut e = e.clone();
            let o = e.as_object_mut().unwrap();
            for k in [
                "recorded_at",
                "sequence",
                "source",
                "wall_ms",
                "device_ms",
                "wallMs",
                "deviceMs",
            ] {
                o.remove(k);
            }
            e
        })
        .collect()
}

fn build(file: &str, dir: &Path) -> PathBuf {
    let out_file = dir.join(Path::new(file).file_name().unwrap());
    let out = run_in(
        &repo(),
        &["build", file, "-o", &out_file.to_string_lossy()],
        None,
    );
    assert_eq!(exit_code(&out), 0, "ad build {file}:\n{}", stderr(&out));
    out_file
}

#[test]
fn flattened_scripts_are_accepted_by_agent_device_and_run_the_same() {
    let dir = scratch_dir("compose-build");
    // The flattened copies run from the scratch folder, so it holds the models they run on.
    ad_tests::copy_example_models(&dir);
    for file in EXAMPLES {
        let flat = build(file, &dir);
        let text = std::fs::read_to_string(&flat).unwrap();
        assert!(
            !text
                .lines()
                .any(|l| l.starts_with("composition-v1") || l.starts_with("include ")),
            "{text}"
        );
        assert!(text.contains("# ad:include \"fragments/login.ad\" callSiteId="));
        let oracle = ad_tests::run_oracle_one(&flat);
        assert_eq!(
            oracle["ok"], true,
            "agent-device rejects {file} flattened: {oracle}"
        );
        let (code_c, result_c, events_c, err_c) = run_json(file, &[]);
        let (code_f, result_f, events_f, err_f) = run_json(&flat.to_string_lossy(), &[]);
        assert_eq!((code_c, code_f), (0, 0), "{err_c}\n{err_f}");
        assert_eq!(result_c["replayed"], result_f["replayed"]);
        // The digest covers every fragment: the composition's plan is the flattened plan.
        assert_eq!(result_c["planDigest"], result_f["planDigest"]);
        assert_eq!(oracle["planDigest"], result_f["planDigest"]);
        assert_eq!(step_results(&events_c), step_results(&events_f), "{file}");
    }
}

#[test]
fn the_journal_records_each_steps_source_and_include_chain() {
    let (code, _, events, err) = run_json(EXAMPLES[0], &[]);
    assert_eq!(code, 0, "{err}");
    let starts: Vec<&Value> = events
        .iter()
        .filter(|e| e["event"] == "step_start")
        .collect();
    let open = &starts[0]["source"];
    assert_eq!(open["file"], EXAMPLES[0]);
    assert_eq!(open["includes"], serde_json::json!([]));
    let fill = starts.iter().find(|e| e["command"] == "fill").unwrap();
    assert_eq!(
        fill["source"]["file"],
        "examples/composition/fragments/login.ad"
    );
    assert_eq!(fill["source"]["line"], 7);
    let site = &fill["source"]["includes"][0];
    assert_eq!(site["file"], EXAMPLES[0]);
    assert_eq!(site["callSiteId"], "login");
    assert!(site["digest"].as_str().unwrap().starts_with("sha256:"));
}

/// A composition copied into a scratch project (an `ad.toml` makes it the project root).
fn scratch_project(name: &str) -> PathBuf {
    let dir = scratch_dir(name);
    std::fs::write(dir.join("ad.toml"), "").unwrap();
    ad_tests::copy_example_models(&dir);
    std::fs::create_dir_all(dir.join("fragments")).unwrap();
    let src = repo().join("examples/composition");
    for f in [
        "sign-in-and-tour.ad",
        "fragments/login.ad",
        "fragments/onboarding.ad",
    ] {
        std::fs::copy(src.join(f), dir.join(f)).unwrap();
    }
    dir
}

#[test]
fn a_failure_inside_a_fragment_names_the_fragment_line_and_the_call_site() {
    let dir = scratch_project("compose-diverge");
    let frag = dir.join("fragments/onboarding.ad");
    let text = std::fs::read_to_string(&frag).unwrap();
    // The profile screen never shows this element.
    std::fs::write(
        &frag,
        text.replace(
            "wait \"id=\\\"profile.title\\\"\" 5000",
            "wait \"id=\\\"profile.missing\\\"\" 1000",
        ),
    )
    .unwrap();
    let fix = run_in(&dir, &["check", "--fix", "sign-in-and-tour.ad"], None);
    assert!(
        stderr(&fix).contains("fixed 1 problem(s) in sign-in-and-tour.ad"),
        "{}",
        stderr(&fix)
    );
    let art = dir.join("artifacts");
    let out = run_in(
        &dir,
        &[
            "run",
            "-q",
            "sign-in-and-tour.ad",
            "--artifacts-dir",
            &art.to_string_lossy(),
        ],
        None,
    );
    let err = stderr(&out);
    assert_eq!(exit_code(&out), 1, "{err}");
    assert!(
        err.contains("--> fragments/onboarding.ad:10 (included at sign-in-and-tour.ad:13 [tour])"),
        "{err}"
    );
    // The divergence report names the fragment line and the call site too, in its text and in
    // its record (the journal's `divergence` event, the JSON result).
    assert!(
        err.contains("Divergence at step ")
            && err.contains(
                "(fragments/onboarding.ad:10, included at sign-in-and-tour.ad:13 [tour]; plan line "
            ),
        "{err}"
    );
    let out = run_in(
        &dir,
        &[
            "run",
            "-q",
            "--json",
            "sign-in-and-tour.ad",
            "--artifacts-dir",
            &art.to_string_lossy(),
        ],
        None,
    );
    let result: Value = serde_json::from_str(&stdout(&out)).unwrap();
    let events =
        std::fs::read_to_string(Path::new(result["runDir"].as_str().unwrap()).join("events.jsonl"))
            .unwrap();
    let divergence: Value = events
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .find(|e| e["event"] == "divergence")
        .expect("a divergence event");
    let origin = &divergence["report"]["step"]["origin"];
    assert_eq!(origin["file"], "fragments/onboarding.ad");
    assert_eq!(origin["line"], 10);
    assert_eq!(origin["includes"][0]["file"], "sign-in-and-tour.ad");
    assert_eq!(origin["includes"][0]["line"], 13);
    assert_eq!(origin["includes"][0]["callSiteId"], "tour");
    assert_eq!(
        divergence["report"]["step"]["source"]["line"], divergence["line"],
        "source stays the plan's line"
    );
    // `ad test` names them too.
    let out = run_in(
        &dir,
        &[
            "test",
            "sign-in-and-tour.ad",
            "--artifacts-dir",
            &art.to_string_lossy(),
        ],
        None,
    );
    let said = stdout(&out);
    assert_eq!(exit_code(&out), 1, "{said}");
    assert!(
        said.contains(
            "fragments/onboarding.ad:10 (included at sign-in-and-tour.ad:13 [tour]) (plan line "
        ),
        "{said}"
    );
}

/// After a divergence inside a fragment, `--from N --plan-digest D` resumes on the expanded
/// plan: the digest of the run that diverged is accepted, any other refused.
#[test]
fn resume_inside_a_composition_checks_the_expanded_digest() {
    let dir = scratch_project("compose-resume");
    let frag = dir.join("fragments/onboarding.ad");
    let text = std::fs::read_to_string(&frag).unwrap();
    std::fs::write(
        &frag,
        text.replace(
            "wait \"id=\\\"profile.title\\\"\" 5000",
            "wait \"id=\\\"profile.missing\\\"\" 1000",
        ),
    )
    .unwrap();
    let fix = run_in(&dir, &["check", "--fix", "sign-in-and-tour.ad"], None);
    assert_eq!(exit_code(&fix), 0, "{}", stdout(&fix));
    let art = dir.join("artifacts").to_string_lossy().into_owned();
    let run = |extra: &[&str]| {
        let mut args = vec![
            "run",
            "-q",
            "--json",
            "sign-in-and-tour.ad",
            "--artifacts-dir",
            &art,
        ];
        args.extend_from_slice(extra);
        // A state folder of its own: the session the divergence leaves live is resumed below,
        // and the other tests of this process run scripts under the same session name.
        common::ad(&dir)
            .args(&args)
            .env("AD_STATE_DIR", dir.join("state"))
            .output()
            .expect("ad runs")
    };
    let failed = run(&[]);
    assert_eq!(exit_code(&failed), 1, "{}", stderr(&failed));
    let result: Value = serde_json::from_str(&stdout(&failed)).unwrap();
    let digest = result["planDigest"].as_str().unwrap().to_string();
    let wrong = "0".repeat(64);
    let refused = run(&["--from", "11", "--plan-digest", &wrong]);
    assert_eq!(exit_code(&refused), 2, "{}", stderr(&refused));
    let said = stdout(&refused) + &stderr(&refused);
    assert!(said.to_lowercase().contains("digest"), "{said}");
    // Step 11 is the parent's `is visible` after the tour fragment: the app is on Profile.
    let resumed = run(&["--from", "11", "--plan-digest", &digest]);
    assert_eq!(exit_code(&resumed), 0, "{}", stderr(&resumed));
}

#[test]
fn a_composition_with_errors_is_not_run_and_a_stale_pin_is_fixed() {
    let dir = scratch_project("compose-stale");
    // `--fix` on a clean composition keeps a snapshot of each pinned fragment.
    let fix = run_in(&dir, &["check", "--fix", "sign-in-and-tour.ad"], None);
    assert_eq!(exit_code(&fix), 0, "{}", stdout(&fix));
    let pins: Vec<_> = std::fs::read_dir(dir.join(".ad/pins")).unwrap().collect();
    assert_eq!(pins.len(), 2, "login and onboarding");
    let frag = dir.join("fragments/login.ad");
    let text = std::fs::read_to_string(&frag).unwrap();
    std::fs::write(&frag, text.replace("5000", "8000")).unwrap();
    let out = run_in(&dir, &["run", "-q", "sign-in-and-tour.ad"], None);
    let err = stderr(&out);
    assert_eq!(exit_code(&out), 2, "{err}");
    assert!(
        err.contains("[AD806]") && err.contains("nothing was run"),
        "{err}"
    );
    let check = run_in(&dir, &["check", "sign-in-and-tour.ad"], None);
    assert_eq!(exit_code(&check), 1);
    let said = stdout(&check);
    assert!(said.contains("changed since it was pinned"), "{said}");
    // The steps that changed, from the snapshot of what was pinned.
    let changed = "- 6: wait \"id=\\\"login.email\\\"\" 5000\n";
    assert!(said.contains(changed.trim_end()), "{said}");
    assert!(
        said.contains("+ 6: wait \"id=\\\"login.email\\\"\" 8000"),
        "{said}"
    );
    let fix = run_in(&dir, &["check", "--fix", "sign-in-and-tour.ad"], None);
    assert_eq!(exit_code(&fix), 0, "{}", stdout(&fix));
    // What changed is shown as the pin is rewritten, and the new pin gets its snapshot.
    let err = stderr(&fix);
    assert!(
        err.contains("re-pinning") && err.contains(changed.trim_end()),
        "{err}"
    );
    let digest = ad_compiler::compose::fragment_digest(&std::fs::read_to_string(&frag).unwrap());
    assert!(std::fs::read_to_string(dir.join("sign-in-and-tour.ad"))
        .unwrap()
        .contains(&digest));
    assert!(dir
        .join(".ad/pins")
        .join(format!("{}.pinned", &digest["sha256:".len()..]))
        .exists());
    let out = run_in(
        &dir,
        &[
            "run",
            "-q",
            "sign-in-and-tour.ad",
            "--artifacts-dir",
            &dir.join("a").to_string_lossy(),
        ],
        None,
    );
    assert_eq!(exit_code(&out), 0, "{}", stderr(&out));
}

#[test]
fn build_refuses_a_plain_script_and_includes_outside_the_project() {
    let out = run_in(&repo(), &["build", "examples/login.ad", "-o", "-"], None);
    assert_eq!(exit_code(&out), 2);
    let dir = scratch_project("compose-escape");
    let parent = dir.join("sign-in-and-tour.ad");
    let text = std::fs::read_to_string(&parent).unwrap();
    std::fs::write(
        &parent,
        text.replace(
            "include \"fragments/login.ad\"",
            "include \"../outside.ad\"",
        ),
    )
    .unwrap();
    let out = run_in(&dir, &["build", "sign-in-and-tour.ad", "-o", "-"], None);
    assert_eq!(exit_code(&out), 2);
    assert!(stderr(&out).contains("[AD801]"), "{}", stderr(&out));
}

/// `ad test` runs each composition as its expansion and skips fragments (they run only from a
/// parent).
#[test]
fn ad_test_runs_compositions_and_skips_fragments() {
    let out = run_in(&repo(), &["test", "examples/composition/"], None);
    let text = stdout(&out);
    assert_eq!(exit_code(&out), 0, "{text}{}", stderr(&out));
    assert!(text.contains("2 passed, 0 failed"), "{text}");
    assert!(!text.contains("fragments/"), "{text}");
    // Each run's journal records the steps' sources.
    let art = scratch_dir("compose-test");
    let out = run_in(
        &repo(),
        &[
            "test",
            EXAMPLES[0],
            "--artifacts-dir",
            &art.to_string_lossy(),
        ],
        None,
    );
    assert_eq!(exit_code(&out), 0, "{}", stderr(&out));
    let journal = walk(&art)
        .into_iter()
        .find(|p| p.ends_with("events.jsonl"))
        .expect("a journal");
    let events = std::fs::read_to_string(journal).unwrap();
    assert!(
        events.contains("\"callSiteId\":\"login\""),
        "step sources in the journal"
    );
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else {
            out.push(p);
        }
    }
    out
}

/// A finding inside a fragment carries its include chain as places in the including files: a
/// secondary label in the parent in the terminal, `related` spans in JSON, `relatedLocations`
/// in SARIF.
#[test]
fn a_finding_in_a_fragment_shows_the_include_in_the_parent() {
    let dir = scratch_project("compose-related");
    let parent = dir.join("sign-in-and-tour.ad");
    let text = std::fs::read_to_string(&parent).unwrap();
    std::fs::write(&parent, text.replace("env EMAIL=demo@example.com\n", "")).unwrap();
    let human = stdout(&run_in(&dir, &["check", "sign-in-and-tour.ad"], None));
    assert!(human.contains("[AD810]"), "{human}");
    assert!(
        human.contains("├─[ sign-in-and-tour.ad:")
            && human.contains("include \"fragments/login.ad\"")
            && human.contains("included here as `login`"),
        "{human}"
    );
    let out = run_in(
        &dir,
        &["check", "--format", "json", "sign-in-and-tour.ad"],
        None,
    );
    let json: Value = serde_json::from_str(&stdout(&out)).unwrap();
    let unbound = json
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["code"] == "AD810")
        .expect("AD810");
    assert_eq!(unbound["path"], "fragments/login.ad");
    let include_line = text
        .replace("env EMAIL=demo@example.com\n", "")
        .lines()
        .position(|l| l == "include \"fragments/login.ad\"")
        .unwrap()
        + 1;
    assert_eq!(
        unbound["related"],
        serde_json::json!([{
            "path": "sign-in-and-tour.ad", "line": include_line, "column": 1,
            "end_line": include_line, "end_column": 29, "message": "included here as `login`"
        }])
    );
    let out = run_in(
        &dir,
        &["check", "--format", "sarif", "sign-in-and-tour.ad"],
        None,
    );
    let sarif: Value = serde_json::from_str(&stdout(&out)).unwrap();
    let result = sarif["runs"][0]["results"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["ruleId"] == "AD810")
        .expect("AD810 (the parent's own notes, AD811, come first)");
    let related = &result["relatedLocations"][0];
    assert_eq!(
        related["physicalLocation"]["artifactLocation"]["uri"],
        "sign-in-and-tour.ad"
    );
}

/// `ad check --fix` turns an `env` line in a fragment into fallbacks of its uses (AD801), then
/// re-pins the fragment it changed; the composition then runs.
#[test]
fn check_fix_moves_a_fragments_env_into_fallbacks_and_repins() {
    let dir = scratch_project("compose-env");
    let login = dir.join("fragments/login.ad");
    let text = std::fs::read_to_string(&login).unwrap();
    std::fs::write(
        &login,
        text.replacen(
            "context platform=ios target=mobile\n",
            "context platform=ios target=mobile\nenv EMAIL=demo@example.com\n",
            1,
        ),
    )
    .unwrap();
    let parent = dir.join("sign-in-and-tour.ad");
    let ptext = std::fs::read_to_string(&parent).unwrap();
    std::fs::write(&parent, ptext.replace("env EMAIL=demo@example.com\n", "")).unwrap();
    let check = run_in(&dir, &["check", "sign-in-and-tour.ad"], None);
    assert_eq!(exit_code(&check), 1);
    assert!(stdout(&check).contains("[AD801]"), "{}", stdout(&check));
    let fix = run_in(&dir, &["check", "--fix", "sign-in-and-tour.ad"], None);
    assert_eq!(exit_code(&fix), 0, "{}{}", stdout(&fix), stderr(&fix));
    let fixed = std::fs::read_to_string(&login).unwrap();
    assert!(!fixed.contains("env EMAIL"), "{fixed}");
    assert!(fixed.contains("\"${EMAIL:-demo@example.com}\""), "{fixed}");
    assert!(std::fs::read_to_string(&parent)
        .unwrap()
        .contains(&ad_compiler::compose::fragment_digest(&fixed)));
    let out = run_in(
        &dir,
        &[
            "run",
            "-q",
            "sign-in-and-tour.ad",
            "--artifacts-dir",
            &dir.join("a").to_string_lossy(),
        ],
        None,
    );
    assert_eq!(exit_code(&out), 0, "{}", stderr(&out));
}

/// Issue 29 item 11: `ad build -o` never writes over its own sources — the composition, a
/// fragment it includes, or a link (or hard link) to either: exit 2, every file unchanged.
#[test]
fn build_refuses_an_output_that_is_one_of_its_sources() {
    let dir = scratch_project("compose-build-over-source");
    let parent = dir.join("sign-in-and-tour.ad");
    let fragment = dir.join("fragments/login.ad");
    let before = [
        std::fs::read(&parent).unwrap(),
        std::fs::read(&fragment).unwrap(),
    ];
    std::os::unix::fs::symlink(&parent, dir.join("link-to-parent.ad")).unwrap();
    std::os::unix::fs::symlink(&fragment, dir.join("link-to-login.ad")).unwrap();
    std::fs::hard_link(&fragment, dir.join("hard-login.ad")).unwrap();
    for (output, source) in [
        ("sign-in-and-tour.ad", "sign-in-and-tour.ad"),
        ("./fragments/../sign-in-and-tour.ad", "sign-in-and-tour.ad"),
        ("fragments/login.ad", "fragments/login.ad"),
        ("link-to-parent.ad", "sign-in-and-tour.ad"),
        ("link-to-login.ad", "fragments/login.ad"),
        ("hard-login.ad", "fragments/login.ad"),
    ] {
        let out = run_in(&dir, &["build", "sign-in-and-tour.ad", "-o", output], None);
        let err = stderr(&out);
        assert_eq!(exit_code(&out), 2, "-o {output}: {err}");
        assert!(
            err.contains(&format!("that is {source}, a source of this build")),
            "-o {output}: {err}"
        );
        assert_eq!(std::fs::read(&parent).unwrap(), before[0], "-o {output}");
        assert_eq!(std::fs::read(&fragment).unwrap(), before[1], "-o {output}");
    }
    // Another file is still written.
    let out = run_in(
        &dir,
        &["build", "sign-in-and-tour.ad", "-o", "flat.ad"],
        None,
    );
    assert_eq!(exit_code(&out), 0, "{}", stderr(&out));
    let _ = std::fs::remove_dir_all(&dir);
}

/// `sign-in-and-tour.ad` with its login include pointing at `fragments/<name>` (its pin then
/// stale or not, which does not matter to how the file is read).
fn include_instead(dir: &Path, name: &str) {
    let parent = dir.join("sign-in-and-tour.ad");
    let text = std::fs::read_to_string(&parent).unwrap();
    std::fs::write(
        &parent,
        text.replace(
            "include \"fragments/login.ad\"",
            &format!("include \"fragments/{name}\""),
        ),
    )
    .unwrap();
}

/// Issue 29 item 14: an included file is read as a script is — a FIFO is refused without being
/// opened (before, `ad check` hung on it), a fragment over the size cap gets AD006 (before, it
/// was read whole), and a fragment that is not UTF-8 gets AD005 and is read as agent-device
/// reads a script (before: AD800 "not found").
#[test]
fn included_files_are_read_with_the_scripts_checks() {
    let dir = scratch_project("compose-include-reads");
    let fifo = dir.join("fragments/fifo.ad");
    let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    include_instead(&dir, "fifo.ad");
    let out = common::run_bounded(&dir, &["check", "sign-in-and-tour.ad"]);
    let err = format!("{}{}", stdout(&out), stderr(&out));
    assert_eq!(exit_code(&out), 1, "{err}");
    assert!(
        err.contains("[AD800]") && err.contains("a FIFO, not a regular file"),
        "{err}"
    );

    let dir = scratch_project("compose-include-large");
    let login = std::fs::read_to_string(dir.join("fragments/login.ad")).unwrap();
    let padding = format!("# {}\n", "x".repeat(1000)).repeat(3000);
    std::fs::write(dir.join("fragments/big.ad"), login.clone() + &padding).unwrap();
    include_instead(&dir, "big.ad");
    let out = run_in(&dir, &["check", "sign-in-and-tour.ad"], None);
    let err = format!("{}{}", stdout(&out), stderr(&out));
    assert_eq!(exit_code(&out), 1, "{err}");
    assert!(
        err.contains("[AD006]") && err.contains("over the 2097152-byte limit: not read"),
        "{err}"
    );
    assert!(!err.contains("[AD800]"), "{err}");
    // Raised as for a script, the same fragment is read.
    let out = run_in(
        &dir,
        &["check", "--max-file-size", "4000000", "sign-in-and-tour.ad"],
        None,
    );
    let err = format!("{}{}", stdout(&out), stderr(&out));
    assert!(!err.contains("[AD006]"), "{err}");

    let dir = scratch_project("compose-include-latin1");
    let mut bytes = login.into_bytes();
    bytes.extend_from_slice(b"# caf\xe9\n");
    std::fs::write(dir.join("fragments/latin1.ad"), bytes).unwrap();
    include_instead(&dir, "latin1.ad");
    let out = run_in(&dir, &["check", "sign-in-and-tour.ad"], None);
    let err = format!("{}{}", stdout(&out), stderr(&out));
    assert!(
        err.contains("[AD005]") && err.contains("fragments/latin1.ad"),
        "{err}"
    );
    assert!(!err.contains("[AD800]"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// `ad run` on a fragment: a usage error (exit 2) that names the compositions of the project
/// that include it, not the handoff profile's errors of a script with no `open` (AD701, AD707).
#[test]
fn running_a_fragment_names_the_compositions_that_include_it() {
    let dir = scratch_project("compose-run-fragment");
    std::fs::copy(
        repo().join("examples/composition/sign-in-and-sign-out.ad"),
        dir.join("sign-in-and-sign-out.ad"),
    )
    .unwrap();
    let out = run_in(&dir, &["run", "fragments/login.ad"], None);
    let err = stderr(&out);
    assert_eq!(exit_code(&out), 2, "{err}");
    assert!(
        err.contains(
            "fragments/login.ad is a fragment (`fragment-v1`): it runs only inside a composition"
        ),
        "{err}"
    );
    assert!(
        err.contains("`ad run sign-in-and-sign-out.ad`, `ad run sign-in-and-tour.ad`"),
        "both compositions that include it: {err}"
    );
    assert!(!err.contains("AD70"), "no handoff-profile errors: {err}");
    // Included by one composition only (sign-in-and-tour.ad), also when run from elsewhere.
    let out = run_in(&dir.join("fragments"), &["run", "onboarding.ad"], None);
    let err = stderr(&out);
    assert_eq!(exit_code(&out), 2, "{err}");
    assert!(err.contains("sign-in-and-tour.ad`"), "{err}");
    assert!(!err.contains("sign-in-and-sign-out"), "{err}");
    // A fragment nothing includes says so.
    std::fs::copy(
        dir.join("fragments/login.ad"),
        dir.join("fragments/alone.ad"),
    )
    .unwrap();
    let out = run_in(&dir, &["run", "fragments/alone.ad"], None);
    let err = stderr(&out);
    assert_eq!(exit_code(&out), 2, "{err}");
    assert!(
        err.contains("no composition of this project includes it"),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// `ad check` notes (AD811, info) each `composition-v1`, `fragment-v1` and `include` line of the
/// file it checks, which agent-device 0.21.5 refuses at dispatch, with `ad build` as the way.
#[test]
fn check_notes_the_composition_lines_agent_device_refuses() {
    let dir = scratch_project("compose-notes");
    let out = run_in(
        &dir,
        &["check", "--format", "json", "sign-in-and-tour.ad"],
        None,
    );
    assert_eq!(exit_code(&out), 0, "{}", stderr(&out));
    let notes: Vec<(String, u64)> = common::json_diagnostics(&out)
        .iter()
        .filter(|d| d["code"] == "AD811")
        .map(|d| {
            assert_eq!(d["severity"], "info", "{d}");
            assert!(d["help"].as_str().unwrap().contains("ad build"), "{d}");
            (
                d["message"].as_str().unwrap().to_string(),
                d["line"].as_u64().unwrap(),
            )
        })
        .collect();
    let text = std::fs::read_to_string(dir.join("sign-in-and-tour.ad")).unwrap();
    let line_of = |s: &str| {
        text.lines()
            .position(|l| l.starts_with(s))
            .map(|i| i as u64 + 1)
            .unwrap()
    };
    let includes: Vec<u64> = text
        .lines()
        .enumerate()
        .filter(|(_, l)| l.starts_with("include "))
        .map(|(i, _)| i as u64 + 1)
        .collect();
    let mut expected = vec![(
        "agent-device 0.21.5 refuses `composition-v1` at dispatch".to_string(),
        line_of("composition-v1"),
    )];
    for l in includes {
        expected.push((
            "agent-device 0.21.5 refuses `include` at dispatch".to_string(),
            l,
        ));
    }
    assert_eq!(notes, expected, "the fragments it includes get none");
    let out = run_in(
        &dir,
        &["check", "--format", "json", "fragments/login.ad"],
        None,
    );
    let notes: Vec<Value> = common::json_diagnostics(&out)
        .into_iter()
        .filter(|d| d["code"] == "AD811")
        .collect();
    assert_eq!(notes.len(), 1, "{notes:?}");
    assert_eq!(
        notes[0]["message"],
        "agent-device 0.21.5 refuses `fragment-v1` at dispatch"
    );
    let out = run_in(&dir, &["explain", "AD811"], None);
    assert_eq!(exit_code(&out), 0);
    assert!(stdout(&out).contains("ad build"), "{}", stdout(&out));
    let _ = std::fs::remove_dir_all(&dir);
}

/// The pin digest is what `ad parse --digest` prints for the fragment, as `fragmentDigest`:
/// the digest the example compositions pin, which the file's `planDigest` (its marker line read
/// as a step) is not.
#[test]
fn parse_digest_prints_the_pin_of_a_fragment() {
    let out = run_in(
        &repo(),
        &[
            "parse",
            "--digest",
            "examples/composition/fragments/login.ad",
        ],
        None,
    );
    let report: Value = serde_json::from_str(&stdout(&out)).expect("JSON");
    let pin = report["fragmentDigest"].as_str().expect("fragmentDigest");
    let parent =
        std::fs::read_to_string(repo().join("examples/composition/sign-in-and-sign-out.ad"))
            .unwrap();
    assert!(
        parent.contains(&format!("\"digest\":\"{pin}\"")),
        "the composition pins {pin}"
    );
    assert_ne!(
        format!("sha256:{}", report["planDigest"].as_str().unwrap()),
        pin
    );
    // Several files: each fragment's report has its pin; a plain script's has none.
    let out = run_in(
        &repo(),
        &[
            "parse",
            "--digest",
            "examples/composition/fragments/login.ad",
            "examples/login.ad",
        ],
        None,
    );
    let reports: Value = serde_json::from_str(&stdout(&out)).expect("JSON");
    assert_eq!(reports[0]["fragmentDigest"], pin);
    assert!(reports[1].get("fragmentDigest").is_none());
}
