//! Typed device errors. Every variant has a stable, documented code (see `docs/errors.md`) and
//! keeps the device's own words, so a tool or a report can say what failed and what the device said.

use std::time::Duration;

pub type DeviceResult<T> = Result<T, DeviceError>;

#[derive(Debug, Clone, thiserror::Error, PartialEq, Eq)]
pub enum DeviceError {
    /// The hdc executable could not be started.
    #[error(
        "hdc executable not found or not runnable: {path} ({detail}); install the HarmonyOS SDK toolchains or pass --hdc PATH / TAPFLOW_HDC"
    )]
    HdcNotFound { path: String, detail: String },

    /// A device command did not finish before its deadline; the process was killed.
    #[error("`{command}` did not finish within {}ms", .after.as_millis())]
    Timeout { command: String, after: Duration },

    /// No connected device has this key, or no device at all.
    #[error("device not found: {serial}: {device_says}")]
    NotFound { serial: String, device_says: String },

    /// Several devices are connected and none was chosen.
    #[error("several devices are connected ({serials}); choose one with device_id")]
    Ambiguous { serials: String },

    /// The device went away during or before the command.
    #[error("device disconnected: {device_says}")]
    Disconnected { device_says: String },

    /// The device has not authorised this host (accept the prompt on the device).
    #[error("device {serial} is unauthorized: accept the debugging prompt on the device")]
    Unauthorized { serial: String },

    /// The screen is locked or no window is shown (dump root is empty).
    #[error("the screen of {serial} is locked or shows no window; unlock the device")]
    ScreenLocked { serial: String },

    /// The device (or a device-side tool) reported a failure in its own words.
    /// `code` is the project's code for this operation (e.g. `INSTALL_FAILED`).
    #[error("{what} failed: {device_says}")]
    Command {
        code: &'static str,
        what: String,
        device_says: String,
    },

    /// The device answered, but the answer could not be understood.
    #[error("could not parse {what}: {detail}")]
    Parse {
        code: &'static str,
        what: String,
        detail: String,
    },

    /// The backend cannot do this operation; it never fakes success.
    #[error("{op} is not supported by the {backend} backend")]
    Unsupported { op: String, backend: String },

    /// Host-side I/O (files for install, screenshots, pulled files).
    #[error("{what}: {detail}")]
    Io { what: String, detail: String },
}

impl DeviceError {
    /// The stable, documented error code.
    pub fn code(&self) -> &'static str {
        match self {
            DeviceError::HdcNotFound { .. } => crate::codes::HDC_NOT_FOUND,
            DeviceError::Timeout { .. } => crate::codes::HDC_TIMEOUT,
            DeviceError::NotFound { .. } => crate::codes::DEVICE_NOT_FOUND,
            DeviceError::Ambiguous { .. } => crate::codes::MULTIPLE_DEVICES,
            DeviceError::Disconnected { .. } => crate::codes::DEVICE_DISCONNECTED,
            DeviceError::Unauthorized { .. } => crate::codes::DEVICE_UNAUTHORIZED,
            DeviceError::ScreenLocked { .. } => crate::codes::SCREEN_LOCKED,
            DeviceError::Command { code, .. } => code,
            DeviceError::Parse { code, .. } => code,
            DeviceError::Unsupported { .. } => crate::codes::UNSUPPORTED,
            DeviceError::Io { .. } => crate::codes::HOST_IO_ERROR,
        }
    }

    /// The device's own words, where it said any.
    pub fn device_says(&self) -> Option<&str> {
        match self {
            DeviceError::NotFound { device_says, .. }
            | DeviceError::Disconnected { device_says, .. }
            | DeviceError::Command { device_says, .. } => Some(device_says),
            _ => None,
        }
    }

    /// Worth retrying: the device may answer the same command next time.
    pub fn is_transient(&self) -> bool {
        matches!(
            self,
            DeviceError::Timeout { .. } | DeviceError::Command { .. } | DeviceError::Parse { .. }
        )
    }
}
