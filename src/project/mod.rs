//! A tapflow project on disk: the project file (`tapflow.toml`), finding flow files (files,
//! directories, globs) with their flow roots, and reading flow and sub-flow files through the
//! host-path policy ([`tapflow_device::hostfs`]): a flow file must be a regular file under its flow root, at
//! most [`MAX_FLOW_BYTES`], UTF-8. `tapflow validate`, `plan` and `run` use it, and so do the MCP
//! server's flow tools.
//!
//! Uses `hostfs`, `flow` and `plan` (it implements [`tapflow_core::plan::SourceLoader`]); reads no
//! environment (the CLI passes the working directory and flags in) and imports nothing from `cli`.
//! See `docs/security.md` ("Flow files") for the rules.

pub mod config;
pub mod discover;
pub mod loader;
pub mod mcp_section;
pub mod sources;

pub use config::{MAX_CONFIG_BYTES, Project, ProjectConfig, parse_project_config};
pub use discover::{FlowPath, discover, display_path};
pub use loader::{FlowLoader, MAX_FLOW_BYTES, ReadError};
pub use sources::FlowSources;
