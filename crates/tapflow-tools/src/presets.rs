//! Policy and hint combinations that several tools publish, beside the basic ones in
//! `policy.rs` (`Policy::READ`, `Policy::UI_ACTION`, `Hints::READ`, `Hints::ACTION`). Pure data:
//! one name per combination, so tools that promise the same thing say it the same way.

use crate::policy::{Hints, Policy, Risk};

/// Removes software or data from the device (uninstall, clear data): asks for approval.
pub const REMOVES_DATA: Policy = Policy {
    risk: Risk::Dangerous,
    mutates_device: true,
    writes_host_files: false,
    executes_host_code: false,
    needs_approval: true,
};

/// Observes the device and writes what it saw to a host file (screenshot).
pub const READ_TO_HOST_FILE: Policy = Policy {
    risk: Risk::Read,
    mutates_device: false,
    writes_host_files: true,
    executes_host_code: false,
    needs_approval: false,
};

/// Has an effect (on the device or on host files), but repeating the call adds none.
pub const IDEMPOTENT: Hints = Hints {
    read_only: false,
    destructive: false,
    idempotent: true,
};

/// Destroys data, and repeating the call destroys nothing more.
pub const DESTRUCTIVE_IDEMPOTENT: Hints = Hints {
    read_only: false,
    destructive: true,
    idempotent: true,
};
