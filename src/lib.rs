//! tapflow: test automation for HarmonyOS (hdc), Android (adb) and Appium/WebDriver devices.
//!
//! The application crate: what runs flows and serves tools, above the layers the workspace's
//! other crates keep (the compiler enforces their direction):
//! `tapflow-core` (flow, plan, codes) ← `tapflow-device` (devices, ui, logs, hostfs) ←
//! `tapflow-tools` (the tool engine) ← this crate; `tapflow-sim` (simulated devices, behind the
//! default-on `sim` feature) sits on `tapflow-device` beside the tools.
//!
//! - [`run`] executes a plan and emits events; [`report`] consumes events and results;
//!   [`session`] runs a plan with its reporters.
//! - [`mcp`] serves the tools over stdio and HTTP; [`project`] reads `tapflow.toml` and flow files.
//! - [`cli`] is the only module that reads the environment; nothing imports it.
//! - `sim_provider` (the `sim` feature) is the one provider of simulated devices, for the CLI's
//!   `--sim N`, the tests and the benchmarks.

pub mod cli;
pub mod mcp;
pub mod project;
pub mod report;
pub mod run;
pub mod session;
#[cfg(feature = "sim")]
pub mod sim_provider;
