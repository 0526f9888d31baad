//! The `tapflow` binary as the integration tests run it, and what they read back: the command
//! (`TAPFLOW_TEST_BIN` overrides cargo's binary), its output as one text, files written for it,
//! and a run's `result.json`. Every test that runs the binary finds it here ([`bin`],
//! [`tapflow`]); a test module uses it as `crate::common::cli`. Nothing here
//! needs adb: an Android run passes `adb_env::adb_path()` (`common/adb_env.rs`) to [`android`],
//! so tests that never touch Android do not depend on an installed adb.
//!
//! Each test file still says which variables of this process it keeps out of the binary (they
//! differ on purpose: a file that tests `NO_COLOR` or `TAPFLOW_*` handling sets its own).

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The repository root (the examples in `flows/` are relative to it).
pub fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The binary under test. `TAPFLOW_TEST_BIN` overrides cargo's: several worktrees may build
/// into one shared target directory, and a local run can pin its own copy.
pub fn bin() -> PathBuf {
    match std::env::var_os("TAPFLOW_TEST_BIN") {
        Some(p) => PathBuf::from(p),
        None => PathBuf::from(env!("CARGO_BIN_EXE_tapflow")),
    }
}

/// The binary under test as a command (working directory and environment inherited).
pub fn tapflow() -> Command {
    Command::new(bin())
}

/// [`tapflow`] as `assert_cmd` runs it (`timeout`, `write_stdin`, `assert`).
pub fn assert_tapflow() -> assert_cmd::Command {
    assert_cmd::Command::from_std(tapflow())
}

/// The binary under test, run from `cwd`.
pub fn command(cwd: &Path) -> Command {
    let mut c = tapflow();
    c.current_dir(cwd);
    c
}

/// [`command`] as `assert_cmd` runs it (`timeout`, `write_stdin`, `assert`).
pub fn assert_command(cwd: &Path) -> assert_cmd::Command {
    assert_cmd::Command::from_std(command(cwd))
}

/// Keeps every `TAPFLOW_*` variable of this process out of `c` (the flows would read them).
pub fn without_tapflow_vars(c: &mut Command) -> &mut Command {
    for (k, _) in std::env::vars_os() {
        if k.to_string_lossy().starts_with("TAPFLOW_") {
            c.env_remove(k);
        }
    }
    c
}

/// The binary for an Android run: a scratch `HOME` (no `~/.android/adbkey` of the real home),
/// the real `adb` at `adb`, no inherited device selection, adb server or input timeouts.
pub fn android(home: &Path, cwd: &Path, adb: &Path) -> Command {
    let mut c = command(cwd);
    c.env("HOME", home)
        .env("ADB_EMU", "0")
        .env("TAPFLOW_ADB", adb)
        .env_remove("ANDROID_SERIAL")
        .env_remove("ADB_SERVER_SOCKET")
        .env_remove("ANDROID_ADB_SERVER_PORT")
        .env_remove("INPUT_VERIFY_TIMEOUT_MS")
        .env_remove("INPUT_FOCUS_TIMEOUT_MS")
        .env_remove("TAPFLOW_USER");
    c
}

/// Standard output, then standard error.
pub fn text(out: &Output) -> String {
    format!(
        "{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// Writes `body` to `dir/rel` (parent directories included); the path, as text for an argument.
pub fn write(dir: &Path, rel: &str, body: impl AsRef<[u8]>) -> String {
    let p = dir.join(rel);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(&p, body).unwrap();
    p.display().to_string()
}

/// A JSON file, parsed (the panic names the file).
pub fn json(path: &Path) -> serde_json::Value {
    let body = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&body).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The `result.json` of a run directory.
pub fn result(dir: &Path) -> serde_json::Value {
    json(&dir.join("result.json"))
}

/// The steps of a result, depth first (sub-flows' and blocks' children included).
pub fn steps(flow: &serde_json::Value) -> Vec<serde_json::Value> {
    fn walk(s: &serde_json::Value, out: &mut Vec<serde_json::Value>) {
        for x in s.as_array().into_iter().flatten() {
            out.push(x.clone());
            walk(&x["children"], out);
        }
    }
    let mut out = Vec::new();
    walk(&flow["steps"], &mut out);
    out
}

/// `c run FLOWS… --sim 1 --sim-latency none EXTRA… --report-dir REPORT`, to completion: the
/// flows on one in-process simulated HarmonyOS device without latency.
pub fn run_on_one_sim(mut c: Command, flows: &[&str], extra: &[&str], report: &Path) -> Output {
    c.arg("run")
        .args(flows)
        .args(["--sim", "1", "--sim-latency", "none"])
        .args(extra)
        .arg("--report-dir")
        .arg(report)
        .output()
        .unwrap()
}

/// Writes a flow on the demo app, from a clean state, with the secret variable `PASSWORD`:
/// `name: NAME`, that header, then `steps:` and `steps` (YAML lines, indented as list items).
pub fn write_secret_flow(dir: &Path, rel: &str, name: &str, steps: &str) -> String {
    let header = "app: com.tapflow.demo\nclean_state: true\nenv:\n  PASSWORD: {secret: true}\n";
    write(dir, rel, format!("name: {name}\n{header}steps:\n{steps}"))
}
