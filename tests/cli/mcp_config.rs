//! Issue 19, part 2: `[mcp]` in tapflow.toml is the MCP server's policy only. `tapflow run` is
//! the operator's own command: a flow with a step that `[mcp] deny_tools` denies (and that
//! `tapflow mcp --require-approval` would ask approval for) runs unchanged, and its result
//! records no approval. (The server side: tests/mcp/elicitation.rs runs `tapflow mcp` in a
//! directory whose tapflow.toml denies `clear_app_data`.)

use serde_json::Value;

use crate::common::cli;

#[test]
fn mcp_only_policy_leaves_tapflow_run_unchanged() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    std::fs::write(
        dir.join("tapflow.toml"),
        "[mcp]\ndeny_tools = [\"uninstall_app\", \"clear_app_data\"]\napproval = \"operator\"\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("remove.yaml"),
        "name: Remove\nsteps:\n  - uninstall_app: com.tapflow.demo\n",
    )
    .unwrap();
    let mut c = cli::command(dir);
    cli::without_tapflow_vars(&mut c);
    let out = c
        .args([
            "run",
            "remove.yaml",
            "--sim",
            "1",
            "--sim-latency",
            "none",
            "--no-progress",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", cli::text(&out));
    let runs: Vec<_> = std::fs::read_dir(dir.join("reports"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(runs.len(), 1);
    let result: Value =
        serde_json::from_slice(&std::fs::read(runs[0].join("result.json")).unwrap()).unwrap();
    let step = &result["flows"][0]["steps"][0];
    assert_eq!(step["tool"], "uninstall_app", "{result:#}");
    assert_eq!(step["status"], "passed", "{step:#}");
    assert!(result.get("approval").is_none(), "{result:#}");

    // A bad [mcp] table is still an error the CLI names (the file is the operator's).
    std::fs::write(dir.join("tapflow.toml"), "[mcp]\napproval = \"anyone\"\n").unwrap();
    let mut c = cli::command(dir);
    cli::without_tapflow_vars(&mut c);
    let out = c
        .args(["run", "remove.yaml", "--sim", "1", "--no-progress"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", cli::text(&out));
    assert!(
        cli::text(&out).contains("mcp.approval"),
        "{}",
        cli::text(&out)
    );
}
