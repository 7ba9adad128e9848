//! `ad-runtime`: the interpreter that runs a compiled plan against a device backend.
//!
//! ```text
//! compiled steps ──interp──▶ Backend (sim by default)
//!        │                     │
//!        └──────── journal (events.jsonl, observations/, run.json) ◀──┘
//! ```
//!
//! Three layers, each a folder, each importing only the ones before it (`tests/layers.rs`):
//!
//! - [`core`]: what runs a plan and what a run writes, knowing no particular backend:
//!   the [`core::backend::Backend`] trait (async, tokio), [`core::interp::run`] (variables,
//!   selector resolution, waits, identity verification, ref frames, divergence reports), the
//!   crash-safe [`core::journal::Journal`], the typed [`core::records`] with their JSON Schemas
//!   (`docs/schemas/`), the static [`core::gate`] every run passes first, and the
//!   [`core::environment`] a run's processes get;
//! - [`backends`]: the simulated device ([`backends::sim::Sim`]), headless Chromium
//!   ([`backends::web`]), the agent-device bridge ([`backends::agent_device`]), recorded fixtures
//!   and their replay ([`backends::recorded`]), and the one factory that names them all
//!   ([`backends::create`]);
//! - [`session`]: running one script end to end ([`session::run_script`]), `ad test` suites
//!   ([`session::suite`]), authoring sessions and their per-user daemon
//!   ([`session::authoring`]), heals ([`session::heal`]) and golden transcripts.
//!
//! Nothing here prints: the `ad` command renders these records for people.

/// The agent-device release `ad` is compatible with: its `.ad` reader, its daemon's dispatch
/// checks and the bridge are reproduced from and tested against this version (`oracle/` pins the
/// same one from npm; a test holds the two together). `ad --version` prints it.
pub const AGENT_DEVICE_VERSION: &str = "0.21.5";

pub mod backends;
pub mod core;
pub mod session;

pub use crate::backends::sim::Sim;
pub use crate::core::backend::Backend;
pub use crate::core::interp::{run, Plan, Progress, RunError, RunOptions, RunResult};
pub use crate::core::journal::Journal;
