//! The run records: every JSON document a run or a suite writes, as typed structs. They are the
//! one contract between the interpreter, device backends, recording sessions and external tools;
//! each has a JSON Schema generated from these types and checked in under `docs/schemas/`
//! ([`schemas`]; `cargo run -p ad-runtime --example schemas` rewrites them).
//!
//! | record | where | type |
//! | --- | --- | --- |
//! | run result | `ad run --json` | [`RunResultRecord`] |
//! | journal event | each line of `<run>/events.jsonl` | [`JournalEvent`] |
//! | observation | `<run>/observations/NNNNNN.json` | [`ObservationFile`] |
//! | run summary | `<run>/run.json` | [`RunSummary`] |
//! | divergence report | `error.details.divergence`, `<run>/divergence-full.json` | [`DivergenceReport`] |
//! | suite report | `ad test --report-json` | [`SuiteReport`] |

pub mod common;
pub mod divergence;
pub mod journal;
pub mod result;
pub mod suite;
pub mod summary;

pub use common::{NodeRef, Target};
pub use divergence::{DivergenceKind, DivergenceReport};
pub use journal::{Event, JournalEvent, ObservationFile, StepResult};
pub use result::{ErrorDetails, ErrorRecord, RunResultRecord};
pub use suite::SuiteReport;
pub use summary::RunSummary;

/// Every record's schema: (file stem under `docs/schemas/`, schema).
pub fn schemas() -> Vec<(&'static str, schemars::Schema)> {
    vec![
        ("run-result", schemars::schema_for!(RunResultRecord)),
        ("journal-event", schemars::schema_for!(JournalEvent)),
        (
            "observation",
            schemars::schema_for!(ObservationFile<'static>),
        ),
        ("run-summary", schemars::schema_for!(RunSummary)),
        ("divergence-report", schemars::schema_for!(DivergenceReport)),
        ("suite-report", schemars::schema_for!(SuiteReport)),
    ]
}
