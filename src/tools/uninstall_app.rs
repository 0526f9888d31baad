//! `uninstall_app`: Uninstall an app (its data is removed).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::tools::context::Call;
use crate::tools::envelope::ToolError;
use crate::tools::policy::{Hints, Policy, Risk};
use crate::tools::registry::Tool;

pub struct UninstallApp;

#[derive(Debug, Deserialize, JsonSchema)]
pub struct Params {
    /// Target app bundle.
    pub bundle_name: Option<String>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct Output {
    pub device_id: String,
    pub bundle_name: String,
    pub uninstalled: bool,
}

impl Tool for UninstallApp {
    const NAME: &'static str = "uninstall_app";
    const TITLE: &'static str = "Uninstall app";
    const DESCRIPTION: &'static str = "Uninstall an app (its data is removed).";
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
            .uninstall(&bundle)
            .map_err(|e| ToolError::from_device_op(e, "UNINSTALL_FAILED"))?;
        Ok(Output {
            device_id: device.serial().to_string(),
            bundle_name: bundle,
            uninstalled: true,
        })
    }
}
