//! `tapflow validate` and `tapflow plan` as a user runs them: exit codes, text on stderr with
//! file:line:col, JSON on stdout, `--env`, `TAPFLOW_*`, directories (sub-flows not run alone).

use assert_cmd::Command;
use predicates::prelude::*;

use crate::common::cli;

fn in_repo() -> Command {
    cli::assert_command(cli::repo())
}

#[test]
fn validate_reports_every_error_with_location_and_exit_3() {
    in_repo()
        .args(["validate", "tests/golden/flow/enum_value.yaml"])
        .assert()
        .code(3)
        .stderr(predicate::str::contains(
            "error[invalid-value]: `state` cannot be `gon`",
        ))
        .stderr(predicate::str::contains(
            "╭─[tests/golden/flow/enum_value.yaml:3:46]",
        ))
        .stderr(predicate::str::contains("did you mean `gone`?"))
        .stderr(predicate::str::contains("3 error(s)"));
}

#[test]
fn validate_json_has_the_same_diagnostics_as_data() {
    let out = in_repo()
        .args([
            "validate",
            "--format",
            "json",
            "tests/golden/flow/enum_value.yaml",
        ])
        .assert()
        .code(3)
        .get_output()
        .stdout
        .clone();
    let v: serde_json::Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(v["errors"], 3);
    let d = &v["diagnostics"][0];
    assert_eq!(d["file"], "tests/golden/flow/enum_value.yaml");
    assert_eq!(
        (d["line"].as_u64(), d["column"].as_u64()),
        (Some(3), Some(46))
    );
    assert_eq!(d["help"], "did you mean `gone`?");
}

#[test]
fn a_directory_validates_flows_and_checks_sub_flows_through_their_callers() {
    in_repo()
        .args(["validate", "tests/golden/flow/valid"])
        .assert()
        .success()
        .stdout(predicate::str::contains("3 flow(s) valid"));
}

#[test]
fn plan_prints_text_and_json_with_env_and_devices() {
    in_repo()
        .args([
            "plan",
            "tests/golden/flow/valid/login.yaml",
            "--env",
            "USER=ci@example.com",
            "--device",
            "emu-1",
        ])
        .assert()
        .success()
        .stdout(predicate::str::contains("device: emu-1"))
        .stdout(predicate::str::contains("\"text\":\"ci@example.com\""))
        .stdout(predicate::str::contains("hunter2").not());
    let out = in_repo()
        .args([
            "plan",
            "--format",
            "json",
            "tests/golden/flow/valid/login.yaml",
        ])
        .env("TAPFLOW_USER", "env@example.com")
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let v: serde_json::Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(v["flows"][0]["steps"][1]["args"]["text"], "env@example.com");
    assert_eq!(v["flows"][0]["steps"][1]["id"], "login.2");
}

#[test]
fn plan_of_an_invalid_flow_prints_diagnostics_and_exits_3() {
    in_repo()
        .args(["plan", "tests/golden/flow/unknown_step_typo.yaml"])
        .assert()
        .code(3)
        .stdout(predicate::str::is_empty())
        .stderr(predicate::str::contains("did you mean `click`?"));
}

#[test]
fn bad_arguments_are_usage_errors() {
    in_repo()
        .args(["validate", "no/such/dir"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("no such file or directory"));
    in_repo()
        .args(["validate", "x.yaml", "--env", "1X=2"])
        .assert()
        .code(2);
}

#[test]
fn project_file_sets_devices_timeouts_and_env() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("tapflow.toml"),
        "devices = [\"emu-7\"]\nstep_timeout = \"12s\"\nwait = \"2s\"\n[env]\nBUTTON = \"Allow\"\n",
    )
    .unwrap();
    std::fs::write(
        dir.path().join("f.yaml"),
        "steps:\n  - click: \"{{ BUTTON }}\"\n",
    )
    .unwrap();
    let mut cmd = cli::assert_tapflow();
    cmd.current_dir(dir.path())
        .args(["plan", "f.yaml"])
        .assert()
        .success()
        .stdout(predicate::str::contains("device: emu-7"))
        .stdout(predicate::str::contains(
            "{\"text\":\"Allow\",\"count\":1}  [deadline 12000 ms; waits up to 2000 ms for its element]",
        ));
    let mut bad = cli::assert_tapflow();
    bad.current_dir(dir.path())
        .args(["validate", "f.yaml", "--config", "missing.toml"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("cannot read missing.toml"));
}
