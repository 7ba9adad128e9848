//! Where agent-device is installed and which version: `$AD_AGENT_DEVICE` (its package folder or
//! its `bin/agent-device.mjs`), else the `agent-device` command on `PATH`; `node` from `$AD_NODE`
//! or `PATH`, all read from the run's [`Environment`]. `ad` starts the daemon from the package's
//! own entry point, so the daemon it owns is a direct child it can stop.

use std::path::{Path, PathBuf};

use crate::core::environment::Environment;

/// The version the bridge is tested against.
pub const TESTED_VERSION: &str = crate::AGENT_DEVICE_VERSION;

/// An agent-device installation.
#[derive(Debug, Clone, PartialEq)]
pub struct Install {
    /// The package folder (holds `package.json`).
    pub package_dir: PathBuf,
    pub version: String,
    /// The `node` that runs it.
    pub node: PathBuf,
}

impl Install {
    /// The daemon's entry point.
    pub fn daemon_entry(&self) -> PathBuf {
        self.package_dir.join("dist/src/internal/daemon.js")
    }
}

/// Why agent-device cannot be used, with what to install.
pub fn not_found(what: &str) -> String {
    format!(
        "{what}; install it with `npm install -g agent-device@{TESTED_VERSION}` (or point AD_AGENT_DEVICE at its package folder), and Node.js (`node` on PATH)"
    )
}

/// The package folder above `start` whose package.json names agent-device.
fn package_root(start: &Path) -> Option<PathBuf> {
    let mut dir = if start.is_dir() {
        Some(start)
    } else {
        start.parent()
    };
    while let Some(d) = dir {
        let manifest = d.join("package.json");
        if let Ok(text) = std::fs::read_to_string(&manifest) {
            if let Ok(v) = serde_json::from_str::<serde_json::Value>(&text) {
                if v.get("name").and_then(|n| n.as_str()) == Some("agent-device") {
                    return Some(d.to_path_buf());
                }
            }
        }
        dir = d.parent();
    }
    None
}

/// Finds agent-device and node where `env` says.
pub fn locate(env: &Environment) -> Result<Install, String> {
    let start = match env.var_os("AD_AGENT_DEVICE").filter(|v| !v.is_empty()) {
        Some(p) => PathBuf::from(p),
        None => env
            .find_on_path("agent-device")
            .ok_or_else(|| not_found("agent-device is not on PATH and AD_AGENT_DEVICE is unset"))?,
    };
    let start = std::fs::canonicalize(&start)
        .map_err(|e| not_found(&format!("{}: {e}", start.display())))?;
    let package_dir = package_root(&start).ok_or_else(|| {
        not_found(&format!(
            "{} is not inside an agent-device package",
            start.display()
        ))
    })?;
    let manifest: serde_json::Value = std::fs::read_to_string(package_dir.join("package.json"))
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok())
        .unwrap_or_default();
    let version = manifest
        .get("version")
        .and_then(|v| v.as_str())
        .unwrap_or("unknown")
        .to_string();
    let node = match env.var_os("AD_NODE").filter(|v| !v.is_empty()) {
        Some(p) => PathBuf::from(p),
        None => env
            .find_on_path("node")
            .ok_or_else(|| not_found("node is not on PATH"))?,
    };
    let install = Install {
        package_dir,
        version,
        node,
    };
    if !install.daemon_entry().is_file() {
        return Err(not_found(&format!(
            "{} has no daemon entry point (dist/src/internal/daemon.js)",
            install.package_dir.display()
        )));
    }
    Ok(install)
}
