//! Tool profiles (`tapflow mcp --tools core|all`, `[mcp] tools` in tapflow.toml): which tools
//! `tools/list` carries before `--allow-tools` / `--deny-tools` narrow it further. Every tool's
//! name, description and input schema sit in the model's context on every turn, so the default
//! (`core`) serves what an agent drives an app with — find, act, confirm, read logs, run flows —
//! and leaves the rest to `all`: app lifecycle beyond start/stop/reset (build, install,
//! uninstall, package queries), rarer gestures (long press, drag, scroll-until-visible, which
//! `swipe` + `find_elements` do in two calls), window tables, settle waits and flow plans. The
//! profile decides what is listed and callable by name, not what a flow may run: `run_flow`'s
//! steps obey the allow/deny policy only.

use std::fmt;
use std::str::FromStr;

/// A tool profile.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum ToolProfile {
    /// [`CORE`] only.
    #[default]
    Core,
    /// Every tool.
    All,
}

/// The tools of the `core` profile.
pub const CORE: &[&str] = &[
    "list_devices",
    "run_app",
    "stop_app",
    "clear_app_data",
    "click",
    "input_text",
    "press_key",
    "swipe",
    "find_elements",
    "get_ui_tree",
    "wait_for_element",
    "screenshot",
    "logs_query",
    "validate_flow",
    "run_flow",
    "get_run",
];

impl ToolProfile {
    pub fn includes(self, tool: &str) -> bool {
        self == ToolProfile::All || CORE.contains(&tool)
    }
}

impl FromStr for ToolProfile {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "core" => Ok(ToolProfile::Core),
            "all" => Ok(ToolProfile::All),
            other => Err(format!(
                "unknown tool profile `{other}`: use `core` (the default) or `all`"
            )),
        }
    }
}

impl fmt::Display for ToolProfile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ToolProfile::Core => "core",
            ToolProfile::All => "all",
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn core_names_real_tools_and_all_serves_everything() {
        let engine = crate::mcp::engine();
        for name in CORE {
            assert!(engine.get(name).is_some(), "{name} is no tool");
        }
        assert!(ToolProfile::All.includes("build_app"));
        assert!(!ToolProfile::Core.includes("build_app"));
        assert_eq!("all".parse::<ToolProfile>(), Ok(ToolProfile::All));
        assert!("most".parse::<ToolProfile>().unwrap_err().contains("core"));
    }
}
