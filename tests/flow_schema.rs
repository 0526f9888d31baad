//! The published flow schema (`schemas/flow.schema.json`): generated from the types and the
//! catalog, committed, and checked here for drift (`TAPFLOW_BLESS=1` rewrites it); it accepts
//! the valid example flows and rejects malformed ones; and the step option names collide with
//! no tool parameter or control step.

use std::path::Path;

use tapflow::flow::ast::{CONTROL_STEPS, STEP_OPTIONS};
use tapflow::flow::{SourceFile, yaml};
use tapflow::plan::schema_check::generic;
use tapflow::plan::{RegistryCatalog, ToolCatalog, flow_schema::flow_schema};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn yaml_to_json(path: &Path) -> serde_json::Value {
    let text = std::fs::read_to_string(path).unwrap();
    let src = SourceFile::new(path.display().to_string(), text);
    let node = yaml::parse(&src).unwrap();
    generic(&node, &|s| s.to_string())
}

#[test]
fn committed_schema_matches_the_generated_one() {
    let generated =
        serde_json::to_string_pretty(&flow_schema(&RegistryCatalog::builtin())).unwrap() + "\n";
    let path = root().join("schemas/flow.schema.json");
    if std::env::var_os("TAPFLOW_BLESS").is_some() {
        std::fs::write(&path, &generated).unwrap();
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        committed == generated,
        "schemas/flow.schema.json is out of date; regenerate it with TAPFLOW_BLESS=1 cargo test --test flow_schema"
    );
}

#[test]
fn schema_accepts_valid_flows_and_rejects_malformed_ones() {
    let schema = flow_schema(&RegistryCatalog::builtin());
    let validator = jsonschema::validator_for(&schema).expect("the schema itself is valid");
    let valid = root().join("tests/golden/flow/valid");
    for name in ["login.yaml", "blocks.yaml"] {
        let doc = yaml_to_json(&valid.join(name));
        let errors: Vec<String> = validator.iter_errors(&doc).map(|e| e.to_string()).collect();
        assert!(errors.is_empty(), "{name}: {errors:?}");
    }
    let golden = root().join("tests/golden/flow");
    for name in [
        "unknown_param.yaml",
        "unknown_step_typo.yaml",
        "enum_value.yaml",
        "unknown_top_key.yaml",
        "wrong_type_int.yaml",
    ] {
        let doc = yaml_to_json(&golden.join(name));
        assert!(!validator.is_valid(&doc), "{name} should not validate");
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
        for option in STEP_OPTIONS {
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
    for option in STEP_OPTIONS {
        assert!(!CONTROL_STEPS.contains(option));
    }
}
