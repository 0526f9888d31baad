//! The tools on the simulated phone through the one simulated-device provider
//! (`tapflow::sim_provider`, the same `--sim N` uses): the contract, `input_text`, the
//! simulator's faults and round-trip counts. One module per former test file.

#[path = "../common/mod.rs"]
mod common;

mod contract;
mod input_text;
mod sim_contract;
mod sim_faults;
mod tidy;
mod trusted_writes;
