//! Running one script on agent-device: attach to a daemon (remote, or through its state dir) or
//! start one of our own, run the plan on it, and release what `ad` started, whatever the outcome
//! (an owned daemon is stopped with everything it launched; an attached one is left as the
//! script left it, which is what `--from N --plan-digest` resumes on).

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::{json, Map, Value};

use super::client::{Client, Endpoint, Secret};
use super::daemon::{self, DaemonInfo, OwnedDaemon};
use super::device::AgentDevice;
use super::install;
use crate::interp::{self, Plan, Progress, RunOptions};
use crate::session::{resumes_mid_plan, ScriptOutcome, SessionConfig, SetupError};

/// How the bridge finds its device.
#[derive(Debug, Clone, Default)]
pub struct BridgeConfig {
    /// The daemon's state dir (default `$AGENT_DEVICE_STATE_DIR`, else `~/.agent-device`).
    pub state_dir: Option<PathBuf>,
    /// `--device`, `--udid`, `--serial`: agent-device's own device selection flags.
    pub device: Option<String>,
    pub udid: Option<String>,
    pub serial: Option<String>,
    /// Per-request timeout (default 60 s; `open` gets 180 s).
    pub request_timeout: Option<Duration>,
    /// On a daemon `ad` did not start, end the run's session and the apps it opened afterwards
    /// (`ad test`: the next script needs the device; `ad run` leaves them for `--from`).
    pub release_session: bool,
}

/// A connected daemon, and the one `ad` owns if it started it.
pub struct Connection {
    pub endpoint: Endpoint,
    pub token: Secret,
    pub owned: Option<OwnedDaemon>,
}

/// Remote, else attach through the state dir, else (when `may_start`) start our own.
pub async fn connect(state_dir: &Path, may_start: bool) -> Result<Connection, String> {
    if let Some((endpoint, token)) = daemon::remote_from_env()? {
        let probe = Client::new(endpoint.clone(), token.clone(), "probe");
        if !probe.reachable().await {
            return Err(format!(
                "the remote agent-device daemon ({}) does not answer GET /health",
                endpoint.describe()
            ));
        }
        return Ok(Connection {
            endpoint,
            token,
            owned: None,
        });
    }
    if let Some(info) = DaemonInfo::read(state_dir) {
        let endpoint = info.endpoint(false);
        let probe = Client::new(endpoint.clone(), info.token.clone(), "probe");
        if probe.reachable().await {
            return Ok(Connection {
                endpoint,
                token: info.token,
                owned: None,
            });
        }
    }
    if !may_start {
        return Err(format!(
            "no agent-device daemon answers in {} (its daemon.json); a resume (--from) needs the daemon and session the earlier run left",
            state_dir.display()
        ));
    }
    let install = install::locate()?;
    let (owned, info) = OwnedDaemon::start(&install, "socket").await?;
    Ok(Connection {
        endpoint: info.endpoint(false),
        token: info.token,
        owned: Some(owned),
    })
}

/// For a suite: when no daemon answers (and none is remote), start one that every script of
/// the suite attaches to (a daemon per script costs its start-up each time); `None` when one
/// is there already. Dropping it stops it.
pub fn shared_daemon(bridge: &BridgeConfig) -> Result<Option<OwnedDaemon>, String> {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start the async runtime: {e}"))?;
    let state_dir = bridge
        .state_dir
        .clone()
        .unwrap_or_else(daemon::default_state_dir);
    let connection = rt.block_on(connect(&state_dir, true))?;
    Ok(connection.owned)
}

/// The flags every request carries: the platform and target the plan runs for, and the device
/// selection.
fn base_flags(plan: &Plan<'_>, options: &RunOptions, bridge: &BridgeConfig) -> Map<String, Value> {
    let mut f = Map::new();
    let platform = options
        .platform
        .clone()
        .or_else(|| plan.metadata.platform.as_ref().map(|p| p.value.clone()));
    let target = options
        .target
        .clone()
        .or_else(|| plan.metadata.target.as_ref().map(|p| p.value.clone()));
    for (k, v) in [
        ("platform", platform),
        ("target", target),
        ("device", bridge.device.clone()),
        ("udid", bridge.udid.clone()),
        ("serial", bridge.serial.clone()),
    ] {
        if let Some(v) = v {
            f.insert(k.into(), json!(v));
        }
    }
    f
}

/// Runs `plan` on the device agent-device selects, with the run journal of `config`.
pub fn run_script(
    plan: &Plan<'_>,
    options: &RunOptions,
    config: &SessionConfig,
    bridge: &BridgeConfig,
    progress: &mut dyn Progress,
) -> Result<ScriptOutcome, SetupError> {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .enable_io()
        .build()
        .map_err(|e| SetupError(format!("cannot start the async runtime: {e}")))?;
    let state_dir = bridge
        .state_dir
        .clone()
        .unwrap_or_else(daemon::default_state_dir);
    let may_start = !resumes_mid_plan(plan, options);
    // Held until the end of this function: dropping it stops the daemon we started.
    let connection = rt
        .block_on(connect(&state_dir, may_start))
        .map_err(SetupError)?;
    let flags = base_flags(plan, options, bridge);
    let platform = flags
        .get("platform")
        .and_then(Value::as_str)
        .unwrap_or("unknown")
        .to_string();
    let mut client = Client::new(
        connection.endpoint.clone(),
        connection.token.clone(),
        options.session.clone(),
    );
    client.base_flags = flags;
    if let Some(t) = bridge.request_timeout {
        client.timeout = t;
    }
    let mut device = AgentDevice::new(client, platform);
    let (mut journal, run_dir, opts) = crate::session::open_journal(config, options)?;
    let mut result = rt.block_on(interp::run(
        plan,
        &mut device,
        &mut journal,
        progress,
        &opts,
    ));
    let released = connection.owned.is_some() || bridge.release_session;
    if bridge.release_session && connection.owned.is_none() {
        rt.block_on(device.release());
    }
    drop(connection);
    // The session went with the daemon (or was closed): nothing is left to resume on.
    if released {
        result.session_active = false;
    }
    Ok(ScriptOutcome {
        result,
        run_dir,
        session_file: None,
        backend: crate::backends::BackendKind::AgentDevice,
    })
}
