//! The log subscriber through the real binary (`docs/logging.md`): `-v` shows every hdc call
//! with its argv, duration and exit status on stderr, typed text only as its length;
//! `--log-format json` lines parse as JSON; `RUST_LOG` decides when set; stdout stays the
//! tool's envelope alone. Driven against a `tapflow sim start` daemon through its `hdc`
//! executable, the path a phone would take.

use crate::common::cli;
use crate::common::sim_daemon;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;
use sim_daemon::SimDaemon;

/// The simulator daemon the tool calls go to, through its `hdc` executable.
struct Sim(SimDaemon);

impl Sim {
    fn start() -> Sim {
        Sim(SimDaemon::start(&[]))
    }

    fn hdc(&self) -> PathBuf {
        self.0.hdc.clone()
    }

    /// `tapflow [flags] --hdc <sim> tool NAME ARGS`, with `RUST_LOG` as given (unset otherwise).
    fn tool(&self, flags: &[&str], rust_log: Option<&str>, name: &str, args: &str) -> Output {
        let mut c = cli::tapflow();
        c.env_remove("RUST_LOG");
        if let Some(v) = rust_log {
            c.env("RUST_LOG", v);
        }
        c.args(flags)
            .arg("--hdc")
            .arg(self.hdc())
            .args(["tool", name, args])
            .output()
            .unwrap()
    }
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// stdout is exactly one JSON envelope: no log line leaked into it.
fn envelope(out: &Output) -> Value {
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "stdout is not one JSON envelope ({e}):\n{}",
            String::from_utf8_lossy(&out.stdout)
        )
    })
}

fn hdc_call_lines(err: &str) -> Vec<&str> {
    err.lines().filter(|l| l.contains("hdc call")).collect()
}

#[test]
fn v_shows_every_hdc_call_with_argv_duration_and_exit_status() {
    let sim = Sim::start();
    let out = sim.tool(&["-v"], None, "find_elements", r#"{"text":"Settings"}"#);
    envelope(&out);
    let err = stderr(&out);
    let calls = hdc_call_lines(&err);
    assert!(!calls.is_empty(), "no hdc call logged:\n{err}");
    let hdc = sim.hdc().display().to_string();
    let dump = calls
        .iter()
        .find(|l| l.contains("uitest dumpLayout"))
        .unwrap_or_else(|| panic!("no dump among the calls:\n{err}"));
    assert!(dump.contains(&format!("argv={hdc} ")), "{dump}");
    assert!(dump.contains(" shell "), "{dump}");
    assert!(
        regex::Regex::new(r"duration_ms=\d+")
            .unwrap()
            .is_match(dump),
        "{dump}"
    );
    assert!(dump.contains("exit=0"), "{dump}");
    assert!(dump.contains("DEBUG"), "{dump}");

    // Without -v (and without RUST_LOG): nothing but warnings.
    let quiet = sim.tool(&[], None, "find_elements", r#"{"text":"Settings"}"#);
    envelope(&quiet);
    assert!(
        hdc_call_lines(&stderr(&quiet)).is_empty(),
        "{}",
        stderr(&quiet)
    );

    // RUST_LOG decides when set.
    let by_env = sim.tool(
        &[],
        Some("tapflow::hdc=debug"),
        "find_elements",
        r#"{"text":"Settings"}"#,
    );
    envelope(&by_env);
    assert!(!hdc_call_lines(&stderr(&by_env)).is_empty());
}

#[test]
fn typed_text_is_logged_as_its_length_only() {
    let sim = Sim::start();
    let secret = "Pa55-w0rd'$(x)";
    let args = serde_json::json!({"x": 600, "y": 900, "text": secret}).to_string();
    let out = sim.tool(&["-vv"], None, "input_text", &args);
    envelope(&out);
    let err = stderr(&out);
    assert!(
        !err.contains("Pa55-w0rd"),
        "typed text leaked into the log:\n{err}"
    );
    let typed = hdc_call_lines(&err)
        .into_iter()
        .find(|l| l.contains("inputText"))
        .unwrap_or_else(|| panic!("no inputText call logged:\n{err}"));
    assert!(typed.contains("<typed text: 14 chars>"), "{typed}");
}

#[test]
fn json_log_lines_parse_and_carry_the_call() {
    let sim = Sim::start();
    let out = sim.tool(
        &["-v", "--log-format", "json"],
        None,
        "find_elements",
        r#"{"text":"Settings"}"#,
    );
    envelope(&out);
    let err = stderr(&out);
    let lines: Vec<Value> = err
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON ({e}): {l}")))
        .collect();
    let call = lines
        .iter()
        .find(|v| {
            v["fields"]["message"] == "hdc call"
                && v["fields"]["argv"]
                    .as_str()
                    .is_some_and(|a| a.contains(" shell ") && a.contains("uitest dumpLayout"))
        })
        .unwrap_or_else(|| panic!("no hdc call event for the dump:\n{err}"));
    assert_eq!(call["level"], "DEBUG");
    assert_eq!(call["target"], "tapflow::hdc");
    assert!(call["fields"]["duration_ms"].is_u64(), "{call}");
    assert_eq!(call["fields"]["exit"], "0");
    assert_eq!(call["fields"]["attempt"], 1);
}

/// The sim's hdc client (what `bin/hdc` runs) prints what hdc prints, whatever RUST_LOG says.
#[test]
fn the_simulators_hdc_client_never_logs() {
    let sim = Sim::start();
    let out = Command::new(sim.hdc())
        .args(["list", "targets"])
        .env("RUST_LOG", "trace")
        .current_dir(Path::new(env!("CARGO_MANIFEST_DIR")))
        .output()
        .unwrap();
    assert!(out.status.success());
    assert_eq!(stderr(&out), "");
}
