//! What a tool may do, published with it: the risk policy (for approval decisions) and the MCP
//! annotations derived from it. Pure data.

use serde::Serialize;

/// How much harm a call can do.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Risk {
    /// Observes only.
    Read,
    /// Acts on the device in ways a user could undo (taps, keys, launching an app).
    Device,
    /// Builds on the host: runs the project's build tooling (host code).
    Build,
    /// Loses data or removes software (uninstall, clear data).
    Dangerous,
}

/// A tool's risk policy (`_meta.policy` in `tools/list`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Policy {
    pub risk: Risk,
    pub mutates_device: bool,
    pub writes_host_files: bool,
    /// Runs programs on the host that come from the caller's files (a project's `hvigorw` and
    /// `hvigorfile.ts`): whoever controls those files controls the host. Such a tool always
    /// needs approval; MCP enforces it (`docs/security.md`).
    pub executes_host_code: bool,
    pub needs_approval: bool,
}

/// MCP tool annotations (`readOnlyHint`, `destructiveHint`, `idempotentHint`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Hints {
    pub read_only: bool,
    pub destructive: bool,
    pub idempotent: bool,
}

impl Policy {
    pub const READ: Policy = Policy {
        risk: Risk::Read,
        mutates_device: false,
        writes_host_files: false,
        executes_host_code: false,
        needs_approval: false,
    };
    pub const UI_ACTION: Policy = Policy {
        risk: Risk::Device,
        mutates_device: true,
        writes_host_files: false,
        executes_host_code: false,
        needs_approval: false,
    };
}

impl Hints {
    pub const READ: Hints = Hints {
        read_only: true,
        destructive: false,
        idempotent: true,
    };
    pub const ACTION: Hints = Hints {
        read_only: false,
        destructive: false,
        idempotent: false,
    };
}
