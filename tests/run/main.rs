//! The runner: engine, scheduling, balance, secrets, round trips, the `run` command.
//! One module per former test file.

#[path = "../common/mod.rs"]
mod common;

mod authoring;
mod balance;
mod cli;
mod engine;
mod flow_level;
mod infra;
mod round_trips;
mod schedule;
mod secrets;
mod secrets_props;
mod sim;
