//! Every rule of the error table yields its code, validation errors touch no device, an unknown
//! parameter is named with a suggestion, nulls are defaults.

use super::error_cases::ERROR_CASES;
use super::*;

#[test]
fn every_error_rule_yields_its_code() {
    let mut failures = Vec::new();
    for (section, tool, args, code) in ERROR_CASES {
        let e = env();
        let args: Value = serde_json::from_str(args).unwrap();
        let got = e.engine.call(tool, args.clone(), &e.ctx);
        // Schema validation (also done by Env::call for known tools).
        if let Some(def) = e.engine.get(tool) {
            jsonschema::validate(&def.output_schema(), &got.to_value()["structuredContent"])
                .unwrap();
        }
        match got.error_code() {
            Some(c) if c == *code => {}
            other => failures.push(format!(
                "[{section}] {tool} {args}: expected {code}, got {other:?}"
            )),
        }
    }
    assert!(
        failures.is_empty(),
        "{} case(s) failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn validation_errors_touch_no_device() {
    // design: "calls that fail validation touch nothing" (the device is resolved on first use)
    let validation = |code: &str| {
        code.starts_with("INVALID_")
            || code.starts_with("MISSING_")
            || [
                "PARAM_CONFLICT",
                "DUPLICATE_MODIFIER",
                "UNKNOWN_TOOL",
                "FILE_NOT_FOUND",
                "PATH_NOT_ALLOWED",
            ]
            .contains(&code)
    };
    let mut checked = 0;
    for (_, tool, args, code) in ERROR_CASES {
        if !validation(code) {
            continue;
        }
        let e = env();
        e.engine
            .call(tool, serde_json::from_str(args).unwrap(), &e.ctx);
        assert_eq!(e.cost().round_trips, 0, "{tool} {args} reached the device");
        // An `.apk` is a package on Android only: whether it is valid depends on the device's
        // platform, so that one case resolves the device (and still sends it nothing).
        if args.contains(".apk") {
            checked += 1;
            continue;
        }
        assert!(
            e.provider.routes().is_empty(),
            "{tool} {args} resolved a device"
        );
        checked += 1;
    }
    assert!(checked > 50);
}

#[test]
fn unknown_parameter_error_names_it_and_suggests() {
    let e = env();
    let (code, details) = e.err("wait_for_element", json!({"text":"Login","timout_ms":5}));
    assert_eq!(code, "INVALID_PARAM");
    assert_eq!(details["param"], "timout_ms");
    assert_eq!(details["suggestion"], "timeout_ms");
}

#[test]
fn nulls_are_defaults() {
    // Shared Response Shape / parameters with default null
    let e = env();
    let r = e.ok("click", json!({"text":"Login","x":null,"y":null,"element_handle":null,"count":null,"device_id":null}));
    assert_eq!(r["count"], 1);
}
