//! The server's tool list: [`Engine::mcp_tools`] — the registry's own entries, in registry
//! order — filtered by `--allow-tools` / `--deny-tools`, with the two parameters only the MCP
//! server takes added to the schemas of the tools they apply to: `approval` (tools whose policy
//! needs approval, and `run_flow`, whose steps may) and `response_level` (tools returning trees or lists; its digest shape is
//! added to the output schema). Built once at start-up; the list never varies per connection.

use std::collections::HashMap;
use std::sync::Arc;

use rmcp::model::Tool;
use serde_json::{Value, json};

use crate::mcp::options::Compiled;
use crate::mcp::{levels, policy};
use tapflow_tools::{Digest, Engine, Routing};

/// What the call path needs to know about a served tool.
#[derive(Debug, Clone)]
pub struct Served {
    pub tool: Tool,
    pub needs_approval: bool,
    pub routing: Routing,
    /// How results are summed up (`response_level: digest`), for tools that take a level.
    pub digest: Option<Digest>,
    /// The tool's outcome in words, for the text block.
    pub headline: fn(&Value) -> Option<String>,
}

/// The served tools, by name, in list order.
pub struct Catalog {
    order: Vec<String>,
    by_name: HashMap<String, Served>,
}

impl Catalog {
    pub fn new(engine: &Engine, filter: &Compiled) -> Result<Self, String> {
        let mut order = Vec::new();
        let mut by_name = HashMap::new();
        for (def, mut entry) in engine.tools().zip(engine.mcp_tools()) {
            if !filter.serves(def.name) {
                continue;
            }
            let takes_level = def.digest.is_some();
            if let Some(props) = entry
                .pointer_mut("/inputSchema/properties")
                .and_then(Value::as_object_mut)
            {
                // run_flow's steps may need approval (decided per flow at plan time).
                if def.policy.needs_approval || def.name == "run_flow" {
                    props.insert(policy::APPROVAL.into(), policy::approval_schema());
                }
                if takes_level {
                    props.insert(levels::PARAM.into(), levels::param_schema());
                }
            }
            if takes_level
                && let Some(any) = entry
                    .pointer_mut("/outputSchema/properties/result/anyOf")
                    .and_then(Value::as_array_mut)
            {
                any.insert(1, levels::digest_schema());
            }
            let tool: Tool = serde_json::from_value(entry)
                .map_err(|e| format!("tool `{}`: not a valid MCP tool entry: {e}", def.name))?;
            order.push(def.name.to_string());
            by_name.insert(
                def.name.to_string(),
                Served {
                    tool,
                    needs_approval: def.policy.needs_approval,
                    routing: def.routing,
                    digest: def.digest,
                    headline: def.headline,
                },
            );
        }
        Ok(Catalog { order, by_name })
    }

    pub fn get(&self, name: &str) -> Option<&Served> {
        self.by_name.get(name)
    }

    /// The `tools/list` entries, in registry order.
    pub fn tools(&self) -> Vec<Tool> {
        self.order
            .iter()
            .map(|n| self.by_name[n].tool.clone())
            .collect()
    }

    pub fn len(&self) -> usize {
        self.order.len()
    }

    pub fn is_empty(&self) -> bool {
        self.order.is_empty()
    }
}

/// Shared, immutable after start-up.
pub type SharedCatalog = Arc<Catalog>;

/// The `_meta` of a tools/list entry carries the policy (for tests and docs).
pub fn policy_of(tool: &Tool) -> Value {
    tool.meta
        .as_ref()
        .and_then(|m| serde_json::to_value(m).ok())
        .and_then(|m| m.get("policy").cloned())
        .unwrap_or(json!(null))
}
