//! Issue 18, seen 1, end to end with the real binary: an agent's `logs_query` with
//! `save_path: tapflow.toml` created the project's trusted configuration; the next `tapflow mcp`
//! (or `tapflow tool`, or run) started there read `allowed_roots = ["/"]` from it and served
//! `/etc/passwd`. Now no tool writes a `tapflow.toml`, and no file or variable alone can make `/`
//! or the home directory a root: only the command line can (`tapflow mcp --allow-root /`).

use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

use rmcp::ServiceExt;
use rmcp::model::CallToolRequestParams;
use serde_json::{Value, json};

use crate::common::cli;

/// `tapflow` in `dir`, with a scratch home and no inherited roots.
fn isolated(dir: &Path) -> std::process::Command {
    let mut c = cli::command(dir);
    cli::without_tapflow_vars(&mut c);
    c.env("HOME", dir.parent().unwrap().join("home"));
    c
}

fn tool(dir: &Path, name: &str, args: &Value, env: &[(&str, &str)]) -> std::process::Output {
    let mut c = isolated(dir);
    c.envs(env.iter().copied());
    c.args(["tool", name, &args.to_string()]).output().unwrap()
}

fn envelope(out: &std::process::Output) -> Value {
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}", cli::text(out)))
}

const PLANTED: [&str; 2] = ["[paths]", "allowed_roots = [\"/\"]"];

#[test]
fn an_agent_cannot_plant_the_project_file() {
    let tmp = tempfile::tempdir().unwrap();
    let project = tmp.path().join("project");
    std::fs::create_dir_all(&project).unwrap();
    let project_s = project.display().to_string();
    // By default the project is read, not written; named an output root (the widest
    // configuration), the trusted-configuration rule still refuses every spelling.
    for env in [vec![], vec![("TAPFLOW_OUTPUT_ROOTS", project_s.as_str())]] {
        for path in ["tapflow.toml", "logs/../TAPFLOW.TOML", "./tapflow.toml"] {
            let out = tool(
                &project,
                "logs_query",
                &json!({"logs": PLANTED, "save_path": path}),
                &env,
            );
            let v = envelope(&out);
            let error = &v["structuredContent"]["error"];
            assert_eq!(error["code"], "PATH_NOT_ALLOWED", "{path}: {v}");
            if !env.is_empty() {
                assert_eq!(error["details"]["reason"], "TRUSTED_CONFIG", "{path}: {v}");
                assert!(
                    error["message"]
                        .as_str()
                        .unwrap()
                        .contains("tools never create or change configuration"),
                    "{v}"
                );
            }
        }
    }
    let names: Vec<_> = std::fs::read_dir(&project)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert!(
        !names
            .iter()
            .any(|n| n.to_string_lossy().eq_ignore_ascii_case("tapflow.toml")),
        "{names:?}"
    );
}

#[test]
fn a_project_file_cannot_open_the_whole_disk() {
    let tmp = tempfile::tempdir().unwrap();
    let project = tmp.path().join("project");
    let outside = tmp.path().join("outside");
    std::fs::create_dir_all(&project).unwrap();
    std::fs::create_dir_all(&outside).unwrap();
    let secret = outside.join("secret.log");
    std::fs::write(&secret, "01-23 21:05:00.000 1 1 E A0/t: SECRET-LINE\n").unwrap();
    // Written by hand this time, as the planted file would have been.
    std::fs::write(project.join("tapflow.toml"), PLANTED.join("\n")).unwrap();
    let read = json!({"input_file": secret.display().to_string(), "mode": "markers", "marker_keywords": ["SECRET"]});

    let out = tool(&project, "logs_query", &read, &[]);
    let text = cli::text(&out);
    assert_eq!(out.status.code(), Some(2), "{text}");
    assert!(!text.contains("SECRET-LINE"), "{text}");
    assert!(
        text.contains("[paths] allowed_roots of the project file names /, the whole file system")
            && text.contains("tapflow mcp --allow-root /"),
        "{text}"
    );
    // The same from a variable.
    std::fs::remove_file(project.join("tapflow.toml")).unwrap();
    let out = tool(
        &project,
        "logs_query",
        &read,
        &[("TAPFLOW_ALLOWED_ROOTS", "/")],
    );
    assert_eq!(out.status.code(), Some(2), "{}", cli::text(&out));
    assert!(
        cli::text(&out).contains("tapflow: TAPFLOW_ALLOWED_ROOTS names /, the whole file system"),
        "{}",
        cli::text(&out)
    );
    std::fs::write(project.join("tapflow.toml"), PLANTED.join("\n")).unwrap();

    // The MCP server refuses to start on it…
    let mut mcp = isolated(&project);
    mcp.arg("mcp");
    let (ok, _, err) = crate::common::mcp_proc::run(&mut mcp, Duration::from_secs(60));
    assert!(!ok && err.contains("tapflow mcp --allow-root /"), "{err}");
}

/// …and starts when its own command line grants `/`: a real MCP client then reads the file.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_command_line_can_grant_the_whole_disk() {
    let tmp = tempfile::tempdir().unwrap();
    let project = tmp.path().join("project");
    let outside = tmp.path().join("outside");
    std::fs::create_dir_all(&project).unwrap();
    std::fs::create_dir_all(&outside).unwrap();
    let secret = outside.join("secret.log");
    std::fs::write(&secret, "01-23 21:05:00.000 1 1 E A0/t: SECRET-LINE\n").unwrap();
    std::fs::write(project.join("tapflow.toml"), PLANTED.join("\n")).unwrap();
    let mut cmd = tokio::process::Command::from(isolated(&project));
    cmd.args(["mcp", "--allow-root", "/"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .kill_on_drop(true);
    let mut child = cmd.spawn().expect("tapflow mcp starts");
    let transport = (child.stdout.take().unwrap(), child.stdin.take().unwrap());
    let session = tokio::time::timeout(Duration::from_secs(60), ().serve(transport))
        .await
        .expect("the handshake within the hang guard")
        .expect("the MCP session starts");
    let args = json!({"input_file": secret.display().to_string(), "mode": "markers", "marker_keywords": ["SECRET"]});
    let Value::Object(args) = args else {
        unreachable!()
    };
    let r = tokio::time::timeout(
        Duration::from_secs(60),
        session.call_tool(CallToolRequestParams::new("logs_query").with_arguments(args)),
    )
    .await
    .expect("an answer within the hang guard")
    .expect("tools/call");
    let sc = r.structured_content.expect("structuredContent");
    assert_eq!(sc["ok"], true, "{sc:#}");
    assert_eq!(sc["result"]["matched"], true, "{sc:#}");
    session.cancel().await.unwrap();
    let status = tokio::time::timeout(Duration::from_secs(30), child.wait())
        .await
        .expect("the server exits once the client is gone")
        .unwrap();
    assert!(status.success(), "{status:?}");
}
