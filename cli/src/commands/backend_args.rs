//! The backend options `ad run` and `ad test` share.

use std::path::{Path, PathBuf};

use ad_runtime::backends::BackendKind;
use ad_runtime::session::SessionConfig;
use clap::Args;

#[derive(Args, Clone, Debug)]
pub struct BackendArgs {
    /// Device backend: sim (the embedded simulated device), web (headless Chromium) or
    /// agent-device (a real device through the agent-device daemon: $AGENT_DEVICE_STATE_DIR's
    /// daemon, a remote one at $AGENT_DEVICE_DAEMON_BASE_URL, else one `ad` starts and stops).
    /// recorded:DIR replays a fixture written by --record-fixture DIR, offline (docs/recorded.md).
    /// Default: web for `context platform=web` scripts, else `[run] backend` of ad.toml, else
    /// agent-device for a `context platform=` linux, macos, ios or android script the sim has no
    /// app model for (when this machine can drive that platform: docs/run.md), else sim.
    #[arg(long, value_name = "BACKEND", value_parser = BackendParser)]
    pub backend: Option<String>,
    /// Record the run's backend calls, observations and device clock as a fixture in DIR, for
    /// `--backend recorded:DIR` (`ad test`: one subfolder per script).
    #[arg(long, value_name = "DIR")]
    pub record_fixture: Option<PathBuf>,
    /// Let --record-fixture and --report-html write into a folder that holds files ad did not
    /// write: those it writes over are replaced, nothing else is removed (without it such a
    /// folder is refused before anything runs; links inside it are refused either way).
    #[arg(long)]
    pub overwrite: bool,
    /// The browser the web backend drives (default: $CHROME_PATH, else /usr/bin/chromium).
    #[arg(long, value_name = "PATH")]
    pub browser: Option<PathBuf>,
    /// Web backend: every host name but 127.0.0.1 fails to resolve, so nothing leaves the
    /// machine (the browser's own background traffic is always off).
    #[arg(long)]
    pub offline: bool,
    /// Web backend: let the browser show local files outside the script's folder (`file:`) and
    /// its own pages (`view-source:`, `chrome:`, `about:version`, …). Without it they are
    /// refused, since what a page shows is copied into the run's observations and reports.
    #[arg(long)]
    pub allow_local_urls: bool,
}

impl BackendArgs {
    /// `--backend agent-device`: the bridge runs the script through its daemon connection.
    pub fn is_agent_device(&self) -> bool {
        self.backend.as_deref() == Some(BackendKind::AgentDevice.name())
    }

    /// These options as command-line arguments again, for `kind`, the backend the run chose
    /// (`None`: whatever the script and project choose): `--backend`, and the web backend's
    /// browser settings. Resume and re-run commands are spelled from them
    /// ([`resume_command`]). `--record-fixture` and `--overwrite` are left out: a resume must
    /// not write over the fixture its first run recorded.
    pub fn cli_args(&self, kind: Option<BackendKind>) -> Vec<String> {
        let mut args = Vec::new();
        let backend = match (&self.backend, kind) {
            (Some(b), _) => Some(b.clone()),
            // The sim is the default; any other backend is named, whatever chose it.
            (None, Some(k)) if k != BackendKind::Sim => Some(k.name().to_string()),
            _ => None,
        };
        if let Some(b) = backend {
            args.extend(["--backend".to_string(), b]);
        }
        if let Some(browser) = &self.browser {
            args.extend(["--browser".to_string(), browser.display().to_string()]);
        }
        if self.offline {
            args.push("--offline".into());
        }
        if self.allow_local_urls {
            args.push("--allow-local-urls".into());
        }
        args
    }

    /// Checks, before anything runs, the folders the run writes into: the fixture folder and
    /// `report_html` (`ad_runtime::core::output_dir::prepare`). `Err` is the message to print.
    pub fn prepare_outputs(&self, report_html: Option<&Path>) -> Result<(), String> {
        use ad_runtime::core::output_dir::prepare;
        if let Some(dir) = report_html {
            prepare(dir, self.overwrite).map_err(|e| {
                format!(
                    "{}: cannot write the HTML report there: {e} (nothing was run)",
                    dir.display()
                )
            })?;
        }
        if let Some(dir) = &self.record_fixture {
            prepare(dir, self.overwrite).map_err(|e| {
                format!(
                    "{}: cannot record the fixture there: {e} (nothing was run)",
                    dir.display()
                )
            })?;
        }
        Ok(())
    }

    /// Puts the chosen backend and browser settings into a session's configuration.
    pub fn apply(&self, session: &mut SessionConfig) {
        let choice = self
            .backend
            .as_deref()
            .and_then(|b| BackendKind::parse_choice(b).ok());
        session.backend = choice.as_ref().map(|c| c.0);
        session.recorded = choice.and_then(|c| c.1);
        session.record_fixture = self.record_fixture.clone();
        session.web.executable = self.browser.clone();
        session.web.offline = self.offline;
        session.web.urls.allow_local = self.allow_local_urls;
    }
}

/// `--backend`: a backend name or `recorded:DIR`. The names are listed for `--help`, the shell
/// completions and the man pages; `recorded:DIR` takes a folder, so it is described in the help
/// text instead.
#[derive(Clone)]
struct BackendParser;

impl clap::builder::TypedValueParser for BackendParser {
    type Value = String;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &std::ffi::OsStr,
    ) -> Result<String, clap::Error> {
        let text = value
            .to_str()
            .ok_or_else(|| clap::Error::new(clap::error::ErrorKind::InvalidUtf8).with_cmd(cmd))?;
        BackendKind::parse_choice(text)
            .map(|_| text.to_string())
            .map_err(|e| {
                let arg = arg.map_or("--backend".to_string(), |a| a.to_string());
                clap::Error::raw(
                    clap::error::ErrorKind::ValueValidation,
                    format!("invalid value '{text}' for '{arg}': {e}\n"),
                )
                .with_cmd(cmd)
            })
    }

    fn possible_values(
        &self,
    ) -> Option<Box<dyn Iterator<Item = clap::builder::PossibleValue> + '_>> {
        Some(Box::new(
            BackendKind::ALL
                .iter()
                .filter(|k| **k != BackendKind::Recorded)
                .map(|k| clap::builder::PossibleValue::new(k.name())),
        ))
    }
}

/// The options of one run that chose its backend, its device and what it resumes, for the
/// command a divergence report prints.
pub struct RunChoice<'a> {
    pub backend: &'a BackendArgs,
    pub devices: &'a super::agent_device::DeviceArgs,
    /// The backend the run chose (`None`: left to the script and project, as in `ad test`).
    pub kind: Option<BackendKind>,
    pub app: Option<&'a Path>,
    /// `--session` (left out when it is the default one).
    pub session: Option<&'a str>,
    pub platform: Option<&'a str>,
    pub target: Option<&'a str>,
}

impl RunChoice<'_> {
    /// `ad run FILE` and every option that chose the backend and device, quoted for a shell:
    /// the re-run command, which resume commands extend with `--from N --plan-digest SHA`.
    /// Injected values (`-e`) are never part of it.
    pub fn resume_command(&self, file: &str) -> String {
        self.command("run", file)
    }

    /// `ad VERB FILE` with the options that chose the backend and device.
    pub fn command(&self, verb: &str, file: &str) -> String {
        let mut words: Vec<String> = vec!["ad".into(), verb.into(), file.into()];
        words.extend(self.backend.cli_args(self.kind));
        if self.kind.is_none_or(|k| k == BackendKind::AgentDevice) {
            words.extend(self.devices.cli_args());
        }
        if let Some(app) = self.app {
            words.extend(["--app".to_string(), app.display().to_string()]);
        }
        for (flag, value) in [
            ("--platform", self.platform),
            ("--target", self.target),
            ("--session", self.session.filter(|s| *s != "default")),
        ] {
            if let Some(v) = value {
                words.extend([flag.to_string(), v.to_string()]);
            }
        }
        ad_runtime::backends::command_line(&words)
    }
}

/// The folder run folders go into: `--artifacts-dir`, else `[run] artifacts-dir` of the
/// `ad.toml` that applies to `near` (a script or a suite's folder), else `ad-artifacts`.
pub fn artifacts_dir(given: Option<&std::path::Path>, near: &std::path::Path) -> PathBuf {
    given.map(PathBuf::from).unwrap_or_else(|| {
        let project = ad_compiler::config::Config::discover(near).ok();
        artifacts_dir_in(None, project.as_ref())
    })
}

/// [`artifacts_dir`] with the `ad.toml` the caller already read (`None`: none could be).
pub fn artifacts_dir_in(
    given: Option<&std::path::Path>,
    project: Option<&ad_compiler::config::Config>,
) -> PathBuf {
    given.map(PathBuf::from).unwrap_or_else(|| {
        project
            .and_then(|c| c.run_artifacts_dir.clone())
            .unwrap_or_else(|| PathBuf::from(ad_compiler::config::DEFAULT_ARTIFACTS_DIR))
    })
}
