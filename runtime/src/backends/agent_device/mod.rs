//! The agent-device bridge (`--backend agent-device`): the interpreter drives real iOS, Android,
//! macOS and Linux devices through the agent-device daemon (npm `agent-device`, tested against
//! 0.21.5), while resolution, identity verification, ref frames, redaction and the journal stay
//! in `ad`.
//!
//! - [`install`]: where agent-device and node are, which version (also `ad doctor`);
//! - [`daemon`]: attach to a daemon through its state dir, or start one we own and stop it
//!   (process group + parent-death signal, so it never outlives `ad`);
//! - [`client`]: the typed request/response client with timeouts over the daemon's TCP socket or
//!   its HTTP JSON-RPC endpoint (remote daemons via `AGENT_DEVICE_DAEMON_BASE_URL`), leases
//!   for tenant-isolated daemons, artifact downloads;
//! - [`http`]: the small HTTP/1.1 exchange the JSON-RPC transport needs, over TLS for
//!   `https://` daemons;
//! - [`nodes`]: snapshot nodes to the interpreter's tree model;
//! - [`device`]: the [`crate::Backend`] implementation (actions at points `ad` resolved), which
//!   owns its daemon connection and is made by [`crate::backends::create`] like every backend;
//! - [`touch`]: agent-device's touch-point rules (where it taps an element, when it refuses);
//! - [`doctor`]: the `ad doctor` row;
//! - [`prereqs`]: what the Linux platform needs (display, input tool, `python3` with the AT-SPI
//!   bindings, the accessibility bus), checked before a run's first step and by `ad doctor`;
//! - [`run`]: what the bridge needs ([`BridgeSetup`]) and how it reaches a daemon (attach or
//!   start); the daemon an `ad test` suite shares is the session layer's
//!   (`crate::session::suite::shared_daemon`).

pub mod client;
pub mod daemon;
pub mod device;
pub mod doctor;
pub mod http;
pub mod install;
pub mod nodes;
pub mod prereqs;
pub mod run;
pub mod touch;

pub use device::AgentDevice;
pub use run::{BridgeConfig, BridgeSetup};
