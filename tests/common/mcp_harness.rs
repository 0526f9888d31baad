//! An MCP server over simulated devices, with an rmcp client connected to it in-process (a
//! `tokio::io::duplex` pipe carries the real JSON-RPC messages). Shared by the MCP tests (`tests/mcp/`).

#![allow(dead_code)]

use std::sync::Arc;

use rmcp::ServiceExt;
use rmcp::model::{CallToolRequestParams, CallToolResult, Tool};
use rmcp::service::{RoleClient, RunningService};
use serde_json::{Map, Value};
use tapflow::mcp::call::Core;
use tapflow::mcp::{McpOptions, TapflowMcp};
use tapflow_sim::{FaultSpec, Latency, SimOptions, Simulator};
use tapflow_tools::{ToolConfig, ToolContext};

pub use tapflow::sim_provider::SimProvider;

pub struct Server {
    pub client: RunningService<RoleClient, ()>,
    pub provider: Arc<SimProvider>,
    pub core: Arc<Core>,
    pub tmp: tempfile::TempDir,
}

/// The server's options with every tool served (`--tools all`): most tests exercise tools
/// beyond the default `core` profile.
pub fn all_tools() -> McpOptions {
    McpOptions {
        profile: tapflow::mcp::ToolProfile::All,
        ..McpOptions::default()
    }
}

/// A server with `devices` simulated phones (no latency) and `options`.
pub async fn start(devices: usize, options: McpOptions) -> Server {
    let tmp = tempfile::tempdir().unwrap();
    let sim = Arc::new(Simulator::new(SimOptions {
        devices,
        seed: 7,
        latency: Latency::None,
        faults: FaultSpec::none(),
        ..SimOptions::default()
    }));
    let provider = SimProvider::new(sim, tmp.path());
    let config = ToolConfig {
        screenshots_dir: tmp.path().join("shots"),
        launch_verify_timeout_ms: 3000,
        ..ToolConfig::rooted_at(tmp.path())
    };
    let ctx = ToolContext::new(provider.clone(), config);
    let core = Arc::new(Core::new(Arc::new(tapflow::mcp::engine()), ctx, options).unwrap());
    let (a, b) = tokio::io::duplex(1 << 22);
    let server = TapflowMcp::new(core.clone());
    let (s, c) = tokio::join!(server.serve(a), ().serve(b));
    let s = s.expect("server session starts");
    tokio::spawn(async move {
        let _ = s.waiting().await;
    });
    Server {
        client: c.expect("client session starts"),
        provider,
        core,
        tmp,
    }
}

impl Server {
    pub async fn tools(&self) -> Vec<Tool> {
        self.client.list_all_tools().await.unwrap()
    }

    /// One `tools/call`; panics on a JSON-RPC error.
    pub async fn call(&self, tool: &str, args: Value) -> CallToolResult {
        self.try_call(tool, args)
            .await
            .unwrap_or_else(|e| panic!("{tool}: {e}"))
    }

    pub async fn try_call(
        &self,
        tool: &str,
        args: Value,
    ) -> Result<CallToolResult, rmcp::ServiceError> {
        let args: Map<String, Value> = match args {
            Value::Object(m) => m,
            other => panic!("arguments must be an object: {other}"),
        };
        self.client
            .call_tool(CallToolRequestParams::new(tool.to_string()).with_arguments(args))
            .await
    }

    /// A call that must succeed; its `structuredContent.result`.
    pub async fn ok(&self, tool: &str, args: Value) -> Value {
        let r = self.call(tool, args.clone()).await;
        let sc = r.structured_content.clone().unwrap_or_default();
        assert_eq!(r.is_error, Some(false), "{tool} {args} failed: {sc:#}");
        assert_eq!(sc["ok"], true);
        sc["result"].clone()
    }

    /// A call that must fail as a tool error; its error code.
    pub async fn err(&self, tool: &str, args: Value) -> (String, Value) {
        let r = self.call(tool, args.clone()).await;
        let sc = r.structured_content.clone().unwrap_or_default();
        assert_eq!(
            r.is_error,
            Some(true),
            "{tool} {args} unexpectedly succeeded: {sc:#}"
        );
        (
            sc["error"]["code"].as_str().unwrap_or_default().to_string(),
            sc,
        )
    }

    pub fn serial(&self, i: usize) -> String {
        self.provider.simulator().serials()[i].clone()
    }
}

/// Validates a result's structuredContent against the tool's published outputSchema.
pub fn validate(tool: &Tool, result: &CallToolResult) {
    let schema = Value::Object(
        tool.output_schema
            .as_ref()
            .expect("every tool publishes an outputSchema")
            .as_ref()
            .clone(),
    );
    let sc = result
        .structured_content
        .clone()
        .expect("every result carries structuredContent");
    if let Err(e) = jsonschema::validate(&schema, &sc) {
        panic!(
            "{}: structuredContent does not match its outputSchema: {e}\n{sc:#}",
            tool.name
        );
    }
}
