//! Finding, launching and reaping Chromium.
//!
//! The browser gets a fresh temporary profile, a loopback DevTools port it picks itself (read
//! from its `DevTools listening on ws://…` announcement, never guessed) and flags that stop its
//! own background traffic. It runs in a process group of its own with a parent-death signal, so
//! it is reaped on every way a run can end: [`Browser`]'s `Drop` kills the group (normal end,
//! failed step, Ctrl-C), and the kernel kills it when `ad` itself dies (even by `kill -9`).

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use crate::core::backend::BackendError;
use crate::core::environment::Environment;
use crate::core::records::SetupProblem;

/// Where the browser is looked for when neither `--browser` nor `CHROME_PATH` says.
pub const DEFAULT_BROWSER_PATHS: &[&str] = &[
    "/usr/bin/chromium",
    "/usr/bin/chromium-browser",
    "/usr/bin/google-chrome",
];

/// What to install when no browser is found (Debian, as CI and the README do).
pub const INSTALL_HINT: &str =
    "install Chromium (`apt-get install chromium` as root on Debian/Ubuntu), or point CHROME_PATH at a Chromium or Chrome binary";

/// How long the browser may take to announce its DevTools endpoint.
const ANNOUNCE_TIMEOUT: Duration = Duration::from_secs(30);

/// How long `ad doctor` waits for `<browser> --version` (`AD_PROBE_TIMEOUT_MS` overrides): a
/// program that never answers must not hang the check.
pub const PROBE_TIMEOUT: Duration = Duration::from_secs(10);

/// A browser the web backend cannot use: what is wrong, and [`INSTALL_HINT`] or another fix.
/// `ad doctor` and a run that cannot start say the same words.
fn missing(problem: String, fix: &str) -> SetupProblem {
    SetupProblem::new("web", problem, Some(fix))
}

/// How the browser is launched.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct LaunchConfig {
    /// `--browser PATH`; else `CHROME_PATH`; else [`DEFAULT_BROWSER_PATHS`].
    pub executable: Option<PathBuf>,
    /// Pin name resolution to loopback (`--offline`, and every test).
    pub offline: bool,
    /// The window (and so the viewport) size in CSS pixels.
    pub window: (u32, u32),
    /// Which pages the browser may show (`--allow-local-urls`, the script's folder).
    #[serde(default)]
    pub urls: super::UrlPolicy,
    /// The environment `CHROME_PATH` and the temp folder are read from and the browser runs
    /// in: this process's, or (in the session daemon) the run's own client's. Never serialized:
    /// a run request carries it once, for every backend.
    #[serde(skip)]
    pub env: Environment,
    /// A browser kept across runs (an `ad test` worker's): each run opens a browser context of
    /// its own in it instead of launching one. `None`: the run launches and reaps its own.
    #[serde(skip)]
    pub shared: Option<SharedBrowser>,
}

impl Default for LaunchConfig {
    fn default() -> Self {
        LaunchConfig {
            executable: None,
            offline: false,
            window: (1280, 800),
            urls: Default::default(),
            env: Environment::inherited(),
            shared: None,
        }
    }
}

/// The browser binary to run, or what is missing.
pub fn find_browser(explicit: Option<&Path>, env: &Environment) -> Result<PathBuf, SetupProblem> {
    if let Some(p) = explicit {
        return if p.is_file() {
            Ok(p.to_path_buf())
        } else {
            Err(missing(
                format!("browser {} does not exist", p.display()),
                INSTALL_HINT,
            ))
        };
    }
    if let Some(p) = env.var_os("CHROME_PATH").filter(|v| !v.is_empty()) {
        let p = PathBuf::from(p);
        return if p.is_file() {
            Ok(p)
        } else {
            Err(missing(
                format!("CHROME_PATH={} does not exist", p.display()),
                INSTALL_HINT,
            ))
        };
    }
    DEFAULT_BROWSER_PATHS
        .iter()
        .map(PathBuf::from)
        .find(|p| p.is_file())
        .ok_or_else(|| {
            missing(
                format!(
                    "Chromium is not installed (looked for {})",
                    DEFAULT_BROWSER_PATHS.join(", ")
                ),
                INSTALL_HINT,
            )
        })
}

fn effective_uid() -> u32 {
    // SAFETY: geteuid has no preconditions and cannot fail.
    unsafe { libc::geteuid() }
}

/// Is this process root? Chromium refuses to run its sandbox as root.
pub fn running_as_root() -> bool {
    effective_uid() == 0
}

/// The browser's command line (after the binary).
pub fn browser_args(profile: &Path, config: &LaunchConfig) -> Vec<String> {
    let mut args: Vec<String> = [
        "--headless",
        "--remote-debugging-address=127.0.0.1",
        // Port 0: the browser picks a free port and announces it on stderr.
        "--remote-debugging-port=0",
        // No traffic of the browser's own: updates, sync, crash reports, pings, extensions.
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
        "--no-default-browser-check",
        "--disable-extensions",
        "--disable-breakpad",
        "--disable-domain-reliability",
        "--no-pings",
        // Scrolls land at once, so the next capture sees where a wheel event went.
        "--disable-smooth-scrolling",
        // Containers often have a tiny /dev/shm.
        "--disable-dev-shm-usage",
        "--mute-audio",
        // No first tab: the run's page is made in a browser context of its own, so a startup
        // tab's renderer would only compete with the browser's start (about 180 ms later to a
        // page ready for the first navigation on two loaded cores).
        "--no-startup-window",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    args.push(format!("--user-data-dir={}", profile.display()));
    args.push(format!(
        "--window-size={},{}",
        config.window.0, config.window.1
    ));
    if running_as_root() {
        // Chromium's sandbox cannot run as root; only then is it turned off.
        args.push("--no-sandbox".into());
    }
    if config.offline {
        args.push("--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1".into());
    }
    args
}

/// A running browser. Dropping it kills its whole process group and removes its profile.
pub struct Browser {
    child: Child,
    profile: PathBuf,
    /// `ws://127.0.0.1:<port>/devtools/browser/<id>`, from the announcement.
    pub ws_url: String,
    pub executable: PathBuf,
}

impl Browser {
    /// Launches the browser and waits for its DevTools announcement; what keeps it from
    /// starting is a [`SetupProblem`] (`BackendError::Unavailable`), and a stop request (Ctrl-C)
    /// while it starts ends the wait (`BackendError::Interrupted`, the browser killed).
    pub fn launch(config: &LaunchConfig) -> Result<Browser, BackendError> {
        let exe = find_browser(config.executable.as_deref(), &config.env)?;
        let profile = temp_profile(&config.env.temp_dir()).map_err(|e| {
            missing(
                e,
                "make the temporary folder writable, or point TMPDIR at one that is",
            )
        })?;
        let mut cmd = Command::new(&exe);
        config.env.apply(&mut cmd);
        cmd.args(browser_args(&profile, config))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped());
        own_group_and_parent_death(&mut cmd);
        let mut child = match cmd.spawn() {
            Ok(c) => c,
            Err(e) => {
                let _ = std::fs::remove_dir_all(&profile);
                return Err(
                    missing(format!("cannot start {}: {e}", exe.display()), INSTALL_HINT).into(),
                );
            }
        };
        let stderr = child.stderr.take().expect("piped stderr");
        let (tx, rx) = std::sync::mpsc::channel::<Result<String, String>>();
        // Reads the announcement, then keeps draining stderr so the browser never blocks on a
        // full pipe.
        let _ = std::thread::Builder::new()
            .name("ad-chromium-stderr".into())
            .spawn(move || {
                let mut tail: Vec<String> = Vec::new();
                let mut announced = false;
                for line in BufReader::new(stderr).lines() {
                    let Ok(line) = line else { break };
                    if !announced {
                        if let Some(url) = line.strip_prefix("DevTools listening on ") {
                            announced = true;
                            let _ = tx.send(Ok(url.trim().to_string()));
                        } else {
                            tail.push(line);
                            if tail.len() > 8 {
                                tail.remove(0);
                            }
                        }
                    }
                }
                if !announced {
                    let _ = tx.send(Err(tail.join("\n")));
                }
            });
        let mut browser = Browser {
            child,
            profile,
            ws_url: String::new(),
            executable: exe.clone(),
        };
        let check = "point CHROME_PATH at a working Chromium or Chrome (`ad doctor` checks it), or reinstall it (`apt-get install chromium` as root on Debian/Ubuntu)";
        // Waited for in slices, so a stop request is seen while the browser starts.
        let end = std::time::Instant::now() + ANNOUNCE_TIMEOUT;
        let announced = loop {
            match rx.recv_timeout(Duration::from_millis(100)) {
                Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {
                    if let Some(signal) = crate::core::interrupt::requested() {
                        return Err(BackendError::interrupted(signal));
                    }
                    if std::time::Instant::now() < end {
                        continue;
                    }
                    break None;
                }
                Ok(a) => break Some(a),
                Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => {
                    break Some(Err(String::new()))
                }
            }
        };
        let problem = |p: SetupProblem| Err(BackendError::Unavailable(p));
        match announced {
            Some(Ok(url)) if url.starts_with("ws://127.0.0.1:") => {
                browser.ws_url = url;
                Ok(browser)
            }
            Some(Ok(url)) => problem(missing(
                format!(
                    "{} announced DevTools on {url}, not on loopback",
                    exe.display()
                ),
                check,
            )),
            Some(Err(stderr)) => problem(missing(
                format!(
                    "{} exited before announcing its DevTools endpoint{}",
                    exe.display(),
                    if stderr.is_empty() {
                        String::new()
                    } else {
                        format!(":\n{stderr}")
                    }
                ),
                check,
            )),
            None => problem(missing(
                format!(
                    "{} did not announce its DevTools endpoint within {} s",
                    exe.display(),
                    ANNOUNCE_TIMEOUT.as_secs()
                ),
                check,
            )),
        }
    }

    /// The browser's process id (its process group id too).
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Has the browser exited (crashed, killed)?
    pub fn exited(&mut self) -> bool {
        !matches!(self.child.try_wait(), Ok(None))
    }

    /// Kills the browser's process group, waits for the browser, removes the profile.
    pub fn shutdown(&mut self) {
        let pgid = self.child.id() as i32;
        if pgid > 0 {
            // SAFETY: kill has no memory preconditions; a negative pid names the group the
            // browser leads (it was started with process_group(0)).
            unsafe {
                libc::kill(-pgid, libc::SIGKILL);
            }
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
        if !self.profile.as_os_str().is_empty() {
            // The renderers may still be exiting: one retry covers a file they were writing.
            if std::fs::remove_dir_all(&self.profile).is_err() {
                std::thread::sleep(Duration::from_millis(50));
                let _ = std::fs::remove_dir_all(&self.profile);
            }
            self.profile = PathBuf::new();
        }
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        self.shutdown();
    }
}

/// One browser for many runs: an `ad test` worker launches it for its first web script and
/// every later script opens a fresh browser context in it (its own cookies, storage,
/// permissions and pages, disposed when the script ends), as Playwright runs a suite. A browser
/// that died is relaunched for the next script; [`SharedBrowser::shutdown`] (or the last clone
/// dropped) reaps it as [`Browser`]'s `Drop` does, and the parent-death signal still covers
/// `kill -9` (the worker thread that launched it lives as long as the suite).
#[derive(Clone, Default)]
pub struct SharedBrowser(std::sync::Arc<std::sync::Mutex<SharedState>>);

#[derive(Default)]
struct SharedState {
    browser: Option<Browser>,
    launches: usize,
}

impl SharedBrowser {
    fn state(&self) -> std::sync::MutexGuard<'_, SharedState> {
        // A worker that panicked holding the lock left a browser that is still reaped here.
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The DevTools endpoint of the running browser, launching it first when none runs or the
    /// last one exited (crashed, killed).
    pub fn endpoint(&self, config: &LaunchConfig) -> Result<String, BackendError> {
        let mut s = self.state();
        if s.browser.as_mut().is_some_and(|b| b.exited()) {
            s.browser = None;
        }
        if s.browser.is_none() {
            s.browser = Some(Browser::launch(config)?);
            s.launches += 1;
        }
        Ok(s.browser
            .as_ref()
            .map(|b| b.ws_url.clone())
            .unwrap_or_default())
    }

    /// Kills a browser that runs but does not answer, so the next [`SharedBrowser::endpoint`]
    /// launches a new one.
    pub fn discard(&self) {
        self.state().browser = None;
    }

    /// How many browsers were launched so far.
    pub fn launches(&self) -> usize {
        self.state().launches
    }

    /// The running browser's process id.
    pub fn pid(&self) -> Option<u32> {
        self.state().browser.as_ref().map(Browser::pid)
    }

    /// Kills the browser (its whole process group) and removes its profile.
    pub fn shutdown(&self) {
        self.state().browser = None;
    }
}

impl std::fmt::Debug for SharedBrowser {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SharedBrowser")
            .field("pid", &self.pid())
            .finish()
    }
}

/// The same shared browser (a configuration compares equal to its clone).
impl PartialEq for SharedBrowser {
    fn eq(&self, other: &Self) -> bool {
        std::sync::Arc::ptr_eq(&self.0, &other.0)
    }
}

/// Puts the child in a process group of its own (so the whole browser, renderers included, is
/// killed at once) and asks the kernel to SIGKILL it when `ad` dies.
fn own_group_and_parent_death(cmd: &mut Command) {
    use std::os::unix::process::CommandExt;
    cmd.process_group(0);
    #[cfg(target_os = "linux")]
    {
        // SAFETY: getpid has no preconditions.
        let parent = unsafe { libc::getpid() };
        // SAFETY: the closure runs between fork and exec and calls only async-signal-safe
        // functions (prctl, getppid, _exit). The death signal is tied to the thread that forks:
        // runs own their browser on the thread that started it, for the run's whole length.
        unsafe {
            cmd.pre_exec(move || {
                if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL as libc::c_ulong) != 0 {
                    return Err(std::io::Error::last_os_error());
                }
                // `ad` died between fork and prctl: do not start an orphan.
                if libc::getppid() != parent {
                    libc::_exit(1);
                }
                Ok(())
            });
        }
    }
}

/// Removes the profiles of runs whose `ad` died without cleaning up (`kill -9`): a profile is
/// named for the process that made it, and is stale once that process is gone.
fn remove_stale_profiles(tmp: &Path) {
    let Ok(entries) = std::fs::read_dir(tmp) else {
        return;
    };
    for e in entries.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        let Some(pid) = name
            .strip_prefix("ad-chromium-")
            .and_then(|r| r.split('-').next())
            .and_then(|p| p.parse::<i32>().ok())
        else {
            continue;
        };
        // SAFETY: kill with signal 0 only checks whether the process exists.
        let alive = unsafe { libc::kill(pid, 0) == 0 }
            || std::io::Error::last_os_error().raw_os_error() == Some(libc::EPERM);
        let owned = std::fs::symlink_metadata(e.path()).is_ok_and(|m| {
            use std::os::unix::fs::MetadataExt;
            m.is_dir() && m.uid() == effective_uid()
        });
        if !alive && owned {
            let _ = std::fs::remove_dir_all(e.path());
        }
    }
}

/// A fresh, private profile folder under the run's temp folder `tmp`
/// (`ad-chromium-<pid>-XXXXXX`, 0700).
fn temp_profile(tmp: &Path) -> Result<PathBuf, String> {
    use std::os::unix::ffi::OsStrExt;
    remove_stale_profiles(tmp);
    let template = tmp.join(format!("ad-chromium-{}-XXXXXX", std::process::id()));
    let mut bytes = template.as_os_str().as_bytes().to_vec();
    bytes.push(0);
    // SAFETY: `bytes` is a NUL-terminated, writable buffer ending in XXXXXX, as mkdtemp needs.
    let made = unsafe { libc::mkdtemp(bytes.as_mut_ptr().cast()) };
    if made.is_null() {
        return Err(format!(
            "cannot create a browser profile in {}: {}",
            tmp.display(),
            std::io::Error::last_os_error()
        ));
    }
    bytes.pop();
    Ok(PathBuf::from(std::ffi::OsStr::from_bytes(&bytes)))
}

/// What `ad doctor` learns about the browser without starting a session.
#[derive(Debug, Clone, PartialEq)]
pub struct BrowserProbe {
    pub executable: Option<PathBuf>,
    /// `Chromium 156.0.8078.114 …`.
    pub version: Option<String>,
    /// Sandbox status: on, or off because `ad` runs as root.
    pub sandbox: &'static str,
    /// What is missing, in the words a run that cannot launch the browser uses; `None` when
    /// the backend is usable.
    pub missing: Option<SetupProblem>,
}

/// Finds the browser and asks it for its version.
pub fn probe(config: &LaunchConfig) -> BrowserProbe {
    let sandbox = if running_as_root() {
        "off (running as root: --no-sandbox)"
    } else {
        "on"
    };
    let exe = match find_browser(config.executable.as_deref(), &config.env) {
        Ok(p) => p,
        Err(e) => {
            return BrowserProbe {
                executable: None,
                version: None,
                sandbox,
                missing: Some(e),
            }
        }
    };
    let limit = config
        .env
        .var_os("AD_PROBE_TIMEOUT_MS")
        .and_then(|v| v.to_str()?.parse().ok())
        .map(Duration::from_millis)
        .unwrap_or(PROBE_TIMEOUT);
    let failed = |problem: String, fix: &str| BrowserProbe {
        executable: Some(exe.clone()),
        version: None,
        sandbox,
        missing: Some(missing(problem, fix)),
    };
    let mut cmd = Command::new(&exe);
    config.env.apply(&mut cmd);
    cmd.arg("--version")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null());
    match run_within(cmd, limit) {
        Ok(Some((status, stdout))) if status.success() => {
            let version = String::from_utf8_lossy(&stdout).trim().to_string();
            if version.is_empty() {
                return failed(
                    format!("{} --version printed nothing", exe.display()),
                    INSTALL_HINT,
                );
            }
            BrowserProbe {
                executable: Some(exe),
                version: Some(version),
                sandbox,
                missing: None,
            }
        }
        Ok(Some((status, _))) => failed(
            format!("{} --version failed ({status})", exe.display()),
            INSTALL_HINT,
        ),
        Ok(None) => failed(
            format!(
                "{} does not answer: `--version` gave nothing within {} ms",
                exe.display(),
                limit.as_millis()
            ),
            "point CHROME_PATH (or --browser) at a Chromium or Chrome binary, not a program that waits; or reinstall it (`apt-get install chromium` as root on Debian/Ubuntu)",
        ),
        Err(e) => failed(format!("cannot run {}: {e}", exe.display()), INSTALL_HINT),
    }
}

/// Runs `cmd` (in a process group of its own) for at most `limit`: its exit status and stdout,
/// or `None` when it did not finish in time (the whole group is killed).
fn run_within(
    mut cmd: Command,
    limit: Duration,
) -> std::io::Result<Option<(std::process::ExitStatus, Vec<u8>)>> {
    use std::io::Read;
    use std::os::unix::process::CommandExt;
    cmd.process_group(0);
    let mut child = cmd.spawn()?;
    let mut stdout = child.stdout.take();
    let (tx, rx) = std::sync::mpsc::channel();
    // Read on the side, so a chatty program never blocks on a full pipe.
    let _ = std::thread::Builder::new()
        .name("ad-probe-stdout".into())
        .spawn(move || {
            let mut buf = Vec::new();
            if let Some(out) = stdout.as_mut() {
                let _ = out.take(64 * 1024).read_to_end(&mut buf);
            }
            let _ = tx.send(buf);
        });
    let end = std::time::Instant::now() + limit;
    let status = loop {
        if let Some(status) = child.try_wait()? {
            break Some(status);
        }
        if std::time::Instant::now() >= end {
            break None;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let Some(status) = status else {
        // SAFETY: kill has no memory preconditions; the negative pid is the group this child
        // leads (started with process_group(0)).
        unsafe {
            libc::kill(-(child.id() as i32), libc::SIGKILL);
        }
        let _ = child.kill();
        let _ = child.wait();
        return Ok(None);
    };
    Ok(Some((
        status,
        rx.recv_timeout(Duration::from_secs(1)).unwrap_or_default(),
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_browser_is_the_one_chrome_path_names_in_the_given_environment() {
        let e = find_browser(
            None,
            &Environment::from_vars([("CHROME_PATH".into(), "/nonexistent".into())], 0o022),
        )
        .expect_err("CHROME_PATH names nothing")
        .to_string();
        assert!(e.contains("CHROME_PATH=/nonexistent"), "{e}");
        let found = find_browser(
            None,
            &Environment::from_vars([("CHROME_PATH".into(), "/bin/sh".into())], 0o022),
        )
        .unwrap();
        assert_eq!(found, PathBuf::from("/bin/sh"));
    }

    #[test]
    fn offline_pins_resolution_to_loopback_in_one_argument() {
        let cfg = LaunchConfig {
            offline: true,
            ..LaunchConfig::default()
        };
        let args = browser_args(Path::new("/tmp/p"), &cfg);
        assert!(args
            .iter()
            .any(|a| a == "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1"));
        assert!(args.iter().any(|a| a == "--remote-debugging-port=0"));
        for quiet in [
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--no-first-run",
            "--disable-extensions",
            "--disable-breakpad",
            "--disable-domain-reliability",
            "--no-pings",
            "--headless",
            "--no-startup-window",
        ] {
            assert!(args.iter().any(|a| a == quiet), "{quiet}");
        }
        // No startup tab: nothing after the switches (a URL would open one).
        assert!(args.iter().all(|a| a.starts_with("--")), "{args:?}");
        assert!(args.iter().any(|a| a == "--user-data-dir=/tmp/p"));
        let online = browser_args(Path::new("/tmp/p"), &LaunchConfig::default());
        assert!(!online
            .iter()
            .any(|a| a.starts_with("--host-resolver-rules")));
        assert_eq!(
            online.iter().any(|a| a == "--no-sandbox"),
            running_as_root()
        );
    }

    #[test]
    fn a_missing_explicit_browser_says_so() {
        let e = find_browser(
            Some(Path::new("/nonexistent/chromium")),
            &Environment::inherited(),
        )
        .unwrap_err();
        assert!(e.problem.contains("/nonexistent/chromium"), "{e}");
    }
}
