//! `install_app`: install a `.hap` or `.app` package (replacing an installed version); on an
//! Android device an `.apk` (a `.hap` there is `UNSUPPORTED_ON_PLATFORM`).
//!
//! `hap_path` goes through the host-path policy: a regular file under the allowed roots, also
//! once links are resolved (`PATH_NOT_ALLOWED` outside them, `FILE_NOT_FOUND` when missing or not
//! a regular file).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::json;

use crate::context::Call;
use crate::envelope::ToolError;
use crate::flow_hooks::FlowHooks;
use crate::policy::{Hints, Policy, Risk};
use crate::presets;
use crate::registry::Tool;
use tapflow_device::hostfs::{Expect, PathErrorKind};

pub struct InstallApp;

#[derive(Debug, Deserialize, JsonSchema)]
pub struct Params {
    /// Host path of the package; must end with `.hap` or `.app` (`.apk` on an Android device).
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
/// or `.app`, or `.apk` for an Android device (`INVALID_APP_PACKAGE`). Returns the path and
/// whether it is an `.apk` (which package fits which device is decided once the device is known).
fn package(p: &Params) -> Result<(String, bool), ToolError> {
    let Some(given) = p.hap_path.clone().filter(|s| !s.trim().is_empty()) else {
        return Err(ToolError::new(
            tapflow_core::codes::MISSING_HAP_PATH,
            "hap_path is required",
        )
        .at("hap_path"));
    };
    let lower = given.trim().to_lowercase();
    let apk = lower.ends_with(".apk");
    if !(lower.ends_with(".hap") || lower.ends_with(".app") || apk) {
        let shown = crate::decode::clip(&given);
        return Err(ToolError::new(
            tapflow_core::codes::INVALID_APP_PACKAGE,
            format!("{shown} is not a .hap or .app package (nor an .apk for Android)"),
        )
        .with_details(json!({ "hap_path": shown }))
        .at("hap_path"));
    }
    Ok((given, apk))
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
    const FLOW: FlowHooks<Params> = FlowHooks {
        shorthand: Some("hap_path"),
        ..FlowHooks::NONE
    };
    type Params = Params;
    type Output = Output;

    fn check(p: &Params) -> Result<(), ToolError> {
        package(p).map(drop)
    }

    fn run(p: Params, call: &mut Call<'_>) -> Result<Output, ToolError> {
        let (given, apk) = package(&p)?;
        // An `.apk` is only a package on Android: elsewhere it is refused before the file is
        // looked at, in the reference contract's order (`INVALID_APP_PACKAGE` first).
        if apk {
            let device = call.device()?;
            if device.platform() != tapflow_device::Platform::Android {
                let given = crate::decode::clip(&given);
                return Err(ToolError::new(
                    tapflow_core::codes::INVALID_APP_PACKAGE,
                    format!("{given} is an Android package; a HarmonyOS device installs .hap or .app packages"),
                )
                .with_details(json!({ "hap_path": given, "platform": device.platform() })));
            }
        }
        // The package must be a regular file under the allowed roots (links resolved).
        let path = call
            .config()
            .paths
            .check_existing(given.trim(), Expect::File)
            .map_err(|e| {
                let code = match e.kind {
                    PathErrorKind::NotAllowed | PathErrorKind::Symlink => {
                        tapflow_core::codes::PATH_NOT_ALLOWED
                    }
                    _ => tapflow_core::codes::FILE_NOT_FOUND,
                };
                let mut details = e.details();
                details["hap_path"] = crate::decode::clip(&given).into();
                ToolError::new(code, e.message).with_details(details)
            })?;
        let device = call.device()?;
        let given = crate::decode::clip(&given);
        // `.hap`/`.app` install on HarmonyOS, `.apk` on Android.
        if device.platform() == tapflow_device::Platform::Android && !apk {
            return Err(ToolError::new(
                tapflow_core::codes::UNSUPPORTED_ON_PLATFORM,
                format!("{given} is a HarmonyOS package; an Android device installs .apk files (build one with Gradle and pass its path)"),
            )
            .with_details(json!({ "hap_path": given, "platform": "android" })));
        }
        device
            .install(&path, true)
            .map_err(|e| ToolError::from_device_op(e, tapflow_core::codes::INSTALL_FAILED))?;
        Ok(Output {
            device_id: device.serial().to_string(),
            hap_path: path.display().to_string(),
            installed: true,
        })
    }
}
