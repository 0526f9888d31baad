//! `stop_app`: Force-stop a running app (aa force-stop).

use schemars::JsonSchema;
use serde::Serialize;

use crate::app_ops::{BundleOp, BundleTool};
use crate::policy::{Hints, Policy};
use crate::presets;
use tapflow_device::{Device, DeviceResult};

pub type StopApp = BundleTool<Stop>;

pub struct Stop;

#[derive(Debug, Serialize, JsonSchema)]
pub struct Output {
    pub device_id: String,
    pub bundle_name: String,
    pub stopped: bool,
}

impl BundleOp for Stop {
    const NAME: &'static str = "stop_app";
    const TITLE: &'static str = "Stop app";
    const DESCRIPTION: &'static str = "Force-stop a running app (aa force-stop); its data is kept. Use `clear_app_data` to also reset its data, `press_key` Back/Home to leave as a user would.";
    const POLICY: Policy = Policy::UI_ACTION;
    const HINTS: Hints = presets::IDEMPOTENT;
    const FAILED: tapflow_core::codes::Code = tapflow_core::codes::STOP_APP_FAILED;
    const CORE: bool = true;
    type Output = Output;

    fn act(device: &dyn Device, bundle: &str) -> DeviceResult<()> {
        device.stop_app(bundle)
    }

    fn done(device_id: String, bundle_name: String) -> Output {
        Output {
            device_id,
            bundle_name,
            stopped: true,
        }
    }
}
