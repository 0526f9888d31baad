//! `clear_app_data`: Delete an app's data (bm clean -d): the app starts as freshly installed.

use schemars::JsonSchema;
use serde::Serialize;

use crate::app_ops::{BundleOp, BundleTool};
use crate::policy::{Hints, Policy};
use crate::presets;
use tapflow_device::{Device, DeviceResult};

pub type ClearAppData = BundleTool<Clear>;

pub struct Clear;

#[derive(Debug, Serialize, JsonSchema)]
pub struct Output {
    pub device_id: String,
    pub bundle_name: String,
    pub cleared: bool,
}

impl BundleOp for Clear {
    const NAME: &'static str = "clear_app_data";
    const TITLE: &'static str = "Clear app data";
    const DESCRIPTION: &'static str = "Delete an app's data (bm clean -d): it starts as freshly installed, logged out (needs approval where the server requires it). Use it for a clean state before `run_app`.";
    const POLICY: Policy = presets::REMOVES_DATA;
    const HINTS: Hints = presets::DESTRUCTIVE_IDEMPOTENT;
    const FAILED: tapflow_core::codes::Code = tapflow_core::codes::CLEAR_APP_DATA_FAILED;
    const CORE: bool = true;
    type Output = Output;

    fn act(device: &dyn Device, bundle: &str) -> DeviceResult<()> {
        device.clear_app_data(bundle)
    }

    fn done(device_id: String, bundle_name: String) -> Output {
        Output {
            device_id,
            bundle_name,
            cleared: true,
        }
    }
}
