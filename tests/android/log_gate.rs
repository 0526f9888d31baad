//! Secrets never reach a log line (issue 18, deliverable 2): a fixed, diverse set of secrets
//! (spaces, quotes, `$`, backticks, a backslash, emoji and CJK, a newline, a literal `%s`, one
//! of 150 characters typed after other text) is typed by one flow on both platforms (the
//! simulated Android device through the real adb, and the simulated HarmonyOS device), with
//! every log format (`-v`, `-vv`, `--log-format json`), through `tapflow run` and through
//! `tapflow mcp -v` (`run_flow` over stdio, the secrets given in its `env`). stdout, stderr and
//! every file of the run are grepped for every encoding of every secret (`common/leaks.rs`, an
//! oracle written without the masker) and for every 5-character run of its letters and digits
//! (what a chunk cut out of a long secret would leave).
//!
//! Seen before the gate: `tapflow -v run … --platform android` printed the adb argv of
//! `input text` unmasked, in every shape tried; `tapflow mcp -v` as well.
//!
//! Generated secrets are checked at the masking level (`run::mask` and `cli::log_gate`
//! property tests: the real adb encoders, printed by the real log formatters); a run is a few
//! seconds, so the processes get this fixed set.

use crate::common::adb_env;
use crate::common::cli;
use crate::common::leaks;

use std::path::Path;
use std::process::{Output, Stdio};
use std::time::Duration;

use rmcp::ServiceExt;
use rmcp::model::CallToolRequestParams;
use serde_json::{Map, Value, json};

/// The secrets, each with letter-and-digit runs found nowhere else.
const SECRETS: [(&str, &str); 6] = [
    ("S1", "Qz7Lk S3cret Pw"),
    ("S2", "q\"Wv9Pn'$HOME`id`\\x"),
    ("S3", "Zoë😀用户-Hj4Tm"),
    ("S4", "Rb2Nc-first\nXf8Yd-second"),
    ("S5", ""),
    ("S6", "Mn6Bt100%sure"),
];

/// 150 characters with spaces: two `input text` chunks, cut inside it (typed after `user: `).
fn long_secret() -> String {
    "Lp3Gs Kw5Jv-".repeat(13)[..150].to_string()
}

fn secrets() -> Vec<(String, String)> {
    SECRETS
        .iter()
        .map(|(k, v)| {
            let v = if v.is_empty() {
                long_secret()
            } else {
                v.to_string()
            };
            (k.to_string(), v)
        })
        .collect()
}

const FLOW: &str = "name: Secrets in logs
app: com.tapflow.demo
clean_state: true
env:
  S1: {secret: true}
  S2: {secret: true}
  S3: {secret: true}
  S4: {secret: true}
  S5: {secret: true}
  S6: {secret: true}
steps:
  # A field may refuse or change some characters (a newline in a one-line field): the values
  # are typed, not verified.
  - input_text: {element_id: username, text: \"{{ S1 }}\"}
    optional: true
  - input_text: {element_id: username, text: \"{{ S2 }}\"}
    optional: true
  - input_text: {element_id: username, text: \"{{ S3 }}\"}
    optional: true
  - input_text: {element_id: username, text: \"{{ S4 }}\"}
    optional: true
  - input_text: {element_id: username, text: \"user: {{ S5 }}\"}
    optional: true
  - input_text: {element_id: username, text: \"{{ S6 }}\"}
    optional: true
  # Fails on purpose: the error message quotes the text.
  - assert_visible: {text: \"{{ S2 }} is not shown\", timeout_ms: 300}
    optional: true
";

/// Every leak of every secret in the outputs and the files under `dir`; panics naming each.
fn assert_no_leak(what: &str, dir: &Path, outputs: &[(&str, &[u8])]) {
    let mut found = Vec::new();
    for (_, secret) in secrets() {
        leaks::assert_nowhere(&secret, dir, outputs);
        for (name, bytes) in outputs {
            for l in leaks::piece_leaks(bytes, &secret) {
                found.push((name.to_string(), l));
            }
        }
        for e in walkdir::WalkDir::new(dir)
            .into_iter()
            .filter_map(Result::ok)
        {
            if e.file_type().is_file() {
                let bytes = std::fs::read(e.path()).unwrap();
                for l in leaks::piece_leaks(&bytes, &secret) {
                    found.push((e.path().display().to_string(), l));
                }
            }
        }
    }
    assert!(found.is_empty(), "{what}: leaked: {found:#?}");
}

/// The log lines of device commands, which must be there for the check to mean anything.
fn device_call_lines(stderr: &str) -> usize {
    stderr
        .lines()
        .filter(|l| l.contains("adb round trip") || l.contains("hdc call"))
        .count()
}

fn run(home: &Path, dir: &Path, flags: &[&str], android: bool) -> Output {
    let mut c = cli::android(home, dir, &adb_env::adb_path());
    cli::without_tapflow_vars(&mut c);
    c.env_remove("RUST_LOG")
        .args(flags)
        .args(["run", "secrets.yaml", "--sim", "1"]);
    if android {
        c.args(["--platform", "android"]);
    }
    c.args([
        "--sim-latency",
        "none",
        "--no-progress",
        "--report-dir",
        "report",
    ]);
    for (k, v) in secrets() {
        c.arg("--env").arg(format!("{k}={v}"));
    }
    c.output().unwrap()
}

#[test]
fn no_secret_reaches_a_log_line_on_either_platform_in_any_format() {
    for android in [true, false] {
        for flags in [&["-v"][..], &["-vv"], &["-v", "--log-format", "json"]] {
            let what = format!("android={android} {flags:?}");
            let home = tempfile::tempdir().unwrap();
            let dir = tempfile::tempdir().unwrap();
            cli::write(dir.path(), "secrets.yaml", FLOW);
            let out = run(home.path(), dir.path(), flags, android);
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert!(
                matches!(out.status.code(), Some(0 | 1)),
                "{what}: {}",
                cli::text(&out)
            );
            let r = cli::result(&dir.path().join("report"));
            assert_eq!(r["complete"], true, "{what}");
            assert!(
                device_call_lines(&stderr) > 5,
                "{what}: no device calls logged:\n{stderr}"
            );
            if flags.contains(&"json") {
                // Log records (progress lines share stderr).
                for l in stderr.lines().filter(|l| l.starts_with('{')) {
                    serde_json::from_str::<Value>(l)
                        .unwrap_or_else(|e| panic!("{what}: not JSON ({e}): {l}"));
                }
            }
            if android {
                // The typing commands were logged, their text as its length only (as on hdc).
                assert!(
                    stderr.contains("input text <typed text: "),
                    "{what}:\n{stderr}"
                );
            }
            assert_no_leak(
                &what,
                &dir.path().join("report"),
                &[("stdout", &out.stdout), ("stderr", &out.stderr)],
            );
        }
    }
}

/// `tapflow mcp -v` (and `-vv`): the secrets arrive in `run_flow`'s `env`; the lines the server
/// logs while the flow types them are masked as `tapflow run`'s are, and `-vv` leaves out
/// rmcp's dumps of whole JSON-RPC messages (logged before the flow says which values are
/// secret).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_secret_reaches_the_mcp_servers_log() {
    for (android, verbose) in [(true, "-v"), (false, "-v"), (true, "-vv")] {
        let tmp = tempfile::tempdir().unwrap();
        cli::write(tmp.path(), "secrets.yaml", FLOW);
        let log = tmp.path().join("stderr.log");
        let mut cmd = tokio::process::Command::new(cli::bin());
        cmd.args([verbose, "mcp", "--sim", "1", "--sim-latency", "none"]);
        if android {
            cmd.args(["--platform", "android"]);
        }
        let mut child = cmd
            .arg("--allow-root")
            .arg(tmp.path())
            .current_dir(tmp.path())
            .env("TAPFLOW_ADB", adb_env::adb_path())
            .env("HOME", tmp.path())
            .env_remove("RUST_LOG")
            .env_remove("ANDROID_SERIAL")
            .env_remove("ADB_SERVER_SOCKET")
            .env_remove("ANDROID_ADB_SERVER_PORT")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(std::fs::File::create(&log).unwrap())
            .kill_on_drop(true)
            .spawn()
            .expect("tapflow mcp starts");
        let transport = (child.stdout.take().unwrap(), child.stdin.take().unwrap());
        let session = tokio::time::timeout(Duration::from_secs(60), ().serve(transport))
            .await
            .expect("the handshake within the hang guard")
            .expect("the MCP session starts");
        let env: Map<String, Value> = secrets()
            .into_iter()
            .map(|(k, v)| (k, Value::String(v)))
            .collect();
        let args = json!({"path": "secrets.yaml", "env": env});
        let Value::Object(args) = args else {
            unreachable!()
        };
        let r = tokio::time::timeout(
            Duration::from_secs(120),
            session.call_tool(CallToolRequestParams::new("run_flow").with_arguments(args)),
        )
        .await
        .expect("run_flow answers within the hang guard")
        .expect("run_flow");
        let sc = r.structured_content.expect("structuredContent");
        assert_eq!(sc["ok"], true, "android={android}: {sc:#}");
        let answer = serde_json::to_vec(&sc).unwrap();
        session.cancel().await.unwrap();
        let status = tokio::time::timeout(Duration::from_secs(30), child.wait())
            .await
            .expect("the server stops when stdin closes")
            .unwrap();
        assert!(status.success(), "{status:?}");
        let stderr = std::fs::read(&log).unwrap();
        let text = String::from_utf8_lossy(&stderr);
        assert!(
            device_call_lines(&text) > 5,
            "no device calls logged:\n{text}"
        );
        assert_no_leak(
            &format!("mcp android={android} {verbose}"),
            tmp.path(),
            &[("stderr", &stderr), ("run_flow answer", &answer)],
        );
    }
}
