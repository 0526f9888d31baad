//! Planning: semantic checks of flow ASTs against a tool catalog, and their compilation into a
//! [`Plan`] (step ids, defaults made explicit, deadlines, retries, hooks, sub-flows inlined,
//! variables resolved where static, devices). Pure: no device, no file system (sub-flows come
//! through a [`SourceLoader`]), no environment (the CLI passes [`PlanOptions`]).
//!
//! The planner sees tools only through the [`ToolCatalog`] trait. [`RegistryCatalog`] is that
//! view over the tool registry (`tools::Engine`): it reads the tools' declarations (schemas,
//! shorthands, device-free rules, deadlines) and never calls a device. The CLI, the MCP server,
//! tests and benches all build their catalog with `RegistryCatalog::new(Arc<Engine>)`.

pub mod catalog;
pub mod compile;
pub mod corpus;
pub mod flow_docs;
pub mod flow_schema;
pub mod loader;
pub mod model;
pub mod render;
pub mod schema_check;
pub mod scope;

pub use catalog::{StaticIssue, ToolCatalog};
pub use compile::{Compiled, MAX_REPEAT, PlanOptions, compile};
pub use loader::{MapLoader, SourceLoader};
pub use model::{Action, FlowPlan, Plan, PlanStep};
