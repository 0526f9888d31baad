//! Planning: semantic checks of flow ASTs against a tool catalog, and their compilation into a
//! [`Plan`] (step ids, defaults made explicit, deadlines, retries, hooks, sub-flows inlined,
//! variables resolved where static, devices). Pure: no device, no file system (sub-flows come
//! through a [`SourceLoader`]), no environment (the CLI passes [`PlanOptions`]).

pub mod builtin_catalog;
pub mod catalog;
pub mod compile;
pub mod corpus;
pub mod flow_schema;
pub mod keys;
pub mod loader;
pub mod model;
pub mod render;
pub mod schema_check;
pub mod scope;

pub use builtin_catalog::BuiltinCatalog;
pub use catalog::{StaticIssue, ToolCatalog};
pub use compile::{Compiled, PlanOptions, compile};
pub use loader::{MapLoader, SourceLoader};
pub use model::{Action, FlowPlan, Plan, PlanStep};
