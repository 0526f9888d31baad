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

    /// hdc kept answering that its channel to the device is still being established
    /// (`[Fail][E000004]`) through the backend's whole retry budget; the command never ran.
    #[error(
        "hdc's channel to the device was still being established after {attempts} attempt(s); the command was not run: {device_says}"
    )]
    ChannelNotReady { device_says: String, attempts: u32 },

    /// The hdc client could not reach its server (`Connect server failed`): the server is not
    /// running, was killed, or listens elsewhere. Nothing reached the device.
    #[error(
        "the hdc server is unreachable: {device_says}; check the server (`hdc start`, the `-s`/HARMONYOS_HDC_SERVER address, or `tapflow sim start` for the simulator)"
    )]
    ServerUnreachable { device_says: String },

    /// The hdc client itself failed instead of answering: it exited with a non-zero status
    /// or was killed by a signal (real hdc exits 0 on every path, failures included). Whether
    /// the command reached the device is unknown.
    #[error("the hdc client failed ({}) instead of answering `{command}`: {output}", describe_status(*.status))]
    HdcFailed {
        command: String,
        status: Option<i32>,
        output: String,
    },

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
        code: tapflow_core::codes::Code,
        what: String,
        device_says: String,
    },

    /// The device answered, but the answer could not be understood.
    #[error("could not parse {what}: {detail}")]
    Parse {
        code: tapflow_core::codes::Code,
        what: String,
        detail: String,
    },

    /// The backend cannot do this operation; it never fakes success.
    #[error("{op} is not supported by the {backend} backend")]
    Unsupported { op: String, backend: String },

    /// Host-side I/O (files for install, screenshots, pulled files).
    #[error("{what}: {detail}")]
    Io { what: String, detail: String },

    /// The adb executable could not be started.
    #[error(
        "adb executable not found or not runnable: {path} ({detail}); install Android's platform-tools (Debian: `apt-get install adb`) or pass --adb PATH / TAPFLOW_ADB"
    )]
    AdbNotFound { path: String, detail: String },

    /// An adb call did not finish before its deadline; the adb process was killed.
    #[error("`{command}` did not finish within {}ms", .after.as_millis())]
    AdbTimeout { command: String, after: Duration },
}

impl DeviceError {
    /// The stable, documented error code.
    pub fn code(&self) -> tapflow_core::codes::Code {
        match self {
            DeviceError::HdcNotFound { .. } => tapflow_core::codes::HDC_NOT_FOUND,
            DeviceError::Timeout { .. } => tapflow_core::codes::HDC_TIMEOUT,
            DeviceError::NotFound { .. } => tapflow_core::codes::DEVICE_NOT_FOUND,
            DeviceError::Ambiguous { .. } => tapflow_core::codes::MULTIPLE_DEVICES,
            DeviceError::Disconnected { .. } => tapflow_core::codes::DEVICE_DISCONNECTED,
            DeviceError::Unauthorized { .. } => tapflow_core::codes::DEVICE_UNAUTHORIZED,
            DeviceError::ChannelNotReady { .. } => tapflow_core::codes::HDC_CHANNEL_NOT_READY,
            DeviceError::ServerUnreachable { .. } => tapflow_core::codes::HDC_SERVER_UNREACHABLE,
            DeviceError::HdcFailed { .. } => tapflow_core::codes::HDC_FAILED,
            DeviceError::ScreenLocked { .. } => tapflow_core::codes::SCREEN_LOCKED,
            DeviceError::Command { code, .. } => *code,
            DeviceError::Parse { code, .. } => *code,
            DeviceError::Unsupported { .. } => tapflow_core::codes::UNSUPPORTED,
            DeviceError::Io { .. } => tapflow_core::codes::HOST_IO_ERROR,
            DeviceError::AdbNotFound { .. } => tapflow_core::codes::ADB_NOT_FOUND,
            DeviceError::AdbTimeout { .. } => tapflow_core::codes::ADB_TIMEOUT,
        }
    }

    /// The device's own words, where it said any.
    pub fn device_says(&self) -> Option<&str> {
        match self {
            DeviceError::NotFound { device_says, .. }
            | DeviceError::Disconnected { device_says, .. }
            | DeviceError::ChannelNotReady { device_says, .. }
            | DeviceError::ServerUnreachable { device_says, .. }
            | DeviceError::Command { device_says, .. } => Some(device_says),
            DeviceError::HdcFailed { output, .. } => Some(output),
            _ => None,
        }
    }

    /// Worth retrying: the device may answer the same command next time. Not
    /// `ChannelNotReady`: the hdc backend has already spent its retry budget on it, and what is
    /// left is the infrastructure's failure, which a polling tool must report, not ride out.
    pub fn is_transient(&self) -> bool {
        matches!(
            self,
            DeviceError::Timeout { .. }
                | DeviceError::AdbTimeout { .. }
                | DeviceError::Command { .. }
                | DeviceError::Parse { .. }
        )
    }
}

fn describe_status(status: Option<i32>) -> String {
    match status {
        Some(code) => format!("exit status {code}"),
        None => "killed by a signal".to_string(),
    }
}
