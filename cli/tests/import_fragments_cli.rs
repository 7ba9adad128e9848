//! `ad import FLOW.yaml -o OUT.ad` without `--flatten` (issue 33): each distinct `runFlow` file
//! becomes a fragment beside OUT.ad, included by the composition OUT.ad with a pin; each
//! fragment starts with an entry guard derived from what the flows assert and recorded on the
//! simulated device (the Shop model). The composition passes `ad check`, `ad build` gives a
//! script agent-device 0.21.5's reader accepts (oracle/parse.mjs) with the steps `--flatten`
//! writes, and it runs on the sim; a fragment whose guard cannot be derived or recorded refuses
//! the import with the line and why, and nothing is written.

mod common;

use std::path::{Path, PathBuf};

use common::{ad, exit_code, repo_root, stderr, stdout};

fn fixture(name: &str) -> PathBuf {
    repo_root()
        .join("tests/fixtures/maestro-import/compose")
        .join(name)
}

/// A scratch project with the example app models, where imports are written to `out/`.
fn project(name: &str) -> PathBuf {
    let dir = common::scratch_dir(&format!("import-fragments-{name}"));
    ad_tests::copy_example_models(&dir);
    dir
}

fn import(dir: &Path, args: &[&str]) -> std::process::Output {
    ad(dir).arg("import").args(args).output().unwrap()
}

/// Imports `flow` to `out/<out_name>` and asserts it succeeded.
fn import_ok(dir: &Path, flow: &str, out_name: &str) -> PathBuf {
    let target = dir.join("out").join(out_name);
    let out = import(
        dir,
        &[
            fixture(flow).to_str().unwrap(),
            "-o",
            target.to_str().unwrap(),
        ],
    );
    assert_eq!(exit_code(&out), 0, "{}{}", stdout(&out), stderr(&out));
    target
}

fn files_in(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

fn read(p: &Path) -> String {
    std::fs::read_to_string(p).unwrap()
}

/// What `--flatten` writes for `flow` as steps, and the `close` a composition ends with (its
/// recorded guards would make a close-less script a handoff script).
fn flattened_steps(dir: &Path, flow: &str) -> Vec<String> {
    let mut s = steps(&flattened(dir, flow));
    s.push("close".into());
    s
}

/// The steps of a script: no comments, blank lines, header or composition lines.
fn steps(text: &str) -> Vec<String> {
    text.lines()
        .map(str::trim)
        .filter(|l| {
            !l.is_empty()
                && !l.starts_with('#')
                && !l.starts_with("context ")
                && !l.starts_with("env ")
                && *l != "composition-v1"
        })
        .map(str::to_string)
        .collect()
}

/// The composition passes `ad check` (no AD808 or any other error) and `ad fmt --check`; `ad
/// build` writes a script agent-device's own reader accepts; the composition runs on the sim.
/// Returns the built script.
fn check_build_run(dir: &Path, composition: &Path) -> String {
    let check = ad(dir).arg("check").arg(composition).output().unwrap();
    assert_eq!(
        exit_code(&check),
        0,
        "ad check: {}{}",
        stdout(&check),
        stderr(&check)
    );
    assert!(!stdout(&check).contains("AD808"), "{}", stdout(&check));
    // Already formatted. (`ad fmt` reads a composition as a plain script, where its `env`
    // lines come after the `composition-v1` "action": AD030, as on examples/composition.)
    let fmt = ad(dir)
        .args(["fmt", "--check"])
        .arg(composition.parent().unwrap())
        .output()
        .unwrap();
    let said = format!("{}{}", stdout(&fmt), stderr(&fmt));
    assert!(said.contains("0 of "), "ad fmt --check: {said}");
    assert!(!said.contains("would reformat"), "ad fmt --check: {said}");
    std::fs::create_dir_all(dir.join("dist")).unwrap();
    let flat = dir.join("dist").join(composition.file_name().unwrap());
    let build = ad(dir)
        .arg("build")
        .arg(composition)
        .arg("-o")
        .arg(&flat)
        .output()
        .unwrap();
    assert_eq!(exit_code(&build), 0, "ad build: {}", stderr(&build));
    let oracle = ad_tests::run_oracle_one(&flat);
    assert_eq!(
        oracle["ok"], true,
        "agent-device's reader refuses the built composition: {oracle}"
    );
    let run = ad(dir)
        .arg("run")
        .arg(composition)
        .args(["--artifacts-dir", "runs"])
        .output()
        .unwrap();
    assert_eq!(
        exit_code(&run),
        0,
        "ad run: {}{}",
        stdout(&run),
        stderr(&run)
    );
    read(&flat)
}

/// What `--flatten` writes for `flow` (stdout).
fn flattened(dir: &Path, flow: &str) -> String {
    let out = import(dir, &[fixture(flow).to_str().unwrap(), "--flatten"]);
    assert_eq!(exit_code(&out), 0, "{}", stderr(&out));
    stdout(&out)
}

#[test]
fn one_run_flow_file_becomes_a_composition_and_a_fragment_with_a_recorded_guard() {
    let dir = project("one");
    let main = import_ok(&dir, "sign-in.yaml", "checkout.ad");
    assert_eq!(files_in(&dir.join("out")), ["checkout.ad", "sign-in.ad"]);

    let composition = read(&main);
    assert!(composition.contains("\ncomposition-v1\n"), "{composition}");
    assert!(
        composition.contains("\ncontext platform=ios target=mobile\n"),
        "{composition}"
    );
    assert!(
        composition.contains("\ninclude \"sign-in.ad\"\n"),
        "{composition}"
    );
    let fragment = read(&dir.join("out/sign-in.ad"));
    let lines: Vec<&str> = fragment.lines().filter(|l| !l.is_empty()).collect();
    let marker = lines.iter().position(|l| *l == "fragment-v1").unwrap();
    assert_eq!(lines[marker + 1], "context platform=ios target=mobile");
    // The guard: the flow's own first assertion, annotated with what the sim showed there.
    assert!(
        lines[marker + 2].starts_with("# agent-device:target-v1 {\"id\":\"login.email\""),
        "{fragment}"
    );
    assert!(
        lines[marker + 2].contains("\"verification\":\"verified\""),
        "{fragment}"
    );
    assert_eq!(
        lines[marker + 3],
        "wait \"id=\\\"login.email\\\" visible\" 17000"
    );
    // The pin holds the digest `ad check` computes (no AD806), and the build is the same steps
    // as the flattened import.
    let built = check_build_run(&dir, &main);
    assert_eq!(steps(&built), flattened_steps(&dir, "sign-in.yaml"));
}

#[test]
fn a_flow_included_twice_is_one_fragment_with_two_call_sites() {
    let dir = project("twice");
    let main = import_ok(&dir, "sign-in-twice.yaml", "twice.ad");
    assert_eq!(
        files_in(&dir.join("out")),
        ["open-profile.ad", "sign-in.ad", "twice.ad"]
    );
    let composition = read(&main);
    assert_eq!(
        composition.matches("include \"open-profile.ad\"").count(),
        2,
        "{composition}"
    );
    assert!(composition.contains("{\"callSiteId\":\"open-profile\","));
    assert!(composition.contains("{\"callSiteId\":\"open-profile-2\","));
    let built = check_build_run(&dir, &main);
    assert_eq!(steps(&built), flattened_steps(&dir, "sign-in-twice.yaml"));
}

#[test]
fn a_nested_run_flow_is_a_fragment_included_by_a_fragment() {
    let dir = project("nested");
    let main = import_ok(&dir, "nested.yaml", "nested.ad");
    assert_eq!(
        files_in(&dir.join("out")),
        ["nested.ad", "sign-in-and-open-profile.ad", "sign-in.ad"]
    );
    assert!(read(&main).contains("include \"sign-in-and-open-profile.ad\""));
    let outer = read(&dir.join("out/sign-in-and-open-profile.ad"));
    assert!(outer.contains("\nfragment-v1\n"), "{outer}");
    assert!(outer.contains("\ninclude \"sign-in.ad\"\n"), "{outer}");
    let built = check_build_run(&dir, &main);
    assert_eq!(steps(&built), flattened_steps(&dir, "nested.yaml"));
}

#[test]
fn the_assertion_before_the_run_flow_guards_a_flow_that_asserts_nothing_first() {
    let dir = project("caller");
    let main = import_ok(&dir, "guard-from-caller.yaml", "caller.ad");
    let fragment = read(&dir.join("out/fill-and-submit.ad"));
    let guard = "wait \"id=\\\"login.email\\\" visible\" 17000";
    let after_marker: Vec<&str> = fragment
        .lines()
        .skip_while(|l| *l != "fragment-v1")
        .collect();
    assert_eq!(after_marker[3], guard, "{fragment}");
    // The expansion repeats the caller's assertion as the fragment's first step, nothing else.
    let built = check_build_run(&dir, &main);
    let mut expected = flattened_steps(&dir, "guard-from-caller.yaml");
    let at = expected.iter().position(|s| s == guard).unwrap();
    expected.insert(at + 1, guard.to_string());
    assert_eq!(steps(&built), expected);
}

/// Imports `flow` expecting a refusal: exit 1, nothing written; returns stderr.
fn refused(name: &str, flow: &str) -> String {
    let dir = project(name);
    let target = dir.join("out/flow.ad");
    let out = import(
        &dir,
        &[
            fixture(flow).to_str().unwrap(),
            "-o",
            target.to_str().unwrap(),
        ],
    );
    assert_eq!(exit_code(&out), 1, "{}{}", stdout(&out), stderr(&out));
    assert!(!dir.join("out").exists(), "nothing is written on a refusal");
    stderr(&out)
}

#[test]
fn a_fragment_whose_guard_cannot_be_derived_is_refused_at_its_run_flow() {
    let err = refused("no-guard", "no-guard.yaml");
    assert!(
        err.contains(
            "no-guard.yaml:8:12: runFlow.file: fill-and-submit.yaml would become a fragment"
        ),
        "{err}"
    );
    assert!(err.contains("(AD808)"), "{err}");
    assert!(err.contains("pass --flatten"), "{err}");
}

#[test]
fn a_guard_that_does_not_pass_on_the_sim_is_refused() {
    let err = refused("not-on-screen", "guard-not-on-screen.yaml");
    assert!(
        err.contains("guard-not-on-screen.yaml:5:12: runFlow.file: its entry guard `wait \"id=\\\"checkout.pay\\\" visible\" 1000` could not be recorded on the simulated device"),
        "{err}"
    );
    assert!(err.contains("pass --flatten"), "{err}");
}

#[test]
fn an_included_flow_that_opens_the_app_is_refused() {
    let err = refused("opens-app", "opens-app.yaml");
    assert!(err.contains("relaunch.yaml:5:3: launchApp:"), "{err}");
    assert!(err.contains("AD807"), "{err}");
}

#[test]
fn flatten_still_writes_one_script() {
    let dir = project("flatten");
    let target = dir.join("out/flat.ad");
    let out = import(
        &dir,
        &[
            fixture("nested.yaml").to_str().unwrap(),
            "--flatten",
            "-o",
            target.to_str().unwrap(),
        ],
    );
    assert_eq!(exit_code(&out), 0, "{}", stderr(&out));
    assert_eq!(files_in(&dir.join("out")), ["flat.ad"]);
    let text = read(&target);
    assert!(
        !text.contains("include ") && !text.contains("composition-v1"),
        "{text}"
    );
    assert_eq!(text, flattened(&dir, "nested.yaml"));
    let check = ad(&dir).arg("check").arg(&target).output().unwrap();
    assert_eq!(exit_code(&check), 0, "{}", stdout(&check));
}

#[test]
fn fragments_need_an_output_file_and_never_replace_another_file() {
    let dir = project("usage");
    // stdout cannot hold several files.
    let out = import(&dir, &[fixture("sign-in.yaml").to_str().unwrap()]);
    assert_eq!(exit_code(&out), 2);
    assert!(stderr(&out).contains("pass -o OUT.ad"), "{}", stderr(&out));

    // A file of the same name beside OUT.ad that this import did not write stays.
    std::fs::create_dir_all(dir.join("out")).unwrap();
    std::fs::write(dir.join("out/sign-in.ad"), "mine\n").unwrap();
    let target = dir.join("out/checkout.ad");
    let args = [
        fixture("sign-in.yaml").to_str().unwrap().to_string(),
        "-o".into(),
        target.to_str().unwrap().into(),
    ];
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let out = import(&dir, &args);
    assert_eq!(exit_code(&out), 2, "{}", stderr(&out));
    assert!(stderr(&out).contains("already exists"), "{}", stderr(&out));
    assert_eq!(read(&dir.join("out/sign-in.ad")), "mine\n");
    assert!(!target.exists());

    // Importing again over the import's own files is fine: the same fragment is kept.
    std::fs::remove_file(dir.join("out/sign-in.ad")).unwrap();
    let first = import(&dir, &args);
    assert_eq!(exit_code(&first), 0, "{}", stderr(&first));
    let fragment = read(&dir.join("out/sign-in.ad"));
    let again = import(&dir, &args);
    assert_eq!(exit_code(&again), 0, "{}", stderr(&again));
    assert_eq!(read(&dir.join("out/sign-in.ad")), fragment);
}

#[test]
fn without_an_app_model_the_guard_is_not_recorded_and_app_names_one() {
    // No apps/ folder above the output: nothing to record the guard on.
    let dir = common::scratch_dir("import-fragments-no-model");
    let target = dir.join("out/checkout.ad");
    let flow = fixture("sign-in.yaml");
    let args = [flow.to_str().unwrap(), "-o", target.to_str().unwrap()];
    let out = import(&dir, &args);
    assert_eq!(exit_code(&out), 1, "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains("sign-in.yaml:7:12: runFlow.file: its entry guard"),
        "{err}"
    );
    assert!(
        err.contains("no app model for \"com.example.shop\""),
        "{err}"
    );
    assert!(!dir.join("out").exists());
    // --app names the model.
    let model = repo_root().join("examples/apps/shop.json");
    let out = import(
        &dir,
        &[&args[..], &["--app", model.to_str().unwrap()]].concat(),
    );
    assert_eq!(exit_code(&out), 0, "{}", stderr(&out));
    assert_eq!(files_in(&dir.join("out")), ["checkout.ad", "sign-in.ad"]);
}
