//! `ad-runtime`: the interpreter that runs a compiled plan against a device backend.
//!
//! ```text
//! compiled steps ──interp──▶ Backend (sim by default)
//!        │                     │
//!        └──────── journal (events.jsonl, observations/, run.json) ◀──┘
//! ```
//!
//! - [`backend::Backend`]: the device interface (async, tokio);
//! - [`backends`]: which backend runs a script, and the one factory that makes it;
//! - [`sim::Sim`]: the embedded simulated device running JSON app models on a virtual clock;
//! - [`web::Web`]: a web app in headless Chromium over the DevTools protocol;
//! - [`interp::run`]: variables, selector resolution, waits, identity verification, ref frames,
//!   divergence reports;
//! - [`journal::Journal`]: the crash-safe run journal;
//! - [`records`]: every record a run or suite writes (`--json`, events, `run.json`, divergence
//!   and suite reports) as typed structs, with their JSON Schemas (`docs/schemas/`);
//! - [`gate`]: the static gate every run passes first (config, static errors, missing variables);
//! - [`environment`]: the environment and umask a run's backend reads and its processes get
//!   (the client's, for a run or session in the session daemon);
//! - [`session`]: running one script end to end (model lookup, journal, session persistence);
//! - [`suite`]: `ad test` (discovery filters, retries, shards, parallel jobs) and its report.
//!
//! Nothing here prints: the `ad` command renders these records for people.

/// The agent-device release `ad` is compatible with: its `.ad` reader, its daemon's dispatch
/// checks and the bridge are reproduced from and tested against this version (`oracle/` pins the
/// same one from npm; a test holds the two together). `ad --version` prints it.
pub const AGENT_DEVICE_VERSION: &str = "0.21.5";

pub mod agent_device;
pub mod authoring;
pub mod backend;
pub mod backends;
pub mod divergence;
pub mod environment;
pub mod frame;
pub mod gate;
pub mod heal;
pub mod identity;
pub mod interp;
pub mod interrupt;
pub mod journal;
pub mod output_dir;
pub mod recorded;
pub mod records;
pub mod select;
pub mod session;
pub mod sim;
pub mod suite;
pub mod tree;
pub mod vars;
pub mod web;

pub use backend::Backend;
pub use interp::{run, Plan, Progress, RunError, RunOptions, RunResult};
pub use journal::Journal;
pub use sim::Sim;
