//! The tool list a model pays for on every turn (issue 19, "a tool list that fits"), read off the
//! real `tapflow mcp` process over stdio as a client receives it: the default `core` profile
//! within the size targets (model-facing — name, description, inputSchema — at most 24 000
//! bytes; the whole `tools/list` result at most 60 000), plain nullables and standard formats
//! only, `$ref`s that resolve, the profile and its interplay with `--allow-tools` and
//! tapflow.toml, every input schema convertible by OpenAI's strict-mode converter, and the
//! TypeScript SDK 1.x listing every tool without a warning.

use crate::common::cli;
use crate::common::mcp_proc::{self, repo};

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::Duration;

use serde_json::{Value, json};

/// The targets (bytes of compact JSON).
const MODEL_FACING_MAX: usize = 24_000;
const WHOLE_MAX: usize = 60_000;

/// A hang guard, not a performance bound.
const GUARD: Duration = Duration::from_secs(60);

struct Session {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
}

impl Session {
    /// `tapflow mcp --sim 1 --sim-latency none ARGS…` in `dir`, initialised.
    fn start(args: &[&str], dir: &std::path::Path) -> Session {
        let mut child = Command::new(cli::bin())
            .args(["mcp", "--sim", "1", "--sim-latency", "none"])
            .args(args)
            .current_dir(dir)
            .env("HOME", dir)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("tapflow mcp starts");
        let stdout = child.stdout.take().unwrap();
        let (tx, lines) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let stdin = child.stdin.take().unwrap();
        let mut s = Session {
            child,
            stdin,
            lines,
        };
        s.request(
            1,
            "initialize",
            json!({"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}),
        );
        s.send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        s
    }

    fn send(&mut self, msg: Value) {
        writeln!(self.stdin, "{msg}").unwrap();
        self.stdin.flush().unwrap();
    }

    /// The raw text of the answer to request `id` (its bytes are what a client receives).
    fn request(&mut self, id: u64, method: &str, params: Value) -> String {
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        let deadline = std::time::Instant::now() + GUARD;
        loop {
            let left = deadline.saturating_duration_since(std::time::Instant::now());
            let line = self
                .lines
                .recv_timeout(left)
                .unwrap_or_else(|_| panic!("no answer to {method} within the guard"));
            let v: Value = serde_json::from_str(&line).unwrap();
            if v["id"] == id {
                return line;
            }
        }
    }

    fn tools_list(&mut self) -> Value {
        let line = self.request(2, "tools/list", json!({}));
        let v: Value = serde_json::from_str(&line).unwrap();
        v["result"].clone()
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn compact(v: &Value) -> usize {
    serde_json::to_string(v).unwrap().len()
}

/// Sum over tools of name + description + inputSchema (what hosts put before the model).
fn model_facing(tools: &[Value]) -> usize {
    tools
        .iter()
        .map(|t| {
            compact(&json!({"name": t["name"], "description": t["description"], "inputSchema": t["inputSchema"]}))
        })
        .sum()
}

fn walk(v: &Value, f: &mut dyn FnMut(&str, &Value)) {
    match v {
        Value::Object(o) => o.iter().for_each(|(k, x)| {
            f(k, x);
            walk(x, f)
        }),
        Value::Array(a) => a.iter().for_each(|x| walk(x, f)),
        _ => {}
    }
}

fn names(list: &Value) -> Vec<String> {
    list["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn the_default_tool_list_fits_a_models_context() {
    let tmp = tempfile::tempdir().unwrap();
    let core = Session::start(&[], tmp.path()).tools_list();
    let all = Session::start(&["--tools", "all"], tmp.path()).tools_list();
    let tools = core["tools"].as_array().unwrap();
    let (mf, whole) = (model_facing(tools), compact(&core));
    eprintln!(
        "tools/list bytes: core {} tools, model-facing {mf}, whole {whole}; all {} tools, model-facing {}, whole {}",
        tools.len(),
        all["tools"].as_array().unwrap().len(),
        model_facing(all["tools"].as_array().unwrap()),
        compact(&all)
    );
    assert!(
        mf <= MODEL_FACING_MAX,
        "model-facing {mf} > {MODEL_FACING_MAX}"
    );
    assert!(whole <= WHOLE_MAX, "whole tools/list {whole} > {WHOLE_MAX}");
    let mut served = names(&core);
    served.sort();
    let mut profile: Vec<String> = tapflow::mcp::engine()
        .tools()
        .filter(|d| d.core)
        .map(|d| d.name.to_string())
        .collect();
    profile.sort();
    assert_eq!(served, profile);
    assert_eq!(names(&all).len(), tapflow::mcp::engine().tools().count());
    for t in all["tools"].as_array().unwrap() {
        let name = &t["name"];
        let input = &t["inputSchema"];
        // Plain nullables in inputs, standard formats everywhere, references that resolve.
        walk(input, &mut |k, v| match k {
            "type" => assert!(!v.to_string().contains("null"), "{name}: type {v}"),
            "enum" => assert!(!v.as_array().unwrap().contains(&Value::Null), "{name}"),
            "$ref" => {
                let def = v.as_str().unwrap().strip_prefix("#/$defs/").unwrap();
                assert!(input["$defs"].get(def).is_some(), "{name}: {v}");
            }
            _ => {}
        });
        walk(t, &mut |k, v| {
            if k == "format" && v.is_string() {
                assert!(
                    ["uuid", "date-time"].contains(&v.as_str().unwrap()),
                    "{name}: format {v}"
                );
            }
        });
    }
    // `approval` counts only in trusted-caller mode: not listed otherwise.
    for t in tools {
        assert!(
            t["inputSchema"]["properties"].get("approval").is_none(),
            "{}",
            t["name"]
        );
    }
    // Selector anchors are defined once per tool.
    let click = tools.iter().find(|t| t["name"] == "click").unwrap();
    assert_eq!(
        click["inputSchema"]["properties"]["below"]["$ref"],
        "#/$defs/Anchor"
    );
    // Levels: get_ui_tree's default is the digest its description promises; run_flow has one.
    let level = |n: &str| {
        tools.iter().find(|t| t["name"] == n).unwrap()["inputSchema"]["properties"]
            ["response_level"]
            .clone()
    };
    assert_eq!(level("get_ui_tree")["default"], "digest");
    assert_eq!(level("find_elements")["default"], "default");
    assert_eq!(
        level("run_flow")["enum"],
        json!(["digest", "default", "full"])
    );
}

#[test]
fn the_profile_comes_first_then_allow_and_deny() {
    let tmp = tempfile::tempdir().unwrap();
    let narrowed = Session::start(&["--allow-tools", "*_app"], tmp.path()).tools_list();
    assert_eq!(
        names(&narrowed),
        ["run_app", "stop_app"],
        "the core profile's *_app tools only (install_app and uninstall_app are not in it)"
    );
    let widened =
        Session::start(&["--tools", "all", "--deny-tools", "build_*"], tmp.path()).tools_list();
    assert!(names(&widened).contains(&"install_app".to_string()));
    assert!(!names(&widened).contains(&"build_app".to_string()));
    // Naming a tool the profile leaves out is an error that says what to do.
    let (ok, _, err) = mcp_proc::run(
        Command::new(cli::bin())
            .args(["mcp", "--sim", "1", "--allow-tools", "click,build_app"])
            .current_dir(tmp.path()),
        GUARD,
    );
    assert!(
        !ok && err.contains("`build_app` is not in the `core` tool profile; add --tools all"),
        "{err}"
    );
    // tapflow.toml's `[mcp] tools`, and a bad value named with its key.
    std::fs::write(tmp.path().join("tapflow.toml"), "[mcp]\ntools = \"all\"\n").unwrap();
    let from_file = Session::start(&[], tmp.path()).tools_list();
    assert_eq!(
        names(&from_file).len(),
        tapflow::mcp::engine().tools().count()
    );
    std::fs::write(tmp.path().join("tapflow.toml"), "[mcp]\ntools = \"most\"\n").unwrap();
    let (ok, _, err) = mcp_proc::run(
        Command::new(cli::bin())
            .args(["mcp", "--sim", "1"])
            .current_dir(tmp.path()),
        GUARD,
    );
    assert!(
        !ok && err.contains("mcp.tools") && err.contains("\"core\" or \"all\""),
        "{err}"
    );
}

/// The Python of the OpenAI Agents SDK (`TAPFLOW_OPENAI_AGENTS_PYTHON`, else the venv
/// scripts/test-deps.d/35-openai-agents.sh installs).
fn agents_python() -> std::path::PathBuf {
    let p = std::env::var_os("TAPFLOW_OPENAI_AGENTS_PYTHON")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| repo().join(".test-deps/openai-agents-0.24/bin/python"));
    assert!(
        p.exists(),
        "{} is missing: run scripts/test-deps.d/35-openai-agents.sh",
        p.display()
    );
    p
}

#[test]
fn every_input_schema_converts_to_openai_strict_mode() {
    let tmp = tempfile::tempdir().unwrap();
    let all = Session::start(&["--tools", "all"], tmp.path()).tools_list();
    let mut child = Command::new(agents_python())
        .arg(repo().join("tests/mcp/strict_check.py"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(all["tools"].to_string().as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{text}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let facts: Value = serde_json::from_str(text.lines().last().unwrap()).unwrap();
    assert_eq!(facts["checked"], names(&all).len());
    assert_eq!(facts["failed"], json!({}), "strict-mode conversion failed");
}

/// The TypeScript SDK 1.x (`TAPFLOW_TS_SDK`, else the install of
/// scripts/test-deps.d/40-mcp-ts-sdk-1.sh) lists every tool without a warning: it compiles each
/// outputSchema with Ajv, which warned once per non-standard `format` (156 before).
#[test]
fn typescript_sdk_1_lists_every_tool_without_a_warning() {
    let sdk = std::env::var_os("TAPFLOW_TS_SDK")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| {
            repo().join(".test-deps/mcp-ts-sdk-1/node_modules/@modelcontextprotocol/sdk")
        });
    assert!(
        sdk.exists(),
        "{} is missing: run scripts/test-deps.d/40-mcp-ts-sdk-1.sh",
        sdk.display()
    );
    let bin = cli::bin();
    let (ok, out, err) = mcp_proc::run(
        Command::new("node")
            .arg(repo().join("scripts/bench/mcp_ts_list.cjs"))
            .arg(&sdk)
            .arg(&bin)
            .args(["--tools", "all"]),
        GUARD,
    );
    assert!(ok, "{out}\n{err}");
    let facts: Value = serde_json::from_str(out.lines().last().unwrap_or("")).unwrap();
    eprintln!("TypeScript SDK 1.x listTools: {facts}");
    assert_eq!(facts["tools"], tapflow::mcp::engine().tools().count());
    assert_eq!(facts["warnings"], 0, "{facts}");
}
