//! Flow-level behaviours that depend on what a tool declares (its `FlowHooks` and routing),
//! through the binary: a device-free tool (`build_app`) in a flow and in `tapflow tool --sim`
//! is called without a device route (it used to fail every time with `INVALID_PARAM: unknown
//! parameter device_id`).

use crate::common::cli;

use serde_json::Value;

/// The first step of the first flow in the run's `result.json`.
fn first_step(result: &Value) -> Value {
    cli::steps(&result["flows"][0])
        .into_iter()
        .next()
        .expect("a step")
}

#[test]
fn a_device_free_step_in_a_flow_reaches_its_tool() {
    let dir = tempfile::tempdir().unwrap();
    let flow = cli::write(
        dir.path(),
        "build.yaml",
        "name: build\nsteps:\n  - build_app: {project_path: no/such/project}\n",
    );
    let report = dir.path().join("report");
    let out = cli::run_on_one_sim(cli::command(dir.path()), &[&flow], &[], &report);
    let all = cli::text(&out);
    let step = first_step(&cli::result(&report));
    assert_eq!(step["tool"], "build_app", "{step:#}");
    // The tool's own verdict on its argument: the call reached build_app.
    assert_eq!(
        step["error"]["code"], "INVALID_PROJECT_PATH",
        "{step:#}\n{all}"
    );
    assert!(!all.contains("device_id"), "{all}");
    assert_eq!(out.status.code(), Some(1), "{all}");
}

#[test]
fn a_device_free_bare_call_with_a_sim_is_not_routed() {
    let dir = tempfile::tempdir().unwrap();
    let out = cli::command(dir.path())
        .args(["tool", "build_app", r#"{"project_path":"no/such/project"}"#])
        .args(["--sim", "1"])
        .output()
        .unwrap();
    let envelope: Value =
        serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", cli::text(&out)));
    assert_eq!(
        envelope["structuredContent"]["error"]["code"], "INVALID_PROJECT_PATH",
        "{envelope:#}"
    );
}
