//! The one JSON-Schema validator: it walks a tool's published input schema over a value and
//! reports structured [`Finding`]s. Both places that check arguments are front ends of it:
//! the flow compiler (`plan::schema_check`, YAML with spans → position-precise diagnostics)
//! and the tool engine (`tapflow_tools::decode`, JSON → errors with the contract's codes).
//! Each maps findings to its own wording; only this module knows what the keywords mean.
//!
//! The subset is what schemars emits for the tools' parameter types: `type` (one or a list),
//! `properties`, `required`, `additionalProperties` (`false` or a schema), `items`, `enum`,
//! `const`, `minimum`/`maximum`, the integer `format`s (`int32`, `uint8`, …: their ranges),
//! `$ref` into `$defs` (or `definitions`), and `anyOf`/`oneOf` (a value passes when one branch
//! accepts it). Other keywords (`description`, `default`, `x-…`) are annotations. A schema that
//! is not an object (`true`) accepts anything.
//!
//! Values are seen through [`Instance`]: a `serde_json::Value` is one as it is; the flow
//! compiler presents its YAML nodes with their conveniences (a plain scalar read as text, a
//! `{{ … }}` reference known only at run time). [`Rules`] holds the few choices that differ
//! between the front ends, each for a reason given there.

mod finding;
mod instance;
mod walk;

#[cfg(test)]
mod tests;

pub use finding::{Finding, Problem, Rule, Seg};
pub use instance::{Instance, Shape, Type, Types, types_of};
pub use walk::{Outer, Rules, Validator, integer_range};
