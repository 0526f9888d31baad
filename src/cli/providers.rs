//! The providers of real devices the commands hand their tools (`run`, `tool`, `mcp`,
//! `inspect`): HarmonyOS devices through `hdc` and Android devices through `adb`, merged.
//! Simulated devices (`--sim N`, the `sim` feature) come from `crate::sim_provider` and
//! `super::android_sim`.

use std::path::PathBuf;
use std::sync::Arc;

use tapflow_device::adb::AdbClient;
use tapflow_device::hdc::{HdcClient, HdcConfig};
use tapflow_tools::adb_provider::AdbProvider;
use tapflow_tools::hdc_provider::HdcProvider;
use tapflow_tools::platforms_provider::PlatformsProvider;
use tapflow_tools::provider::CachingProvider;
use tapflow_tools::{DeviceProvider, ToolConfig};

/// The device provider for CLI calls: [`provider_for`] with `adb` from `PATH`.
pub fn provider(hdc: Option<PathBuf>, config: &ToolConfig) -> Arc<dyn DeviceProvider> {
    provider_for(hdc, None, config)
}

/// The device provider for CLI calls: HarmonyOS devices through the `hdc` executable
/// (`--hdc PATH` or `TAPFLOW_HDC`, default `hdc` on PATH, with `HARMONYOS_HDC_SERVER` as the
/// default route server) and Android devices through the `adb` executable (`--adb PATH` or
/// `TAPFLOW_ADB`, default `adb` on PATH; adb's own `ANDROID_ADB_SERVER_PORT` picks its server),
/// merged: a device id of either kind resolves. Devices are resolved once per route for the
/// duration of the command.
pub fn provider_for(
    hdc: Option<PathBuf>,
    adb: Option<PathBuf>,
    config: &ToolConfig,
) -> Arc<dyn DeviceProvider> {
    provider_on(None, hdc, adb, config)
}

/// [`provider_for`] with only the backend of `platform` when one is given (`tapflow mcp
/// --platform android` serves adb devices only, as its tool list says).
pub fn provider_on(
    platform: Option<tapflow_device::Platform>,
    hdc: Option<PathBuf>,
    adb: Option<PathBuf>,
    config: &ToolConfig,
) -> Arc<dyn DeviceProvider> {
    let hdc_config = HdcConfig {
        program: hdc.unwrap_or_else(|| PathBuf::from("hdc")),
        default_server: config.default_hdc_server.clone(),
        ..HdcConfig::default()
    };
    let hdc: Arc<dyn DeviceProvider> = Arc::new(HdcProvider(HdcClient::with_process(hdc_config)));
    let adb: Arc<dyn DeviceProvider> = Arc::new(AdbProvider(AdbClient::with_process(
        super::platform::adb_config(adb),
    )));
    let backends = [
        (tapflow_device::Platform::Harmonyos, hdc),
        (tapflow_device::Platform::Android, adb),
    ]
    .into_iter()
    .filter(|(p, _)| platform.is_none_or(|only| only == *p))
    .collect();
    let inner = Arc::new(PlatformsProvider::new(backends));
    Arc::new(CachingProvider::new(
        inner,
        std::time::Duration::from_secs(60),
    ))
}
