//! End to end through the simulator daemon (`tapflow sim start`) and its `hdc` executable.
//! One module per former test file.

#[path = "../common/mod.rs"]
mod common;

mod cli;
mod faults;
mod hdc_sim;
mod sim_fidelity;
mod tools_logs_query;
