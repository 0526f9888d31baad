//! Property test through the real binary (issue 9 item 4): random secrets drawn from a hostile
//! alphabet are typed into the simulated demo app's visible user-name field, shown on the next
//! page and logged by the app (line by line on hilog); a step then fails on purpose (an
//! `assert_visible` that cannot hold) and another times out on purpose (UI dumps slowed by the
//! `slow-dump` fault beyond the step's deadline). Every file under the run directory, stdout and
//! stderr are grepped for every form of the secret (`common/leaks.rs`, an oracle independent of
//! the masker). A fixed, small number of cases from a fixed seed keeps it deterministic and
//! short; the masker alone is tested on thousands of cases in `run::mask`.

use proptest::prelude::*;
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};

use crate::common::cli;
use crate::common::leaks;

/// Cases through the binary (each is one `tapflow run` of a few seconds).
const CASES: u32 = 4;

const HOSTILE: &[&str] = &[
    "\"", "\\", "'", "$", "`", "%", "&", "<", ">", "\t", " ", "😀", "用户", "{{", "}}", "+", "=",
    "/", "#", "?", "é", "\u{1b}", "*",
];

/// One line: hostile characters around a token, so that every form of the line is distinctive
/// (no accidental match in unrelated output).
fn line() -> impl Strategy<Value = String> {
    (
        proptest::collection::vec(proptest::sample::select(HOSTILE), 0..5),
        "[A-Za-z0-9]{6}",
        proptest::collection::vec(proptest::sample::select(HOSTILE), 0..5),
    )
        .prop_map(|(a, t, b)| format!("{}{t}{}", a.concat(), b.concat()))
}

/// A secret of one or two lines; `true`: passed as `TAPFLOW_PASSWORD`, else with `--env`.
fn case() -> impl Strategy<Value = (String, bool)> {
    (proptest::collection::vec(line(), 1..3), any::<bool>())
        .prop_map(|(lines, via_env)| (lines.join("\n"), via_env))
}

const FLOW: &str = "name: Hostile secret
app: com.tapflow.demo
clean_state: true
env:
  PASSWORD: {secret: true}
steps:
  # A field may transform some characters (tabs, newlines): the value is typed, unverified.
  - input_text: {element_id: username, text: \"{{ PASSWORD }}\"}
    optional: true
  # 0.8 s later the app shows `Hello, <name>!` and logs `LOGIN_SUCCESS user=<name>`.
  - click: {element_id: login}
  # Fails on purpose, with the log line in its time window (evidence: screenshot, UI tree,
  # hilog).
  - assert_visible: {text: \"{{ PASSWORD }} is not shown\", timeout_ms: 1500}
    optional: true
  - assert_visible: {element_id: greeting, timeout_ms: 8000}
  # Times out on purpose: one dump takes longer than the deadline.
  - find_elements: {text: \"{{ PASSWORD }}\"}
    deadline: 200ms
";

fn run_case(secret: &str, via_env: bool) -> Result<(), TestCaseError> {
    let started = std::time::Instant::now();
    let dir = tempfile::tempdir().unwrap();
    let flow = dir.path().join("hostile.yaml");
    std::fs::write(&flow, FLOW).unwrap();
    let report = dir.path().join("report");
    let mut cmd = cli::assert_command(cli::repo());
    for (k, _) in std::env::vars().filter(|(k, _)| k.starts_with("TAPFLOW_")) {
        cmd.env_remove(k);
    }
    cmd.arg("run").arg(&flow);
    cmd.args(["--sim", "1", "--sim-latency", "none"]);
    cmd.args(["--sim-faults", "slow-dump=400ms"]);
    if via_env {
        cmd.env("TAPFLOW_PASSWORD", secret);
    } else {
        cmd.arg("--env").arg(format!("PASSWORD={secret}"));
    }
    let out = cmd.arg("--report-dir").arg(&report).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    prop_assert_eq!(out.status.code(), Some(1), "{}", stderr);
    let r: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(report.join("result.json")).unwrap())
            .unwrap();
    let steps = r["flows"][0]["steps"].as_array().unwrap();
    let code = |i: usize| steps[i]["error"]["code"].as_str().unwrap_or("").to_string();
    // The login went through, the forced failure and the forced timeout happened.
    prop_assert_eq!(code(2), "WAIT_TIMEOUT", "{}", stderr);
    prop_assert_eq!(steps[3]["status"].as_str(), Some("passed"), "{}", stderr);
    prop_assert_eq!(code(4), "STEP_TIMEOUT", "{}", stderr);
    // The secret was on screen and in the log, so the evidence had it to mask.
    let evidence: Vec<_> = walkdir::WalkDir::new(&report)
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.path().to_string_lossy().contains("artifacts/"))
        .map(|e| e.path().to_path_buf())
        .collect();
    let trees: Vec<String> = evidence
        .iter()
        .filter(|p| p.to_string_lossy().ends_with(".ui_tree.json"))
        .map(|p| std::fs::read_to_string(p).unwrap())
        .collect();
    prop_assert_eq!(trees.len(), 2);
    prop_assert!(
        trees.iter().all(|t| t.contains("Hello, ******")),
        "{:?}",
        trees
    );
    prop_assert!(
        evidence
            .iter()
            .any(|p| p.to_string_lossy().ends_with(".hilog.txt"))
    );
    leaks::assert_nowhere(
        secret,
        &report,
        &[("stdout", &out.stdout), ("stderr", &out.stderr)],
    );
    eprintln!(
        "{secret:?} (via_env {via_env}): clean, {:?}",
        started.elapsed()
    );
    Ok(())
}

#[test]
fn hostile_secrets_never_leave_a_failing_run() {
    let config = Config {
        cases: CASES,
        failure_persistence: None,
        // A failing case is reported as found: shrinking would rerun the binary many times.
        max_shrink_iters: 0,
        ..Config::default()
    };
    let rng = TestRng::from_seed(RngAlgorithm::ChaCha, &[9; 32]);
    let mut runner = TestRunner::new_with_rng(config, rng);
    let result = runner.run(&case(), |(secret, via_env)| run_case(&secret, via_env));
    if let Err(e) = result {
        panic!("{e}");
    }
}
