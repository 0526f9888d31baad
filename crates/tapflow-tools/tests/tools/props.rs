//! Property: whatever arguments an agent sends, every tool answers with a schema-valid envelope
//! and never with INTERNAL_ERROR (a panic caught by the engine); INVALID_PARAM always names the
//! parameter.

use crate::common::fake_device;

use proptest::prelude::*;
use serde_json::{Map, Value, json};
use tapflow_tools::{Engine, ToolConfig, ToolContext};

fn value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        (-5i64..3000).prop_map(Value::from),
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(Value::from),
        "[ -~]{0,12}".prop_map(Value::from),
        prop::sample::select(vec![
            "Login",
            "Item",
            "Button",
            "up",
            "found",
            "gone",
            "Ctrl",
            "V",
            "regex",
            "(",
            "com.example.demo",
            "main_ability",
            "x.png"
        ])
        .prop_map(Value::from),
    ];
    leaf.prop_recursive(2, 8, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::btree_map("[a-z_]{1,8}", inner, 0..4)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

fn call_strategy() -> impl Strategy<Value = (String, Map<String, Value>)> {
    let engine = Engine::new();
    let tools: Vec<(String, Vec<String>)> = engine
        .tools()
        .map(|t| {
            let props = t.input_schema()["properties"]
                .as_object()
                .unwrap()
                .keys()
                .cloned()
                .collect();
            (t.name.to_string(), props)
        })
        .collect();
    prop::sample::select(tools).prop_flat_map(|(name, props)| {
        let props = props.clone();
        prop::collection::vec((prop::sample::select(props), value()), 0..5).prop_map(move |kv| {
            let mut m = Map::new();
            for (k, v) in kv {
                // Keep waits short: the property is about decoding, not patience.
                let v = if k.contains("timeout") || k == "quiet_ms" || k == "interval_ms" {
                    json!(v.as_i64().map(|n| n.clamp(-1, 30)).unwrap_or(0))
                } else if k == "max_swipes" {
                    json!(v.as_i64().map(|n| n.clamp(-1, 2)).unwrap_or(0))
                } else {
                    v
                };
                m.insert(k, v);
            }
            (name.clone(), m)
        })
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]
    #[test]
    fn any_arguments_give_a_valid_envelope((tool, args) in call_strategy()) {
        let dev = fake_device::FakeDevice::new("P1");
        let tmp = tempfile::tempdir().unwrap();
        let ctx = ToolContext::new(
            fake_device::FakeProvider::new(vec![dev]),
            ToolConfig {
                screenshots_dir: tmp.path().join("s"),
                launch_verify_timeout_ms: 20,
                ..ToolConfig::rooted_at(tmp.path())
            },
        );
        let engine = Engine::new();
        let env = engine.call(&tool, Value::Object(args.clone()), &ctx);
        let v = env.to_value();
        prop_assert_ne!(env.error_code(), Some("INTERNAL_ERROR"), "{} {:?}: {:?}", tool, args, env.structured.error);
        if let Some(err) = &env.structured.error
            && err.code == "INVALID_PARAM"
        {
            prop_assert!(err.details["param"].is_string(), "{} {:?}: INVALID_PARAM names no parameter: {:?}", tool, args, err);
        }
        let schema = engine.get(&tool).unwrap().output_schema();
        prop_assert!(jsonschema::is_valid(&schema, &v["structuredContent"]), "{} {:?}: {}", tool, args, v);
    }
}
