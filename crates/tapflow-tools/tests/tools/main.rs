//! The tool engine on fake devices, and `build_app` over the fake SDK (the tools on the
//! simulated phone, through the one `SimProvider`, are the root package's `tests/tools`).
//! One module per former test file.

#[path = "../common/mod.rs"]
mod common;

mod android;
mod build_app;
mod build_app_hnp;
mod build_app_hsp;
mod build_app_tool;
mod host_paths;
mod props;
