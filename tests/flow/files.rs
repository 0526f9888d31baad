//! Issue 9, item 3 and the non-UTF-8 point of item 7, through the `tapflow` binary: flow and
//! sub-flow files stay inside the flow's project, are read with a bound, and a file that cannot be
//! read as a flow is one diagnostic that quotes nothing of it, while every other file is still
//! checked. `validate`, `plan` and `run` read flows through the same loader.
//!
//! Reproduced "Seen" cases: `run_flow: /proc/self/environ` printed every environment variable
//! (a `TAPFLOW_PASSWORD` included) in the diagnostic's excerpt; `run_flow: ../../../../etc/passwd`
//! printed that file; `run_flow: /dev/zero` grew to 3.9 GB; a non-UTF-8 file exited 2 with no
//! location and no JSON and hid every other file's errors. A FIFO must not hang anything.

use std::path::Path;
use std::time::Duration;

use assert_cmd::Command;
use serde_json::Value;

use crate::common::cli;

/// Generous: each command takes well under a second; a hang (FIFO, /dev/zero) fails the test
/// instead of blocking the suite.
const HANG_GUARD: Duration = Duration::from_secs(60);

const PASSWORD: &str = "Hunter2-Env-Secret-9f31";

fn with_secrets(dir: &Path) -> Command {
    let mut c = cli::assert_command(dir);
    c.env("TAPFLOW_PASSWORD", PASSWORD)
        .env("TAPFLOW_OTHER_TOKEN", "tok-7c2e")
        .timeout(HANG_GUARD);
    c
}

struct Out {
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

impl Out {
    fn all(&self) -> String {
        format!("{}\n{}", self.stdout, self.stderr)
    }
}

fn run(dir: &Path, args: &[&str]) -> Out {
    let o = with_secrets(dir).args(args).output().unwrap();
    Out {
        code: o.status.code(),
        stdout: String::from_utf8_lossy(&o.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&o.stderr).into_owned(),
    }
}

/// `validate --format json`: the diagnostics as JSON values.
fn diagnostics(dir: &Path, args: &[&str]) -> (Option<i32>, Vec<Value>) {
    let mut a = vec!["validate", "--format", "json"];
    a.extend_from_slice(args);
    let o = run(dir, &a);
    let v: Value =
        serde_json::from_str(&o.stdout).unwrap_or_else(|e| panic!("not JSON ({e}): {}", o.all()));
    (o.code, v["diagnostics"].as_array().unwrap().clone())
}

fn write(dir: &Path, rel: &str, text: &[u8]) {
    let p = dir.join(rel);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, text).unwrap();
}

/// A flow in `flows/` whose third line calls `target`.
fn caller(dir: &Path, target: &str) {
    write(
        dir,
        "flows/caller.yaml",
        format!("name: Caller\nsteps:\n  - run_flow: {target}\n  - click: Login\n").as_bytes(),
    );
}

/// The one diagnostic is at the `run_flow` line of the caller and quotes only the caller.
fn assert_one_diagnostic_at_the_call(dir: &Path, target: &str, why: &str) {
    let (code, diags) = diagnostics(dir, &["flows/caller.yaml"]);
    assert_eq!(code, Some(3), "{diags:?}");
    assert_eq!(diags.len(), 1, "{target}: {diags:#?}");
    let d = &diags[0];
    assert_eq!(d["file"], "flows/caller.yaml");
    assert_eq!(
        (d["line"].as_u64(), d["column"].as_u64()),
        (Some(3), Some(15))
    );
    assert_eq!(d["code"], "run-flow-missing");
    assert_eq!(d["text"], target);
    let message = d["message"].as_str().unwrap();
    assert!(message.contains(why), "{target}: {message}");
}

/// Nothing secret or foreign in any output of validate, plan and run.
fn assert_nothing_leaks(dir: &Path, foreign: &[&str]) {
    for args in [
        vec!["validate", "flows/caller.yaml"],
        vec!["validate", "--format", "json", "flows/caller.yaml"],
        vec!["plan", "flows/caller.yaml"],
        vec!["plan", "--format", "json", "flows/caller.yaml"],
        vec![
            "run",
            "flows/caller.yaml",
            "--sim",
            "1",
            "--sim-latency",
            "none",
        ],
    ] {
        let o = run(dir, &args);
        assert_eq!(o.code, Some(3), "{args:?}: {}", o.all());
        let all = o.all();
        let location = if args.contains(&"json") {
            "\"line\": 3"
        } else {
            "flows/caller.yaml:3:15"
        };
        assert!(all.contains(location), "{args:?}: {all}");
        for f in [PASSWORD, "tok-7c2e"].iter().chain(foreign) {
            assert!(!all.contains(f), "{args:?} printed {f:?}: {all}");
        }
    }
}

#[test]
fn run_flow_to_proc_self_environ_prints_no_environment() {
    let dir = tempfile::tempdir().unwrap();
    caller(dir.path(), "/proc/self/environ");
    assert_one_diagnostic_at_the_call(dir.path(), "/proc/self/environ", "outside the flow root");
    assert_nothing_leaks(dir.path(), &["TAPFLOW_PASSWORD=", "PATH="]);
}

#[test]
fn run_flow_out_of_the_project_prints_nothing_of_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let target = "../../../../../../../../etc/passwd";
    caller(dir.path(), target);
    let (_, diags) = diagnostics(dir.path(), &["flows/caller.yaml"]);
    assert_eq!(diags.len(), 1, "{diags:#?}");
    assert!(
        diags[0]["message"]
            .as_str()
            .unwrap()
            .contains("outside the flow root")
    );
    assert_nothing_leaks(dir.path(), &["root:x:0:0", "/bin/bash", "nologin"]);
    // A sibling of the flow's directory is outside it too (no tapflow.toml here).
    write(
        dir.path(),
        "common/secret.yaml",
        b"TOKEN: sibling-secret-77\n",
    );
    caller(dir.path(), "../common/secret.yaml");
    assert_one_diagnostic_at_the_call(dir.path(), "../common/secret.yaml", "outside the flow root");
    assert_nothing_leaks(dir.path(), &["sibling-secret-77"]);
}

#[test]
fn run_flow_to_dev_zero_is_refused_without_reading() {
    let dir = tempfile::tempdir().unwrap();
    caller(dir.path(), "/dev/zero");
    assert_one_diagnostic_at_the_call(dir.path(), "/dev/zero", "outside the flow root");
    assert_nothing_leaks(dir.path(), &[]);
    // A link inside the flow root is judged by where it leads.
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink("/dev/zero", dir.path().join("flows/zero.yaml")).unwrap();
        caller(dir.path(), "zero.yaml");
        assert_one_diagnostic_at_the_call(dir.path(), "zero.yaml", "outside the flow root");
    }
}

#[cfg(unix)]
fn mkfifo(path: &Path) {
    let c = std::ffi::CString::new(path.as_os_str().as_encoded_bytes()).unwrap();
    // SAFETY: a valid NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
}

#[cfg(unix)]
#[test]
fn a_fifo_never_hangs_validate_plan_or_run() {
    let dir = tempfile::tempdir().unwrap();
    caller(dir.path(), "pipe.yaml");
    mkfifo(&dir.path().join("flows/pipe.yaml"));
    assert_one_diagnostic_at_the_call(dir.path(), "pipe.yaml", "not a regular file");
    assert_nothing_leaks(dir.path(), &[]);
    // Found by a directory walk, or named on the command line, it is one diagnostic of its own.
    let (code, diags) = diagnostics(dir.path(), &["flows"]);
    assert_eq!(code, Some(3));
    let own: Vec<&Value> = diags
        .iter()
        .filter(|d| d["file"] == "flows/pipe.yaml")
        .collect();
    assert_eq!(own.len(), 1, "{diags:#?}");
    assert_eq!(own[0]["code"], "flow-unreadable");
    let o = run(dir.path(), &["validate", "flows/pipe.yaml"]);
    assert_eq!(o.code, Some(3), "{}", o.all());
    assert!(o.stderr.contains("not a regular file"), "{}", o.stderr);
}

#[test]
fn a_huge_flow_file_is_refused_by_its_size() {
    let dir = tempfile::tempdir().unwrap();
    caller(dir.path(), "big.yaml");
    let big = std::fs::File::create(dir.path().join("flows/big.yaml")).unwrap();
    big.set_len(tapflow::project::MAX_FLOW_BYTES + 1).unwrap();
    assert_one_diagnostic_at_the_call(dir.path(), "big.yaml", "1024 KiB");
}

#[test]
fn the_project_directory_is_the_flow_root_with_a_project_file() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "tapflow.toml", b"");
    write(
        dir.path(),
        "common/login.yaml",
        b"steps:\n  - click: Login\n",
    );
    caller(dir.path(), "../common/login.yaml");
    let o = run(dir.path(), &["validate", "flows/caller.yaml"]);
    assert_eq!(o.code, Some(0), "{}", o.all());
    // Outside the project directory is still refused.
    let outside = tempfile::tempdir().unwrap();
    write(outside.path(), "x.yaml", b"steps:\n  - click: Login\n");
    let target = outside.path().join("x.yaml").display().to_string();
    caller(dir.path(), &target);
    assert_one_diagnostic_at_the_call(dir.path(), &target, "outside the flow root");
}

// ---------- non-UTF-8 flow files ----------

fn mixed_dir() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "flows/a_good.yaml",
        b"name: Good\nsteps:\n  - click: Login\n",
    );
    // Latin-1 "Grüße" on line 3: the first bad byte is the 0xFC after "Gr" (column 15).
    write(
        dir.path(),
        "flows/b_latin1.yaml",
        b"name: Latin-1\nsteps:\n  - click: \"Gr\xfc\xdfe\"\n  - clik: afterwards-not-reported\n",
    );
    write(
        dir.path(),
        "flows/c_typo.yaml",
        b"name: Typo\nsteps:\n  - clik: Login\n",
    );
    dir
}

#[test]
fn a_non_utf8_file_is_one_diagnostic_at_its_first_bad_byte_and_hides_nothing() {
    let dir = mixed_dir();
    let (code, diags) = diagnostics(dir.path(), &["flows"]);
    assert_eq!(code, Some(3), "exit code as for any invalid flow");
    let bad: Vec<&Value> = diags
        .iter()
        .filter(|d| d["file"] == "flows/b_latin1.yaml")
        .collect();
    assert_eq!(bad.len(), 1, "{diags:#?}");
    assert_eq!(bad[0]["code"], "invalid-utf8");
    assert_eq!(
        (bad[0]["line"].as_u64(), bad[0]["column"].as_u64()),
        (Some(3), Some(15))
    );
    assert!(
        diags
            .iter()
            .any(|d| d["file"] == "flows/c_typo.yaml" && d["code"] == "unknown-step"),
        "the other files' errors are still reported: {diags:#?}"
    );
    let text = run(dir.path(), &["validate", "flows"]);
    assert_eq!(text.code, Some(3));
    assert!(
        text.stderr.contains("flows/b_latin1.yaml:3:15"),
        "{}",
        text.stderr
    );
    assert!(text.stderr.contains("c_typo.yaml"), "{}", text.stderr);
    assert!(
        !text.all().contains("afterwards-not-reported"),
        "nothing past the bad byte is quoted: {}",
        text.all()
    );
    // plan and run report the same way.
    for args in [
        vec!["plan", "flows"],
        vec!["run", "flows", "--sim", "1", "--sim-latency", "none"],
    ] {
        let o = run(dir.path(), &args);
        assert_eq!(o.code, Some(3), "{args:?}: {}", o.all());
        assert!(
            o.stderr.contains("flows/b_latin1.yaml:3:15"),
            "{}",
            o.stderr
        );
        assert!(o.stderr.contains("c_typo.yaml"), "{}", o.stderr);
    }
}

#[test]
fn a_non_utf8_sub_flow_is_reported_at_the_call() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "flows/sub.yaml", b"steps:\n  - click: \xff\n");
    caller(dir.path(), "sub.yaml");
    assert_one_diagnostic_at_the_call(
        dir.path(),
        "sub.yaml",
        "not UTF-8 text (first invalid byte at line 2, column 12)",
    );
}

// ---------- the MCP server's flow tools ----------

/// `validate_flow` as the MCP server serves it (the same engine call, without the transport):
/// flows given by path, and inline flows, read their sub-flows through the same loader.
#[test]
fn the_mcp_flow_tools_read_flows_through_the_same_loader() {
    use tapflow_tools::{NoBackend, ToolConfig, ToolContext};
    let dir = tempfile::tempdir().unwrap();
    caller(dir.path(), "/proc/self/environ");
    let engine = tapflow::mcp::engine();
    let ctx = ToolContext::new(
        std::sync::Arc::new(NoBackend("no device needed".into())),
        ToolConfig::rooted_at(dir.path()),
    );
    let path = dir.path().join("flows/caller.yaml").display().to_string();
    let inline = "steps:\n  - click: Login\n  - run_flow: ../../../../etc/passwd\n".to_string();
    for (args, line) in [
        (serde_json::json!({ "path": path }), 3),
        (serde_json::json!({ "yaml": inline }), 3),
    ] {
        let e = engine.call("validate_flow", args.clone(), &ctx);
        assert!(e.ok(), "{args}: {:?}", e.structured.error);
        let r = e.result();
        assert_eq!(r["valid"], false);
        let diags = r["diagnostics"].as_array().unwrap();
        assert_eq!(diags.len(), 1, "{r:#}");
        assert_eq!(diags[0]["code"], "run-flow-missing");
        assert_eq!(diags[0]["line"], line);
        assert!(
            diags[0]["message"]
                .as_str()
                .unwrap()
                .contains("outside the flow root"),
            "{r:#}"
        );
        let all = e.to_value().to_string();
        for leak in ["PATH=", "root:x:0:0"] {
            assert!(!all.contains(leak), "{args} printed {leak}: {all}");
        }
    }
    // A flow path outside the allowed roots is refused before it is read.
    let e = engine.call(
        "validate_flow",
        serde_json::json!({"path": "/proc/self/environ"}),
        &ctx,
    );
    assert_eq!(e.structured.error.unwrap().code, "PATH_NOT_ALLOWED");
}
