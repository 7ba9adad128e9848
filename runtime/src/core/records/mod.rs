//! The run records: every JSON document a run or a suite writes, as typed structs. They are the
//! one contract between the interpreter, device backends, recording sessions and external tools;
//! each has a JSON Schema generated from these types and checked in under `docs/schemas/`
//! ([`schemas`]; `UPDATE_SCHEMAS=1 cargo test -p ad-runtime --test schemas` rewrites them).
//!
//! | record | where | type |
//! | --- | --- | --- |
//! | run result | `ad run --json` | [`RunResultRecord`] |
//! | journal event | each line of `<run>/events.jsonl` | [`JournalEvent`] |
//! | observation | `<run>/observations/NNNNNN.json` | [`ObservationFile`] |
//! | run summary | `<run>/run.json` | [`RunSummary`] |
//! | divergence report | `error.details.divergence`, `<run>/divergence-full.json` | [`DivergenceReport`] |
//! | suite report | `ad test --report-json` | [`SuiteReport`] |
//! | heal record | `ad heal --json`, `<artifacts>/heal/<script>.json` | [`HealRecord`] |

pub mod common;
pub mod divergence;
pub mod error_codes;
pub mod heal;
pub mod journal;
pub mod recorded;
pub mod result;
pub mod session;
pub mod suite;
pub mod summary;
pub mod validate;

pub use common::{NodeRef, Target};
pub use divergence::{DivergenceKind, DivergenceReport};
pub use heal::HealRecord;
pub use journal::{Event, JournalEvent, ObservationFile, StepResult};
pub use result::{ErrorDetails, ErrorRecord, RunResultRecord, SetupProblem};
pub use suite::SuiteReport;
pub use summary::RunSummary;

/// Every property name the records' schemas declare: the structural boundary redaction keeps
/// (a key in a record's free-form data, such as a backend's response, is redacted like a value).
pub fn field_names() -> &'static std::collections::HashSet<String> {
    static NAMES: std::sync::OnceLock<std::collections::HashSet<String>> =
        std::sync::OnceLock::new();
    NAMES.get_or_init(|| {
        fn walk(v: &serde_json::Value, out: &mut std::collections::HashSet<String>) {
            match v {
                serde_json::Value::Object(m) => {
                    if let Some(serde_json::Value::Object(props)) = m.get("properties") {
                        out.extend(props.keys().cloned());
                    }
                    m.values().for_each(|x| walk(x, out));
                }
                serde_json::Value::Array(a) => a.iter().for_each(|x| walk(x, out)),
                _ => {}
            }
        }
        let mut out = std::collections::HashSet::new();
        for (_, schema) in schemas() {
            walk(&serde_json::to_value(schema).unwrap_or_default(), &mut out);
        }
        out
    })
}

/// Every record's schema: (file stem under `docs/schemas/`, schema). They describe what `ad`
/// writes (serde's serialize side): a field is required unless it is left out when empty.
pub fn schemas() -> Vec<(&'static str, schemars::Schema)> {
    fn schema<T: schemars::JsonSchema>() -> schemars::Schema {
        schemars::generate::SchemaSettings::draft2020_12()
            .for_serialize()
            .into_generator()
            .into_root_schema_for::<T>()
    }
    vec![
        ("run-result", schema::<RunResultRecord>()),
        ("journal-event", schema::<JournalEvent>()),
        ("observation", schema::<ObservationFile<'static>>()),
        ("run-summary", schema::<RunSummary>()),
        ("divergence-report", schema::<DivergenceReport>()),
        ("suite-report", schema::<SuiteReport>()),
        ("heal-record", schema::<HealRecord>()),
        ("session-response", schema::<session::Response>()),
        ("recorded-manifest", schema::<recorded::Manifest>()),
        (
            "recorded-session-header",
            schema::<recorded::SessionHeader>(),
        ),
        ("recorded-call", schema::<recorded::CallRecord>()),
    ]
}
