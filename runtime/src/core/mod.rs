//! The runtime core: what runs a plan and what a run writes, knowing no particular backend, no
//! daemon and no suite. Backends implement [`backend::Backend`] above it (`crate::backends`); the
//! session layer (`crate::session`) drives it. `tests/layers.rs` keeps the direction.

pub mod backend;
pub mod divergence;
pub mod environment;
pub mod frame;
pub mod gate;
pub mod identity;
pub mod interp;
pub mod interrupt;
pub mod journal;
pub mod output_dir;
pub mod records;
pub mod select;
pub mod tree;
pub mod vars;
