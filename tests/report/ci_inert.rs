//! CI output is inert (issue 18, deliverable 4). A flow types `x\n::warning::forged` (and a
//! legacy `##[stop-commands]`) and fails on text that holds a newline, a workflow command and
//! Markdown/HTML images; it runs with `-v`, `GITHUB_ACTIONS=true` and a step summary file, as
//! on GitHub Actions. The runner reads every stdout/stderr line: none may start with `::`
//! (after leading whitespace, which the runner trims) but tapflow's own well-formed `::error`
//! annotations, and none may hold `##[` (the legacy prefix, honoured anywhere in a line). The
//! step summary, rendered by cmark-gfm (GitHub's renderer, with GitHub's extensions), shows no
//! image and no link.
//!
//! Seen before: `PASS forge.1 input_text x` then a line `::warning::forged (54 ms)` on
//! stderr, and `![img](http://…)` rendered as a remote image in the summary.

use crate::common::cli;

use std::process::Command;

const FLOW: &str = "name: Forge
app: com.tapflow.demo
clean_state: true
steps:
  - input_text: {element_id: username, text: \"x\\n::warning::forged ##[stop-commands]tok\"}
    optional: true
  - assert_visible:
      text: \"nope\\r\\n::error::forged2 ![img](http://evil.example/a.png) <img src=\\\"//evil.example/b.png\\\"> www.evil.example\"
      timeout_ms: 300
";

/// Renders Markdown as GitHub does (cmark-gfm, installed by scripts/test-deps.d/20-cmark-gfm.sh).
fn render_gfm(md: &str) -> String {
    use std::io::Write;
    let mut child = Command::new("cmark-gfm")
        .args(["-e", "table", "-e", "autolink", "-e", "tagfilter"])
        .args(["-e", "strikethrough"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| {
            panic!("cmark-gfm: {e}: run scripts/test-deps.d/20-cmark-gfm.sh (or scripts/test)")
        });
    child
        .stdin
        .take()
        .unwrap()
        .write_all(md.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    String::from_utf8(out.stdout).unwrap()
}

/// tapflow's own annotation: `::error` with its properties, the message on the same line.
fn own_annotation(line: &str) -> bool {
    regex::Regex::new(r"^::error file=[^,:]+,line=\d+,col=\d+,title=[^:,]+::[^\r\n]+$")
        .unwrap()
        .is_match(line)
}

#[test]
fn device_text_cannot_forge_workflow_commands_or_summary_images() {
    let dir = tempfile::tempdir().unwrap();
    cli::write(dir.path(), "forge.yaml", FLOW);
    let summary = dir.path().join("summary.md");
    let mut c = cli::command(dir.path());
    cli::without_tapflow_vars(&mut c);
    let out = c
        .env_remove("RUST_LOG")
        .args([
            "-v",
            "run",
            "forge.yaml",
            "--sim",
            "1",
            "--sim-latency",
            "none",
        ])
        .args(["--no-progress", "--report-dir", "run", "--github-summary"])
        .env("GITHUB_ACTIONS", "true")
        .env("GITHUB_STEP_SUMMARY", &summary)
        .output()
        .unwrap();
    let all = cli::text(&out);
    assert_eq!(out.status.code(), Some(1), "{all}");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    // The device text was printed (escaped), so the check below saw it.
    assert!(stderr.contains(r"x\n::warning::forged"), "{stderr}");
    let mut annotations = 0;
    // The runner splits on CR too.
    for line in all.split(['\n', '\r']) {
        assert!(!line.contains("##["), "a legacy command: {line:?}");
        let t = line.trim_start();
        if t.starts_with("::") {
            assert!(
                own_annotation(t),
                "a forged workflow command: {line:?}\n{all}"
            );
            annotations += 1;
        }
    }
    assert_eq!(annotations, 1, "{stdout}");

    let md = std::fs::read_to_string(&summary).unwrap();
    assert!(
        md.contains("forged2"),
        "the failing text is in the summary: {md}"
    );
    let html = render_gfm(&md);
    assert!(html.contains("<table>"), "{html}");
    for tag in ["<img", "<a ", "<script"] {
        assert!(
            !html.contains(tag),
            "{tag} in the rendered summary:\n{html}"
        );
    }
}
