//! The tool engine on fake and simulated devices, and `build_app` over the fake SDK.
//! One module per former test file.

#[path = "../common/mod.rs"]
mod common;

mod android;
mod build_app;
mod build_app_hnp;
mod build_app_hsp;
mod build_app_tool;
mod contract;
mod host_paths;
mod input_text;
mod props;
mod sim_contract;
mod sim_faults;
mod tidy;
