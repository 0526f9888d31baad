//! openai-agents (PyPI 0.24.0), an agent host people run, with its default MCP settings: the
//! model gets a result's `content`, not its `structuredContent`. Driven through the host's own
//! `MCPServerStdio` and `MCPUtil.invoke_mcp_tool` (tests/mcp/openai_agents_check.py; no model
//! involved). Seen before (issue 19): the model got `find_elements: ok` with no handle, and
//! `run_flow: ok` for a failed run. The venv comes from scripts/test-deps.d/35-openai-agents.sh;
//! a missing one fails the test and names the script.

use crate::common::cli;
use crate::common::mcp_proc;

use std::process::Command;
use std::time::Duration;

use mcp_proc::{repo, run};
use serde_json::Value;

const GUARD: Duration = Duration::from_secs(300);

#[test]
fn the_model_sees_handles_and_the_failing_step() {
    let python = repo().join(".test-deps/openai-agents-0.24/bin/python");
    assert!(
        python.exists(),
        "{} is missing: run scripts/test-deps.d/35-openai-agents.sh (or scripts/test)",
        python.display()
    );
    let tmp = tempfile::tempdir().unwrap();
    let (ok, out, err) = run(
        Command::new(python)
            .arg(repo().join("tests/mcp/openai_agents_check.py"))
            .arg(cli::bin())
            .current_dir(tmp.path()),
        GUARD,
    );
    assert!(ok, "openai_agents_check.py failed:\n{err}\n{out}");
    let facts: Value = serde_json::from_str(out.lines().last().unwrap_or(""))
        .unwrap_or_else(|e| panic!("no facts line ({e}):\n{out}\n{err}"));

    let found = facts["find_elements"].as_str().unwrap();
    assert!(
        found.starts_with("find_elements: ok: 1 element found\n"),
        "{found}"
    );
    assert!(
        found.contains("\"element_handle\":{") && found.contains("\"id\":\"username\""),
        "the model sees the handle: {found}"
    );

    let failed = facts["run_flow_failed"].as_str().unwrap();
    let first = failed.lines().next().unwrap();
    assert!(
        first.starts_with("run_flow: ok: FAILED at step `click No such button`"),
        "{first}"
    );
    assert!(first.contains("ELEMENT_NOT_FOUND"), "the code: {first}");
    assert!(first.contains("inline.yaml:5:5"), "the place: {first}");
}
