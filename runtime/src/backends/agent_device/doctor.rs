//! The `ad doctor` row for the bridge: is agent-device installed (which version), does a daemon
//! answer (remote, or in the state dir), and which platforms its devices cover. When no daemon
//! runs, a temporary one is started to list devices and stopped again. When the daemon lists the
//! Linux desktop, what that platform needs ([`super::prereqs`]) is checked in the environment
//! the daemon runs in.

use std::path::Path;
use std::time::Duration;

use serde::Serialize;
use serde_json::{Map, Value};

use super::client::Client;
use super::prereqs::{self, Missing};
use super::run::connect_to;
use super::{daemon, install};
use crate::core::records::error_codes;

/// What the row reports.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DoctorRow {
    /// Installed and a daemon could be reached (ours or a running one).
    pub ok: bool,
    pub version: Option<String>,
    /// `reachable (tcp 127.0.0.1:…)`, `remote, reachable (https host:port; …)`, `started for this
    /// check`, or why none.
    pub daemon: String,
    /// The distinct platforms of the devices the daemon lists.
    pub platforms: Vec<String>,
    /// What to do when something is missing.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hint: Option<String>,
    /// What the Linux platform lacks in the daemon's environment (empty: nothing, or not
    /// checked: no Linux device, a remote daemon, a daemon whose environment cannot be read).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub linux_missing: Vec<Missing>,
}

impl DoctorRow {
    /// One line for people.
    pub fn summary(&self) -> String {
        let version = self.version.as_deref().unwrap_or("not installed");
        let platforms = if self.platforms.is_empty() {
            "no devices".to_string()
        } else {
            self.platforms.join(", ")
        };
        format!(
            "agent-device {version}; daemon: {}; platforms: {platforms}",
            self.daemon
        )
    }
}

/// Runs the check (blocking; builds its own runtime).
pub fn check(state_dir: &Path) -> DoctorRow {
    let env = crate::core::environment::Environment::inherited();
    let installed = install::locate(&env);
    let version = installed.as_ref().ok().map(|i| i.version.clone());
    let Ok(rt) = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    else {
        return DoctorRow {
            ok: false,
            version,
            daemon: "not checked".into(),
            platforms: Vec::new(),
            hint: Some("cannot start the async runtime".into()),
            linux_missing: Vec::new(),
        };
    };
    // A remote daemon (AGENT_DEVICE_DAEMON_BASE_URL) is the whole question when one is set:
    // nothing needs installing here, and reaching it is what can fail.
    let remote = match daemon::remote_from_env() {
        Ok(remote) => remote,
        Err(why) => {
            return DoctorRow {
                ok: false,
                version,
                daemon: "remote (AGENT_DEVICE_DAEMON_BASE_URL), not usable as set".into(),
                platforms: Vec::new(),
                hint: Some(why),
                linux_missing: Vec::new(),
            }
        }
    };
    let remote_set = remote.is_some();
    let token_note = remote.as_ref().map(|(_, token)| {
        if token.is_empty() {
            "no auth token"
        } else {
            "auth token from AGENT_DEVICE_DAEMON_AUTH_TOKEN"
        }
    });
    rt.block_on(async {
        let may_start = installed.is_ok();
        match connect_to(remote, state_dir, may_start, &env).await {
            Ok(conn) => {
                let daemon = match (&conn.owned, token_note) {
                    (Some(_), _) => {
                        "none running; one started for this check and stopped".to_string()
                    }
                    (None, Some(token)) => {
                        format!("remote, reachable ({}; {token})", conn.endpoint.describe())
                    }
                    (None, None) => format!("reachable ({})", conn.endpoint.describe()),
                };
                let client = Client::new(conn.endpoint.clone(), conn.token.clone(), "ad-doctor");
                let devices = client
                    .send("devices", &[], &Map::new(), Some(Duration::from_secs(30)))
                    .await;
                let mut platforms: Vec<String> = devices
                    .as_ref()
                    .ok()
                    .and_then(|d| d.get("devices"))
                    .and_then(Value::as_array)
                    .map(|list| {
                        list.iter()
                            .filter_map(|d| d.get("platform").and_then(Value::as_str))
                            .map(str::to_string)
                            .collect()
                    })
                    .unwrap_or_default();
                platforms.sort();
                platforms.dedup();
                // A refused token refuses every command: the daemon answers, but runs nothing.
                let refused = devices
                    .as_ref()
                    .is_err_and(|e| e.code() == error_codes::UNAUTHORIZED);
                let hint = devices.err().map(|e| match (refused, remote_set) {
                    (true, true) => format!(
                        "the daemon refuses the token in AGENT_DEVICE_DAEMON_AUTH_TOKEN: {}",
                        e.message()
                    ),
                    _ => format!("devices: {}", e.message()),
                });
                // The environment the daemon's Linux platform runs its tools in.
                let linux_env = match (&conn.owned, remote_set) {
                    _ if !platforms.iter().any(|p| p == "linux") => None,
                    (Some(_), _) => Some(env.clone()),
                    (None, false) => prereqs::attached_daemon_env(state_dir),
                    (None, true) => None,
                };
                let linux_missing = match linux_env {
                    Some(env) => prereqs::linux(&env).await,
                    None => Vec::new(),
                };
                drop(conn);
                DoctorRow {
                    ok: !refused,
                    version,
                    daemon,
                    platforms,
                    hint,
                    linux_missing,
                }
            }
            // The remote daemon's own failure, not a local installation it does not need.
            Err(e) if remote_set => DoctorRow {
                ok: false,
                version,
                daemon: "remote, unreachable".into(),
                platforms: Vec::new(),
                hint: Some(e),
                linux_missing: Vec::new(),
            },
            Err(e) => DoctorRow {
                ok: false,
                version,
                daemon: "unreachable".into(),
                platforms: Vec::new(),
                hint: Some(installed.err().unwrap_or(e)),
                linux_missing: Vec::new(),
            },
        }
    })
}
