//! The published flow schema (`schemas/flow.schema.json`), checked by third parties.
//!
//! - It is generated (from `flow::format` and the tool registry), committed, and checked here
//!   for drift (`TAPFLOW_BLESS=1 cargo test -p tapflow-tools --test flow` rewrites it).
//! - It covers every registered tool and every step option, with descriptions.
//! - Every example flow under `flows/` (and every valid golden flow), loaded by a YAML 1.2
//!   loader other than tapflow's (yaml-rust2), validates against the committed file with a JSON
//!   Schema validator other than tapflow's (the `jsonschema` crate), and names the schema on its
//!   first line with a path that reaches it.
//! - A set of invalid flows (`tests/golden/schema/invalid/*.yaml`, each saying why in its first
//!   line) is rejected by the schema, and by `tapflow validate` too.
//! - Step option names collide with no tool parameter or control step.

use std::path::{Path, PathBuf};

use serde_json::{Map, Value};
use tapflow_core::flow::ast::{CONTROL_STEPS, STEP_OPTIONS};
use tapflow_core::flow::{SourceFile, parse_flow};
use tapflow_core::plan::flow_schema::flow_schema;
use tapflow_core::plan::{MapLoader, PlanOptions, ToolCatalog, compile};
use tapflow_tools::RegistryCatalog;
use yaml_rust2::{Yaml, YamlLoader};

fn root() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
}

fn schema_path() -> PathBuf {
    root().join("schemas/flow.schema.json")
}

fn generated() -> String {
    serde_json::to_string_pretty(&flow_schema(&RegistryCatalog::builtin())).unwrap() + "\n"
}

/// The committed schema, as editors and third-party tools read it (rewritten first when
/// blessing, so every test here sees the new one).
fn committed() -> Value {
    if std::env::var_os("TAPFLOW_BLESS").is_some() {
        std::fs::write(schema_path(), generated()).unwrap();
    }
    serde_json::from_str(&std::fs::read_to_string(schema_path()).unwrap()).unwrap()
}

/// A YAML 1.2 document as JSON, through yaml-rust2 (not tapflow's loader).
fn to_json(y: &Yaml) -> Value {
    match y {
        Yaml::Null => Value::Null,
        Yaml::Boolean(b) => Value::Bool(*b),
        Yaml::Integer(i) => Value::from(*i),
        Yaml::Real(r) => {
            let f: f64 = r.parse().unwrap_or_else(|_| panic!("real {r}"));
            serde_json::Number::from_f64(f).map_or(Value::String(r.clone()), Value::Number)
        }
        Yaml::String(s) => Value::String(s.clone()),
        Yaml::Array(a) => Value::Array(a.iter().map(to_json).collect()),
        Yaml::Hash(h) => {
            let mut m = Map::new();
            for (k, v) in h {
                let key = match k {
                    Yaml::String(s) => s.clone(),
                    Yaml::Integer(i) => i.to_string(),
                    Yaml::Boolean(b) => b.to_string(),
                    other => panic!("unexpected key {other:?}"),
                };
                m.insert(key, to_json(v));
            }
            Value::Object(m)
        }
        other => panic!("unexpected YAML node {other:?}"),
    }
}

fn load(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).unwrap();
    let docs = YamlLoader::load_from_str(&text)
        .unwrap_or_else(|e| panic!("{}: not YAML 1.2: {e}", path.display()));
    assert_eq!(docs.len(), 1, "{}: one document", path.display());
    to_json(&docs[0])
}

fn yaml_files(dir: &Path) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = walkdir::WalkDir::new(dir)
        .sort_by_file_name()
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_file())
        .map(|e| e.into_path())
        .filter(|p| p.extension().is_some_and(|x| x == "yaml" || x == "yml"))
        .collect();
    out.sort();
    out
}

fn errors(validator: &jsonschema::Validator, doc: &Value) -> Vec<String> {
    validator
        .iter_errors(doc)
        .map(|e| format!("{} at {}", e, e.instance_path))
        .collect()
}

#[test]
fn committed_schema_matches_the_generated_one() {
    let generated = generated();
    committed();
    let committed = std::fs::read_to_string(schema_path()).unwrap_or_default();
    assert!(
        committed == generated,
        "schemas/flow.schema.json is out of date; regenerate it with TAPFLOW_BLESS=1 cargo test -p tapflow-tools --test flow"
    );
}

#[test]
fn the_schema_covers_every_tool_and_every_step_option_with_descriptions() {
    let schema = committed();
    let defs = schema["$defs"].as_object().unwrap();
    let steps = defs["Step"]["anyOf"].as_array().unwrap();
    let catalog = RegistryCatalog::builtin();
    let named: Vec<&str> = steps
        .iter()
        .filter_map(|v| v["required"][0].as_str())
        .collect();
    let engine = tapflow_tools::Engine::new();
    for t in engine.tools() {
        assert!(defs.contains_key(&format!("tool.{}", t.name)), "{}", t.name);
        assert!(named.contains(&t.name), "no step for {}", t.name);
    }
    assert_eq!(engine.tools().count(), catalog.tool_names().len());
    for c in CONTROL_STEPS.iter() {
        assert!(named.contains(c), "no step for {c}");
    }
    for v in steps.iter().filter(|v| v["type"] == "object") {
        let name = v["required"][0].as_str().unwrap();
        let props = v["properties"].as_object().unwrap();
        assert!(
            props[name]["description"]
                .as_str()
                .is_some_and(|d| d.len() > 10),
            "{name} has no description"
        );
        for option in STEP_OPTIONS.iter() {
            let o = &props[*option];
            assert!(
                o["description"].as_str().is_some_and(|d| !d.is_empty()),
                "{name}.{option}: {o}"
            );
        }
    }
    // Tool parameters carry the tools' doc comments.
    assert!(
        defs["tool.wait_for_element"]["properties"]["timeout_ms"]
            .to_string()
            .contains("wall-clock budget")
    );
}

#[test]
fn example_flows_validate_against_their_schema_with_third_party_tools() {
    let schema = committed();
    let validator = jsonschema::validator_for(&schema).expect("the schema itself is valid");
    let mut files = yaml_files(&root().join("flows"));
    assert!(files.len() >= 6, "{files:?}");
    files.extend(yaml_files(&root().join("tests/golden/flow/valid")));
    for path in files {
        let text = std::fs::read_to_string(&path).unwrap();
        let doc = load(&path);
        let errs = errors(&validator, &doc);
        assert!(errs.is_empty(), "{}: {errs:#?}", path.display());
        // Its `$schema` line (required in flows/) reaches the published file.
        let first = text.lines().next().unwrap_or_default();
        let Some(rel) = first.strip_prefix("# yaml-language-server: $schema=") else {
            assert!(
                !path.starts_with(root().join("flows")),
                "{}: no $schema line",
                path.display()
            );
            continue;
        };
        let target = path.parent().unwrap().join(rel);
        assert_eq!(
            target.canonicalize().unwrap(),
            schema_path().canonicalize().unwrap(),
            "{}",
            path.display()
        );
    }
}

#[test]
fn invalid_flows_are_rejected_by_the_schema_and_by_validate() {
    let schema = committed();
    let validator = jsonschema::validator_for(&schema).unwrap();
    let catalog = RegistryCatalog::builtin();
    let files = yaml_files(&root().join("tests/golden/schema/invalid"));
    assert!(files.len() >= 20, "{files:?}");
    for path in files {
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.starts_with("# "), "{}: say why", path.display());
        let doc = load(&path);
        assert!(
            !validator.is_valid(&doc),
            "{} should not validate against the schema",
            path.display()
        );
        let src = SourceFile::new(path.display().to_string(), text);
        let c = compile(
            &[src],
            &[],
            &catalog,
            &MapLoader::new(),
            &PlanOptions::default(),
        );
        assert!(c.has_errors(), "{}: validate accepts it", path.display());
    }
}

#[test]
fn what_validate_accepts_in_the_flow_conveniences_the_schema_accepts_too() {
    let schema = committed();
    let validator = jsonschema::validator_for(&schema).unwrap();
    let catalog = RegistryCatalog::builtin();
    for text in [
        // A number where a tool expects text keeps its source text.
        "steps:\n  - input_text: {element_id: pin, text: 1234}\n",
        // A run-time reference where a number is expected.
        "steps:\n  - find_elements: Item\n    keep: found\n  - click: {x: \"{{ steps.found.result.elements.0.center.x }}\", y: 5}\n",
        // A parameter left null is not given.
        "steps:\n  - wait_for_element: {text: Done, timeout_ms: ~}\n",
        // Bare tools, shorthands, sub-flow lists.
        "- screenshot\n- swipe: up\n- press_key: 2068\n- assert_visible: Welcome\n",
        "steps:\n  - repeat: {times: \"{{ N }}\", steps: [press_key: Back]}\nenv: {N: 3}\n",
    ] {
        let src = SourceFile::new("c.yaml", text);
        assert!(parse_flow(&src).diagnostics.is_empty(), "{text}");
        let c = compile(
            &[src],
            &[],
            &catalog,
            &MapLoader::new(),
            &PlanOptions::default(),
        );
        assert!(!c.has_errors(), "{text}: {:?}", c.diagnostics);
        let docs = YamlLoader::load_from_str(text).unwrap();
        let errs = errors(&validator, &to_json(&docs[0]));
        assert!(errs.is_empty(), "{text}: {errs:#?}");
    }
}

#[test]
fn step_options_collide_with_no_tool_parameter_or_control_step() {
    let catalog = RegistryCatalog::builtin();
    for tool in catalog.tool_names() {
        let props = catalog.input_schema(tool).unwrap()["properties"]
            .as_object()
            .unwrap()
            .clone();
        for option in STEP_OPTIONS.iter() {
            assert!(
                !props.contains_key(*option),
                "option `{option}` collides with a parameter of `{tool}`"
            );
        }
        assert!(
            !CONTROL_STEPS.contains(&tool),
            "tool `{tool}` collides with a control step"
        );
    }
    for option in STEP_OPTIONS.iter() {
        assert!(!CONTROL_STEPS.contains(option));
    }
}

#[test]
fn the_parser_reads_every_key_the_format_describes() {
    use tapflow_core::flow::ast::StepKind;
    use tapflow_core::flow::format::{
        CONDITION_KEYS, ENV_SETTINGS_KEYS, REPEAT_KEYS, RETRIES_KEYS, RETRY_KEYS, RUN_FLOW_KEYS,
        TOP_LEVEL_KEYS,
    };
    let unknown = |text: &str| -> Vec<String> {
        parse_flow(&SourceFile::new("k.yaml", text))
            .diagnostics
            .iter()
            .filter(|d| {
                matches!(
                    d.code.as_str(),
                    "unknown-key" | "unknown-param" | "extra-step-key" | "missing-tool"
                )
            })
            .map(|d| d.message.clone())
            .collect()
    };
    for key in TOP_LEVEL_KEYS.iter() {
        let text = format!("{key}: x\nsteps: []\n");
        assert!(unknown(&text).is_empty(), "{key}: {:?}", unknown(&text));
    }
    for option in STEP_OPTIONS.iter() {
        let text = format!("steps:\n  - click: OK\n    {option}: x\n");
        assert!(unknown(&text).is_empty(), "{option}: {:?}", unknown(&text));
    }
    for key in CONDITION_KEYS.iter() {
        let text = format!("steps:\n  - click: OK\n    when: {{{key}: x}}\n");
        assert!(unknown(&text).is_empty(), "{key}: {:?}", unknown(&text));
    }
    for (step, keys) in [
        ("run_flow", &*RUN_FLOW_KEYS),
        ("repeat", &*REPEAT_KEYS),
        ("retry", &*RETRY_KEYS),
    ] {
        for key in keys {
            let text = if *key == "steps" {
                format!("steps:\n  - {step}: {{steps: []}}\n")
            } else {
                format!("steps:\n  - {step}: {{{key}: x, steps: []}}\n")
            };
            let parsed = parse_flow(&SourceFile::new("k.yaml", &text));
            assert!(
                parsed.diagnostics.iter().all(|d| d.code != "yaml-syntax"),
                "{text}"
            );
            assert!(
                unknown(&text).is_empty(),
                "{step}.{key}: {:?}",
                unknown(&text)
            );
        }
    }
    for key in RETRIES_KEYS.iter() {
        let text = format!("steps:\n  - click: OK\n    retries: {{count: 1, {key}: 1}}\n");
        assert!(unknown(&text).is_empty(), "retries.{key}");
    }
    for key in ENV_SETTINGS_KEYS.iter() {
        let text = format!("env:\n  A: {{{key}: x}}\nsteps: []\n");
        assert!(unknown(&text).is_empty(), "env.{key}");
    }
    for step in CONTROL_STEPS.iter() {
        let text = format!("steps:\n  - {step}: x\n");
        let parsed = parse_flow(&SourceFile::new("c.yaml", &text));
        if let Some(f) = parsed.flow
            && let Some(s) = f.steps.first()
        {
            assert!(
                !matches!(s.kind, StepKind::Tool { .. }),
                "`{step}` is read as a tool"
            );
        }
    }
}
