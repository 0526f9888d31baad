//! Issue 18, seen 2: a right-to-left override (U+202E) in a name was shown raw in the HTML
//! report, so `Login\u{202E}deliaf` read as "Loginfailed" reversed. Every bidirectional control
//! character (U+202A–U+202E, U+2066–U+2069, U+200E, U+200F, U+061C) is now written out as
//! `<U+XXXX>` wherever tapflow shows text to a person: the HTML report, the progress lines and
//! the summary of `tapflow run`, `tapflow validate`'s diagnostics and `tapflow plan`. Machine
//! output (`result.json`) keeps the name as written.

use crate::common::cli;

use std::path::Path;
use std::process::Output;

/// Every bidirectional control character.
fn controls() -> Vec<char> {
    ('\u{202A}'..='\u{202E}')
        .chain('\u{2066}'..='\u{2069}')
        .chain(['\u{200E}', '\u{200F}', '\u{061C}'])
        .collect()
}

fn tapflow(dir: &Path, args: &[&str]) -> Output {
    let mut c = cli::command(dir);
    cli::without_tapflow_vars(&mut c);
    c.env_remove("GITHUB_STEP_SUMMARY")
        .env("NO_COLOR", "1")
        .args(args)
        .output()
        .unwrap()
}

/// No raw control in `text`, and each one written out.
fn assert_shown(what: &str, text: &str, escaped: impl Fn(char) -> String) {
    for c in controls() {
        assert!(
            !text.contains(c),
            "{what} holds U+{:04X} raw:\n{text}",
            c as u32
        );
        assert!(
            text.contains(&escaped(c)),
            "{what} does not show U+{:04X}:\n{text}",
            c as u32
        );
    }
}

fn plain(c: char) -> String {
    format!("<U+{:04X}>", c as u32)
}

#[test]
fn bidi_controls_in_names_are_shown_escaped_in_the_report_and_on_the_terminal() {
    let dir = tempfile::tempdir().unwrap();
    let all: String = controls().into_iter().collect();
    // The flow's file name and name, and step labels carry every control (the summary names
    // flows by file; tools quote looked-for text with Rust's escapes already).
    let flow = format!(
        "name: \"Login{all}deliaf\"\nsteps:\n  - press_key: Home\n    label: \"step{all}x\"\n  - wait_for_element: {{text: \"Never{all}shown\", timeout_ms: 300}}\n    label: \"fails{all}\"\n"
    );
    let file = format!("flows/rtl{all}.yaml");
    cli::write(dir.path(), &file, &flow);
    let run_dir = dir.path().join("run");
    let out = tapflow(
        dir.path(),
        &[
            "run",
            &file,
            "--sim",
            "1",
            "--sim-latency",
            "none",
            "--no-progress",
            "--report-dir",
            run_dir.to_str().unwrap(),
        ],
    );
    assert_eq!(out.status.code(), Some(1), "{}", cli::text(&out));
    assert_shown(
        "the progress lines",
        &String::from_utf8_lossy(&out.stderr),
        plain,
    );
    assert_shown("the summary", &String::from_utf8_lossy(&out.stdout), plain);

    let html = std::fs::read_to_string(run_dir.join("report.html")).unwrap();
    assert_shown("report.html", &html, |c| {
        format!("&lt;U+{:04X}&gt;", c as u32)
    });
    assert!(html.contains("Login&lt;U+202A&gt;"), "the flow's name");
    // The data keeps what the flow said.
    let result = cli::json(&run_dir.join("result.json"));
    assert_eq!(result["flows"][0]["name"], format!("Login{all}deliaf"));

    // The plan and validate's diagnostics (a step named with the controls is unknown).
    let out = tapflow(dir.path(), &["plan", &file]);
    assert_eq!(out.status.code(), Some(0), "{}", cli::text(&out));
    assert_shown("the plan", &String::from_utf8_lossy(&out.stdout), plain);
    cli::write(
        dir.path(),
        "bad/typo.yaml",
        format!("name: \"Typo{all}\"\nsteps:\n  - \"cl{all}ick\": Login\n"),
    );
    let out = tapflow(dir.path(), &["validate", "bad/typo.yaml"]);
    assert_eq!(out.status.code(), Some(3), "{}", cli::text(&out));
    assert_shown(
        "the diagnostics",
        &String::from_utf8_lossy(&out.stderr),
        plain,
    );
}
