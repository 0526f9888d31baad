//! stdio: one session over the process's stdin/stdout (stdout carries protocol messages only;
//! logs go to stderr). Ends when the client closes stdin.

use std::sync::Arc;

use rmcp::ServiceExt;

use crate::mcp::TapflowMcp;
use crate::mcp::call::Core;

/// Serves until the client disconnects.
pub async fn serve(core: Arc<Core>) -> Result<(), String> {
    let running = TapflowMcp::new(core)
        .serve(rmcp::transport::stdio())
        .await
        .map_err(|e| format!("MCP session could not start: {e}"))?;
    running
        .waiting()
        .await
        .map_err(|e| format!("MCP session ended with an error: {e}"))?;
    Ok(())
}
