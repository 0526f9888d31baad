//! The tools that do one thing to an installed app named by its bundle (`stop_app`,
//! `uninstall_app`, `clear_app_data`): one generic [`BundleTool`] runs them all, each tool file
//! only says what it publishes, which device call it makes and how its result names the outcome.
//! Also how every tool reads a `bundle_name` ([`given_bundle`], [`required_bundle`], and
//! [`bundle_to_send`] for tools that pass it to the device).

use std::marker::PhantomData;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::context::Call;
use crate::envelope::ToolError;
use crate::flow_hooks::FlowHooks;
use crate::policy::{Hints, Policy};
use crate::registry::Tool;
use tapflow_device::{Device, DeviceResult};

/// The trimmed `bundle_name`; blank counts as not given.
pub fn given_bundle(given: Option<String>) -> Option<String> {
    given
        .map(|b| b.trim().to_string())
        .filter(|b| !b.is_empty())
}

/// The trimmed `bundle_name`; absent or blank is the contract's `MISSING_BUNDLE_NAME`.
pub fn required_bundle(given: Option<String>) -> Result<String, ToolError> {
    given_bundle(given).ok_or_else(|| {
        ToolError::new(
            tapflow_core::codes::MISSING_BUNDLE_NAME,
            "bundle_name is required",
        )
    })
}

/// A `bundle_name` the tool sends to the device (device-free): required
/// (`MISSING_BUNDLE_NAME`) and spelled as the bundle manager allows (`INVALID_BUNDLE_NAME`, the
/// same rule the device backend applies before sending), so every app tool refuses a malformed
/// name with the same code before anything runs.
pub fn bundle_to_send(given: Option<&str>) -> Result<String, ToolError> {
    let bundle = required_bundle(given.map(str::to_string)).map_err(|e| e.at("bundle_name"))?;
    tapflow_device::hdc::validate::bundle_name(&bundle).map_err(|e| {
        ToolError::new(
            e.code(),
            format!(
                "bundle_name {:?} is not a bundle name (letters, digits, '.', '_' or '-', not starting with '-')",
                crate::decode::clip(&bundle)
            ),
        )
        .at("bundle_name")
    })?;
    Ok(bundle)
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct Params {
    /// Target app bundle.
    pub bundle_name: Option<String>,
}

/// One operation on a bundle, as a tool publishes it.
pub trait BundleOp: 'static {
    const NAME: &'static str;
    const TITLE: &'static str;
    const DESCRIPTION: &'static str;
    const POLICY: Policy;
    const HINTS: Hints;
    /// The tool's code for a device that refuses the operation (`details.cause_code` keeps
    /// the backend's).
    const FAILED: tapflow_core::codes::Code;
    /// In MCP's `core` profile ([`Tool::CORE`]).
    const CORE: bool = false;
    type Output: Serialize + JsonSchema;

    /// The one device call (one round trip on hdc).
    fn act(device: &dyn Device, bundle: &str) -> DeviceResult<()>;
    /// The result once the device accepted the operation.
    fn done(device_id: String, bundle_name: String) -> Self::Output;
}

/// The tool for a [`BundleOp`]: validates `bundle_name` before touching the device, then makes
/// the operation's one device call.
pub struct BundleTool<O>(PhantomData<O>);

impl<O: BundleOp> Tool for BundleTool<O> {
    const NAME: &'static str = O::NAME;
    const TITLE: &'static str = O::TITLE;
    const DESCRIPTION: &'static str = O::DESCRIPTION;
    const POLICY: Policy = O::POLICY;
    const HINTS: Hints = O::HINTS;
    const CORE: bool = O::CORE;
    const REQUIRED: &'static [&'static str] = &["bundle_name"];
    const FLOW: FlowHooks<Params> = FlowHooks {
        shorthand: Some("bundle_name"),
        ..FlowHooks::NONE
    };
    type Params = Params;
    type Output = O::Output;

    fn check(p: &Params) -> Result<(), ToolError> {
        bundle_to_send(p.bundle_name.as_deref()).map(drop)
    }

    fn run(p: Params, call: &mut Call<'_>) -> Result<O::Output, ToolError> {
        let bundle = bundle_to_send(p.bundle_name.as_deref())?;
        let device = call.device()?;
        O::act(device.as_ref(), &bundle).map_err(|e| ToolError::from_device_op(e, O::FAILED))?;
        Ok(O::done(device.serial().to_string(), bundle))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bundle_names_are_trimmed_and_required() {
        assert_eq!(
            required_bundle(Some(" com.a.b ".into())).unwrap(),
            "com.a.b"
        );
        for missing in [None, Some(String::new()), Some("  ".into())] {
            assert_eq!(
                required_bundle(missing).unwrap_err().code,
                "MISSING_BUNDLE_NAME"
            );
        }
    }
}
