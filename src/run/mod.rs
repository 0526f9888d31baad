//! Running plans: executes a compiled [`tapflow_core::plan::Plan`] on devices by calling
//! [`tapflow_tools::Engine::call`] for every tool step (no second implementation of any step),
//! interprets the control steps (repeat, retry blocks, inlined sub-flows, conditions, hooks),
//! enforces deadlines and retries against the wall clock, collects evidence on failure,
//! runs devices in parallel (one thread each), emits typed [`events::RunEvent`]s and folds
//! them into a serialisable [`result::RunResult`] ([`aggregate`]). It writes no file but the
//! evidence it collects: `result.json` and the reports are written by `crate::report`.
//!
//! Owns `src/run/**`. Uses `plan`, `tools` (and `device`/`logs` types for evidence and the
//! device check). Must not use `cli` or read the environment: callers pass [`RunOptions`].

pub mod aggregate;
pub mod balance;
pub mod cancel;
pub mod events;
pub mod evidence;
pub mod exec;
pub mod help;
pub mod mask;
pub mod preflight;
pub mod result;
pub mod runner;
pub mod schedule;
pub mod select;
pub mod values;
pub mod worker;

pub use aggregate::ResultBuilder;
pub use cancel::CancelToken;
pub use events::{CollectEvents, EventSink, Fanout, NoEvents, RunEvent, RunHeader, Section};
pub use mask::Masker;
pub use result::{FlowResult, RunResult, Status, StepResult};
pub use runner::{DeviceChoice, RunOptions, new_run_id, run};
pub use select::{Shard, TagFilter};
