//! The `tapflow` binary's commands: validate, tools, sim, logging, roots, docs' runnable blocks.
//! One module per former test file.

#[path = "../common/mod.rs"]
mod common;

mod authoring;
mod docs_run;
mod logging;
mod roots;
mod sim;
mod tool_sim;
mod tools;
mod validate_hostile;
