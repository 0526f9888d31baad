//! Flows through the binary and the CLI's compiler: validate, plan, flow files, one registry.
//! One module per former test file.

#[path = "../common/mod.rs"]
mod common;

mod cli;
mod files;
mod one_registry;
mod registry_rules;
