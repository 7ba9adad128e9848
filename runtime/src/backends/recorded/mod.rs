//! Recorded runs as a backend (`--record-fixture DIR`, `--backend recorded:DIR`; docs/recorded.md):
//! a run on any device is recorded per session as its ordered backend calls, their results,
//! the observations they returned and the device clock, and replayed offline from those files,
//! with no device and no browser.
//!
//! - the fixture's files are run records: [`crate::core::records::recorded`];
//! - [`recorder`]: [`Recorder`], a wrapper around any backend that logs its calls;
//! - [`replay`]: [`Replay`], the backend that serves them, keyed per session;

pub mod recorder;
pub mod replay;
pub mod sessions;

pub use recorder::{Recorder, Recording, SharedRecording};
pub use replay::{Fixture, Replay, ReplaySource};

/// What to do when a fixture folder cannot be replayed (a set-up error of the recorded backend).
pub const FIXTURE_HINT: &str = "pass the folder a recording wrote (`ad run … --record-fixture DIR`, or `ad test … --record-fixture DIR`), as --backend recorded:DIR";

/// The redactor of a run's injected values (`env` lines, `AD_VAR_*`, `-e`; later sources win,
/// as in the run's scope): what the journal redacts, so the fixture redacts the same.
pub fn injected_values(
    file_env: &[(String, String)],
    shell: &[(String, String)],
    cli: &[(String, String)],
) -> Vec<(String, String)> {
    let mut values = std::collections::BTreeMap::new();
    for (k, v) in file_env.iter().chain(shell).chain(cli) {
        values.insert(k.clone(), v.clone());
    }
    values.into_iter().collect()
}

/// The redactor for [`injected_values`].
pub fn redactor(values: &[(String, String)]) -> crate::core::vars::Redactor {
    crate::core::vars::Redactor::new(values.iter().map(|(k, v)| (k.as_str(), v.as_str())))
}
