//! The simulated devices: the phone model, the shell, the command engine, conformance with real captures.
//! One module per former test file.

#[path = "../common/mod.rs"]
mod common;

mod conformance;
mod engine;
mod phone;
mod shell;
