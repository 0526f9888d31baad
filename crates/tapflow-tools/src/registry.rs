//! The tool registry and the engine: every tool is one [`Tool`] implementation, erased into a
//! [`ToolDef`] (name, schemas, policy, flow hooks, device-free rules, time budget, runner).
//! [`Engine::call`] is the single entry point the flow runner, the MCP server and the CLI use:
//! decode → the tool's device-free rules ([`Engine::check`]) → run → envelope. `tapflow validate`
//! runs exactly [`Engine::check`] too (through `RegistryCatalog`), so a flow that validates
//! is never refused by a tool before it reaches the device.
//!
//! Parameters every device tool shares (`device_id`, `hdc_server`), the opt-in extras
//! (`include_cost` on every tool, `verify` on UI actions) are handled here, once, and injected
//! into every input schema (the published one, [`publish`], leaves `include_cost` out).

mod engine;
pub mod publish;
mod schema;

use schemars::JsonSchema;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value, json};

use crate::config::ToolConfig;
use crate::context::Call;
use crate::decode::{self, FieldCodes};
use crate::envelope::{ToolError, structured_schema};
use crate::flow_hooks::{FlowDef, FlowHooks};
use crate::policy::{Hints, Policy};
pub use engine::{Checked, Engine};
use schema::{add_common_inputs, add_common_outputs};
pub use schema::{result_schema_of, schema_of};

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

/// How a result too big for a model's context is summed up (MCP `response_level: digest`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Digest {
    /// The result is a UI tree: counts, the first actionable elements with their handles. A
    /// whole tree rarely fits a model's context, so MCP answers with the digest by default.
    Tree,
    /// The result is a summary with bulky parts (lists, paths): the digest keeps only these
    /// top-level fields.
    Fields(&'static [&'static str]),
    /// The result lists its entries in `field`: the count and the first entries, each with only
    /// the `keep` fields (all of them when `keep` is empty).
    List {
        field: &'static str,
        keep: &'static [&'static str],
    },
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
    /// How its result is summed up for a model (`None`: it is small already).
    const DIGEST: Option<Digest> = None;
    /// In MCP's default `core` tool profile: what an agent drives an app with (find, act,
    /// confirm, logs, flows; docs/mcp.md). The others are served with `--tools all`.
    const CORE: bool = false;
    /// Only HarmonyOS devices can do it (an Android server does not serve it).
    const HARMONYOS_ONLY: bool = false;
    /// What a flow step may do beyond the bare call ([`FlowHooks`]; nothing by default).
    const FLOW: FlowHooks<Self::Params> = FlowHooks::NONE;

    type Params: DeserializeOwned + JsonSchema;
    type Output: Serialize + JsonSchema;

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

    /// The outcome of a successful call in a few words, from its result as serialised
    /// (`3 elements found`), for a model that reads only the text of an MCP result; `None`:
    /// the generic words (what `verified` says).
    fn headline(_result: &Value) -> Option<String> {
        None
    }
}

type Runner =
    Box<dyn Fn(Map<String, Value>, &mut Call<'_>) -> Result<Value, ToolError> + Send + Sync>;
type Checker = Box<dyn Fn(&Map<String, Value>) -> Result<(), ToolError> + Send + Sync>;
type Budget = Box<dyn Fn(&Map<String, Value>, &ToolConfig) -> Option<u64> + Send + Sync>;

/// The parameters the registry adds to every device tool: the route (chosen by whoever runs
/// the call; a flow never sets them).
pub const ROUTING_PARAMS: &[&str] = &["device_id", "hdc_server"];
/// The opt-in extra every tool takes: its cost accounting in the result.
pub const INCLUDE_COST: &str = "include_cost";
/// The opt-in extras the registry adds (`include_cost` everywhere, `verify` on UI actions).
pub const EXTRA_PARAMS: &[&str] = &[INCLUDE_COST, "verify"];

/// A tool with its types erased, as the registry holds it.
pub struct ToolDef {
    pub name: &'static str,
    pub title: &'static str,
    pub description: &'static str,
    pub policy: Policy,
    pub hints: Hints,
    pub routing: Routing,
    pub verify: bool,
    /// How its result is summed up for a model ([`Tool::DIGEST`]).
    pub digest: Option<Digest>,
    /// Its outcome in words ([`Tool::headline`]).
    pub headline: fn(&Value) -> Option<String>,
    /// In MCP's `core` profile ([`Tool::CORE`]).
    pub core: bool,
    /// HarmonyOS devices only ([`Tool::HARMONYOS_ONLY`]).
    pub harmonyos_only: bool,
    /// What a flow step may do beyond the bare call.
    pub flow: FlowDef,
    codes: FieldCodes,
    input_schema: Value,
    result_schema: Value,
    /// What `tools/list` carries ([`publish`]): same parameters, sized for a model.
    published_input: Value,
    check: Checker,
    budget: Budget,
    run: Runner,
}

impl ToolDef {
    pub fn of<T: Tool>() -> Self {
        let mut input = schema_of::<T::Params>();
        add_common_inputs(&mut input, T::ROUTING, T::VERIFY, T::REQUIRED);
        let mut published_input = publish::input_of::<T::Params>();
        add_common_inputs(&mut published_input, T::ROUTING, T::VERIFY, T::REQUIRED);
        // Accepted, not advertised: a model has no use for it (MCP's `response_level: full`
        // adds the cost where a result is big enough to cost something).
        published_input["properties"]
            .as_object_mut()
            .map(|p| p.remove(INCLUDE_COST));
        publish::compact_input(&mut published_input);
        let mut result = result_schema_of::<T::Output>();
        add_common_outputs(&mut result, T::VERIFY);
        let flow = FlowDef::of::<T>(&input);
        ToolDef {
            name: T::NAME,
            title: T::TITLE,
            description: T::DESCRIPTION,
            policy: T::POLICY,
            hints: T::HINTS,
            routing: T::ROUTING,
            verify: T::VERIFY,
            digest: T::DIGEST,
            headline: T::headline,
            core: T::CORE,
            harmonyos_only: T::HARMONYOS_ONLY,
            flow,
            codes: T::CODES,
            input_schema: input,
            result_schema: result,
            published_input,
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

    /// The exact input schema (JSON Schema 2020-12, flat: no `$ref`): what the engine, the
    /// flow compiler and docs/tools.md read.
    pub fn input_schema(&self) -> &Value {
        &self.input_schema
    }

    /// The input schema `tools/list` publishes ([`publish`]): `$defs` for repeated types, no
    /// `null` in optional parameters, standard formats only.
    pub fn published_input(&self) -> &Value {
        &self.published_input
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

    /// The entry MCP `tools/list` carries for this tool (published schemas, [`publish`]).
    pub fn mcp_entry(&self) -> Value {
        let output = publish::envelope_output(self.output_schema());
        json!({
            "name": self.name,
            "title": self.title,
            "description": self.description,
            "inputSchema": self.published_input,
            "outputSchema": output,
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
    fn exact_schemas_are_flat_and_published_ones_resolve_and_carry_the_common_parameters() {
        let e = Engine::new();
        assert_eq!(e.tools().count(), 22);
        for t in e.tools() {
            walk(t.input_schema(), &mut |k, _| {
                assert!(k != "$ref" && k != "$defs", "{}: {k}", t.name)
            });
            let entry = t.mcp_entry();
            let input = &entry["inputSchema"];
            walk(input, &mut |k, v| match k {
                "$ref" => {
                    let name = v.as_str().unwrap().strip_prefix("#/$defs/").unwrap();
                    assert!(input["$defs"].get(name).is_some(), "{}: {v}", t.name);
                }
                "type" => assert!(!v.to_string().contains("null"), "{}: {v}", t.name),
                "format" => panic!("{}: format {v} in the published input", t.name),
                _ => {}
            });
            let props = &entry["inputSchema"]["properties"];
            assert!(t.input_schema()["properties"].get("include_cost").is_some());
            assert!(props.get("include_cost").is_none(), "{}", t.name);
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
