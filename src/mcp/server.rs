//! The rmcp [`ServerHandler`]: a manual handler over the registry (the tool list is built at
//! run time from [`tapflow_tools::Engine::mcp_tools`], so rmcp's macros do not fit). Serves both
//! protocol eras: the `initialize` handshake (2025-11-25 and older) and 2026-07-28's
//! `server/discover` with per-request metadata — rmcp negotiates, this handler only answers.

use std::sync::Arc;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, Implementation, ListToolsResult,
    PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::{RequestContext, RoleServer};
use rmcp::{ErrorData, ServerHandler};

use crate::mcp::call::Core;
use crate::mcp::session_log::SessionLog;

/// What the server tells clients at the handshake / discovery.
const INSTRUCTIONS: &str = "tapflow drives HarmonyOS devices through hdc and Android devices through adb (and simulated ones of both). Every tool returns the envelope {tool, ok, result, error, meta} as structuredContent (meta.platform names the platform of the device that answered); ok=false comes with isError=true and a stable error.code. Observe first (find_elements / get_ui_tree with response_level=digest), act with the element_handle it returns (click, input_text), confirm with wait_for_element. Calls on one device run in arrival order; different devices run in parallel. run_flow runs a whole YAML flow with progress per step.";

/// One handler per session; all share the [`Core`]. Each has its own log of calls.
#[derive(Clone)]
pub struct TapflowMcp {
    core: Arc<Core>,
    session: Arc<SessionLog>,
}

impl TapflowMcp {
    pub fn new(core: Arc<Core>) -> Self {
        TapflowMcp {
            core,
            session: SessionLog::new(),
        }
    }

    pub fn core(&self) -> &Arc<Core> {
        &self.core
    }
}

impl ServerHandler for TapflowMcp {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(
                Implementation::new("tapflow", env!("CARGO_PKG_VERSION"))
                    .with_title("tapflow: HarmonyOS device automation"),
            )
            .with_instructions(INSTRUCTIONS)
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(self.core.catalog.tools()))
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        self.core.catalog.get(name).map(|s| s.tool.clone())
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let name = request.name.to_string();
        let input = crate::mcp::call::Answered {
            request_state: request.request_state.as_deref(),
            input_responses: request.input_responses.as_ref(),
        };
        // 2026-07-28 over HTTP has no sessions (SEP-2567): rmcp builds a handler per request,
        // so its log would only ever hold that call. Such a call has none.
        let stateless = context
            .extensions
            .get::<axum::http::request::Parts>()
            .is_some_and(|p| !p.headers.contains_key("mcp-session-id"));
        let session = (!stateless).then(|| self.session.clone());
        self.core
            .clone()
            .call(&name, request.arguments, input, context, session)
            .await
    }
}
