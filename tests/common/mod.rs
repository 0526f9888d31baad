//! Helpers shared by the root package's test binaries (each includes this module with
//! `#[path = "../common/mod.rs"] mod common;`). Helpers a lower crate's tests use too live with
//! that crate's tests and are included from there.

#![allow(dead_code)]

#[path = "../../crates/tapflow-sim/tests/common/adb_env.rs"]
pub mod adb_env;
pub mod cli;
#[path = "../../crates/tapflow-tools/tests/common/envelope.rs"]
pub mod envelope;
#[path = "../../crates/tapflow-tools/tests/common/fake_device/mod.rs"]
pub mod fake_device;
pub mod leaks;
pub mod mcp_harness;
pub mod mcp_proc;
pub mod mixed_run;
#[path = "../../crates/tapflow-sim/tests/common/shapes.rs"]
pub mod shapes;
pub mod sim_daemon;
