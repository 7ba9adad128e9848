//! `--backend agent-device` on `run` and `test`: the device selection flags and the bridge
//! configuration they make.

use ad_runtime::backends::agent_device::BridgeConfig;
use clap::Args;

/// agent-device's own device selection, passed with every request.
#[derive(Args, Clone, Debug, Default)]
pub struct DeviceArgs {
    /// With --backend agent-device: the device, by name (agent-device's --device).
    #[arg(long, value_name = "NAME")]
    pub device: Option<String>,
    /// With --backend agent-device: the iOS device or simulator UDID.
    #[arg(long, value_name = "UDID")]
    pub udid: Option<String>,
    /// With --backend agent-device: the Android device serial.
    #[arg(long, value_name = "SERIAL")]
    pub serial: Option<String>,
    /// With --backend agent-device: the remote farm tenant; requests become tenant-isolated and
    /// run under a lease (env AGENT_DEVICE_TENANT).
    #[arg(long, value_name = "ID")]
    pub tenant: Option<String>,
    /// With --tenant: the run the lease belongs to (default: one per ad process;
    /// env AGENT_DEVICE_RUN_ID).
    #[arg(long, value_name = "ID")]
    pub run_id: Option<String>,
    /// With --tenant: a lease you hold (ad neither renews nor releases it), else ad allocates,
    /// renews and releases one (env AGENT_DEVICE_LEASE_ID).
    #[arg(long, value_name = "ID")]
    pub lease_id: Option<String>,
    /// With --tenant: agent-device's lease backend, e.g. ios-simulator (env
    /// AGENT_DEVICE_LEASE_BACKEND; default: the daemon's).
    #[arg(long, value_name = "NAME")]
    pub lease_backend: Option<String>,
}

impl DeviceArgs {
    /// The flags given, as command-line arguments again (resume commands).
    pub fn cli_args(&self) -> Vec<String> {
        let mut args = Vec::new();
        for (flag, value) in [
            ("--device", &self.device),
            ("--udid", &self.udid),
            ("--serial", &self.serial),
            ("--tenant", &self.tenant),
            ("--run-id", &self.run_id),
            ("--lease-id", &self.lease_id),
            ("--lease-backend", &self.lease_backend),
        ] {
            if let Some(v) = value {
                args.extend([flag.to_string(), v.clone()]);
            }
        }
        args
    }

    pub fn bridge(&self) -> BridgeConfig {
        BridgeConfig {
            device: self.device.clone(),
            udid: self.udid.clone(),
            serial: self.serial.clone(),
            tenant: self.tenant.clone(),
            run_id: self.run_id.clone(),
            lease_id: self.lease_id.clone(),
            lease_backend: self.lease_backend.clone(),
            ..BridgeConfig::default()
        }
    }
}
