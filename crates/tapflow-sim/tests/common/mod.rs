//! Helpers shared by this crate's test binaries (each includes this module as `mod common;`);
//! the root package's tests include them too (`tests/common/mod.rs`).

#![allow(dead_code)]

pub mod adb_env;
pub mod shapes;
