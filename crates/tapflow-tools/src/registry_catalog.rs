//! The planner's view of the tool registry ([`Engine`]): the catalog flows are validated and
//! compiled against. Everything comes from the tools' own declarations: names, input schemas,
//! defaults, result fields, flow shorthands, other runners' names, time budgets, and the
//! device-free rules, which are [`Engine::check`] itself, the very function [`Engine::call`]
//! runs before anything else. So `tapflow validate` accepts exactly what the tools accept
//! (before they need a device), and a tool the registry does not have is unknown to flows.
//!
//! One thing is the planner's own: a value that is only known at run time (a string still
//! holding `{{ … }}`) cannot be judged now. The rules run with a stand-in of the right type in
//! its place, and a complaint about that very parameter waits for the run (where the engine
//! judges the resolved value).

use std::sync::Arc;

use serde_json::{Map, Value};

use crate::registry::{EXTRA_PARAMS, ROUTING_PARAMS};
use crate::{Engine, ToolConfig};
use tapflow_core::plan::{StaticIssue, ToolCatalog};

/// See the module documentation.
///
/// Compiling the planner's benchmark corpus against the registry:
///
/// ```
/// use tapflow_core::plan::{PlanOptions, compile, corpus};
/// use tapflow_tools::RegistryCatalog;
/// let (flows, loader) = corpus::sample(200);
/// let compiled = compile(&flows, &[], &RegistryCatalog::builtin(), &loader, &PlanOptions::default());
/// assert!(!compiled.has_errors());
/// assert_eq!(compiled.plan.flows.len(), 200);
/// ```
pub struct RegistryCatalog {
    engine: Arc<Engine>,
    /// The settings the tools' time budgets read (`build_app`'s build timeout, …).
    config: ToolConfig,
    result_fields: std::collections::BTreeMap<&'static str, Vec<String>>,
}

impl RegistryCatalog {
    /// The catalog over `engine`, with default tool settings for the time budgets.
    pub fn new(engine: Arc<Engine>) -> Self {
        Self::with_config(engine, ToolConfig::default())
    }

    /// The catalog over the built-in tools ([`Engine::new`]), with default settings: what
    /// `tapflow validate` checks against.
    pub fn builtin() -> Self {
        Self::new(Arc::new(Engine::new()))
    }

    /// The catalog over `engine`, with the tool settings the run will use (so a step's default
    /// deadline covers, e.g., a configured `build_app` timeout).
    pub fn with_config(engine: Arc<Engine>, config: ToolConfig) -> Self {
        let result_fields = engine
            .tools()
            .map(|t| {
                let fields = t
                    .result_schema()
                    .get("properties")
                    .and_then(Value::as_object)
                    .map(|p| p.keys().cloned().collect())
                    .unwrap_or_default();
                (t.name, fields)
            })
            .collect();
        RegistryCatalog {
            engine,
            config,
            result_fields,
        }
    }

    /// The engine this catalog reads.
    pub fn engine(&self) -> &Arc<Engine> {
        &self.engine
    }
}

impl ToolCatalog for RegistryCatalog {
    fn tool_names(&self) -> Vec<&str> {
        self.engine.tools().map(|t| t.name).collect()
    }

    fn input_schema(&self, tool: &str) -> Option<&Value> {
        self.engine.get(tool).map(|t| t.input_schema())
    }

    fn check_static(&self, tool: &str, args: &Value) -> Vec<StaticIssue> {
        let Some(def) = self.engine.get(tool) else {
            return Vec::new();
        };
        let (args, pending) = stand_ins(args, def.input_schema());
        match self.engine.check(tool, args) {
            Ok(_) => Vec::new(),
            Err(e) if e.param().is_some_and(|p| pending.iter().any(|x| x == p)) => Vec::new(),
            Err(e) => {
                let suggestion = e
                    .details
                    .get("suggestion")
                    .and_then(Value::as_str)
                    .map(str::to_string);
                vec![StaticIssue {
                    param: e.param().map(str::to_string),
                    code: e.code,
                    message: e.message,
                    suggestion,
                }]
            }
        }
    }

    fn defaults(&self, tool: &str) -> Value {
        let mut out = Map::new();
        if let Some(props) = self
            .input_schema(tool)
            .and_then(|s| s.get("properties"))
            .and_then(Value::as_object)
        {
            for (name, p) in props {
                if ROUTING_PARAMS.contains(&name.as_str()) || EXTRA_PARAMS.contains(&name.as_str())
                {
                    continue;
                }
                if let Some(d) = p.get("default")
                    && !d.is_null()
                {
                    out.insert(name.clone(), d.clone());
                }
            }
        }
        // A flow step's own defaults where they differ from a bare call's.
        if let Some(def) = self.engine.get(tool) {
            for (k, v) in def.flow.defaults() {
                out.insert(k.clone(), v.clone());
            }
        }
        Value::Object(out)
    }

    fn scalar_shorthand(&self, tool: &str) -> Option<&str> {
        self.engine.get(tool).and_then(|t| t.flow.shorthand)
    }

    fn description(&self, tool: &str) -> Option<&str> {
        self.engine.get(tool).map(|t| t.description)
    }

    fn known_as(&self, name: &str) -> Option<(&str, &str)> {
        self.engine.tools().find_map(|t| {
            t.flow
                .known_as
                .iter()
                .find(|(other, _)| *other == name)
                .map(|(_, note)| (t.name, *note))
        })
    }

    fn known_as_of(&self, tool: &str) -> Vec<(&str, &str)> {
        self.engine
            .get(tool)
            .map(|t| t.flow.known_as.to_vec())
            .unwrap_or_default()
    }

    fn budget_ms(&self, tool: &str, args: &Value) -> Option<u64> {
        let (args, _) = stand_ins(args, self.input_schema(tool)?);
        let checked = self.engine.check(tool, args).ok()?;
        self.engine.budget_ms(tool, &checked.params, &self.config)
    }

    fn result_fields(&self, tool: &str) -> Option<Vec<&str>> {
        self.result_fields
            .get(tool)
            .filter(|f| !f.is_empty())
            .map(|f| f.iter().map(String::as_str).collect())
    }

    fn waits_for_target(&self, tool: &str) -> bool {
        self.engine
            .get(tool)
            .is_some_and(|t| t.flow.waits_for_target)
    }

    fn run_level_params(&self) -> Vec<&str> {
        ROUTING_PARAMS.to_vec()
    }
}

/// `args` with every value only known at run time (a string holding `{{`) replaced by a
/// stand-in the parameter's schema accepts (the string itself where a string is allowed, else
/// the default, the first allowed value, the minimum, zero, false, …), and the names of those
/// parameters.
fn stand_ins(args: &Value, schema: &Value) -> (Value, Vec<String>) {
    let Value::Object(map) = args else {
        return (args.clone(), Vec::new());
    };
    let props = schema.get("properties").and_then(Value::as_object);
    let mut pending = Vec::new();
    let mut out = Map::new();
    for (name, v) in map {
        let templated = v.as_str().is_some_and(|s| s.contains("{{"));
        if !templated {
            out.insert(name.clone(), v.clone());
            continue;
        }
        pending.push(name.clone());
        let stand_in = props
            .and_then(|p| p.get(name))
            .map_or_else(|| v.clone(), |p| stand_in(p, v));
        out.insert(name.clone(), stand_in);
    }
    (Value::Object(out), pending)
}

fn stand_in(schema: &Value, original: &Value) -> Value {
    let branches: Vec<&Value> = match schema
        .get("anyOf")
        .or_else(|| schema.get("oneOf"))
        .and_then(Value::as_array)
    {
        Some(b) => b.iter().collect(),
        None => vec![schema],
    };
    let types: Vec<&str> = branches
        .iter()
        .flat_map(|b| match b.get("type") {
            Some(Value::String(t)) => vec![t.as_str()],
            Some(Value::Array(a)) => a.iter().filter_map(Value::as_str).collect(),
            _ => Vec::new(),
        })
        .collect();
    if types.contains(&"string") && !branches.iter().any(|b| b.get("enum").is_some()) {
        return original.clone();
    }
    if let Some(d) = schema.get("default").filter(|d| !d.is_null()) {
        return d.clone();
    }
    for b in &branches {
        if let Some(first) = b
            .get("enum")
            .and_then(Value::as_array)
            .and_then(|e| e.iter().find(|v| !v.is_null()))
        {
            return first.clone();
        }
        if let Some(c) = b.get("const") {
            return c.clone();
        }
    }
    let minimum = branches.iter().find_map(|b| b.get("minimum")).cloned();
    match types.iter().find(|t| **t != "null") {
        Some(&"integer") | Some(&"number") => minimum.unwrap_or(Value::from(0)),
        Some(&"boolean") => Value::Bool(false),
        Some(&"array") => Value::Array(Vec::new()),
        Some(&"object") => Value::Object(Map::new()),
        _ => original.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn cat() -> RegistryCatalog {
        RegistryCatalog::new(Arc::new(Engine::new()))
    }

    #[test]
    fn validate_accepts_every_key_the_tool_sends_and_nothing_else() {
        let c = cat();
        for k in crate::press_key::keys::all() {
            let args = json!({ "key": k.name });
            let issues = c.check_static("press_key", &args);
            assert_eq!(issues.is_empty(), k.code >= 0, "{}: {issues:?}", k.name);
        }
        // The reference's own examples.
        for key in [
            json!("KEYCODE_F24"),
            json!("page-up"),
            json!("Home"),
            json!(2068),
        ] {
            assert!(
                c.check_static("press_key", &json!({ "key": key }))
                    .is_empty()
            );
        }
        let issues = c.check_static("press_key", &json!({"key": "Bakc"}));
        assert_eq!(issues.len(), 1);
        assert_eq!(issues[0].code, "INVALID_KEY");
        assert_eq!(issues[0].param.as_deref(), Some("key"));
        assert!(format!("{issues:?}").contains("KEYCODE_BACK"), "{issues:?}");
        assert_eq!(
            c.check_static("press_key", &json!({"key": "2072 2038"}))
                .len(),
            1
        );
        assert_eq!(c.check_static("press_key", &json!({"key": 99999})).len(), 1);
        assert!(
            c.check_static("press_key", &json!({"key": "{{ KEY }}"}))
                .is_empty()
        );
    }

    #[test]
    fn every_registered_tool_is_named_with_its_schema() {
        let c = cat();
        let engine = Engine::new();
        for t in engine.tools() {
            assert!(c.tool_names().contains(&t.name));
            assert_eq!(c.input_schema(t.name), Some(t.input_schema()));
        }
    }

    #[test]
    fn unregistered_tools_are_unknown() {
        let c = cat();
        assert!(c.input_schema("no_such_tool").is_none());
        assert!(!c.tool_names().contains(&"no_such_tool"));
        assert!(c.check_static("no_such_tool", &json!({})).is_empty());
    }

    #[test]
    fn shorthands_and_other_names_are_the_tools_declarations() {
        let c = cat();
        for t in Engine::new().tools() {
            assert_eq!(c.scalar_shorthand(t.name), t.flow.shorthand);
            for (other, note) in t.flow.known_as {
                assert_eq!(c.known_as(other), Some((t.name, *note)));
            }
        }
        assert_eq!(c.known_as("click"), None);
    }

    #[test]
    fn defaults_skip_the_registrys_own_parameters() {
        let d = cat().defaults("wait_for_element");
        assert!(d.get("include_cost").is_none());
        assert!(d.get("timeout_ms").is_some(), "{d}");
        assert!(cat().defaults("click").get("verify").is_none());
    }

    #[test]
    fn result_fields_come_from_the_result_schema() {
        let c = cat();
        let f = c.result_fields("wait_for_element").unwrap();
        assert!(f.contains(&"satisfied"));
    }

    #[test]
    fn values_known_at_run_time_wait_for_the_run() {
        let c = cat();
        // A templated coordinate: its range is judged at run time, the conflict now.
        assert!(
            c.check_static("click", &json!({"x": "{{ X }}", "y": 5}))
                .is_empty()
        );
        let i = c.check_static("click", &json!({"x": "{{ X }}", "y": 5, "text": "a"}));
        assert_eq!(i[0].code, "PARAM_CONFLICT");
        assert_eq!(i[0].param.as_deref(), Some("text"));
        assert!(
            c.check_static("swipe", &json!({"direction": "{{ D }}", "speed": 600}))
                .is_empty()
        );
        assert!(
            c.check_static("screenshot", &json!({"local_path": "{{ NAME }}.gif"}))
                .is_empty()
        );
    }

    #[test]
    fn budgets_come_from_the_tools_own_timeouts() {
        let c = cat();
        assert_eq!(
            c.budget_ms(
                "wait_for_element",
                &json!({"text": "a", "timeout_ms": 9000})
            ),
            Some(9000)
        );
        assert_eq!(
            c.budget_ms("build_app", &json!({"project_path": "."})),
            Some(600_000)
        );
        assert_eq!(
            c.budget_ms(
                "run_app",
                &json!({"bundle_name": "a.b", "window_timeout_ms": 60000})
            ),
            Some(60_000)
        );
        assert_eq!(c.budget_ms("click", &json!({"text": "a"})), None);
    }
}

/// The planner against the registry: what `tapflow-core` cannot test on its own, since the
/// registry sits one crate up.
#[cfg(test)]
mod plan_tests {
    use crate::RegistryCatalog;
    use tapflow_core::flow::SourceFile;
    use tapflow_core::plan::{Action, MapLoader, PlanOptions, compile};

    /// A secret variable of a sub-flow called with different values gets one reference per
    /// value (`P`, `P__2`, …), reused when a value comes again; a variable really named
    /// `P__2` is not overwritten.
    #[test]
    fn each_secret_value_gets_one_reference() {
        let loader = MapLoader::new().with(
            "s.yaml",
            "env:\n  P: {secret: true}\nsteps:\n  - input_text: {element_id: a, text: \"{{ P }}\"}\n",
        );
        let flow = "env:\n  P__2: {default: x, secret: true}\nsteps:\n  - input_text: {element_id: a, text: \"{{ P__2 }}\"}\n  - run_flow: {file: s.yaml, env: {P: one}}\n  - run_flow: {file: s.yaml, env: {P: two}}\n  - run_flow: {file: s.yaml, env: {P: one}}\n  - run_flow: {file: s.yaml, env: {P: three}}\n";
        let c = compile(
            &[SourceFile::new("f.yaml", flow)],
            &[],
            &RegistryCatalog::builtin(),
            &loader,
            &PlanOptions::default(),
        );
        assert!(!c.has_errors(), "{:?}", c.diagnostics);
        let f = &c.plan.flows[0];
        let typed: Vec<String> = f.steps[1..]
            .iter()
            .map(|s| match &s.action {
                Action::SubFlow { steps, .. } => match &steps[0].action {
                    Action::Tool { args, .. } => args["text"].as_str().unwrap().to_string(),
                    other => panic!("{other:?}"),
                },
                other => panic!("{other:?}"),
            })
            .collect();
        assert_eq!(typed, ["{{ P }}", "{{ P__3 }}", "{{ P }}", "{{ P__4 }}"]);
        assert_eq!(f.secret("P"), Some("one"));
        assert_eq!(f.secret("P__2"), Some("x"));
        assert_eq!(f.secret("P__3"), Some("two"));
        assert_eq!(f.secret("P__4"), Some("three"));
    }
}
