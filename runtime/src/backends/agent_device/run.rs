//! Reaching the daemon a run or a live session drives: remote, else attach through the state
//! dir, else start one of our own ([`connect`]); what the bridge needs to do so
//! ([`BridgeSetup`], made by [`crate::backends::create`]'s caller).

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::client::{Client, Endpoint, Secret};
use super::daemon::{self, DaemonInfo, OwnedDaemon};
use super::install;
use crate::core::environment::Environment;
use crate::core::interp::{Plan, RunOptions};

/// How the bridge finds its device (`--device`, `--udid`, `--serial`, the state dir).
/// Serializable: a handoff run's bridge travels to the session daemon ([`BridgeConfig::resolved`]).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BridgeConfig {
    /// The daemon's state dir (default `$AGENT_DEVICE_STATE_DIR`, else `~/.agent-device`).
    pub state_dir: Option<PathBuf>,
    /// `--device`, `--udid`, `--serial`: agent-device's own device selection flags.
    pub device: Option<String>,
    pub udid: Option<String>,
    pub serial: Option<String>,
    /// Per-request timeout (default 60 s; `open` gets 180 s).
    pub request_timeout: Option<Duration>,
    /// On a daemon `ad` did not start, end the session and the apps it opened when the backend
    /// is released (`ad test`: the next script needs the device; authoring sessions, handoff runs
    /// included once the session daemon holds them; `ad run` leaves them for `--from`).
    pub release_session: bool,
    /// ad's session daemon keeps this run's bridge (its daemon and session) as a live session
    /// when the run diverges, for a `--from` resume (until `ad session close` or its reap).
    #[serde(skip)]
    pub kept_for_resume: bool,
    /// A remote farm's scope (agent-device's `--tenant`, `--run-id`, `--lease-id`,
    /// `--lease-backend`; else `AGENT_DEVICE_TENANT`, `AGENT_DEVICE_RUN_ID`,
    /// `AGENT_DEVICE_LEASE_ID`, `AGENT_DEVICE_LEASE_BACKEND`). A tenant makes the requests
    /// tenant-isolated; they then run under a lease: the one named, else one `ad` allocates,
    /// keeps alive and releases.
    pub tenant: Option<String>,
    pub run_id: Option<String>,
    pub lease_id: Option<String>,
    pub lease_backend: Option<String>,
    /// The environment agent-device's variables (`AGENT_DEVICE_*`, `AD_AGENT_DEVICE`, `AD_NODE`,
    /// `PATH`, `HOME`, `TMPDIR`) are read from and a daemon the bridge starts runs in (with the
    /// apps it opens): this process's, or in the session daemon the run's own client's. Never
    /// serialized: a run request carries it once, for every backend.
    #[serde(skip)]
    pub env: Environment,
}

/// The tenant scope requests run under, when there is a tenant.
#[derive(Debug, Clone, PartialEq)]
pub struct TenantScope {
    pub tenant: String,
    pub run_id: String,
    /// A lease the caller holds (kept as is), else `ad` allocates one.
    pub lease_id: Option<String>,
    pub lease_backend: Option<String>,
}

impl BridgeConfig {
    /// This config with its state dir made explicit and absolute, so it means the same in
    /// another process (the rest of the environment travels as the run's [`Environment`]).
    pub fn resolved(&self) -> BridgeConfig {
        let state_dir = self
            .state_dir
            .clone()
            .unwrap_or_else(|| daemon::default_state_dir(&self.env));
        BridgeConfig {
            state_dir: Some(std::path::absolute(&state_dir).unwrap_or(state_dir)),
            ..self.clone()
        }
    }

    /// Would a run with this config start an agent-device daemon of its own (no remote daemon
    /// named, none recorded in the state dir)? Such a daemon ends with the process that started
    /// it, so `ad run` runs it in ad's session daemon, which keeps it for a resume.
    pub fn starts_own_daemon(&self) -> bool {
        let state_dir = self
            .state_dir
            .clone()
            .unwrap_or_else(|| daemon::default_state_dir(&self.env));
        matches!(self.remote(), Ok(None)) && DaemonInfo::read(&state_dir).is_none()
    }

    /// An agent-device environment variable, from the bridge's environment.
    fn var(&self, name: &str) -> Option<String> {
        self.env.var(name)
    }

    /// The remote daemon `AGENT_DEVICE_DAEMON_BASE_URL` (and its token) names, if any.
    /// An `https://` daemon is checked against this process's trust store, made once: a run
    /// that trusts otherwise (`SSL_CERT_FILE`, `SSL_CERT_DIR`) is refused rather than trusting
    /// what it did not.
    pub fn remote(&self) -> Result<Option<(Endpoint, Secret)>, String> {
        let remote = daemon::remote_from(
            self.var("AGENT_DEVICE_DAEMON_BASE_URL"),
            self.var("AGENT_DEVICE_DAEMON_AUTH_TOKEN"),
        )?;
        if let (true, Some((Endpoint::Remote { url }, _))) = (self.env.is_captured(), &remote) {
            for k in ["SSL_CERT_FILE", "SSL_CERT_DIR"] {
                if url.tls && self.env.var(k) != std::env::var(k).ok() {
                    return Err(format!(
                        "this https:// daemon would be checked against the session daemon's trust store, not this run's ({k} differs): run with the {k} the session daemon started with, or end its sessions first (`ad session close`)"
                    ));
                }
            }
        }
        Ok(remote)
    }

    /// The tenant scope from the flags, else agent-device's environment variables; a run id is
    /// made up when none is given.
    pub fn tenant_scope(&self) -> Option<TenantScope> {
        let pick = |v: &Option<String>, env: &str| {
            v.clone()
                .or_else(|| self.var(env))
                .map(|s| s.trim().to_string())
                .filter(|s| !s.is_empty())
        };
        let tenant = pick(&self.tenant, "AGENT_DEVICE_TENANT")?;
        let run_id = pick(&self.run_id, "AGENT_DEVICE_RUN_ID").unwrap_or_else(|| {
            let ms = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_millis())
                .unwrap_or(0);
            format!("ad-{}-{ms}", std::process::id())
        });
        Some(TenantScope {
            tenant,
            run_id,
            lease_id: pick(&self.lease_id, "AGENT_DEVICE_LEASE_ID"),
            lease_backend: pick(&self.lease_backend, "AGENT_DEVICE_LEASE_BACKEND"),
        })
    }
}

/// Everything the bridge needs for one run or one live session.
#[derive(Debug, Clone, Default)]
pub struct BridgeSetup {
    pub config: BridgeConfig,
    /// The agent-device session every request names.
    pub session: String,
    /// The platform and target every request carries (`--platform`, else the script's
    /// `context platform=…`).
    pub platform: Option<String>,
    pub target: Option<String>,
    /// May start a daemon of its own when none answers. A resume (`--from N`) may not: it needs
    /// the daemon and session the earlier run left.
    pub may_start: bool,
}

impl BridgeSetup {
    /// The setup for running `plan` with `options`.
    pub fn for_plan(config: &BridgeConfig, plan: &Plan<'_>, options: &RunOptions) -> BridgeSetup {
        BridgeSetup {
            config: config.clone(),
            session: options.session.clone(),
            platform: options
                .platform
                .clone()
                .or_else(|| plan.metadata.platform.as_ref().map(|p| p.value.clone())),
            target: options
                .target
                .clone()
                .or_else(|| plan.metadata.target.as_ref().map(|p| p.value.clone())),
            may_start: !plan.resumes_mid_plan(options),
        }
    }

    pub fn state_dir(&self) -> PathBuf {
        self.config
            .state_dir
            .clone()
            .unwrap_or_else(|| daemon::default_state_dir(&self.config.env))
    }
}

/// A connected daemon, and the one `ad` owns if it started it (dropping it stops the daemon
/// and everything it launched).
pub struct Connection {
    pub endpoint: Endpoint,
    pub token: Secret,
    pub owned: Option<OwnedDaemon>,
}

/// Remote, else attach through the state dir, else (when `may_start`) start our own; all as this
/// process's environment says.
pub async fn connect(state_dir: &Path, may_start: bool) -> Result<Connection, String> {
    let env = Environment::inherited();
    connect_to(daemon::remote_from_env()?, state_dir, may_start, &env).await
}

/// [`connect`] with the remote daemon given (`None`: attach or start a local one, found and run
/// in `env`).
pub async fn connect_to(
    remote: Option<(Endpoint, Secret)>,
    state_dir: &Path,
    may_start: bool,
    env: &Environment,
) -> Result<Connection, String> {
    if let Some((endpoint, token)) = remote {
        let probe = Client::new(endpoint.clone(), token.clone(), "probe");
        if let Err(why) = probe.check_health().await {
            return Err(format!(
                "the remote agent-device daemon ({}) does not answer GET /health: {why}",
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
    let install = install::locate(env)?;
    let (owned, info) = OwnedDaemon::start(&install, "socket", env).await?;
    Ok(Connection {
        endpoint: info.endpoint(false),
        token: info.token,
        owned: Some(owned),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_resolved_config_reads_its_environment_and_never_carries_or_formats_it() {
        let env = Environment::from_vars(
            [
                ("AGENT_DEVICE_DAEMON_AUTH_TOKEN", "tok-123"),
                ("AGENT_DEVICE_STATE_DIR", "/run/elsewhere/agent-device"),
            ]
            .map(|(k, v)| (k.into(), v.into())),
            0o022,
        );
        let config = BridgeConfig {
            device: Some("pixel".into()),
            env,
            ..BridgeConfig::default()
        }
        .resolved();
        assert!(!format!("{config:?}").contains("tok-123"));
        // The given environment is read, not this process's.
        assert_eq!(
            config.var("AGENT_DEVICE_DAEMON_AUTH_TOKEN").as_deref(),
            Some("tok-123")
        );
        assert_eq!(config.var("AGENT_DEVICE_TENANT"), None);
        assert_eq!(
            config.state_dir.as_deref(),
            Some(Path::new("/run/elsewhere/agent-device"))
        );
        let wire = serde_json::to_string(&config).unwrap();
        assert!(!wire.contains("tok-123"), "{wire}");
        let back: BridgeConfig = serde_json::from_str(&wire).unwrap();
        assert_eq!(back.device.as_deref(), Some("pixel"));
        assert!(!back.env.is_captured());
    }
}
