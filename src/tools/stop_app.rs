//! `stop_app`: Force-stop a running app (aa force-stop).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::tools::context::Call;
use crate::tools::envelope::ToolError;
use crate::tools::policy::{Hints, Policy, Risk};
use crate::tools::registry::Tool;

pub struct StopApp;

#[derive(Debug, Deserialize, JsonSchema)]
pub struct Params {
    /// Target app bundle.
    pub bundle_name: Option<String>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct Output {
    pub device_id: String,
    pub bundle_name: String,
    pub stopped: bool,
}

impl Tool for StopApp {
    const NAME: &'static str = "stop_app";
    const TITLE: &'static str = "Stop app";
    const DESCRIPTION: &'static str = "Force-stop a running app (aa force-stop).";
    const POLICY: Policy = Policy {
        risk: Risk::Device,
        mutates_device: true,
        writes_host_files: false,
        needs_approval: false,
    };
    const HINTS: Hints = Hints {
        read_only: false,
        destructive: false,
        idempotent: true,
    };
    const REQUIRED: &'static [&'static str] = &["bundle_name"];
    type Params = Params;
    type Output = Output;

    fn run(p: Params, call: &mut Call<'_>) -> Result<Output, ToolError> {
        let Some(bundle) = p
            .bundle_name
            .map(|b| b.trim().to_string())
            .filter(|b| !b.is_empty())
        else {
            return Err(ToolError::new(
                "MISSING_BUNDLE_NAME",
                "bundle_name is required",
            ));
        };
        let device = call.device()?;
        device
            .stop_app(&bundle)
            .map_err(|e| ToolError::from_device_op(e, "STOP_APP_FAILED"))?;
        Ok(Output {
            device_id: device.serial().to_string(),
            bundle_name: bundle,
            stopped: true,
        })
    }
}
