//! One `tools/call`, from the request to the reference envelope:
//!
//! 1. unknown (or not served) tool → JSON-RPC error `-32602`; everything else is a tool result;
//! 2. MCP-only arguments are taken out: `approval` (validated against the policy; echoed in
//!    `meta.approval`) and `response_level`;
//! 3. the device is found (the route's serial) and checked against the device allowlist;
//! 4. the call queues in its device's lane (arrival order; at most `timeout_ms` of its own, else
//!    the server's busy budget → `DEVICE_BUSY`), then runs [`Engine::call`] on the blocking pool
//!    with cancellable [`Signals`] that also carry its progress;
//! 5. a cancelled request (`notifications/cancelled`, or its HTTP stream closed) cancels the
//!    signals: the round trip in flight is abandoned (its `hdc` / `adb` child killed, its answer
//!    discarded), its progress stops; the call returns once its device work has stopped, and
//!    only then does the lane pass to the next call — so the device is never driven by two
//!    calls at once. rmcp sends no response to a cancelled request (as the spec asks);
//! 6. the result is shaped by `response_level`, and `meta.lane` says where the call queued.

use std::sync::Arc;
use std::time::{Duration, Instant};

use rmcp::ErrorData;
use rmcp::model::{CallToolResult, JsonObject};
use rmcp::service::{RequestContext, RoleServer};
use serde_json::{Map, Value, json};

use crate::mcp::catalog::Catalog;
use crate::mcp::lanes::Lanes;
use crate::mcp::levels::{self, Level};
use crate::mcp::options::{Compiled, McpOptions};
use crate::mcp::policy;
use crate::mcp::progress::Reporter;
use crate::mcp::text;
use tapflow_tools::context::Signals;
use tapflow_tools::registry::INCLUDE_COST;
use tapflow_tools::{DeviceRoute, Digest, Engine, Envelope, Routing, ToolContext, ToolError};

/// Everything a server session shares with the others (one per process).
pub struct Core {
    pub engine: Arc<Engine>,
    pub catalog: Catalog,
    pub ctx: ToolContext,
    pub options: McpOptions,
    pub filter: Compiled,
    pub lanes: Lanes,
}

impl Core {
    pub fn new(engine: Arc<Engine>, ctx: ToolContext, options: McpOptions) -> Result<Self, String> {
        let filter = options.compile()?;
        let catalog = Catalog::new(&engine, &filter)?;
        Ok(Core {
            engine,
            catalog,
            ctx,
            options,
            filter,
            lanes: Lanes::default(),
        })
    }

    /// Handles one `tools/call`.
    pub async fn call(
        self: Arc<Self>,
        name: &str,
        args: Option<JsonObject>,
        rctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        let Some(served) = self.catalog.get(name) else {
            let why = if self.engine.get(name).is_some() {
                format!("tool `{name}` is not served here (--allow-tools / --deny-tools)")
            } else {
                format!("unknown tool `{name}`; tools/list names every tool")
            };
            return Err(ErrorData::invalid_params(
                why,
                Some(json!({ "tool": name })),
            ));
        };
        let started = Instant::now();
        let mut args = args.unwrap_or_default();
        let mut extra_meta = Map::new();
        let prepared = self.prepare(
            name,
            served.needs_approval,
            served.digest,
            &mut args,
            &mut extra_meta,
        );
        let level = match prepared {
            Ok(l) => l,
            Err(e) => {
                return Ok(finish(
                    Envelope::new(name, Err(e), 0),
                    extra_meta,
                    Level::Default,
                    served.headline,
                ));
            }
        };
        if level == Level::Full {
            args.insert(INCLUDE_COST.into(), Value::Bool(true));
        }

        // The device lane (tools that take no device run at once, in parallel).
        let mut ticket = None;
        if served.routing == Routing::Full {
            let route = self.route_of(&args);
            let key = match self.lane_key(&route).await {
                Ok(k) => k,
                Err(e) => {
                    return Ok(finish(
                        Envelope::new(name, Err(e), 0),
                        extra_meta,
                        level,
                        served.headline,
                    ));
                }
            };
            let mut t = self.lanes.arrive(&key);
            let budget = Duration::from_millis(
                args.get("timeout_ms")
                    .and_then(Value::as_u64)
                    .unwrap_or(self.options.busy_wait_ms),
            );
            let queued = Instant::now();
            tokio::select! {
                _ = t.turn() => {}
                _ = tokio::time::sleep(budget) => {
                    let e = ToolError::new(
                        tapflow_core::codes::DEVICE_BUSY,
                        format!("device `{key}` stayed busy with earlier calls for {} ms (this call's wait budget); try again or raise timeout_ms", budget.as_millis()),
                    )
                    .with_details(json!({ "device": key, "calls_ahead": t.ahead(), "waited_ms": queued.elapsed().as_millis() as u64 }));
                    return Ok(finish(Envelope::new(name, Err(e), 0), extra_meta, level, served.headline));
                }
                _ = rctx.ct.cancelled() => {
                    let e = tapflow_tools::context::cancelled();
                    return Ok(finish(Envelope::new(name, Err(e), 0), extra_meta, level, served.headline));
                }
            }
            extra_meta.insert(
                "lane".into(),
                json!({
                    "device": key,
                    "seq": t.seq(),
                    "calls_ahead": t.ahead(),
                    "waited_ms": queued.elapsed().as_millis() as u64,
                }),
            );
            ticket = Some(t);
        }

        // Run on the blocking pool with cancellable signals that carry progress.
        let mut reporter = rctx.meta.get_progress_token().map(|token| {
            Reporter::start(rctx.peer.clone(), token, name.to_string(), rctx.ct.clone())
        });
        let signals = Signals::new(reporter.as_ref().map(Reporter::sink));
        let ctx = self.ctx.with_signals(signals.clone());
        let engine = self.engine.clone();
        let tool = name.to_string();
        let mut job =
            tokio::task::spawn_blocking(move || engine.call(&tool, Value::Object(args), &ctx));
        let outcome = tokio::select! {
            r = &mut job => r,
            _ = rctx.ct.cancelled() => {
                // The round trip in flight is abandoned (its child killed, its answer dropped)
                // and no progress follows the cancel; the lane stays ours until the tool has
                // returned, which is then a matter of milliseconds.
                signals.cancel();
                if let Some(r) = reporter.take() {
                    r.stop();
                }
                job.await
            }
        };
        drop(ticket);
        if let Some(r) = reporter {
            r.finish().await;
        }
        let mut envelope = outcome.unwrap_or_else(|e| {
            Envelope::new(
                name,
                Err(ToolError::new(
                    tapflow_core::codes::INTERNAL_ERROR,
                    format!("the tool task failed: {e}"),
                )),
                started.elapsed().as_millis() as u64,
            )
        });
        if signals.is_cancelled() && envelope.ok() {
            // Finished anyway before the cancellation could stop it: say what happened.
            extra_meta.insert("cancel_requested".into(), Value::Bool(true));
        } else if signals.is_cancelled() {
            envelope = Envelope::new(
                name,
                Err(tapflow_tools::context::cancelled()),
                envelope.structured.meta.duration_ms,
            );
        }
        Ok(finish(envelope, extra_meta, level, served.headline))
    }

    /// Takes out and checks the MCP-only arguments; the level to shape the result with.
    fn prepare(
        &self,
        name: &str,
        needs_approval: bool,
        digest: Option<Digest>,
        args: &mut JsonObject,
        meta: &mut Map<String, Value>,
    ) -> Result<Level, ToolError> {
        let approval = if needs_approval {
            args.remove(policy::APPROVAL)
        } else {
            None
        };
        if let Some(echo) = policy::check_approval(
            name,
            needs_approval,
            self.options.require_approval,
            approval,
            chrono::Utc::now(),
        )? {
            meta.insert("approval".into(), echo);
        }
        match digest {
            Some(d) => levels::take(args, d),
            None => Ok(Level::Default),
        }
    }

    fn route_of(&self, args: &JsonObject) -> DeviceRoute {
        let s = |k: &str| {
            args.get(k)
                .and_then(Value::as_str)
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .map(str::to_string)
        };
        DeviceRoute {
            device_id: s("device_id"),
            hdc_server: s("hdc_server").or_else(|| self.ctx.config.default_hdc_server.clone()),
        }
    }

    /// The lane of a route: its device's serial (the only device when none is named), checked
    /// against the device allowlist. A route that does not resolve gets a lane of its own name
    /// (the tool then reports why the device cannot be reached).
    async fn lane_key(&self, route: &DeviceRoute) -> Result<String, ToolError> {
        let serial = match &route.device_id {
            Some(d) => Some(d.clone()),
            None => {
                let provider = self.ctx.provider.clone();
                let r = route.clone();
                tokio::task::spawn_blocking(move || {
                    provider.resolve(&r).map(|d| d.serial().to_string())
                })
                .await
                .ok()
                .and_then(Result::ok)
            }
        };
        if let Some(s) = &serial
            && !self.filter.device_allowed(s)
        {
            return Err(ToolError::new(
                tapflow_core::codes::DEVICE_NOT_ALLOWED,
                format!("device `{s}` is not in this server's device allowlist (--allow-device)"),
            )
            .with_details(json!({ "device_id": s })));
        }
        if serial.is_none() && !self.options.allow_devices.is_empty() {
            // With an allowlist, an unnamed route must resolve to an allowed device.
            return Err(ToolError::new(
                tapflow_core::codes::DEVICE_NOT_ALLOWED,
                "this server has a device allowlist (--allow-device): name the device with device_id",
            ));
        }
        let server = route.hdc_server.as_deref().unwrap_or("local");
        Ok(format!(
            "{server}/{}",
            serial.as_deref().unwrap_or("(default)")
        ))
    }
}

/// The envelope as MCP carries it, with the server's additions to `meta` and the level applied.
pub fn finish(
    envelope: Envelope,
    extra_meta: Map<String, Value>,
    level: Level,
    headline: fn(&Value) -> Option<String>,
) -> CallToolResult {
    let tool = envelope.structured.tool.clone();
    let mut v = envelope.to_value();
    if let Some(meta) = v
        .pointer_mut("/structuredContent/meta")
        .and_then(Value::as_object_mut)
    {
        meta.extend(extra_meta);
    }
    if let Level::Digest(how) = level
        && envelope.ok()
        && let Some(result) = v.pointer_mut("/structuredContent/result")
    {
        *result = levels::digest(how, result);
    }
    // The words and JSON a model that reads only `content` sees.
    if let Some(structured) = v.get("structuredContent") {
        let text = text::render(&tool, structured, headline);
        v["content"] = json!([{ "type": "text", "text": text }]);
    }
    match serde_json::from_value::<CallToolResult>(v) {
        Ok(mut r) => {
            // Built from JSON, so set what rmcp's constructors set (it strips it again for
            // handshake-era peers).
            r.result_type = Some(rmcp::model::ResultType::COMPLETE);
            r
        }
        Err(e) => CallToolResult::error(vec![rmcp::model::ContentBlock::text(format!(
            "{tool}: error INTERNAL_ERROR: the envelope did not convert: {e}"
        ))]),
    }
}
