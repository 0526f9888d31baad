//! The [`DeviceProvider`] over the adb backend: a route's `device_id` is an adb serial
//! (`emulator-5554`, `127.0.0.1:40123`, a USB serial); devices are `AdbDevice`s. `hdc_server`
//! is HarmonyOS's and is refused here.

use std::sync::Arc;

use crate::context::{DeviceProvider, DeviceRoute};
use tapflow_device::adb::AdbClient;
use tapflow_device::{Cost, Device, DeviceError, Target};

/// Resolves tool routes to adb devices.
pub struct AdbProvider(pub AdbClient);

fn no_hdc_server(server: &str) -> DeviceError {
    DeviceError::Command {
        code: tapflow_core::codes::INVALID_PARAM,
        what: "device route".into(),
        device_says: format!(
            "hdc_server {server:?} addresses an hdc server; Android devices are reached through adb (pass the adb serial as device_id)"
        ),
    }
}

impl DeviceProvider for AdbProvider {
    fn resolve(&self, route: &DeviceRoute) -> Result<Arc<dyn Device>, DeviceError> {
        if let Some(s) = &route.hdc_server {
            return Err(no_hdc_server(s));
        }
        Ok(Arc::new(self.0.connect(route.device_id.as_deref())?))
    }

    fn targets(&self, hdc_server: Option<&str>) -> Result<Vec<Target>, DeviceError> {
        if let Some(s) = hdc_server {
            return Err(no_hdc_server(s));
        }
        self.0.list_targets()
    }

    fn cost(&self) -> Cost {
        self.0.cost()
    }
}
