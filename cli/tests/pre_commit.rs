//! The pre-commit hooks of `.pre-commit-hooks.yaml`, run by the `pre-commit` tool itself the way a
//! user runs them: a scratch project repository whose `.pre-commit-config.yaml` points at a local
//! repository holding this checkout's hook definitions (no network), `pre-commit install`, then
//! `git commit`. A staged script with an error, or one `ad fmt` would rewrite, stops the commit; a
//! clean one goes through.
//!
//! Needs `pre-commit` (Debian: `apt-get install pre-commit`, or `pip install pre-commit`;
//! scripts/test-all.sh installs it) and git; `$AD_PRE_COMMIT` names another pre-commit to use.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use common::*;

fn pre_commit() -> PathBuf {
    let program = std::env::var_os("AD_PRE_COMMIT")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("pre-commit"));
    match Command::new(&program).arg("--version").output() {
        Ok(out) if out.status.success() => program,
        _ => panic!(
            "`{}` is not installed: the pre-commit hook test needs it. Install it with \
             `apt-get install pre-commit` (Debian) or `pip install pre-commit`, or point \
             AD_PRE_COMMIT at one (scripts/test-all.sh installs it)",
            program.display()
        ),
    }
}

/// A command with a hermetic git and pre-commit: no user or system git configuration (a global
/// `core.hooksPath` would make `pre-commit install` refuse), a fixed identity, pre-commit's cache
/// in the scratch folder, and this build's `ad` first on PATH.
fn hermetic(program: &Path, scratch: &Path, cwd: &Path) -> Command {
    let ad_dir = Path::new(env!("CARGO_BIN_EXE_ad"))
        .parent()
        .expect("the ad binary is in a folder");
    let path = std::env::join_paths(std::iter::once(ad_dir.to_path_buf()).chain(
        std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()),
    ))
    .expect("PATH joins");
    let mut cmd = Command::new(program);
    cmd.current_dir(cwd)
        .env("PATH", path)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_AUTHOR_NAME", "ad tests")
        .env("GIT_AUTHOR_EMAIL", "tests@ad.invalid")
        .env("GIT_COMMITTER_NAME", "ad tests")
        .env("GIT_COMMITTER_EMAIL", "tests@ad.invalid")
        .env("PRE_COMMIT_HOME", scratch.join("pre-commit-home"))
        .env("NO_COLOR", "1")
        .env("AD_STATE_DIR", scratch.join("ad-state"));
    cmd
}

fn run(cmd: &mut Command) -> Output {
    cmd.output().unwrap_or_else(|e| panic!("{cmd:?} runs: {e}"))
}

fn text(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

fn git(scratch: &Path, cwd: &Path, args: &[&str]) -> Output {
    let out = run(hermetic(Path::new("git"), scratch, cwd).args(args));
    assert!(out.status.success(), "git {args:?}: {}", text(&out));
    out
}

fn head(scratch: &Path, repo: &Path) -> String {
    String::from_utf8(git(scratch, repo, &["rev-parse", "HEAD"]).stdout)
        .expect("a commit id")
        .trim()
        .to_string()
}

#[test]
fn staged_scripts_are_checked_and_format_checked_by_the_hooks() {
    let pre_commit = pre_commit();
    let scratch = scratch_dir("pre-commit");

    // The hooks as this checkout defines them, in a repository of their own.
    let hooks = scratch.join("hooks");
    std::fs::create_dir_all(&hooks).unwrap();
    git(&scratch, &hooks, &["init", "-q"]);
    std::fs::copy(
        repo_root().join(".pre-commit-hooks.yaml"),
        hooks.join(".pre-commit-hooks.yaml"),
    )
    .expect(".pre-commit-hooks.yaml is at the repository root");
    git(&scratch, &hooks, &["add", "."]);
    git(&scratch, &hooks, &["commit", "-q", "-m", "hooks"]);
    let rev = head(&scratch, &hooks);

    // A project that uses them, as docs/ci.md shows.
    let project = scratch.join("project");
    std::fs::create_dir_all(&project).unwrap();
    git(&scratch, &project, &["init", "-q"]);
    std::fs::write(
        project.join(".pre-commit-config.yaml"),
        format!(
            "repos:\n  - repo: {}\n    rev: {rev}\n    hooks:\n      - id: ad-check\n      - id: ad-fmt\n",
            hooks.display()
        ),
    )
    .unwrap();
    git(&scratch, &project, &["add", "."]);
    git(
        &scratch,
        &project,
        &["commit", "-q", "-m", "pre-commit configuration"],
    );
    let installed = run(hermetic(&pre_commit, &scratch, &project).arg("install"));
    assert!(
        installed.status.success(),
        "pre-commit install: {}",
        text(&installed)
    );
    let before = head(&scratch, &project);

    let fixtures = repo_root().join("cli/tests/fixtures");
    let commit = |source: &str, name: &str| -> Output {
        std::fs::copy(fixtures.join(source), project.join(name)).expect("the fixture copies");
        git(&scratch, &project, &["add", name]);
        run(hermetic(Path::new("git"), &scratch, &project).args(["commit", "-m", name]))
    };

    // An error: ad check fails and the commit does not happen.
    let out = commit("ci/flows/sign-in.ad", "sign-in.ad");
    let report = text(&out);
    assert!(!out.status.success(), "the commit is stopped:\n{report}");
    assert!(
        report.contains("ad check") && report.contains("Failed") && report.contains("[AD201]"),
        "the ad-check hook fails with the finding:\n{report}"
    );
    assert_eq!(head(&scratch, &project), before, "nothing was committed");
    git(&scratch, &project, &["rm", "-q", "--cached", "sign-in.ad"]);
    std::fs::remove_file(project.join("sign-in.ad")).unwrap();

    // Not canonically formatted: ad fmt --check fails (ad check passes).
    let out = commit("pre-commit/unformatted.ad", "unformatted.ad");
    let report = text(&out);
    assert!(!out.status.success(), "the commit is stopped:\n{report}");
    assert!(
        report.contains("ad fmt --check")
            && report.contains("would reformat unformatted.ad")
            && report.contains("ad check.")
            && report.contains("Passed"),
        "only the ad-fmt hook fails:\n{report}"
    );
    assert_eq!(head(&scratch, &project), before, "nothing was committed");
    git(
        &scratch,
        &project,
        &["rm", "-q", "--cached", "unformatted.ad"],
    );
    std::fs::remove_file(project.join("unformatted.ad")).unwrap();

    // Clean and formatted: both hooks pass and the commit is made.
    let out = commit("pre-commit/good.ad", "good.ad");
    let report = text(&out);
    assert!(out.status.success(), "the commit goes through:\n{report}");
    assert_eq!(
        report.matches("Passed").count(),
        2,
        "both hooks ran and passed:\n{report}"
    );
    assert_ne!(head(&scratch, &project), before, "the script was committed");
    let _ = std::fs::remove_dir_all(&scratch);
}
