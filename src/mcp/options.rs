//! What the server runs with, decided once by the CLI (flags and `tapflow.toml` `[mcp]`):
//! policy (approval: the operator's approved tools and whether a caller's own approval is
//! trusted; tool and device allowlists) and the queueing budget of a call that waits for a busy
//! device.

use globset::{Glob, GlobSet, GlobSetBuilder};

/// Server-wide settings (see `docs/mcp.md`).
#[derive(Debug, Clone)]
pub struct McpOptions {
    /// Tools whose policy needs approval must carry a valid `approval` argument.
    pub require_approval: bool,
    /// Tools the operator approved in advance (globs: `--approve-tools`, `[mcp] approve_tools`):
    /// they need no further approval, in a flow or alone.
    pub approve_tools: Vec<String>,
    /// Trusted-caller mode (`--trust-caller-approval`, `[mcp] approval = "caller"`): a call's
    /// own `approval` argument counts (validated, echoed). Off: such an argument is refused.
    pub trust_caller_approval: bool,
    /// Only tools matching one of these globs are served (empty: all).
    pub allow_tools: Vec<String>,
    /// Tools matching one of these globs are never served (wins over `allow_tools`).
    pub deny_tools: Vec<String>,
    /// Only these devices (serials / connect keys, globs) may be targeted (empty: all).
    pub allow_devices: Vec<String>,
    /// How long a call may wait for a busy device when it declares no `timeout_ms` of its own.
    pub busy_wait_ms: u64,
}

impl Default for McpOptions {
    fn default() -> Self {
        McpOptions {
            require_approval: false,
            approve_tools: Vec::new(),
            trust_caller_approval: false,
            allow_tools: Vec::new(),
            deny_tools: Vec::new(),
            allow_devices: Vec::new(),
            busy_wait_ms: 60_000,
        }
    }
}

/// Compiled globs of the options; `Err` names the bad glob.
#[derive(Debug, Clone)]
pub struct Compiled {
    pub allow_tools: Option<GlobSet>,
    pub deny_tools: GlobSet,
    pub allow_devices: Option<GlobSet>,
    pub approve_tools: GlobSet,
}

fn set(globs: &[String], what: &str) -> Result<GlobSet, String> {
    let mut b = GlobSetBuilder::new();
    for g in globs {
        b.add(Glob::new(g).map_err(|e| format!("{what}: bad glob `{g}`: {e}"))?);
    }
    b.build().map_err(|e| format!("{what}: {e}"))
}

impl McpOptions {
    pub fn compile(&self) -> Result<Compiled, String> {
        Ok(Compiled {
            allow_tools: if self.allow_tools.is_empty() {
                None
            } else {
                Some(set(&self.allow_tools, "--allow-tools")?)
            },
            deny_tools: set(&self.deny_tools, "--deny-tools")?,
            approve_tools: set(&self.approve_tools, "--approve-tools")?,
            allow_devices: if self.allow_devices.is_empty() {
                None
            } else {
                Some(set(&self.allow_devices, "--allow-device")?)
            },
        })
    }
}

impl Compiled {
    /// Whether the server serves `tool` at all.
    pub fn serves(&self, tool: &str) -> bool {
        !self.deny_tools.is_match(tool)
            && self.allow_tools.as_ref().is_none_or(|a| a.is_match(tool))
    }

    /// Whether the operator approved `tool` in advance.
    pub fn operator_approved(&self, tool: &str) -> bool {
        self.approve_tools.is_match(tool)
    }

    /// Whether `device` (a serial or connect key) may be targeted.
    pub fn device_allowed(&self, device: &str) -> bool {
        self.allow_devices
            .as_ref()
            .is_none_or(|a| a.is_match(device))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deny_wins_over_allow_and_bad_globs_are_named() {
        let o = McpOptions {
            allow_tools: vec!["*".into()],
            deny_tools: vec!["*_app".into(), "build_*".into()],
            allow_devices: vec!["sim-*".into()],
            ..McpOptions::default()
        };
        let c = o.compile().unwrap();
        assert!(c.serves("click"));
        assert!(!c.serves("install_app"));
        assert!(!c.serves("build_app"));
        assert!(c.device_allowed("sim-0001"));
        assert!(
            !c.operator_approved("install_app"),
            "nothing is approved by default"
        );
        let approving = McpOptions {
            approve_tools: vec!["install_app".into(), "clear_*".into()],
            ..McpOptions::default()
        };
        let a = approving.compile().unwrap();
        assert!(a.operator_approved("install_app") && a.operator_approved("clear_app_data"));
        assert!(!a.operator_approved("uninstall_app"));
        assert!(!c.device_allowed("3QC0124C11000711"));
        let bad = McpOptions {
            deny_tools: vec!["[".into()],
            ..McpOptions::default()
        };
        assert!(bad.compile().unwrap_err().contains("--deny-tools"));
        let all = McpOptions::default().compile().unwrap();
        assert!(all.serves("anything") && all.device_allowed("any"));
    }
}
