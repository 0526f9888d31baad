//! Sessions become flows (issue 19, part 7): an agent logs in to the demo app through
//! `tapflow mcp` with the official Python SDK (tests/mcp/save_flow_check.py: handles from
//! find_elements, a failed click, a screenshot, a secret typed into the password field), calls
//! `save_flow`, and `validate_flow` passes on the file. The saved flow then runs with
//! `tapflow run` on a fresh simulated device (a new process) and passes, the password typed from
//! `TAPFLOW_PASSWORD`; the secret is in no file of the session or the run. HarmonyOS and Android
//! over stdio, HarmonyOS over streamable HTTP in the handshake era (each HTTP session has its own
//! log); in the 2026-07-28 era HTTP has no sessions, and save_flow says so.

use crate::common::cli;
use crate::common::mcp_proc::{python, repo, run, start_http};

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use serde_json::Value;

const GUARD: Duration = Duration::from_secs(300);
const SECRET: &str = "hunter2-Secr3t";

/// How the agent reaches the server.
#[derive(Clone, Copy)]
enum Transport {
    Stdio,
    /// Streamable HTTP in the handshake era (2025-11-25: sessions).
    Http,
}

fn script(dir: &Path) -> Command {
    let mut cmd = Command::new(python("2.3"));
    cmd.arg(repo().join("tests/mcp/save_flow_check.py"))
        .args(["--secret", SECRET])
        .current_dir(dir);
    cmd
}

fn facts(cmd: &mut Command) -> Value {
    let (ok, out, err) = run(cmd, GUARD);
    assert!(ok, "save_flow_check.py failed:\n{err}\n{out}");
    serde_json::from_str(out.lines().last().unwrap_or(""))
        .unwrap_or_else(|e| panic!("no facts line from save_flow_check.py ({e}):\n{out}\n{err}"))
}

/// The agent's session through save_flow and validate_flow; its facts.
fn session(dir: &Path, platform: &str, transport: Transport) -> Value {
    std::fs::create_dir_all(dir.join("flows")).unwrap();
    let mut cmd = script(dir);
    // Kept alive until the session is over.
    let _server = match transport {
        Transport::Stdio => {
            cmd.args(["--stdio", cli::bin().to_str().unwrap()])
                .args(["--platform", platform]);
            None
        }
        Transport::Http => {
            let server = start_http(
                &[
                    "--sim",
                    "1",
                    "--sim-latency",
                    "none",
                    "--output-root",
                    "flows",
                    "--tools",
                    "all",
                ],
                dir,
            );
            cmd.args(["--url", &server.url, "--mode", "legacy"]);
            Some(server)
        }
    };
    facts(&mut cmd)
}

/// Every file under `dir` that holds `needle`.
fn files_holding(dir: &Path, needle: &str) -> Vec<String> {
    walkdir::WalkDir::new(dir)
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_file())
        .filter(|e| {
            std::fs::read(e.path())
                .map(|b| b.windows(needle.len()).any(|w| w == needle.as_bytes()))
                .unwrap_or(false)
        })
        .map(|e| e.path().display().to_string())
        .collect()
}

fn saved_session_replays(platform: &str, transport: Transport) {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let f = session(dir, platform, transport);
    let saved = &f["saved"];
    let yaml = saved["yaml"].as_str().unwrap();
    eprintln!("saved flow ({platform}):\n{yaml}");

    // What the session did, as a person would write it.
    for line in [
        "name: Saved login",
        "app: com.tapflow.demo",
        "  PASSWORD: {secret: true}",
        "- run_app: com.tapflow.demo",
        // Handles from find_elements → the ids of the elements they came from.
        "- input_text: {element_id: username, text: bob}",
        "- input_text: {element_id: password, text: \"{{ PASSWORD }}\"}",
        "- click: Login",
        "- wait_for_element: {text: \"Hello, bob!\", timeout_ms: 15000}",
    ] {
        assert!(yaml.contains(line), "missing `{line}` in:\n{yaml}");
    }
    assert!(!yaml.contains("element_handle") && !yaml.contains("window_id"));
    assert_eq!(saved["steps"], 7, "{saved}");
    assert_eq!(saved["env"], serde_json::json!(["PASSWORD"]));
    let dropped: Vec<(&str, &str)> = saved["dropped"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| (d["tool"].as_str().unwrap(), d["reason"].as_str().unwrap()))
        .collect();
    for (tool, why) in [
        ("get_ui_tree", "read-only"),
        ("find_elements", "read-only"),
        ("click", "failed (ELEMENT_NOT_FOUND)"),
        ("screenshot", "read-only"),
        ("save_flow", "flow tool"),
    ] {
        assert!(
            dropped.iter().any(|(t, r)| *t == tool && r.contains(why)),
            "{tool} not dropped as {why}: {dropped:?}"
        );
    }
    // Refused paths and names, an existing file, a cut session.
    assert_eq!(f["not_yaml"], "INVALID_PARAM");
    assert_eq!(f["outside"], "PATH_NOT_ALLOWED");
    assert_eq!(f["dot_tapflow"], "PATH_NOT_ALLOWED");
    assert!(!dir.join(".tapflow").exists() && !dir.join("tapflow.toml").exists());
    assert_eq!(f["again"], "FILE_EXISTS");
    assert_eq!(f["cut_steps"], 5, "{f}");
    assert_eq!(f["cut_first"], "- run_app: com.tapflow.demo");
    // validate_flow passes with the secret supplied, and says what is missing without it.
    assert_eq!(f["valid"], true, "{}", f["diagnostics"]);
    assert_eq!(f["valid_without_env"], false);
    assert_eq!(
        f["without_env_codes"],
        serde_json::json!(["undefined-variable"])
    );

    // The saved flow on a fresh simulated device (a new process), the secret from the
    // environment, never the command line.
    let mut cmd = Command::new(cli::bin());
    cmd.args([
        "run",
        "flows/login_saved.yaml",
        "--sim",
        "1",
        "--sim-latency",
        "none",
    ])
    .args(["--report-dir", "out", "--color", "never"])
    .env("TAPFLOW_PASSWORD", SECRET)
    .current_dir(dir);
    if platform == "android" {
        cmd.args(["--platform", "android"]);
    }
    let (ok, out, err) = run(&mut cmd, GUARD);
    assert!(ok, "the saved flow failed on a fresh device:\n{out}\n{err}");
    let result: Value =
        serde_json::from_slice(&std::fs::read(dir.join("out/result.json")).unwrap()).unwrap();
    let flow = &result["flows"][0];
    assert_eq!(flow["status"], "passed", "{flow}");
    // The password went in: the field showed one mask character per character of the secret.
    let typed = flow["steps"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["args"]["element_id"] == "password")
        .expect("the password step ran");
    assert_eq!(typed["result"]["length_verified"], true, "{typed}");
    assert_eq!(
        typed["result"]["masked_length"],
        SECRET.chars().count(),
        "{typed}"
    );
    let leaked = files_holding(dir, SECRET);
    assert!(leaked.is_empty(), "the secret was written to {leaked:?}");
}

#[test]
fn saved_session_replays_on_harmonyos() {
    saved_session_replays("harmonyos", Transport::Stdio);
}

#[test]
fn saved_session_replays_on_android() {
    saved_session_replays("android", Transport::Stdio);
}

#[test]
fn saved_http_session_replays() {
    saved_session_replays("harmonyos", Transport::Http);
}

#[test]
fn stateless_http_has_no_session_to_save() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(tmp.path().join("flows")).unwrap();
    let server = start_http(
        &[
            "--sim",
            "1",
            "--sim-latency",
            "none",
            "--output-root",
            "flows",
            "--tools",
            "all",
        ],
        tmp.path(),
    );
    let f = facts(script(tmp.path()).args(["--url", &server.url, "--stateless"]));
    assert_eq!(f["stateless_code"], "UNSUPPORTED", "{f}");
    let m = f["stateless_message"].as_str().unwrap();
    assert!(m.contains("stateless") && m.contains("initialize"), "{m}");
    assert!(!tmp.path().join("flows/login_saved.yaml").exists());
}
