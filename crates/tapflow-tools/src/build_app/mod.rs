//! The `build_app` tool: builds HarmonyOS artifacts with hvigor (`hap`, `har`, `hsp`, `app`), integrates
//! shared modules into a HAP (`include_hsp`), and packs native HNP packages (`hnp`), repacking and signing
//! with the SDK's `app_packing_tool.jar` / `hap-sign-tool.jar`.
//!
//! Self-contained: the tool framework wires [`build_app`] with [`BuildAppParams`] / [`BuildAppResult`] /
//! [`BuildError`] and a [`BuildConfig`] filled by the CLI. See `docs/build_app.md`.

mod artifacts;
mod config;
mod error;
mod hnp_flow;
mod hsp_flow;
mod hvigor_command;
pub mod hvigor_output;
mod hvigor_run;
mod packing;
mod params;
mod process;
mod project;
mod repack;
mod result;
mod run;
mod signing;

pub use config::{BuildConfig, SigningPasswords};
pub use error::{BuildError, codes};
pub use params::{BuildAppParams, check_args};
pub use result::{ArtifactSource, BuildAppResult, CompileError, SignStatus};
pub use run::build_app;
