//! Property (issue 11): for random argument objects drawn from each tool's published schema,
//! valid and invalid, `tapflow validate`'s verdict on a flow step equals the engine's
//! device-free verdict on the call (`Engine::check`, the first thing `Engine::call` does).
//!
//! The engine judges the arguments the flow hands it: when validate accepts, the compiled
//! step's arguments (what `tapflow run` sends, after the documented flow conveniences such as
//! a plain number read as text); when validate refuses, the arguments as written. And when the
//! engine refuses, `Engine::call` refuses with the same code without asking for a device.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, LazyLock};

use proptest::prelude::*;
use serde_json::{Map, Value, json};
use tapflow_core::flow::SourceFile;
use tapflow_core::plan::{Action, MapLoader, PlanOptions, compile};
use tapflow_device::{Device, DeviceError, Target};
use tapflow_tools::RegistryCatalog;
use tapflow_tools::registry::ROUTING_PARAMS;
use tapflow_tools::{DeviceProvider, DeviceRoute, Engine, ToolConfig, ToolContext};

static ENGINE: LazyLock<Arc<Engine>> = LazyLock::new(|| Arc::new(Engine::new()));
static CATALOG: LazyLock<RegistryCatalog> = LazyLock::new(|| RegistryCatalog::new(ENGINE.clone()));

/// Strings that hit the tools' rules (names, paths, keys, times, patterns) and ordinary text.
const TEXTS: &[&str] = &[
    "Login",
    "",
    "  ",
    "Item 4",
    "com.example.app",
    "com.x;reboot",
    "-k",
    "shot.png",
    "shots/login",
    "shot.gif",
    "dir/",
    "Back",
    "KEYCODE_F24",
    "Bakc",
    "2072 2038",
    "page-up",
    "12:00:00",
    "2026-01-02 03:04:05",
    "yesterday",
    "last 5 minutes",
    "app.hap",
    "app.zip",
    "(",
    "Log.*",
    "errors",
    "markers",
    "debug",
    "har",
    "hsp",
    "entry",
    "../etc",
    "E",
    "X",
    "0x3200",
    "EntryAbility",
    "a\u{0}b",
    "中文",
];

/// A value for a schema: usually one it allows, sometimes one it does not.
fn value_for(schema: &Value, depth: u32) -> BoxedStrategy<Value> {
    let valid = valid_for(schema, depth);
    let invalid = invalid_for(schema);
    prop_oneof![4 => valid, 1 => invalid].boxed()
}

fn types(schema: &Value) -> Vec<String> {
    match schema.get("type") {
        Some(Value::String(s)) => vec![s.clone()],
        Some(Value::Array(a)) => a
            .iter()
            .filter_map(Value::as_str)
            .map(str::to_string)
            .collect(),
        _ => Vec::new(),
    }
}

fn valid_for(schema: &Value, depth: u32) -> BoxedStrategy<Value> {
    if let Some(branches) = schema
        .get("anyOf")
        .or_else(|| schema.get("oneOf"))
        .and_then(Value::as_array)
    {
        let options: Vec<BoxedStrategy<Value>> =
            branches.iter().map(|b| valid_for(b, depth)).collect();
        return proptest::strategy::Union::new(options).boxed();
    }
    if let Some(values) = schema.get("enum").and_then(Value::as_array) {
        let values: Vec<Value> = values.iter().filter(|v| !v.is_null()).cloned().collect();
        return prop::sample::select(values).boxed();
    }
    let ts = types(schema);
    let t = ts
        .iter()
        .find(|t| *t != "null")
        .cloned()
        .unwrap_or_default();
    match t.as_str() {
        "integer" | "number" => {
            let mut picks = vec![
                0i64,
                1,
                2,
                5,
                100,
                1000,
                5000,
                30000,
                -1,
                -5,
                99_999_999_999,
            ];
            for k in ["minimum", "maximum"] {
                if let Some(n) = schema.get(k).and_then(Value::as_i64) {
                    picks.extend([n, n.saturating_sub(1), n.saturating_add(1)]);
                }
            }
            prop_oneof![
                prop::sample::select(picks).prop_map(Value::from),
                (0i64..3000).prop_map(Value::from),
            ]
            .boxed()
        }
        "boolean" => any::<bool>().prop_map(Value::from).boxed(),
        "string" => prop_oneof![
            3 => prop::sample::select(TEXTS).prop_map(Value::from),
            1 => "[ -z|~]{0,10}"
                .prop_filter("no templates", |s: &String| !s.contains("{{"))
                .prop_map(Value::from),
        ]
        .boxed(),
        "array" if depth < 2 => {
            let item = schema.get("items").cloned().unwrap_or(json!({}));
            prop::collection::vec(valid_for(&item, depth + 1), 0..4)
                .prop_map(Value::Array)
                .boxed()
        }
        "object" if depth < 2 => {
            let props: Vec<(String, Value)> = schema
                .get("properties")
                .and_then(Value::as_object)
                .map(|p| p.iter().map(|(k, v)| (k.clone(), v.clone())).collect())
                .unwrap_or_default();
            if props.is_empty() {
                return Just(json!({})).boxed();
            }
            let fields: Vec<BoxedStrategy<Option<(String, Value)>>> = props
                .into_iter()
                .map(|(k, v)| {
                    prop::option::weighted(0.8, valid_for(&v, depth + 1))
                        .prop_map(move |x| x.map(|x| (k.clone(), x)))
                        .boxed()
                })
                .collect();
            fields
                .prop_map(|fs| Value::Object(fs.into_iter().flatten().collect()))
                .boxed()
        }
        _ => Just(Value::Null).boxed(),
    }
}

/// A value of a JSON type the schema does not allow (never a plain scalar where text is
/// expected: a flow reads those as text, a documented convenience).
fn invalid_for(schema: &Value) -> BoxedStrategy<Value> {
    let ts = types(schema);
    let allows = |t: &str| ts.iter().any(|x| x == t);
    let mut out: Vec<Value> = vec![json!([1, "a"]), json!({"x": 1})];
    if !allows("string") && schema.get("anyOf").is_none() {
        out.push(json!("not-a-value"));
    }
    if !allows("string") && !allows("number") {
        out.push(json!(1.5));
    }
    if !allows("boolean") && !allows("string") {
        out.push(json!(true));
    }
    let out: Vec<Value> = out
        .into_iter()
        .filter(|v| !((v.is_array() && allows("array")) || (v.is_object() && allows("object"))))
        .collect();
    prop::sample::select(out).boxed()
}

/// A tool and an argument object drawn from its schema.
fn call() -> impl Strategy<Value = (String, Map<String, Value>)> {
    let tools: Vec<BoxedStrategy<(String, Map<String, Value>)>> = ENGINE
        .tools()
        .map(|t| {
            let name = t.name.to_string();
            let props: Vec<(String, Value)> = t.input_schema()["properties"]
                .as_object()
                .unwrap()
                .iter()
                .filter(|(k, _)| !ROUTING_PARAMS.contains(&k.as_str()))
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect();
            let fields: Vec<BoxedStrategy<Option<(String, Value)>>> = props
                .into_iter()
                .map(|(k, v)| {
                    prop::option::weighted(0.35, value_for(&v, 0))
                        .prop_map(move |x| x.map(|x| (k.clone(), x)))
                        .boxed()
                })
                .collect();
            fields
                .prop_map(move |fs| (name.clone(), fs.into_iter().flatten().collect()))
                .boxed()
        })
        .collect();
    proptest::strategy::Union::new(tools)
}

/// A provider without devices that counts requests for one.
#[derive(Default)]
struct Tripwire(AtomicUsize);

impl DeviceProvider for Tripwire {
    fn resolve(&self, _route: &DeviceRoute) -> Result<Arc<dyn Device>, DeviceError> {
        self.0.fetch_add(1, Ordering::SeqCst);
        Err(DeviceError::NotFound {
            serial: "none".into(),
            device_says: String::new(),
        })
    }
    fn targets(&self, _hdc_server: Option<&str>) -> Result<Vec<Target>, DeviceError> {
        self.0.fetch_add(1, Ordering::SeqCst);
        Ok(Vec::new())
    }
}

/// Cases run (a fixed number, so CI is deterministic in cost).
const CASES: u32 = 3000;

/// One case: `Ok(true)` when validate accepted, `Ok(false)` when it refused (and the engine
/// agreed either way).
fn agree(tool: &str, args: Map<String, Value>) -> Result<bool, TestCaseError> {
    let args = Value::Object(args);
    let yaml = format!("steps:\n  - {tool}: {args}\n");
    let c = compile(
        &[SourceFile::new("p.yaml", yaml.clone())],
        &[],
        &*CATALOG,
        &MapLoader::new(),
        &PlanOptions::default(),
    );
    let diags: Vec<String> = c
        .diagnostics
        .iter()
        .map(|d| format!("{}: {}", d.code, d.message))
        .collect();
    if c.has_errors() {
        let verdict = ENGINE.check(tool, args.clone());
        prop_assert!(
            verdict.is_err(),
            "validate refuses what the engine accepts:\n{yaml}{diags:#?}"
        );
        // The call refuses the same way, without a device.
        let wire = Arc::new(Tripwire::default());
        let ctx = ToolContext::new(wire.clone(), ToolConfig::default());
        let env = ENGINE.call(tool, args, &ctx);
        let refused = verdict.unwrap_err();
        prop_assert_eq!(env.error_code(), Some(refused.code.as_str()));
        prop_assert_eq!(
            wire.0.load(Ordering::SeqCst),
            0,
            "{} asked for a device",
            tool
        );
        return Ok(false);
    }
    let step = &c.plan.flows[0].steps[0];
    let Action::Tool {
        tool: planned,
        args: sent,
    } = &step.action
    else {
        panic!("not a tool step: {step:?}");
    };
    prop_assert_eq!(planned, tool);
    let verdict = ENGINE.check(tool, sent.clone());
    prop_assert!(
        verdict.is_ok(),
        "validate accepts what the engine refuses: {:?}\n{}sent: {}",
        verdict.err(),
        yaml,
        sent
    );
    Ok(true)
}

#[test]
fn validate_and_the_engine_agree() {
    let accepted = AtomicUsize::new(0);
    let mut runner = proptest::test_runner::TestRunner::new(ProptestConfig {
        cases: CASES,
        failure_persistence: None,
        ..ProptestConfig::default()
    });
    runner
        .run(&call(), |(tool, args)| {
            if agree(&tool, args)? {
                accepted.fetch_add(1, Ordering::SeqCst);
            }
            Ok(())
        })
        .unwrap();
    // Both verdicts are exercised, for a fair share of the cases.
    let accepted = accepted.load(Ordering::SeqCst) as u32;
    eprintln!("validate accepted {accepted} of {CASES} random calls");
    assert!(
        accepted > CASES / 10 && accepted < CASES * 9 / 10,
        "accepted {accepted} of {CASES}: the generator is lopsided"
    );
}
