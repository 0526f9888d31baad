//! `clear_app_data`: Delete an app's data (bm clean -d): the app starts as freshly installed.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::tools::context::Call;
use crate::tools::envelope::ToolError;
use crate::tools::policy::{Hints, Policy, Risk};
use crate::tools::registry::Tool;

pub struct ClearAppData;

#[derive(Debug, Deserialize, JsonSchema)]
pub struct Params {
    /// Target app bundle.
    pub bundle_name: Option<String>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct Output {
    pub device_id: String,
    pub bundle_name: String,
    pub cleared: bool,
}

impl Tool for ClearAppData {
    const NAME: &'static str = "clear_app_data";
    const TITLE: &'static str = "Clear app data";
    const DESCRIPTION: &'static str =
        "Delete an app's data (bm clean -d): the app starts as freshly installed.";
    const POLICY: Policy = Policy {
        risk: Risk::Dangerous,
        mutates_device: true,
        writes_host_files: false,
        needs_approval: true,
    };
    const HINTS: Hints = Hints {
        read_only: false,
        destructive: true,
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
            .clear_app_data(&bundle)
            .map_err(|e| ToolError::from_device_op(e, "CLEAR_APP_DATA_FAILED"))?;
        Ok(Output {
            device_id: device.serial().to_string(),
            bundle_name: bundle,
            cleared: true,
        })
    }
}
