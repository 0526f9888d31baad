//! The [`Engine`]: the registry of [`ToolDef`]s and the one call path every caller uses —
//! decode and check ([`Engine::check`]), run on a [`Call`], wrap the outcome in the envelope
//! (cost, evidence, platform), never panicking.

use std::panic::AssertUnwindSafe;
use std::time::Instant;

use indexmap::IndexMap;
use serde_json::{Map, Value, json};

use super::ToolDef;
// Only the docs name the trait ([`Tool::check`], [`Tool::budget_ms`]).
#[cfg(doc)]
use super::Tool;
use crate::config::ToolConfig;
use crate::context::{Call, DeviceRoute, ToolContext};
use crate::decode;
use crate::envelope::{Envelope, ToolError};

/// The registry plus the call path.
pub struct Engine {
    tools: IndexMap<&'static str, ToolDef>,
}

impl Default for Engine {
    fn default() -> Self {
        Self::new()
    }
}

impl Engine {
    /// An engine with every built-in tool.
    pub fn new() -> Self {
        let mut e = Engine {
            tools: IndexMap::new(),
        };
        for def in crate::builtin() {
            e.register(def);
        }
        e
    }

    /// Adds (or replaces) a tool; used for tools that live in other modules.
    pub fn register(&mut self, def: ToolDef) {
        self.tools.insert(def.name, def);
    }

    pub fn get(&self, name: &str) -> Option<&ToolDef> {
        self.tools.get(name)
    }

    pub fn tools(&self) -> impl Iterator<Item = &ToolDef> {
        self.tools.values()
    }

    /// What MCP `tools/list` returns, in registry order.
    pub fn mcp_tools(&self) -> Vec<Value> {
        self.tools().map(ToolDef::mcp_entry).collect()
    }

    /// The engine's device-free verdict on a call: the arguments decoded against the tool's
    /// published schema, then the tool's own rules ([`Tool::check`]). This is the first thing
    /// [`Engine::call`] does, and what `tapflow validate` runs on every tool step. Returns the
    /// tool's parameters (nulls removed, the registry's own parameters split off).
    pub fn check(&self, tool: &str, args: Value) -> Result<Checked, ToolError> {
        let Some(def) = self.tools.get(tool) else {
            return Err(unknown_tool(self, tool));
        };
        checked(def, args)
    }

    /// How long a call may legitimately take ([`Tool::budget_ms`]), for arguments that pass
    /// [`Engine::check`]; `None` when the tool is quick or the arguments do not decode.
    pub fn budget_ms(
        &self,
        tool: &str,
        params: &Map<String, Value>,
        config: &ToolConfig,
    ) -> Option<u64> {
        self.tools
            .get(tool)
            .and_then(|def| (def.budget)(params, config))
    }

    /// Runs one tool and wraps its outcome in the envelope. Never panics.
    pub fn call(&self, tool: &str, args: Value, ctx: &ToolContext) -> Envelope {
        let started = Instant::now();
        let Some(def) = self.tools.get(tool) else {
            let err = unknown_tool(self, tool);
            let shown = decode::clip(tool);
            return Envelope::new(&shown, Err(err), started.elapsed().as_millis() as u64);
        };
        let platform = std::cell::Cell::new(None);
        let outcome = std::panic::catch_unwind(AssertUnwindSafe(|| {
            run_def(def, args, ctx, started, &platform)
        }))
        .unwrap_or_else(|panic| {
            let what = panic
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default();
            Err(ToolError::new(
                tapflow_core::codes::INTERNAL_ERROR,
                format!("the tool failed unexpectedly: {what}"),
            ))
        });
        Envelope::new(def.name, outcome, started.elapsed().as_millis() as u64)
            .with_platform(platform.get())
    }
}

fn unknown_tool(engine: &Engine, tool: &str) -> ToolError {
    let known: Vec<&str> = engine.tools.keys().copied().collect();
    let mut msg = format!("no tool named `{}`", decode::clip(tool));
    let suggestion = tapflow_core::suggest::closest(tool, known.iter().copied());
    if let Some(s) = suggestion {
        msg.push_str(&format!(" (did you mean `{s}`?)"));
    }
    ToolError::new(tapflow_core::codes::UNKNOWN_TOOL, msg)
        .with_details(json!({ "known_tools": known, "suggestion": suggestion }))
}

/// Arguments that passed [`Engine::check`]: the tool's own parameters, and the registry's.
#[derive(Debug, Clone, PartialEq)]
pub struct Checked {
    /// The tool's parameters as given (nulls removed).
    pub params: Map<String, Value>,
    pub device_id: Option<String>,
    pub hdc_server: Option<String>,
    pub include_cost: bool,
    pub verify: bool,
}

fn checked(def: &ToolDef, args: Value) -> Result<Checked, ToolError> {
    let mut map = decode::check(args, &def.input_schema, &def.codes)?;
    let take_str = |m: &mut Map<String, Value>, k: &str| {
        m.remove(k)
            .and_then(|v| v.as_str().map(str::to_string))
            .filter(|s| !s.trim().is_empty())
    };
    let take_bool = |m: &mut Map<String, Value>, k: &str| {
        m.remove(k).and_then(|v| v.as_bool()).unwrap_or(false)
    };
    let out = Checked {
        device_id: take_str(&mut map, "device_id"),
        hdc_server: take_str(&mut map, "hdc_server"),
        include_cost: take_bool(&mut map, "include_cost"),
        verify: take_bool(&mut map, "verify"),
        params: map,
    };
    (def.check)(&out.params)?;
    Ok(out)
}

fn run_def(
    def: &ToolDef,
    args: Value,
    ctx: &ToolContext,
    started: Instant,
    platform: &std::cell::Cell<Option<tapflow_device::Platform>>,
) -> Result<Value, ToolError> {
    // A call refused by its rules still reports what it cost (nothing on the device).
    let wants_cost = args.get("include_cost").and_then(Value::as_bool) == Some(true);
    let checked = checked(def, args).map_err(|e| {
        if wants_cost {
            e.with_details(json!({ "cost": {
                "wall_ms": started.elapsed().as_millis() as u64,
                "device_round_trips": 0,
                "ui_dumps": 0,
            }}))
        } else {
            e
        }
    })?;
    let route = DeviceRoute {
        device_id: checked.device_id,
        hdc_server: checked
            .hdc_server
            .or_else(|| ctx.config.default_hdc_server.clone()),
    };
    let include_cost = checked.include_cost;
    let mut call = Call::new(ctx, route, checked.verify);
    let mut outcome = (def.run)(checked.params.clone(), &mut call);
    if outcome.is_err() && call.missed_on_carried() {
        // Flows: a target looked up on the screen the previous step handed over, and the call
        // failed before it acted: do what a bare call does, once, on a fresh observation (the
        // screen may have moved on since).
        outcome = (def.run)(checked.params, &mut call);
    }
    if outcome.is_ok() {
        // Flows: only a call that succeeded hands its screen to the next step (a retry or a
        // loop after a failure observes afresh).
        call.succeeded();
    }
    platform.set(call.platform());
    let cost = json!({
        "wall_ms": started.elapsed().as_millis() as u64,
        "device_round_trips": call.cost().round_trips,
        "ui_dumps": call.cost().ui_dumps,
    });
    match outcome {
        Ok(mut v) => {
            if let Value::Object(obj) = &mut v {
                if let Some(ev) = call.take_evidence() {
                    obj.insert(
                        "evidence".into(),
                        serde_json::to_value(ev).unwrap_or(Value::Null),
                    );
                }
                if let Some(why) = call.take_evidence_error() {
                    obj.insert("evidence_error".into(), Value::String(why));
                }
                if include_cost {
                    obj.insert("cost".into(), cost);
                }
            }
            Ok(v)
        }
        Err(e) if include_cost => Err(e.with_details(json!({ "cost": cost }))),
        Err(e) => Err(e),
    }
}
