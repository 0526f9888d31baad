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

use tapflow_tools::registry::ToolDef;

/// A tool profile.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum ToolProfile {
    /// [`CORE`] only.
    #[default]
    Core,
    /// Every tool.
    All,
}

impl ToolProfile {
    /// Whether the profile serves `def` (the `core` ones declare it: [`Tool::CORE`]).
    ///
    /// [`Tool::CORE`]: tapflow_tools::registry::Tool::CORE
    pub fn includes(self, def: &ToolDef) -> bool {
        self == ToolProfile::All || def.core
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
    fn core_is_what_an_agent_drives_an_app_with_and_all_serves_everything() {
        let engine = crate::mcp::engine();
        let core: Vec<&str> = engine
            .tools()
            .filter(|d| ToolProfile::Core.includes(d))
            .map(|d| d.name)
            .collect();
        assert_eq!(core.len(), 17, "{core:?}");
        assert!(core.contains(&"save_flow"), "{core:?}");
        assert!(engine.tools().all(|d| ToolProfile::All.includes(d)));
        let build = engine.get("build_app").unwrap();
        assert!(!ToolProfile::Core.includes(build));
        assert_eq!("all".parse::<ToolProfile>(), Ok(ToolProfile::All));
        assert!("most".parse::<ToolProfile>().unwrap_err().contains("core"));
    }
}
