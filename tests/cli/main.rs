//! The `tapflow` binary's commands: validate, tools, sim, logging, roots, docs' runnable blocks;
//! the repository standing alone (no path leaves it, no cited document is missing) and its Rust
//! files staying at 600 lines or fewer.
//! One module per former test file.

#[path = "../common/mod.rs"]
mod common;

mod authoring;
mod docs_run;
mod file_lengths;
mod layers;
mod logging;
mod mcp_config;
mod non_utf8_names;
mod repo_standalone;
mod roots;
mod sim;
mod tool_password;
mod tool_sim;
mod tools;
mod trusted_config;
mod validate_hostile;
