//! A live session kept between runs: restoring it, and saving it owner-only with what must not
//! be persisted masked or redacted.

use std::path::Path;
use std::sync::Arc;

use super::model::{AppModel, ModelError};
use super::*;

/// `sha256:<hex>` of a secure field's text.
pub(super) fn text_digest(text: &str) -> String {
    use sha2::Digest;
    let hash = sha2::Sha256::digest(text.as_bytes());
    let hex: String = hash.iter().map(|b| format!("{b:02x}")).collect();
    format!("sha256:{hex}")
}

/// Creates `dir` (and its parents); the last folder is owner-only.
pub(super) fn create_private_dir(dir: &Path) -> std::io::Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::{DirBuilderExt, PermissionsExt};
        std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(dir)?;
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700))
    }
    #[cfg(not(unix))]
    std::fs::create_dir_all(dir)
}

/// Writes a new owner-only file (0600 from its creation: never readable by others, not even
/// briefly).
pub(super) fn write_private(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    use std::io::Write;
    let _ = std::fs::remove_file(path);
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    let mut f = options.open(path)?;
    f.write_all(bytes)?;
    f.sync_all()
}

impl Sim {
    /// Restores a saved session (models are reloaded from their files).
    pub fn restore(&mut self, state: SimState) -> Result<(), ModelError> {
        for (app, a) in &state.apps {
            if !self.models.contains_key(app) {
                let m = AppModel::load(&a.model_path)?;
                self.models.insert(app.clone(), Arc::new(m));
                self.paths.insert(app.clone(), a.model_path.clone());
            }
        }
        self.state = state;
        Ok(())
    }

    /// The state as it may be persisted: secure fields masked as the device shows them (a
    /// device never exposes their text).
    pub fn persisted_state(&self) -> SimState {
        let mut state = self.state.clone();
        for app in state.apps.values_mut() {
            for key in &app.secure {
                if let Some(v) = app.values.get_mut(key) {
                    if !app.secure_digests.contains_key(key) {
                        app.secure_digests.insert(key.clone(), text_digest(v));
                    }
                    *v = "•".repeat(v.chars().count());
                }
            }
        }
        state
    }

    /// Saves the persisted form of the session state ([`Sim::persisted_state`]) to `path`:
    /// owner-only (folder 0700, file 0600), written to a temp file and renamed into place. Every
    /// injected value (`-e`, `AD_VAR_*`) is written as `<var:NAME>` by `redactor`, wherever it
    /// went: field text, app ids, model variables, alerts, the clipboard.
    pub fn save(&self, path: &Path, redactor: &crate::core::vars::Redactor) -> std::io::Result<()> {
        if let Some(d) = path.parent() {
            create_private_dir(d)?;
        }
        let tmp = path.with_extension("json.tmp");
        let mut state = serde_json::to_value(self.persisted_state())?;
        redactor.redact_value(&mut state);
        let bytes = serde_json::to_vec_pretty(&state)?;
        write_private(&tmp, &bytes)?;
        std::fs::rename(tmp, path)
    }

    /// A saved session, with the resuming run's values put back where [`Sim::save`] wrote
    /// `<var:NAME>` (`redactor` holds that run's injected values).
    pub fn load_state(
        path: &Path,
        redactor: &crate::core::vars::Redactor,
    ) -> std::io::Result<SimState> {
        let bytes = std::fs::read(path)?;
        let mut state: serde_json::Value =
            serde_json::from_slice(&bytes).map_err(std::io::Error::other)?;
        redactor.unredact_value(&mut state);
        serde_json::from_value(state).map_err(std::io::Error::other)
    }
}
