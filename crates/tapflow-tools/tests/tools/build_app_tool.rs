//! `build_app` through `Engine::call`, with the fake SDK (`tests/fake-sdk`): a signed HAP, a
//! failed build with its extracted ArkTS errors, the contract's validation codes, and the
//! published schemas and policy. Every envelope is validated against the tool's output schema.

use crate::common::harness;

use crate::common::envelope;

use std::sync::Arc;

use harness::{Fixture, fixture_path};
use serde_json::{Value, json};
use tapflow_tools::config::BuildSettings;
use tapflow_tools::{Engine, Envelope, NoBackend, Risk, Routing, ToolConfig, ToolContext};

/// An engine whose configuration points `build_app` at the fake SDK of `f`, with the project's
/// parent as the working directory.
fn ctx(f: &Fixture) -> ToolContext {
    let c = f.config();
    let config = ToolConfig {
        build: BuildSettings {
            hvigorw: c.hvigorw,
            java: c.java,
            sdk_home: c.sdk_home,
            timeout_ms: c.timeout.as_millis() as u64,
            extra_env: c.extra_env,
            ..BuildSettings::default()
        },
        ..ToolConfig::rooted_at(f.root.parent().unwrap())
    };
    ToolContext::new(
        Arc::new(NoBackend("build_app needs no device".into())),
        config,
    )
}

fn call(f: &Fixture, args: Value) -> Envelope {
    let engine = Engine::new();
    let e = engine.call("build_app", args, &ctx(f));
    let v = e.to_value();
    assert_eq!(v["isError"], json!(!e.ok()));
    let schema = engine.get("build_app").unwrap().output_schema();
    envelope::assert_matches_schema("build_app", &schema, &v["structuredContent"]);
    e
}

fn err(f: &Fixture, args: Value) -> (String, Value) {
    let e = call(f, args.clone());
    assert!(!e.ok(), "{args} unexpectedly succeeded: {:#}", e.result());
    assert_eq!(e.result(), &Value::Null);
    let err = e.structured.error.unwrap();
    (err.code.to_string(), err.details)
}

#[test]
fn signed_hap_with_the_contract_result() {
    let f = Fixture::new();
    let e = call(
        &f,
        json!({"project_path": f.root.display().to_string(), "include_cost": true}),
    );
    assert!(e.ok(), "{:?}", e.structured.error);
    let r = e.result();
    assert_eq!(
        r["output_path"],
        f.p("entry/build/default/outputs/default/entry-default-signed.hap")
    );
    assert_eq!(r["artifact_source"], "metadata");
    assert_eq!(r["sign_status"], "signed");
    assert_eq!(
        (&r["target"], &r["build_mode"], &r["product"]),
        (&json!("hap"), &json!("debug"), &json!("default"))
    );
    assert_eq!(r["errors"], json!([]));
    assert_eq!(r["error_count"], 0);
    assert_eq!(r["hsp_output_paths"], json!([]));
    // No device is involved.
    assert_eq!(r["cost"]["device_round_trips"], 0);
    let keys: Vec<&str> = r
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .filter(|k| *k != "cost")
        .collect();
    assert_eq!(
        keys,
        [
            "output_path",
            "hsp_output_paths",
            "artifact_source",
            "sign_status",
            "target",
            "build_mode",
            "product",
            "module_name",
            "is_clean",
            "include_hsp",
            "hsp_module_names",
            "duration",
            "errors",
            "error_count"
        ]
    );
    assert_eq!(
        f.hvigor_calls(),
        vec![
            "--mode module -p product=default -p buildMode=debug assembleHap --analyze=normal --parallel --incremental --no-daemon"
        ]
    );
}

#[test]
fn relative_project_path_and_har_target() {
    let mut f = Fixture::new();
    f.add_module("library", "har");
    let e = call(
        &f,
        json!({"project_path": "DemoApp", "target": "har", "module_name": "library", "build_mode": "release"}),
    );
    assert!(e.ok(), "{:?}", e.structured.error);
    assert_eq!(
        e.result()["output_path"],
        f.p("library/build/default/outputs/default/library.har")
    );
    assert_eq!(e.result()["sign_status"], "not_applicable");
    assert_eq!(e.result()["module_name"], "library");
    assert_eq!(e.result()["build_mode"], "release");
}

#[test]
fn failed_build_keeps_code_and_extracted_arkts_errors() {
    let f = Fixture::new()
        .env("FAKE_HVIGOR_SCENARIO", "fail_fixture")
        .env(
            "FAKE_HVIGOR_FIXTURE",
            fixture_path("hvigor_build_failed_arkts_compiler_errors.txt")
                .to_str()
                .unwrap(),
        );
    let (code, d) = err(&f, json!({"project_path": f.root.display().to_string()}));
    assert_eq!(code, "BUILD_FAILED");
    assert_eq!(d["error_count"], 179);
    assert_eq!(d["errors"].as_array().unwrap().len(), 100);
    assert_eq!(
        d["errors"][0],
        json!({
            "code": "10605008",
            "kind": "ArkTS Compiler Error",
            "message": "Use explicit types instead of \"any\", \"unknown\" (arkts-no-any-unknown)",
            "file": "C:/Users/15365/NwpuCampus/entry/src/main/ets/pages/Index.ets",
            "line": 274,
            "column": 13
        })
    );
    assert_eq!(
        d["compile_result"],
        json!({"passed": false, "errors": 180, "warnings": 27})
    );
    // The envelope's result is null on failure; the partial contract result is in the details.
    assert_eq!(d["result"]["target"], "hap");
    assert_eq!(d["result"]["error_count"], 179);
    assert_eq!(d["result"]["output_path"], Value::Null);
}

#[test]
fn validation_codes_come_before_any_build() {
    let f = Fixture::new();
    let root = f.root.display().to_string();
    for (args, want) in [
        (
            json!({"project_path": root, "target": "apk"}),
            "INVALID_BUILD_TARGET",
        ),
        (
            json!({"project_path": root, "build_mode": "fast"}),
            "INVALID_BUILD_MODE",
        ),
        (
            json!({"project_path": root, "target": "har"}),
            "MISSING_MODULE_NAME",
        ),
        (
            json!({"project_path": root, "target": "hsp", "module_name": " "}),
            "MISSING_MODULE_NAME",
        ),
        (json!({}), "INVALID_PROJECT_PATH"),
        (json!({"project_path": ""}), "INVALID_PROJECT_PATH"),
        (json!({"project_path": 7}), "INVALID_PROJECT_PATH"),
        (
            json!({"project_path": "no/such/dir"}),
            "INVALID_PROJECT_PATH",
        ),
        (
            json!({"project_path": root, "product": "../x"}),
            "INVALID_PARAM",
        ),
        (
            json!({"project_path": root, "device_id": "X"}),
            "INVALID_PARAM",
        ),
    ] {
        let (code, _) = err(&f, args.clone());
        assert_eq!(code, want, "{args}");
    }
    assert!(f.hvigor_calls().is_empty(), "nothing was built");
}

#[test]
fn published_schema_and_policy() {
    let engine = Engine::new();
    let def = engine.get("build_app").unwrap();
    assert_eq!(def.routing, Routing::None);
    assert_eq!(def.policy.risk, Risk::Build);
    assert!(def.policy.writes_host_files && !def.policy.mutates_device);
    let input = def.input_schema();
    assert_eq!(input["required"], json!(["project_path"]));
    let mut props: Vec<&str> = input["properties"]
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    props.sort_unstable();
    assert_eq!(
        props,
        [
            "build_mode",
            "hsp_module_names",
            "include_cost",
            "include_hsp",
            "is_clean",
            "module_name",
            "product",
            "project_path",
            "target"
        ]
    );
    assert_eq!(
        input["properties"]["target"]["enum"],
        json!(["hap", "har", "hsp", "app", "hnp"])
    );
    assert!(jsonschema::meta::is_valid(&def.output_schema()));
}
