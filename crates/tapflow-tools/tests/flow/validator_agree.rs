//! The two front ends of the one schema validator (`tapflow_core::schema`) judge the same
//! arguments alike: the flow compiler's (`SchemaCheck`, a step's YAML) and the engine's
//! (`decode::check`, a call's JSON). One table of (schema, arguments, verdict); a row where they
//! differ says why, and each reason is a documented rule of one of them. A new front end, or a
//! change to one, that drifts from the other fails here.

use serde_json::{Value, json};
use tapflow_core::flow::yaml;
use tapflow_core::flow::{Diagnostic, SourceFile};
use tapflow_core::plan::schema_check::SchemaCheck;
use tapflow_tools::Engine;
use tapflow_tools::decode::{self, FieldCodes};

/// What both front ends say, or what each says and why they differ.
enum Verdict {
    Both(bool),
    Differ {
        engine: bool,
        flow: bool,
        why: &'static str,
    },
}
use Verdict::*;

const TEXT_READ_AS_TEXT: &str = "a flow reads a plain scalar as text where text is expected";
const RUN_TIME: &str = "a flow's `{{ … }}` reference is judged once resolved, at run time";
const WIDTH: &str = "integer widths are the engine's (validate runs its check next)";
const NESTED: &str = "the engine leaves a nested object's fields to its deserialiser";

/// schemars' own style (not inlined): `$ref` into `$defs`, documented variants as `oneOf`.
fn refs_schema() -> Value {
    json!({
        "type": "object",
        "additionalProperties": false,
        "properties": {
            "mode": {"$ref": "#/$defs/Mode"},
            "pair": {"type": "array", "items": {"$ref": "#/$defs/Mode"}}
        },
        "$defs": {"Mode": {"oneOf": [
            {"const": "fast", "description": "quick"},
            {"const": "slow", "description": "careful"}
        ]}}
    })
}

fn table() -> Vec<(&'static str, Value, Verdict)> {
    vec![
        ("wait_for_element", json!({}), Both(true)),
        (
            "wait_for_element",
            json!({"text": "Login", "state": "gone", "timeout_ms": 500}),
            Both(true),
        ),
        ("wait_for_element", json!({"state": "present"}), Both(false)),
        ("wait_for_element", json!({"timeout_ms": -1}), Both(false)),
        (
            "wait_for_element",
            json!({"timeout_ms": "500"}),
            Both(false),
        ),
        ("wait_for_element", json!({"timeout_ms": 1.5}), Both(false)),
        // `null` is "not given" for a parameter the tool has, refused for any other.
        (
            "wait_for_element",
            json!({"text": null, "state": null}),
            Both(true),
        ),
        ("wait_for_element", json!({"txt": "Login"}), Both(false)),
        ("wait_for_element", json!({"txt": null}), Both(false)),
        (
            "wait_for_element",
            json!({"match_mode": "regex"}),
            Both(true),
        ),
        (
            "wait_for_element",
            json!({"match_mode": "fuzzy"}),
            Both(false),
        ),
        (
            "wait_for_element",
            json!({"below": {"text": "Name"}}),
            Both(true),
        ),
        ("wait_for_element", json!({"below": "Name"}), Both(false)),
        (
            "wait_for_element",
            json!({"window_id": 9_223_372_036_854_775_807i64}),
            Both(true),
        ),
        ("press_key", json!({"key": "Back"}), Both(true)),
        ("press_key", json!({"key": 4}), Both(true)),
        ("press_key", json!({"key": {"code": 4}}), Both(false)),
        (
            "press_key",
            json!({"key": true}),
            Differ {
                engine: false,
                flow: true,
                why: TEXT_READ_AS_TEXT,
            },
        ),
        ("press_key", json!({"key": [1]}), Both(false)),
        (
            "press_key",
            json!({"key": "V", "modifiers": ["Ctrl", "Shift"]}),
            Both(true),
        ),
        ("press_key", json!({"modifiers": ["Hyper"]}), Both(false)),
        ("press_key", json!({"modifiers": "Ctrl"}), Both(false)),
        ("logs_query", json!({"lines": 0}), Both(false)),
        ("logs_query", json!({"lines": 10_000}), Both(true)),
        ("logs_query", json!({"lines": 10_001}), Both(false)),
        ("logs_query", json!({"logs": ["a", [1]]}), Both(false)),
        ("swipe", json!({"speed": 199}), Both(false)),
        ("swipe", json!({"direction": "up"}), Both(true)),
        ("swipe", json!({"direction": "sideways"}), Both(false)),
        ("click", json!({"count": 2}), Both(true)),
        ("click", json!({"count": 3}), Both(false)),
        (
            "refs",
            json!({"mode": "fast", "pair": ["slow"]}),
            Both(true),
        ),
        ("refs", json!({"mode": "fats"}), Both(false)),
        ("refs", json!({"pair": ["fast", 1]}), Both(false)),
        ("refs", json!({"mode": null}), Both(true)),
        (
            "wait_for_element",
            json!({"text": 7}),
            Differ {
                engine: false,
                flow: true,
                why: TEXT_READ_AS_TEXT,
            },
        ),
        (
            "wait_for_element",
            json!({"timeout_ms": "{{ steps.a.result.ms }}"}),
            Differ {
                engine: false,
                flow: true,
                why: RUN_TIME,
            },
        ),
        (
            "click",
            json!({"x": 3_000_000_000u64}),
            Differ {
                engine: false,
                flow: true,
                why: WIDTH,
            },
        ),
        (
            "click",
            json!({"below": {"txt": "Name"}}),
            Differ {
                engine: true,
                flow: false,
                why: NESTED,
            },
        ),
    ]
}

/// The flow's verdict: the step's arguments (JSON is YAML) through `SchemaCheck::params`, as
/// the compiler calls it. Returns the diagnostics and the arguments converted to JSON.
fn flow(schema: &Value, args: &Value) -> (Vec<Diagnostic>, Value) {
    let src = SourceFile::new("t.yaml", format!("{args}\n"));
    let node = yaml::parse(&src).expect("JSON is YAML");
    let subst = |s: &str| s.to_string();
    let mut check = SchemaCheck::new(&src, schema, &subst);
    let converted = check.params(node.as_map().unwrap(), schema, "`t`", node.span);
    (check.diags, converted)
}

#[test]
fn the_flow_compiler_and_the_engine_agree() {
    let engine = Engine::new();
    let refs = refs_schema();
    for (tool, args, verdict) in table() {
        let schema = match tool {
            "refs" => &refs,
            t => engine.get(t).unwrap().input_schema(),
        };
        let by_engine = decode::check(args.clone(), schema, &FieldCodes::default());
        let (diags, converted) = flow(schema, &args);
        let (engine_ok, flow_ok) = (by_engine.is_ok(), diags.is_empty());
        let (want_engine, want_flow) = match verdict {
            Both(ok) => (ok, ok),
            Differ { engine, flow, why } => {
                assert_ne!(
                    engine, flow,
                    "{tool} {args}: a difference needs two verdicts ({why})"
                );
                (engine, flow)
            }
        };
        assert_eq!(
            (engine_ok, flow_ok),
            (want_engine, want_flow),
            "{tool} {args}: engine {by_engine:?}\nflow {diags:#?}"
        );
        // What the flow accepts and hands on is what the engine accepts from a call.
        if engine_ok && flow_ok {
            assert_eq!(
                decode::check(converted, schema, &FieldCodes::default()).ok(),
                by_engine.ok(),
                "{tool} {args}"
            );
        }
    }
}

#[test]
fn both_name_the_same_parameter() {
    let engine = Engine::new();
    let schema = engine.get("wait_for_element").unwrap().input_schema();
    for (args, param) in [
        (json!({"state": "present"}), "state"),
        (json!({"txt": null}), "txt"),
        (json!({"text": "a", "timeout_ms": -5}), "timeout_ms"),
    ] {
        let err = decode::check(args.clone(), schema, &FieldCodes::default()).unwrap_err();
        assert_eq!(err.param(), Some(param), "{args}");
        let (diags, _) = flow(schema, &args);
        assert_eq!(diags.len(), 1, "{args}: {diags:#?}");
        assert!(
            diags[0].text.contains(param) || diags[0].message.contains(param),
            "{args}: {:?}",
            diags[0]
        );
    }
}

/// The flow as `tapflow validate` compiles it, against the registry: a parameter written as
/// YAML null is "not given" only when the tool has it (as in a call); a misspelt one is
/// refused with its position, where it used to be dropped without a word.
#[test]
fn a_flow_refuses_an_unknown_parameter_written_as_null() {
    use tapflow_core::plan::{MapLoader, PlanOptions, compile};
    let validate = |text: &str| {
        compile(
            &[SourceFile::new("f.yaml", text)],
            &[],
            &tapflow_tools::RegistryCatalog::builtin(),
            &MapLoader::new(),
            &PlanOptions::default(),
        )
    };
    let c = validate("steps:\n  - wait_for_element: {text: Login, timeout_ms: ~}\n");
    assert!(!c.has_errors(), "{:#?}", c.diagnostics);
    let c = validate("steps:\n  - wait_for_element: {text: Login, timeout: ~}\n");
    let d: Vec<(&str, &str, usize)> = c
        .diagnostics
        .iter()
        .map(|d| (d.code.as_str(), d.message.as_str(), d.column))
        .collect();
    assert_eq!(
        d,
        [(
            "unknown-param",
            "`wait_for_element` has no parameter `timeout`",
            37
        )]
    );
    // The engine says the same of the call.
    let engine = Engine::new();
    let err = engine
        .check(
            "wait_for_element",
            json!({"text": "Login", "timeout": null}),
        )
        .unwrap_err();
    assert_eq!(
        (err.code.as_str(), err.param()),
        ("INVALID_PARAM", Some("timeout"))
    );
}
