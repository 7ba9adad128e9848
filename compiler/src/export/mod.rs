//! Writing a script in another tool's format: Maestro YAML as agent-device 0.21.5's
//! `replay export` writes it (`ad export --maestro`, docs/maestro.md).

pub mod maestro;
mod yaml;
