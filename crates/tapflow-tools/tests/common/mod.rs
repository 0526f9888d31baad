//! Helpers shared by this crate's test binaries (each includes this module as `mod common;`);
//! the root package's tests include some of them too (`tests/common/mod.rs`).

#![allow(dead_code)]

#[path = "../../../tapflow-sim/tests/common/adb_env.rs"]
pub mod adb_env;
pub mod envelope;
pub mod fake_device;
/// The fake HarmonyOS SDK's harness for `build_app` (the fake tools are beside it).
#[path = "../fake-sdk/harness.rs"]
pub mod harness;
