//! The backends layer: each device backend over the core's [`crate::core::backend::Backend`]
//! trait, and the factory (`factory.rs`), the one place that names every backend.
//!
//! A backend imports the core and nothing of the session layer (`crate::session`);
//! `tests/layers.rs` keeps the direction.

pub mod agent_device;
mod factory;
pub mod recorded;
pub mod sim;
pub mod web;

pub use factory::*;
