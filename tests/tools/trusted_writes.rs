//! Issue 18, deliverable 1: trusted configuration is written by people, not tools. Every tool of
//! the MCP registry that writes host files (found from its published `writes_host_files`
//! policy) is walked against every configuration target: the project's `tapflow.toml`, the
//! project file `--config` named, the MCP token file, `.tapflow/`, another project's
//! `tapflow.toml`, a new one, each spelt plainly, with `./`, with `..`, in other case,
//! absolutely and through a linked directory. Flows get the same walk through `run_flow`.
//!
//! The configuration is the widest a project gets: the project directory itself is an output
//! root, so nothing here is refused merely for lying outside the output roots; what refuses
//! is the trusted-configuration rule of the host-path policy (`hostfs::trusted`). Without it,
//! `logs_query {"save_path": "tapflow.toml"}` creates the file the next `tapflow mcp` trusts.
//!
//! A tool that gains a host-path parameter must be classified in [`PATH_PARAMS`] (read or
//! written); a written one is then walked automatically.

#![cfg(unix)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};
use tapflow::cli::setup::{CommandLine, root_sources};
use tapflow::mcp::session_log::SessionLog;
use tapflow::project::Project;
use tapflow::sim_provider::SimProvider;
use tapflow_device::hostfs::trusted::{CONFIG_FILE_NAMES, STATE_DIR_NAME};
use tapflow_sim::{FaultSpec, Latency};
use tapflow_tools::{Engine, ToolConfig, ToolContext};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Use {
    Read,
    Write,
}

/// Every host-path parameter of the registry, by what its tool does with it.
const PATH_PARAMS: &[(&str, &str, Use)] = &[
    ("logs_query", "save_path", Use::Write),
    ("logs_query", "input_file", Use::Read),
    ("logs_query", "input_files", Use::Read),
    ("screenshot", "local_path", Use::Write),
    ("install_app", "hap_path", Use::Read),
    ("build_app", "project_path", Use::Read),
    ("validate_flow", "path", Use::Read),
    ("plan_flow", "path", Use::Read),
    ("run_flow", "path", Use::Read),
    ("save_flow", "path", Use::Write),
];

/// Tools that write host files at places no parameter names, and where.
const FIXED_OUTPUTS: &[(&str, &str)] = &[
    (
        "run_flow",
        "a new run directory under the reports directory; its flows' steps are walked below",
    ),
    (
        "build_app",
        "the build outputs of the project it builds: it executes host code and needs approval",
    ),
];

/// A parameter name that names a host path.
fn path_like(name: &str) -> bool {
    name == "path"
        || ["_path", "_file", "_files", "_dir", "_dirs"]
            .iter()
            .any(|s| name.ends_with(s))
}

#[test]
fn every_host_path_parameter_is_classified_and_every_writer_is_walked() {
    let engine = tapflow::mcp::engine();
    let mut seen = Vec::new();
    for def in engine.tools() {
        let props = def.input_schema()["properties"]
            .as_object()
            .cloned()
            .unwrap_or_default();
        let mut writes_by_param = false;
        for name in props.keys().filter(|n| path_like(n)) {
            let entry = PATH_PARAMS
                .iter()
                .find(|(t, p, _)| *t == def.name && p == name)
                .unwrap_or_else(|| {
                    panic!(
                        "{}.{name} names a host path: add it to PATH_PARAMS as read or written \
                         (a written one is then walked against every configuration target)",
                        def.name
                    )
                });
            writes_by_param |= entry.2 == Use::Write;
            seen.push((def.name, name.clone()));
        }
        if def.policy.writes_host_files {
            assert!(
                writes_by_param || FIXED_OUTPUTS.iter().any(|(t, _)| *t == def.name),
                "{} writes host files but has no written path parameter in PATH_PARAMS and \
                 no entry in FIXED_OUTPUTS",
                def.name
            );
        }
    }
    for (tool, param, _) in PATH_PARAMS {
        assert!(
            seen.iter().any(|(t, p)| t == tool && p == param),
            "PATH_PARAMS names {tool}.{param}, which the registry does not have"
        );
    }
}

/// The project, its configuration targets, and a tool context over one simulated phone.
struct Rig {
    engine: Engine,
    ctx: ToolContext,
    project: PathBuf,
    _tmp: tempfile::TempDir,
}

const PEOPLE_WROTE_THIS: &str = "# written by a person\n";

fn rig() -> Rig {
    let tmp = tempfile::tempdir().unwrap();
    let project = tmp.path().join("project");
    for d in ["other", "secrets", STATE_DIR_NAME, "sub"] {
        std::fs::create_dir_all(project.join(d)).unwrap();
    }
    for f in [
        "tapflow.toml",
        "ci.toml",
        "secrets/mcp-token",
        ".tapflow/state",
    ] {
        std::fs::write(project.join(f), PEOPLE_WROTE_THIS).unwrap();
    }
    std::os::unix::fs::symlink(&project, project.join("link")).unwrap();
    // As `tapflow mcp --config ci.toml --token-file secrets/mcp-token --output-root .` would
    // configure it (relative paths against the project, the working directory).
    let loaded = Project::load(Some(Path::new("ci.toml")), &project).unwrap();
    let line = CommandLine {
        output_roots: vec![project.clone()],
        trusted_files: vec![PathBuf::from("secrets/mcp-token")],
        ..CommandLine::default()
    };
    let env = [(
        "HOME".to_string(),
        tmp.path().join("home").display().to_string(),
    )]
    .into();
    let config = ToolConfig::configure(&env, &project, &root_sources(&loaded, &line)).unwrap();
    assert!(config.paths.write_roots().contains(&project));
    let provider = SimProvider::single(Latency::None, FaultSpec::none(), 7, &project);
    Rig {
        engine: tapflow::mcp::engine(),
        ctx: ToolContext::new(provider, config),
        project,
        _tmp: tmp,
    }
}

/// Every spelling of every configuration target, relative to the project (or absolute).
fn targets(project: &Path) -> Vec<String> {
    let mut files: Vec<String> = CONFIG_FILE_NAMES.iter().map(|n| n.to_string()).collect();
    files.extend(
        [
            "ci.toml",
            "secrets/mcp-token",
            ".tapflow/state",
            ".tapflow/new.log",
            "other/tapflow.toml",
            "sub/new/tapflow.toml",
        ]
        .map(String::from),
    );
    let mut out = Vec::new();
    for f in files {
        out.push(f.clone());
        out.push(format!("./{f}"));
        out.push(format!("sub/../{f}"));
        out.push(f.to_uppercase());
        out.push(project.join(&f).display().to_string());
        out.push(format!("link/{f}"));
    }
    out
}

/// Every file under the project (links not followed) with its bytes, the reports directory
/// left out (`run_flow` writes its runs there).
fn snapshot(project: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    walkdir::WalkDir::new(project)
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| !e.path().starts_with(project.join("reports")))
        .filter(|e| e.file_type().is_file())
        .map(|e| (e.path().to_path_buf(), std::fs::read(e.path()).unwrap()))
        .collect()
}

/// Arguments that let `tool` reach its write (everything but the written path).
fn base_args(tool: &str) -> Value {
    match tool {
        "logs_query" => json!({"logs": ["[paths]", "allowed_roots = [\"/\"]"]}),
        _ => json!({}),
    }
}

/// The path `tool` is given for `target`: `save_flow` writes only `.yaml` files, so it aims
/// below the target (refused all the same: under a project file, `.tapflow/` or a file the
/// process was configured with).
fn aimed(tool: &str, target: &str) -> String {
    match tool {
        "save_flow" => format!("{target}/saved.yaml"),
        _ => target.to_string(),
    }
}

#[test]
fn no_writing_tool_creates_or_changes_trusted_configuration() {
    let r = rig();
    let before = snapshot(&r.project);
    let mut by_policy = 0;
    // Trusted files as they really are, to compare with what a successful call wrote.
    let trusted: Vec<PathBuf> = before
        .keys()
        .filter(|p| !p.starts_with(r.project.join("screenshots")))
        .map(|p| std::fs::canonicalize(p).unwrap())
        .collect();
    for (tool, param, _) in PATH_PARAMS.iter().filter(|(_, _, u)| *u == Use::Write) {
        for target in targets(&r.project) {
            let mut args = base_args(tool);
            args[*param] = Value::String(aimed(tool, &target));
            // As an MCP session runs it (`save_flow` saves the session's calls).
            let env = SessionLog::new().enter(|| r.engine.call(tool, args, &r.ctx));
            if env.ok() {
                // A screenshot named without an extension gets `.png` (`mcp-token.png`): a new
                // file beside the target, never the target. Taken away again for the final
                // comparison.
                let written = PathBuf::from(env.result()[*param].as_str().unwrap());
                let real = std::fs::canonicalize(&written).unwrap();
                let name = written
                    .file_name()
                    .unwrap()
                    .to_string_lossy()
                    .to_lowercase();
                assert!(
                    name.ends_with(".png")
                        && !target.to_lowercase().ends_with(".png")
                        && !trusted.contains(&real)
                        && !real.to_string_lossy().to_lowercase().contains("/.tapflow/"),
                    "{tool} {param}={target} wrote {}",
                    written.display()
                );
                std::fs::remove_file(&written).unwrap();
                continue;
            }
            let err = env.structured.error.as_ref().unwrap();
            let reason = err.details["reason"].as_str();
            if reason == Some("TRUSTED_CONFIG") {
                by_policy += 1;
                assert!(
                    err.message.contains("never create or change"),
                    "{}",
                    err.message
                );
            } else {
                // Only the tool's own argument rules may refuse first (a screenshot must end in
                // .png/.jpg/.jpeg), never a device or I/O error after a write was attempted.
                assert_eq!(
                    err.code.as_str(),
                    "INVALID_PARAM",
                    "{tool} {param}={target}: {err:?}"
                );
            }
        }
    }
    // logs_query takes any name, so every target reached the policy at least there.
    assert!(by_policy >= targets(&r.project).len(), "{by_policy}");
    assert_eq!(snapshot(&r.project), before, "nothing created or changed");
}

#[test]
fn no_flow_step_creates_or_changes_trusted_configuration() {
    let r = rig();
    let before = snapshot(&r.project);
    let mut steps = String::new();
    for target in targets(&r.project) {
        // Absolute, so a screenshot's relative path is not moved into the run directory.
        let abs = if Path::new(&target).is_absolute() {
            target.clone()
        } else {
            r.project.join(&target).display().to_string()
        };
        steps.push_str(&format!(
            "  - logs_query: {{logs: [\"allowed_roots = ['/']\"], save_path: {abs:?}}}\n    optional: true\n  - screenshot: {{local_path: {:?}}}\n    optional: true\n",
            format!("{abs}/shot.png")
        ));
    }
    let yaml = format!("name: Plant configuration\nsteps:\n{steps}");
    let env = r.engine.call("run_flow", json!({ "yaml": yaml }), &r.ctx);
    let v = env.to_value();
    let sc = &v["structuredContent"];
    assert_eq!(sc["ok"], true, "the run itself completes: {sc:#}");
    let run_dir = PathBuf::from(sc["result"]["run_dir"].as_str().unwrap());
    let result: Value =
        serde_json::from_slice(&std::fs::read(run_dir.join("result.json")).unwrap()).unwrap();
    let steps = result["flows"][0]["steps"].as_array().unwrap();
    assert_eq!(steps.len(), 2 * targets(&r.project).len(), "every step ran");
    for s in steps {
        assert_eq!(s["error"]["code"], "PATH_NOT_ALLOWED", "{s:#}");
        assert_eq!(s["error"]["details"]["reason"], "TRUSTED_CONFIG", "{s:#}");
    }
    assert_eq!(snapshot(&r.project), before, "nothing created or changed");
}
