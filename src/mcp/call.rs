//! One `tools/call`, from the request to the reference envelope:
//!
//! 1. unknown (or not served) tool → JSON-RPC error `-32602`; everything else is a tool result;
//! 2. MCP-only arguments are taken out: `approval` and `response_level`; a flow tool's flow is
//!    compiled and checked step by step ([`flow_gate`]); approval is decided ([`approval`]:
//!    operator, trusted caller, or the person through elicitation) and recorded in
//!    `meta.approval`;
//! 3. the device is found (the route's serial) and checked against the device allowlist;
//! 4. the call queues in its device's lane (arrival order; at most `timeout_ms` of its own, else
//!    the server's busy budget → `DEVICE_BUSY`), then runs [`Engine::call`] on the blocking pool
//!    with cancellable [`Signals`] that also carry its progress;
//! 5. a cancelled request (`notifications/cancelled`, or its HTTP stream closed) cancels the
//!    signals: the round trip in flight is abandoned (its `hdc` / `adb` child killed, its answer
//!    discarded), its progress stops; the call returns once its device work has stopped, and
//!    only then does the lane pass to the next call — so the device is never driven by two
//!    calls at once. rmcp sends no response to a cancelled request (as the spec asks);
//! 6. the result is shaped by `response_level`, and `meta.lane` says where the call queued;
//! 7. a call that reached its tool is recorded in the session's log (`meta.session_call` is its
//!    number there), which `save_flow` turns into a flow ([`SessionLog`]); a stateless HTTP
//!    request (2026-07-28 era) has no session and no log.

use std::sync::Arc;
use std::time::{Duration, Instant};

use rmcp::ErrorData;
use rmcp::model::{
    CallToolResponse, CallToolResult, InputRequiredResult, InputResponses, JsonObject,
};
use rmcp::service::{RequestContext, RoleServer};
use serde_json::{Map, Value, json};

use crate::mcp::approval;
use crate::mcp::catalog::{Catalog, Served};
use crate::mcp::elicit::Pending;
use crate::mcp::flow_gate::{self, Approved, FlowGate};
use crate::mcp::lanes::Lanes;
use crate::mcp::levels::{self, Level};
use crate::mcp::options::{Compiled, McpOptions};
use crate::mcp::policy;
use crate::mcp::progress::Reporter;
use crate::mcp::session_log::SessionLog;
use crate::mcp::text;
use tapflow_tools::context::{PlanGate, Signals};
use tapflow_tools::registry::INCLUDE_COST;
use tapflow_tools::{DeviceRoute, Engine, Envelope, Routing, ToolContext, ToolError};

/// A 2026-07-28 retry's answer to an approval question (`requestState`, `inputResponses`).
#[derive(Clone, Copy, Default)]
pub struct Answered<'a> {
    pub request_state: Option<&'a str>,
    pub input_responses: Option<&'a InputResponses>,
}

/// What an approved call runs with besides its arguments.
struct Context {
    /// The gate a flow tool checks the plan it runs against.
    gate: Option<Arc<dyn PlanGate>>,
    /// The session's log (none for a stateless HTTP request).
    session: Option<Arc<SessionLog>>,
}

/// What a call's approval came to.
enum Decision {
    /// Run it: the record for `meta.approval`, and the gate of a flow tool.
    Go(Option<Value>, Option<Arc<dyn PlanGate>>),
    /// Return this question first (2026-07-28 era).
    Ask(InputRequiredResult),
}

/// The flow tools whose flow is checked step by step before they run.
const RUN_FLOW: &str = "run_flow";
const PLAN_FLOW: &str = "plan_flow";

/// Everything a server session shares with the others (one per process).
pub struct Core {
    pub engine: Arc<Engine>,
    pub catalog: Catalog,
    pub ctx: ToolContext,
    pub options: McpOptions,
    pub filter: Compiled,
    pub lanes: Lanes,
    /// Approval questions asked in the 2026-07-28 era, awaiting the client's retry.
    pub pending: Pending,
}

impl Core {
    pub fn new(engine: Arc<Engine>, ctx: ToolContext, options: McpOptions) -> Result<Self, String> {
        let filter = options.compile()?;
        let catalog = Catalog::new(
            &engine,
            &filter,
            options.platform,
            options.trust_caller_approval,
        )?;
        Ok(Core {
            engine,
            catalog,
            ctx,
            options,
            filter,
            lanes: Lanes::default(),
            pending: Pending::default(),
        })
    }

    /// Handles one `tools/call`: decides its approval (which, in the 2026-07-28 era, may be a
    /// question to return first), then runs it.
    pub async fn call(
        self: Arc<Self>,
        name: &str,
        args: Option<JsonObject>,
        input: Answered<'_>,
        rctx: RequestContext<RoleServer>,
        session: Option<Arc<SessionLog>>,
    ) -> Result<CallToolResponse, ErrorData> {
        let Some(served) = self.catalog.get(name) else {
            let why = if self.engine.get(name).is_some() {
                format!(
                    "tool `{name}` is not served here (--tools profile, --allow-tools / --deny-tools)"
                )
            } else {
                format!("unknown tool `{name}`; tools/list names every tool")
            };
            return Err(ErrorData::invalid_params(
                why,
                Some(json!({ "tool": name })),
            ));
        };
        let mut args = args.unwrap_or_default();
        let mut extra_meta = Map::new();
        // A parameter the server's platform does not have, before anyone is asked to approve.
        // A refusal before the tool runs: a tool error at the default level.
        let refuse = |e, meta| -> Result<CallToolResponse, ErrorData> {
            Ok(finish(
                Envelope::new(name, Err(e), 0),
                meta,
                Level::Default,
                served.headline,
            )
            .into())
        };
        if let Err(e) = crate::mcp::platform_text::refuse_foreign(&args, self.options.platform) {
            return refuse(e, extra_meta);
        }
        let gate = match self
            .approve(name, served.needs_approval, &mut args, input, &rctx)
            .await
        {
            Ok(Decision::Ask(question)) => return Ok(CallToolResponse::InputRequired(question)),
            Ok(Decision::Go(record, gate)) => {
                if let Some(r) = record {
                    extra_meta.insert("approval".into(), r);
                }
                gate
            }
            Err(e) => return refuse(e, extra_meta),
        };
        self.run(
            name,
            served,
            args,
            extra_meta,
            Context { gate, session },
            rctx,
        )
        .await
        .map(Into::into)
    }

    /// Runs an approved call.
    async fn run(
        &self,
        name: &str,
        served: &Served,
        mut args: JsonObject,
        mut extra_meta: Map<String, Value>,
        with: Context,
        rctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        let Context { gate, session } = with;
        let started = Instant::now();
        let prepared = match served.digest {
            Some(d) => levels::take(&mut args, d),
            None => Ok(Level::Default),
        };
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
        let recorded_args = args.clone();
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
        let mut ctx = self.ctx.with_signals(signals.clone());
        if let Some(g) = gate {
            ctx = ctx.with_gate(g);
        }
        let engine = self.engine.clone();
        let tool = name.to_string();
        let log = session.clone();
        let mut job = tokio::task::spawn_blocking(move || match log {
            Some(log) => log.enter(|| engine.call(&tool, Value::Object(args), &ctx)),
            None => engine.call(&tool, Value::Object(args), &ctx),
        });
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
        if let Some(log) = &session {
            let seq = log.record(name, recorded_args, &envelope);
            extra_meta.insert("session_call".into(), seq.into());
        }
        Ok(finish(envelope, extra_meta, level, served.headline))
    }

    /// Takes out the `approval` argument and decides the call's approval; for a flow tool, checks
    /// every step of its flow first. The record for `meta.approval`, and the gate the flow tool
    /// checks the plan it runs against.
    async fn approve(
        self: &Arc<Self>,
        name: &str,
        needs_approval: bool,
        args: &mut JsonObject,
        input: Answered<'_>,
        rctx: &RequestContext<RoleServer>,
    ) -> Result<Decision, ToolError> {
        let flow_tool = matches!(name, RUN_FLOW | PLAN_FLOW);
        let given = if needs_approval || name == RUN_FLOW {
            args.remove(policy::APPROVAL)
        } else {
            None
        };
        let needing = if flow_tool {
            flow_gate::precheck(self, args).await?
        } else if needs_approval && self.options.require_approval {
            vec![approval::call_step(name)]
        } else {
            Vec::new()
        };
        if name == PLAN_FLOW {
            // Planning runs nothing: it says what run_flow would ask approval for.
            let gate = FlowGate {
                filter: self.filter.clone(),
                engine: self.engine.clone(),
                approval: None,
                record: None,
            };
            let record = (!needing.is_empty())
                .then(|| json!({ "required": true, "steps": needing, "decided": false }));
            return Ok(Decision::Go(record, Some(Arc::new(gate))));
        }
        let retry = approval::Retry {
            args: Value::Object(args.clone()).to_string(),
            request_state: input.request_state,
            input_responses: input.input_responses,
        };
        let record = match approval::decide(self, name, &needing, given, &retry, rctx).await? {
            approval::Decision::Go(record) => record,
            approval::Decision::Ask(question) => return Ok(Decision::Ask(question)),
        };
        let gate = flow_tool.then(|| {
            Arc::new(FlowGate {
                filter: self.filter.clone(),
                engine: self.engine.clone(),
                approval: Some(Approved {
                    require_approval: self.options.require_approval,
                    tools: flow_gate::tools_of(&needing),
                }),
                record: record.clone(),
            }) as Arc<dyn PlanGate>
        });
        Ok(Decision::Go(record, gate))
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
