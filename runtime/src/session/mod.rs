//! The session layer, above the core and the backends: running one script end to end
//! (`script.rs`), suites (`ad test`), authoring sessions and their per-user daemon, and heals.

pub mod authoring;
pub mod golden;
pub mod heal;
mod script;
pub mod suite;

pub use script::*;
