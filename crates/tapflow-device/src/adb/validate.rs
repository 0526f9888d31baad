//! Checks on caller-supplied values before anything is sent to an Android device. Quoting keeps
//! text from being interpreted by the device shell; these checks catch what quoting cannot:
//! values a program would read as an option (`-x`), NUL, names Android can never have.

use crate::error::DeviceError;
use crate::hdc::validate::INVALID_PARAM;

fn invalid(code: tapflow_core::codes::Code, what: &str, detail: String) -> DeviceError {
    DeviceError::Command {
        code,
        what: what.to_string(),
        device_says: detail,
    }
}

/// An Android package name: dot-separated segments of letters, digits and `_`, each starting
/// with a letter (`com.tapflow.demo`; the framework's own package is `android`).
pub fn package_name(value: &str) -> Result<(), DeviceError> {
    let ok = !value.is_empty()
        && value.len() <= 255
        && value.split('.').all(|seg| {
            seg.starts_with(|c: char| c.is_ascii_alphabetic())
                && seg.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        });
    if ok {
        Ok(())
    } else {
        Err(invalid(
            tapflow_core::codes::INVALID_BUNDLE_NAME,
            "package name",
            format!(
                "{value:?} is not an Android package name (dot-separated segments of letters, digits and '_', each starting with a letter)"
            ),
        ))
    }
}

/// An activity class as `am start -n PKG/CLASS` takes it: `.Main` or `com.x.Main`.
pub fn activity(value: &str) -> Result<(), DeviceError> {
    let ok = !value.is_empty()
        && !value.starts_with('-')
        && value
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '$'));
    if ok {
        Ok(())
    } else {
        Err(invalid(
            INVALID_PARAM,
            "activity name",
            format!(
                "{value:?} is not an activity class name (e.g. `.MainActivity` or `com.x.MainActivity`)"
            ),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        for ok in ["com.tapflow.demo", "android", "com.x_y.z9"] {
            assert!(package_name(ok).is_ok(), "{ok}");
        }
        for bad in [
            "",
            "-x",
            "com..x",
            "com.9x",
            "com.x-y",
            "com.x;reboot",
            "a b",
        ] {
            assert_eq!(
                package_name(bad).unwrap_err().code(),
                "INVALID_BUNDLE_NAME",
                "{bad}"
            );
        }
        assert!(activity(".MainActivity").is_ok());
        assert!(activity("com.x.Outer$Inner").is_ok());
        assert!(activity("-n").is_err());
        assert!(activity("A B").is_err());
    }
}
