//! "validate accepts, run rejects" (issue 11): every call a tool refuses before it needs a
//! device is refused by the shipped `tapflow validate` too, with the tool's own code, at the
//! parameter's line:col, because both run the tool's own rules (`Engine::check`). The validate
//! side is what `tapflow validate --format json` computes (the CLI's own catalog,
//! `cli::flow_cmd::catalog()`, and `plan::compile`; `tests/golden/main.rs` covers the printing);
//! the run side is `Engine::call` on a provider that records whether a device was ever asked
//! for.
//!
//! Also the other validate/run agreements of issues 9 and 11: step deadlines from the tools' own
//! timeouts, a step option written among a tool's parameters, `repeat` beyond the runner's cap,
//! `run_app`'s code for a malformed bundle name, a bare screenshot name.

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use serde_json::{Value, json};
use tapflow_core::flow::{DiagnosticReport, SourceFile};
use tapflow_core::plan::{MapLoader, PlanOptions, compile};
use tapflow_device::hostfs::PathPolicy;
use tapflow_device::{Device, DeviceError, Target};
use tapflow_tools::RegistryCatalog;
use tapflow_tools::{DeviceProvider, DeviceRoute, Engine, ToolConfig, ToolContext};

/// A provider that never has a device and counts how often one was asked for.
#[derive(Default)]
struct Tripwire(AtomicUsize);

impl DeviceProvider for Tripwire {
    fn resolve(&self, _route: &DeviceRoute) -> Result<Arc<dyn Device>, DeviceError> {
        self.0.fetch_add(1, Ordering::SeqCst);
        Err(DeviceError::NotFound {
            serial: "tripwire".into(),
            device_says: String::new(),
        })
    }
    fn targets(&self, _hdc_server: Option<&str>) -> Result<Vec<Target>, DeviceError> {
        self.0.fetch_add(1, Ordering::SeqCst);
        Ok(Vec::new())
    }
}

/// The engine's answer to a call, and whether it asked for a device.
fn run(tool: &str, args: Value) -> (Option<String>, bool) {
    let wire = Arc::new(Tripwire::default());
    let scratch = tempfile::tempdir().unwrap();
    let config = ToolConfig {
        paths: PathPolicy::new(scratch.path(), [scratch.path().to_path_buf()]),
        ..ToolConfig::default()
    };
    let ctx = ToolContext::new(wire.clone(), config);
    let env = Engine::new().call(tool, args, &ctx);
    let touched = wire.0.load(Ordering::SeqCst) > 0;
    (env.error_code().map(str::to_string), touched)
}

/// What `tapflow validate --format json` reports for one flow file: its diagnostics.
fn validate(yaml: &str) -> Vec<Value> {
    let catalog = tapflow::cli::flow_cmd::catalog();
    let c = compile(
        &[SourceFile::new("case.yaml", yaml)],
        &[],
        catalog.as_ref(),
        &MapLoader::new(),
        &PlanOptions::default(),
    );
    let report = serde_json::to_value(DiagnosticReport::new(&c.diagnostics)).unwrap();
    report["diagnostics"]
        .as_array()
        .cloned()
        .unwrap_or_default()
}

/// The 1-based line and column of the first occurrence of `needle` in `text`.
fn position(text: &str, needle: &str) -> (u64, u64) {
    let at = text
        .find(needle)
        .unwrap_or_else(|| panic!("{needle} not in {text}"));
    let line = text[..at].matches('\n').count() + 1;
    let col = text[..at].rfind('\n').map_or(at, |nl| at - nl - 1) + 1;
    (line as u64, col as u64)
}

/// Validate refuses `step` with the tool's `code` at `at` (text of the parameter's value),
/// and the engine refuses `args` with the same code without asking for a device.
fn both_refuse(tool: &str, step: &str, args: Value, code: &str, at: &str) {
    let yaml = format!("steps:\n  - {step}\n");
    let diags = validate(&yaml);
    let d = diags
        .iter()
        .find(|d| {
            d["label"]
                .as_str()
                .is_some_and(|l| l.ends_with(&format!("({code})")))
        })
        .unwrap_or_else(|| panic!("validate did not refuse `{step}` with {code}: {diags:#?}"));
    assert_eq!(d["severity"], "error");
    assert_eq!(d["code"], code.to_ascii_lowercase().replace('_', "-"));
    let (line, col) = position(&yaml, at);
    assert_eq!(
        (d["line"].as_u64().unwrap(), d["column"].as_u64().unwrap()),
        (line, col),
        "`{step}`: {d:#}"
    );
    let (got, touched) = run(tool, args);
    assert_eq!(got.as_deref(), Some(code), "{tool}");
    assert!(!touched, "{tool} asked for a device before refusing");
}

#[test]
fn click_coordinates_with_a_search_refinement_conflict() {
    both_refuse(
        "click",
        "click: {x: 100, y: 200, match_mode: contains}",
        json!({"x": 100, "y": 200, "match_mode": "contains"}),
        "PARAM_CONFLICT",
        "contains",
    );
}

#[test]
fn a_region_screenshot_with_display_id_conflicts() {
    both_refuse(
        "screenshot",
        "screenshot: {left: 0, top: 0, right: 10, bottom: 10, display_id: 1}",
        json!({"left": 0, "top": 0, "right": 10, "bottom": 10, "display_id": 1}),
        "PARAM_CONFLICT",
        "1}",
    );
}

#[test]
fn negative_and_huge_coordinates_are_invalid() {
    both_refuse(
        "click",
        "click: {x: -5, y: 10}",
        json!({"x": -5, "y": 10}),
        "INVALID_PARAM",
        "-5",
    );
    both_refuse(
        "click",
        "click: {x: 99999999999, y: 1}",
        json!({"x": 99999999999i64, "y": 1}),
        "INVALID_PARAM",
        "99999999999",
    );
}

#[test]
fn empty_text_that_cannot_clear_a_field_is_missing_text() {
    both_refuse(
        "input_text",
        "input_text: {x: 5, y: 6, text: \"\"}",
        json!({"x": 5, "y": 6, "text": ""}),
        "MISSING_TEXT",
        "\"\"",
    );
    both_refuse(
        "input_text",
        "input_text: {element_id: user, text: \"\", mode: append}",
        json!({"element_id": "user", "text": "", "mode": "append"}),
        "MISSING_TEXT",
        "\"\"",
    );
    // Replace mode with a handle or search clears the field: both accept.
    assert!(validate("steps:\n  - input_text: {element_id: user, text: \"\"}\n").is_empty());
}

#[test]
fn a_har_build_needs_its_module() {
    both_refuse(
        "build_app",
        "build_app: {project_path: ., target: har}",
        json!({"project_path": ".", "target": "har"}),
        "MISSING_MODULE_NAME",
        "har",
    );
}

#[test]
fn a_screenshot_name_with_another_extension_is_refused_and_a_bare_name_gets_png() {
    both_refuse(
        "screenshot",
        "screenshot: login.gif",
        json!({"local_path": "login.gif"}),
        "INVALID_PARAM",
        "login.gif",
    );
    // A bare name passes both (the tool writes `<name>.png`; see
    // tests/tools/sim_contract/ui_observe.rs for the file itself).
    assert!(validate("steps:\n  - screenshot: shots/login\n").is_empty());
    let (code, touched) = run("screenshot", json!({"local_path": "shots/login"}));
    assert_eq!(code.as_deref(), Some("DEVICE_NOT_FOUND"));
    assert!(touched, "a valid call goes on to the device");
}

#[test]
fn run_app_refuses_a_malformed_bundle_name_like_every_app_tool() {
    for tool in ["run_app", "stop_app", "uninstall_app", "clear_app_data"] {
        both_refuse(
            tool,
            &format!("{tool}: \"com.x;reboot\""),
            json!({"bundle_name": "com.x;reboot"}),
            "INVALID_BUNDLE_NAME",
            "\"com.x;reboot\"",
        );
    }
    both_refuse(
        "query_package",
        "query_package: {info_type: abilities, bundle_name: \"-k\"}",
        json!({"info_type": "abilities", "bundle_name": "-k"}),
        "INVALID_BUNDLE_NAME",
        "\"-k\"",
    );
}

#[test]
fn repeat_beyond_the_runners_cap_is_refused() {
    let yaml = "steps:\n  - repeat:\n      times: 20000\n      steps:\n        - press_key: Back\n";
    let diags = validate(yaml);
    assert_eq!(diags.len(), 1, "{diags:#?}");
    assert_eq!(diags[0]["code"], "out-of-range");
    assert_eq!(
        (diags[0]["line"].as_u64(), diags[0]["column"].as_u64()),
        (Some(3), Some(14))
    );
    assert!(
        diags[0]["message"]
            .as_str()
            .unwrap()
            .contains(&tapflow_core::plan::MAX_REPEAT.to_string())
    );
    assert_eq!(
        tapflow::run::exec::MAX_REPEAT,
        tapflow_core::plan::MAX_REPEAT
    );
    let ok = "steps:\n  - repeat:\n      times: 10000\n      steps:\n        - press_key: Back\n";
    assert!(validate(ok).is_empty());
}

#[test]
fn a_step_option_among_the_tools_parameters_says_where_it_belongs() {
    for (written, option) in [("optional: true", "optional"), ("name: Back out", "label")] {
        let yaml = format!("steps:\n  - press_key: {{key: Back, {written}}}\n");
        let diags = validate(&yaml);
        assert_eq!(diags.len(), 1, "{diags:#?}");
        let d = &diags[0];
        assert_eq!(d["code"], "step-option-in-params");
        let help = d["help"].as_str().unwrap();
        assert!(
            help.contains(&format!("`{option}`"))
                && help.contains("step option")
                && help.contains("beside the tool"),
            "{help}"
        );
        assert!(!help.contains("did you mean"), "{help}");
        let key = written.split(':').next().unwrap();
        assert_eq!(
            (d["line"].as_u64().unwrap(), d["column"].as_u64().unwrap()),
            position(&yaml, &format!("{key}:"))
        );
    }
}

/// The compiled deadline of the first step of `steps`.
fn deadline(step: &str) -> u64 {
    let src = SourceFile::new("d.yaml", format!("steps:\n  - {step}\n"));
    let c = compile(
        &[src],
        &[],
        &RegistryCatalog::builtin(),
        &MapLoader::new(),
        &PlanOptions::default(),
    );
    assert!(!c.has_errors(), "{:?}", c.diagnostics);
    c.plan.flows[0].steps[0].deadline_ms.unwrap()
}

#[test]
fn a_steps_default_deadline_covers_the_tools_own_timeouts() {
    let margin = tapflow_core::plan::compile::DEADLINE_MARGIN_MS;
    let default = PlanOptions::default().default_step_timeout_ms;
    // build_app: the build budget (600 s by default), not the 30 s step default.
    assert_eq!(deadline("build_app: {project_path: .}"), 600_000 + margin);
    // run_app: its window_timeout_ms raises the deadline.
    assert_eq!(
        deadline("run_app: {bundle_name: com.example.app, window_timeout_ms: 60000}"),
        60_000 + margin
    );
    assert_eq!(deadline("run_app: com.example.app"), default);
    assert_eq!(
        deadline("wait_for_element: {text: Done, timeout_ms: 45000}"),
        45_000 + margin
    );
    assert_eq!(
        deadline("scroll_until_visible: {text: Item 40, timeout_ms: 90000}"),
        90_000 + margin
    );
    assert_eq!(
        deadline("wait_for_stable: {timeout_ms: 40000}"),
        40_000 + margin
    );
    assert_eq!(deadline("click: OK"), default);
}

#[test]
fn the_example_flows_and_the_seen_cases_are_judged_by_one_function() {
    // Every tool step of the example flows passes the engine's own check with the arguments
    // the plan hands it (what `tapflow run` sends).
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("flows");
    let engine = Engine::new();
    let mut flows = Vec::new();
    let mut subs = Vec::new();
    for e in walkdir::WalkDir::new(&root).sort_by_file_name() {
        let e = e.unwrap();
        if !e.file_type().is_file() {
            continue;
        }
        let name = e.path().display().to_string();
        let src = SourceFile::new(name.clone(), std::fs::read_to_string(e.path()).unwrap());
        if tapflow_core::flow::is_subflow_path(&name) {
            subs.push(src);
        } else {
            flows.push(src);
        }
    }
    struct Fs;
    impl tapflow_core::plan::SourceLoader for Fs {
        fn load(&self, path: &str) -> Result<String, String> {
            std::fs::read_to_string(path).map_err(|e| e.to_string())
        }
    }
    let c = compile(
        &flows,
        &subs,
        &RegistryCatalog::builtin(),
        &Fs,
        &PlanOptions::default(),
    );
    assert!(!c.has_errors(), "{:?}", c.diagnostics);
    let mut checked = 0;
    for f in &c.plan.flows {
        for s in f.steps.iter() {
            if let tapflow_core::plan::Action::Tool { tool, args } = &s.action
                && !args.to_string().contains("{{")
            {
                engine.check(tool, args.clone()).unwrap();
                checked += 1;
            }
        }
    }
    assert!(checked >= 10, "only {checked} steps checked");
}
