//! The registry of built-in backends: which ones a server runs, configured from one
//! [`BackendConfig`]. The controller lists devices across them in this order. Adding a backend
//! is its folder beside this file and one line in [`builtin`]; tests build a controller over
//! their own list (`DeviceController::with_backends`).

use crate::backend::android::resident::HelperUse;
use std::sync::Arc;
use std::time::Duration;

use super::android::connect::{Cidr, ConnectPolicy};
use super::android::AdbBackend;
use super::ios::SimctlBackend;
use super::wda::{WdaBackend, WdaConfig};
use super::DeviceBackend;
use crate::exec::Toolbox;

/// What the backends need from the server's configuration.
#[derive(Debug, Clone, Default)]
pub struct BackendConfig {
    /// Where each external tool is (adb, xcrun, AXe, idb…), fixed at startup.
    pub tools: Toolbox,
    /// Port of the adb server to use (`adb -P`), when not adb's default.
    pub adb_server_port: Option<u16>,
    /// Upper bound of every device command's time limit (default: each command's own).
    pub max_command_time: Option<Duration>,
    /// WebDriverAgent endpoints (`--wda`) and the time limit of a UI read through them.
    pub wda: WdaConfig,
    /// Address blocks besides loopback that `adb connect` may reach (`--adb-connect-allow`).
    pub adb_connect_allow: Vec<Cidr>,
    /// Length of one Android `screenrecord` file (default 180 s; chained past it).
    pub android_record_segment: Option<Duration>,
    /// Whether Android devices are read and driven through the UiAutomator2 server where it
    /// is installed (`--android-helper`).
    pub android_helper: HelperUse,
}

/// The built-in backends, in listing order.
pub fn builtin(config: &BackendConfig) -> Vec<Arc<dyn DeviceBackend>> {
    vec![
        Arc::new(
            AdbBackend::new(
                config.tools.clone(),
                config.adb_server_port,
                config.max_command_time,
            )
            .with_connect_policy(ConnectPolicy {
                allow: config.adb_connect_allow.clone(),
            })
            .with_record_segment(
                config
                    .android_record_segment
                    .unwrap_or(crate::backend::android::record::SEGMENT_LIMIT),
            )
            .with_helper(config.android_helper),
        ),
        Arc::new(SimctlBackend::new(config.tools.clone())),
        Arc::new(WdaBackend::new(
            config.tools.clone(),
            &config.wda,
            config.max_command_time,
        )),
    ]
}
