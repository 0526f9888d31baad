//! tapflow-core: the language of tapflow. YAML flow text becomes an AST with a span on every
//! node ([`flow`]), then a checked, compiled [`plan::Plan`]; [`codes`] names every error code and
//! [`suggest`] finds near misses for diagnostics; [`visible`] makes bidirectional control
//! characters visible wherever text is shown to a person. [`schema`] is the one JSON-Schema
//! validator the flow compiler and the tool engine both check arguments with.
//!
//! May use: nothing else of tapflow. Pure functions of text: no device, no file system (sub-flows
//! arrive through [`plan::SourceLoader`]), no async runtime. Tools are seen only through the
//! [`plan::ToolCatalog`] trait, which the tool engine implements one crate up.

pub mod codes;
pub mod flow;
pub mod plan;
pub mod platform;
pub mod schema;
pub mod suggest;
pub mod visible;
