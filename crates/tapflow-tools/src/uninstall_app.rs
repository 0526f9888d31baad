//! `uninstall_app`: Uninstall an app (its data is removed).

use schemars::JsonSchema;
use serde::Serialize;

use crate::app_ops::{BundleOp, BundleTool};
use crate::policy::{Hints, Policy};
use crate::presets;
use tapflow_device::{Device, DeviceResult};

pub type UninstallApp = BundleTool<Uninstall>;

pub struct Uninstall;

#[derive(Debug, Serialize, JsonSchema)]
pub struct Output {
    pub device_id: String,
    pub bundle_name: String,
    pub uninstalled: bool,
}

impl BundleOp for Uninstall {
    const NAME: &'static str = "uninstall_app";
    const TITLE: &'static str = "Uninstall app";
    const DESCRIPTION: &'static str = "Uninstall an app from the device; its data is removed with it (needs approval where the server requires it). Use `clear_app_data` instead to reset an app's data but keep it installed, or `stop_app` to only stop it.";
    const POLICY: Policy = presets::REMOVES_DATA;
    const HINTS: Hints = presets::DESTRUCTIVE_IDEMPOTENT;
    const FAILED: tapflow_core::codes::Code = tapflow_core::codes::UNINSTALL_FAILED;
    type Output = Output;

    fn act(device: &dyn Device, bundle: &str) -> DeviceResult<()> {
        device.uninstall(bundle)
    }

    fn done(device_id: String, bundle_name: String) -> Output {
        Output {
            device_id,
            bundle_name,
            uninstalled: true,
        }
    }
}
