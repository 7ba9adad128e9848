//! `--backend agent-device` on `run` and `test`: the device selection flags and the bridge
//! configuration they make.

use ad_runtime::agent_device::BridgeConfig;
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
}

impl DeviceArgs {
    pub fn bridge(&self) -> BridgeConfig {
        BridgeConfig {
            device: self.device.clone(),
            udid: self.udid.clone(),
            serial: self.serial.clone(),
            ..BridgeConfig::default()
        }
    }
}
