//! The tool registry and the engine: every tool is one [`Tool`] implementation, erased into a
//! [`ToolDef`] (name, schemas, policy, flow shorthand, device-free rules, time budget, runner).
//! [`Engine::call`] is the single entry point the flow runner, the MCP server and the CLI use:
//! decode → the tool's device-free rules ([`Engine::check`]) → run → envelope. `tapflow validate`
//! runs exactly [`Engine::check`] too (through `RegistryCatalog`), so a flow that validates
//! is never refused by a tool before it reaches the device.
//!
//! Parameters every device tool shares (`device_id`, `hdc_server`), the opt-in extras
//! (`include_cost` on every tool, `verify` on UI actions) are handled here, once, and injected
//! into every published input schema.

use std::panic::AssertUnwindSafe;
use std::time::Instant;

use indexmap::IndexMap;
use schemars::JsonSchema;
use schemars::generate::SchemaSettings;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value, json};

use crate::config::ToolConfig;
use crate::context::{Call, DeviceRoute, ToolContext};
use crate::decode::{self, FieldCodes};
use crate::envelope::{Envelope, ToolError, structured_schema};
use crate::policy::{Hints, Policy};

/// Which routing parameters a tool takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Routing {
    /// No device.
    None,
    /// `hdc_server` only (`list_devices`).
    ServerOnly,
    /// `device_id` and `hdc_server`.
    Full,
}

/// One tool: parameters, result, what it may do, and how it runs.
pub trait Tool: 'static {
    const NAME: &'static str;
    const TITLE: &'static str;
    const DESCRIPTION: &'static str;
    const POLICY: Policy;
    const HINTS: Hints;
    const ROUTING: Routing = Routing::Full;
    /// Accepts `verify: true` (UI actions): adds `evidence` to the result.
    const VERIFY: bool = false;
    /// Contract codes for values outside a field's enumeration/range, or of a wrong type.
    const CODES: FieldCodes = FieldCodes {
        value: &[],
        wrong_type: &[],
    };
    /// Parameters the contract marks required (published in the schema; the tool reports
    /// their absence with the contract's own code).
    const REQUIRED: &'static [&'static str] = &[];
    /// Flows only: the parameter a bare scalar fills (`click: Login` → `text`). Bare tool
    /// calls (MCP, `tapflow tool`) always name their parameters.
    const SHORTHAND: Option<&'static str> = None;
    /// Flows only: what other test runners call this step, with a note on how to write it
    /// here (empty = just this tool), for the "unknown step" hint: `("tapOn", "")`,
    /// `("doubleTapOn", "with `count: 2`")` ("tapflow calls this `click` (with `count: 2`)").
    const KNOWN_AS: &'static [(&'static str, &'static str)] = &[];
    /// Flows only: defaults that differ from a bare call's, as `(parameter, JSON value)`;
    /// `docs/flow-format.md` ("Flow-level behaviours") says which and why. The plan shows them.
    const FLOW_DEFAULTS: &'static [(&'static str, &'static str)] = &[];
    /// Flows only: the tool acts on one element (search criteria or a handle) and reports a
    /// missing one (`ELEMENT_NOT_FOUND`) before it touches the device, so a flow step may call
    /// it again until the element appears (implicit wait, `wait:`).
    const WAITS_FOR_TARGET: bool = false;

    type Params: DeserializeOwned + JsonSchema;
    type Output: Serialize + JsonSchema;

    /// Flows only: whether a call with these parameters starts by looking at the screen (a
    /// target found by criteria or handle, a wait, a find). The step before it then brings the
    /// screen back with its last action, in the same round trip (`tools::context::carry`).
    fn looks_first(_params: &Self::Params) -> bool {
        false
    }

    /// The tool's device-free argument rules (one mode only, conditional requirements, ranges,
    /// key names, file extensions, …), on decoded parameters. [`Engine::call`] runs them before
    /// anything else can happen, and `tapflow validate` runs the very same function, so they
    /// must not depend on a device, the host's files or the clock of a particular call beyond
    /// "now". An error names the parameter at fault in `details.param` (see
    /// [`ToolError::at`]) so validate can point at it.
    fn check(_params: &Self::Params) -> Result<(), ToolError> {
        Ok(())
    }

    /// How long a call with these parameters may legitimately take, in ms, from the tool's own
    /// timeout parameters and settings (`wait_for_element`'s `timeout_ms`, `run_app`'s
    /// `window_timeout_ms`, `build_app`'s build budget, …); `None` = quick. A flow step's
    /// default deadline covers it (plus a margin).
    fn budget_ms(_params: &Self::Params, _config: &ToolConfig) -> Option<u64> {
        None
    }

    fn run(params: Self::Params, call: &mut Call<'_>) -> Result<Self::Output, ToolError>;
}

type Runner =
    Box<dyn Fn(Map<String, Value>, &mut Call<'_>) -> Result<Value, ToolError> + Send + Sync>;
type Looks = Box<dyn Fn(&Map<String, Value>) -> bool + Send + Sync>;
type Checker = Box<dyn Fn(&Map<String, Value>) -> Result<(), ToolError> + Send + Sync>;
type Budget = Box<dyn Fn(&Map<String, Value>, &ToolConfig) -> Option<u64> + Send + Sync>;

/// The parameters the registry adds to every device tool: the route (chosen by whoever runs
/// the call; a flow never sets them).
pub const ROUTING_PARAMS: &[&str] = &["device_id", "hdc_server"];
/// The opt-in extras the registry adds (`include_cost` everywhere, `verify` on UI actions).
pub const EXTRA_PARAMS: &[&str] = &["include_cost", "verify"];

/// A tool with its types erased, as the registry holds it.
pub struct ToolDef {
    pub name: &'static str,
    pub title: &'static str,
    pub description: &'static str,
    pub policy: Policy,
    pub hints: Hints,
    pub routing: Routing,
    pub verify: bool,
    /// Flows only: the parameter a bare scalar fills.
    pub shorthand: Option<&'static str>,
    /// Flows only: other runners' names for this step, with a note.
    pub known_as: &'static [(&'static str, &'static str)],
    /// Flows only: steps of this tool wait for their element ([`Tool::WAITS_FOR_TARGET`]).
    pub waits_for_target: bool,
    codes: FieldCodes,
    input_schema: Value,
    result_schema: Value,
    /// Flows only: [`Tool::FLOW_DEFAULTS`], parsed.
    flow_defaults: Map<String, Value>,
    looks_first: Looks,
    check: Checker,
    budget: Budget,
    run: Runner,
}

impl ToolDef {
    pub fn of<T: Tool>() -> Self {
        let mut input = schema_of::<T::Params>();
        add_common_inputs(&mut input, T::ROUTING, T::VERIFY, T::REQUIRED);
        let mut result = result_schema_of::<T::Output>();
        add_common_outputs(&mut result, T::VERIFY);
        if let Some(p) = T::SHORTHAND {
            assert!(
                input["properties"].get(p).is_some(),
                "{}: shorthand `{p}` is not a parameter",
                T::NAME
            );
        }
        let flow_defaults = T::FLOW_DEFAULTS
            .iter()
            .map(|(k, v)| {
                assert!(
                    input["properties"].get(*k).is_some(),
                    "{}: flow default `{k}` is not a parameter",
                    T::NAME
                );
                let v: Value = serde_json::from_str(v)
                    .unwrap_or_else(|e| panic!("{}: flow default `{k}`: {e}", T::NAME));
                (k.to_string(), v)
            })
            .collect();
        ToolDef {
            name: T::NAME,
            title: T::TITLE,
            description: T::DESCRIPTION,
            policy: T::POLICY,
            hints: T::HINTS,
            routing: T::ROUTING,
            verify: T::VERIFY,
            shorthand: T::SHORTHAND,
            waits_for_target: T::WAITS_FOR_TARGET,
            known_as: T::KNOWN_AS,
            codes: T::CODES,
            input_schema: input,
            result_schema: result,
            flow_defaults,
            looks_first: Box::new(|map| {
                decode::deserialize::<T::Params>(map.clone())
                    .map(|p| T::looks_first(&p))
                    .unwrap_or(false)
            }),
            check: Box::new(|map| T::check(&decode::deserialize(map.clone())?)),
            budget: Box::new(|map, config| {
                let params: T::Params = decode::deserialize(map.clone()).ok()?;
                T::budget_ms(&params, config)
            }),
            run: Box::new(|map, call| {
                let params: T::Params = decode::deserialize(map)?;
                let out = T::run(params, call)?;
                serde_json::to_value(out).map_err(|e| {
                    ToolError::new(
                        tapflow_core::codes::INTERNAL_ERROR,
                        format!("result not serialisable: {e}"),
                    )
                })
            }),
        }
    }

    /// The published input schema (JSON Schema 2020-12, no `$ref`).
    pub fn input_schema(&self) -> &Value {
        &self.input_schema
    }

    /// Flows only: the defaults that differ from a bare call's ([`Tool::FLOW_DEFAULTS`]).
    pub fn flow_defaults(&self) -> &Map<String, Value> {
        &self.flow_defaults
    }

    /// Flows only: whether a step with these arguments (as the plan has them) starts by
    /// looking at the screen ([`Tool::looks_first`]). Arguments known only at run time
    /// (`{{ … }}` where a number is expected) count as not looking.
    pub fn looks_first(&self, args: &Value) -> bool {
        match args {
            Value::Object(map) => (self.looks_first)(map),
            _ => false,
        }
    }

    /// The schema of `structuredContent.result` on success.
    pub fn result_schema(&self) -> &Value {
        &self.result_schema
    }

    /// The parameters a flow may set: the published ones minus the route.
    pub fn flow_params(&self) -> impl Iterator<Item = &str> {
        self.input_schema["properties"]
            .as_object()
            .into_iter()
            .flat_map(|p| p.keys())
            .map(String::as_str)
            .filter(|p| !ROUTING_PARAMS.contains(p))
    }

    /// The published output schema: the envelope's `structuredContent` with the result inside.
    pub fn output_schema(&self) -> Value {
        structured_schema(self.name, self.result_schema.clone())
    }

    /// The entry MCP `tools/list` carries for this tool.
    pub fn mcp_entry(&self) -> Value {
        json!({
            "name": self.name,
            "title": self.title,
            "description": self.description,
            "inputSchema": self.input_schema,
            "outputSchema": self.output_schema(),
            "annotations": {
                "title": self.title,
                "readOnlyHint": self.hints.read_only,
                "destructiveHint": self.hints.destructive,
                "idempotentHint": self.hints.idempotent,
                "openWorldHint": false
            },
            "_meta": { "policy": self.policy }
        })
    }
}

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

/// A type's schema as input (what deserialises), inlined (no `$ref`; MCP clients handle flat
/// schemas best).
pub fn schema_of<T: JsonSchema>() -> Value {
    flat_schema::<T>(SchemaSettings::draft2020_12())
}

/// A type's schema as output (what *serialises*), inlined: a field skipped when empty
/// (`skip_serializing_if`) is optional, a field always written (an `Option` as `null`
/// included) is required. MCP clients validate `structuredContent` against this.
pub fn result_schema_of<T: JsonSchema>() -> Value {
    flat_schema::<T>(SchemaSettings::draft2020_12().for_serialize())
}

fn flat_schema<T: JsonSchema>(settings: SchemaSettings) -> Value {
    let generator = settings
        .with(|s| {
            s.inline_subschemas = true;
        })
        .into_generator();
    let mut v = generator.into_root_schema_for::<T>().to_value();
    if let Value::Object(o) = &mut v {
        o.remove("$schema");
        o.remove("title");
    }
    v
}

fn props(schema: &mut Value) -> &mut Map<String, Value> {
    let obj = schema.as_object_mut().expect("tool schemas are objects");
    obj.entry("type").or_insert(json!("object"));
    obj.entry("properties")
        .or_insert_with(|| json!({}))
        .as_object_mut()
        .expect("properties is an object")
}

fn add_common_inputs(schema: &mut Value, routing: Routing, verify: bool, required: &[&str]) {
    let p = props(schema);
    if routing == Routing::Full {
        p.insert(
            "device_id".into(),
            json!({"type": ["string", "null"], "description": "Target device (serial or connect key); default: the only connected device."}),
        );
    }
    if routing != Routing::None {
        p.insert(
            "hdc_server".into(),
            json!({"type": ["string", "null"], "description": "hdc server / wireless endpoint `IP:port`; default: HARMONYOS_HDC_SERVER, else the local server."}),
        );
    }
    if verify {
        p.insert(
            "verify".into(),
            json!({"type": ["boolean", "null"], "default": false, "description": "Capture cheap post-action evidence (tree digest, node counts, changed_from_before) in `evidence`."}),
        );
    }
    p.insert(
        "include_cost".into(),
        json!({"type": ["boolean", "null"], "default": false, "description": "Add `cost {wall_ms, device_round_trips, ui_dumps}` to the result."}),
    );
    let obj = schema.as_object_mut().expect("object");
    obj.insert("additionalProperties".into(), json!(false));
    if !required.is_empty() {
        obj.insert("required".into(), json!(required));
    } else {
        obj.remove("required");
    }
}

fn add_common_outputs(schema: &mut Value, verify: bool) {
    let p = props(schema);
    if verify {
        p.insert(
            "evidence".into(),
            result_schema_of::<tapflow_device::ui::digest::Evidence>(),
        );
        p.insert(
            "evidence_error".into(),
            json!({"type": "string", "description": "Present with verify when the evidence could not be observed (the action itself was still dispatched)."}),
        );
    }
    p.insert(
        "cost".into(),
        json!({
            "type": "object",
            "description": "Present with include_cost: what the call spent.",
            "properties": {
                "wall_ms": {"type": "integer", "minimum": 0},
                "device_round_trips": {"type": "integer", "minimum": 0},
                "ui_dumps": {"type": "integer", "minimum": 0}
            },
            "required": ["wall_ms", "device_round_trips", "ui_dumps"]
        }),
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    fn walk(v: &Value, f: &mut dyn FnMut(&str, &Value)) {
        match v {
            Value::Object(o) => {
                for (k, x) in o {
                    f(k, x);
                    walk(x, f);
                }
            }
            Value::Array(a) => a.iter().for_each(|x| walk(x, f)),
            _ => {}
        }
    }

    #[test]
    fn result_schemas_describe_what_is_serialised() {
        #[derive(Serialize, schemars::JsonSchema)]
        #[allow(dead_code)]
        struct Out {
            always: String,
            /// Written as null when absent: present in every result.
            nullable: Option<String>,
            #[serde(skip_serializing_if = "Vec::is_empty")]
            only_when_some: Vec<String>,
        }
        let out = result_schema_of::<Out>();
        assert_eq!(out["required"], json!(["always", "nullable"]));
        // Inputs keep the deserialising view: an Option may be left out.
        let input = schema_of::<Out>();
        let req = input["required"].as_array().cloned().unwrap_or_default();
        assert!(!req.contains(&json!("nullable")));

        // logs_query's items skip empty context: the published schema must not require it.
        let e = Engine::new();
        let logs = e.get("logs_query").unwrap().result_schema();
        let item = &logs["properties"]["items"]["items"];
        let required = item["required"].as_array().cloned().unwrap_or_default();
        assert!(
            item["properties"].get("context_before").is_some(),
            "{item:#}"
        );
        assert!(!required.contains(&json!("context_before")), "{item:#}");
    }

    #[test]
    fn published_schemas_are_flat_and_carry_the_common_parameters() {
        let e = Engine::new();
        assert_eq!(e.tools().count(), 22);
        for t in e.tools() {
            let entry = t.mcp_entry();
            walk(&entry, &mut |k, _| {
                assert!(k != "$ref" && k != "$defs", "{}: {k}", t.name)
            });
            let props = &entry["inputSchema"]["properties"];
            assert!(props.get("include_cost").is_some(), "{}", t.name);
            assert_eq!(
                props.get("device_id").is_some(),
                t.routing == Routing::Full,
                "{}",
                t.name
            );
            assert_eq!(props.get("verify").is_some(), t.verify, "{}", t.name);
            assert_eq!(entry["inputSchema"]["additionalProperties"], false);
            assert_eq!(entry["outputSchema"]["properties"]["tool"]["const"], t.name);
            for r in entry["inputSchema"]["required"]
                .as_array()
                .into_iter()
                .flatten()
            {
                assert!(
                    props.get(r.as_str().unwrap()).is_some(),
                    "{}: required {r} is no property",
                    t.name
                );
            }
        }
        let click = e.get("click").unwrap().input_schema();
        assert_eq!(click["properties"]["count"]["enum"], json!([1, 2]));
        assert_eq!(
            click["properties"]["match_mode"]["enum"],
            json!(["exact", "contains", "regex", null])
        );
    }
}
