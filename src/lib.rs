//! tapflow: test automation for HarmonyOS (hdc), Android (adb) and Appium/WebDriver devices.
//!
//! Module map (dependencies point downwards only; see `../shared/docs/design.md`):
//! `cli` → `mcp` → `run` → `plan` → `flow`; `run` → `tools` → `ui`, `logs`, `device`;
//! `plan` → `tools` (declarations only: `plan::RegistryCatalog`, never a device call);
//! `sim` → `device` types only; `project` (tapflow.toml, flow files) → `plan`, `flow`, `hostfs`;
//! `hostfs` (the host-path policy) is used by every module that touches host files.
//! `suggest` and `codes` are leaves (strings only) that every module may use.

pub mod cli;
pub mod codes;
pub mod device;
pub mod flow;
pub mod hostfs;
pub mod logs;
pub mod mcp;
pub mod plan;
pub mod project;
pub mod report;
pub mod run;
pub mod sim;
pub mod suggest;
pub mod tools;
pub mod ui;
