//! The check every device passes before its first flow: reachable and authorised (the
//! provider connects to it), awake (power state) and unlocked (a UI dump shows a window).
//! A device that fails gets a clear error and its flows are reported as not run.

use crate::device::{DeviceError, DumpScope};
use crate::tools::{DeviceProvider, DeviceRoute};

use super::result::{DeviceResult, StepError};

/// Failure code of a device whose screen is off.
pub use crate::codes::SCREEN_OFF;

/// Tries of the screen check before a transient failure counts.
const CHECK_ATTEMPTS: usize = 3;

fn device_error(e: &DeviceError, what: &str) -> StepError {
    StepError {
        code: e.code().to_string(),
        message: format!("{what}: {e}"),
        details: match e.device_says() {
            Some(s) => serde_json::json!({ "device_says": s }),
            None => serde_json::Value::Null,
        },
        location: None,
    }
}

/// Runs `f` again while it fails transiently (`[Fail]` answers, truncated dumps), up to
/// [`CHECK_ATTEMPTS`] times: a device is declared unusable only for lasting reasons.
fn again<T>(f: impl Fn() -> Result<T, DeviceError>) -> Result<T, DeviceError> {
    let mut r = f();
    for _ in 1..CHECK_ATTEMPTS {
        match &r {
            Err(e) if e.is_transient() => r = f(),
            _ => break,
        }
    }
    r
}

/// Checks one device; the result says whether it is ready and, when not, why.
pub fn check(provider: &dyn DeviceProvider, route: &DeviceRoute) -> DeviceResult {
    let label = route
        .device_id
        .clone()
        .or_else(|| route.hdc_server.clone())
        .unwrap_or_else(|| "auto".into());
    let mut r = DeviceResult {
        serial: label,
        platform: "unknown".into(),
        model: None,
        name: None,
        api_level: None,
        software_version: None,
        ready: false,
        error: None,
    };
    let device = match again(|| provider.resolve(route)) {
        Ok(d) => d,
        Err(e) => {
            r.error = Some(device_error(&e, "the device is not reachable"));
            return r;
        }
    };
    r.serial = device.serial().to_string();
    r.platform = device.platform().to_string();
    match again(|| device.info()) {
        Ok(info) => {
            r.model = info.model;
            r.name = info.name;
            r.api_level = info.api_level;
            r.software_version = info.software_version;
        }
        Err(e) => {
            r.error = Some(device_error(&e, "the device does not answer"));
            return r;
        }
    }
    match again(|| device.power_state()) {
        Ok(p) if !p.awake => {
            r.error = Some(StepError {
                code: SCREEN_OFF.into(),
                message: format!(
                    "the screen of {} is off (power state {}); wake the device",
                    r.serial, p.state
                ),
                details: serde_json::Value::Null,
                location: None,
            });
            return r;
        }
        Ok(_) => {}
        // Not every backend reports power; a dump below still proves the screen is usable.
        Err(DeviceError::Unsupported { .. }) => {}
        Err(e) => {
            r.error = Some(device_error(&e, "cannot read the power state"));
            return r;
        }
    }
    match again(|| device.ui_tree(&DumpScope::default())) {
        Ok(tree) if tree.children.is_empty() => {
            r.error = Some(device_error(
                &DeviceError::ScreenLocked {
                    serial: r.serial.clone(),
                },
                "the screen shows no window",
            ));
        }
        Ok(_) => r.ready = true,
        Err(e) => r.error = Some(device_error(&e, "cannot read the screen")),
    }
    r
}
