//! The npm package as a Node project installs it (issue 36): scripts/npm-pack.sh packs the
//! tarballs around the test build of `ad` (AD_NPM_BINARY, no release build), an empty Node
//! project in a scratch folder `npm install`s them offline, and `npx ad` runs: `--version`, `check`
//! (a clean and a failing folder), `run` of an example on the sim, `AD_BINARY`, exit codes and
//! signals passed through, and the error when the platform package is missing.
//!
//! Needs node and npm (scripts/test-all.sh installs them). npm runs with HOME and its cache in the
//! scratch folder and never reaches a registry (`--offline`), so the user's ~/.npm is untouched.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

const VERSION: &str = env!("CARGO_PKG_VERSION");

fn repo() -> PathBuf {
    ad_tests::repo_dir()
}

/// The npm platform package of the platform these tests run on.
fn this_platform() -> String {
    let os = match std::env::consts::OS {
        "macos" => "darwin",
        "windows" => "win32",
        other => other,
    };
    let arch = match std::env::consts::ARCH {
        "x86_64" => "x64",
        "aarch64" => "arm64",
        other => other,
    };
    let libc = match os {
        "linux" if cfg!(target_env = "musl") => "-musl",
        "linux" => "-gnu",
        _ => "",
    };
    format!("{os}-{arch}{libc}")
}

fn text(o: &Output) -> (String, String) {
    (
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

/// One test's scratch folder: npm's HOME and cache, the tarballs, the Node project.
struct Scratch {
    dir: PathBuf,
}

impl Scratch {
    fn new(name: &str) -> Scratch {
        let dir = ad_tests::scratch_dir(&format!("ad-npm-{name}"));
        std::fs::create_dir_all(dir.join("home")).unwrap();
        Scratch { dir }
    }

    /// A command with npm confined to this folder: its own HOME (and so no user .npmrc), cache,
    /// no registry, no update check, no audit.
    fn command(&self, program: impl AsRef<std::ffi::OsStr>, cwd: &Path) -> Command {
        let mut c = Command::new(program);
        c.current_dir(cwd)
            .env("HOME", self.dir.join("home"))
            .env("npm_config_cache", self.dir.join("npm-cache"))
            .env("npm_config_userconfig", self.dir.join("home/.npmrc"))
            .env("npm_config_offline", "true")
            .env("npm_config_update_notifier", "false")
            .env("npm_config_audit", "false")
            .env("npm_config_fund", "false")
            .env("NO_COLOR", "1")
            .env("AD_STATE_DIR", self.dir.join("ad-state"))
            .env_remove("AD_BINARY")
            .stdin(Stdio::null());
        c
    }

    /// Packs the tarballs with the test build of `ad`: (main package, platform package).
    fn pack(&self) -> (PathBuf, PathBuf) {
        npm_or_explain();
        let out = self.dir.join("tarballs");
        let o = self
            .command("bash", &self.dir)
            .arg(repo().join("scripts/npm-pack.sh"))
            .env("AD_NPM_BINARY", env!("CARGO_BIN_EXE_ad"))
            .env("AD_NPM_OUT", &out)
            .env_remove("AD_NPM_PLATFORM")
            .env_remove("AD_NPM_TARGET")
            .output()
            .expect("run scripts/npm-pack.sh");
        let (stdout, stderr) = text(&o);
        assert!(
            o.status.success(),
            "npm-pack.sh failed:\n{stdout}\n{stderr}"
        );
        let main = out.join(format!("ad-toolchain-ad-{VERSION}.tgz"));
        let platform = out.join(format!("ad-toolchain-ad-{}-{VERSION}.tgz", this_platform()));
        for t in [&main, &platform] {
            assert!(t.is_file(), "no {} after packing:\n{stdout}", t.display());
        }
        (main, platform)
    }

    /// An empty Node project with `tarballs` installed from the files alone.
    fn project(&self, tarballs: &[&Path]) -> PathBuf {
        let project = self.dir.join("project");
        std::fs::create_dir_all(&project).unwrap();
        std::fs::write(
            project.join("package.json"),
            "{ \"name\": \"flows\", \"version\": \"1.0.0\", \"private\": true }\n",
        )
        .unwrap();
        let o = self
            .command("npm", &project)
            .args([
                "install",
                "--offline",
                "--no-audit",
                "--no-fund",
                "--save-dev",
            ])
            .args(tarballs)
            .output()
            .expect("run npm install");
        let (stdout, stderr) = text(&o);
        assert!(
            o.status.success(),
            "npm install of the tarballs failed:\n{stdout}\n{stderr}"
        );
        project
    }

    fn npx_ad(&self, project: &Path, args: &[&str]) -> Output {
        self.command("npx", project)
            .args(["--no-install", "ad"])
            .args(args)
            .output()
            .expect("run npx ad")
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        // A failing test keeps its folder to look at.
        if !std::thread::panicking() {
            let _ = std::fs::remove_dir_all(&self.dir);
        }
    }
}

fn npm_or_explain() {
    let found = Command::new("npm")
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    assert!(
        found,
        "the npm package test needs node and npm on PATH: install them (Debian: `apt-get install nodejs npm`; scripts/test-all.sh does)"
    );
}

/// `ad args…` run directly, as npx's output should be.
fn ad_direct(dir: &Path, scratch: &Scratch, args: &[&str]) -> Output {
    scratch
        .command(env!("CARGO_BIN_EXE_ad"), dir)
        .args(args)
        .output()
        .unwrap()
}

#[test]
fn npx_ad_runs_the_installed_binary_like_ad_itself() {
    let scratch = Scratch::new("installed");
    let (main, platform) = scratch.pack();
    let project = scratch.project(&[&main, &platform]);

    // Stamped with the workspace version, and the binary is where the platform package says.
    let installed =
        std::fs::read_to_string(project.join("node_modules/@ad-toolchain/ad/package.json"))
            .expect("the main package is installed");
    assert!(
        installed.contains(&format!("\"version\": \"{VERSION}\"")),
        "{installed}"
    );
    let platform_dir = project.join(format!("node_modules/@ad-toolchain/ad-{}", this_platform()));
    assert!(
        platform_dir.join("ad").is_file(),
        "no binary in {}",
        platform_dir.display()
    );

    let version = scratch.npx_ad(&project, &["--version"]);
    let (stdout, stderr) = text(&version);
    assert_eq!(version.status.code(), Some(0), "{stdout}\n{stderr}");
    assert!(stdout.starts_with(&format!("ad {VERSION} ")), "{stdout}");
    assert_eq!(
        stdout,
        text(&ad_direct(&project, &scratch, &["--version"])).0
    );

    // A clean folder and a folder with an error: npx gives exactly what ad gives.
    let flows = project.join("flows");
    std::fs::create_dir_all(flows.join("broken")).unwrap();
    std::fs::copy(
        repo().join("examples/navigation.ad"),
        flows.join("navigation.ad"),
    )
    .unwrap();
    std::fs::write(
        flows.join("broken/typo.ad"),
        "context platform=ios\nopen \"com.example.shop\"\nclik \"id=\\\"login.submit\\\"\"\n",
    )
    .unwrap();
    let clean = scratch.npx_ad(&project, &["check", "flows/navigation.ad"]);
    let (out, err) = text(&clean);
    assert_eq!(clean.status.code(), Some(0), "{out}\n{err}");
    assert!(out.contains("0 errors"), "{out}\n{err}");
    let failing = scratch.npx_ad(&project, &["check", "flows/"]);
    let (out, err) = text(&failing);
    assert_eq!(failing.status.code(), Some(1), "{out}\n{err}");
    let report = format!("{out}{err}");
    assert!(report.contains("AD101"), "{report}");
    assert!(report.contains("typo.ad:3"), "{report}");
    for (via_npx, args) in [
        (&clean, ["check", "flows/navigation.ad"]),
        (&failing, ["check", "flows/"]),
    ] {
        let direct = ad_direct(&project, &scratch, &args);
        assert_eq!(
            text(via_npx),
            text(&direct),
            "npx ad {args:?} differs from ad"
        );
        assert_eq!(via_npx.status.code(), direct.status.code());
    }

    // The VS Code extension's lookup finds this project's node_modules/.bin/ad, and it runs.
    let lookup = scratch
        .command("node", &repo().join("editors/vscode/test"))
        .arg("server-path.test.mjs")
        .arg(&project)
        .output()
        .expect("run node");
    let (out, err) = text(&lookup);
    assert!(
        lookup.status.success(),
        "the extension's lookup:\n{out}\n{err}"
    );

    // An example script on the simulated device, with its app models beside it.
    ad_tests::copy_example_models(&project);
    let artifacts = scratch.dir.join("artifacts");
    let run = scratch.npx_ad(
        &project,
        &[
            "run",
            "flows/navigation.ad",
            "--artifacts-dir",
            artifacts.to_str().unwrap(),
        ],
    );
    let (out, err) = text(&run);
    assert_eq!(run.status.code(), Some(0), "{out}\n{err}");
    assert!(
        format!("{out}{err}").contains("ok: flows/navigation.ad"),
        "{out}\n{err}"
    );
    let journals = std::fs::read_dir(&artifacts)
        .map(|d| d.count())
        .unwrap_or(0);
    assert!(
        journals > 0,
        "the run wrote no journal under {}",
        artifacts.display()
    );
}

#[cfg(unix)]
fn script(scratch: &Scratch, name: &str, body: &str) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let path = scratch.dir.join(name);
    std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path
}

#[cfg(unix)]
#[test]
fn the_launcher_passes_arguments_exit_codes_and_signals_through() {
    use std::os::unix::process::ExitStatusExt;
    let scratch = Scratch::new("passthrough");
    let (main, platform) = scratch.pack();
    let project = scratch.project(&[&main, &platform]);
    // What a package.json script runs: npm puts node_modules/.bin on PATH.
    let launcher = project.join("node_modules/.bin/ad");

    // AD_BINARY wins over the platform package; arguments and the exit code come through.
    let echo = script(&scratch, "echo-exit.sh", "printf '%s|' \"$@\"; exit 7");
    let via_npx = scratch
        .command("npx", &project)
        .args(["--no-install", "ad", "check", "two words", "--x"])
        .env("AD_BINARY", &echo)
        .output()
        .unwrap();
    let (out, err) = text(&via_npx);
    assert_eq!(via_npx.status.code(), Some(7), "{out}\n{err}");
    assert_eq!(out, "check|two words|--x|");

    // `ad` killed by a signal: the launcher dies of the same signal.
    let killed = script(&scratch, "killed.sh", "kill -TERM $$");
    let o = scratch
        .command(&launcher, &project)
        .env("AD_BINARY", &killed)
        .output()
        .unwrap();
    assert_eq!(
        o.status.signal(),
        Some(libc::SIGTERM),
        "{:?} {:?}",
        o.status,
        text(&o)
    );

    // SIGTERM to the launcher alone (a cancelled CI job) reaches `ad`, which ends as it chooses.
    let waits = script(
        &scratch,
        "waits.sh",
        "trap 'kill $sleeper; exit 42' TERM\nsleep 600 & sleeper=$!\necho ready\nwait $sleeper",
    );
    let mut child = scratch
        .command(&launcher, &project)
        .env("AD_BINARY", &waits)
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    assert_eq!(line, "ready\n");
    // SAFETY: kill(2) on the launcher this test started and has not yet reaped.
    assert_eq!(unsafe { libc::kill(child.id() as i32, libc::SIGTERM) }, 0);
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(42), "{status:?}");

    // AD_BINARY naming nothing: a clear error, ad's exit code for "could not run".
    let missing = scratch.dir.join("no-such-ad");
    let o = scratch
        .command(&launcher, &project)
        .env("AD_BINARY", &missing)
        .output()
        .unwrap();
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(2), "{out}\n{err}");
    assert!(
        err.contains(&format!("AD_BINARY={}", missing.display())),
        "{err}"
    );
}

#[test]
fn without_the_platform_package_npx_ad_says_how_to_get_ad() {
    let scratch = Scratch::new("missing");
    let (main, _) = scratch.pack();
    let project = scratch.project(&[&main]);
    let platform = this_platform();
    assert!(
        !project
            .join(format!("node_modules/@ad-toolchain/ad-{platform}"))
            .exists(),
        "the platform package was installed from somewhere"
    );
    let o = scratch.npx_ad(&project, &["--version"]);
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(2), "{out}\n{err}");
    assert_eq!(out, "");
    assert!(
        err.contains(&format!("no prebuilt `ad` for {platform}")),
        "{err}"
    );
    assert!(
        err.contains(&format!("@ad-toolchain/ad-{platform} is not installed")),
        "{err}"
    );
    assert!(err.contains("cargo install --locked --path cli"), "{err}");
}
