//! `install_app`: install a `.hap` or `.app` package (replacing an installed version).
//!
//! `hap_path` goes through the host-path policy: a regular file under the allowed roots, also
//! once links are resolved (`PATH_NOT_ALLOWED` outside them, `FILE_NOT_FOUND` when missing or not
//! a regular file).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::json;

use crate::hostfs::{Expect, PathErrorKind};
use crate::tools::context::Call;
use crate::tools::envelope::ToolError;
use crate::tools::policy::{Hints, Policy, Risk};
use crate::tools::presets;
use crate::tools::registry::Tool;

pub struct InstallApp;

#[derive(Debug, Deserialize, JsonSchema)]
pub struct Params {
    /// Host path of the package; must end with `.hap` or `.app`.
    pub hap_path: Option<String>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct Output {
    pub device_id: String,
    /// The package as installed (absolute host path).
    pub hap_path: String,
    pub installed: bool,
}

/// The package path as given (device-free): required (`MISSING_HAP_PATH`), ending in `.hap`
/// or `.app` (`INVALID_APP_PACKAGE`).
fn package(p: &Params) -> Result<String, ToolError> {
    let Some(given) = p.hap_path.clone().filter(|s| !s.trim().is_empty()) else {
        return Err(
            ToolError::new(crate::codes::MISSING_HAP_PATH, "hap_path is required").at("hap_path"),
        );
    };
    let lower = given.trim().to_lowercase();
    if !(lower.ends_with(".hap") || lower.ends_with(".app")) {
        let shown = crate::tools::decode::clip(&given);
        return Err(ToolError::new(
            crate::codes::INVALID_APP_PACKAGE,
            format!("{shown} is not a .hap or .app package"),
        )
        .with_details(json!({ "hap_path": shown }))
        .at("hap_path"));
    }
    Ok(given)
}

impl Tool for InstallApp {
    const NAME: &'static str = "install_app";
    const TITLE: &'static str = "Install app";
    const DESCRIPTION: &'static str = "Install a .hap or .app package onto the device, replacing an installed version (needs approval where the server requires it). Use `build_app` first to produce the package, `run_app` afterwards to launch it; use `uninstall_app` to remove an app, `clear_app_data` to reset one without reinstalling.";
    const POLICY: Policy = Policy {
        risk: Risk::Device,
        mutates_device: true,
        writes_host_files: false,
        executes_host_code: false,
        needs_approval: true,
    };
    const HINTS: Hints = presets::IDEMPOTENT;
    const REQUIRED: &'static [&'static str] = &["hap_path"];
    const SHORTHAND: Option<&'static str> = Some("hap_path");
    type Params = Params;
    type Output = Output;

    fn check(p: &Params) -> Result<(), ToolError> {
        package(p).map(drop)
    }

    fn run(p: Params, call: &mut Call<'_>) -> Result<Output, ToolError> {
        let given = package(&p)?;
        // The package must be a regular file under the allowed roots (links resolved).
        let path = call
            .config()
            .paths
            .check_existing(given.trim(), Expect::File)
            .map_err(|e| {
                let code = match e.kind {
                    PathErrorKind::NotAllowed | PathErrorKind::Symlink => {
                        crate::codes::PATH_NOT_ALLOWED
                    }
                    _ => crate::codes::FILE_NOT_FOUND,
                };
                let mut details = e.details();
                details["hap_path"] = crate::tools::decode::clip(&given).into();
                ToolError::new(code, e.message).with_details(details)
            })?;
        let device = call.device()?;
        device
            .install(&path, true)
            .map_err(|e| ToolError::from_device_op(e, crate::codes::INSTALL_FAILED))?;
        Ok(Output {
            device_id: device.serial().to_string(),
            hap_path: path.display().to_string(),
            installed: true,
        })
    }
}
