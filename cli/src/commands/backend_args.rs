//! The backend options `ad run` and `ad test` share.

use std::path::PathBuf;

use ad_runtime::backends::BackendKind;
use ad_runtime::session::SessionConfig;
use clap::Args;

#[derive(Args, Clone, Debug)]
pub struct BackendArgs {
    /// Device backend: sim (the embedded simulated device), web (headless Chromium) or
    /// agent-device (a real device through the agent-device daemon: $AGENT_DEVICE_STATE_DIR's
    /// daemon, a remote one at $AGENT_DEVICE_DAEMON_BASE_URL, else one `ad` starts and stops).
    /// recorded:DIR replays a fixture written by --record-fixture DIR, offline (docs/recorded.md).
    /// Default: web for `context platform=web` scripts, else `[run] backend` of ad.toml, else sim.
    #[arg(long, value_name = "BACKEND", value_parser = BackendParser)]
    pub backend: Option<String>,
    /// Record the run's backend calls, observations and device clock as a fixture in DIR, for
    /// `--backend recorded:DIR` (`ad test`: one subfolder per script).
    #[arg(long, value_name = "DIR")]
    pub record_fixture: Option<PathBuf>,
    /// The browser the web backend drives (default: $CHROME_PATH, else /usr/bin/chromium).
    #[arg(long, value_name = "PATH")]
    pub browser: Option<PathBuf>,
    /// Web backend: every host name but 127.0.0.1 fails to resolve, so nothing leaves the
    /// machine (the browser's own background traffic is always off).
    #[arg(long)]
    pub offline: bool,
}

impl BackendArgs {
    /// `--backend agent-device`: the bridge runs the script through its daemon connection.
    pub fn is_agent_device(&self) -> bool {
        self.backend.as_deref() == Some(BackendKind::AgentDevice.name())
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
