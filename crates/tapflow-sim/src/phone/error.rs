//! Typed failures of phone operations, carrying HarmonyOS error codes. The codes are the real
//! ones as far as the docs and captures we have show them (bm 9568xxx, aa 1010xxxx); where no
//! capture pins a case the choice is documented at the constant.

use std::fmt;

/// A phone-side failure: the numeric code the real tool prints and its message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PhoneError {
    pub code: u32,
    pub message: String,
}

impl PhoneError {
    pub fn new(code: u32, message: impl Into<String>) -> Self {
        Self {
            code,
            message: message.into(),
        }
    }
}

impl fmt::Display for PhoneError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "code:{} error: {}", self.code, self.message)
    }
}

impl std::error::Error for PhoneError {}

/// Real bundle-manager and ability-manager codes used by the simulator.
pub mod codes {
    /// `bm install`: the hap could not be parsed (bad zip, missing or invalid module.json).
    pub const INSTALL_PARSE_FAILED: u32 = 9568305;
    /// `bm install`: the hap is missing its signature (`no signature file`).
    pub const INSTALL_NO_SIGNATURE: u32 = 9568320;
    /// `bm install`: version code lower than the installed one.
    pub const INSTALL_VERSION_DOWNGRADE: u32 = 9568263;
    /// `bm install`: the bundle exists with a different signature (e.g. a preinstalled system app).
    pub const INSTALL_SIGN_INFO_INCONSISTENT: u32 = 9568332;
    /// `bm uninstall` / `bm clean`: unknown bundle.
    pub const UNINSTALL_MISSING_INSTALLED_BUNDLE: u32 = 9568386;
    /// Uninstalling a system application.
    pub const UNINSTALL_SYSTEM_APP: u32 = 9568264;
    /// `aa start`: the ability does not exist.
    pub const ABILITY_NOT_EXIST: u32 = 10104001;
    /// `aa start`: the ability is not exported/visible.
    pub const ABILITY_NOT_VISIBLE: u32 = 10103001;
    /// `aa start` without an ability name: no installed ability's skills match the want.
    pub const IMPLICIT_START_FAILED: u32 = 10103101;
    /// `aa force-stop` of an unknown bundle.
    pub const FORCE_STOP_FAILED: u32 = 10106102;
}
