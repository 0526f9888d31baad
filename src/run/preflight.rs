//! The check every device passes before its first flow: reachable and authorised (the
//! provider connects to it), awake (power state) and unlocked (a UI dump shows a window).
//! A device that fails gets a clear error; what happens to its flows is the schedule's
//! business ([`super::schedule`]). Each device is checked on its own thread, so a slow check
//! holds back no other device.

use tapflow_device::{DeviceError, DumpScope};
use tapflow_tools::{DeviceProvider, DeviceRoute};

use super::result::{DeviceResult, StepError};

/// Failure code of a device whose screen is off.
pub use tapflow_core::codes::SCREEN_OFF;

/// Attempts of each part of the check, in all (the first and two more), before a transient
/// failure counts. `docs/run.md` says the same.
pub const CHECK_ATTEMPTS: usize = 3;

fn device_error(e: &DeviceError, what: &str) -> StepError {
    StepError {
        code: e.code(),
        message: format!("{what}: {e}"),
        details: match e.device_says() {
            Some(s) => serde_json::json!({ "device_says": s }),
            None => serde_json::Value::Null,
        },
        location: None,
    }
}

/// Runs `f` again while it fails transiently (a refused or truncated dump),
/// [`CHECK_ATTEMPTS`] attempts in all: a device is declared unusable only for lasting reasons.
/// (hdc's "channel is being established" answer is already retried by the hdc backend.) A timeout is not tried again: the command already
/// had its whole deadline, and a device that slow is better left out at once (its flows go to
/// the devices that passed).
fn again<T>(f: impl Fn() -> Result<T, DeviceError>) -> Result<T, DeviceError> {
    let mut r = f();
    for _ in 1..CHECK_ATTEMPTS {
        match &r {
            Err(DeviceError::Timeout { .. }) => break,
            Err(e) if e.is_transient() => r = f(),
            _ => break,
        }
    }
    r
}

/// [`check`], with a panic in the provider or backend reported as the device's failure
/// (`INTERNAL_ERROR`) instead of ending the device's thread.
pub fn check_guarded(provider: &dyn DeviceProvider, route: &DeviceRoute) -> DeviceResult {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| check(provider, route)))
        .unwrap_or_else(|_| DeviceResult {
            serial: route.device_id.clone().unwrap_or_else(|| "auto".into()),
            platform: "unknown".into(),
            model: None,
            name: None,
            api_level: None,
            software_version: None,
            ready: false,
            error: Some(StepError {
                code: tapflow_core::codes::INTERNAL_ERROR,
                message: "the device check failed unexpectedly".into(),
                details: serde_json::Value::Null,
                location: None,
            }),
        })
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
                code: SCREEN_OFF,
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
