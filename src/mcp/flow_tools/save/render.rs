//! The saved flow as YAML a person would write: a comment saying where it came from and which
//! variables to supply, `name`, `app` (the app the session launched first), the secret
//! variables declared without a value, then one line per step: the tool's shorthand where its
//! arguments are just the parameter a bare value fills (`- click: Login`), else a flow mapping
//! (`- click: {element_id: login}`). Serialised by serde-saphyr, which quotes what YAML needs.

use indexmap::IndexMap;
use serde::Serialize;
use serde_json::{Map, Value};
use serde_saphyr::FlowMap;

use super::convert::Step;
use super::secrets::Secrets;
use tapflow_tools::Engine;

#[derive(Serialize)]
struct Doc {
    name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    app: Option<String>,
    #[serde(skip_serializing_if = "IndexMap::is_empty")]
    env: IndexMap<String, FlowMap<Declared>>,
    steps: Vec<StepOut>,
}

/// A variable declared with no value.
#[derive(Serialize)]
struct Declared {
    secret: bool,
}

#[derive(Serialize)]
#[serde(untagged)]
enum StepOut {
    /// A tool without arguments: `- wait_for_stable`.
    Bare(String),
    /// `- tool: value` (shorthand) or `- tool: {…}`.
    Tool(IndexMap<String, Args>),
}

#[derive(Serialize)]
#[serde(untagged)]
enum Args {
    Short(Value),
    Map(FlowMap<Map<String, Value>>),
}

/// The flow file's text.
pub fn flow(
    name: &str,
    steps: &[Step],
    secrets: &Secrets,
    engine: &Engine,
) -> Result<String, serde_saphyr::SerializeError> {
    let app = steps
        .iter()
        .find(|s| s.tool == "run_app")
        .and_then(|s| s.args.get("bundle_name"))
        .and_then(Value::as_str)
        .map(str::to_string);
    let doc = Doc {
        name: name.to_string(),
        app,
        env: secrets
            .names()
            .map(|n| (n.to_string(), FlowMap(Declared { secret: true })))
            .collect(),
        steps: steps.iter().map(|s| step(s, secrets, engine)).collect(),
    };
    let mut out = String::from(
        "# Saved by tapflow `save_flow` from an MCP session: its successful actions and waits.\n",
    );
    if let (Some(first), Some(last)) = (steps.first(), steps.last()) {
        out.push_str(&format!(
            "# Session calls {}..{}; check it with `tapflow validate`, run it with `tapflow run`.\n",
            first.call, last.call
        ));
    }
    for n in secrets.names() {
        out.push_str(&format!(
            "# {n} is a secret typed in the session, never written here: supply it with `--env {n}=…` or TAPFLOW_{n}.\n"
        ));
    }
    out.push_str(&serde_saphyr::to_string(&doc)?);
    Ok(out)
}

fn step(s: &Step, secrets: &Secrets, engine: &Engine) -> StepOut {
    let args: Map<String, Value> = s
        .args
        .iter()
        .map(|(k, v)| (k.clone(), template(v, secrets)))
        .collect();
    if args.is_empty() {
        return StepOut::Bare(s.tool.clone());
    }
    let short = engine.get(&s.tool).and_then(|d| d.flow.shorthand);
    let body = match (short, args.len()) {
        (Some(k), 1) if args.get(k).is_some_and(Value::is_string) => Args::Short(args[k].clone()),
        _ => Args::Map(FlowMap(args)),
    };
    StepOut::Tool(IndexMap::from([(s.tool.clone(), body)]))
}

/// Every string inside `v` as flow text (secrets as references, other `{{` escaped).
fn template(v: &Value, secrets: &Secrets) -> Value {
    match v {
        Value::String(t) => Value::String(secrets.template(t)),
        Value::Array(a) => Value::Array(a.iter().map(|x| template(x, secrets)).collect()),
        Value::Object(o) => Value::Object(
            o.iter()
                .map(|(k, x)| (k.clone(), template(x, secrets)))
                .collect(),
        ),
        other => other.clone(),
    }
}
