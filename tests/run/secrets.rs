//! Secrets never leave a run in any form (issue 9 item 4), `--env` / `TAPFLOW_*` values are
//! data, `\{{` is a literal `{{`, and progress lines show resolved (masked) values (issue 11).
//!
//! Each test reproduces one observed leak through the real binary (or, for the hdc timeout,
//! through `run::run` with a short hdc command deadline), then greps every byte the run wrote
//! for every encoding of the secret that tapflow itself produces.

use crate::common::cli;
use crate::common::leaks;

use std::path::Path;
use std::process::{Command, Output};
use std::sync::Arc;
use std::time::Duration;

use leaks::assert_nowhere;
use tapflow::run::{self, CollectEvents, DeviceChoice, RunOptions};
use tapflow_core::flow::SourceFile;
use tapflow_core::plan::{PlanOptions, SourceLoader, compile};
use tapflow_device::hdc::{HdcClient, HdcConfig};
use tapflow_sim::{FaultSpec, Latency, SimOptions, SimTransport, Simulator};
use tapflow_tools::RegistryCatalog;
use tapflow_tools::hdc_provider::HdcProvider;
use tapflow_tools::{Engine, ToolConfig, ToolContext};

/// The binary, from the repository root, with no `TAPFLOW_*` variable of this process.
fn in_repo() -> Command {
    let mut c = cli::command(cli::repo());
    cli::without_tapflow_vars(&mut c);
    c
}

/// `tapflow run FLOW --sim 1 --sim-latency none --env PASSWORD=SECRET --report-dir REPORT`.
fn run_with_password(flow: &str, secret: &str, report: &Path) -> Output {
    let env = format!("PASSWORD={secret}");
    cli::run_on_one_sim(in_repo(), &[flow], &["--env", &env], report)
}

/// Seen: a secret with `"` and `\` stayed visible, JSON-escaped, in `ui_tree.json` evidence.
#[test]
fn a_secret_with_quotes_and_backslashes_never_shows_json_escaped() {
    let secret = "Us\"er\\Sec/ret1";
    let dir = tempfile::tempdir().unwrap();
    let flow = cli::write_secret_flow(
        dir.path(),
        "quotes.yaml",
        "Quotes",
        "  - input_text: {element_id: username, text: \"{{ PASSWORD }}\"}
  - assert_visible: {text: \"not {{ PASSWORD }}\", timeout_ms: 300}
",
    );
    let report = dir.path().join("report");
    let out = run_with_password(&flow, secret, &report);
    assert_eq!(out.status.code(), Some(1));
    let tree = walkdir::WalkDir::new(&report)
        .into_iter()
        .filter_map(Result::ok)
        .find(|e| e.file_name().to_string_lossy().ends_with("ui_tree.json"))
        .expect("a ui_tree evidence file");
    // The field's text is in the evidence, masked.
    let text = std::fs::read_to_string(tree.path()).unwrap();
    assert!(text.contains("******"), "{text}");
    let files = assert_nowhere(
        secret,
        &report,
        &[("stdout", &out.stdout), ("stderr", &out.stderr)],
    );
    assert!(files >= 3);
}

struct Fs;

impl SourceLoader for Fs {
    fn load(&self, path: &str) -> Result<String, String> {
        std::fs::read_to_string(path).map_err(|e| e.to_string())
    }
}

/// Seen: a secret with `'` was printed shell-quoted (`'\''`) in an `HDC_TIMEOUT` message, in
/// `result.json` and on stderr. Typing is made slower than a short hdc command deadline.
#[test]
fn a_secret_with_an_apostrophe_never_shows_shell_quoted_in_a_timeout() {
    let secret = "O'Brien-pa55'word";
    let dir = tempfile::tempdir().unwrap();
    let text = "name: Slow typing
app: com.tapflow.demo
clean_state: true
env:
  PASSWORD: {secret: true}
steps:
  - find_elements: {element_id: username}
    keep: field
  # Coordinate mode sends the text as given: ASCII is typed key by key (slowed by the fault).
  - input_text:
      x: \"{{ steps.field.result.elements.0.center.x }}\"
      y: \"{{ steps.field.result.elements.0.center.y }}\"
      text: \"{{ PASSWORD }}\"
";
    let engine = Arc::new(Engine::new());
    let catalog = RegistryCatalog::new(engine.clone());
    let opts = PlanOptions {
        env: [("PASSWORD".to_string(), secret.to_string())].into(),
        ..PlanOptions::default()
    };
    let c = compile(
        &[SourceFile::new("slow.yaml", text)],
        &[],
        &catalog,
        &Fs,
        &opts,
    );
    assert!(!c.has_errors(), "{:?}", c.diagnostics);
    let sim = Arc::new(Simulator::new(SimOptions {
        devices: 1,
        seed: 3,
        latency: Latency::None,
        faults: FaultSpec::parse("slow-chars=150ms").unwrap(),
        ..SimOptions::default()
    }));
    let serials = sim.serials();
    let cwd = std::env::temp_dir();
    let config = HdcConfig {
        command_timeout: Duration::from_millis(1200),
        ..HdcConfig::default()
    };
    let client = HdcClient::new(config, Arc::new(SimTransport::new(sim, &cwd)));
    let ctx = ToolContext::new(
        Arc::new(HdcProvider(client)),
        ToolConfig {
            screenshots_dir: cwd.clone(),
            ..ToolConfig::rooted_at(cwd)
        },
    );
    let report = dir.path().join("report");
    let mut ropts = RunOptions::new("timeout");
    ropts.devices = DeviceChoice::Serials(serials);
    ropts.run_dir = Some(report.clone());
    let events = CollectEvents::default();
    // With every reporter, so that result.json, junit.xml, report.html and manifest.json are
    // among the bytes checked below.
    let out = tapflow::report::Outputs::in_run_dir(&report);
    let r = tapflow::session::run_with_reports(&c.plan, engine, ctx, &ropts, &events, &out).result;
    assert!(report.join("junit.xml").is_file() && report.join("report.html").is_file());
    let json = serde_json::to_string_pretty(&r).unwrap();
    assert!(json.contains("HDC_TIMEOUT"), "{json}");
    let events = events.take();
    let masker = run::Masker::for_plan(&c.plan);
    let lines: String = events
        .iter()
        .filter_map(|e| tapflow::cli::run_cmd::progress::event_line(e, &masker))
        .collect::<Vec<_>>()
        .join("\n");
    assert!(lines.contains("HDC_TIMEOUT"), "{lines}");
    let events = serde_json::to_string(&events).unwrap();
    assert_nowhere(
        secret,
        &report,
        &[
            ("result", json.as_bytes()),
            ("events", events.as_bytes()),
            ("progress", lines.as_bytes()),
        ],
    );
}

/// Seen: `--env 'NOTE={{ PASSWORD }}'` typed the secret into a visible field. Values from the
/// command line (and `TAPFLOW_*`) are data: their braces reach the device as written.
#[test]
fn env_values_are_data_never_templates() {
    let secret = "s3cr3t-Value";
    let dir = tempfile::tempdir().unwrap();
    let flow = cli::write(
        dir.path(),
        "note.yaml",
        "name: Note
app: com.tapflow.demo
clean_state: true
env:
  PASSWORD: {secret: true}
  NOTE: nothing
  OTHER: nothing
steps:
  - input_text: {element_id: username, text: \"{{ NOTE }}|{{ OTHER }}\"}
  - find_elements: {element_id: username}
",
    );
    let report = dir.path().join("report");
    let mut c = in_repo();
    c.env("TAPFLOW_OTHER", "{{PASSWORD}}\\");
    let password = format!("PASSWORD={secret}");
    let extra = ["--env", "NOTE={{ PASSWORD }}", "--env", &password];
    let out = cli::run_on_one_sim(c, &[&flow], &extra, &report);
    let r = cli::result(&report);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        serde_json::to_string_pretty(&r).unwrap()
    );
    let typed = &r["flows"][0]["steps"][1]["result"]["elements"][0]["text"];
    assert_eq!(typed, "{{ PASSWORD }}|{{PASSWORD}}\\");
    assert_nowhere(
        secret,
        &report,
        &[("stdout", &out.stdout), ("stderr", &out.stderr)],
    );
}

/// Seen: `\{{` kept its backslash. It is a literal `{{` (and `\\{{` a backslash before a
/// reference).
#[test]
fn a_backslash_before_braces_gives_literal_braces() {
    let dir = tempfile::tempdir().unwrap();
    let flow = cli::write(
        dir.path(),
        "braces.yaml",
        r"name: Braces
app: com.tapflow.demo
clean_state: true
env:
  USER: demo
steps:
  - input_text: {element_id: username, text: 'a \{{ USER }} b \\{{ USER }}'}
  - find_elements: {element_id: username}
",
    );
    let report = dir.path().join("report");
    let out = cli::run_on_one_sim(in_repo(), &[&flow], &[], &report);
    let r = cli::result(&report);
    assert_eq!(out.status.code(), Some(0), "{r:#}");
    assert_eq!(
        r["flows"][0]["steps"][1]["result"]["elements"][0]["text"],
        r"a {{ USER }} b \demo"
    );
}

/// Issue 11: progress lines printed `{{ steps.… }}` as written; they show the resolved values,
/// with secrets masked.
#[test]
fn progress_lines_show_resolved_masked_values() {
    let secret = "Progress-Secret-9";
    let dir = tempfile::tempdir().unwrap();
    let flow = cli::write_secret_flow(
        dir.path(),
        "titles.yaml",
        "Titles",
        "  - find_elements: {element_id: login}
    keep: btn
  - assert_visible: \"{{ steps.btn.result.elements.0.text }}\"
  - input_text: {element_id: username, text: \"{{ PASSWORD }}\"}
    label: \"type {{ PASSWORD }} for {{ steps.btn.result.count }} button\"
  - input_text: {element_id: username, text: \"{{ PASSWORD }}\"}
",
    );
    let report = dir.path().join("report");
    let out = run_with_password(&flow, secret, &report);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert!(!err.contains("{{"), "{err}");
    // Written `assert_visible`, shown as written (issue 7).
    assert!(err.contains("assert_visible Login"), "{err}");
    assert!(err.contains("type ****** for 1 button"), "{err}");
    assert!(err.contains("input_text ******"), "{err}");
    assert_nowhere(
        secret,
        &report,
        &[("stdout", &out.stdout), ("stderr", &out.stderr)],
    );
}

/// A multi-line secret reaches hilog one line per record (the app logs the user name after
/// login): each line long enough to be masked on its own is masked.
#[test]
fn each_line_of_a_multi_line_secret_is_masked_in_log_evidence() {
    let secret = "first-line-secret\nsecond-line-secret";
    let dir = tempfile::tempdir().unwrap();
    let flow = cli::write_secret_flow(
        dir.path(),
        "lines.yaml",
        "Lines",
        "  - input_text: {element_id: username, text: \"{{ PASSWORD }}\"}
    optional: true
  # The app logs `LOGIN_SUCCESS user=<name>` 0.8 s later, within the failing step's window.
  - click: {element_id: login}
  - assert_visible: {text: \"not {{ PASSWORD }}\", timeout_ms: 1500}
",
    );
    let report = dir.path().join("report");
    let out = run_with_password(&flow, secret, &report);
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let hilog = walkdir::WalkDir::new(&report)
        .into_iter()
        .filter_map(Result::ok)
        .find(|e| e.file_name().to_string_lossy().ends_with("hilog.txt"))
        .expect("a hilog evidence file");
    let text = std::fs::read_to_string(hilog.path()).unwrap();
    assert!(text.contains("LOGIN_SUCCESS user=******"), "{text}");
    for line in ["first-line-secret", "second-line-secret"] {
        assert!(!text.contains(line), "{text}");
    }
    assert_nowhere(
        secret,
        &report,
        &[("stdout", &out.stdout), ("stderr", &out.stderr)],
    );
}

/// Seen: the `signature` of a `logs_query` marker in `result.json` normalised the digits of a
/// secret user name (`UsrSecretAlpha9` stored as `UsrSecretAlpha<n>`), which no masker knows.
#[test]
fn a_log_signature_never_holds_a_normalised_secret() {
    let secret = "UsrSecretAlpha9";
    let dir = tempfile::tempdir().unwrap();
    let flow = cli::write(
        dir.path(),
        "user.yaml",
        "name: Secret user
app: com.tapflow.demo
clean_state: true
env:
  USER: {secret: true}
  PASSWORD: {default: pw-demo-1}
steps:
  - run_flow: {file: subflows/login.yaml}
  # The app logs `LOGIN_SUCCESS user=<name>` (and the digits of the name are normalised in
  # the signature that groups the lines).
  - logs_query: {mode: markers, marker_keywords: [LOGIN_SUCCESS]}
    expect: {match_count: {gte: 1}}
",
    );
    std::fs::create_dir_all(dir.path().join("subflows")).unwrap();
    std::fs::copy(
        cli::repo().join("flows/subflows/login.yaml"),
        dir.path().join("subflows/login.yaml"),
    )
    .unwrap();
    let report = dir.path().join("report");
    let env = format!("USER={secret}");
    let out = cli::run_on_one_sim(in_repo(), &[&flow], &["--env", &env], &report);
    assert_eq!(out.status.code(), Some(0), "{}", cli::text(&out));
    let r = cli::result(&report);
    let query = cli::steps(&r["flows"][0])
        .into_iter()
        .find(|s| s["tool"] == "logs_query")
        .expect("the logs_query step");
    let item = &query["result"]["items"][0];
    let signature = item["signature"].as_str().unwrap();
    assert!(
        signature.ends_with("|LOGIN_SUCCESS user=******"),
        "{signature}"
    );
    assert_eq!(item["message"], "LOGIN_SUCCESS user=******");
    // In no form anywhere: not even the letters before the normalised digit.
    let files = assert_nowhere(
        "UsrSecretAlpha",
        &report,
        &[("stdout", &out.stdout), ("stderr", &out.stderr)],
    );
    assert!(files >= 3);
}
