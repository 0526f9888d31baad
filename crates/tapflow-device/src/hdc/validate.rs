//! Checks on caller-supplied values before anything is sent to the device.
//!
//! Quoting already keeps text from being interpreted by the device's shell; these checks catch
//! what quoting cannot: values a device tool would read as an option (`-x`), NUL (no shell word
//! can carry it), and file names that would leave the faultlogger directory.

use crate::error::DeviceError;

/// Code for a value the backend refuses to send.
pub use tapflow_core::codes::INVALID_PARAM;
/// Code for a crash file name that is not a plain file name.
pub use tapflow_core::codes::PATH_NOT_ALLOWED;

fn invalid(code: tapflow_core::codes::Code, what: &str, detail: String) -> DeviceError {
    DeviceError::Command {
        code,
        what: what.to_string(),
        device_says: detail,
    }
}

/// Text must not contain NUL (the device shell cannot receive it).
pub fn no_nul(what: &str, value: &str) -> Result<(), DeviceError> {
    if value.contains('\0') {
        return Err(invalid(
            INVALID_PARAM,
            what,
            format!("{what} contains a NUL character, which no device command can carry"),
        ));
    }
    Ok(())
}

/// A bundle name as the bundle manager allows it: letters, digits, `.`, `_`, `-`; not starting
/// with `-` (it would be read as an option by `hdc uninstall`, `aa`, `bm`).
pub fn bundle_name(value: &str) -> Result<(), DeviceError> {
    let ok = !value.is_empty()
        && !value.starts_with('-')
        && value.len() <= 128
        && value
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'));
    if ok {
        Ok(())
    } else {
        Err(invalid(
            tapflow_core::codes::INVALID_BUNDLE_NAME,
            "bundle name",
            format!(
                "{value:?} is not a bundle name (letters, digits, '.', '_' or '-', not starting with '-')"
            ),
        ))
    }
}

/// An ability or module name: non-empty, no option-like leading `-`, no whitespace or control
/// characters (ArkTS identifiers never have them).
pub fn component_name(what: &str, value: &str) -> Result<(), DeviceError> {
    let ok = !value.is_empty()
        && !value.starts_with('-')
        && !value.chars().any(|c| c.is_whitespace() || c.is_control());
    if ok {
        Ok(())
    } else {
        Err(invalid(
            INVALID_PARAM,
            what,
            format!("{value:?} is not a valid {what}"),
        ))
    }
}

/// A file name inside the faultlogger directory: no `/`, no `..`, not empty, no control
/// characters, so `cat <dir>/<name>` can only read that directory's files.
pub fn crash_file_name(value: &str) -> Result<(), DeviceError> {
    let ok = !value.is_empty()
        && !value.contains('/')
        && !value.contains("..")
        && !value.starts_with('-')
        && !value.chars().any(char::is_control);
    if ok {
        Ok(())
    } else {
        Err(invalid(
            PATH_NOT_ALLOWED,
            "crash file name",
            format!("{value:?} is not a file name in the faultlogger directory"),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bundle_names() {
        for ok in [
            "com.example.app",
            "com.huawei.hmos.AutoRegService",
            "a_b-c.9",
        ] {
            assert!(bundle_name(ok).is_ok(), "{ok}");
        }
        for bad in ["", "-k", "com.x y", "com.x;reboot", "com/x", "a'b", "中文"] {
            assert_eq!(
                bundle_name(bad).unwrap_err().code(),
                "INVALID_BUNDLE_NAME",
                "{bad}"
            );
        }
    }

    #[test]
    fn component_names() {
        assert!(component_name("ability", "EntryAbility").is_ok());
        assert!(component_name("module", "entry").is_ok());
        for bad in ["", "-m", "Entry Ability", "a\nb"] {
            assert_eq!(
                component_name("ability", bad).unwrap_err().code(),
                INVALID_PARAM
            );
        }
    }

    #[test]
    fn crash_file_names() {
        assert!(crash_file_name("cppcrash-com.ohos.note-20010043-20240101120000123.log").is_ok());
        for bad in [
            "",
            "../x",
            "a/b",
            "..",
            "x..y",
            "-rf",
            "a\nb",
            "/etc/passwd",
        ] {
            assert_eq!(
                crash_file_name(bad).unwrap_err().code(),
                PATH_NOT_ALLOWED,
                "{bad}"
            );
        }
    }

    #[test]
    fn nul_is_refused() {
        assert!(no_nul("text", "ok 中文").is_ok());
        assert_eq!(no_nul("text", "a\0b").unwrap_err().code(), INVALID_PARAM);
    }
}
