//! A JSON POST's body, read and parsed before rmcp sees it, for three reasons:
//!
//! - a body that is not JSON gets a JSON-RPC `-32700 Parse error` (rmcp answers 415, as if the
//!   media type were wrong), and JSON that is not a JSON-RPC message gets `-32600 Invalid
//!   Request` — both with HTTP 400, which the streamable HTTP transport allows for input the
//!   server cannot accept; the error has no `id`, as MCP specifies when none can be read;
//! - the body must arrive within the header timeout and stay within [`MAX_BODY_BYTES`]
//!   (rmcp's limit too), so a client cannot hold a connection by trickling a body;
//! - an `initialize` (the request that creates a session) takes a session slot here, or gets
//!   503 with `Retry-After` when the table is full ([`super::sessions`]).
//!
//! The parsed message is not passed on: rmcp parses the same bytes again (microseconds for the
//! small messages MCP exchanges).

use std::sync::Arc;
use std::time::Duration;

use axum::body::Body;
use axum::extract::Request;
use axum::http::{HeaderValue, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use http_body_util::{BodyExt, LengthLimitError, Limited};
use rmcp::model::{ClientJsonRpcMessage, ClientRequest, ErrorData, JsonRpcError};

use super::limits::{MAX_BODY_BYTES, SESSION_RETRY_AFTER_SECS};
use super::sessions::{CappedSessions, with_permit};

/// What the body check needs.
#[derive(Clone)]
pub struct BodyGate {
    pub sessions: Arc<CappedSessions>,
    /// How long the whole body may take to arrive.
    pub timeout: Duration,
    pub max_sessions: usize,
}

fn is_json(req: &Request) -> bool {
    req.headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| {
            let essence = v.split_once(';').map_or(v, |(e, _)| e);
            essence.trim().eq_ignore_ascii_case("application/json")
        })
}

fn jsonrpc_error(error: ErrorData) -> Response {
    let body = serde_json::to_vec(&JsonRpcError::new(None, error)).unwrap_or_default();
    (
        StatusCode::BAD_REQUEST,
        [(header::CONTENT_TYPE, "application/json")],
        body,
    )
        .into_response()
}

fn too_large() -> Response {
    (
        StatusCode::PAYLOAD_TOO_LARGE,
        format!("Payload Too Large: the request body exceeds {MAX_BODY_BYTES} bytes"),
    )
        .into_response()
}

/// The middleware: see the module docs. Anything but a JSON POST passes untouched (rmcp
/// answers a POST of another media type with 415).
pub async fn check(gate: BodyGate, req: Request, next: Next) -> Response {
    if req.method() != Method::POST || !is_json(&req) {
        return next.run(req).await;
    }
    let declared = req
        .headers()
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok()?.parse::<u64>().ok());
    if declared.is_some_and(|n| n > MAX_BODY_BYTES as u64) {
        return too_large();
    }
    let (parts, body) = req.into_parts();
    let read = tokio::time::timeout(gate.timeout, Limited::new(body, MAX_BODY_BYTES).collect());
    let bytes = match read.await {
        Ok(Ok(collected)) => collected.to_bytes(),
        Ok(Err(e)) if e.downcast_ref::<LengthLimitError>().is_some() => return too_large(),
        Ok(Err(e)) => {
            return (
                StatusCode::BAD_REQUEST,
                format!("Bad Request: the request body could not be read: {e}"),
            )
                .into_response();
        }
        Err(_) => {
            let mut r = (
                StatusCode::REQUEST_TIMEOUT,
                format!(
                    "Request Timeout: the body did not arrive within {} ms",
                    gate.timeout.as_millis()
                ),
            )
                .into_response();
            r.headers_mut()
                .insert(header::CONNECTION, HeaderValue::from_static("close"));
            return r;
        }
    };
    let message: ClientJsonRpcMessage = match serde_json::from_slice(&bytes) {
        Ok(m) => m,
        Err(e) if e.is_data() => {
            return jsonrpc_error(ErrorData::invalid_request(
                format!("Invalid Request: the body is JSON but not a JSON-RPC message: {e}"),
                None,
            ));
        }
        Err(e) => {
            return jsonrpc_error(ErrorData::parse_error(
                format!("Parse error: the body is not JSON: {e}"),
                None,
            ));
        }
    };
    // rmcp creates a session for an `initialize` that names none.
    let creates_session = !parts.headers.contains_key("mcp-session-id")
        && matches!(
            &message,
            ClientJsonRpcMessage::Request(r) if matches!(r.request, ClientRequest::InitializeRequest(_))
        );
    let req = Request::from_parts(parts, Body::from(bytes));
    if !creates_session {
        return next.run(req).await;
    }
    match gate.sessions.try_reserve() {
        Some(permit) => with_permit(permit, next.run(req)).await,
        None => {
            let mut r = (
                StatusCode::SERVICE_UNAVAILABLE,
                format!(
                    "Service Unavailable: this MCP server holds its maximum of {} sessions (--http-max-sessions); retry later, or end unused sessions (DELETE /mcp)",
                    gate.max_sessions
                ),
            )
                .into_response();
            r.headers_mut().insert(
                header::RETRY_AFTER,
                HeaderValue::from(SESSION_RETRY_AFTER_SECS),
            );
            r
        }
    }
}
