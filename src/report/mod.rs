//! Reports of a run, all consumers of its events and its [`crate::run::RunResult`]; they read
//! run results and events only, never a device or a tool. One file per format:
//!
//! | file | writes |
//! |---|---|
//! | [`live`] | `result.json`, kept current while the run goes on (`running` until it ends) |
//! | [`junit`] | `junit.xml` (quick-junit; valid against junit-10.xsd) |
//! | [`html`] | `report.html` (handlebars; self-contained, no script, no network) |
//! | [`manifest`] | `manifest.json`, and `--verify` of the artifacts against it |
//! | [`github`] | the `$GITHUB_STEP_SUMMARY` Markdown and `::error` annotations |
//! | [`merge`] | one run from the shards of a plan, checked to cover it exactly once |
//!
//! [`write`] puts them in place through a [`tapflow_device::hostfs::PathPolicy`];
//! `crate::session` wires a run's reporters around [`crate::run::run`]. Everything shown comes from `result.json`, so
//! `tapflow report RUN_DIR` renders the same files again; text is cleaned for XML, HTML and
//! Markdown ([`text`]) and was masked by the runner before it got here.
//!
//! Uses `run` result and event types and `hostfs`; never a device, a tool or the engine.

pub mod github;
pub mod html;
pub mod junit;
pub mod live;
pub mod manifest;
pub mod merge;
pub mod text;
pub mod walk;
pub mod write;

pub use live::LiveResult;
pub use write::{Outputs, Written, write_reports};
