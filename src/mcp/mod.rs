//! The MCP server (rmcp): every tool of the engine, and the flow tools, over stdio and streamable
//! HTTP. The tool list is [`tapflow_tools::Engine::mcp_tools`] (one registry; this module only adds
//! what is MCP-specific to each entry: the approval parameter, `response_level`), and every
//! `tools/call` goes through [`tapflow_tools::Engine::call`], so an agent gets exactly the
//! reference envelope the CLI prints.
//!
//! Owns `src/mcp/**`: the protocol handler ([`server`]), the call path with its policy checks,
//! per-device lanes, cancellation and progress ([`call`]), who approves ([`approval`], asking
//! the person through [`elicit`]) and the policy over every step of a flow ([`flow_gate`]), response levels ([`levels`]), the
//! transports ([`stdio`], [`http`]). Uses `tools`, `flow`, `plan`, `run`; must not use `cli`
//! or read the environment: the CLI passes [`McpOptions`].

pub mod approval;
pub mod call;
pub mod catalog;
pub mod elicit;
pub mod flow_gate;
pub mod flow_tools;
pub mod http;
pub mod lanes;
pub mod levels;
pub mod options;
pub mod platform_text;
pub mod policy;
pub mod profile;
pub mod progress;
pub mod server;
pub mod session_log;
pub mod stdio;
pub mod text;

pub use options::McpOptions;
pub use profile::ToolProfile;
pub use server::TapflowMcp;

/// The engine the server serves: every built-in tool, then the flow tools.
pub fn engine() -> tapflow_tools::Engine {
    let mut e = tapflow_tools::Engine::new();
    for def in flow_tools::defs() {
        e.register(def);
    }
    e
}
