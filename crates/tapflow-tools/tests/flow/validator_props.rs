//! Property: on every registry tool's published input schema, the one schema validator
//! (`tapflow_core::schema`, with JSON Schema's own rules) decides as a third-party validator
//! (the `jsonschema` crate) does, for values drawn from the schema: valid ones, near misses
//! (bounds ± 1, values outside an enumeration, unknown and missing properties, nulls) and
//! arbitrary JSON.
//!
//! Left out, each a documented difference: a number with a zero fraction (`1.0`), which JSON
//! Schema counts as an integer and no tool's integer parameter deserialises; integer `format`
//! widths (an annotation for JSON Schema, checked only by the engine's rules).

use std::sync::LazyLock;
use std::sync::atomic::{AtomicU32, Ordering};

use proptest::prelude::*;
use serde_json::{Map, Value, json};
use tapflow_core::schema::{Rules, Validator};
use tapflow_tools::Engine;

static SCHEMAS: LazyLock<Vec<(String, Value)>> = LazyLock::new(|| {
    Engine::new()
        .tools()
        .map(|t| (t.name.to_string(), t.input_schema().clone()))
        .collect()
});

/// A float with a fraction (see the module documentation).
fn fraction() -> impl Strategy<Value = Value> {
    any::<f64>()
        .prop_filter("finite, with a fraction", |f| {
            f.is_finite() && f.fract() != 0.0
        })
        .prop_map(Value::from)
}

fn any_json() -> BoxedStrategy<Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        fraction(),
        "[a-z ]{0,6}".prop_map(Value::from),
    ];
    leaf.prop_recursive(2, 8, 3, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..3).prop_map(Value::Array),
            prop::collection::btree_map("[a-z_]{1,6}", inner, 0..3)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
    .boxed()
}

fn types(schema: &Value) -> Vec<String> {
    match schema.get("type") {
        Some(Value::String(s)) => vec![s.clone()],
        Some(Value::Array(a)) => a
            .iter()
            .filter_map(Value::as_str)
            .map(String::from)
            .collect(),
        _ => Vec::new(),
    }
}

/// A value for `schema`: mostly one of its shapes (valid or a near miss), sometimes anything.
fn value_for(schema: &Value, depth: u32) -> BoxedStrategy<Value> {
    prop_oneof![4 => shaped(schema, depth), 1 => any_json()].boxed()
}

fn shaped(schema: &Value, depth: u32) -> BoxedStrategy<Value> {
    if let Some(branches) = schema.get("anyOf").and_then(Value::as_array) {
        let options: Vec<BoxedStrategy<Value>> =
            branches.iter().map(|b| shaped(b, depth)).collect();
        return proptest::strategy::Union::new(options).boxed();
    }
    if let Some(values) = schema.get("enum").and_then(Value::as_array) {
        let mut picks = values.clone();
        picks.extend([json!("other"), json!(3)]);
        return prop::sample::select(picks).boxed();
    }
    let ts = types(schema);
    let options: Vec<BoxedStrategy<Value>> = ts.iter().map(|t| of_type(schema, t, depth)).collect();
    if options.is_empty() {
        return any_json();
    }
    proptest::strategy::Union::new(options).boxed()
}

fn of_type(schema: &Value, t: &str, depth: u32) -> BoxedStrategy<Value> {
    match t {
        "null" => Just(Value::Null).boxed(),
        "boolean" => any::<bool>().prop_map(Value::from).boxed(),
        "integer" | "number" => {
            let mut picks: Vec<Value> = vec![json!(0), json!(1), json!(-1), json!(u64::MAX)];
            for k in ["minimum", "maximum"] {
                if let Some(n) = schema.get(k).and_then(Value::as_i64) {
                    picks.extend([json!(n - 1), json!(n), json!(n + 1)]);
                }
            }
            prop_oneof![
                3 => prop::sample::select(picks),
                1 => any::<i64>().prop_map(Value::from),
                1 => fraction(),
            ]
            .boxed()
        }
        "string" => "[a-z]{0,5}".prop_map(Value::from).boxed(),
        "array" if depth < 3 => {
            let item = schema.get("items").cloned().unwrap_or(json!({}));
            prop::collection::vec(value_for(&item, depth + 1), 0..3)
                .prop_map(Value::Array)
                .boxed()
        }
        "object" if depth < 3 => object(schema, depth),
        _ => any_json(),
    }
}

/// Each property present or not (required ones too), and now and then one it does not have.
fn object(schema: &Value, depth: u32) -> BoxedStrategy<Value> {
    let props: Vec<(String, Value)> = schema
        .get("properties")
        .and_then(Value::as_object)
        .map(|p| p.iter().map(|(k, v)| (k.clone(), v.clone())).collect())
        .unwrap_or_default();
    let fields: Vec<BoxedStrategy<Option<(String, Value)>>> = props
        .into_iter()
        .map(|(k, v)| {
            prop::option::weighted(0.3, value_for(&v, depth + 1))
                .prop_map(move |x| x.map(|x| (k.clone(), x)))
                .boxed()
        })
        .collect();
    let extra = prop::option::weighted(0.1, ("zz_[a-z]{1,3}", any_json()));
    (fields, extra)
        .prop_map(|(fs, extra)| {
            let mut m: Map<String, Value> = fs.into_iter().flatten().collect();
            if let Some((k, v)) = extra {
                m.insert(k, v);
            }
            Value::Object(m)
        })
        .boxed()
}

fn call() -> impl Strategy<Value = (usize, Value)> {
    let tools: Vec<BoxedStrategy<(usize, Value)>> = SCHEMAS
        .iter()
        .enumerate()
        .map(|(i, (_, schema))| object(schema, 0).prop_map(move |v| (i, v)).boxed())
        .collect();
    proptest::strategy::Union::new(tools)
}

const CASES: u32 = 4000;

#[test]
fn the_validator_decides_as_jsonschema_does() {
    let validators: Vec<jsonschema::Validator> = SCHEMAS
        .iter()
        .map(|(_, s)| jsonschema::validator_for(s).expect("a tool's schema is valid"))
        .collect();
    let accepted = AtomicU32::new(0);
    let mut runner = proptest::test_runner::TestRunner::new(ProptestConfig {
        cases: CASES,
        failure_persistence: None,
        ..ProptestConfig::default()
    });
    runner
        .run(&call(), |(i, args)| {
            let (tool, schema) = &SCHEMAS[i];
            let mut findings = Vec::new();
            Validator::new(schema, Rules::JSON_SCHEMA).value(&args, schema, &mut findings);
            let ours = findings.is_empty();
            let theirs = validators[i].is_valid(&args);
            prop_assert_eq!(
                ours,
                theirs,
                "{} {}: our findings {:#?}",
                tool,
                args,
                findings
            );
            if ours {
                accepted.fetch_add(1, Ordering::Relaxed);
            }
            Ok(())
        })
        .unwrap();
    let accepted = accepted.into_inner();
    eprintln!("both accepted {accepted} of {CASES} generated argument objects");
    assert!(
        accepted > CASES / 10 && accepted < CASES * 9 / 10,
        "accepted {accepted} of {CASES}: the generator is lopsided"
    );
}
