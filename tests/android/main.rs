//! Android through the binary and the MCP server, with the real `adb` client (scripts/test-deps.d/40-adb.sh).
//! One module per former test file.

#[path = "../common/mod.rs"]
mod common;

mod adb_server;
mod adbutils;
mod cli;
mod fault_matrix;
mod log_gate;
mod mcp;
mod run_device_faults;
