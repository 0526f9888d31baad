//! The MCP server: in-process, over stdio and HTTP, with the Python SDK and the MCP Inspector.
//! One module per former test file.

#[path = "../common/mod.rs"]
mod common;

mod approval_flows;
mod cancel;
mod elicitation;
mod http_limits;
mod http_proc;
mod http_security;
mod http_sessions;
mod http_strict;
mod idle_load;
mod inspector;
mod lanes;
mod level_defaults;
mod load;
mod model_text;
mod openai_agents;
mod python;
mod save_flow;
mod save_flow_cases;
mod secrets;
mod tool_list;
mod tools;
